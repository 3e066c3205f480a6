//! Databases made in a folder are there when it is opened again: their
//! tables, views and default collation; a dropped one is gone, files too.

use quiver_engine::{Database, EngineConfig, Session, StatementResult};

fn rows(s: &Session, sql: &str) -> Vec<String> {
    match s.query(sql).unwrap() {
        StatementResult::Rows { batches, .. } => batches
            .iter()
            .flat_map(|b| {
                let t = quiver_engine::format_csv(&b.schema(), std::slice::from_ref(b)).unwrap();
                t.lines().skip(1).map(str::to_string).collect::<Vec<_>>()
            })
            .collect(),
        StatementResult::Done { .. } => vec![],
    }
}

#[test]
fn databases_survive_reopening_the_folder() {
    let dir = std::env::temp_dir().join(format!("quiver-dbs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let s = Session::new(Database::open(&dir).unwrap(), EngineConfig::default());
        s.execute(
            "CREATE TABLE base (a INT); INSERT INTO base VALUES (7);
             CREATE DATABASE d1 CHARACTER SET latin1; CREATE DATABASE d2;
             CREATE TABLE d1.t (s VARCHAR(5)); INSERT INTO d1.t VALUES ('x');
             CREATE TABLE d2.gone (a INT); USE d1; CREATE VIEW v AS SELECT s FROM t;
             DROP DATABASE d2",
        )
        .unwrap();
    }
    assert!(!dir.join("databases").join("d2").exists());
    let s = Session::new(Database::open(&dir).unwrap(), EngineConfig::default());
    assert_eq!(rows(&s, "SELECT a FROM base"), vec!["7"]);
    assert_eq!(rows(&s, "SELECT s FROM d1.v"), vec!["x"]);
    assert_eq!(
        rows(&s, "SELECT SCHEMA_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME <> 'information_schema' ORDER BY 1"),
        vec!["d1,latin1_swedish_ci", "quiver,utf8mb4_bin"]
    );
    assert_eq!(s.query("USE d2").unwrap_err().code, 1049);
    let _ = std::fs::remove_dir_all(&dir);
}
