//! Sums of one narrow integer column shifted by constants are answered by
//! one SUM and one COUNT (`optimizer::sum_shift`); the values are checked
//! against MariaDB in tests/sql/aggregate/sum_shift.slt, the plan here.

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn plan(s: &Session, sql: &str) -> String {
    match s.query(&format!("EXPLAIN {sql}")).unwrap() {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches)
            .unwrap()
            .into_iter()
            .flatten()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn shifted_sums_of_one_column_aggregate_once() {
    let s = Session::new(Database::in_memory(), EngineConfig::default());
    s.query("CREATE TABLE t (g INT, a INT, b BIGINT)").unwrap();
    let p = plan(
        &s,
        "SELECT g, SUM(a + 1), SUM(a + 2), SUM(a - 3), SUM(4 + a) FROM t GROUP BY g",
    );
    let aggregate = p.lines().find(|l| l.contains("HashAggregate")).unwrap();
    assert_eq!(aggregate.matches("Sum AS").count(), 1, "{p}");
    assert_eq!(aggregate.matches("Count AS").count(), 1, "{p}");
    // BIGINT + c may overflow in a row: summed as written.
    let p = plan(&s, "SELECT SUM(b + 1), SUM(b + 2) FROM t");
    let aggregate = p.lines().find(|l| l.contains("HashAggregate")).unwrap();
    assert_eq!(aggregate.matches("Sum AS").count(), 2, "{p}");
    assert!(!aggregate.contains("Count AS"), "{p}");
}
