//! Databases made in a folder are there when it is opened again: their
//! tables, views and default collation; a dropped one is gone, files too,
//! and a killed CREATE / DROP DATABASE leaves it whole or gone. A view's
//! unqualified names whose meaning would differ from MariaDB's are refused.

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

#[test]
fn a_killed_create_or_drop_database_leaves_the_database_whole_or_gone() {
    let dir = std::env::temp_dir().join(format!("quiver-dbs-killed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let s = Session::new(Database::open(&dir).unwrap(), EngineConfig::default());
        s.execute(
            "CREATE DATABASE kept; CREATE TABLE kept.t (a INT); INSERT INTO kept.t VALUES (1)",
        )
        .unwrap();
    }
    // What CREATE DATABASE leaves when killed before its rename, and DROP
    // DATABASE when killed after its rename, before its files went.
    let databases = dir.join("databases");
    std::fs::create_dir_all(databases.join(".new-half/tables")).unwrap();
    std::fs::write(
        databases.join(".new-half/db.opt"),
        "default-collation=utf8mb4_bin\n",
    )
    .unwrap();
    std::fs::create_dir_all(databases.join(".drop-gone/tables")).unwrap();
    std::fs::write(
        databases.join(".drop-gone/db.opt"),
        "default-collation=utf8mb4_bin\n",
    )
    .unwrap();
    let s = Session::new(Database::open(&dir).unwrap(), EngineConfig::default());
    assert_eq!(s.database().schema_names(), vec!["kept", "quiver"]);
    assert!(!databases.join(".new-half").exists());
    assert!(!databases.join(".drop-gone").exists());
    assert_eq!(rows(&s, "SELECT a FROM kept.t"), vec!["1"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_view_in_another_database_must_name_its_tables_databases() {
    let s = Session::new(Database::in_memory(), EngineConfig::default());
    s.execute("CREATE DATABASE a; CREATE TABLE a.t (x INT); INSERT INTO a.t VALUES (1); CREATE DATABASE b; USE a")
        .unwrap();
    // MariaDB reads `t` in the creator's database (a); Quiver would read it
    // in the view's (b) when used: refused.
    let e = s.query("CREATE VIEW b.v AS SELECT x FROM t").unwrap_err();
    assert_eq!(e.code, 1235, "{e}");
    assert_eq!(s.query("SELECT * FROM b.v").unwrap_err().code, 1146);
    s.query("CREATE VIEW b.v AS SELECT x FROM a.t").unwrap();
    s.query("CREATE VIEW v AS SELECT x FROM t").unwrap();
    assert_eq!(rows(&s, "SELECT * FROM b.v"), vec!["1"]);
    s.query("USE b").unwrap();
    assert_eq!(rows(&s, "SELECT * FROM a.v"), vec!["1"]);
    assert_eq!(rows(&s, "SELECT DATABASE()"), vec!["b"]);
}
