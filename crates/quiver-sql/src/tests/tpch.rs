//! All 22 TPC-H queries bind against the TPC-H schema, with the subquery
//! shapes the executor expects.

use arrow_schema::DataType;
use quiver_plan::{JoinKind, LogicalPlan};

use super::MockCatalog;

pub(crate) fn tpch_catalog() -> MockCatalog {
    use DataType::*;
    let money = || Decimal128(15, 2);
    MockCatalog::default()
        .table(
            "region",
            &[
                ("r_regionkey", Int64),
                ("r_name", Utf8),
                ("r_comment", Utf8),
            ],
        )
        .table(
            "nation",
            &[
                ("n_nationkey", Int64),
                ("n_name", Utf8),
                ("n_regionkey", Int64),
                ("n_comment", Utf8),
            ],
        )
        .table(
            "supplier",
            &[
                ("s_suppkey", Int64),
                ("s_name", Utf8),
                ("s_address", Utf8),
                ("s_nationkey", Int64),
                ("s_phone", Utf8),
                ("s_acctbal", money()),
                ("s_comment", Utf8),
            ],
        )
        .table(
            "customer",
            &[
                ("c_custkey", Int64),
                ("c_name", Utf8),
                ("c_address", Utf8),
                ("c_nationkey", Int64),
                ("c_phone", Utf8),
                ("c_acctbal", money()),
                ("c_mktsegment", Utf8),
                ("c_comment", Utf8),
            ],
        )
        .table(
            "part",
            &[
                ("p_partkey", Int64),
                ("p_name", Utf8),
                ("p_mfgr", Utf8),
                ("p_brand", Utf8),
                ("p_type", Utf8),
                ("p_size", Int32),
                ("p_container", Utf8),
                ("p_retailprice", money()),
                ("p_comment", Utf8),
            ],
        )
        .table(
            "partsupp",
            &[
                ("ps_partkey", Int64),
                ("ps_suppkey", Int64),
                ("ps_availqty", Int32),
                ("ps_supplycost", money()),
                ("ps_comment", Utf8),
            ],
        )
        .table(
            "orders",
            &[
                ("o_orderkey", Int64),
                ("o_custkey", Int64),
                ("o_orderstatus", Utf8),
                ("o_totalprice", money()),
                ("o_orderdate", Date32),
                ("o_orderpriority", Utf8),
                ("o_clerk", Utf8),
                ("o_shippriority", Int32),
                ("o_comment", Utf8),
            ],
        )
        .table(
            "lineitem",
            &[
                ("l_orderkey", Int64),
                ("l_partkey", Int64),
                ("l_suppkey", Int64),
                ("l_linenumber", Int32),
                ("l_quantity", money()),
                ("l_extendedprice", money()),
                ("l_discount", money()),
                ("l_tax", money()),
                ("l_returnflag", Utf8),
                ("l_linestatus", Utf8),
                ("l_shipdate", Date32),
                ("l_commitdate", Date32),
                ("l_receiptdate", Date32),
                ("l_shipinstruct", Utf8),
                ("l_shipmode", Utf8),
                ("l_comment", Utf8),
            ],
        )
}

pub(crate) fn tpch_query(n: usize) -> String {
    let path = format!(
        "{}/../quiver-tpch/queries/q{n:02}.sql",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The joins of a plan, outermost first.
pub(crate) fn join_kinds(plan: &LogicalPlan) -> Vec<JoinKind> {
    let mut out = Vec::new();
    fn walk(p: &LogicalPlan, out: &mut Vec<JoinKind>) {
        if let LogicalPlan::Join { kind, .. } = p {
            out.push(*kind);
        }
        for c in p.children() {
            walk(c, out);
        }
    }
    walk(plan, &mut out);
    out
}

#[test]
fn all_22_queries_bind() {
    let catalog = tpch_catalog();
    for n in 1..=22 {
        let sql = tpch_query(n);
        match catalog.bind(&sql) {
            Ok(plan) => assert!(
                matches!(plan, LogicalPlan::Project { .. }),
                "Q{n} does not end with a projection"
            ),
            Err(e) => panic!("Q{n} failed to bind: {e}"),
        }
    }
}

#[test]
fn output_names_and_types() {
    let catalog = tpch_catalog();
    let q1 = catalog.bind(&tpch_query(1)).unwrap().schema();
    let names: Vec<&str> = q1.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "l_returnflag",
            "l_linestatus",
            "sum_qty",
            "sum_base_price",
            "sum_disc_price",
            "sum_charge",
            "avg_qty",
            "avg_price",
            "avg_disc",
            "count_order"
        ]
    );
    assert_eq!(q1[2].data_type, DataType::Decimal128(37, 2));
    assert_eq!(q1[6].data_type, DataType::Decimal128(19, 6));
    assert_eq!(q1[9].data_type, DataType::Int64);
    let q18 = catalog.bind(&tpch_query(18)).unwrap().schema();
    assert_eq!(q18[5].name, "sum(l_quantity)");
}

