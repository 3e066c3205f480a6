//! Error messages as MariaDB gives them: each statement of
//! `tests/errors/messages.sql` runs in order on one session, and its answer
//! (`ok`, or the code, SQLSTATE and message) must equal the one MariaDB gave,
//! which `scripts/errors_from_mariadb.py` wrote to `tests/errors/messages.txt`.
//!
//! The one rewrite: MariaDB's syntax errors point to "your MariaDB server
//! version", Quiver's to "your MySQL server version", as MySQL's do.
//! Statements where Quiver still differs are listed, with the reason, in
//! `tests/errors/messages_known.txt`; a listed statement that matches fails
//! the test, so the list only shrinks.

use std::collections::BTreeSet;

use quiver_engine::{Database, EngineConfig, Session};

const GOLDEN: &str = include_str!("../../../tests/errors/messages.txt");
const KNOWN: &str = include_str!("../../../tests/errors/messages_known.txt");

/// (statement, MariaDB's answer) in file order.
fn golden() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = GOLDEN.lines().filter(|l| !l.starts_with('#'));
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        assert_eq!(line, "statement", "bad record start in messages.txt");
        let mut sql = Vec::new();
        for l in lines.by_ref() {
            if l == "----" {
                break;
            }
            sql.push(l);
        }
        let answer = lines.next().expect("an answer after ----");
        out.push((sql.join("\n"), answer.to_string()));
    }
    out
}

/// A statement as the known-differences file names it: its lines joined by spaces.
fn one_line(sql: &str) -> String {
    sql.lines().collect::<Vec<_>>().join(" ")
}

fn known() -> BTreeSet<String> {
    KNOWN
        .lines()
        .map(|l| l.split("    #").next().unwrap().trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn answer(session: &Session, sql: &str) -> String {
    match session.query(sql) {
        Ok(_) => "ok".to_string(),
        Err(e) => format!("error {} {} {}", e.code, e.sqlstate, e.message),
    }
}

#[test]
fn error_messages_equal_mariadbs() {
    let records = golden();
    assert!(
        records.len() >= 60,
        "messages.txt has {} records",
        records.len()
    );
    let session = Session::new(Database::in_memory(), EngineConfig::default());
    let known = known();
    let mut unexpected = Vec::new();
    let mut matching_known = Vec::new();
    for (sql, expected) in &records {
        let expected = expected.replace("MariaDB server version", "MySQL server version");
        let got = answer(&session, sql);
        let listed = known.contains(&one_line(sql));
        if got != expected && !listed {
            unexpected.push(format!("{sql}\n  MariaDB: {expected}\n  Quiver:  {got}"));
        } else if got == expected && listed {
            matching_known.push(one_line(sql));
        }
    }
    let names: BTreeSet<String> = records.iter().map(|(s, _)| one_line(s)).collect();
    let stale: Vec<&String> = known.difference(&names).collect();
    assert!(
        unexpected.is_empty(),
        "answers unlike MariaDB's:\n{}",
        unexpected.join("\n")
    );
    assert!(
        matching_known.is_empty() && stale.is_empty(),
        "known differences that are gone (delete them from messages_known.txt): {matching_known:?} {stale:?}"
    );
}
