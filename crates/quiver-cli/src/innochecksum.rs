//! `quiver innochecksum`: page checksum verification of InnoDB / MariaDB
//! tablespaces, a faster drop-in for MariaDB's `innochecksum` (same options where
//! they make sense, same verdicts, same exit status: 0 fine, 1 damage or error).

use quiver_engine::format::json_string;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use quiver_common::Result;
use quiver_innodb::check::{Counts, Outcome};
use quiver_innodb::format::page_type;
use quiver_innodb::scan::{PageInfo, Status};
use quiver_innodb::summary::index_data_bytes;
use quiver_innodb::{CheckOptions, Checker, Event, FileReport, Policy, ScanConfig};

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 when every checked page is valid (or the mismatches are \
within -a), 1 on damage past -a or an error. Warnings (e.g. an all-zero page the tablespace \
says is in use) do not change it."
)]
pub struct InnochecksumArgs {
    /// Tablespace files (.ibd, ibdata*).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print the number of pages in each file and stop (page 0 is still verified).
    #[arg(short = 'c', long = "count")]
    count: bool,
    /// Start on this page number (0 based).
    #[arg(
        short = 's',
        long = "start-page",
        alias = "start_page",
        value_name = "PAGE"
    )]
    start_page: Option<u32>,
    /// End at this page number (0 based).
    #[arg(
        short = 'e',
        long = "end-page",
        alias = "end_page",
        value_name = "PAGE"
    )]
    end_page: Option<u32>,
    /// Check only this page (0 based; as in MariaDB, -p 0 also checks page 1).
    #[arg(short = 'p', long = "page", value_name = "PAGE")]
    page: Option<u32>,
    /// Mismatches tolerated before stopping (counted across all files).
    #[arg(
        short = 'a',
        long = "allow-mismatches",
        value_name = "N",
        default_value_t = 0
    )]
    allow_mismatches: u64,
    /// Print a count of each page type per file (innochecksum's table).
    #[arg(short = 'S', long = "page-type-summary")]
    page_type_summary: bool,
    /// With -S: examine leaf index pages (the leaf statistics table).
    #[arg(short = 'f', long = "leaf")]
    leaf: bool,
    /// With -f: leaf page count if this many consecutive leaf pages were merged.
    #[arg(short = 'm', long = "merge", value_name = "N", default_value_t = 0)]
    merge: u64,
    /// Print per-page details (page numbers; index pages with -S).
    #[arg(short = 'i', long = "per-page-details")]
    per_page_details: bool,
    /// Write a page type dump of every page to this file.
    #[arg(short = 'D', long = "page-type-dump", value_name = "FILE")]
    page_type_dump: Option<PathBuf>,
    /// Leave pages the tablespace marks free out of the summary and dump.
    #[arg(short = 'r', long = "skip-freed-pages")]
    skip_freed_pages: bool,
    /// Write a log of every page's checks to this file.
    #[arg(short = 'l', long = "log", value_name = "FILE")]
    log: Option<PathBuf>,
    /// Verbose: a summary line per file, with what was verified and skipped.
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// Checksums accepted on pre-full_crc32 pages: crc32 (default, as MariaDB
    /// 10.11's innochecksum), innodb, none, or any (as the MariaDB server reads).
    #[arg(
        short = 'C',
        long = "strict-check",
        value_name = "ALGORITHM",
        default_value = "crc32"
    )]
    strict_check: String,
    /// Tablespace flags to use instead of page 0's (e.g. for ibdata2).
    #[arg(long = "tablespace-flags", value_name = "FLAGS")]
    tablespace_flags: Option<String>,
    /// Output: text (innochecksum's lines plus reasons) or json.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
    /// Ignore checksums (MariaDB requires --write with it; not supported).
    #[arg(short = 'n', long = "no-check", hide = true)]
    no_check: bool,
    /// Rewrite checksums (not supported: Quiver only reads tablespaces).
    #[arg(short = 'w', long = "write", hide = true)]
    write: bool,
    /// Bytes per read in KiB (tuning).
    #[arg(long = "read-size-kib", hide = true)]
    read_size_kib: Option<usize>,
    /// Reader threads (tuning).
    #[arg(long = "readers", hide = true)]
    readers: Option<usize>,
    /// Readers verify what they read themselves: no hand-over to workers (tuning).
    #[arg(long = "inline", hide = true)]
    inline: Option<bool>,
    /// Buffers in flight (tuning).
    #[arg(long = "buffers", hide = true)]
    buffers: Option<usize>,
}

