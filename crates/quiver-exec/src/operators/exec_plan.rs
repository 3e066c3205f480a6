//! The operator interface ([`ExecutionPlan`]), its metrics, and running a
//! plan's partitions in parallel (`for_each_partition`, `collect`).

use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};

use crate::context::{batch_bytes, OwnedReservation, ScanPositionSlot};
use crate::warnings::collecting_into;
use crate::ExecContext;

pub type BatchStream = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

pub trait ExecutionPlan: Send + Sync + Debug {
    /// One line for EXPLAIN.
    fn describe(&self) -> String;
    fn schema(&self) -> SchemaRef;
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>>;
    fn output_partitions(&self) -> usize;
    /// How many partitions have work worth a thread of their own: the rest
    /// (their inputs' work all taken by the first ones) may run one after
    /// another on the caller's thread. A scan counts its rows left after
    /// zone maps (64K rows per thread); operators that pass partitions
    /// through ask their input.
    fn useful_partitions(&self) -> usize {
        self.output_partitions()
    }
    fn execute(&self, partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream>;
    fn metrics(&self) -> &Metrics;
}

/// Rows produced and time spent, for EXPLAIN ANALYZE. Time is the sum over
/// partitions of time spent inside this operator and its inputs.
#[derive(Debug, Default)]
pub struct Metrics {
    pub rows: AtomicU64,
    pub nanos: AtomicU64,
}

impl Metrics {
    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }

    pub fn nanos(&self) -> u64 {
        self.nanos.load(Ordering::Relaxed)
    }
}

/// Runs a pipeline breaker's work (draining its inputs) and counts its time,
/// which no stream wrapper sees.
pub(crate) fn timed<T>(metrics: &Metrics, work: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = work();
    metrics
        .nanos
        .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

/// Wraps a stream so that its batches and time are counted.
pub(crate) fn metered(stream: BatchStream, metrics: &Arc<Metrics>) -> BatchStream {
    let m = metrics.clone();
    let mut inner = stream;
    Box::new(std::iter::from_fn(move || {
        let t = Instant::now();
        let next = inner.next();
        m.nanos
            .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if let Some(Ok(b)) = &next {
            m.rows.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
        }
        next
    }))
}

/// Runs the partitions of `plan` in parallel and returns their batches,
/// partition by partition.
pub fn execute_partitions(
    plan: &Arc<dyn ExecutionPlan>,
    ctx: &Arc<ExecContext>,
) -> Result<Vec<Vec<RecordBatch>>> {
    for_each_partition(plan, ctx, |stream| stream.collect::<Result<Vec<_>>>())
}

/// Runs `f` over every partition of `plan` in parallel: partition 0 on this
/// thread, each other on a thread of its own.
pub fn for_each_partition<T: Send>(
    plan: &Arc<dyn ExecutionPlan>,
    ctx: &Arc<ExecContext>,
    f: impl Fn(BatchStream) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    // A pipeline breaker's input is a pipeline of its own: its scans'
    // positions are nobody's business upstream.
    let plain = match ctx.scan_position {
        Some(_) => ctx.with_scan_position(None),
        None => ctx.clone(),
    };
    run_partitions(plan, ctx, |p| f(plan.execute(p, &plain)?))
}

/// [`for_each_partition`] for a consumer that asks where each batch comes
/// from: `f` gets, with each partition's stream, the slot where that
/// partition's scans note the position of the batch they return last
/// (see [`crate::context::ScanPositionSlot::take`]).
pub fn for_each_partition_positioned<T: Send>(
    plan: &Arc<dyn ExecutionPlan>,
    ctx: &Arc<ExecContext>,
    f: impl Fn(BatchStream, &ScanPositionSlot) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    run_partitions(plan, ctx, |p| {
        let slot = Arc::new(ScanPositionSlot::default());
        let part = ctx.with_scan_position(Some(slot.clone()));
        f(plan.execute(p, &part)?, &slot)
    })
}

/// Runs `run(p)` for every partition `p` of `plan`, in parallel, each
/// inside the query's warnings sink.
fn run_partitions<T: Send>(
    plan: &Arc<dyn ExecutionPlan>,
    ctx: &Arc<ExecContext>,
    run: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let n = plan.output_partitions();
    let sink = &ctx.warnings;
    // Partitions past the useful ones find no work left once the others
    // are done: they run after them on this thread (starting a thread costs
    // more than a query over one row group).
    let useful = plan.useful_partitions().clamp(1, n);
    if useful == 1 {
        return collecting_into(sink, || (0..n).map(&run).collect());
    }
    let joined = run_on_threads(ctx, useful, &run);
    let rest = (useful..n).map(|p| collecting_into(sink, || run(p)));
    joined.into_iter().chain(rest).collect()
}

/// Runs `run(i)` for every `i` below `n` in parallel, each inside the
/// query's warnings sink: `i` = 0 on this thread (one thread fewer to start
/// per query, which is most of the time of a query over a few morsels),
/// every other on a thread of its own. The results in order; a worker that
/// panics gives an internal error.
pub(crate) fn run_on_threads<T: Send>(
    ctx: &ExecContext,
    n: usize,
    run: impl Fn(usize) -> Result<T> + Sync,
) -> Vec<Result<T>> {
    let sink = &ctx.warnings;
    let panicked = || Err(QuiverError::internal("a worker thread panicked"));
    std::thread::scope(|s| {
        let run = &run;
        let handles: Vec<_> = (1..n)
            .map(|i| s.spawn(move || collecting_into(sink, || run(i))))
            .collect();
        let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            collecting_into(sink, || run(0))
        }))
        .unwrap_or_else(|_| panicked());
        std::iter::once(first)
            .chain(
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| panicked())),
            )
            .collect()
    })
}

/// Executes the plan and gathers its output in order. The output is held
/// whole, so it counts against the memory limit as it is gathered: a result
/// larger than the limit is error 1041, not a process the system kills.
pub fn collect(plan: &Arc<dyn ExecutionPlan>, ctx: &Arc<ExecContext>) -> Result<Vec<RecordBatch>> {
    let parts = for_each_partition(plan, ctx, |stream| {
        let mut memory = OwnedReservation::new(ctx);
        let mut out = Vec::new();
        for batch in stream {
            let batch = batch?;
            memory.grow(batch_bytes(&batch))?;
            out.push(batch);
        }
        Ok(out)
    })?;
    Ok(parts.into_iter().flatten().collect())
}

/// The operator tree with per-operator rows and time, for EXPLAIN ANALYZE.
pub fn display_plan(plan: &Arc<dyn ExecutionPlan>, analyze: bool) -> String {
    fn walk(p: &Arc<dyn ExecutionPlan>, depth: usize, analyze: bool, out: &mut String) {
        out.push_str(&"  ".repeat(depth));
        out.push_str(&p.describe());
        if analyze {
            let m = p.metrics();
            out.push_str(&format!(
                "  (rows={} time={:.3}ms)",
                m.rows(),
                m.nanos() as f64 / 1e6
            ));
        }
        out.push('\n');
        for c in p.children() {
            walk(&c, depth + 1, analyze, out);
        }
    }
    let mut s = String::new();
    walk(plan, 0, analyze, &mut s);
    s
}
