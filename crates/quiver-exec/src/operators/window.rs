//! Window functions. The input is gathered and ordered by (PARTITION BY,
//! ORDER BY) with the sort of ORDER BY (`sort_keys::sort_batches`, which
//! also marks where partitions and peer groups begin); each function is a
//! typed kernel (`window/kernels.rs`) run over slices of that order cut at
//! partition starts, one per thread, and its values are put back in input
//! order. Registered window functions (`crate::functions::window`) get
//! their arguments in that order and, when they read it, each row's frame
//! (`frames.rs`). Aggregates whose frame starts at the partition's start
//! run as running kernels (MySQL's default frame, RANGE UNBOUNDED PRECEDING
//! .. CURRENT ROW, peers included; the whole partition without ORDER BY);
//! other frames slide (`kernels.rs`: add and remove for COUNT, SUM, AVG, a
//! monotonic deque for MIN and MAX).

mod frames;
mod kernels;

use std::sync::Arc;

use arrow_array::{
    cast::AsArray, downcast_integer, types::*, Array, ArrayRef, RecordBatch, RecordBatchOptions,
    UInt32Array,
};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use quiver_collation::{with_collator, Collation};
use quiver_common::{QuiverError, Result};
use quiver_plan::window::{FrameBound, FrameUnits, WindowFrame, WindowRows};
use quiver_plan::{default_collation, AggFunc, WindowFunc};

use kernels::Walk;

use super::exec_plan::{BatchStream, ExecutionPlan, Metrics};
use super::run_once::RunOnce;
use super::sort::sort_keys::{
    batch_offsets, par_ranges, sort_batches, SortedRows, NEW_PARTITION, NEW_PEERS, SAME,
};
use super::sort::{drain_counted, locate, SortKey};
use crate::context::OwnedReservation;
use crate::expr::{cast_array, PhysicalExpr};
use crate::ExecContext;

#[derive(Debug, Clone)]
pub struct WindowSpec {
    pub func: WindowFunc,
    pub args: Vec<PhysicalExpr>,
    pub partition_by: Vec<PhysicalExpr>,
    pub order_by: Vec<SortKey>,
    pub frame: WindowFrame,
    pub output_type: DataType,
}

#[derive(Debug)]
pub struct WindowExec {
    input: Arc<dyn ExecutionPlan>,
    specs: Vec<WindowSpec>,
    schema: SchemaRef,
    output: RunOnce,
    metrics: Arc<Metrics>,
}

