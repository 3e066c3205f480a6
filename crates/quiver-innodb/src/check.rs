//! Checking whole files the way MariaDB 10.11's `innochecksum` walks them.
//!
//! Per file: read page 0 (the flags there give the page size and format), check
//! that it is page 0 and verify it (a damaged page 0 stops the file: nothing
//! after it can be trusted), then scan the requested range with the pipeline of
//! [`crate::scan`]. Pages of the legacy page_compressed types and pages the
//! extent descriptor marks free are not checked. The mismatch counter runs across
//! all files of one [`Checker`]; past the allowed number the run stops.
//!
//! Two quirks are kept so that page numbers and verdicts agree with MariaDB's:
//! * `-e N` (and `-p N`) stop after the first page numbered N or more, and the
//!   scan always includes the page after page 0, so `-p 0` checks pages 0 and 1.
//! * If page 0 is all zero, checking resumes at the first non-zero page and the
//!   expected page numbers continue from the number stored in that page.

use std::fmt;
use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::format::{be32, fil, is_all_zero, page0_is_encrypted, BadFlags, Layout, MIN_PAGE_SIZE};
use crate::scan::{
    self, page_info, ChunkResult, PageInfo, ScanConfig, ScanError, ScanPlan, Status,
};
use crate::summary::Summary;
use crate::verify::{Corruption, PageChecker, Policy, Valid};

/// What to check, as innochecksum's options say it.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// `-s`: first page (0 = from the start).
    pub start_page: u32,
    /// `-e` / `-p`: last page.
    pub end_page: Option<u32>,
    /// `-a`: mismatches tolerated before the run stops.
    pub allow_mismatches: u64,
    /// `-C`: which legacy checksums are accepted.
    pub policy: Policy,
    /// `--tablespace-flags`: use these instead of page 0's (ibdata2, ...).
    pub tablespace_flags: Option<u32>,
    /// `-c`: only count pages (page 0 is still verified).
    pub count_only: bool,
    /// `-S`: collect the page type summary.
    pub summary: bool,
    /// `-r`: leave free pages out of the summary.
    pub skip_free_in_summary: bool,
    /// Do not check the system tablespace's doublewrite buffer (innochecksum
    /// does this when it prints a page type summary or dump).
    pub skip_doublewrite: bool,
    /// Deliver every page to the event callback (logs, `-i`), not only notable ones.
    pub every_page: bool,
    pub scan: ScanConfig,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            start_page: 0,
            end_page: None,
            allow_mismatches: 0,
            policy: Policy::Crc32,
            tablespace_flags: None,
            count_only: false,
            summary: false,
            skip_free_in_summary: false,
            skip_doublewrite: false,
            every_page: false,
            scan: ScanConfig::default(),
        }
    }
}

