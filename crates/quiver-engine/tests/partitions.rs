//! Queries over scans with fewer rows than their partitions are worth
//! threads (see `ExecutionPlan::useful_partitions`): the idle partitions run
//! on the caller's thread after the others, and every thread count gives
//! the single-threaded answer.

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn rows(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap(),
        other => panic!("{sql}: {other:?}"),
    }
}

#[test]
fn every_thread_count_gives_the_same_answers() {
    let db = Database::in_memory();
    let setup = Session::new(db.clone(), EngineConfig::default());
    setup
        .query("CREATE TABLE t (a INT, b VARCHAR(10))")
        .unwrap();
    // 150,000 rows: three partitions' worth at 64K rows each, so four
    // threads leave one partition idle, one thread none.
    for chunk in 0..15 {
        let values: Vec<String> = (0..10_000)
            .map(|i| {
                let n = chunk * 10_000 + i;
                format!("({n}, 'k{}')", n % 7)
            })
            .collect();
        setup
            .query(&format!("INSERT INTO t VALUES {}", values.join(", ")))
            .unwrap();
    }
    let queries = [
        "SELECT b, COUNT(*), SUM(a), MIN(a), MAX(a) FROM t GROUP BY b ORDER BY b",
        "SELECT COUNT(*) FROM t WHERE a < 1000",
        "SELECT COUNT(*), SUM(x.a) FROM t x JOIN t y ON x.a = y.a + 1 WHERE y.a % 3 = 0",
        "SELECT a FROM t WHERE a % 50000 = 7 ORDER BY a",
    ];
    let want: Vec<_> = {
        let one = Session::new(
            db.clone(),
            EngineConfig {
                threads: 1,
                ..EngineConfig::default()
            },
        );
        queries.iter().map(|q| rows(&one, q)).collect()
    };
    assert_eq!(want[1], vec![vec![Some("1000".to_string())]]);
    for threads in [2, 3, 4, 8] {
        let s = Session::new(
            db.clone(),
            EngineConfig {
                threads,
                ..EngineConfig::default()
            },
        );
        for (q, w) in queries.iter().zip(&want) {
            assert_eq!(&rows(&s, q), w, "{q} at {threads} threads");
        }
    }
}
