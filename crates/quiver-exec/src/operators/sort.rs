//! Sort and top-N. Input partitions are drained in parallel; the rows are
//! ordered by `sort_keys::sort_batches` (packed integer keys or normalized
//! byte rows, sorted in runs per thread and merged), only (key, row id)
//! items are sorted, and the payload columns are gathered once at the end,
//! in parallel (late materialization). A small LIMIT keeps only the best
//! rows of each partition as it streams (`run_top_n`); a larger one selects
//! per run before the merge.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{SchemaRef, SortOptions};
use quiver_common::Result;

pub(crate) mod key_form;
pub(crate) mod par_sort;
pub(crate) mod sort_keys;

use super::exec_plan::{for_each_partition, BatchStream, ExecutionPlan, Metrics};
use super::run_once::RunOnce;
use crate::context::{batch_bytes, OwnedReservation, MORSEL_ROWS};
use crate::ExecContext;
use key_form::collated_sort_column;
pub use key_form::SortKey;
use sort_keys::{batch_offsets, ordinals, par_ranges, positive_zero, sort_batches};

#[derive(Debug)]
pub struct SortExec {
    input: Arc<dyn ExecutionPlan>,
    keys: Vec<SortKey>,
    fetch: Option<usize>,
    text: String,
    output: RunOnce,
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
            output: RunOnce::default(),
            metrics: Default::default(),
        }
    }

    fn run(&self, ctx: &Arc<ExecContext>) -> Result<Arc<Vec<RecordBatch>>> {
        if let Some(k) = self.fetch.filter(|k| *k <= STREAMING_TOP_N) {
            return self.run_top_n(ctx, k);
        }
        let (batches, _input_memory) = drain_counted(&self.input, ctx)?;
        let mut memory = OwnedReservation::new(ctx);
        let sorted = sort_batches(&batches, &self.keys, self.fetch, None, ctx, &mut memory)?;
        ctx.check_cancelled()?;
        let out = gather(&self.schema(), &batches, &sorted.order, ctx, &mut memory)?;
        Ok(Arc::new(out))
    }

    /// ORDER BY .. LIMIT k for a small k: each partition keeps its best k
    /// rows so far (a batch's own best k, merged with the kept ones), so
    /// memory holds O(k) rows instead of the input; the partitions' rows are
    /// merged at the end.
    fn run_top_n(&self, ctx: &Arc<ExecContext>, k: usize) -> Result<Arc<Vec<RecordBatch>>> {
        let schema = self.schema();
        let best_of = |batch: &RecordBatch| -> Result<RecordBatch> {
            let order = sort_indices(batch, &self.keys, Some(k))?;
            Ok(arrow_select::take::take_record_batch(batch, &order)?)
        };
        let first = &self.keys[0];
        // Where a first key's value falls in the order: NULL before or after
        // every value, values by their ordinal (negated when descending).
        let place = |ordinal: Option<i128>| match ordinal {
            None => (if first.nulls_first { 0u8 } else { 2 }, 0i128),
            Some(v) => (1, if first.asc { v } else { v.wrapping_neg() }),
        };
        // The first key of the k-th best row so far, once there are k rows.
        let bound = |best: &RecordBatch| -> Result<Option<(u8, i128)>> {
            if best.num_rows() < k {
                return Ok(None);
            }
            let a = first.expr.evaluate_array(&best.slice(k - 1, 1))?;
            Ok(ordinals(a.as_ref()).map(|o| place(a.is_valid(0).then_some(o[0]))))
        };
        let bests = for_each_partition(&self.input, ctx, |stream| {
            let mut best: Option<RecordBatch> = None;
            let mut limit: Option<(u8, i128)> = None;
            let mut memory = OwnedReservation::new(ctx);
            let mut held = 0;
            for batch in stream {
                let mut batch = batch?;
                ctx.check_cancelled()?;
                if batch.num_rows() == 0 || k == 0 {
                    continue;
                }
                if let Some(limit) = limit {
                    // Rows whose first key comes after the k-th best's cannot enter.
                    let a = first.expr.evaluate_array(&batch)?;
                    if let Some(o) = ordinals(a.as_ref()) {
                        let keep: BooleanArray = o
                            .iter()
                            .enumerate()
                            .map(|(i, v)| Some(place(a.is_valid(i).then_some(*v)) <= limit))
                            .collect();
                        batch = arrow_select::filter::filter_record_batch(&batch, &keep)?;
                        if batch.num_rows() == 0 {
                            continue;
                        }
                    }
                }
                let top = best_of(&batch)?;
                let merged = match best.take() {
                    None => top,
                    Some(b) => {
                        best_of(&arrow_select::concat::concat_batches(&schema, [&b, &top])?)?
                    }
                };
                let size = batch_bytes(&merged);
                if size > held {
                    memory.grow(size - held)?;
                    held = size;
                }
                limit = bound(&merged)?;
                best = Some(merged);
            }
            Ok((best, memory))
        })?;
        let (bests, _memory): (Vec<_>, Vec<_>) = bests.into_iter().unzip();
        let bests: Vec<RecordBatch> = bests.into_iter().flatten().collect();
        if bests.is_empty() {
            return Ok(Arc::new(Vec::new()));
        }
        let all = arrow_select::concat::concat_batches(&schema, &bests)?;
        Ok(Arc::new(chunked(best_of(&all)?)))
    }
}