/// Why a file could not be (fully) checked. The messages follow innochecksum's.
#[derive(Debug)]
pub enum FileError {
    NotFound(io::Error),
    IsDirectory,
    Open(io::Error),
    /// Fewer than 1024 bytes: not even the smallest page.
    TooShort {
        read: usize,
    },
    /// Page 0 is cut short.
    ShortPage0 {
        expected: usize,
        read: usize,
    },
    BadFlags(BadFlags),
    /// The first page says it is another page.
    NotPage0 {
        page_no: u32,
    },
    /// Page 0 failed: nothing else in the file can be trusted.
    Page0Corrupt(Corruption),
    /// `-s` / `-p` beyond the end of the file.
    StartBeyondEnd {
        start: u64,
        pages: u64,
    },
    /// The file ends inside a page.
    PartialPage {
        position: u64,
        read: usize,
        size: usize,
    },
    Read {
        position: u64,
        error: io::Error,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::NotFound(e) => write!(f, "cannot be found ({e})"),
            FileError::IsDirectory => write!(f, "is a directory, not a tablespace file"),
            FileError::Open(e) => write!(f, "cannot be opened: {e}"),
            FileError::TooShort { read } => write!(
                f,
                "Was not able to read the minimum page size of {MIN_PAGE_SIZE} bytes. Bytes read was {read}"
            ),
            FileError::ShortPage0 { expected, read } => write!(
                f,
                "Was not able to read the rest of the page of {} bytes. Bytes read was {}",
                expected - MIN_PAGE_SIZE,
                read.saturating_sub(MIN_PAGE_SIZE)
            ),
            FileError::BadFlags(b) => write!(f, "{b}; not an InnoDB tablespace, or page 0 is damaged"),
            FileError::NotPage0 { page_no } => write!(
                f,
                "First page of the tablespace file should be 0, but encountered page number {page_no}. \
                 If you are checking multi file system tablespace files, please specify the correct \
                 tablespace flags using --tablespace-flags option."
            ),
            FileError::Page0Corrupt(c) => write!(f, "Page 0 checksum mismatch, can't continue. ({c})"),
            FileError::StartBeyondEnd { start, pages } => write!(
                f,
                "Unable to seek to necessary offset (page {start}; the file has {pages} pages)"
            ),
            FileError::PartialPage { read, size, position } => write!(
                f,
                "bytes read ({read}) doesn't match page size ({size}) at page {position}: the file is truncated"
            ),
            FileError::Read { position, error } => write!(f, "read error at page {position}: {error}"),
        }
    }
}

/// How checking a file ended.
#[derive(Debug)]
pub enum Outcome {
    /// The whole range was checked (failures within the allowed count).
    Complete,
    /// `-c`: counted only.
    Counted,
    /// Every page is zero: nothing to check ("All are zero-filled pages.").
    AllZero,
    /// The mismatch count went past the allowed number at this file.
    MismatchLimit,
    Error(FileError),
}

/// Pages by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub valid: u64,
    pub zero: u64,
    pub valid_encrypted: u64,
    pub unverifiable: u64,
    pub skipped_free: u64,
    pub skipped_page_compressed: u64,
    pub skipped_doublewrite: u64,
    pub failed: u64,
    pub warnings: u64,
}

impl Counts {
    pub fn checked(&self) -> u64 {
        self.valid + self.zero + self.valid_encrypted + self.unverifiable + self.failed
    }

    fn add(&mut self, s: Status) {
        match s {
            Status::Valid => self.valid += 1,
            Status::Zero => self.zero += 1,
            Status::SkippedFree => self.skipped_free += 1,
            Status::SkippedPageCompressed => self.skipped_page_compressed += 1,
            Status::Unverifiable => self.unverifiable += 1,
            Status::ValidEncrypted => self.valid_encrypted += 1,
            Status::Failed => self.failed += 1,
            Status::SkippedDoublewrite => self.skipped_doublewrite += 1,
        }
    }
}

/// The result for one file.
#[derive(Debug)]
pub struct FileReport {
    pub path: PathBuf,
    pub file_size: u64,
    pub layout: Option<Layout>,
    pub space_id: Option<u32>,
    pub encrypted: bool,
    /// Whole pages in the file.
    pub pages: u64,
    pub counts: Counts,
    /// Failed pages (page number as checked, corruption), in order.
    pub failures: Vec<(u32, Corruption)>,
    pub warnings: Vec<(u32, scan::Warning)>,
    /// Page numbers of the first and last page scanned after page 0 (which is
    /// always checked first).
    pub range: Option<(u32, u32)>,
    pub summary: Option<Summary>,
    pub outcome: Outcome,
}

impl FileReport {
    fn new(path: &Path) -> FileReport {
        FileReport {
            path: path.to_path_buf(),
            file_size: 0,
            layout: None,
            space_id: None,
            encrypted: false,
            pages: 0,
            counts: Counts::default(),
            failures: Vec::new(),
            warnings: Vec::new(),
            range: None,
            summary: None,
            outcome: Outcome::Complete,
        }
    }
}

