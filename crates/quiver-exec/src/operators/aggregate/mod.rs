//! Hash aggregation in two phases: every input partition aggregates into a
//! table of its own (no sharing, no locks), then the partial tables are merged.
//! Accumulators keep their state in flat vectors indexed by group id and are
//! updated a batch at a time with typed loops.

mod acc;
mod distinct;
mod distinct_pairs;
mod first_seen;
mod group_table;
mod kernels;
mod min_max_str;
mod radix;
#[cfg(test)]
mod radix_tests;
mod spec;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use quiver_common::{QuiverError, Result};
use quiver_plan::AggFunc;

use crate::bytes::is_binary;
use crate::context::OwnedReservation;
use crate::expr::PhysicalExpr;
use crate::operators::exec_plan::{
    for_each_partition_positioned, BatchStream, ExecutionPlan, Metrics,
};
use crate::operators::run_once::RunOnce;
use crate::ExecContext;

use first_seen::is_exact;
use first_seen::order_classes;
use group_table::GroupTable;
pub use radix::Partitioning;
use radix::{
    aggregate_buckets, bucket_exprs, scatterable, Decider, Mode, Sample, Scatter, BUCKETS,
};
pub use spec::AggregateSpec;

#[derive(Debug)]
pub struct AggregateExec {
    input: Arc<dyn ExecutionPlan>,
    group: Vec<PhysicalExpr>,
    group_types: Vec<DataType>,
    aggs: Vec<AggregateSpec>,
    schema: SchemaRef,
    text: String,
    partitioning: Partitioning,
    /// How the partitions ran, once they have (for EXPLAIN ANALYZE).
    decider: Decider,
    output: RunOnce,
    metrics: Arc<Metrics>,
}

