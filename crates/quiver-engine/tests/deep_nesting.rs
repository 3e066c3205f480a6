//! Statements nested as deep as the parser allows (parentheses, CASE,
//! subqueries) parse, bind, plan and run on a thread of Rust's default
//! 2 MiB stack (the server's connection threads), and one level more is a
//! clean error: never a stack overflow.

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};
use quiver_sql::MAX_PARSER_DEPTH;

fn on_small_stack(sql: String) -> Result<Vec<Vec<Option<String>>>, String> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let s = Session::new(Database::in_memory(), EngineConfig::default());
            s.query("CREATE TABLE t (a INT)").unwrap();
            s.query("INSERT INTO t VALUES (1), (2)").unwrap();
            match s.query(&sql) {
                Ok(StatementResult::Rows { batches, .. }) => Ok(rows_as_text(&batches).unwrap()),
                Ok(_) => Ok(vec![]),
                Err(e) => Err(e.to_string()),
            }
        })
        .unwrap()
        .join()
        .expect("no stack overflow")
}

fn parens(n: usize) -> String {
    format!(
        "SELECT {}a{} FROM t ORDER BY 1",
        "(".repeat(n),
        ")".repeat(n)
    )
}

fn cases(n: usize) -> String {
    format!(
        "SELECT {}a{} FROM t ORDER BY 1",
        "CASE WHEN a > 0 THEN ".repeat(n),
        " END".repeat(n)
    )
}

fn subqueries(n: usize) -> String {
    let mut q = "SELECT a FROM t".to_string();
    for _ in 0..n {
        q = format!("SELECT a FROM t WHERE a IN ({q})");
    }
    q + " ORDER BY a"
}

fn one_two() -> Vec<Vec<Option<String>>> {
    vec![vec![Some("1".into())], vec![Some("2".into())]]
}

#[test]
fn parentheses_to_the_limit_run_and_beyond_it_are_an_error() {
    let deep = MAX_PARSER_DEPTH - 5;
    assert_eq!(on_small_stack(parens(deep)), Ok(one_two()));
    let err = on_small_stack(parens(MAX_PARSER_DEPTH + 5)).unwrap_err();
    assert!(err.starts_with("ERROR 1064 (42000)"), "{err}");
}

#[test]
fn nested_case_expressions_run() {
    assert_eq!(on_small_stack(cases(MAX_PARSER_DEPTH - 5)), Ok(one_two()));
    assert!(on_small_stack(cases(MAX_PARSER_DEPTH + 5)).is_err());
}

#[test]
fn nested_subqueries_run_to_48_levels_and_deeper_are_error_1436() {
    // 47 IN subqueries inside the top query: 48 query blocks.
    assert_eq!(on_small_stack(subqueries(47)), Ok(one_two()));
    let err = on_small_stack(subqueries(48)).unwrap_err();
    assert!(err.starts_with("ERROR 1436 (HY000)"), "{err}");
    // Far deeper: refused before the parser recurses, not a stack overflow.
    let err = on_small_stack(subqueries(MAX_PARSER_DEPTH)).unwrap_err();
    assert!(err.starts_with("ERROR 1436 (HY000)"), "{err}");
    let derived = |n| {
        (0..n).fold("SELECT a FROM t".to_string(), |q, i| {
            format!("SELECT a FROM ({q}) AS d{i}")
        }) + " ORDER BY a"
    };
    assert_eq!(on_small_stack(derived(47)), Ok(one_two()));
    assert!(on_small_stack(derived(48))
        .unwrap_err()
        .starts_with("ERROR 1436"));
}

#[test]
fn long_chains_of_union_and_of_or_run() {
    // Generated queries: a UNION ALL of thousands of SELECTs (as deep a
    // tree), and hundreds of ORs (as deep a chain; bound as a balanced one).
    let union = (0..3000)
        .map(|i| format!("SELECT {i} AS n"))
        .collect::<Vec<_>>()
        .join(" UNION ALL ");
    let rows = on_small_stack(format!("SELECT COUNT(*), SUM(n) FROM ({union}) u")).unwrap();
    assert_eq!(
        rows,
        vec![vec![
            Some("3000".into()),
            Some((2999 * 3000 / 2).to_string())
        ]]
    );
    let ors = (0..900)
        .map(|i| format!("a = {}", i * 2))
        .collect::<Vec<_>>()
        .join(" OR ");
    let rows = on_small_stack(format!("SELECT a FROM t WHERE {ors} ORDER BY a")).unwrap();
    assert_eq!(rows, vec![vec![Some("2".into())]]);
    let ands = (3..900)
        .map(|i| format!("a <> {i}"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let rows = on_small_stack(format!("SELECT a FROM t WHERE {ands} ORDER BY a")).unwrap();
    assert_eq!(rows, one_two());
}