/// Streamed to the caller while a file is checked, in page order.
#[derive(Debug)]
pub enum Event<'a> {
    /// The file is open and page 0 decoded.
    Opened(&'a FileReport),
    /// A page: failed or warned, or any page when `every_page` is set.
    Page(&'a PageInfo),
    /// The mismatch count went past the allowed number.
    MismatchLimit { count: u64, allowed: u64 },
}

/// Checks files one after another, counting mismatches across them.
pub struct Checker {
    pub opts: CheckOptions,
    /// Mismatches so far (all files).
    pub mismatches: u64,
}

impl Checker {
    pub fn new(opts: CheckOptions) -> Checker {
        Checker {
            opts,
            mismatches: 0,
        }
    }

    /// Check one file; `on_event` sees failures (and, with `every_page`, all pages)
    /// in page order as they are found.
    pub fn check_file(&mut self, path: &Path, on_event: &mut dyn FnMut(Event)) -> FileReport {
        let mut rep = FileReport::new(path);
        if let Err(e) = self.check_into(path, &mut rep, on_event) {
            rep.outcome = Outcome::Error(e);
        }
        rep
    }

    fn check_into(
        &mut self,
        path: &Path,
        rep: &mut FileReport,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<(), FileError> {
        let meta = std::fs::metadata(path).map_err(FileError::NotFound)?;
        if meta.is_dir() {
            return Err(FileError::IsDirectory);
        }
        let file = File::open(path).map_err(FileError::Open)?;
        rep.file_size = meta.len();

        // Page 0: the first 1024 bytes hold the flags, which give the page size.
        let mut page0 = vec![0u8; MIN_PAGE_SIZE];
        let read = read_at_most(&file, &mut page0, 0)
            .map_err(|error| FileError::Read { position: 0, error })?;
        if read < MIN_PAGE_SIZE {
            return Err(FileError::TooShort { read });
        }
        let page0_no = be32(&page0, fil::OFFSET);
        if page0_no != 0 && self.opts.tablespace_flags.is_none() {
            return Err(FileError::NotPage0 { page_no: page0_no });
        }
        let flags = self
            .opts
            .tablespace_flags
            .unwrap_or_else(|| be32(&page0, crate::format::fsp::FLAGS));
        let layout = match Layout::from_flags(flags) {
            Ok(l) => l,
            Err(bad) if self.opts.tablespace_flags.is_some() => {
                return Err(FileError::BadFlags(bad))
            }
            // A page size innochecksum cannot even read is an error, not a page verdict.
            Err(bad) if !page_size_readable(flags, rep.file_size) => {
                return Err(FileError::BadFlags(bad))
            }
            Err(_) => {
                // Garbage flags mean a damaged page 0: reported as its failure, as
                // innochecksum does when it survives reading such a page.
                let c = Corruption::InvalidFlags { flags };
                let info = PageInfo {
                    position: 0,
                    page_no: 0,
                    stored_page_no: be32(&page0, fil::OFFSET),
                    stored_space_id: be32(&page0, fil::SPACE_ID),
                    page_type: crate::format::be16(&page0, fil::TYPE),
                    status: Status::Failed,
                    corruption: Some(c.clone()),
                    warning: None,
                    lsn_pair: None,
                    free_by_stored_no: false,
                    index: None,
                    undo_state: 0,
                    key_version: 0,
                };
                self.mismatches += 1;
                rep.counts.add(Status::Failed);
                rep.failures.push((0, c.clone()));
                on_event(Event::Page(&info));
                on_event(Event::MismatchLimit {
                    count: self.mismatches,
                    allowed: 0,
                });
                return Err(FileError::Page0Corrupt(c));
            }
        };
        let ps = layout.physical_size;
        page0.resize(ps, 0);
        let read = MIN_PAGE_SIZE
            + read_at_most(&file, &mut page0[MIN_PAGE_SIZE..], MIN_PAGE_SIZE as u64)
                .map_err(|error| FileError::Read { position: 0, error })?;
        if read < ps {
            return Err(FileError::ShortPage0 { expected: ps, read });
        }
        rep.layout = Some(layout);
        rep.pages = rep.file_size / ps as u64;
        let encrypted = page0_is_encrypted(&page0, &layout);
        rep.encrypted = encrypted;
        let page0_space = be32(&page0, fil::SPACE_ID);
        rep.space_id = Some(page0_space);
        on_event(Event::Opened(rep));

        let mut checker = PageChecker::new(layout, page0_space, encrypted, self.opts.policy);
        let verdict = checker.check(&page0, page0_no);
        let xdes = Arc::new(page0.clone());
        let (free_limit, _) = scan::page0_limits(&page0);
        let mut plan = ScanPlan {
            checker,
            first: 1,
            last: None,
            number_offset: 0,
            xdes,
            free_limit,
            details: self.opts.every_page || self.opts.summary,
            warn_zero_in_use: page0_space != 0,
            skip_range: 0..0,
        };
        if page0_space == 0 && self.opts.skip_doublewrite {
            // The doublewrite buffer: the second and third extents.
            let ext = layout.extent_pages() as u64;
            plan.skip_range = ext..3 * ext;
        }
        let status0 = match &verdict {
            Ok(Valid::Checksum) => Status::Valid,
            Ok(Valid::Zero) => Status::Zero,
            Ok(Valid::Encrypted) => Status::ValidEncrypted,
            Ok(Valid::Unverifiable) => Status::Unverifiable,
            Err(_) => Status::Failed,
        };
        let info0 = page_info(
            &plan,
            &page0,
            0,
            page0_no,
            status0,
            verdict.clone().err(),
            None,
            &page0,
        );
        rep.counts.add(status0);
        if let Err(c) = verdict {
            self.mismatches += 1;
            rep.failures.push((page0_no, c.clone()));
            on_event(Event::Page(&info0));
            on_event(Event::MismatchLimit {
                count: self.mismatches,
                allowed: 0,
            });
            return Err(FileError::Page0Corrupt(c));
        }
        if self.opts.every_page {
            on_event(Event::Page(&info0));
        }
        if self.opts.count_only {
            rep.outcome = Outcome::Counted;
            return Ok(());
        }
        let mut summary = self.opts.summary.then(|| {
            let mut s = Summary::new(self.opts.skip_free_in_summary);
            s.add(&info0, layout.logical_size, encrypted);
            s
        });

        // Where the scan starts.
        let start = u64::from(self.opts.start_page);
        if is_all_zero(&page0) {
            // Checking starts at the first non-zero page, numbered as it says.
            let Some((k, first_nonzero)) = find_nonzero_page(&file, ps, rep.file_size)? else {
                rep.outcome = Outcome::AllZero;
                rep.summary = summary;
                return Ok(());
            };
            checker.space_id = be32(&first_nonzero, fil::SPACE_ID);
            plan.checker = checker;
            rep.space_id = Some(checker.space_id);
            if start == 0 {
                plan.first = k;
                plan.number_offset = be32(&first_nonzero, fil::OFFSET).wrapping_sub(k as u32);
            }
        }
        if start > 0 {
            plan.first = start;
            if start * ps as u64 >= rep.file_size {
                return Err(FileError::StartBeyondEnd {
                    start,
                    pages: rep.pages,
                });
            }
        }
        let end = self.opts.end_page;
        if let (Some(e), 0) = (end, plan.number_offset) {
            plan.last = Some(u64::from(e).max(plan.first));
        }

        let allowed = self.opts.allow_mismatches;
        let mut result: Result<(), FileError> = Ok(());
        let mut limit_hit = false;
        let logical = layout.logical_size;
        let every_page = self.opts.every_page;
        let mut last_seen: Option<u32> = None;
        let first_no = (plan.first as u32).wrapping_add(plan.number_offset);
        let mismatches = &mut self.mismatches;
        scan::scan(&file, &plan, &self.opts.scan, |chunk: &ChunkResult| {
            let mut infos = chunk.pages.iter().peekable();
            for (i, &st) in chunk.status.iter().enumerate() {
                let position = chunk.first + i as u64;
                let page_no = (position as u32).wrapping_add(plan.number_offset);
                let info = match infos.peek() {
                    Some(p) if p.position == position => infos.next(),
                    _ => None,
                };
                rep.counts.add(st);
                last_seen = Some(page_no);
                if let Some(p) = info {
                    if let Some(c) = &p.corruption {
                        rep.failures.push((page_no, c.clone()));
                    }
                    if let Some(w) = &p.warning {
                        rep.counts.warnings += 1;
                        rep.warnings.push((page_no, w.clone()));
                    }
                    if every_page || p.corruption.is_some() || p.warning.is_some() {
                        on_event(Event::Page(p));
                    }
                }
                if st == Status::Failed {
                    *mismatches += 1;
                    if *mismatches > allowed {
                        on_event(Event::MismatchLimit {
                            count: *mismatches,
                            allowed,
                        });
                        limit_hit = true;
                        return ControlFlow::Break(());
                    }
                }
                if end.is_some_and(|e| page_no >= e) {
                    return ControlFlow::Break(());
                }
                if let (Some(s), Some(p)) = (summary.as_mut(), info) {
                    s.add(p, logical, encrypted);
                }
            }
            match &chunk.error {
                Some(ScanError::PartialPage {
                    position,
                    read,
                    size,
                }) => {
                    result = Err(FileError::PartialPage {
                        position: *position,
                        read: *read,
                        size: *size,
                    });
                    ControlFlow::Break(())
                }
                Some(ScanError::Io { position, error }) => {
                    result = Err(FileError::Read {
                        position: *position,
                        error: io::Error::new(error.kind(), error.to_string()),
                    });
                    ControlFlow::Break(())
                }
                None => ControlFlow::Continue(()),
            }
        });
        rep.range = last_seen.map(|l| (first_no, l));
        rep.summary = summary;
        if limit_hit {
            rep.outcome = Outcome::MismatchLimit;
        }
        result
    }
}

/// Whether the page size that garbage flags would imply (decoded the way
/// innochecksum decodes any flags) is one it can read page 0 with: 1K..64K and
/// within the file. Otherwise it stops with an error instead of a page verdict.
fn page_size_readable(flags: u32, file_size: u64) -> bool {
    let size = if flags & 0x10 != 0 {
        512u64 << (flags & 0xF)
    } else {
        let logical = match (flags >> 6) & 0xF {
            0 => 16384,
            s @ 3..=7 => 512u64 << s,
            _ => 0,
        };
        match (flags >> 1) & 0xF {
            0 => logical,
            z => 512u64 << z,
        }
    };
    (1024..=65536).contains(&size) && size <= file_size
}

/// Read up to `buf.len()` bytes at `offset`; fewer only at EOF.
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// The first page after page 0 with a non-zero byte (position, bytes).
fn find_nonzero_page(
    file: &File,
    ps: usize,
    file_size: u64,
) -> Result<Option<(u64, Vec<u8>)>, FileError> {
    let per_read = ((4 << 20) / ps).max(1);
    let mut buf = vec![0u8; per_read * ps];
    let mut pos = 1u64;
    while pos * (ps as u64) < file_size {
        let n = read_at_most(file, &mut buf, pos * ps as u64).map_err(|error| FileError::Read {
            position: pos,
            error,
        })?;
        if n == 0 {
            break;
        }
        // A trailing partial page counts as a page here, as in innochecksum.
        for (i, page) in buf[..n].chunks(ps).enumerate() {
            if !is_all_zero(page) {
                let mut p = page.to_vec();
                p.resize(ps, 0);
                return Ok(Some((pos + i as u64, p)));
            }
        }
        pos += n.div_ceil(ps) as u64;
    }
    Ok(None)
}
