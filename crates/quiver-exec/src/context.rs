//! Per-query execution settings, the memory budget and the cancel flag.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use quiver_common::{QuiverError, Result};

use crate::warnings::Warnings;

/// Rows per batch produced by scans: small enough that a batch's columns stay
/// in cache through a pipeline, large enough to amortize per-batch dispatch.
pub const MORSEL_ROWS: usize = 16 * 1024;

/// Bytes of `batch`'s columns, counting only the slice it covers.
pub(crate) fn batch_bytes(batch: &RecordBatch) -> usize {
    batch
        .columns()
        .iter()
        .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0))
        .sum()
}

#[derive(Debug)]
pub struct ExecContext {
    pub threads: usize,
    /// Shared by the contexts of one query's partitions.
    pub memory: Arc<MemoryPool>,
    /// Set from outside (KILL QUERY, a client that went away), or the
    /// statement's time limit; operators check it once per batch and stop
    /// with error 1317 (or the limit's error).
    pub cancel: CancelToken,
    /// Where the query's warnings go (SHOW WARNINGS). Whoever runs
    /// operators on a thread does so inside
    /// [`crate::warnings::collecting_into`] this sink, which is where the
    /// kernels called on that thread raise theirs.
    pub warnings: Arc<Warnings>,
    /// Set only in the context of one partition whose consumer asks where
    /// its batches come from (see
    /// [`crate::operators::exec_plan::for_each_partition_positioned`]): each
    /// scan in the partition's pipeline notes there the position of the
    /// batch it returns, through the filters, projections and probe sides
    /// that stream it on.
    pub scan_position: Option<Arc<ScanPositionSlot>>,
}

impl ExecContext {
    pub fn new(threads: usize, memory_limit: usize) -> Self {
        ExecContext {
            threads: threads.max(1),
            memory: Arc::new(MemoryPool::new(memory_limit)),
            cancel: CancelToken::default(),
            warnings: Default::default(),
            scan_position: None,
        }
    }

    /// The same query's context for one partition, its scans noting their
    /// batches' positions in `slot` (or nowhere).
    pub fn with_scan_position(&self, slot: Option<Arc<ScanPositionSlot>>) -> Arc<Self> {
        Arc::new(ExecContext {
            threads: self.threads,
            memory: self.memory.clone(),
            cancel: self.cancel.clone(),
            warnings: self.warnings.clone(),
            scan_position: slot,
        })
    }

    /// The same settings, the warnings going to `warnings`.
    pub fn with_warnings(mut self, warnings: Arc<Warnings>) -> Self {
        self.warnings = warnings;
        self
    }

    /// The same settings, cancelled through `cancel`.
    pub fn with_cancel(mut self, cancel: CancelToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Error 1317 once the query has been cancelled (the limit's error once
    /// its time is up).
    #[inline]
    pub fn check_cancelled(&self) -> Result<()> {
        self.cancel.check()
    }
}

/// Where a batch comes from in a scan: which scan (an identity shared by
/// all partitions of one scan) and which of its morsels. Morsels are
/// numbered in table order and each is read by one partition, so two
/// batches of one scan are in table order by `morsel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPosition {
    pub scan: usize,
    pub morsel: u64,
}

/// The position of the batch a scan of one partition last returned. One
/// thread writes and reads it (the partition's), so relaxed atomics serve;
/// they are only there to make the context `Sync`.
#[derive(Debug, Default)]
pub struct ScanPositionSlot {
    /// `ScanPosition::scan + 1`; 0 when nothing was noted since the last take.
    scan: AtomicUsize,
    morsel: AtomicU64,
}

impl ScanPositionSlot {
    pub fn set(&self, p: ScanPosition) {
        self.morsel.store(p.morsel, Ordering::Relaxed);
        self.scan.store(p.scan.wrapping_add(1), Ordering::Relaxed);
    }

    /// The position noted last, cleared; `None` when no scan returned a
    /// batch since the last call.
    pub fn take(&self) -> Option<ScanPosition> {
        match self.scan.swap(0, Ordering::Relaxed) {
            0 => None,
            s => Some(ScanPosition {
                scan: s - 1,
                morsel: self.morsel.load(Ordering::Relaxed),
            }),
        }
    }
}

/// A query's cancel flag, shared by everything that may stop it, and the
/// statement's time limit, if it has one. Checking is a relaxed load or two
/// (and a clock read under a limit), cheap enough for every batch.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
    /// A command's flag that stops this attempt at it too.
    parent: Option<Arc<AtomicBool>>,
    deadline: Option<Deadline>,
}

/// When a statement's time limit runs out, and which limit it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    pub at: Instant,
    pub limit: TimeLimit,
}

