//! A latin1 / ascii column keeps its charset and collation across a restart:
//! the collation name is field metadata of the table file, and after
//! reopening the folder comparisons, HEX and the strict-mode check still
//! follow latin1 / ascii.

use std::path::PathBuf;

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn rows(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).expect("text"),
        other => panic!("{sql}: no rows: {other:?}"),
    }
}

fn text(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|s| Some(s.to_string())).collect()
}

#[test]
fn latin1_and_ascii_columns_survive_a_restart() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("quiver-charset-persistence-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    {
        let s = Session::new(Database::open(&dir).expect("open"), EngineConfig::default());
        s.query(
            "CREATE TABLE p (a VARCHAR(10) CHARACTER SET latin1, \
             b VARCHAR(10) CHARACTER SET ascii COLLATE ascii_bin)",
        )
        .expect("create");
        s.query("INSERT INTO p VALUES ('é€', 'x'), ('E€', 'X')")
            .expect("insert");
    }
    let s = Session::new(
        Database::open(&dir).expect("reopen"),
        EngineConfig::default(),
    );
    assert_eq!(
        rows(
            &s,
            "SELECT COLLATION(a), CHARSET(b), COLLATION(b) FROM p LIMIT 1"
        ),
        vec![text(&["latin1_swedish_ci", "ascii", "ascii_bin"])]
    );
    // latin1_swedish_ci: 'é' = 'E'; HEX in latin1 bytes.
    assert_eq!(
        rows(
            &s,
            "SELECT COUNT(DISTINCT a), HEX(MIN(a)), COUNT(DISTINCT b) FROM p"
        ),
        vec![text(&["1", "E980", "2"])]
    );
    let err = s
        .query("INSERT INTO p (a) VALUES ('中')")
        .expect_err("latin1 cannot hold it");
    assert_eq!(err.code, 1366, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
