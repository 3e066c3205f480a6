//! SHOW CREATE TABLE answers as MariaDB does (tests/show_create/golden.txt,
//! written by scripts/show_create_from_mariadb.py; MariaDB's ` ENGINE=InnoDB`
//! is cut there, as Quiver names no engine), and its text makes the same
//! table again: run after a DROP, SHOW CREATE TABLE answers the same text.

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn show_create(s: &Session, table: &str) -> String {
    let sql = format!("SHOW CREATE TABLE {table}");
    match s.query(&sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).expect("text")[0][1]
            .clone()
            .expect("a text"),
        other => panic!("{sql}: no rows: {other:?}"),
    }
}

/// (table, statements, expected text) per case of the golden file.
fn cases() -> Vec<(String, Vec<String>, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/show_create/golden.txt"
    );
    let text = std::fs::read_to_string(path).expect("golden file");
    text.split("==== ")
        .skip(1)
        .map(|block| {
            let (head, expected) = block.split_once("\n----\n").expect("a ---- line");
            let (table, statements) = head.split_once('\n').expect("statements");
            let statements = statements
                .split(";\n")
                .map(|s| s.trim_end_matches(';').trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            (
                table.to_string(),
                statements,
                expected.trim_end().to_string(),
            )
        })
        .collect()
}

#[test]
fn show_create_table_answers_as_mariadb_and_makes_the_table_again() {
    let cases = cases();
    assert!(cases.len() >= 8, "{} cases", cases.len());
    for (table, statements, expected) in cases {
        let s = Session::new(Database::in_memory(), EngineConfig::default());
        for sql in &statements {
            s.query(sql)
                .unwrap_or_else(|e| panic!("{table}: {sql}: {e}"));
        }
        let shown = show_create(&s, &table);
        assert_eq!(shown, expected, "SHOW CREATE TABLE {table}");
        s.query(&format!("DROP TABLE {table}")).expect("drop");
        s.query(&shown)
            .unwrap_or_else(|e| panic!("{table}: its own text is refused: {e}\n{shown}"));
        assert_eq!(show_create(&s, &table), expected, "{table} made again");
    }
}

#[test]
fn show_create_table_of_an_unknown_table_is_1146() {
    let s = Session::new(Database::in_memory(), EngineConfig::default());
    let e = s.query("SHOW CREATE TABLE nope").expect_err("no table");
    assert_eq!(e.code, 1146);
}