/// The session variables that limit a statement's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeLimit {
    /// MariaDB's `max_statement_time` (seconds).
    MaxStatementTime,
    /// MySQL's `max_execution_time` (milliseconds).
    MaxExecutionTime,
}

impl TimeLimit {
    /// The error a statement stopped by this limit ends with (MariaDB's
    /// 1969, MySQL's 3024).
    pub fn error(self) -> QuiverError {
        match self {
            TimeLimit::MaxStatementTime => QuiverError::new(
                1969,
                "70100",
                "Query execution was interrupted (max_statement_time exceeded)",
            ),
            TimeLimit::MaxExecutionTime => QuiverError::new(
                3024,
                "HY000",
                "Query execution was interrupted, maximum statement execution time exceeded",
            ),
        }
    }
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// A token cancelled with this one, whose own cancelling leaves this one
    /// running: one attempt at a command that may be retried. It keeps the
    /// time limit.
    pub fn child(&self) -> CancelToken {
        CancelToken {
            flag: Arc::default(),
            parent: Some(self.flag.clone()),
            deadline: self.deadline,
        }
    }

    /// The same token, also stopping at `deadline` (if any).
    pub fn with_deadline(mut self, deadline: Option<Deadline>) -> Self {
        self.deadline = deadline;
        self
    }

    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    #[inline]
    fn flagged(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
            || self
                .parent
                .as_ref()
                .is_some_and(|p| p.load(Ordering::Relaxed))
    }

    #[inline]
    fn expired(&self) -> Option<TimeLimit> {
        self.deadline
            .filter(|d| Instant::now() >= d.at)
            .map(|d| d.limit)
    }

    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.flagged() || self.expired().is_some()
    }

    /// Error 1317 once cancelled, the limit's error once its time is up.
    #[inline]
    pub fn check(&self) -> Result<()> {
        if self.flagged() {
            return Err(interrupted());
        }
        match self.expired() {
            Some(limit) => Err(limit.error()),
            None => Ok(()),
        }
    }
}

/// MySQL's error for a statement stopped by KILL QUERY (or a lost client).
pub fn interrupted() -> QuiverError {
    QuiverError::new(1317, "70100", "Query execution was interrupted")
}

/// Counts the bytes that operators hold (hash tables, sort buffers, build
/// sides). A reservation over the limit fails the query with a clear error
/// instead of letting the process be killed.
#[derive(Debug)]
pub struct MemoryPool {
    limit: usize,
    used: AtomicUsize,
}

impl MemoryPool {
    pub fn new(limit: usize) -> Self {
        MemoryPool {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Reserves `bytes` for the life of the returned guard.
    pub fn reserve(&self, bytes: usize) -> Result<Reservation<'_>> {
        let mut r = Reservation {
            pool: self,
            bytes: 0,
        };
        r.grow(bytes)?;
        Ok(r)
    }
}

pub struct Reservation<'a> {
    pool: &'a MemoryPool,
    bytes: usize,
}

impl Reservation<'_> {
    pub fn grow(&mut self, bytes: usize) -> Result<()> {
        let before = self.pool.used.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes > self.pool.limit {
            self.pool.used.fetch_sub(bytes, Ordering::Relaxed);
            return Err(QuiverError::memory_limit(self.pool.limit));
        }
        self.bytes += bytes;
        Ok(())
    }

    /// Sets the reservation to `bytes`, growing or shrinking.
    pub fn resize(&mut self, bytes: usize) -> Result<()> {
        if bytes > self.bytes {
            self.grow(bytes - self.bytes)
        } else {
            self.pool
                .used
                .fetch_sub(self.bytes - bytes, Ordering::Relaxed);
            self.bytes = bytes;
            Ok(())
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.pool.used.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// A reservation that owns its context, for state kept in shared operators.
#[derive(Debug)]
pub struct OwnedReservation {
    ctx: std::sync::Arc<ExecContext>,
    bytes: usize,
}

impl OwnedReservation {
    pub fn new(ctx: &std::sync::Arc<ExecContext>) -> Self {
        OwnedReservation {
            ctx: ctx.clone(),
            bytes: 0,
        }
    }

    pub fn grow(&mut self, bytes: usize) -> Result<()> {
        let pool = &self.ctx.memory;
        let before = pool.used.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes > pool.limit {
            pool.used.fetch_sub(bytes, Ordering::Relaxed);
            return Err(QuiverError::memory_limit(pool.limit));
        }
        self.bytes += bytes;
        Ok(())
    }
}

impl Drop for OwnedReservation {
    fn drop(&mut self) {
        self.ctx
            .memory
            .used
            .fetch_sub(self.bytes, Ordering::Relaxed);
    }
}
