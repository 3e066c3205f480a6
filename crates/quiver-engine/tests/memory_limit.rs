//! Operators that hold state count it against `--memory-limit`: a query over
//! the limit stops with error 1041, the same query under a larger limit
//! answers. Covers the state the sort, the window operator and
//! COUNT(DISTINCT) keep (the sets are counted by their real size, not a
//! fixed size per group), and a result, which is held whole.

use std::sync::Arc;

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn session(db: &Arc<Database>, memory_limit: usize) -> Session {
    Session::new(
        db.clone(),
        EngineConfig {
            threads: 2,
            memory_limit,
        },
    )
}

fn rows(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).expect("text"),
        other => panic!("{sql}: no rows: {other:?}"),
    }
}

/// 100000 rows (k, g, s) with 100000 distinct strings s.
fn database() -> Arc<Database> {
    let db = Database::in_memory();
    let s = session(&db, usize::MAX);
    for sql in [
        "CREATE TABLE dg (i INT)",
        "INSERT INTO dg VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)",
        "CREATE TABLE t AS SELECT a.i + 10 * b.i + 100 * c.i + 1000 * d.i + 10000 * e.i AS k, \
         (a.i + 10 * b.i) % 7 AS g, CONCAT('value-', a.i, b.i, c.i, d.i, e.i, '-padding') AS s \
         FROM dg a, dg b, dg c, dg d, dg e",
    ] {
        s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    db
}

const SMALL: usize = 1 << 20;

fn assert_over_limit(db: &Arc<Database>, sql: &str) {
    match session(db, SMALL).query(sql) {
        Err(e) => assert_eq!(e.code, 1041, "{sql}: {e}"),
        Ok(_) => panic!("{sql}: answered within {SMALL} bytes"),
    }
}

#[test]
fn count_distinct_sets_count_against_the_limit() {
    let db = database();
    let sql = "SELECT COUNT(DISTINCT s) FROM t";
    assert_over_limit(&db, sql);
    assert_over_limit(&db, "SELECT g, COUNT(DISTINCT s) FROM t GROUP BY g");
    let big = session(&db, 1 << 30);
    assert_eq!(rows(&big, sql), vec![vec![Some("100000".to_string())]]);
}

#[test]
fn windows_count_against_the_limit() {
    let db = database();
    let sql =
        "SELECT MAX(r) FROM (SELECT ROW_NUMBER() OVER (PARTITION BY g ORDER BY s) AS r FROM t) x";
    assert_over_limit(&db, sql);
    assert_over_limit(
        &db,
        "SELECT MAX(x) FROM (SELECT SUM(k) OVER (ORDER BY k) AS x FROM t) y",
    );
    // g = (a + 10 b) % 7 over the 100 values of a + 10 b: residues 0 and 1
    // come 15 times, each with 1000 rows.
    let big = session(&db, 1 << 30);
    assert_eq!(rows(&big, sql), vec![vec![Some("15000".to_string())]]);
}

#[test]
fn sorts_count_against_the_limit_and_small_top_n_fits() {
    let db = database();
    assert_over_limit(
        &db,
        "SELECT k, s FROM t ORDER BY s DESC LIMIT 5 OFFSET 50000",
    );
    // A small LIMIT keeps only its best rows. s spells k's digits from the
    // last: 'value-99999' is k 99999, 'value-99998' is k 89999.
    let small = session(&db, SMALL);
    assert_eq!(
        rows(&small, "SELECT k FROM t ORDER BY s DESC, k LIMIT 2"),
        vec![
            vec![Some("99999".to_string())],
            vec![Some("89999".to_string())]
        ]
    );
}

#[test]
fn a_result_held_whole_counts_against_the_limit() {
    let db = database();
    // 100000 rows of ~25 bytes are more than 1 MiB; their count is not.
    assert_over_limit(&db, "SELECT k, s FROM t");
    let small = session(&db, SMALL);
    assert_eq!(
        rows(&small, "SELECT COUNT(*) FROM t a, dg b"),
        vec![vec![Some("1000000".to_string())]]
    );
}

/// The database's pool is shared by the queries of all its sessions (the
/// server's connections): what one holds is not there for another, whose
/// query then stops with 1041 naming the shared limit, though it fits its
/// own; once that memory is given back, the same query answers.
#[test]
fn queries_of_all_sessions_share_the_databases_memory() {
    let db = database();
    let sql = "SELECT COUNT(DISTINCT s) FROM t";
    let own_limit = 1 << 30;
    db.memory().set_limit(own_limit);
    let answer = rows(&session(&db, own_limit), sql);
    // Another session's query holds all but 1 MiB of the database's memory.
    let held = db
        .memory()
        .reserve_owned(own_limit - db.memory().used() - SMALL)
        .expect("room to hold");
    match session(&db, own_limit).query(sql) {
        Err(e) => {
            assert_eq!(e.code, 1041, "{e}");
            assert!(e.message.contains("queries running together"), "{e}");
        }
        Ok(_) => panic!("{sql}: answered while the shared pool was full"),
    }
    drop(held);
    assert_eq!(rows(&session(&db, own_limit), sql), answer);
}

/// A stored table's pages count against the database's pool while they
/// are in memory: a table that does not fit is 1041 (not a process the
/// system kills), and reads once room is made.
#[test]
fn table_pages_read_into_memory_count_against_the_database() {
    let dir = std::env::temp_dir().join(format!("quiver-memory-pages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let db = Database::open(&dir).expect("folder");
        let s = session(&db, usize::MAX);
        s.query("CREATE TABLE src (i INT)").unwrap();
        s.query("INSERT INTO src VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)")
            .unwrap();
        s.query(
            "CREATE TABLE big AS SELECT a.i + 10 * b.i + 100 * c.i + 1000 * d.i AS k, \
             CONCAT('text-', a.i, b.i, c.i, d.i, '-some-padding-to-be-heavier') AS s \
             FROM src a, src b, src c, src d",
        )
        .unwrap();
    }
    // Reopened: nothing of `big` is in memory yet.
    let db = Database::open(&dir).expect("reopen");
    assert_eq!(db.memory().used(), 0);
    db.memory().set_limit(64 << 10);
    match session(&db, usize::MAX).query("SELECT COUNT(*), MAX(s) FROM big") {
        Err(e) => assert_eq!(e.code, 1041, "{e}"),
        Ok(_) => panic!("10000 rows read within 64 KiB"),
    }
    db.memory().set_limit(1 << 30);
    // COUNT(*) reads no column: it needs only the row groups' row counts.
    let got = rows(&session(&db, usize::MAX), "SELECT COUNT(*) FROM big");
    assert_eq!(got, vec![vec![Some("10000".to_string())]]);
    assert_eq!(db.memory().used(), 0, "COUNT(*) read a column");
    let got = rows(&session(&db, usize::MAX), "SELECT COUNT(k) FROM big");
    assert_eq!(got, vec![vec![Some("10000".to_string())]]);
    let pages = db.memory().used();
    assert!(pages > 10000, "the column read is held: {pages} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}
