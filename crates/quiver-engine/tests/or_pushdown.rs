//! An OR over both sides of an inner join filters each side's scan by what
//! it implies for that side (TPC-H Q19), and only when every branch says
//! something of that side. The answers are checked against MariaDB in
//! tests/sql/join/or_across_sides.slt; this checks that the filters are
//! where they should be.

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn plan(s: &Session, sql: &str) -> Vec<String> {
    match s
        .query(&format!("EXPLAIN {sql}"))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches)
            .unwrap()
            .into_iter()
            .map(|r| r[0].clone().unwrap_or_default())
            .collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// The filters of the scan of `table` in the plan.
fn scan_filters(plan: &[String], table: &str) -> String {
    plan.iter()
        .find(|l| l.trim_start().starts_with(&format!("Scan {table} ")))
        .unwrap_or_else(|| panic!("no scan of {table} in {plan:#?}"))
        .split("filters=")
        .nth(1)
        .unwrap_or("")
        .to_string()
}

#[test]
fn an_or_across_a_join_filters_each_side_it_constrains_in_every_branch() {
    let s = Session::new(Database::in_memory(), EngineConfig::default());
    s.query("CREATE TABLE p (k INT, brand VARCHAR(10), size INT)")
        .unwrap();
    s.query("CREATE TABLE l (id INT, k INT, qty INT)").unwrap();
    let both = plan(
        &s,
        "SELECT l.id FROM l, p WHERE (p.k = l.k AND p.brand = 'a' AND l.qty < 10 AND l.qty + p.size > 3) \
         OR (p.k = l.k AND p.brand = 'b' AND l.qty > 20)",
    );
    let p = scan_filters(&both, "p");
    assert!(
        p.contains("'a'") && p.contains("'b'") && p.contains("OR"),
        "{p}"
    );
    let l = scan_filters(&both, "l");
    assert!(l.contains("< 10") && l.contains("> 20"), "{l}");
    // The mixed conjunct stays with the join.
    assert!(!p.contains('+') && !l.contains('+'), "{both:#?}");

    let one_sided = plan(
        &s,
        "SELECT l.id FROM l JOIN p ON p.k = l.k WHERE (p.brand = 'a' AND l.qty < 5) OR p.brand = 'b'",
    );
    let p = scan_filters(&one_sided, "p");
    assert!(p.contains("'a'") && p.contains("'b'"), "{p}");
    let l = scan_filters(&one_sided, "l");
    assert!(!l.contains("< 5"), "l must not be filtered: {l}");
}
