//! Session and user variables where a SQL golden file cannot say it: item
//! names (the .slt runner compares values only), variables MySQL has and
//! MariaDB 10.11 does not (`transaction_isolation`, `max_execution_time`),
//! what Quiver refuses on purpose (SQL modes that change what statements
//! mean, SET GLOBAL), and the server's path (kept plans, a client's account).
//! The names and values MariaDB gives were read from it (10.11.19).

use std::sync::Arc;

use quiver_engine::{
    format::rows_as_text, Database, EngineConfig, Session, StatementResult, StreamedResult,
};
use quiver_sql::SqlSource;

fn session() -> Session {
    Session::new(Database::in_memory(), EngineConfig::default())
}

fn run(s: &Session, sql: &str) -> StatementResult {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn values(s: &Session, sql: &str) -> Vec<Option<String>> {
    match run(s, sql) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap().remove(0),
        other => panic!("{sql}: {other:?}"),
    }
}

fn value(s: &Session, sql: &str) -> String {
    values(s, sql)[0].clone().unwrap_or_else(|| "NULL".into())
}

fn error(s: &Session, sql: &str) -> u16 {
    match s.query(sql) {
        Ok(r) => panic!("{sql}: expected an error, got {r:?}"),
        Err(e) => e.code,
    }
}

#[test]
fn items_keep_the_scope_and_case_they_were_written_with() {
    let s = session();
    let StatementResult::Rows { schema, .. } = run(
        &s,
        "SELECT @@session.autocommit, @@SESSION.AutoCommit, @@global.wait_timeout, @@Autocommit, @x, @X, VERSION()",
    ) else {
        panic!("rows expected")
    };
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "@@session.autocommit",
            "@@SESSION.AutoCommit",
            "@@global.wait_timeout",
            "@@Autocommit",
            "@x",
            "@X",
            "VERSION()"
        ]
    );
}

#[test]
fn session_values_are_read_back_and_global_ones_stay() {
    let s = session();
    run(&s, "SET SESSION wait_timeout = 100");
    assert_eq!(value(&s, "SELECT @@wait_timeout"), "100");
    assert_eq!(value(&s, "SELECT @@global.wait_timeout"), "28800");
    // MySQL 8's name and the older one are one variable.
    run(&s, "SET transaction_isolation = 'serializable'");
    assert_eq!(
        values(&s, "SELECT @@tx_isolation, @@transaction_isolation"),
        [Some("SERIALIZABLE".into()), Some("SERIALIZABLE".into())]
    );
    // MySQL's statement time limit (enforced: see below).
    run(&s, "SET max_execution_time = 1000");
    assert_eq!(value(&s, "SELECT @@max_execution_time"), "1000");
    assert_eq!(error(&s, "SET max_execution_time = 'x'"), 1232);
    assert_eq!(value(&s, "SELECT LAST_INSERT_ID()"), "0");
}

#[test]
fn what_quiver_does_not_implement_is_refused() {
    let s = session();
    let mode = value(&s, "SELECT @@sql_mode");
    // Modes that change what a statement means.
    for m in [
        "ANSI_QUOTES",
        "ANSI",
        "PIPES_AS_CONCAT",
        "NO_BACKSLASH_ESCAPES",
        "ORACLE",
    ] {
        assert_eq!(error(&s, &format!("SET sql_mode = '{m}'")), 1235, "{m}");
    }
    assert_eq!(value(&s, "SELECT @@sql_mode"), mode);
    assert_eq!(error(&s, "SET GLOBAL wait_timeout = 10"), 1235);
    assert_eq!(error(&s, "SET @@global.wait_timeout = 10"), 1235);
    assert_eq!(error(&s, "SET div_precision_increment = 6"), 1235);
    assert_eq!(error(&s, "SET transaction_read_only = 1"), 1235);
    // Assignment inside a query.
    assert_eq!(error(&s, "SELECT @x := 1"), 1235);
    // Nothing of a refused statement is assigned.
    assert_eq!(error(&s, "SET @y = 1, sql_mode = 'ANSI_QUOTES'"), 1235);
    assert_eq!(value(&s, "SELECT @y"), "NULL");
}