impl AggregateExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        group: Vec<PhysicalExpr>,
        group_types: Vec<DataType>,
        aggs: Vec<AggregateSpec>,
        schema: SchemaRef,
        text: String,
    ) -> Self {
        AggregateExec {
            input,
            group,
            group_types,
            aggs,
            schema,
            text,
            partitioning: Partitioning::default(),
            decider: Decider::default(),
            output: RunOnce::default(),
            metrics: Default::default(),
        }
    }

    /// The same aggregate, scattering its rows into buckets as `p` says.
    pub fn with_partitioning(mut self, p: Partitioning) -> Self {
        self.partitioning = p;
        self
    }

    fn run(&self, ctx: &Arc<ExecContext>) -> Result<Arc<Vec<RecordBatch>>> {
        // With several partitions a group's rows, and the spellings of its
        // key, are spread over partial tables: where equal keys can differ
        // in their bytes, each table notes where its groups were first seen
        // so that the merge keeps the spelling of the first row.
        let several = self.input.output_partitions() > 1;
        let keys = several && self.keys_can_differ();
        let values = several && self.values_can_differ();
        // GROUP_CONCAT shows rows in input order (or ties of its ORDER BY).
        let ordered = several && self.aggs.iter().any(|a| a.concat.is_some());
        let track = keys || values || ordered;
        // Rows scatter into buckets where the order they come in decides
        // no more than the spelling of keys (see `radix`).
        let may_scatter =
            several && !values && !ordered && !self.group.is_empty() && scatterable(&self.aggs);
        let decider = &self.decider;
        let parts = for_each_partition_positioned(&self.input, ctx, |stream, position| {
            let mut table = GroupTable::tracking(&self.group_types, &self.aggs, keys, values);
            let mut memory = OwnedReservation::new(ctx);
            let mut reserved = 0;
            let mut sample = may_scatter.then(Sample::default);
            let mut scatter: Option<Scatter> = None;
            for batch in stream {
                let batch = batch?;
                ctx.check_cancelled()?;
                let at = if track {
                    table.batch_position(position.take())
                } else {
                    0
                };
                if let Some(s) = &mut scatter {
                    s.push(&batch, at, &self.group, &self.aggs)?;
                    if s.bytes() > reserved + (1 << 20) {
                        memory.grow(s.bytes() - reserved)?;
                        reserved = s.bytes();
                    }
                    continue;
                }
                table.update_at(&batch, &self.group, &self.aggs, at)?;
                if let Some(s) = &mut sample {
                    // Noted first: the batch is in the sample whatever is decided.
                    let mine = s.note(&batch, at, &table, &self.partitioning);
                    let mode = decider
                        .decided()
                        .or_else(|| mine.map(|m| decider.decide(m)));
                    match mode {
                        Some(Mode::Scattered) => {
                            scatter = Some(self.scatter_sample(std::mem::take(s))?);
                            sample = None;
                            table = table.emptied(&self.group_types, &self.aggs);
                            continue;
                        }
                        Some(Mode::Own) => sample = None,
                        None => {}
                    }
                }
                let size = table.memory_size();
                if size > reserved + (1 << 20) {
                    memory.grow(size - reserved)?;
                    reserved = size;
                }
            }
            if let Some(s) = &mut scatter {
                s.finish()?;
            }
            // A sample still open (the stream ended first) waits for the
            // other partitions' decision.
            Ok((table, scatter, sample, memory))
        })?;
        if decider.decide(Mode::Own) == Mode::Scattered {
            let (group, aggs) = bucket_exprs(&self.group, &self.aggs);
            let classes = keys.then(|| order_classes(parts.iter().map(|(t, ..)| t.seen.scan)));
            let mut scatters = vec![];
            let mut keep = vec![];
            for (_, scatter, sample, m) in parts {
                scatters.push(match (scatter, sample) {
                    (Some(s), _) => s,
                    (None, Some(sample)) => {
                        let mut s = self.scatter_sample(sample)?;
                        s.finish()?;
                        s
                    }
                    (None, None) => Scatter::default(),
                });
                keep.push(m);
            }
            let batches = aggregate_buckets(
                scatters,
                classes.as_deref(),
                &self.group_types,
                &group,
                &aggs,
                &self.schema,
                ctx,
            )?;
            return Ok(Arc::new(batches));
        }
        let tables: Vec<(GroupTable, OwnedReservation)> =
            parts.into_iter().map(|(t, _, _, m)| (t, m)).collect();
        let classes = order_classes(tables.iter().map(|(t, _)| t.seen.scan));
        let mut it = tables.into_iter().zip(classes);
        let ((mut total, _m), class) = it
            .next()
            .ok_or_else(|| QuiverError::internal("aggregate without input partitions"))?;
        total.set_class(class);
        let mut keep = vec![_m];
        let mut it = it.peekable();
        while let Some(((t, m), class)) = it.next() {
            total.merge_in(t, class, it.peek().is_none())?;
            keep.push(m);
        }
        let batch = total.finish(&self.schema, &self.aggs)?;
        Ok(Arc::new(vec![batch]))
    }

    /// The sampled batches of a partition, scattered into buckets.
    fn scatter_sample(&self, sample: Sample) -> Result<Scatter> {
        let mut s = Scatter::default();
        for (b, at) in &sample.batches {
            s.push(b, *at, &self.group, &self.aggs)?;
        }
        Ok(s)
    }

    /// Whether two rows of one group can show different keys: some key is
    /// a string under a collation where equal is not identical (case or
    /// accents fold, or trailing spaces pad).
    fn keys_can_differ(&self) -> bool {
        self.group
            .iter()
            .zip(&self.group_types)
            .any(|(g, t)| is_string_type(t) && !is_binary(t) && !is_exact(g.collation()))
    }

    /// Whether a string MIN or MAX can tie distinct values.
    fn values_can_differ(&self) -> bool {
        self.aggs.iter().any(|a| {
            !a.distinct
                && matches!(a.func, AggFunc::Min | AggFunc::Max)
                && a.output_type == DataType::Utf8
                && a.arg.as_ref().is_some_and(|e| !is_exact(e.collation()))
        })
    }
}

fn is_string_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
    )
}

impl ExecutionPlan for AggregateExec {
    fn describe(&self) -> String {
        let scattered = match self.decider.decided() {
            Some(Mode::Scattered) => format!(" scattered={BUCKETS}"),
            _ => String::new(),
        };
        format!("HashAggregate {}{scattered}", self.text)
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.input.clone()]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        self.output.replay(&self.metrics, true, || self.run(ctx))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

#[cfg(test)]
mod binary_tests {
    use super::first_seen::CLASS_SHIFT;
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::Array;
    use arrow_array::{BinaryArray, Int64Array};
    use arrow_schema::{Field, Schema};
    use std::collections::{BTreeMap, BTreeSet};

    type Row = (i64, Option<Vec<u8>>);

    fn batch(rows: &[Row]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("b", DataType::Binary, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
                Arc::new(BinaryArray::from_iter(rows.iter().map(|r| r.1.clone()))),
            ],
        )
        .unwrap()
    }

