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

/// `ALTER DATABASE ... COLLATE` is the database's: tables created after it
/// (in this session and in sessions of a later process) take it, tables
/// created before keep theirs, and a bad `db.opt` is an error, not a silent
/// utf8mb4_bin.
#[test]
fn the_database_default_collation_survives_a_restart() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("quiver-database-collation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let collation_of = |s: &Session, t: &str| {
        rows(
            s,
            &format!(
                "SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = '{t}'"
            ),
        )
    };
    {
        let s = Session::new(Database::open(&dir).expect("open"), EngineConfig::default());
        s.query("CREATE TABLE before_alter (s VARCHAR(5))")
            .expect("create");
        s.query("ALTER DATABASE quiver COLLATE utf8mb4_general_ci")
            .expect("alter");
        assert_eq!(
            rows(&s, "SELECT @@collation_database"),
            vec![text(&["utf8mb4_general_ci"])]
        );
        s.query("CREATE TABLE after_alter (s VARCHAR(5))")
            .expect("create");
        assert_eq!(
            collation_of(&s, "after_alter"),
            vec![text(&["utf8mb4_general_ci"])]
        );
        // A charset alone means its default collation.
        s.query("USE quiver").expect("use");
        s.query("ALTER DATABASE DEFAULT CHARACTER SET = latin1")
            .expect("alter");
        s.query("ALTER SCHEMA quiver CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
            .expect("alter");
    }
    let db = Database::open(&dir).expect("reopen");
    let s = Session::new(db.clone(), EngineConfig::default());
    assert_eq!(
        rows(&s, "SELECT @@collation_database"),
        vec![text(&["utf8mb4_unicode_ci"])]
    );
    s.query("CREATE TABLE after_restart (s VARCHAR(5))")
        .expect("create");
    s.query("INSERT INTO after_restart VALUES ('ä')")
        .expect("insert");
    assert_eq!(
        collation_of(&s, "before_alter"),
        vec![text(&["utf8mb4_bin"])]
    );
    assert_eq!(
        collation_of(&s, "after_restart"),
        vec![text(&["utf8mb4_unicode_ci"])]
    );
    assert_eq!(
        rows(&s, "SELECT COUNT(*) FROM after_restart WHERE s = 'A'"),
        vec![text(&["1"])]
    );
    assert_eq!(
        rows(&s, "SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'quiver'"),
        vec![text(&["utf8mb4_unicode_ci"])]
    );
    // Refused: another database, a collation of another charset, none.
    let code = |sql: &str| s.query(sql).expect_err(sql).code;
    assert_eq!(code("ALTER DATABASE nope COLLATE utf8mb4_bin"), 1049);
    assert_eq!(
        code("ALTER DATABASE quiver CHARACTER SET latin1 COLLATE utf8mb4_bin"),
        1253
    );
    assert_eq!(code("ALTER DATABASE quiver COLLATE nope"), 1273);
    assert_eq!(code("ALTER DATABASE quiver"), 1064);
    assert_eq!(
        rows(&s, "SELECT @@collation_database"),
        vec![text(&["utf8mb4_unicode_ci"])]
    );
    drop(s);
    drop(db);
    std::fs::write(dir.join("db.opt"), "default-collation=utf8mb4_nonesuch\n").expect("write");
    let e = Database::open(&dir).expect_err("a bad db.opt");
    assert!(e.message.contains("utf8mb4_nonesuch"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
