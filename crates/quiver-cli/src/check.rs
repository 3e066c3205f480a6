//! `quiver check`: verifies every page of every table of a database folder
//! (quiver_storage::check does the work). Exit status 0 when all is well, 1
//! when anything is damaged; each damage is printed as a MySQL error naming
//! the table, column and page.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use quiver_common::{QuiverError, Result};
use quiver_storage::check::{check_database, table_dirs, CheckOptions, TableReport};
use quiver_storage::leftovers::Leftover;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Output: a summary table, or JSON for machines.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    format: String,
    /// Bytes per read (whole pages), e.g. 4M.
    #[arg(long, value_parser = parse_bytes)]
    chunk: Option<usize>,
    /// One I/O thread reading for all workers (instead of every thread
    /// reading its own units), for comparison.
    #[arg(long)]
    io_thread: bool,
}

fn parse_bytes(s: &str) -> std::result::Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&s[..s.len() - 1], 1 << 10),
        Some('M') => (&s[..s.len() - 1], 1 << 20),
        Some('G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<usize>()
        .map(|n| n * mult)
        .map_err(|e| format!("{s}: {e}"))
}

fn total_bytes(db: &std::path::Path) -> u64 {
    let Ok(dirs) = table_dirs(db) else { return 0 };
    dirs.iter()
        .filter_map(|d| {
            let meta = quiver_storage::table_file::read_meta(d).ok()?;
            let path = quiver_storage::table_file::data_path(d, &meta);
            std::fs::metadata(path).ok().map(|m| m.len())
        })
        .sum()
}

pub fn run(args: CheckArgs, db: Option<PathBuf>, threads: Option<usize>) -> Result<ExitCode> {
    let db = db.ok_or_else(|| {
        QuiverError::new(
            1046,
            "3D000",
            "No database selected: quiver check needs --db DIR".to_string(),
        )
    })?;
    if !db.is_dir() {
        return Err(QuiverError::new(
            1049,
            "42000",
            format!("Unknown database '{}'", db.display()),
        ));
    }
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut options = CheckOptions::with_threads(threads);
    if let Some(c) = args.chunk {
        options.chunk_bytes = c.max(1);
    }
    options.io_thread = args.io_thread;
    let bar = if std::io::stderr().is_terminal() {
        let bar =
            ProgressBar::with_draw_target(Some(total_bytes(&db)), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "checking [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let start = Instant::now();
    let reports = check_database(&db, options, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let damaged: usize = reports.iter().map(|r| r.damaged.len()).sum();
    for r in &reports {
        for d in &r.damaged {
            eprintln!("{}", d.error);
        }
    }
    // Not damage: files of killed writes, which the next open of the folder
    // (by a process that may write it) removes.
    let leftovers = quiver_storage::leftovers::leftovers(&db);
    for l in &leftovers {
        eprintln!(
            "leftover of a killed write: {} ({} bytes)",
            l.path.display(),
            l.bytes
        );
    }
    match args.format.as_str() {
        "json" => println!("{}", json(&reports, &leftovers, seconds)),
        _ => print!("{}", table(&reports, &leftovers, seconds)),
    }
    Ok(if damaged == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn table(reports: &[TableReport], leftovers: &[Leftover], seconds: f64) -> String {
    let rows: Vec<[String; 4]> = reports
        .iter()
        .map(|r| {
            [
                r.table.clone(),
                r.pages.to_string(),
                r.bytes.to_string(),
                r.damaged.len().to_string(),
            ]
        })
        .collect();
    let head = ["table", "pages", "bytes", "damaged pages"];
    let mut width = head.map(|h| h.len());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: [&str; 4]| {
        let mut s = String::from("|");
        for (i, c) in cells.iter().enumerate() {
            if i == 0 {
                s += &format!(" {c:<w$} |", w = width[i]);
            } else {
                s += &format!(" {c:>w$} |", w = width[i]);
            }
        }
        s + "\n"
    };
    let rule = {
        let mut s = String::from("+");
        for w in width {
            s += &"-".repeat(w + 2);
            s += "+";
        }
        s + "\n"
    };
    let mut out = rule.clone();
    out += &line(head);
    out += &rule;
    for r in &rows {
        out += &line([&r[0], &r[1], &r[2], &r[3]]);
    }
    out += &rule;
    let bytes: u64 = reports.iter().map(|r| r.bytes).sum();
    let pages: u64 = reports.iter().map(|r| r.pages).sum();
    let damaged: usize = reports.iter().map(|r| r.damaged.len()).sum();
    out += &format!(
        "{} tables, {pages} pages, {bytes} bytes checked in {seconds:.3} s: {}\n",
        reports.len(),
        if damaged == 0 {
            "no damage".to_string()
        } else {
            format!("{damaged} damaged")
        }
    );
    if !leftovers.is_empty() {
        out += &format!(
            "{} leftovers of killed writes, {} bytes (removed when the folder is next opened)\n",
            leftovers.len(),
            leftovers.iter().map(|l| l.bytes).sum::<u64>()
        );
    }
    out
}

fn json(reports: &[TableReport], leftovers: &[Leftover], seconds: f64) -> String {
    let tables: Vec<String> = reports
        .iter()
        .map(|r| {
            let damage: Vec<String> = r
                .damaged
                .iter()
                .map(|d| {
                    format!(
                        "{{\"column\":{},\"page\":{},\"code\":{},\"message\":{}}}",
                        d.column
                            .as_deref()
                            .map_or("null".into(), quiver_engine::format::json_string),
                        d.page.map_or("null".into(), |p| p.to_string()),
                        d.error.code,
                        quiver_engine::format::json_string(&d.error.to_string())
                    )
                })
                .collect();
            format!(
                "{{\"table\":{},\"pages\":{},\"bytes\":{},\"damaged_pages\":{},\"damage\":[{}]}}",
                quiver_engine::format::json_string(&r.table),
                r.pages,
                r.bytes,
                r.damaged.len(),
                damage.join(",")
            )
        })
        .collect();
    let ok = reports.iter().all(|r| r.damaged.is_empty());
    let leftovers: Vec<String> = leftovers
        .iter()
        .map(|l| {
            format!(
                "{{\"path\":{},\"bytes\":{}}}",
                quiver_engine::format::json_string(&l.path.display().to_string()),
                l.bytes
            )
        })
        .collect();
    format!(
        "{{\"ok\":{ok},\"seconds\":{seconds:.6},\"tables\":[{}],\"leftovers\":[{}]}}",
        tables.join(","),
        leftovers.join(",")
    )
}