/// Runs `sql` as the server does: from a kept plan when there is one.
fn served(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    let r = match s.execute_kept(sql) {
        Some(r) => r.unwrap(),
        None => {
            let stmts = quiver_sql::parse_sql(sql).unwrap();
            s.execute_streaming_keeping_plan(&stmts[0], &Arc::new(SqlSource::new(sql)))
                .unwrap()
        }
    };
    match r {
        StreamedResult::Rows(rows) => rows_as_text(&rows.collect_all().unwrap()).unwrap(),
        StreamedResult::Done { .. } => vec![],
    }
}

#[test]
fn kept_plans_see_new_variable_values_and_the_select_limit() {
    let s = session();
    run(&s, "CREATE TABLE t (a INT)");
    run(&s, "INSERT INTO t VALUES (1), (2), (3)");
    run(&s, "SET @lo = 1");
    let q = "SELECT a FROM t WHERE a > @lo ORDER BY a";
    assert_eq!(served(&s, q).len(), 2);
    assert_eq!(served(&s, q).len(), 2);
    run(&s, "SET @lo = 2");
    assert_eq!(served(&s, q).len(), 1);
    run(&s, "SET @lo = 0, sql_select_limit = 2");
    assert_eq!(served(&s, q).len(), 2);
    assert_eq!(served(&s, "SELECT a FROM t ORDER BY a LIMIT 3").len(), 3);
    run(&s, "SET sql_select_limit = DEFAULT");
    assert_eq!(served(&s, q).len(), 3);
}

#[test]
fn current_user_is_the_account_and_user_the_client() {
    let s = Session::for_client(
        Database::in_memory(),
        EngineConfig::default(),
        "bob",
        "10.0.0.5",
        7,
    );
    assert_eq!(
        values(&s, "SELECT USER(), CURRENT_USER()"),
        [Some("bob@10.0.0.5".into()), Some("bob@%".into())]
    );
}

/// The error of `sql` run as the server runs it, at its start or while its
/// rows stream.
fn served_error(s: &Session, sql: &str) -> u16 {
    let stmts = quiver_sql::parse_sql(sql).unwrap();
    match s.execute_streaming_keeping_plan(&stmts[0], &Arc::new(SqlSource::new(sql))) {
        Err(e) => e.code,
        Ok(StreamedResult::Rows(rows)) => match rows.collect_all() {
            Err(e) => e.code,
            Ok(_) => panic!("{sql}: expected an error"),
        },
        Ok(StreamedResult::Done { .. }) => panic!("{sql}: expected an error"),
    }
}

/// A statement over its time limit stops with that limit's error
/// (MariaDB's max_statement_time: 1969; MySQL's max_execution_time: 3024),
/// embedded and served; the session goes on, and without a limit the same
/// query runs to its end.
#[test]
fn statements_over_their_time_limit_stop() {
    let s = session();
    run(&s, "CREATE TABLE t (a INT)");
    let rows: Vec<String> = (0..300).map(|i| format!("({i})")).collect();
    run(&s, &format!("INSERT INTO t VALUES {}", rows.join(", ")));
    // 27 million rows: far longer than a millisecond, short if never stopped.
    let slow = "SELECT SUM(x.a + y.a + z.a) FROM t x, t y, t z";
    // A microsecond is over before the first batch is checked.
    run(&s, "SET max_statement_time = 0.000001");
    assert_eq!(error(&s, "SELECT COUNT(*) FROM t"), 1969);
    assert_eq!(served_error(&s, "SELECT a FROM t"), 1969);
    run(&s, "SET max_statement_time = 0");
    assert_eq!(value(&s, "SELECT COUNT(*) FROM t"), "300");
    run(&s, "SET max_execution_time = 1");
    assert_eq!(error(&s, slow), 3024);
    assert_eq!(served_error(&s, slow), 3024);
    // Both set: the sooner one stops it.
    run(&s, "SET max_statement_time = 0.0005");
    assert_eq!(error(&s, slow), 1969);
    run(&s, "SET max_statement_time = 1000, max_execution_time = 0");
    // Each value meets all 300 of the other side, on either side.
    let sum = 2 * 300 * (0..300).sum::<i64>();
    assert_eq!(
        value(&s, "SELECT SUM(x.a + y.a) FROM t x, t y"),
        sum.to_string()
    );
}