/// Largest LIMIT (offset included) sorted by the streaming top-N.
const STREAMING_TOP_N: usize = 4096;

/// Every batch of every partition of `input`, drained in parallel; the
/// batches are counted against the memory limit as they arrive.
pub(crate) fn drain_counted(
    input: &Arc<dyn ExecutionPlan>,
    ctx: &Arc<ExecContext>,
) -> Result<(Vec<RecordBatch>, Vec<OwnedReservation>)> {
    let parts = for_each_partition(input, ctx, |stream| {
        let mut memory = OwnedReservation::new(ctx);
        let mut out = Vec::new();
        for batch in stream {
            let batch = batch?;
            ctx.check_cancelled()?;
            if batch.num_rows() > 0 {
                memory.grow(batch_bytes(&batch))?;
                out.push(batch);
            }
        }
        Ok((out, memory))
    })?;
    let (batches, memory): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    Ok((batches.into_iter().flatten().collect(), memory))
}

/// `batch` cut into batches of at most `MORSEL_ROWS` rows.
fn chunked(batch: RecordBatch) -> Vec<RecordBatch> {
    let mut chunks = Vec::new();
    let mut off = 0;
    while off < batch.num_rows() {
        let len = MORSEL_ROWS.min(batch.num_rows() - off);
        chunks.push(batch.slice(off, len));
        off += len;
    }
    chunks
}

/// The rows of `batches` named by the global ids `order`, in that order, as
/// batches of `MORSEL_ROWS` rows built in parallel.
pub(crate) fn gather(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    order: &[u32],
    ctx: &Arc<ExecContext>,
    memory: &mut OwnedReservation,
) -> Result<Vec<RecordBatch>> {
    let n: usize = batches.iter().map(|b| b.num_rows()).sum();
    if n > 0 {
        let input: usize = batches.iter().map(batch_bytes).sum();
        memory.grow((input as u128 * order.len() as u128 / n as u128) as usize)?;
    }
    let offsets = batch_offsets(batches);
    let columns: Vec<Vec<&dyn Array>> = (0..schema.fields().len())
        .map(|c| batches.iter().map(|b| b.column(c).as_ref()).collect())
        .collect();
    let chunks = order.len().div_ceil(MORSEL_ROWS);
    let out = par_ranges(chunks, ctx, |r| {
        let mut out = Vec::with_capacity(r.len());
        let mut pairs = Vec::with_capacity(MORSEL_ROWS);
        for c in r {
            ctx.check_cancelled()?;
            let ids = &order[c * MORSEL_ROWS..((c + 1) * MORSEL_ROWS).min(order.len())];
            pairs.clear();
            pairs.extend(ids.iter().map(|id| locate(&offsets, *id as usize)));
            let cols = columns
                .iter()
                .map(|arrays| Ok(arrow_select::interleave::interleave(arrays, &pairs)?))
                .collect::<Result<Vec<ArrayRef>>>()?;
            out.push(RecordBatch::try_new_with_options(
                schema.clone(),
                cols,
                &RecordBatchOptions::new().with_row_count(Some(ids.len())),
            )?);
        }
        Ok(out)
    })?;
    Ok(out.into_iter().flatten().collect())
}

/// (batch, row) of a global row id, given the batches' start offsets.
#[inline]
pub(crate) fn locate(offsets: &[usize], id: usize) -> (usize, usize) {
    let b = offsets.partition_point(|o| *o <= id) - 1;
    (b, id - offsets[b])
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
        .map(|k| {
            let a = positive_zero(k.expr.evaluate_array(batch)?);
            collated_sort_column(a, k.expr.collation())
        })
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
        self.output.replay(&self.metrics, false, || self.run(ctx))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
