//! The I/O–compute pipeline: reader threads read the file in large chunks,
//! claimed in file order, into a small pool of reused page-aligned buffers;
//! worker threads (or, in the `inline` shape, the readers themselves) verify the
//! pages of whole chunks in parallel; the caller receives the chunk results in
//! page order (a reorder buffer keyed by chunk number) and may stop at any page.
//!
//! Verification of a page depends on one piece of sequential state: the extent
//! descriptor page that says which pages are free (free pages are not checked).
//! The descriptor for a page is the last page scanned at a page number that is a
//! multiple of the page size in pages; the reader of a chunk looks up the one in
//! force at the chunk's first page (reading it once, cached), and the verifier
//! switches to a newer one when it meets one inside the chunk.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::format::{be16, be32, be64, fil, fsp, page_type};
use crate::verify::{Corruption, PageChecker, Valid};

/// Tuning of the pipeline.
#[derive(Debug, Clone, Copy)]
pub struct ScanConfig {
    /// Worker threads verifying pages handed over by the readers.
    pub threads: usize,
    /// Reader threads; each claims the next chunk in file order and reads it
    /// with one large `pread`.
    pub readers: usize,
    /// Readers verify the chunk they just read themselves (while it is still in
    /// their core's cache) instead of handing it to a worker; `threads` is unused.
    pub inline: bool,
    /// Bytes per read; rounded down to whole pages.
    pub chunk_bytes: usize,
    /// Buffers in flight (being filled, queued or verified).
    pub buffers: usize,
}

impl ScanConfig {
    /// The default shape for `threads` cores.
    ///
    /// With a warm page cache the work is the kernel's copy into the read buffer
    /// (about two thirds of the CPU time) plus the CRC; one reader thread cannot
    /// copy faster than one core, so with 2+ threads every thread reads 2 MiB
    /// chunks (claimed in file order) and verifies them while they are still in
    /// its cache: reads of one thread overlap the CRC work of the others. A single
    /// thread gets a reader and a worker, so that reading overlaps checking. See
    /// bench/results/innochecksum.md for the measurements.
    pub fn with_threads(threads: usize) -> ScanConfig {
        let threads = threads.max(1);
        if threads == 1 {
            return ScanConfig {
                threads: 1,
                readers: 1,
                inline: false,
                chunk_bytes: 1 << 20,
                buffers: 3,
            };
        }
        ScanConfig {
            threads,
            readers: threads,
            inline: true,
            chunk_bytes: 2 << 20,
            buffers: threads + 1,
        }
    }
}

impl Default for ScanConfig {
    fn default() -> Self {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        ScanConfig::with_threads(n)
    }
}

/// What to scan and how pages are numbered.
#[derive(Debug, Clone)]
pub struct ScanPlan {
    pub checker: PageChecker,
    /// File position (in pages) of the first page to scan.
    pub first: u64,
    /// Stop reading after this position (inclusive); `None`: to the end of the file.
    pub last: Option<u64>,
    /// The page number a page at position `p` must carry is `p + number_offset`
    /// (wrapping): 0 except when page 0 is all zero (see [`crate::check`]).
    pub number_offset: u32,
    /// The extent descriptor page in force before `first` (page 0).
    pub xdes: Arc<Vec<u8>>,
    /// Pages below this have initialised extent descriptors (FSP_FREE_LIMIT of page 0).
    pub free_limit: u64,
    /// Report every page (page type summary, logs), not only the notable ones.
    pub details: bool,
    /// Warn about all-zero pages the descriptors mark in use (not for the system
    /// tablespace, whose reserved areas are often never written).
    pub warn_zero_in_use: bool,
    /// Pages (by number) not checked: the doublewrite buffer of the system
    /// tablespace, which holds copies of other tablespaces' pages. innochecksum
    /// skips it only when it prints a page type summary or dump.
    pub skip_range: std::ops::Range<u64>,
}

