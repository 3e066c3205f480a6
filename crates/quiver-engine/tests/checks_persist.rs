//! CHECK constraints and the JSON column's automatic check survive a
//! restart: they are table metadata of the manifest, written with the rows.
//! After reopening the folder a failing row is still refused (4025), and
//! SHOW CREATE TABLE and information_schema still show them.

use std::path::{Path, PathBuf};

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn open(dir: &Path) -> Session {
    Session::new(Database::open(dir).expect("open"), EngineConfig::default())
}

fn rows(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).expect("text"),
        other => panic!("{sql}: no rows: {other:?}"),
    }
}

fn refused(s: &Session, sql: &str) -> String {
    match s.query(sql) {
        Ok(r) => panic!("{sql}: accepted: {r:?}"),
        Err(e) => {
            assert_eq!(e.code, 4025, "{sql}: {e}");
            e.message
        }
    }
}

#[test]
fn checks_survive_a_restart() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("quiver-checks-persist-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let shown_before;
    {
        let s = open(&dir);
        s.query(
            "CREATE TABLE t (a INT CHECK (a > 0), s VARCHAR(5) CHECK (s <> 'x\ty'), j JSON, \
             CONSTRAINT named CHECK (a < 100), CHECK (a <> 50))",
        )
        .unwrap();
        s.query("INSERT INTO t VALUES (1, 'a', '{}')").unwrap();
        refused(&s, "INSERT INTO t VALUES (0, 'a', NULL)");
        shown_before = rows(&s, "SHOW CREATE TABLE t");
    }
    let s = open(&dir);
    assert_eq!(rows(&s, "SHOW CREATE TABLE t"), shown_before);
    assert!(
        refused(&s, "INSERT INTO t VALUES (0, 'a', NULL)").contains("`t.a`"),
        "column check"
    );
    assert!(refused(&s, "INSERT INTO t VALUES (1, 'x\ty', NULL)").contains("`t.s`"));
    assert!(refused(&s, "INSERT INTO t VALUES (1, 'a', '[')").contains("`t.j`"));
    assert!(refused(&s, "INSERT INTO t VALUES (100, 'a', NULL)").contains("`named`"));
    assert!(refused(&s, "UPDATE t SET a = 50").contains("`CONSTRAINT_1`"));
    s.query("INSERT INTO t VALUES (2, NULL, '[1]')").unwrap();
    assert_eq!(
        rows(
            &s,
            "SELECT CONSTRAINT_NAME, LEVEL, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS \
             WHERE TABLE_NAME = 't' ORDER BY CONSTRAINT_NAME"
        ),
        [
            ["a", "Column", "`a` > 0"],
            ["CONSTRAINT_1", "Table", "`a` <> 50"],
            ["j", "Column", "json_valid(`j`)"],
            ["named", "Table", "`a` < 100"],
            ["s", "Column", "`s` <> 'x\ty'"],
        ]
        .map(|r| r.map(|v| Some(v.to_string())).to_vec())
        .to_vec()
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