fn parse_flags(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else {
        // 4294967295 is MariaDB's "read from page 0".
        s.parse::<u64>().ok().and_then(|v| u32::try_from(v).ok())
    }
}

fn fail_exit(msg: &str) -> Result<ExitCode> {
    eprintln!("Error: {msg}");
    Ok(ExitCode::from(1))
}

pub fn run(args: InnochecksumArgs, threads: Option<usize>) -> Result<ExitCode> {
    if args.write {
        return fail_exit("--write is not supported: quiver innochecksum only reads tablespaces.");
    }
    if args.no_check {
        return fail_exit("--no-check must be associated with --write option.");
    }
    let Some(policy) = Policy::parse(&args.strict_check) else {
        return fail_exit(&format!(
            "unknown --strict-check value '{}': use crc32, innodb, none or any",
            args.strict_check
        ));
    };
    let tablespace_flags = match args.tablespace_flags.as_deref().map(parse_flags) {
        None => None,
        Some(Some(0xFFFF_FFFF)) => None,
        Some(Some(f)) => Some(f),
        Some(None) => return fail_exit("--tablespace-flags takes a number, e.g. 21 or 0x15"),
    };
    let json = args.format == "json";
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut scan = ScanConfig::with_threads(threads);
    if let Some(k) = args.read_size_kib {
        scan.chunk_bytes = k.clamp(4, 1 << 20) << 10;
    }
    if let Some(r) = args.readers {
        scan.readers = r.clamp(1, 256);
    }
    if let Some(i) = args.inline {
        scan.inline = i;
    }
    if let Some(b) = args.buffers {
        scan.buffers = b.clamp(2, 1024);
    }
    let (start_page, end_page) = match args.page {
        Some(p) => (p, Some(p)),
        None => (args.start_page.unwrap_or(0), args.end_page),
    };
    let opts = CheckOptions {
        start_page,
        end_page,
        allow_mismatches: args.allow_mismatches,
        policy,
        tablespace_flags,
        count_only: args.count,
        summary: args.page_type_summary || args.page_type_dump.is_some(),
        skip_free_in_summary: args.skip_freed_pages,
        skip_doublewrite: args.page_type_summary || args.page_type_dump.is_some(),
        every_page: args.log.is_some() || args.per_page_details || args.page_type_dump.is_some(),
        scan,
    };
    let mut log = match &args.log {
        Some(p) => match File::create(p) {
            Ok(f) => {
                let mut w = BufWriter::new(f);
                let _ = writeln!(w, "InnoDB File Checksum Utility.");
                Some(w)
            }
            Err(e) => return fail_exit(&format!("Failed to create file: {}: {e}", p.display())),
        },
        None => None,
    };
    let mut dump = match &args.page_type_dump {
        Some(p) => match File::create(p) {
            Ok(f) => Some(BufWriter::new(f)),
            Err(e) => return fail_exit(&format!("Failed to create file: {}: {e}", p.display())),
        },
        None => None,
    };

    let mut checker = Checker::new(opts);
    let mut reports = Vec::new();
    let mut failed = false;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in &args.files {
        let name = path.display().to_string();
        if name == "-" {
            // innochecksum reads a tablespace from stdin for "-"; the parallel
            // reader needs a file it can read at any offset.
            eprintln!(
                "Error: reading a tablespace from standard input is not supported; give a file"
            );
            failed = true;
            continue;
        }
        if let Some(l) = log.as_mut() {
            let _ = writeln!(l, "Filename = {name}");
        }
        if let Some(d) = dump.as_mut() {
            let _ = write!(
                d,
                "\n\nFilename::{name}\n{eq}\n\tPAGE_NO\t\t|\t\tPAGE_TYPE\t\t\t|\tEXTRA INFO\n{eq}\n",
                eq = "=".repeat(78)
            );
        }
        let mut sink = Sink {
            json,
            skip_free: args.skip_freed_pages,
            per_page: args.per_page_details,
            summary_on: args.page_type_summary || args.page_type_dump.is_some(),
            log: log.as_mut(),
            dump: dump.as_mut(),
            out: &mut out,
            logical: 16384,
            encrypted: false,
            space_id: 0,
            end_page,
            start_page,
            one_page: args.page.is_some(),
            pages: 0,
            file_size: 0,
            name: &name,
            log_verbose: args.verbose,
        };
        let rep = checker.check_file(path, &mut |ev| sink.event(ev));
        let stop = matches!(rep.outcome, Outcome::MismatchLimit);
        match &rep.outcome {
            Outcome::Error(_) | Outcome::MismatchLimit => failed = true,
            Outcome::Complete | Outcome::Counted | Outcome::AllZero => {}
        }
        if !json {
            print_text(&rep, &args, &mut out);
        }
        reports.push(rep);
        if stop {
            break;
        }
    }
    if let Some(mut l) = log {
        let _ = l.flush();
    }
    if let Some(mut d) = dump {
        let _ = d.flush();
    }
    let code = u8::from(failed);
    if json {
        let _ = writeln!(
            out,
            "{}",
            json_report(&reports, checker.mismatches, args.allow_mismatches, code)
        );
    }
    let _ = out.flush();
    Ok(ExitCode::from(code))
}