#[test]
fn subqueries_become_the_expected_joins() {
    let catalog = tpch_catalog();
    let kinds = |n: usize| join_kinds(&catalog.bind(&tpch_query(n)).unwrap());
    assert!(kinds(2).contains(&JoinKind::Single), "Q2 {:?}", kinds(2));
    assert!(kinds(4).contains(&JoinKind::Semi));
    assert!(kinds(11).contains(&JoinKind::Single));
    assert!(kinds(13).contains(&JoinKind::Left));
    assert!(kinds(16).contains(&JoinKind::NullAwareAnti { null_aware: 1 }));
    assert!(kinds(17).contains(&JoinKind::Single));
    assert!(kinds(18).contains(&JoinKind::Semi));
    let q20 = kinds(20);
    assert!(
        q20.contains(&JoinKind::Semi) && q20.contains(&JoinKind::Single),
        "Q20 {q20:?}"
    );
    let q21 = kinds(21);
    assert!(
        q21.contains(&JoinKind::Semi) && q21.contains(&JoinKind::Anti),
        "Q21 {q21:?}"
    );
    let q22 = kinds(22);
    assert!(
        q22.contains(&JoinKind::Anti) && q22.contains(&JoinKind::Single),
        "Q22 {q22:?}"
    );
}

/// Finds the first join of a kind.
fn find_join(plan: &LogicalPlan, kind: JoinKind) -> Option<&LogicalPlan> {
    if matches!(plan, LogicalPlan::Join { kind: k, .. } if *k == kind) {
        return Some(plan);
    }
    plan.children().into_iter().find_map(|c| find_join(c, kind))
}

#[test]
fn correlated_aggregate_subqueries_are_grouped_by_their_correlation() {
    let catalog = tpch_catalog();
    // Q17: l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)
    let plan = catalog.bind(&tpch_query(17)).unwrap();
    let Some(LogicalPlan::Join {
        on, right, filter, ..
    }) = find_join(&plan, JoinKind::Single)
    else {
        panic!("no single join")
    };
    assert_eq!(on.len(), 1, "{}", plan.display_tree());
    assert!(filter.is_none());
    fn has_grouped_aggregate(p: &LogicalPlan) -> bool {
        matches!(p, LogicalPlan::Aggregate { group, .. } if group.len() == 1)
            || p.children().into_iter().any(has_grouped_aggregate)
    }
    assert!(has_grouped_aggregate(right), "{}", plan.display_tree());
    // Q21: the non-equality correlation stays in the semi / anti join's filter.
    let plan = catalog.bind(&tpch_query(21)).unwrap();
    for kind in [JoinKind::Semi, JoinKind::Anti] {
        let Some(LogicalPlan::Join {
            filter: Some(f), ..
        }) = find_join(&plan, kind)
        else {
            panic!("{kind:?} without filter")
        };
        assert!(f.to_string().contains("<>"), "{f}");
    }
}

#[test]
fn date_arithmetic_is_folded_for_filters() {
    let catalog = tpch_catalog();
    let plan = catalog.bind(&tpch_query(1)).unwrap();
    let tree = plan.display_tree();
    // date '1998-12-01' - interval '90' day is the literal 1998-09-02.
    assert!(tree.contains("<= 1998-09-02"), "{tree}");
    let plan = catalog.bind(&tpch_query(6)).unwrap();
    let tree = plan.display_tree();
    assert!(
        tree.contains(">= 0.05") && tree.contains("<= 0.07") && tree.contains("< 24.00"),
        "{tree}"
    );
}

/// Prints the bound plans: `cargo test -p quiver-sql --release print_tpch_plans -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_tpch_plans() {
    let catalog = tpch_catalog();
    for n in 1..=22 {
        let plan = catalog.bind(&tpch_query(n)).unwrap();
        println!("Q{n}\n{}", plan.display_tree());
        println!(
            "Q{n} optimized\n{}",
            quiver_plan::optimizer::optimize(plan)
                .unwrap()
                .display_tree()
        );
    }
}
