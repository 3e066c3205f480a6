//! Sort and top-N. Input partitions are drained in parallel; the sort keys are
//! encoded once into byte-comparable rows (arrow-row), only (key, row index)
//! pairs are sorted, and the payload columns are gathered once at the end
//! (late materialization). With a fetch limit only the first N are ordered.

use std::sync::{Arc, OnceLock};

use arrow_array::{cast::AsArray, ArrayRef, BinaryArray, RecordBatch, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{SchemaRef, SortOptions};
use quiver_collation::{with_collator, Collation, Collator};
use quiver_common::Result;
use quiver_plan::default_collation;

use super::{execute_partitions, metered, timed, BatchStream, ExecutionPlan, Metrics};
use crate::context::{OwnedReservation, MORSEL_ROWS};
use crate::expr::PhysicalExpr;
use crate::ExecContext;

#[derive(Debug, Clone)]
pub struct SortKey {
    pub expr: PhysicalExpr,
    pub asc: bool,
    pub nulls_first: bool,
}

#[derive(Debug)]
pub struct SortExec {
    input: Arc<dyn ExecutionPlan>,
    keys: Vec<SortKey>,
    fetch: Option<usize>,
    text: String,
    output: OnceLock<Result<Arc<Vec<RecordBatch>>>>,
    metrics: Arc<Metrics>,
}

impl SortExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        keys: Vec<SortKey>,
        fetch: Option<usize>,
        text: String,
    ) -> Self {
        SortExec {
            input,
            keys,
            fetch,
            text,
            output: OnceLock::new(),
            metrics: Default::default(),
        }
    }

    fn run(&self, ctx: &Arc<ExecContext>) -> Result<Arc<Vec<RecordBatch>>> {
        let batches: Vec<RecordBatch> = execute_partitions(&self.input, ctx)?
            .into_iter()
            .flatten()
            .collect();
        let schema = self.input.schema();
        let batch = arrow_select::concat::concat_batches(&schema, &batches)?;
        drop(batches);
        let mut memory = OwnedReservation::new(ctx);
        memory.grow(batch.get_array_memory_size() * 2)?;
        let order = sort_indices(&batch, &self.keys, self.fetch)?;
        let out = arrow_select::take::take_record_batch(&batch, &order)?;
        let mut chunks = Vec::new();
        let mut off = 0;
        while off < out.num_rows() {
            let len = MORSEL_ROWS.min(out.num_rows() - off);
            chunks.push(out.slice(off, len));
            off += len;
        }
        Ok(Arc::new(chunks))
    }
}

/// A string sort column as the row format should compare it. The row format
/// compares bytes; under the default utf8mb4_bin that is the collation's
/// order unless a value has trailing spaces or a byte below the space (PAD
/// SPACE sorts `'a\t'` before `'a'`), which one pass over the bytes rules
/// out. Otherwise, and under every other collation, the column becomes the
/// collation's normalized keys, which compare as bytes exactly as the
/// collation compares the strings.
pub(crate) fn collated_sort_column(a: ArrayRef, collation: Collation) -> Result<ArrayRef> {
    let Some(s) = a.as_string_opt::<i32>() else {
        return Ok(a);
    };
    if collation == default_collation() {
        let values = s.values().as_slice();
        let offsets = s.value_offsets();
        let plain = !values.iter().any(|b| *b < b' ')
            && offsets
                .windows(2)
                .all(|w| w[0] == w[1] || values[w[1] as usize - 1] != b' ');
        if plain {
            return Ok(a);
        }
    }
    let mut key = Vec::new();
    let keys: BinaryArray = with_collator!(collation, |c| s
        .iter()
        .map(|v| {
            v.map(|v| {
                key.clear();
                c.normalized_key(v.as_bytes(), &mut key);
                key.clone()
            })
        })
        .collect());
    Ok(Arc::new(keys))
}

/// Row positions of `batch` in key order (stable), the first `fetch` only if given.
pub(crate) fn sort_indices(
    batch: &RecordBatch,
    keys: &[SortKey],
    fetch: Option<usize>,
) -> Result<UInt32Array> {
    let n = batch.num_rows();
    let mut idx: Vec<u32> = (0..n as u32).collect();
    if keys.is_empty() || n <= 1 {
        idx.truncate(fetch.unwrap_or(n));
        return Ok(UInt32Array::from(idx));
    }
    let cols = keys
        .iter()
        .map(|k| collated_sort_column(k.expr.evaluate_array(batch)?, k.expr.collation()))
        .collect::<Result<Vec<_>>>()?;
    let fields = keys
        .iter()
        .zip(&cols)
        .map(|(k, c)| {
            SortField::new_with_options(
                c.data_type().clone(),
                SortOptions {
                    descending: !k.asc,
                    nulls_first: k.nulls_first,
                },
            )
        })
        .collect();
    let converter = RowConverter::new(fields)?;
    let rows = converter.convert_columns(&cols)?;
    let cmp = |a: &u32, b: &u32| {
        rows.row(*a as usize)
            .cmp(&rows.row(*b as usize))
            .then(a.cmp(b))
    };
    match fetch {
        Some(k) if k < n => {
            if k > 0 {
                idx.select_nth_unstable_by(k - 1, cmp);
            }
            idx.truncate(k);
            idx.sort_unstable_by(cmp);
        }
        _ => idx.sort_unstable_by(cmp),
    }
    Ok(UInt32Array::from(idx))
}

impl ExecutionPlan for SortExec {
    fn describe(&self) -> String {
        match self.fetch {
            Some(n) => format!("TopN {n} [{}]", self.text),
            None => format!("Sort [{}]", self.text),
        }
    }
    fn schema(&self) -> SchemaRef {
        self.input.schema()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.input.clone()]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let out = self
            .output
            .get_or_init(|| timed(&self.metrics, || self.run(ctx)))
            .clone()?;
        let batches: Vec<Result<RecordBatch>> = out.iter().cloned().map(Ok).collect();
        Ok(metered(Box::new(batches.into_iter()), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
