//! `COUNT(DISTINCT x) ... GROUP BY g` as two aggregates: `GROUP BY g, x`
//! removes the duplicates, then `COUNT(x) ... GROUP BY g` counts what is
//! left. The first is an ordinary hash aggregate, with its typed key maps,
//! its parallel partial tables and its collation-aware string keys, where a
//! DISTINCT aggregate keeps one set of boxed values per group and inserts
//! every row into it (allocating for each string). DuckDB and DataFusion
//! plan distinct aggregates the same way.
//!
//! Exact for every aggregate of the node being `COUNT(DISTINCT x)` of one
//! and the same `x`: equal values (under `x`'s collation, NULL with NULL)
//! become one row of the first aggregate, and COUNT(x) skips the NULL one.
//! With no GROUP BY, the second aggregate still answers one row (0 over no
//! input). `x` must be compared by the group key as DISTINCT compares it:
//! integers, decimals, dates and strings; not the `CONCAT` the binder makes
//! of `COUNT(DISTINCT a, b)` (its parts keep their own collations), nor
//! doubles (where DISTINCT folds -0 into 0).

use arrow_schema::DataType;

use crate::expr::{AggExpr, AggFunc, ColumnId, Expr};
use crate::plan::{ColumnInfo, LogicalPlan};

pub(super) fn split_distinct_counts(plan: LogicalPlan) -> LogicalPlan {
    let mut next_id = super::reduce_subquery::max_column_id(&plan) + 1;
    split(plan, &mut next_id)
}

fn split(plan: LogicalPlan, next_id: &mut u32) -> LogicalPlan {
    let plan = plan.map_children(|c| split(c, next_id));
    let LogicalPlan::Aggregate { input, group, aggs } = plan else {
        return plan;
    };
    let Some(x) = one_distinct_count_arg(&aggs) else {
        return LogicalPlan::Aggregate { input, group, aggs };
    };
    let x_id = ColumnId(*next_id);
    *next_id += 1;
    let x_type = x.data_type();
    let mut inner_group = group.clone();
    inner_group.push((ColumnInfo::plain(x_id, "distinct", x_type.clone(), true), x));
    // The second aggregate groups the first's keys under their collations.
    let outer_group = group
        .into_iter()
        .map(|(info, e)| {
            let column = Expr::Column(info.id, info.data_type.clone());
            let key = match e {
                Expr::Collate {
                    collation,
                    coercibility,
                    ..
                } => Expr::Collate {
                    expr: Box::new(column),
                    collation,
                    coercibility,
                },
                _ => column,
            };
            (info, key)
        })
        .collect();
    let outer_aggs = aggs
        .into_iter()
        .map(|(info, agg)| {
            let count = AggExpr {
                func: AggFunc::Count,
                arg: Some(Expr::Column(x_id, x_type.clone())),
                distinct: false,
                data_type: agg.data_type,
                concat: None,
            };
            (info, count)
        })
        .collect();
    LogicalPlan::Aggregate {
        input: Box::new(LogicalPlan::Aggregate {
            input,
            group: inner_group,
            aggs: vec![],
        }),
        group: outer_group,
        aggs: outer_aggs,
    }
}

/// The `x` of aggregates that are all `COUNT(DISTINCT x)` of one `x` of a
/// type the group key compares as DISTINCT does.
fn one_distinct_count_arg(aggs: &[(ColumnInfo, AggExpr)]) -> Option<Expr> {
    let (_, first) = aggs.first()?;
    let x = first.arg.as_ref()?;
    let all = aggs.iter().all(|(_, a)| {
        a.func == AggFunc::Count && a.distinct && a.concat.is_none() && a.arg.as_ref() == Some(x)
    });
    let comparable = match x.data_type() {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Decimal128(..)
        | DataType::Date32
        | DataType::Timestamp(..) => true,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => {
            !is_tuple_concat(x)
        }
        _ => false,
    };
    (all && comparable).then(|| x.clone())
}

/// The binder's `CASE WHEN <a part is NULL> THEN NULL ELSE CONCAT(..) END`
/// of `COUNT(DISTINCT a, b, ..)`, under a `Collate` node or not.
fn is_tuple_concat(e: &Expr) -> bool {
    match e {
        Expr::Collate { expr, .. } => is_tuple_concat(expr),
        Expr::Case { .. } => true,
        _ => false,
    }
}
