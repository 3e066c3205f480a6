//! Rewrite rules over logical plans, applied in a fixed order: aggregate
//! rewrites (shifted sums, distinct counts as two aggregates), predicate pushdown (which also turns WHERE equalities into join keys),
//! aggregates of decorrelated subqueries limited to the keys the outer side
//! can ask for, selective semi joins moved down onto the relation holding their keys,
//! join ordering by estimated cardinality, then column pruning.

mod cardinality;
mod distinct_split;
mod join_order;
mod prune;
mod pushdown;
mod reduce_subquery;
mod semi_join;
mod sum_shift;

use quiver_common::Result;

use crate::plan::LogicalPlan;

pub use cardinality::estimate_rows;

pub fn optimize(plan: LogicalPlan) -> Result<LogicalPlan> {
    let plan = sum_shift::shift_sums(plan);
    let plan = distinct_split::split_distinct_counts(plan);
    let plan = pushdown::push_down_predicates(plan);
    let plan = semi_join::push_down_semi_joins(plan);
    // After semi joins have moved: they are what makes an outer side's keys few.
    let plan = reduce_subquery::reduce_grouped_subqueries(plan);
    // ... and the semi joins that adds sink like the others.
    let plan = semi_join::push_down_semi_joins(plan);
    let plan = join_order::reorder_joins(plan);
    // Reordering exposes new places for predicates that spanned the old tree.
    let plan = pushdown::push_down_predicates(plan);
    Ok(prune::prune_columns(plan))
}
