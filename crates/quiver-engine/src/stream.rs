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
use quiver_exec::planner::arrow_schema;
use quiver_exec::warnings::{collecting_into, Condition, Level, Warnings};
use quiver_exec::{
    create_narrow_plan, create_physical_plan, to_declared, ExecContext, ExecutionPlan,
};
use quiver_sql::sqlparser::ast::Statement;
use quiver_sql::SqlSource;

use crate::session::NARROW_OVERFLOW;
use crate::{Session, StatementResult};

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
}

/// A query run with decimals computed in i128 ([`create_narrow_plan`]): its
/// batches get the declared types, and error 1690 before any row left
/// restarts it with the declared plan. After rows left, the error stands
/// (a value beyond 38 digits under a row already sent).
struct NarrowAttempt {
    declared: Arc<quiver_plan::LogicalPlan>,
    threads: usize,
    /// The command's context, for the declared plan.
    ctx: Arc<ExecContext>,
    emitted: bool,
}

enum Source {
    /// Rows computed already (SHOW, EXPLAIN, ...).
    Ready(std::vec::IntoIter<RecordBatch>),
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
        }
    }

    /// Starts `plan`; its rows come as they are pulled.
    pub fn start(plan: Arc<dyn ExecutionPlan>, ctx: Arc<ExecContext>) -> Result<RowStream> {
        let schema = plan.schema();
        let n = plan.output_partitions();
        let warnings = ctx.warnings.clone();
        if n <= 1 {
            let stream = collecting_into(&warnings, || plan.execute(0, &ctx))?;
            return Ok(RowStream {
                schema,
                source: Source::Inline(stream),
                narrow: None,
                warnings,
            });
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
        Ok(RowStream {
            schema,
            source: Source::Parallel(Parallel {
                partitions,
                workers,
                cancel: ctx.cancel.clone(),
            }),
            narrow: None,
            warnings,
        })
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Every remaining batch (what `collect` would have returned).
    pub fn collect_all(self) -> Result<Vec<RecordBatch>> {
        self.collect()
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
            let Some(narrow) = &mut self.narrow else {
                return item;
            };
            match item {
                // The attempt ran to its end: its warnings are the command's.
                None => {
                    narrow.ctx.warnings.append(&self.warnings);
                    return None;
                }
                Some(Ok(batch)) => {
                    narrow.emitted = true;
                    return Some(to_declared(batch, &self.schema));
                }
                Some(Err(e)) if e.code == NARROW_OVERFLOW && !narrow.emitted => {
                    // The attempt's warnings go with it: the declared plan
                    // raises its own.
                    let restart = create_physical_plan(&narrow.declared, narrow.threads)
                        .and_then(|plan| RowStream::start(plan, narrow.ctx.clone()));
                    match restart {
                        // The narrow attempt's workers stop as its source drops.
                        Ok(declared) => *self = declared,
                        Err(e) => return Some(Err(e)),
                    }
                }
                other => return other,
            }
        }
    }

    fn next_of_source(&mut self) -> Option<Result<RecordBatch>> {
        match &mut self.source {
            Source::Ready(it) => it.next().map(Ok),
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

impl Session {
    /// Runs `stmt`, parsed from `source`, as [`Session::execute_statement_from`]
    /// does, except that a query's rows come as a [`RowStream`] while the plan
    /// runs. Other statements run to their end first.
    pub fn execute_streaming(
        &self,
        stmt: &Statement,
        source: &Arc<SqlSource>,
    ) -> Result<StreamedResult> {
        self.stream_statement(stmt, source, false)
    }

    /// [`Session::execute_streaming`] of a statement that is the whole of
    /// `source`'s text: a query's plan is kept, and
    /// [`Session::execute_kept`] runs the same text again without parsing,
    /// binding or optimizing it.
    pub fn execute_streaming_keeping_plan(
        &self,
        stmt: &Statement,
        source: &Arc<SqlSource>,
    ) -> Result<StreamedResult> {
        self.stream_statement(stmt, source, true)
    }

    fn stream_statement(
        &self,
        stmt: &Statement,
        source: &Arc<SqlSource>,
        keep_plan: bool,
    ) -> Result<StreamedResult> {
        let Statement::Query(q) = stmt else {
            return self.execute_statement_from(stmt, source).map(Into::into);
        };
        // Binding finds whether it reads a table (which resets the warnings).
        self.begin_statement(false);
        let result = self.database().sync_with_disk().and_then(|()| {
            let logical = if keep_plan {
                self.logical_plan_kept(q, source)?
            } else {
                Arc::new(self.select_limit(self.with_source(source, || self.logical_plan(q))?, q))
            };
            self.stream_plan(&logical)
        });
        if let Err(e) = &result {
            self.statement_failed(e);
        }
        result
    }

    /// Runs the query whose text is `sql` from its kept plan; None when there
    /// is none valid now (never run, or the catalog, the session variables
    /// or the current database changed since): then parse and run it.
    pub fn execute_kept(&self, sql: &str) -> Option<Result<StreamedResult>> {
        if let Err(e) = self.database().sync_with_disk() {
            self.record_error(&e);
            return Some(Err(e));
        }
        let logical = self.kept_plan(sql)?;
        self.begin_statement(crate::diagnostics::reads_tables(&logical));
        let result = self.stream_plan(&logical);
        if let Err(e) = &result {
            self.statement_failed(e);
        }
        Some(result)
    }

    fn stream_plan(&self, logical: &Arc<quiver_plan::LogicalPlan>) -> Result<StreamedResult> {
        let threads = self.config().threads;
        match create_narrow_plan(logical, threads) {
            Ok(Some((plan, true))) => {
                let ctx = self.context();
                // A plan of one partition may compute (and overflow) as it starts.
                match RowStream::start(plan, self.attempt_context(&ctx)) {
                    Ok(mut stream) => {
                        stream.schema = arrow_schema(&logical.schema());
                        stream.narrow = Some(NarrowAttempt {
                            declared: logical.clone(),
                            threads,
                            ctx,
                            emitted: false,
                        });
                        return Ok(StreamedResult::Rows(stream));
                    }
                    Err(e) if e.code == NARROW_OVERFLOW => {}
                    Err(e) => return Err(e),
                }
            }
            // Nothing was narrowed: the plan is the declared one.
            Ok(Some((plan, false))) => {
                return Ok(StreamedResult::Rows(RowStream::start(
                    plan,
                    self.context(),
                )?))
            }
            _ => {}
        }
        let plan = create_physical_plan(logical, threads)?;
        Ok(StreamedResult::Rows(RowStream::start(
            plan,
            self.context(),
        )?))
    }
}