/// The outcome for one page, one byte per page in [`ChunkResult::status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Status {
    /// Checksum (and the other checks) verified.
    Valid = 0,
    /// All zero: valid.
    Zero = 1,
    /// Free according to the extent descriptor: not checked (as innochecksum).
    SkippedFree = 2,
    /// Legacy page_compressed page: not checked (no checksum in that format).
    SkippedPageCompressed = 3,
    /// Passed without a checksum to verify (legacy page_compressed type in a
    /// page-compressed space, reached through the normal checks).
    Unverifiable = 4,
    /// Legacy encrypted page: its post-encryption checksum verified.
    ValidEncrypted = 5,
    /// Damaged.
    Failed = 6,
    /// In the system tablespace's doublewrite buffer: not checked.
    SkippedDoublewrite = 7,
}

/// Index page header fields (for the page type summary and `-i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexHeader {
    pub index_id: u64,
    pub n_recs: u16,
    pub level: u16,
    pub garbage: u16,
    pub heap_top: u16,
    pub compact: bool,
    pub prev: u32,
    pub next: u32,
}

/// A Quiver-only finding that MariaDB's innochecksum lets pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// An all-zero page the extent descriptor says is in use (below the free
    /// limit and not marked free): its contents were lost or never written.
    ZeroPageInUse,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::ZeroPageInUse => f.write_str(
                "all-zero page inside the used part of the tablespace (the extent descriptor marks it in use)",
            ),
        }
    }
}

/// Everything known about one page, for notable pages (or all, in detail mode).
#[derive(Debug, Clone)]
pub struct PageInfo {
    /// Position in the file, in pages.
    pub position: u64,
    /// The page number it was checked as (`position + number_offset`).
    pub page_no: u32,
    pub stored_page_no: u32,
    pub stored_space_id: u32,
    pub page_type: u16,
    pub status: Status,
    pub corruption: Option<Corruption>,
    pub warning: Option<Warning>,
    /// The LSN low words compared by the torn-page check (header, trailer), when
    /// the check got that far (innochecksum logs them).
    pub lsn_pair: Option<(u32, u32)>,
    /// Free in the current descriptor when looked up by the stored page number
    /// (how `innochecksum -S` decides which index pages to leave out).
    pub free_by_stored_no: bool,
    pub index: Option<IndexHeader>,
    /// TRX_UNDO_STATE of an undo log page.
    pub undo_state: u16,
    /// The 4 bytes at offset 26: the key version of a legacy encrypted page
    /// (innochecksum's page dump prints them for encrypted index pages of any format).
    pub key_version: u32,
}

/// How a chunk's scan ended early.
#[derive(Debug)]
pub enum ScanError {
    /// The last page is cut short: `read` of `size` bytes.
    PartialPage {
        position: u64,
        read: usize,
        size: usize,
    },
    Io {
        position: u64,
        error: io::Error,
    },
}

/// The verified pages of one chunk, handed to the caller in file order.
#[derive(Debug)]
pub struct ChunkResult {
    pub seq: u64,
    /// Position of the first page.
    pub first: u64,
    /// One [`Status`] per page.
    pub status: Vec<Status>,
    /// Notable pages (failed, warned), or every page in detail mode; in order.
    pub pages: Vec<PageInfo>,
    /// After the last page of this chunk the scan cannot go on.
    pub error: Option<ScanError>,
    /// The file ended in (or before) this chunk.
    pub end: bool,
}

