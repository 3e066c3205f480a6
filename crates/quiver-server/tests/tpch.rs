//! All 22 TPC-H queries at SF0.01 through the server give the embedded
//! session's answers: through COM_QUERY (text rows, equal byte for byte) and
//! through COM_STMT_PREPARE / EXECUTE (binary rows; doubles compared as numbers
//! since the text of a binary double is the test client's own rendering).

mod common;

use common::*;
use quiver_engine::format::rows_as_text;
use quiver_engine::{Database, EngineConfig, Session};

fn same_cell(text: &Option<String>, binary: &Option<String>) -> bool {
    match (text, binary) {
        (Some(a), Some(b)) if a != b => match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            _ => false,
        },
        _ => text == binary,
    }
}

#[test]
fn tpch_queries_through_the_server_equal_the_embedded_results() {
    let db = Database::in_memory();
    quiver_tpch::generate(&db, 0.01, &|_, _| {}).expect("generate SF0.01");
    let engine = EngineConfig {
        threads: 2,
        ..EngineConfig::default()
    };
    let embedded = Session::new(db.clone(), engine);
    let (h, _db) = start_with(db, Default::default());
    let mut c = Client::root(h.local_addr());
    for n in 1..=22 {
        let sql = quiver_tpch::query(n).unwrap();
        let want = match embedded.query(sql).unwrap() {
            quiver_engine::StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap(),
            other => panic!("Q{n}: {other:?}"),
        };
        assert!(!want.is_empty() || n == 0, "Q{n} has rows at SF0.01");
        let got = c.query(sql);
        assert_eq!(got.rows(), &want, "Q{n} over COM_QUERY");

        let (id, params, _) = c
            .prepare(sql)
            .unwrap_or_else(|e| panic!("Q{n} prepare: {e:?}"));
        assert_eq!(params, 0);
        let bin = c.execute(id, &[]);
        let rows = bin.rows();
        assert_eq!(rows.len(), want.len(), "Q{n} binary row count");
        for (r, (a, b)) in want.iter().zip(rows).enumerate() {
            assert!(
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_cell(x, y)),
                "Q{n} binary row {r}: {a:?} vs {b:?}"
            );
        }
        c.command(0x19, &id.to_le_bytes());
    }
}