/// Streams per-page output (stderr lines, log, dump, `-i`) while a file is checked.
struct Sink<'a, W: Write> {
    json: bool,
    per_page: bool,
    skip_free: bool,
    summary_on: bool,
    log: Option<&'a mut BufWriter<File>>,
    dump: Option<&'a mut BufWriter<File>>,
    out: &'a mut W,
    logical: usize,
    encrypted: bool,
    space_id: u32,
    end_page: Option<u32>,
    start_page: u32,
    one_page: bool,
    pages: u64,
    file_size: u64,
    name: &'a str,
    log_verbose: bool,
}

impl<W: Write> Sink<'_, W> {
    fn event(&mut self, ev: Event) {
        match ev {
            Event::Opened(rep) => {
                if let Some(l) = rep.layout {
                    self.logical = l.logical_size;
                }
                self.encrypted = rep.encrypted;
                self.space_id = rep.space_id.unwrap_or(0);
                self.pages = rep.pages;
                self.file_size = rep.file_size;
                if let Some(log) = self.log.as_mut() {
                    if self.log_verbose {
                        let _ = writeln!(
                            log,
                            "file {} = {} bytes ({} pages)",
                            self.name, self.file_size, self.pages
                        );
                        if self.one_page {
                            let _ =
                                writeln!(log, "Innochecksum: checking page::{};", self.start_page);
                        }
                    } else {
                        let last = self
                            .end_page
                            .map_or(self.pages.saturating_sub(1), u64::from);
                        let _ = writeln!(
                            log,
                            "Innochecksum: checking pages in range::{} to {}",
                            self.start_page, last
                        );
                    }
                }
            }
            Event::Page(p) => self.page(p),
            Event::MismatchLimit { count, allowed } => {
                if !self.json {
                    eprintln!(
                        "Exceeded the maximum allowed checksum mismatch count::{count} current::{allowed}"
                    );
                }
            }
        }
    }

    fn page(&mut self, p: &PageInfo) {
        if let Some(log) = self.log.as_mut() {
            if let Some((a, b)) = p.lsn_pair {
                let _ = writeln!(
                    log,
                    "space::{} page::{}; log sequence number:first = {a}; second = {b}",
                    p.stored_space_id, p.page_no
                );
                if a != b {
                    let _ = writeln!(
                        log,
                        "Fail; space::{} page::{} invalid (fails log sequence number check)",
                        p.stored_space_id, p.page_no
                    );
                }
            }
            match p.status {
                Status::Failed => {
                    if let Some(c) = &p.corruption {
                        let _ = writeln!(log, "Fail: page::{} invalid: {c}", p.page_no);
                    }
                }
                Status::SkippedFree => {
                    let _ = writeln!(log, "page::{} is free: not checked", p.page_no);
                }
                Status::SkippedPageCompressed => {
                    let _ = writeln!(
                        log,
                        "page::{} is page_compressed: no checksum to check",
                        p.page_no
                    );
                }
                _ => {}
            }
            if let Some(w) = &p.warning {
                let _ = writeln!(log, "Warning: page::{} {w}", p.page_no);
            }
        }
        if !self.json {
            if let Some(c) = &p.corruption {
                eprintln!("Fail: page::{} invalid: {c}", p.page_no);
            }
            if let Some(w) = &p.warning {
                eprintln!("Warning: page::{} {w}", p.page_no);
            }
        }
        // -i and -D describe the pages innochecksum parses: not the page the
        // range ends on (it stops before), except page 0.
        let parsed = p.position == 0 || self.end_page.is_none_or(|e| p.page_no < e);
        if p.status == Status::Failed && self.end_page.is_some_and(|e| p.page_no >= e) {
            return;
        }
        // -r: free pages and the doublewrite buffer are not parsed at all.
        let left_out =
            self.skip_free && (p.free_by_stored_no || p.status == Status::SkippedDoublewrite);
        if self.per_page && !self.json && parsed {
            let _ = write!(self.out, "page {} ", p.page_no);
            if self.summary_on && !self.encrypted && !left_out {
                if let Some(ix) = &p.index {
                    let _ = writeln!(
                        self.out,
                        "index id={} page {} leaf {} n_recs {} data_bytes {}",
                        ix.index_id,
                        p.stored_page_no,
                        i32::from(ix.level == 0),
                        ix.n_recs,
                        index_data_bytes(ix)
                    );
                }
            }
        }
        if parsed && !left_out {
            if let Some(d) = self.dump.as_mut() {
                let _ = dump_line(d, p, self.encrypted);
            }
        }
    }
}

