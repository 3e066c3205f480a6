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

    /// The same settings, the query's memory counted in `shared` too (the
    /// database's pool).
    pub fn within(mut self, shared: &Arc<MemoryPool>) -> Self {
        self.memory = Arc::new(MemoryPool::within(shared.clone(), self.memory.limit()));
        self
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

/// 60% of physical memory: room for the OS and the rest of the process.
pub fn default_memory_limit() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<usize>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(8 << 30);
    total / 10 * 6
}

/// Counts the bytes that operators hold (hash tables, sort buffers, build
/// sides). A reservation over the limit fails the query with a clear error
/// instead of letting the process be killed.
///
/// A query's pool may sit within a shared one (its `parent`: the
/// database's, which the server's connections share and which also counts
/// the table pages read into memory): a reservation counts against both,
/// so that many queries that each fit their own limit cannot together take
/// more than the process may hold.
#[derive(Debug)]
pub struct MemoryPool {
    limit: AtomicUsize,
    used: AtomicUsize,
    parent: Option<Arc<MemoryPool>>,
    /// A pool that queries' pools sit within (its error says so).
    shared: bool,
}

impl MemoryPool {
    pub fn new(limit: usize) -> Self {
        MemoryPool {
            limit: AtomicUsize::new(limit),
            used: AtomicUsize::new(0),
            parent: None,
            shared: false,
        }
    }

    /// The pool of a database, which its queries' pools sit within.
    pub fn shared(limit: usize) -> Self {
        MemoryPool {
            shared: true,
            ..MemoryPool::new(limit)
        }
    }

    /// A pool of `limit` whose reservations also count against `parent`.
    pub fn within(parent: Arc<MemoryPool>, limit: usize) -> Self {
        MemoryPool {
            parent: Some(parent),
            ..MemoryPool::new(limit)
        }
    }

    pub fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    /// Changes the limit (of a shared pool, when the server's is set);
    /// what is held stays held.
    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Counts `bytes` here and in the pools this one sits within, or none
    /// of them: error 1041 naming the limit that would be passed.
    fn take(&self, bytes: usize) -> Result<()> {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        let limit = self.limit();
        if before + bytes > limit {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            return Err(match self.shared {
                true => QuiverError::shared_memory_limit(limit),
                false => QuiverError::memory_limit(limit),
            });
        }
        if let Some(p) = &self.parent {
            if let Err(e) = p.take(bytes) {
                self.used.fetch_sub(bytes, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    }

    fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
        if let Some(p) = &self.parent {
            p.give_back(bytes);
        }
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

    /// [`MemoryPool::reserve`] whose guard holds the pool (for what stays
    /// in memory beyond one query: a table's pages read from disk).
    pub fn reserve_owned(self: &Arc<Self>, bytes: usize) -> Result<PoolReservation> {
        self.take(bytes)?;
        Ok(PoolReservation {
            pool: self.clone(),
            bytes,
        })
    }
}

pub struct Reservation<'a> {
    pool: &'a MemoryPool,
    bytes: usize,
}

impl Reservation<'_> {
    pub fn grow(&mut self, bytes: usize) -> Result<()> {
        self.pool.take(bytes)?;
        self.bytes += bytes;
        Ok(())
    }

    /// Sets the reservation to `bytes`, growing or shrinking.
    pub fn resize(&mut self, bytes: usize) -> Result<()> {
        if bytes > self.bytes {
            self.grow(bytes - self.bytes)
        } else {
            self.pool.give_back(self.bytes - bytes);
            self.bytes = bytes;
            Ok(())
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.pool.give_back(self.bytes);
    }
}

/// Bytes held in a pool for as long as this guard lives.
#[derive(Debug)]
pub struct PoolReservation {
    pool: Arc<MemoryPool>,
    bytes: usize,
}

impl PoolReservation {
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for PoolReservation {
    fn drop(&mut self) {
        self.pool.give_back(self.bytes);
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
        self.ctx.memory.take(bytes)?;
        self.bytes += bytes;
        Ok(())
    }
}

impl Drop for OwnedReservation {
    fn drop(&mut self) {
        self.ctx.memory.give_back(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reservations of query pools within a shared one count in both: each
    /// query keeps to its own limit, and together they keep to the shared
    /// one; what is given back is there again.
    #[test]
    fn query_pools_within_a_shared_pool_count_in_both() {
        let shared = Arc::new(MemoryPool::shared(100));
        let a = MemoryPool::within(shared.clone(), 80);
        let b = MemoryPool::within(shared.clone(), 80);
        let ra = a.reserve(60).expect("within both limits");
        assert_eq!(
            a.reserve(30).err().map(|e| e.code),
            Some(1041),
            "over a's own"
        );
        let e = b.reserve(50).err().expect("over the shared limit");
        assert_eq!(e.code, 1041);
        assert!(e.message.contains("running together"), "{e}");
        assert_eq!(
            (shared.used(), b.used()),
            (60, 0),
            "a failed reservation holds nothing"
        );
        let mut rb = b.reserve(40).expect("fits both");
        assert_eq!(shared.used(), 100);
        rb.resize(10).expect("shrinks");
        assert_eq!(shared.used(), 70);
        drop(ra);
        drop(rb);
        assert_eq!((shared.used(), a.used(), b.used()), (0, 0, 0));
        let owned = shared.reserve_owned(90).expect("fits");
        assert!(b.reserve(20).is_err(), "pages held count too");
        drop(owned);
        assert_eq!(shared.used(), 0);
    }
}