impl WindowExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, specs: Vec<WindowSpec>, schema: SchemaRef) -> Self {
        WindowExec {
            input,
            specs,
            schema,
            output: RunOnce::default(),
            metrics: Default::default(),
        }
    }

    fn run(&self, ctx: &Arc<ExecContext>) -> Result<Arc<Vec<RecordBatch>>> {
        let (batches, _input_memory) = drain_counted(&self.input, ctx)?;
        let mut memory = OwnedReservation::new(ctx);
        let offsets = batch_offsets(&batches);
        let n = *offsets.last().unwrap_or(&0);
        // Windows with the same PARTITION BY and ORDER BY share one sort.
        let mut sorts: Vec<(String, SortedRows, UInt32Array)> = Vec::new();
        // Per spec, its column cut at the input batches' boundaries.
        let mut columns: Vec<Vec<ArrayRef>> = Vec::with_capacity(self.specs.len());
        for spec in &self.specs {
            let signature = format!("{:?} {:?}", spec.partition_by, spec.order_by);
            let at = match sorts.iter().position(|(s, ..)| *s == signature) {
                Some(at) => at,
                None => {
                    let mut keys: Vec<SortKey> = spec
                        .partition_by
                        .iter()
                        .map(|e| SortKey {
                            expr: e.clone(),
                            asc: true,
                            nulls_first: true,
                        })
                        .collect();
                    keys.extend(spec.order_by.iter().cloned());
                    let sorted = sort_batches(
                        &batches,
                        &keys,
                        None,
                        Some(spec.partition_by.len()),
                        ctx,
                        &mut memory,
                    )?;
                    memory.grow(n * 4)?;
                    // Where each input row went: to put results back in input order.
                    let mut inverse = vec![0u32; n];
                    for (i, id) in sorted.order.iter().enumerate() {
                        inverse[*id as usize] = i as u32;
                    }
                    sorts.push((signature, sorted, UInt32Array::from(inverse)));
                    sorts.len() - 1
                }
            };
            ctx.check_cancelled()?;
            let (_, sorted, inverse) = &sorts[at];
            let values = compute(spec, &batches, &offsets, sorted, ctx)?;
            memory.grow(values.get_array_memory_size() * 2)?;
            let cut = par_ranges(batches.len(), ctx, |r| {
                r.map(|b| {
                    let rows = inverse.slice(offsets[b], offsets[b + 1] - offsets[b]);
                    Ok(arrow_select::take::take(values.as_ref(), &rows, None)?)
                })
                .collect::<Result<Vec<_>>>()
            })?;
            columns.push(cut.into_iter().flatten().collect());
        }
        let out = batches
            .iter()
            .enumerate()
            .map(|(b, batch)| {
                let mut cols = batch.columns().to_vec();
                cols.extend(columns.iter().map(|c| c[b].clone()));
                Ok(RecordBatch::try_new_with_options(
                    self.schema.clone(),
                    cols,
                    &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
                )?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(out))
    }
}

/// The values of `spec` for the rows of `batches` in `sorted` order. The
/// order is cut at partition starts into one slice per thread; each slice
/// gathers its argument values and runs the kernel.
fn compute(
    spec: &WindowSpec,
    batches: &[RecordBatch],
    offsets: &[usize],
    sorted: &SortedRows,
    ctx: &Arc<ExecContext>,
) -> Result<ArrayRef> {
    let breaks = sorted
        .breaks
        .as_ref()
        .ok_or_else(|| QuiverError::internal("window sort without breaks"))?;
    // The arguments, and the ORDER BY key where RANGE offsets measure from it.
    let mut exprs: Vec<&PhysicalExpr> = spec.args.iter().collect();
    let range_key = spec.frame.units == FrameUnits::Range
        && [spec.frame.start, spec.frame.end]
            .iter()
            .any(|b| matches!(b, FrameBound::Preceding(_) | FrameBound::Following(_)));
    if range_key {
        let key = spec
            .order_by
            .first()
            .ok_or_else(|| QuiverError::internal("RANGE offsets without an ORDER BY key"))?;
        exprs.push(&key.expr);
    }
    let columns = exprs
        .iter()
        .map(|e| {
            batches
                .iter()
                .map(|b| e.evaluate_array(b))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    let n = breaks.len();
    if n == 0 {
        return Ok(arrow_array::new_empty_array(&spec.output_type));
    }
    let pieces = ctx.threads.max(1);
    let mut cuts = vec![0];
    for p in 1..pieces {
        let mut c = (p * n / pieces).max(*cuts.last().expect("a cut"));
        while c < n && breaks[c] != NEW_PARTITION {
            c += 1;
        }
        if c < n && c > *cuts.last().expect("a cut") {
            cuts.push(c);
        }
    }
    cuts.push(n);
    let parts = par_ranges(cuts.len() - 1, ctx, |r| {
        r.map(|p| {
            let range = cuts[p]..cuts[p + 1];
            let pairs: Vec<(usize, usize)> = match columns.is_empty() {
                true => vec![],
                false => sorted.order[range.clone()]
                    .iter()
                    .map(|id| locate(offsets, *id as usize))
                    .collect(),
            };
            let mut args = columns
                .iter()
                .map(|arrays| {
                    let refs: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
                    Ok(arrow_select::interleave::interleave(&refs, &pairs)?)
                })
                .collect::<Result<Vec<ArrayRef>>>()?;
            let key = if range_key { args.pop() } else { None };
            ctx.check_cancelled()?;
            kernel(spec, &breaks[range], &args, key.as_ref())
        })
        .collect::<Result<Vec<_>>>()
    })?;
    let parts: Vec<ArrayRef> = parts.into_iter().flatten().collect();
    let out = match parts.as_slice() {
        [one] => one.clone(),
        _ => {
            let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
            arrow_select::concat::concat(&refs)?
        }
    };
    if out.data_type() == &spec.output_type {
        Ok(out)
    } else {
        cast_array(&out, &spec.output_type)
    }
}

/// One slice of `spec`'s values, `args` (and the RANGE key) already in window order.
fn kernel(
    spec: &WindowSpec,
    breaks: &[u8],
    args: &[ArrayRef],
    key: Option<&ArrayRef>,
) -> Result<ArrayRef> {
    let desc = spec.order_by.first().is_some_and(|k| !k.asc);
    let f = match spec.func {
        WindowFunc::Registered(f) => {
            let frames = match f.frame_use() {
                quiver_plan::window::FrameUse::Read => {
                    Some(frames::frames(&spec.frame, breaks, key, desc)?)
                }
                _ => None,
            };
            return f.evaluate(&WindowRows {
                breaks,
                args,
                frames: frames.as_deref(),
            });
        }
        WindowFunc::Agg(f) => f,
    };
    // Frames from the partition's start run; other frames slide.
    let rows_breaks: Vec<u8>;
    let frames: Vec<std::ops::Range<u32>>;
    let walk = if spec.frame.is_running() {
        if spec.frame.units == FrameUnits::Rows && spec.frame.end == FrameBound::CurrentRow {
            // Every row its own peer group.
            rows_breaks = breaks
                .iter()
                .map(|b| if *b == SAME { NEW_PEERS } else { *b })
                .collect();
            Walk::Running(&rows_breaks)
        } else {
            Walk::Running(breaks)
        }
    } else {
        frames = frames::frames(&spec.frame, breaks, key, desc)?;
        Walk::Frames(&frames)
    };
    let breaks = &walk;
    if f == AggFunc::CountStar {
        return Ok(Arc::new(kernels::count(breaks, None)));
    }
    let arg = args.first();
    let a = arg.ok_or_else(|| QuiverError::internal("window aggregate without argument"))?;
    if let AggFunc::Registered(r) = f {
        return match walk {
            Walk::Running(breaks) => registered(r, breaks, a, &spec.output_type),
            Walk::Frames(frames) => registered_sliding(r, frames, a, &spec.output_type),
        };
    }
    match f {
        AggFunc::Count => Ok(Arc::new(kernels::count(breaks, a.logical_nulls().as_ref()))),
        AggFunc::Sum | AggFunc::Avg => {
            let avg = f == AggFunc::Avg;
            match &spec.output_type {
                DataType::Decimal128(p, s) => sum_exact(breaks, a, *p, *s, avg),
                DataType::Decimal256(p, s) => {
                    // The input at its own scale (AVG's output scale is larger).
                    let in_scale = match a.data_type() {
                        DataType::Decimal128(_, s0) | DataType::Decimal256(_, s0) => *s0,
                        t if t.is_integer() => 0,
                        _ => *s,
                    };
                    let w = cast_array(a, &DataType::Decimal256(76, in_scale))?;
                    kernels::sum_exact_wide(breaks, w.as_primitive(), in_scale, *p, *s, avg)
                        .map(|a| Arc::new(a) as ArrayRef)
                        .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "SUM"))
                }
                _ => {
                    let x = cast_array(a, &DataType::Float64)?;
                    Ok(Arc::new(kernels::sum_float(
                        breaks,
                        x.as_primitive::<Float64Type>(),
                        avg,
                    )))
                }
            }
        }
        AggFunc::Min | AggFunc::Max => min_max(breaks, a, f == AggFunc::Min, spec),
        AggFunc::CountStar => Err(QuiverError::internal("COUNT(*) is counted above")),
        AggFunc::GroupConcat => Err(QuiverError::not_supported(
            "GROUP_CONCAT() aggregate as window function",
        )),
        AggFunc::Registered(_) => Err(QuiverError::internal("registered aggregate handled above")),
    }
}

/// A registered aggregate over its frames, through its grouped
/// accumulator: each peer group is a group; each folds in the one before
/// it in its partition (the frame runs from the partition's start to the
/// row's last peer; without ORDER BY the partition is one peer group).
fn registered(
    r: quiver_plan::AggregateRef,
    breaks: &[u8],
    a: &ArrayRef,
    output: &DataType,
) -> Result<ArrayRef> {
    let mut ids = Vec::with_capacity(breaks.len());
    let mut pairs = Vec::new();
    let mut group: u32 = 0;
    for (i, b) in breaks.iter().enumerate() {
        if i > 0 && *b != SAME {
            group += 1;
            if *b != NEW_PARTITION {
                pairs.push((group - 1, group));
            }
        }
        ids.push(group);
    }
    let groups = if breaks.is_empty() {
        0
    } else {
        group as usize + 1
    };
    let mut acc = r.accumulator(output);
    acc.update(std::slice::from_ref(a), &ids, groups)?;
    acc.merge_groups(&pairs)?;
    let values = acc.evaluate(groups)?;
    Ok(arrow_select::take::take(
        values.as_ref(),
        &UInt32Array::from(ids),
        None,
    )?)
}

/// A registered aggregate over sliding frames, through its grouped
/// accumulator as a segment tree: group `n + k` (k in 1..n) holds node k
/// of a bottom-up tree over the rows (leaf i is group i, node k the fold
/// of its children 2k and 2k+1, leaves at k = n + i); each row's result is
/// group `2n + i`, the fold of the O(log n) nodes covering its frame. Any
/// aggregate that merges works, with no removal: O(n log n) merges.
fn registered_sliding(
    r: quiver_plan::AggregateRef,
    frames: &[std::ops::Range<u32>],
    a: &ArrayRef,
    output: &DataType,
) -> Result<ArrayRef> {
    let n = frames.len();
    if n == 0 {
        return Ok(arrow_array::new_empty_array(output));
    }
    // Node k of the tree is group `node(k)`: leaves (k >= n) are the rows.
    let node = |k: usize| -> u32 {
        if k >= n {
            (k - n) as u32
        } else {
            (n + k) as u32
        }
    };
    let groups = 3 * n;
    let ids: Vec<u32> = (0..n as u32).collect();
    let mut acc = r.accumulator(output);
    acc.update(std::slice::from_ref(a), &ids, groups)?;
    let mut pairs = Vec::with_capacity(2 * n);
    for k in (1..n).rev() {
        pairs.push((node(2 * k), node(k)));
        pairs.push((node(2 * k + 1), node(k)));
    }
    for (i, f) in frames.iter().enumerate() {
        let into = (2 * n + i) as u32;
        let (mut lo, mut hi) = (
            f.start as usize + n,
            (f.end as usize).max(f.start as usize) + n,
        );
        while lo < hi {
            if lo & 1 == 1 {
                pairs.push((node(lo), into));
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                pairs.push((node(hi), into));
            }
            lo >>= 1;
            hi >>= 1;
        }
    }
    acc.merge_groups(&pairs)?;
    let values = acc.evaluate(groups)?;
    Ok(values.slice(2 * n, n))
}

/// Exact SUM / AVG into decimal(`p`, `s`), over integers and decimals at
/// their own scale (other types are first cast to the output's decimal).
fn sum_exact(breaks: &Walk, a: &ArrayRef, p: u8, s: i8, avg: bool) -> Result<ArrayRef> {
    macro_rules! run {
        ($t:ty, $a:expr, $scale:expr) => {
            kernels::sum_exact(breaks, $a.as_primitive::<$t>(), $scale, p, s, avg)
        };
    }
    let out = downcast_integer! {
        a.data_type() => (run, a, 0),
        DataType::Decimal128(_, scale) => run!(Decimal128Type, a, *scale),
        _ => {
            let d = cast_array(a, &DataType::Decimal128(38, s))?;
            run!(Decimal128Type, d, s)
        }
    };
    out.map(|a| Arc::new(a) as ArrayRef)
        .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "SUM"))
}