/// One line of `-D`, in innochecksum's layout.
fn dump_line(d: &mut impl Write, p: &PageInfo, encrypted: bool) -> std::io::Result<()> {
    let n = p.page_no;
    // innochecksum labels every page it did not check this way, page_compressed ones too.
    let extra = match p.status {
        Status::SkippedDoublewrite | Status::SkippedPageCompressed => "Double_write_buffer",
        _ => "-",
    };
    match p.page_type {
        page_type::INDEX => {
            if let (Some(ix), false) = (&p.index, encrypted) {
                writeln!(
                    d,
                    "#::{n}\t\t|\t\tIndex page\t\t\t|\tindex id={}, page level={}, No. of records={}, garbage={}, {extra}",
                    ix.index_id, ix.level, ix.n_recs, ix.garbage
                )
            } else {
                writeln!(
                    d,
                    "#::{n}\t\t|\t\tEncrypted Index page\t\t\t|\tkey_version {},{extra}",
                    p.key_version
                )
            }
        }
        page_type::UNDO_LOG => {
            let state = match p.undo_state {
                1 => ", Undo log of an active transaction",
                2 => ", Page is cached for quick reuse",
                4 => ", Will be freed in purge when all undo data in it is removed",
                5 => ", Undo log of an prepared transaction",
                _ => "",
            };
            writeln!(d, "#::{n}\t\t|\t\tUndo log page\t\t\t|{state}, {extra}")
        }
        page_type::INODE => writeln!(d, "#::{n}\t\t|\t\tInode page\t\t\t|\t{extra}"),
        page_type::IBUF_FREE_LIST => {
            writeln!(d, "#::{n}\t\t|\t\tInsert buffer free list page\t|\t{extra}")
        }
        page_type::ALLOCATED => writeln!(d, "#::{n}\t\t|\t\tFreshly allocated page\t\t|\t{extra}"),
        page_type::IBUF_BITMAP => writeln!(d, "#::{n}\t\t|\t\tInsert Buffer Bitmap\t\t|\t{extra}"),
        page_type::SYS => writeln!(d, "#::{n}\t\t|\t\tSystem page\t\t\t|\t{extra}"),
        page_type::TRX_SYS => writeln!(d, "#::{n}\t\t|\t\tTransaction system page\t\t|\t{extra}"),
        page_type::FSP_HDR => writeln!(d, "#::{n}\t\t|\t\tFile Space Header\t\t|\t{extra}"),
        page_type::XDES => writeln!(d, "#::{n}\t\t|\t\tExtent descriptor page\t\t|\t{extra}"),
        page_type::BLOB => writeln!(d, "#::{n}\t\t|\t\tBLOB page\t\t\t|\t{extra}"),
        page_type::ZBLOB => writeln!(d, "#::{n}\t\t|\t\tCompressed BLOB page\t\t|\t{extra}"),
        page_type::ZBLOB2 => writeln!(
            d,
            "#::{n}\t\t|\t\tSubsequent Compressed BLOB page\t|\t{extra}"
        ),
        page_type::PAGE_COMPRESSED => {
            writeln!(d, "#::{n}\t\t|\t\tPage compressed page\t|\t{extra}")
        }
        page_type::PAGE_COMPRESSED_ENCRYPTED => {
            writeln!(
                d,
                "#::{n}\t\t|\t\tPage compressed encrypted page\t|\t{extra}"
            )
        }
        _ => Ok(()),
    }
}

