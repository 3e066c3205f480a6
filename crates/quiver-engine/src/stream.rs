//! Statements whose rows are pulled batch by batch as the plan produces them,
//! so that a large result never sits whole in memory (the server sends each
//! batch before the next is computed). Pipeline breakers (ORDER BY,
//! aggregation) still materialize their own output; a plain scan, filter or
//! projection streams.
//!
//! A plan with one output partition is pulled on the caller's thread. With
//! several, each partition runs on its own thread into a channel of a few
//! batches, and the stream reads the partitions in order, as `collect` orders
//! them: partition 0 to its end, then 1, ... A partition that runs ahead
//! blocks once its channel is full, so at most `PER_PARTITION + 1` batches
//! per partition wait, whatever the result's size.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};
use quiver_exec::context::CancelToken;
use quiver_exec::operators::BatchStream;
use quiver_exec::warnings::{collecting_into, Condition, Level, Warnings};
use quiver_exec::{create_physical_plan, to_declared, ExecContext, ExecutionPlan};

use crate::StatementResult;

/// The error of a value that does not fit where it is computed (1690, out
/// of range): a plan with narrowed decimals is then run again as declared.
pub(crate) const NARROW_OVERFLOW: u16 = 1690;

/// Batches a partition may compute ahead of the reader.
const PER_PARTITION: usize = 2;

/// A statement's result, its rows as a stream.
pub enum StreamedResult {
    Rows(RowStream),
    Done { affected: u64 },
}

impl From<StatementResult> for StreamedResult {
    fn from(r: StatementResult) -> Self {
        match r {
            StatementResult::Rows { schema, batches } => {
                StreamedResult::Rows(RowStream::from_batches(schema, batches))
            }
            StatementResult::Done { affected } => StreamedResult::Done { affected },
        }
    }
}

/// Result rows, batch by batch. Dropping it before its end stops the query.
pub struct RowStream {
    schema: SchemaRef,
    source: Source,
    /// Set while the rows come from a plan with narrowed decimals.
    narrow: Option<NarrowAttempt>,
    /// Where the plan's warnings go (its context's).
    warnings: Arc<Warnings>,
    /// The plan the rows come from (None for rows computed already).
    plan: Option<Arc<dyn ExecutionPlan>>,
    /// Run the plan to its end at once ([`quiver_exec::collect`], which
    /// uses the caller's thread too) instead of pulling batch by batch.
    whole: bool,
}

/// A query run with decimals computed in i128 ([`create_narrow_plan`]): its
/// batches get the declared types, and error 1690 before any row left
/// restarts it with the declared plan. After rows left, the error stands
/// (a value beyond 38 digits under a row already sent).
pub(crate) struct NarrowAttempt {
    pub(crate) declared: Arc<quiver_plan::LogicalPlan>,
    pub(crate) threads: usize,
    /// The command's context, for the declared plan.
    pub(crate) ctx: Arc<ExecContext>,
    emitted: bool,
}

impl NarrowAttempt {
    pub(crate) fn new(
        declared: Arc<quiver_plan::LogicalPlan>,
        threads: usize,
        ctx: Arc<ExecContext>,
    ) -> NarrowAttempt {
        NarrowAttempt {
            declared,
            threads,
            ctx,
            emitted: false,
        }
    }
}

enum Source {
    /// Rows computed already (SHOW, EXPLAIN, ...).
    Ready(std::vec::IntoIter<RecordBatch>),
    /// A plan not started yet: it starts when the first batch is wanted.
    Pending(Arc<dyn ExecutionPlan>, Arc<ExecContext>),
    /// One partition, pulled on the caller's thread.
    Inline(BatchStream),
    Parallel(Parallel),
}

struct Parallel {
    /// The partitions not yet read to their end, in order.
    partitions: VecDeque<Receiver<Result<RecordBatch>>>,
    workers: Vec<JoinHandle<()>>,
    cancel: CancelToken,
}

impl RowStream {
    pub fn from_batches(schema: SchemaRef, batches: Vec<RecordBatch>) -> RowStream {
        RowStream {
            schema,
            source: Source::Ready(batches.into_iter()),
            narrow: None,
            warnings: Default::default(),
            plan: None,
            whole: false,
        }
    }

    /// The rows of `plan` run in `ctx`, not started yet; with `narrow`, its
    /// batches are of the narrowed plan and `schema` is the declared one.
    pub(crate) fn of_plan(
        plan: Arc<dyn ExecutionPlan>,
        ctx: Arc<ExecContext>,
        schema: SchemaRef,
        narrow: Option<NarrowAttempt>,
        whole: bool,
    ) -> RowStream {
        RowStream {
            schema,
            warnings: ctx.warnings.clone(),
            source: Source::Pending(plan.clone(), ctx),
            narrow,
            plan: Some(plan),
            whole,
        }
    }