/// A reusable read buffer whose usable part starts on a 4 KiB boundary: the
/// kernel's copy into a misaligned buffer runs several times slower on some
/// CPUs (measured 1.2 vs 8 GB/s from the page cache on an AMD EPYC VM).
struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    fn empty() -> AlignedBuf {
        AlignedBuf {
            raw: Vec::new(),
            start: 0,
            len: 0,
        }
    }

    /// Make room for `len` bytes (kept for reuse once allocated).
    fn ensure(&mut self, len: usize) {
        if self.len < len {
            const ALIGN: usize = 4096;
            self.raw = vec![0u8; len + ALIGN];
            self.start = self.raw.as_ptr().align_offset(ALIGN).min(ALIGN);
            self.len = len;
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

struct Job {
    seq: u64,
    first: u64,
    buf: AlignedBuf,
    len: usize,
    xdes: Arc<Vec<u8>>,
    error: Option<ScanError>,
    end: bool,
}

/// Scan pages `plan.first ..= plan.last` (or to EOF). `on_chunk` sees the chunks
/// in order and returns `Break` to stop the scan (the threads are wound down).
pub fn scan(
    file: &File,
    plan: &ScanPlan,
    cfg: &ScanConfig,
    mut on_chunk: impl FnMut(&ChunkResult) -> ControlFlow<()>,
) {
    let ps = plan.checker.layout.physical_size;
    let pages_per_chunk = (cfg.chunk_bytes / ps).max(1);
    let chunk_len = pages_per_chunk * ps;
    let readers = cfg.readers.max(1);
    let workers = if cfg.inline { 0 } else { cfg.threads.max(1) };
    let n_buffers = cfg.buffers.max(readers + 1);
    let stop = AtomicBool::new(false);
    let next_chunk = AtomicU64::new(0);
    let xdes_cache: Mutex<HashMap<u64, Arc<Vec<u8>>>> = Mutex::new(HashMap::new());

    let (free_tx, free_rx) = mpsc::sync_channel::<AlignedBuf>(n_buffers);
    for _ in 0..n_buffers {
        // Allocated by a reader on first use: nothing for buffers never needed.
        let _ = free_tx.send(AlignedBuf::empty());
    }
    let free_rx = Mutex::new(free_rx);
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(n_buffers);
    let job_rx = Mutex::new(job_rx);
    let (res_tx, res_rx) = mpsc::channel::<ChunkResult>();

    std::thread::scope(|s| {
        for _ in 0..readers {
            let (stop, next_chunk, free_rx, xdes_cache) =
                (&stop, &next_chunk, &free_rx, &xdes_cache);
            let (free_tx, job_tx, res_tx) = (free_tx.clone(), job_tx.clone(), res_tx.clone());
            s.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                // Chunks are claimed in file order, so reads stay sequential.
                let seq = next_chunk.fetch_add(1, Ordering::Relaxed);
                let pos = plan.first + seq * pages_per_chunk as u64;
                let want_pages = match plan.last {
                    Some(last) if pos > last => return,
                    Some(last) => ((last - pos + 1) as usize).min(pages_per_chunk),
                    None => pages_per_chunk,
                };
                let mut buf = {
                    let Ok(rx) = free_rx.lock() else { return };
                    match rx.recv() {
                        Ok(b) => b,
                        Err(_) => return,
                    }
                };
                if stop.load(Ordering::Relaxed) {
                    let _ = free_tx.send(buf);
                    return;
                }
                buf.ensure(chunk_len);
                let want = want_pages * ps;
                let (len, io_err) = read_full(file, &mut buf.bytes_mut()[..want], pos * ps as u64);
                let full_pages = len / ps;
                let mut error = io_err.map(|error| ScanError::Io {
                    position: pos + full_pages as u64,
                    error,
                });
                if error.is_none() && len < want && len % ps != 0 {
                    error = Some(ScanError::PartialPage {
                        position: pos + full_pages as u64,
                        read: len % ps,
                        size: ps,
                    });
                }
                let end = len < want || error.is_some();
                let job = Job {
                    seq,
                    first: pos,
                    len: full_pages * ps,
                    xdes: xdes_before(file, plan, pos, xdes_cache),
                    buf,
                    error,
                    end,
                };
                if workers == 0 {
                    let result = finish_job(plan, job, &free_tx);
                    if res_tx.send(result).is_err() {
                        return;
                    }
                } else if job_tx.send(job).is_err() {
                    return;
                }
                if end {
                    return;
                }
            });
        }
        drop(job_tx);

        for _ in 0..workers {
            let (job_rx, stop) = (&job_rx, &stop);
            let res_tx = res_tx.clone();
            let free_tx = free_tx.clone();
            // Runs until the readers are done, so that every buffer gets back to
            // the pool even after a stop (a reader may be waiting for one).
            s.spawn(move || loop {
                let job = {
                    let Ok(rx) = job_rx.lock() else { return };
                    match rx.recv() {
                        Ok(j) => j,
                        Err(_) => return,
                    }
                };
                if stop.load(Ordering::Relaxed) {
                    let _ = free_tx.send(job.buf);
                    continue;
                }
                let _ = res_tx.send(finish_job(plan, job, &free_tx));
            });
        }
        drop(res_tx);
        drop(free_tx);

        // Deliver in file order.
        let mut next = 0u64;
        let mut pending = BTreeMap::new();
        'outer: for r in res_rx.iter() {
            pending.insert(r.seq, r);
            while let Some(r) = pending.remove(&next) {
                next += 1;
                if on_chunk(&r).is_break() || r.end {
                    break 'outer;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        // Dropping the receiver lets blocked threads finish; the scope joins them.
        drop(res_rx);
    });
}

/// Verify a chunk and give its buffer back to the pool.
fn finish_job(
    plan: &ScanPlan,
    mut job: Job,
    free_tx: &mpsc::SyncSender<AlignedBuf>,
) -> ChunkResult {
    let error = job.error.take();
    let mut result = verify_chunk(plan, &job);
    result.error = error;
    result.end = job.end;
    let _ = free_tx.send(job.buf);
    result
}

/// The extent descriptor page in force when the scan reaches position `pos`:
/// the last page before it numbered a multiple of the page size in pages (read
/// from the file once and cached), or page 0 if the scan did not pass one.
fn xdes_before(
    file: &File,
    plan: &ScanPlan,
    pos: u64,
    cache: &Mutex<HashMap<u64, Arc<Vec<u8>>>>,
) -> Arc<Vec<u8>> {
    let ps = plan.checker.layout.physical_size as u64;
    if pos == 0 {
        return plan.xdes.clone();
    }
    // Page numbers wrap at 2^32, which the page size (a power of two) divides.
    let r = (pos - 1 + u64::from(plan.number_offset)) % ps;
    if r > pos - 1 || pos - 1 - r < plan.first {
        return plan.xdes.clone();
    }
    let q = pos - 1 - r;
    let Ok(mut cache) = cache.lock() else {
        return plan.xdes.clone();
    };
    cache
        .entry(q)
        .or_insert_with(|| {
            let mut page = vec![0u8; ps as usize];
            // A failed read leaves zeros; the chunk holding that page reports the error.
            let _ = read_full(file, &mut page, q * ps);
            Arc::new(page)
        })
        .clone()
}

/// Read until `buf` is full, EOF or an error; returns the bytes read.
fn read_full(file: &File, buf: &mut [u8], offset: u64) -> (usize, Option<io::Error>) {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (done, Some(e)),
        }
    }
    (done, None)
}