fn print_text(rep: &FileReport, args: &InnochecksumArgs, out: &mut impl Write) {
    let name = rep.path.display();
    match &rep.outcome {
        Outcome::Counted => {
            let _ = writeln!(out, "Number of pages:{}", rep.pages);
        }
        Outcome::AllZero => eprintln!("All are zero-filled pages."),
        Outcome::Error(e) => {
            use quiver_innodb::FileError;
            match e {
                FileError::NotFound(_) => eprintln!("Error: {name} cannot be found"),
                FileError::IsDirectory | FileError::Open(_) => eprintln!("Error: {name} {e}"),
                _ => eprintln!("Error: {e} ({name})"),
            }
        }
        Outcome::Complete | Outcome::MismatchLimit => {}
    }
    if let (Some(s), true, Outcome::Complete) = (&rep.summary, args.page_type_summary, &rep.outcome)
    {
        let _ = write!(out, "\nFile::{name}");
        let _ = write!(out, "{}", s.render(args.leaf, args.verbose, args.merge));
    }
    if args.verbose {
        let _ = writeln!(out, "{}", one_line(rep));
    }
}

/// "file: 23 pages (full_crc32, 16K pages; space 5): 19 verified, ..."
fn one_line(rep: &FileReport) -> String {
    let mut s = format!("{}: ", rep.path.display());
    let Some(l) = rep.layout else {
        s += "not checked";
        return s;
    };
    let _ = write!(
        s,
        "{} pages of {} bytes ({}{}; space {})",
        rep.pages,
        l.physical_size,
        l.describe(),
        if rep.encrypted { ", encrypted" } else { "" },
        rep.space_id.unwrap_or(0)
    );
    let c: &Counts = &rep.counts;
    let _ = write!(
        s,
        ": {} checked ({} valid, {} all-zero",
        c.checked(),
        c.valid + c.valid_encrypted,
        c.zero
    );
    if c.unverifiable > 0 {
        let _ = write!(s, ", {} without a checksum", c.unverifiable);
    }
    let _ = write!(s, ", {} failed)", c.failed);
    if c.skipped_free > 0 {
        let _ = write!(s, ", {} free pages not checked", c.skipped_free);
    }
    if c.skipped_page_compressed > 0 {
        let _ = write!(
            s,
            ", {} page_compressed pages not checked (no checksum in this format)",
            c.skipped_page_compressed
        );
    }
    if c.skipped_doublewrite > 0 {
        let _ = write!(
            s,
            ", {} doublewrite buffer pages not checked",
            c.skipped_doublewrite
        );
    }
    if c.warnings > 0 {
        let _ = write!(s, ", {} warnings", c.warnings);
    }
    match rep.range {
        Some((a, b)) if a <= 1 => {
            let _ = write!(s, "; pages 0..={b}");
        }
        Some((a, b)) => {
            let _ = write!(s, "; page 0 and pages {a}..={b}");
        }
        None => s += "; page 0",
    }
    s
}

