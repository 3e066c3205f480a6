//! `quiver-fuzz`: runs seeded fuzz cases for a while and writes each
//! finding, shrunk, as a SQL script into a folder.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;

#[derive(Parser)]
#[command(
    about = "Random queries over random tables, judged by TLP, NoREC, thread counts and no-panic"
)]
struct Args {
    /// How long to run.
    #[arg(long, default_value_t = 1.0)]
    minutes: f64,
    /// The first case's seed; case i uses seed + i.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where findings go, one SQL script each.
    #[arg(long, default_value = "fuzz-findings")]
    out: PathBuf,
}

fn main() {
    let args = Args::parse();
    // A caught panic is a finding, reported below; its default message
    // would only interleave with the progress line.
    std::panic::set_hook(Box::new(|_| {}));
    let deadline = Instant::now() + Duration::from_secs_f64(args.minutes * 60.0);
    let mut report = quiver_fuzz::report();
    let mut seed = args.seed;
    let mut written = 0;
    while Instant::now() < deadline {
        quiver_fuzz::run_case(seed, &mut report);
        for f in &report.findings[written..] {
            std::fs::create_dir_all(&args.out).expect("findings folder");
            let path = args
                .out
                .join(format!("seed-{}-{}-{}.sql", f.seed, f.oracle, written));
            std::fs::write(&path, f.script()).expect("finding written");
            eprintln!("\nfinding: {} ({})", path.display(), f.oracle);
            written += 1;
        }
        if report.cases.is_multiple_of(100) {
            eprint!(
                "\rcases {}  statements {}  inconclusive {}  findings {}  ",
                report.cases,
                report.statements,
                report.inconclusive,
                report.findings.len()
            );
        }
        seed += 1;
    }
    eprintln!();
    println!("| oracle | checks |\n|---|---|");
    for (oracle, n) in report.checks {
        println!("| {oracle} | {n} |");
    }
    println!(
        "\n{} cases (seeds {}..{}), {} statements, {} checks without a verdict (a MySQL error), {} findings",
        report.cases,
        args.seed,
        seed,
        report.statements,
        report.inconclusive,
        report.findings.len()
    );
    if !report.findings.is_empty() {
        std::process::exit(1);
    }
}
