//! The fuzzer's statements through the server (the issue's "the server
//! never goes down"): random tables and checks from `quiver-fuzz`, each
//! statement sent over the MySQL protocol. Every reading statement must
//! answer as the embedded engine answers it over the same database (the
//! same rows as text, or the same error code): the protocol's encoding of
//! every type the generator makes is checked against the engine's. No
//! statement, mutated ones included, may end in error 1105 (a caught
//! panic or an internal error), and after each case a new connection must
//! still be answered.

mod common;

use std::sync::Arc;

use common::{default_server, Client, Outcome};
use quiver_engine::{EngineConfig, Session};
use quiver_fuzz::oracle::{self, Check};
use quiver_fuzz::rng::Rng;
use quiver_fuzz::schema::{self, Table};

/// Seeds 1..=CASES, CHECKS checks each (a few seconds in release).
const CASES: u64 = 120;
const CHECKS: usize = 15;

fn sorted(mut rows: Vec<Vec<Option<String>>>) -> Vec<Vec<Option<String>>> {
    rows.sort();
    rows
}

#[test]
fn generated_statements_answer_through_the_server_as_embedded() {
    let (h, db) = default_server();
    let addr = h.local_addr();
    let embedded = Session::new(
        Arc::clone(&db),
        EngineConfig {
            threads: 2,
            ..EngineConfig::default()
        },
    );
    let mut c = Client::root(addr);
    // The same session on both sides: the time limit, and the connection
    // collation a client's handshake asks for (utf8mb4_general_ci), which
    // string literals take.
    let limit = format!(
        "SET max_statement_time = {}",
        quiver_fuzz::STATEMENT_SECONDS
    );
    for set in [
        limit.as_str(),
        "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci",
    ] {
        assert!(matches!(c.query(set), Outcome::Ok { .. }), "{set}");
        embedded.query(set).expect("a session variable");
    }
    let (mut compared, mut mutated) = (0, 0);
    let mut failures = Vec::new();
    for seed in 1..=CASES {
        let mut rng = Rng::new(seed);
        let tables: Vec<Table> = (0..1 + rng.below(3))
            .map(|i| schema::table(&mut rng, &format!("t{i}")))
            .collect();
        for st in tables.iter().flat_map(Table::statements) {
            if let Outcome::Err {
                code: 1105,
                message,
                ..
            } = c.query(&st)
            {
                failures.push(format!("seed {seed}: {st}\n  -> 1105 {message}"));
            }
        }
        for check in quiver_fuzz::checks(&mut rng, &tables, CHECKS) {
            let reads_only = !matches!(
                check,
                Check::Write { .. } | Check::Upsert { .. } | Check::NoPanic { .. }
            );
            for sql in check.statements() {
                let server = c.query(&sql);
                if let Outcome::Err {
                    code: 1105,
                    message,
                    ..
                } = &server
                {
                    failures.push(format!("seed {seed}: {sql}\n  -> 1105 {message}"));
                    continue;
                }
                if !reads_only {
                    mutated += usize::from(matches!(check, Check::NoPanic { .. }));
                    continue;
                }
                compared += 1;
                let local = oracle::run(&embedded, &sql);
                let same = match (&server, &local) {
                    (Outcome::Rows { rows, .. }, oracle::Outcome::Rows(mine)) => {
                        sorted(rows.clone()) == *mine
                    }
                    (Outcome::Err { code, .. }, oracle::Outcome::Error(mine, _)) => code == mine,
                    _ => false,
                };
                if !same {
                    failures.push(format!(
                        "seed {seed}: {sql}\n  server:   {server:?}\n  embedded: {local:?}"
                    ));
                }
            }
        }
        for t in &tables {
            c.query(&format!("DROP TABLE {}", t.name));
        }
        // The server is up for a newcomer whatever happened.
        let mut fresh = Client::root(addr);
        assert_eq!(
            fresh.query("SELECT 1").scalar().as_deref(),
            Some("1"),
            "seed {seed}"
        );
    }
    eprintln!("server fuzz: {CASES} cases, {compared} statements compared, {mutated} mutated");
    assert!(compared > 1000, "{compared} compared");
    let shown: Vec<&String> = failures.iter().take(10).collect();
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{shown:#?}",
        failures.len()
    );
}
