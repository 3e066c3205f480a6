//! ALTER TABLE and RENAME TABLE on a database folder: the new columns,
//! names, keys and AUTO_INCREMENT counter survive a restart, and the old
//! name is gone from disk.

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

fn text(rows: Vec<Vec<Option<String>>>) -> Vec<String> {
    rows.into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| v.unwrap_or_else(|| "NULL".into()))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

#[test]
fn altered_and_renamed_tables_survive_a_restart() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("quiver-alter-persist-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let s = open(&dir);
        for sql in [
            "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(10), n INT)",
            "INSERT INTO t (name, n) VALUES ('a', 1), ('b', 2)",
            "ALTER TABLE t ADD COLUMN tag VARCHAR(3) DEFAULT 'x' FIRST",
            "ALTER TABLE t DROP COLUMN n",
            "ALTER TABLE t RENAME COLUMN name TO label",
            "RENAME TABLE t TO renamed",
        ] {
            s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }
    let s = open(&dir);
    assert_eq!(
        text(rows(&s, "SELECT * FROM renamed ORDER BY id")),
        vec!["x,1,a", "x,2,b"]
    );
    assert_eq!(s.query("SELECT * FROM t").expect_err("gone").code, 1146);
    // The key still holds, and numbering goes on from the counter.
    let dup = s.query("INSERT INTO renamed (id, label) VALUES (2, 'dup')");
    assert_eq!(dup.expect_err("duplicate").code, 1062);
    s.query("INSERT INTO renamed (label) VALUES ('c')")
        .expect("insert");
    assert_eq!(
        text(rows(&s, "SELECT id, label, tag FROM renamed ORDER BY id")),
        vec!["1,a,x", "2,b,x", "3,c,x"]
    );
    let names: Vec<String> = std::fs::read_dir(dir.join("tables"))
        .expect("tables folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["renamed".to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
}
