//! `quiver tpch`: generate the TPC-H tables and run the 22 queries.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use quiver_common::{QuiverError, Result};
use quiver_engine::{EngineConfig, OutputFormat, Session};

#[derive(Args)]
pub struct TpchArgs {
    #[command(subcommand)]
    command: Option<TpchCommand>,
    /// Scale factor, for generation and run together.
    #[arg(long, default_value_t = 1.0)]
    sf: f64,
    /// Timed runs per query (after one warm-up run).
    #[arg(long, default_value_t = 3, value_parser = parse_runs)]
    runs: usize,
    #[arg(long, default_value = "table")]
    format: OutputFormat,
}

#[derive(Subcommand)]
enum TpchCommand {
    /// Generate the eight tables into --db.
    Gen {
        #[arg(long, default_value_t = 1.0)]
        sf: f64,
    },
    /// Run the 22 queries against --db and print one row per query.
    Run {
        /// Timed runs per query (after one warm-up run).
        #[arg(long, default_value_t = 3, value_parser = parse_runs)]
        runs: usize,
        #[arg(long, default_value = "table")]
        format: OutputFormat,
        /// Which queries, e.g. `1,3,5-7` (default: all 22).
        #[arg(long)]
        queries: Option<String>,
    },
}

/// `--runs`: at least 1, since the median of no timed runs means nothing.
fn parse_runs(s: &str) -> std::result::Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 (timed runs after one warm-up)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a number of runs")),
    }
}

pub fn run(args: TpchArgs, db: Option<PathBuf>, cfg: EngineConfig) -> Result<()> {
    match args.command {
        Some(TpchCommand::Gen { sf }) => {
            let dir = db.ok_or_else(|| QuiverError::syntax_msg("tpch gen needs --db DIR"))?;
            generate(&dir, sf, &cfg)
        }
        Some(TpchCommand::Run {
            runs,
            format,
            queries,
        }) => {
            let dir = db.ok_or_else(|| QuiverError::syntax_msg("tpch run needs --db DIR"))?;
            let list = parse_queries(queries.as_deref())?;
            run_queries(&dir, runs, format, &list, cfg)
        }
        None => {
            let dir =
                db.unwrap_or_else(|| PathBuf::from(format!("quiver-data/tpch-sf{}", args.sf)));
            let marker = dir.join("tpch.sf");
            let have = std::fs::read_to_string(&marker)
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok());
            if have != Some(args.sf) {
                generate(&dir, args.sf, &cfg)?;
            } else {
                eprintln!("Using TPC-H SF{} data in {}", args.sf, dir.display());
            }
            run_queries(
                &dir,
                args.runs,
                args.format,
                &(1..=22).collect::<Vec<_>>(),
                cfg,
            )
        }
    }
}

fn parse_queries(spec: Option<&str>) -> Result<Vec<usize>> {
    let Some(spec) = spec else {
        return Ok((1..=22).collect());
    };
    let bad = || QuiverError::syntax_msg(format!("invalid query list '{spec}' (example: 1,3,5-7)"));
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let part = part.trim_start_matches(['q', 'Q']);
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (
                    a.parse().map_err(|_| bad())?,
                    b.trim_start_matches(['q', 'Q'])
                        .parse()
                        .map_err(|_| bad())?,
                );
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    if out.iter().any(|q| !(1..=22).contains(q)) {
        return Err(bad());
    }
    Ok(out)
}

fn generate(dir: &std::path::Path, sf: f64, cfg: &EngineConfig) -> Result<()> {
    let db = quiver_engine::Database::open(dir)?;
    let multi = MultiProgress::new();
    let style = ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len} rows")
        .expect("valid template")
        .progress_chars("=> ");
    let bars: Vec<(String, ProgressBar)> = quiver_tpch::TABLES
        .iter()
        .map(|t| {
            let b = multi.add(ProgressBar::new(quiver_tpch::table_rows(t, sf)));
            b.set_style(style.clone());
            b.set_message(t.to_string());
            (t.to_string(), b)
        })
        .collect();
    let start = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| QuiverError::internal(e.to_string()))?;
    pool.install(|| {
        quiver_tpch::generate(&db, sf, &|table, rows| {
            if let Some((_, b)) = bars.iter().find(|(t, _)| t == table) {
                b.set_position(rows);
            }
        })
    })?;
    for (_, b) in &bars {
        b.finish();
    }
    std::fs::write(dir.join("tpch.sf"), format!("{sf}\n"))
        .map_err(|e| QuiverError::io("writing tpch.sf", e))?;
    eprintln!(
        "Generated TPC-H SF{sf} in {} in {:.1} s",
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn run_queries(
    dir: &std::path::Path,
    runs: usize,
    format: OutputFormat,
    queries: &[usize],
    cfg: EngineConfig,
) -> Result<()> {
    if !dir.join("quiver.db").exists() {
        return Err(QuiverError::new(
            1049,
            "42000",
            format!(
                "Unknown database '{}': run `quiver tpch gen --db {}` first",
                dir.display(),
                dir.display()
            ),
        ));
    }
    let db = quiver_engine::Database::open(dir)?;
    let threads = cfg.threads;
    let session = Session::new(db, cfg);
    // Load the tables before timing anything: runs are hot.
    for t in quiver_tpch::TABLES {
        if let Some(t) = session.database().table(t) {
            t.data()?;
        }
    }
    let mut rows_out: Vec<(String, usize, f64)> = Vec::new();
    let mut total = 0.0;
    for &q in queries {
        let sql = quiver_tpch::query(q).ok_or_else(|| QuiverError::internal("query number"))?;
        let mut times = Vec::with_capacity(runs);
        let mut rows = 0;
        for i in 0..=runs {
            let t = Instant::now();
            let r = session.query(sql).map_err(|e| {
                QuiverError::new(e.code, e.sqlstate, format!("q{q}: {}", e.message))
            })?;
            let el = t.elapsed().as_secs_f64();
            rows = r.num_rows();
            if i > 0 {
                times.push(el);
            }
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        total += median;
        if format == OutputFormat::Table {
            eprintln!("q{q:<2} {rows:>6} rows  {median:>8.4} s");
        }
        rows_out.push((format!("q{q}"), rows, median));
    }
    // Written whole, and a reader that went away (`| head`) ends it quietly.
    let mut out = String::new();
    match format {
        OutputFormat::Csv => {
            writeln!(out, "query,rows,median_s").ok();
            for (q, r, m) in &rows_out {
                writeln!(out, "{q},{r},{m:.6}").ok();
            }
        }
        OutputFormat::Json => {
            let items: Vec<String> = rows_out
                .iter()
                .map(|(q, r, m)| {
                    format!("  {{\"query\": \"{q}\", \"rows\": {r}, \"median_s\": {m:.6}}}")
                })
                .collect();
            writeln!(out, "[\n{}\n]", items.join(",\n")).ok();
        }
        OutputFormat::Table => {
            writeln!(out, "+-------+--------+-----------+").ok();
            writeln!(out, "| query | rows   | median_s  |").ok();
            writeln!(out, "+-------+--------+-----------+").ok();
            for (q, r, m) in &rows_out {
                writeln!(out, "| {q:<5} | {r:>6} | {m:>9.4} |").ok();
            }
            writeln!(out, "+-------+--------+-----------+").ok();
            writeln!(
                out,
                "total {total:.4} s over {} queries, {threads} threads, median of {runs} hot runs",
                rows_out.len()
            )
            .ok();
        }
    }
    if let Err(e) = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(QuiverError::internal(format!(
                "cannot write the results: {e}"
            )));
        }
    }
    Ok(())
}
