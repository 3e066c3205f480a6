//! `COUNT(DISTINCT x)` is answered by two hash aggregates, `GROUP BY g, x`
//! then `COUNT(x) GROUP BY g` (`optimizer::distinct_split`); the values are
//! checked against MariaDB in tests/sql/aggregate/count_distinct_groups.slt,
//! the plan here.

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn aggregates(s: &Session, sql: &str) -> Vec<String> {
    match s.query(&format!("EXPLAIN {sql}")).unwrap() {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches)
            .unwrap()
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
            .filter(|l| l.contains("HashAggregate"))
            .collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn distinct_counts_of_one_column_become_two_aggregates() {
    let s = Session::new(Database::in_memory(), EngineConfig::default());
    s.query("CREATE TABLE t (g INT, a INT, s VARCHAR(9), f DOUBLE)")
        .unwrap();
    for sql in [
        "SELECT COUNT(DISTINCT a) FROM t",
        "SELECT g, COUNT(DISTINCT s), COUNT(DISTINCT s) FROM t GROUP BY g",
    ] {
        let aggs = aggregates(&s, sql);
        assert_eq!(aggs.len(), 2, "{sql}: {aggs:?}");
        assert!(
            aggs[1].contains("aggs=[]"),
            "the first removes duplicates: {aggs:?}"
        );
    }
    // Left as one DISTINCT aggregate: mixed aggregates, two columns, two
    // arguments, doubles (DISTINCT folds -0 into 0).
    for sql in [
        "SELECT g, COUNT(DISTINCT a), COUNT(*) FROM t GROUP BY g",
        "SELECT COUNT(DISTINCT a), COUNT(DISTINCT s) FROM t",
        "SELECT COUNT(DISTINCT a, s) FROM t",
        "SELECT COUNT(DISTINCT f) FROM t",
    ] {
        let aggs = aggregates(&s, sql);
        assert_eq!(aggs.len(), 1, "{sql}: {aggs:?}");
    }
}
