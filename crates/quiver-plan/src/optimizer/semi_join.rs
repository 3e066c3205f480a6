//! Semi-join pushdown: a selective `EXISTS` / `IN` filter is moved below the
//! inner joins under it, onto the relation that holds its keys, so that rows
//! are dropped before they are joined (TPC-H Q18: 57 orders out of 1.5M are
//! kept before lineitem is joined, not after). A semi join keeps or drops
//! each row of its input unchanged, so it commutes with filters, with either
//! side of an inner join and with the preserved side of outer, single, semi
//! and anti joins. It moves only when the estimate says it removes at least
//! half of the rows where it lands; an unselective one (Q21's EXISTS) stays
//! on top, where fewer rows probe it.

use std::collections::HashSet;

use super::cardinality::estimate_rows;
use crate::expr::{ColumnId, Expr};
use crate::plan::{JoinKind, LogicalPlan};

pub fn push_down_semi_joins(plan: LogicalPlan) -> LogicalPlan {
    let plan = plan.map_children(push_down_semi_joins);
    match plan {
        LogicalPlan::Join {
            left,
            right,
            kind: JoinKind::Semi,
            on,
            filter,
        } => {
            let right_ids: HashSet<ColumnId> = right.schema().iter().map(|c| c.id).collect();
            let mut needed: HashSet<ColumnId> = on.iter().flat_map(|(l, _)| l.columns()).collect();
            if let Some(f) = &filter {
                needed.extend(f.columns().into_iter().filter(|c| !right_ids.contains(c)));
            }
            let semi = SemiJoin {
                right: *right,
                on,
                filter,
            };
            match sink(*left, &semi, &needed, 0) {
                Ok(plan) => plan,
                Err(left) => semi.over(left),
            }
        }
        other => other,
    }
}

struct SemiJoin {
    right: LogicalPlan,
    on: Vec<(Expr, Expr)>,
    filter: Option<Expr>,
}

impl SemiJoin {
    fn over(&self, input: LogicalPlan) -> LogicalPlan {
        LogicalPlan::Join {
            left: Box::new(input),
            right: Box::new(self.right.clone()),
            kind: JoinKind::Semi,
            on: self.on.clone(),
            filter: self.filter.clone(),
        }
    }

    /// Worth placing over `input`: it keeps at most half of its rows.
    fn selective_over(&self, input: &LogicalPlan) -> bool {
        let plan = self.over(input.clone());
        estimate_rows(&plan) <= 0.5 * estimate_rows(input)
    }
}

fn ids(plan: &LogicalPlan) -> HashSet<ColumnId> {
    plan.schema().iter().map(|c| c.id).collect()
}

/// Places the semi join as deep in `plan` as its columns allow. `Err` gives
/// the plan back untouched when the semi join should stay above it (moved,
/// never copied: the size of the `Err` does not matter).
#[allow(clippy::result_large_err)]
fn sink(
    plan: LogicalPlan,
    semi: &SemiJoin,
    needed: &HashSet<ColumnId>,
    depth: usize,
) -> Result<LogicalPlan, LogicalPlan> {
    let here = |plan: LogicalPlan| -> Result<LogicalPlan, LogicalPlan> {
        // At the top it is where it was; deeper only if it pays.
        if depth > 0 && semi.selective_over(&plan) {
            Ok(semi.over(plan))
        } else {
            Err(plan)
        }
    };
    match plan {
        LogicalPlan::Filter { input, predicate } => match sink(*input, semi, needed, depth + 1) {
            Ok(input) => Ok(LogicalPlan::Filter {
                input: Box::new(input),
                predicate,
            }),
            Err(input) => here(LogicalPlan::Filter {
                input: Box::new(input),
                predicate,
            }),
        },
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter,
        } => {
            let into_left = needed.is_subset(&ids(&left));
            let into_right =
                kind == JoinKind::Inner && !into_left && needed.is_subset(&ids(&right));
            let rebuild = |left: LogicalPlan, right: LogicalPlan| LogicalPlan::Join {
                left: Box::new(left),
                right: Box::new(right),
                kind,
                on: on.clone(),
                filter: filter.clone(),
            };
            if into_left {
                match sink(*left, semi, needed, depth + 1) {
                    Ok(l) => Ok(rebuild(l, *right)),
                    Err(l) => here(rebuild(l, *right)),
                }
            } else if into_right {
                match sink(*right, semi, needed, depth + 1) {
                    Ok(r) => Ok(rebuild(*left, r)),
                    Err(r) => here(rebuild(*left, r)),
                }
            } else {
                here(rebuild(*left, *right))
            }
        }
        other => here(other),
    }
}
