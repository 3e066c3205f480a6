//! A table whose manifest is damaged does not take the database folder
//! down: the other tables and views stay usable, statements on it fail with
//! its corruption error (1877, not "doesn't exist"), SHOW TABLES still lists
//! it, its name cannot be reused by accident, and DROP TABLE removes it.

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn rows(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap(),
        StatementResult::Done { .. } => vec![],
    }
}

#[test]
fn a_damaged_manifest_spoils_only_its_table() {
    let dir = std::env::temp_dir().join(format!("quiver-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let s = Session::new(Database::open(&dir).unwrap(), EngineConfig::default());
        s.execute("CREATE TABLE good (a INT); INSERT INTO good VALUES (1), (2)")
            .unwrap();
        s.execute("CREATE TABLE bad (b INT); INSERT INTO bad VALUES (3)")
            .unwrap();
        s.execute("CREATE VIEW v AS SELECT SUM(a) AS s FROM good")
            .unwrap();
    }
    std::fs::write(dir.join("tables/bad/table.meta"), b"not a manifest").unwrap();

    let s = Session::new(Database::open(&dir).unwrap(), EngineConfig::default());
    assert_eq!(rows(&s, "SELECT COUNT(*) FROM good"), [[Some("2".into())]]);
    assert_eq!(rows(&s, "SELECT s FROM v"), [[Some("3".into())]]);
    let e = s.query("SELECT * FROM bad").unwrap_err();
    assert_eq!(e.code, 1877, "{e}");
    assert!(e.message.contains("bad"), "{e}");
    let e = s.query("SELECT a FROM good JOIN bad ON a = b").unwrap_err();
    assert_eq!(e.code, 1877, "{e}");
    let names: Vec<_> = rows(&s, "SHOW TABLES").into_iter().flatten().collect();
    assert!(names.contains(&Some("bad".into())), "{names:?}");
    let e = s.execute("CREATE TABLE bad (c INT)").unwrap_err();
    assert_eq!(e.code, 1050, "{e}");
    s.execute("DROP TABLE bad").unwrap();
    assert!(!dir.join("tables/bad").exists());
    assert_eq!(s.query("SELECT * FROM bad").unwrap_err().code, 1146);
    s.execute("CREATE TABLE bad (c INT); INSERT INTO bad VALUES (4)")
        .unwrap();
    assert_eq!(rows(&s, "SELECT c FROM bad"), [[Some("4".into())]]);
    let _ = std::fs::remove_dir_all(&dir);
}