fn verify_chunk(plan: &ScanPlan, job: &Job) -> ChunkResult {
    let checker = &plan.checker;
    let ps = checker.layout.physical_size;
    let n = job.len / ps;
    let mut status = Vec::with_capacity(n);
    let mut pages = Vec::new();
    let mut xdes: &[u8] = &job.xdes;
    for i in 0..n {
        let page = &job.buf.bytes()[i * ps..(i + 1) * ps];
        let position = job.first + i as u64;
        let page_no = (position as u32).wrapping_add(plan.number_offset);
        let ty = be16(page, fil::TYPE);
        let skipped_type =
            ty == page_type::PAGE_COMPRESSED || ty == page_type::PAGE_COMPRESSED_ENCRYPTED;
        let free = checker.layout.xdes_page_is_free(xdes, u64::from(page_no));
        let (st, corruption) = if plan.skip_range.contains(&u64::from(page_no)) {
            (Status::SkippedDoublewrite, None)
        } else if skipped_type {
            (Status::SkippedPageCompressed, None)
        } else if free {
            (Status::SkippedFree, None)
        } else {
            match checker.check(page, page_no) {
                Ok(Valid::Checksum) => (Status::Valid, None),
                Ok(Valid::Zero) => (Status::Zero, None),
                Ok(Valid::Encrypted) => (Status::ValidEncrypted, None),
                Ok(Valid::Unverifiable) => (Status::Unverifiable, None),
                Err(c) => (Status::Failed, Some(c)),
            }
        };
        let warning =
            (st == Status::Zero && plan.warn_zero_in_use && u64::from(page_no) < plan.free_limit)
                .then_some(Warning::ZeroPageInUse);
        // The descriptor switch happens after the page itself was checked.
        if u64::from(page_no) % ps as u64 == 0 {
            xdes = page;
        }
        status.push(st);
        if plan.details || corruption.is_some() || warning.is_some() {
            pages.push(page_info(
                plan, page, position, page_no, st, corruption, warning, xdes,
            ));
        }
    }
    ChunkResult {
        seq: job.seq,
        first: job.first,
        status,
        pages,
        error: None,
        end: false,
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn page_info(
    plan: &ScanPlan,
    page: &[u8],
    position: u64,
    page_no: u32,
    status: Status,
    corruption: Option<Corruption>,
    warning: Option<Warning>,
    xdes: &[u8],
) -> PageInfo {
    let lay = &plan.checker.layout;
    let ps = page.len();
    let ty = be16(page, fil::TYPE);
    let stored_page_no = be32(page, fil::OFFSET);
    let stored_space_id = be32(page, fil::SPACE_ID);
    let id_ok = stored_page_no == page_no
        && (stored_space_id == plan.checker.space_id
            || (lay.full_crc32() && (plan.checker.encrypted || lay.is_page_compressed())));
    let lsn_logged = matches!(
        status,
        Status::Valid | Status::Failed | Status::ValidEncrypted
    ) && id_ok
        && !lay.row_compressed
        && (!lay.is_page_compressed() || !lay.full_crc32());
    let lsn_pair = lsn_logged.then(|| {
        let trailer = if lay.full_crc32() {
            be32(page, ps - fil::TRAILER)
        } else {
            be32(page, ps - 4)
        };
        (be32(page, fil::LSN + 4), trailer)
    });
    const PAGE_HEADER: usize = fil::DATA;
    let index = (ty == page_type::INDEX).then(|| IndexHeader {
        index_id: be64(page, PAGE_HEADER + 28),
        n_recs: be16(page, PAGE_HEADER + 16),
        level: be16(page, PAGE_HEADER + 26),
        garbage: be16(page, PAGE_HEADER + 8),
        heap_top: be16(page, PAGE_HEADER + 2),
        compact: be16(page, PAGE_HEADER + 4) & 0x8000 != 0,
        prev: be32(page, fil::PREV),
        next: be32(page, fil::NEXT),
    });
    // TRX_UNDO_SEG_HDR follows the 18-byte undo page header.
    let undo_state = if ty == page_type::UNDO_LOG {
        be16(page, fil::DATA + 18)
    } else {
        0
    };
    let key_version = be32(page, fil::FLUSH_LSN_OR_KEY_VERSION);
    PageInfo {
        position,
        page_no,
        stored_page_no,
        stored_space_id,
        page_type: ty,
        status,
        corruption,
        warning,
        lsn_pair,
        free_by_stored_no: lay.xdes_page_is_free(xdes, u64::from(stored_page_no)),
        index,
        undo_state,
        key_version,
    }
}

/// FSP_FREE_LIMIT and FSP_SIZE of page 0.
pub fn page0_limits(page0: &[u8]) -> (u64, u64) {
    (
        u64::from(be32(page0, fsp::FREE_LIMIT)),
        u64::from(be32(page0, fsp::SIZE)),
    )
}
