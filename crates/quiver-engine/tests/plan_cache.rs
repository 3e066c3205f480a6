//! A session's kept plans (what the server uses for repeated statements):
//! the same text runs again without being parsed, and never gives an answer
//! that a fresh plan would not: writes, DDL, session variables and the
//! current database all make a kept plan stale; information_schema is never
//! kept.

use std::sync::Arc;

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StreamedResult};
use quiver_sql::SqlSource;

type Rows = Vec<Vec<Option<String>>>;

fn rows(r: StreamedResult) -> Rows {
    match r {
        StreamedResult::Rows(s) => rows_as_text(&s.collect_all().unwrap()).unwrap(),
        StreamedResult::Done { .. } => vec![],
    }
}

/// Runs `sql` as the server does: from a kept plan when there is one, else
/// parsed and run (keeping its plan). Also says which it was.
fn run(session: &Session, sql: &str) -> (Rows, bool) {
    if let Some(r) = session.execute_kept(sql) {
        return (rows(r.unwrap()), true);
    }
    let source = Arc::new(SqlSource::new(sql));
    let stmts = quiver_sql::parse_sql(sql).unwrap();
    assert_eq!(stmts.len(), 1);
    let r = session
        .execute_streaming_keeping_plan(&stmts[0], &source)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    (rows(r), false)
}

fn value(r: &Rows) -> String {
    r[0][0].clone().unwrap_or_default()
}

fn session() -> Session {
    Session::new(Database::in_memory(), EngineConfig::default())
}

#[test]
fn a_repeated_query_runs_from_its_kept_plan_with_the_same_answer() {
    let s = session();
    run(&s, "CREATE TABLE t (a INT, b VARCHAR(10))");
    run(&s, "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'x')");
    let q = "SELECT b, SUM(a) AS s FROM t GROUP BY b ORDER BY b";
    let (first, kept) = run(&s, q);
    assert!(!kept);
    let (second, kept) = run(&s, q);
    assert!(kept, "the second run should use the kept plan");
    assert_eq!(first, second);
    // Other text, other plan (also a mere change of spacing).
    assert!(!run(&s, "SELECT b, SUM(a) AS s FROM t GROUP BY b ORDER BY  b").1);
    // Column names come from the text as written, also from a kept plan.
    let r = s.execute_kept("SELECT 1+1, 'x'").is_none();
    assert!(r);
    run(&s, "SELECT 1+1, 'x'");
    let Some(Ok(StreamedResult::Rows(stream))) = s.execute_kept("SELECT 1+1, 'x'") else {
        panic!("kept");
    };
    let names: Vec<String> = stream
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["1+1", "x"]);
}

#[test]
fn writes_and_ddl_make_kept_plans_stale() {
    let s = session();
    run(&s, "CREATE TABLE t (a INT)");
    run(&s, "INSERT INTO t VALUES (1), (2)");
    let q = "SELECT COUNT(*), SUM(a) FROM t";
    assert_eq!(run(&s, q).0, vec![vec![Some("2".into()), Some("3".into())]]);
    assert!(run(&s, q).1);
    run(&s, "INSERT INTO t VALUES (10)");
    let (r, kept) = run(&s, q);
    assert!(!kept, "an INSERT moves the catalog on");
    assert_eq!(r, vec![vec![Some("3".into()), Some("13".into())]]);
    // Another session's write is seen too.
    let other = Session::new(s.database().clone(), EngineConfig::default());
    assert!(run(&s, q).1);
    run(&other, "INSERT INTO t VALUES (100)");
    assert_eq!(value(&run(&s, q).0), "4");
    // The table replaced by one of another shape: the new columns.
    run(&s, "DROP TABLE t");
    run(&s, "CREATE TABLE t (a VARCHAR(5))");
    run(&s, "INSERT INTO t VALUES ('p'), ('q')");
    let (r, kept) = run(&s, "SELECT MAX(a) FROM t");
    assert!(!kept);
    assert_eq!(value(&r), "q");
    // A view redefined.
    run(&s, "CREATE VIEW v AS SELECT 1 AS x");
    assert_eq!(value(&run(&s, "SELECT x FROM v").0), "1");
    assert!(run(&s, "SELECT x FROM v").1);
    run(&s, "CREATE OR REPLACE VIEW v AS SELECT 2 AS x");
    assert_eq!(value(&run(&s, "SELECT x FROM v").0), "2");
}

#[test]
fn session_variables_and_the_current_database_make_kept_plans_stale() {
    let s = session();
    // A literal's collation comes from collation_connection.
    let q = "SELECT 'a' = 'A'";
    assert_eq!(value(&run(&s, q).0), "0");
    assert!(run(&s, q).1);
    run(&s, "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci");
    let (r, kept) = run(&s, q);
    assert!(!kept);
    assert_eq!(value(&r), "1");
    let q = "SELECT @@collation_connection";
    assert_eq!(value(&run(&s, q).0), "utf8mb4_general_ci");
    run(&s, "SET collation_connection = utf8mb4_unicode_ci");
    assert_eq!(value(&run(&s, q).0), "utf8mb4_unicode_ci");
    let q = "SELECT DATABASE()";
    assert_eq!(run(&s, q).0, vec![vec![None]]);
    assert!(run(&s, q).1);
    run(&s, "USE quiver");
    assert_eq!(value(&run(&s, q).0), "quiver");
}

#[test]
fn information_schema_is_never_kept() {
    let s = session();
    let q = "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'quiver'";
    assert_eq!(value(&run(&s, q).0), "0");
    assert!(!run(&s, q).1);
    // A table created without going through this session's statements
    // still shows (no kept plan could have hidden it).
    s.database()
        .create_table(
            "made_aside",
            Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
                "a",
                arrow_schema::DataType::Int64,
                true,
            )])),
            vec![],
            false,
        )
        .unwrap();
    assert_eq!(value(&run(&s, q).0), "1");
    let q = "SELECT COUNT(*) FROM information_schema.PROCESSLIST";
    run(&s, q);
    assert!(s.execute_kept(q).is_none());
}
