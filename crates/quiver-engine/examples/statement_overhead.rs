//! Per-statement overhead of the engine on a trivial query, phase by phase:
//! parse, bind + optimize, physical planning, execution, and the whole path.
//! A server answers `SELECT 1` at this cost plus the network round trip.
//!
//!     cargo run --release -p quiver-engine --example statement_overhead [SQL] [N]

use std::time::Instant;

use quiver_engine::{Database, EngineConfig, Session};
use quiver_sql::sqlparser::ast::Statement;

fn per_call(n: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..n / 10 {
        f();
    }
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / n as f64
}

fn main() {
    let mut args = std::env::args().skip(1);
    let sql = args.next().unwrap_or_else(|| "SELECT 1".to_string());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let db = Database::in_memory();
    let session = Session::new(db, EngineConfig::default());
    let stmt = quiver_sql::parse_sql(&sql).expect("parse").remove(0);
    let Statement::Query(query) = &stmt else {
        panic!("not a query: {sql}");
    };
    println!("{sql:?}, {n} times, microseconds per call:");
    let parse = per_call(n, || {
        std::hint::black_box(quiver_sql::parse_sql(&sql).unwrap());
    });
    println!("  parse                  {parse:8.2}");
    let logical = per_call(n, || {
        std::hint::black_box(session.logical_plan(query).unwrap());
    });
    println!("  bind + optimize        {logical:8.2}");
    let plan = session.logical_plan(query).unwrap();
    let physical = per_call(n, || {
        std::hint::black_box(quiver_exec::create_physical_plan(&plan, 2).unwrap());
    });
    println!("  physical plan          {physical:8.2}");
    let whole = per_call(n, || {
        std::hint::black_box(session.execute(&sql).unwrap());
    });
    println!("  whole (execute)        {whole:8.2}");
    println!(
        "  execution (remainder)  {:8.2}",
        whole - parse - logical - physical
    );
}
