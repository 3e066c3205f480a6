//! Hash join. The right child is the build side (the optimizer puts the
//! smaller input there): all its partitions are drained in parallel into one
//! chained hash table, shared by every probe partition of the left child.
//! One operator covers inner, left outer, semi, anti, NULL-aware anti (NOT IN),
//! mark (IN / EXISTS as a value) and single (scalar subquery) joins; extra
//! non-equi conditions are checked on candidate pairs. An inner or semi join
//! whose build keys fit a bitmap hands it to the scan of its probe side
//! ([`JoinKeyFilter`]), which drops rows without a match before copying them.

mod build_side;
mod probe;

use std::sync::{Arc, OnceLock};

use arrow_array::{BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_buffer::BooleanBuffer;
use arrow_schema::SchemaRef;
use quiver_common::Result;
use quiver_plan::JoinKind;

use crate::context::OwnedReservation;
use crate::expr::PhysicalExpr;
use crate::join_key_filter::{BuildKeys, JoinKeyFilter};
use crate::operators::exec_plan::{
    for_each_partition, metered, timed, BatchStream, ExecutionPlan, Metrics,
};
use crate::ExecContext;

use build_side::{build_table, BuildSide};
use probe::{check_pairs, pair_batch, ProbeStream, Prober, OUTPUT_ROWS, PAIRS_PER_BATCH};

#[derive(Debug)]
pub struct HashJoinExec {
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    kind: JoinKind,
    left_keys: Vec<PhysicalExpr>,
    right_keys: Vec<PhysicalExpr>,
    /// Evaluated over left columns followed by right columns.
    filter: Option<PhysicalExpr>,
    schema: SchemaRef,
    text: String,
    build: OnceLock<Result<Arc<BuildSide>>>,
    /// Semi / anti / left outer join built on the left side (see `with_left_build`).
    build_left: bool,
    left_result: OnceLock<Result<Arc<LeftBuildResult>>>,
    /// Told the build keys once they are known (see `with_key_filter`).
    key_filter: Option<Arc<JoinKeyFilter>>,
    metrics: Arc<Metrics>,
}

/// The output of a join built on the left, per output partition (semi and
/// anti: all in partition 0, small by construction).
#[derive(Debug)]
struct LeftBuildResult {
    partitions: Vec<Vec<RecordBatch>>,
    /// What the pairs held take from the memory limit, while they are held.
    _memory: Option<Vec<OwnedReservation>>,
}

impl HashJoinExec {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        left: Arc<dyn ExecutionPlan>,
        right: Arc<dyn ExecutionPlan>,
        kind: JoinKind,
        left_keys: Vec<PhysicalExpr>,
        right_keys: Vec<PhysicalExpr>,
        filter: Option<PhysicalExpr>,
        schema: SchemaRef,
        text: String,
    ) -> Self {
        HashJoinExec {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            filter,
            schema,
            text,
            build: OnceLock::new(),
            build_left: false,
            left_result: OnceLock::new(),
            key_filter: None,
            metrics: Default::default(),
        }
    }

    /// Tells `filter` the build's first keys once the table is built (an
    /// inner or semi join built on the right): the planner gives the same
    /// filter to the scan on the probe side, which tests the first probe key.
    pub fn with_key_filter(mut self, filter: Arc<JoinKeyFilter>) -> Self {
        debug_assert!(matches!(self.kind, JoinKind::Inner | JoinKind::Semi));
        debug_assert!(!self.left_keys.is_empty());
        self.key_filter = Some(filter);
        self
    }

    /// Builds on the left side instead of the right: for a semi, anti or
    /// left outer join whose preserved (left) side is much smaller than the
    /// other (TPC-H Q21: 76,000 candidate rows against all of lineitem; Q13:
    /// 150,000 customers against 1.5 million orders), a table over the left
    /// rows is probed by the right rows, which mark the left rows they match;
    /// then the marked (semi) or unmarked (anti) left rows are the result,
    /// or (left outer) the matching pairs followed by the unmarked left rows
    /// with NULLs.
    pub fn with_left_build(mut self) -> Self {
        debug_assert!(matches!(
            self.kind,
            JoinKind::Semi | JoinKind::Anti | JoinKind::Left
        ));
        self.build_left = true;
        self
    }

    fn build_side(&self, ctx: &Arc<ExecContext>) -> Result<Arc<BuildSide>> {
        self.build
            .get_or_init(|| {
                timed(&self.metrics, || {
                    let built = build_table(
                        &self.right,
                        &self.right_keys,
                        null_aware_keys(self.kind),
                        ctx,
                    )
                    .map(Arc::new);
                    if let (Some(f), Ok(b)) = (&self.key_filter, &built) {
                        // The probe scan filters by the first key alone: the
                        // index's own bitmap when that is all it holds
                        // (packed keys are not the first key's values).
                        let main = &b.main;
                        let exact = match (&main.pack, main.keys.len()) {
                            (None, 1) => main.present.clone(),
                            _ => None,
                        };
                        f.publish(BuildKeys::for_probe_scan(
                            &main.keys[..1],
                            b.batch.num_rows(),
                            exact,
                        ));
                    }
                    built
                })
            })
            .clone()
    }

    /// The whole result when building on the left (see `with_left_build`).
    fn left_build_result(&self, ctx: &Arc<ExecContext>) -> Result<Arc<LeftBuildResult>> {
        self.left_result
            .get_or_init(|| {
                timed(&self.metrics, || {
                    if self.kind == JoinKind::Left {
                        self.run_left_build_outer(ctx).map(Arc::new)
                    } else {
                        let batches = self.run_left_build(ctx)?;
                        Ok(Arc::new(LeftBuildResult {
                            partitions: vec![batches],
                            _memory: None,
                        }))
                    }
                })
            })
            .clone()
    }

    /// A left outer join built on the left: each right partition probes the
    /// left rows' table and keeps its matching pairs (after the filter) and
    /// which left rows they matched; the left rows no partition matched
    /// follow with NULL right columns. The pairs stay in the partitions that
    /// made them, so the operators above go on in parallel.
    fn run_left_build_outer(&self, ctx: &Arc<ExecContext>) -> Result<LeftBuildResult> {
        let build = build_table(&self.left, &self.left_keys, 0, ctx)?;
        let rows = build.batch.num_rows();
        let pair_schema = self.pair_schema();
        let parts = for_each_partition(&self.right, ctx, |stream| {
            let mut matched = vec![false; rows];
            let mut out: Vec<RecordBatch> = Vec::new();
            let mut memory = OwnedReservation::new(ctx);
            let mut li: Vec<u32> = Vec::new();
            let mut ri: Vec<Option<u32>> = Vec::new();
            for batch in stream {
                let right = batch?;
                let n = right.num_rows();
                let keys = build.main.probe_key_columns(&self.right_keys, &right)?;
                let probe = build.main.probe_keys(&keys, n);
                let mut flush = |li: &mut Vec<u32>,
                                 ri: &mut Vec<Option<u32>>,
                                 matched: &mut [bool],
                                 out: &mut Vec<RecordBatch>|
                 -> Result<()> {
                    if li.is_empty() {
                        return Ok(());
                    }
                    ctx.check_cancelled()?;
                    let pairs = check_pairs(
                        &pair_schema,
                        &build.batch,
                        li,
                        &right,
                        ri,
                        self.filter.as_ref(),
                        true,
                        |j| matched[j as usize] = true,
                    )?
                    .expect("kept pairs");
                    if pairs.num_rows() > 0 {
                        memory.grow(pairs.get_array_memory_size())?;
                        out.push(pairs);
                    }
                    li.clear();
                    ri.clear();
                    Ok(())
                };
                for i in 0..n {
                    if probe.is_null(i) {
                        continue;
                    }
                    build.main.for_each_match(&probe, i, |j| {
                        li.push(j as u32);
                        ri.push(Some(i as u32));
                        true
                    });
                    if li.len() >= PAIRS_PER_BATCH {
                        flush(&mut li, &mut ri, &mut matched, &mut out)?;
                    }
                }
                flush(&mut li, &mut ri, &mut matched, &mut out)?;
            }
            Ok((matched, out, memory))
        })?;
        let lonely: Vec<u32> = (0..rows as u32)
            .filter(|&j| !parts.iter().any(|(m, _, _)| m[j as usize]))
            .collect();
        let mut memory = Vec::with_capacity(parts.len());
        let mut partitions: Vec<Vec<RecordBatch>> = Vec::with_capacity(parts.len());
        for (_, out, m) in parts {
            memory.push(m);
            partitions.push(out);
        }
        if !lonely.is_empty() {
            let none = vec![None; lonely.len()];
            let no_right = RecordBatch::new_empty(self.right.schema());
            let rest = pair_batch(&pair_schema, &build.batch, &lonely, &no_right, &none)?;
            partitions[0].push(rest);
        }
        // As many partitions as this operator promises, the batches dealt
        // out in turn.
        let n = self.output_partitions().max(1);
        let mut dealt: Vec<Vec<RecordBatch>> = vec![Vec::new(); n];
        for (k, b) in partitions.into_iter().flatten().enumerate() {
            dealt[k % n].push(RecordBatch::try_new_with_options(
                self.schema.clone(),
                b.columns().to_vec(),
                &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
            )?);
        }
        Ok(LeftBuildResult {
            partitions: dealt,
            _memory: Some(memory),
        })
    }

    fn run_left_build(&self, ctx: &Arc<ExecContext>) -> Result<Vec<RecordBatch>> {
        let build = build_table(&self.left, &self.left_keys, 0, ctx)?;
        let rows = build.batch.num_rows();
        let pair_schema = self.pair_schema();
        // Each right partition marks the left rows it matches in its own
        // vector; they are OR-ed at the end.
        // Marks the left rows of candidate pairs that pass the filter.
        let mark_filtered = |li: &mut Vec<u32>,
                             ri: &mut Vec<Option<u32>>,
                             right: &RecordBatch,
                             matched: &mut [bool]|
         -> Result<()> {
            let Some(f) = &self.filter else {
                return Ok(());
            };
            if li.is_empty() {
                return Ok(());
            }
            ctx.check_cancelled()?;
            let mark = |j: u32| matched[j as usize] = true;
            check_pairs(
                &pair_schema,
                &build.batch,
                li,
                right,
                ri,
                Some(f),
                false,
                mark,
            )?;
            li.clear();
            ri.clear();
            Ok(())
        };
        let marks = for_each_partition(&self.right, ctx, |stream| {
            let mut matched = vec![false; rows];
            for batch in stream {
                let right = batch?;
                let n = right.num_rows();
                let keys = build.main.probe_key_columns(&self.right_keys, &right)?;
                let probe = build.main.probe_keys(&keys, n);
                let mut li: Vec<u32> = Vec::new();
                let mut ri: Vec<Option<u32>> = Vec::new();
                let mut visit = |i: usize| -> Result<()> {
                    if probe.is_null(i) {
                        return Ok(());
                    }
                    build.main.for_each_match(&probe, i, |j| {
                        // A left row already matched needs no more pairs.
                        if !matched[j] {
                            if self.filter.is_some() {
                                li.push(j as u32);
                                ri.push(Some(i as u32));
                            } else {
                                matched[j] = true;
                            }
                        }
                        true
                    });
                    if li.len() >= PAIRS_PER_BATCH {
                        mark_filtered(&mut li, &mut ri, &right, &mut matched)?;
                    }
                    Ok(())
                };
                // Q21: 6M lineitem rows against 75k indexed orders.
                match build.main.sift(&probe) {
                    Some(rows) => rows.iter().try_for_each(|&i| visit(i as usize))?,
                    None => (0..n).try_for_each(&mut visit)?,
                }
                mark_filtered(&mut li, &mut ri, &right, &mut matched)?;
            }
            Ok(matched)
        })?;
        let want = self.kind == JoinKind::Semi;
        let keep = BooleanBuffer::collect_bool(rows, |j| marks.iter().any(|m| m[j]) == want);
        let out = arrow_select::filter::filter_record_batch(
            &build.batch,
            &BooleanArray::new(keep, None),
        )?;
        Ok(vec![RecordBatch::try_new_with_options(
            self.schema.clone(),
            out.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(out.num_rows())),
        )?])
    }

    /// Left columns followed by right ones (nullable), as filters see them.
    fn pair_schema(&self) -> SchemaRef {
        let mut fields: Vec<_> = self.left.schema().fields().iter().cloned().collect();
        fields.extend(
            self.right
                .schema()
                .fields()
                .iter()
                .map(|f| Arc::new(f.as_ref().clone().with_nullable(true))),
        );
        Arc::new(arrow_schema::Schema::new(fields))
    }
}