fn json_report(reports: &[FileReport], mismatches: u64, allowed: u64, code: u8) -> String {
    let mut s = String::from("{\"files\":[");
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        json_file(&mut s, r);
    }
    let _ = write!(
        s,
        "],\"mismatches\":{mismatches},\"allowed_mismatches\":{allowed},\"exit_code\":{code}}}"
    );
    s
}

fn json_file(s: &mut String, r: &FileReport) {
    let _ = write!(
        s,
        "{{\"file\":{},\"bytes\":{},\"pages\":{}",
        json_string(&r.path.display().to_string()),
        r.file_size,
        r.pages
    );
    if let Some(l) = r.layout {
        let _ = write!(
            s,
            ",\"flags\":{},\"format\":{},\"page_size\":{},\"physical_page_size\":{},\"row_compressed\":{},\"page_compression\":{},\"encrypted\":{}",
            l.flags,
            json_string(if l.full_crc32() { "full_crc32" } else { "legacy" }),
            l.logical_size,
            l.physical_size,
            l.row_compressed,
            json_string(&l.page_compression.to_string()),
            r.encrypted
        );
    }
    if let Some(id) = r.space_id {
        let _ = write!(s, ",\"space_id\":{id}");
    }
    if let Some((a, b)) = r.range {
        let _ = write!(s, ",\"first_page\":{a},\"last_page\":{b}");
    }
    let (outcome, error) = match &r.outcome {
        Outcome::Complete => ("complete", None),
        Outcome::Counted => ("counted", None),
        Outcome::AllZero => ("all_zero", None),
        Outcome::MismatchLimit => ("mismatch_limit", None),
        Outcome::Error(e) => ("error", Some(e.to_string())),
    };
    let _ = write!(s, ",\"outcome\":{}", json_string(outcome));
    if let Some(e) = error {
        let _ = write!(s, ",\"error\":{}", json_string(&e));
    }
    let c = &r.counts;
    let _ = write!(
        s,
        ",\"counts\":{{\"checked\":{},\"valid\":{},\"valid_encrypted\":{},\"all_zero\":{},\"no_checksum\":{},\"failed\":{},\"skipped_free\":{},\"skipped_page_compressed\":{},\"skipped_doublewrite\":{},\"warnings\":{}}}",
        c.checked(),
        c.valid,
        c.valid_encrypted,
        c.zero,
        c.unverifiable,
        c.failed,
        c.skipped_free,
        c.skipped_page_compressed,
        c.skipped_doublewrite,
        c.warnings
    );
    s.push_str(",\"failures\":[");
    for (i, (page, c)) in r.failures.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"page\":{page},\"reason\":{}}}",
            json_string(&c.to_string())
        );
    }
    s.push_str("],\"warnings\":[");
    for (i, (page, w)) in r.warnings.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"page\":{page},\"warning\":{}}}",
            json_string(&w.to_string())
        );
    }
    s.push(']');
    if let Some(sum) = &r.summary {
        s.push_str(",\"page_types\":{");
        for (i, (n, name)) in sum
            .type_counts
            .iter()
            .zip(quiver_innodb::summary::TYPE_ROWS)
            .enumerate()
        {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{}:{n}", json_string(name));
        }
        s.push('}');
    }
    s.push('}');
}