    /// GROUP BY a binary key (packed while short, then the string map or
    /// the general table; alone, with an integer), merged over partitions,
    /// with MIN / MAX / COUNT(DISTINCT) of binary values: bytes decide, no
    /// padding ('a' and 'a ' are two groups), plain byte order. Checked
    /// against a reference over `Vec<u8>`.
    #[test]
    fn binary_keys_and_min_max_distinct_are_bytes() {
        let words: [&[u8]; 9] = [
            b"a",
            b"a ",
            b"a\0",
            b"A",
            b"",
            b" ",
            b"\xFF",
            b"\xC3\xA9",
            b"ab",
        ];
        let long = b"a long binary key \xFF".to_vec();
        let row = |k: usize| -> Row {
            let b = match k % 10 {
                9 => None,
                w => Some(words[(w + k / 10) % words.len()].to_vec()),
            };
            ((k % 3) as i64, b)
        };
        let early: Vec<Row> = (0..60).map(row).collect();
        let mut late: Vec<Row> = (60..130).map(row).collect();
        late.push((1, Some(long.clone())));
        let b = PhysicalExpr::Column(1);
        let spec = |func, distinct, t: DataType| AggregateSpec {
            func,
            arg: Some(b.clone()),
            distinct,
            output_type: t,
            text: String::new(),
            concat: None,
        };
        let aggs = vec![
            spec(AggFunc::Min, false, DataType::Binary),
            spec(AggFunc::Max, false, DataType::Binary),
            spec(AggFunc::Count, true, DataType::Int64),
        ];
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>, &[Row])> = vec![
            (vec![b.clone()], vec![DataType::Binary], &early[..]),
            (vec![b.clone()], vec![DataType::Binary], &late[..]),
            (
                vec![b.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Binary, DataType::Int64],
                &early[..],
            ),
            (
                vec![PhysicalExpr::Column(0), b.clone()],
                vec![DataType::Int64, DataType::Binary],
                &late[..],
            ),
        ];
        for (shape, (group, types, second)) in shapes.into_iter().enumerate() {
            let parts = [batch(&early), batch(second)];
            let mut tables = parts.iter().map(|p| {
                let mut t = GroupTable::tracking(&types, &aggs, true, true);
                t.update_at(p, &group, &aggs, 0).unwrap();
                t
            });
            let mut total = tables.next().unwrap();
            for t in tables {
                total.merge_in(t, 1 << CLASS_SHIFT, true).unwrap();
            }
            let mut fields: Vec<Field> = types
                .iter()
                .enumerate()
                .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                .collect();
            fields.push(Field::new("min", DataType::Binary, true));
            fields.push(Field::new("max", DataType::Binary, true));
            fields.push(Field::new("n", DataType::Int64, true));
            let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
            let k = types.len();
            let bytes = |c: usize, r: usize| -> Option<Vec<u8>> {
                let a = out.column(c).as_binary::<i32>();
                a.is_valid(r).then(|| a.value(r).to_vec())
            };
            type Key = (Option<i64>, Option<Vec<u8>>);
            let key_of = |r: &Row| -> Key {
                match shape {
                    0 | 1 => (None, r.1.clone()),
                    _ => (Some(r.0), r.1.clone()),
                }
            };
            let mut got: BTreeMap<Key, (Option<Vec<u8>>, Option<Vec<u8>>, i64)> = BTreeMap::new();
            for r in 0..out.num_rows() {
                let int = |c: usize| out.column(c).as_primitive::<Int64Type>().value(r);
                let key = match shape {
                    0 | 1 => (None, bytes(0, r)),
                    2 => (Some(int(1)), bytes(0, r)),
                    _ => (Some(int(0)), bytes(1, r)),
                };
                let n = out.column(k + 2).as_primitive::<Int64Type>().value(r);
                assert!(got.insert(key, (bytes(k, r), bytes(k + 1, r), n)).is_none());
            }
            let mut want: BTreeMap<Key, BTreeSet<Vec<u8>>> = BTreeMap::new();
            for r in early.iter().chain(second) {
                let set = want.entry(key_of(r)).or_default();
                if let Some(v) = &r.1 {
                    set.insert(v.clone());
                }
            }
            let want: BTreeMap<Key, (Option<Vec<u8>>, Option<Vec<u8>>, i64)> = want
                .into_iter()
                .map(|(k, s)| {
                    let n = s.len() as i64;
                    (k, (s.first().cloned(), s.last().cloned(), n))
                })
                .collect();
            assert_eq!(got, want, "shape {shape}");
        }
    }
}