/// How many leading join keys compare null-aware (IN keys).
fn null_aware_keys(kind: JoinKind) -> usize {
    match kind {
        JoinKind::NullAwareAnti { null_aware } | JoinKind::Mark { null_aware, .. } => null_aware,
        _ => 0,
    }
}

impl ExecutionPlan for HashJoinExec {
    fn describe(&self) -> String {
        let side = if self.build_left { " (build left)" } else { "" };
        format!("HashJoin {:?}{side} {}", self.kind, self.text)
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.left.clone(), self.right.clone()]
    }
    fn output_partitions(&self) -> usize {
        self.left.output_partitions()
    }
    fn execute(&self, partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        if self.build_left {
            let result = self.left_build_result(ctx)?;
            let batches: Vec<Result<RecordBatch>> = result
                .partitions
                .get(partition)
                .map(|p| p.iter().cloned().map(Ok).collect())
                .unwrap_or_default();
            return Ok(metered(Box::new(batches.into_iter()), &self.metrics));
        }
        let build = self.build_side(ctx)?;
        let left = self.left.execute(partition, ctx)?;
        let prober = Prober {
            kind: self.kind,
            left_keys: self.left_keys.clone(),
            filter: self.filter.clone(),
            pair_schema: self.pair_schema(),
            out_schema: self.schema.clone(),
            build,
            cancel: ctx.cancel.clone(),
        };
        // Without keys every probe row meets every build row.
        let fanout = if self.left_keys.is_empty() {
            prober.build.batch.num_rows().max(1)
        } else {
            1
        };
        let stream = ProbeStream {
            input: left,
            prober,
            pending: Default::default(),
            current: None,
            slice_rows: (OUTPUT_ROWS / fanout).max(1),
        };
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