fn min_max(breaks: &Walk, a: &ArrayRef, min: bool, spec: &WindowSpec) -> Result<ArrayRef> {
    macro_rules! prim {
        ($t:ty) => {
            Ok(Arc::new(kernels::min_max_primitive(
                breaks,
                a.as_primitive::<$t>(),
                min,
            )))
        };
    }
    downcast_integer! {
        a.data_type() => (prim),
        DataType::Float32 => prim!(Float32Type),
        DataType::Float64 => prim!(Float64Type),
        DataType::Date32 => prim!(Date32Type),
        DataType::Date64 => prim!(Date64Type),
        DataType::Decimal64(..) => prim!(Decimal64Type),
        DataType::Timestamp(TimeUnit::Second, _) => prim!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => prim!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => prim!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => prim!(TimestampNanosecondType),
        DataType::Decimal128(_, _) => prim!(Decimal128Type),
        DataType::Decimal256(_, _) => prim!(Decimal256Type),
        DataType::Null => Ok(arrow_array::new_null_array(&spec.output_type, breaks.len())),
        DataType::Boolean => {
            let ints = cast_array(a, &DataType::UInt8)?;
            min_max(breaks, &ints, min, spec)
        }
        _ => {
            // Strings (and anything else, as its text) under the argument's
            // collation; binary strings as bytes.
            let text = match a.data_type() {
                DataType::Utf8 | DataType::Binary => a.clone(),
                _ => cast_array(a, &DataType::Utf8)?,
            };
            let s = crate::bytes::byte_view(text.as_ref()).expect("a string array");
            let collation = match spec.args.first() {
                _ if text.data_type() == &DataType::Binary => Collation::binary(),
                Some(e) => e.collation(),
                None => default_collation(),
            };
            let at = with_collator!(collation, |c| kernels::min_max_str(c, breaks, &s, min));
            Ok(arrow_select::take::take(&text, &at, None)?)
        }
    }
}

impl ExecutionPlan for WindowExec {
    fn describe(&self) -> String {
        let f: Vec<String> = self.specs.iter().map(|s| format!("{:?}", s.func)).collect();
        format!("Window [{}]", f.join(", "))
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
        self.output.replay(&self.metrics, false, || self.run(ctx))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