    /// Starts the plan now (a plan of one partition may compute, and fail,
    /// as it starts): an error is the statement's, not one of its rows.
    pub(crate) fn started(mut self) -> Result<RowStream> {
        loop {
            let Source::Pending(plan, ctx) = &self.source else {
                return Ok(self);
            };
            match launch(plan, ctx) {
                Ok(source) => self.source = source,
                Err(e) if self.retries(&e) => self.fall_back()?,
                Err(e) => return Err(e),
            }
        }
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The plan the rows come from now (the declared one after a narrow
    /// attempt gave up), for EXPLAIN ANALYZE.
    pub(crate) fn plan(&self) -> Option<&Arc<dyn ExecutionPlan>> {
        self.plan.as_ref()
    }

    /// Every remaining batch (what `collect` would have returned).
    pub fn collect_all(self) -> Result<Vec<RecordBatch>> {
        self.collect()
    }

    /// Every batch, as a statement that runs a query to its end gets them:
    /// an error is returned, not kept in the stream's warnings (the session
    /// records a failed statement's error itself).
    pub(crate) fn collect_whole(&mut self) -> Result<Vec<RecordBatch>> {
        let mut batches = Vec::new();
        while let Some(batch) = self.next_declared() {
            batches.push(batch?);
        }
        Ok(batches)
    }

    /// Whether `e` gives up a narrow attempt for the declared plan: 1690
    /// before any row left.
    fn retries(&self, e: &QuiverError) -> bool {
        e.code == NARROW_OVERFLOW && self.narrow.as_ref().is_some_and(|n| !n.emitted)
    }

    /// Goes on with the declared plan, not started yet. The attempt's
    /// warnings go with it: the declared plan raises its own; its workers
    /// stop as its source drops.
    fn fall_back(&mut self) -> Result<()> {
        let narrow = self.narrow.take().expect("a narrow attempt");
        let plan = create_physical_plan(&narrow.declared, narrow.threads)?;
        *self = RowStream::of_plan(plan.clone(), narrow.ctx, plan.schema(), None, self.whole);
        Ok(())
    }
}

impl Iterator for RowStream {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        let item = self.next_declared();
        if let Some(Err(e)) = &item {
            // The statement's error ends its warnings (SHOW WARNINGS).
            let sink = match &self.narrow {
                Some(n) => {
                    n.ctx.warnings.append(&self.warnings);
                    &n.ctx.warnings
                }
                None => &self.warnings,
            };
            sink.push(Condition::new(Level::Error, e.code, e.message.clone()));
        }
        item
    }
}

impl RowStream {
    fn next_declared(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            let item = self.next_of_source();
            match item {
                Some(Err(e)) if self.retries(&e) => {
                    if let Err(e) = self.fall_back() {
                        return Some(Err(e));
                    }
                }
                // The attempt ran to its end: its warnings are the command's.
                None => {
                    if let Some(narrow) = &self.narrow {
                        narrow.ctx.warnings.append(&self.warnings);
                    }
                    return None;
                }
                Some(Ok(batch)) => {
                    let Some(narrow) = &mut self.narrow else {
                        return Some(Ok(batch));
                    };
                    narrow.emitted = true;
                    return Some(to_declared(batch, &self.schema));
                }
                other => return other,
            }
        }
    }

    fn next_of_source(&mut self) -> Option<Result<RecordBatch>> {
        if let Source::Pending(plan, ctx) = &self.source {
            let started = if self.whole {
                quiver_exec::collect(plan, ctx).map(|b| Source::Ready(b.into_iter()))
            } else {
                launch(plan, ctx)
            };
            match started {
                Ok(source) => self.source = source,
                Err(e) => {
                    self.source = Source::Ready(Vec::new().into_iter());
                    return Some(Err(e));
                }
            }
        }
        match &mut self.source {
            Source::Ready(it) => it.next().map(Ok),
            Source::Pending(..) => unreachable!("started above"),
            Source::Inline(stream) => collecting_into(&self.warnings, || stream.next()),
            Source::Parallel(par) => loop {
                let rx = par.partitions.front()?;
                match rx.recv() {
                    Ok(batch) => return Some(batch),
                    // The partition is done.
                    Err(_) => {
                        par.partitions.pop_front();
                    }
                }
            },
        }
    }
}

/// Starts `plan`: one partition is pulled on the caller's thread, more run
/// each on its own thread into a channel.
fn launch(plan: &Arc<dyn ExecutionPlan>, ctx: &Arc<ExecContext>) -> Result<Source> {
    let n = plan.output_partitions();
    if n <= 1 {
        let stream = collecting_into(&ctx.warnings, || plan.execute(0, ctx))?;
        return Ok(Source::Inline(stream));
    }
    let mut partitions = VecDeque::with_capacity(n);
    let mut workers = Vec::with_capacity(n);
    for p in 0..n {
        let (tx, rx) = sync_channel::<Result<RecordBatch>>(PER_PARTITION);
        let (plan, worker_ctx) = (plan.clone(), ctx.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("quiver-stream-{p}"))
            .spawn(move || {
                let sink = worker_ctx.warnings.clone();
                // The warnings join the sink before the channel closes:
                // a reader at the end of the rows sees them all.
                let run = catch_unwind(AssertUnwindSafe(|| {
                    collecting_into(&sink, || -> Result<()> {
                        for batch in plan.execute(p, &worker_ctx)? {
                            let failed = batch.is_err();
                            // A closed channel: the reader is gone, stop.
                            if tx.send(batch).is_err() || failed {
                                return Ok(());
                            }
                        }
                        Ok(())
                    })
                }));
                let err = match run {
                    Ok(Ok(())) => return,
                    Ok(Err(e)) => e,
                    Err(_) => QuiverError::internal("a worker thread panicked"),
                };
                let _ = tx.send(Err(err));
            });
        match spawned {
            Ok(h) => workers.push(h),
            Err(e) => {
                ctx.cancel.cancel();
                return Err(QuiverError::internal(format!(
                    "cannot start a worker thread: {e}"
                )));
            }
        }
        partitions.push_back(rx);
    }
    Ok(Source::Parallel(Parallel {
        partitions,
        workers,
        cancel: ctx.cancel.clone(),
    }))
}

impl Drop for Parallel {
    fn drop(&mut self) {
        if !self.partitions.is_empty() {
            // Stopped early (an error, or the reader went away): the rest of
            // the query is not wanted.
            self.cancel.cancel();
            self.partitions.clear();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
