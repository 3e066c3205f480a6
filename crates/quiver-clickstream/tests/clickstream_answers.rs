//! Every web-analytics query on 100,000 generated rows against DuckDB's
//! answers on the same rows (tests/web_analytics/golden, made by
//! scripts/web_analytics_golden.py).
//!
//! Numbers match when they differ by no more than rounding to our printed
//! scale explains (MySQL's AVG has a fixed decimal scale, DuckDB's is a
//! double) or by 1e-9 relative. In queries marked `compare: folded`,
//! strings are compared lowercased and right-trimmed: under
//! `utf8mb4_general_ci` a group shows the spelling of its first row, where
//! DuckDB is asked for `lower(rtrim(x))`.
//!
//! The high-cardinality aggregates also run at 1 and 4 threads: every
//! thread count must give the same answers.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use quiver_clickstream::{Engine, Query};
use quiver_engine::{Database, EngineConfig, Session};

const ROWS: u64 = 100_000;

/// Queries whose answers depend on merging many partial groups: run at
/// several thread counts.
const HIGH_CARDINALITY: [&str; 9] = [
    "distinct_users",
    "distinct_phrases",
    "user_phrase_top",
    "user_phrase_groups",
    "user_minute_phrase",
    "session_ip_groups",
    "top_urls",
    "site_distinct_urls",
    "region_users",
];

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/web_analytics/golden")
        .join(format!("{name}.csv"))
}

#[path = "../../quiver-tpch/tests/common/golden_csv.rs"]
mod golden_csv;

use golden_csv::check_result;

fn cells_match(ours: &str, theirs: &str, folded: bool) -> bool {
    golden_csv::cells_match(ours, theirs) || (folded && fold(ours) == fold(theirs))
}

fn fold(s: &str) -> String {
    s.trim_end_matches(' ').to_lowercase()
}

fn data() -> &'static Arc<Database> {
    static DB: OnceLock<Arc<Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let db = Database::in_memory();
        quiver_clickstream::generate(&db, ROWS, &|_| {}).expect("generate hits");
        db
    })
}

fn session(threads: usize) -> Session {
    Session::new(
        data().clone(),
        EngineConfig {
            threads,
            ..EngineConfig::default()
        },
    )
}

fn check(query: &Query, threads: usize) -> Result<(), Failed> {
    let name = &query.name;
    let path = golden(name);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let sql = query.sql(Engine::Quiver)?;
    let result = session(threads)
        .query(&sql)
        .map_err(|e| format!("{name}: {e}"))?;
    let label = format!("{name} at {threads} threads");
    Ok(check_result(&label, result, &text, |x, y| {
        cells_match(x, y, query.folded)
    })?)
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for query in quiver_clickstream::queries() {
        let threads: &[usize] = if HIGH_CARDINALITY.contains(&query.name.as_str()) {
            &[2, 1, 4]
        } else {
            &[2]
        };
        for &t in threads {
            let q = query.clone();
            trials.push(Trial::test(format!("{}/{t}t", query.name), move || {
                check(&q, t)
            }));
        }
    }
    // Every golden file belongs to a query: a renamed query leaves none behind.
    trials.push(Trial::test("golden_files_match_the_queries", || {
        let names: Vec<String> = quiver_clickstream::queries()
            .into_iter()
            .map(|q| q.name)
            .collect();
        let dir = golden("x");
        let dir = dir.parent().expect("golden dir");
        for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
            let file = entry.map_err(|e| e.to_string())?.file_name();
            let file = file.to_string_lossy();
            let stem = file.trim_end_matches(".csv");
            if !names.iter().any(|n| n == stem) {
                return Err(format!("{file} has no query in queries.sql").into());
            }
        }
        Ok(())
    }));
    libtest_mimic::run(&args, trials).exit();
}
