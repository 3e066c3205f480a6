//! Join ordering: a tree of inner joins is flattened into relations and
//! conditions, then rebuilt greedily, always joining the connected pair with
//! the smallest estimated result, the smaller side as the hash table's build
//! side (the right child). Cross products are made only when nothing connects.

use std::collections::HashSet;

use super::cardinality::estimate_rows;
use crate::expr::{ColumnId, Expr};
use crate::plan::{JoinKind, LogicalPlan};

pub fn reorder_joins(plan: LogicalPlan) -> LogicalPlan {
    match plan {
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            ..
        } => {
            let mut relations = Vec::new();
            let mut conditions = Vec::new();
            flatten(plan, &mut relations, &mut conditions);
            let relations = relations.into_iter().map(reorder_joins).collect();
            greedy(relations, conditions)
        }
        other => map_children(other, reorder_joins),
    }
}

fn flatten(plan: LogicalPlan, relations: &mut Vec<LogicalPlan>, conditions: &mut Vec<Expr>) {
    match plan {
        LogicalPlan::Join {
            left,
            right,
            kind: JoinKind::Inner,
            on,
            filter,
        } => {
            flatten(*left, relations, conditions);
            flatten(*right, relations, conditions);
            conditions.extend(
                on.into_iter()
                    .map(|(l, r)| Expr::binary(crate::expr::BinaryOp::Eq, l, r)),
            );
            if let Some(f) = filter {
                conditions.extend(f.split_conjunction());
            }
        }
        LogicalPlan::Filter { input, predicate }
            if matches!(
                *input,
                LogicalPlan::Join {
                    kind: JoinKind::Inner,
                    ..
                }
            ) =>
        {
            flatten(*input, relations, conditions);
            conditions.extend(predicate.split_conjunction());
        }
        other => relations.push(other),
    }
}

struct Part {
    plan: LogicalPlan,
    ids: HashSet<ColumnId>,
    rows: f64,
}

fn greedy(relations: Vec<LogicalPlan>, mut conditions: Vec<Expr>) -> LogicalPlan {
    let mut parts: Vec<Part> = relations
        .into_iter()
        .map(|plan| Part {
            ids: plan.schema().iter().map(|c| c.id).collect(),
            rows: estimate_rows(&plan),
            plan,
        })
        .collect();
    while parts.len() > 1 {
        let mut best: Option<(usize, usize, f64)> = None;
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                let connected = conditions.iter().any(|c| {
                    let cols = c.columns();
                    !cols.is_disjoint(&parts[i].ids) && !cols.is_disjoint(&parts[j].ids) && {
                        let both: HashSet<ColumnId> =
                            parts[i].ids.union(&parts[j].ids).copied().collect();
                        cols.is_subset(&both)
                    }
                });
                if !connected {
                    continue;
                }
                let rows = estimate_rows(&join_of(&parts[i], &parts[j], &conditions));
                if best.is_none_or(|(_, _, r)| rows < r) {
                    best = Some((i, j, rows));
                }
            }
        }
        let (i, j) = match best {
            Some((i, j, _)) => (i, j),
            None => {
                // Nothing connects: cross the two smallest.
                let mut order: Vec<usize> = (0..parts.len()).collect();
                order.sort_by(|a, b| parts[*a].rows.total_cmp(&parts[*b].rows));
                (order[0].min(order[1]), order[0].max(order[1]))
            }
        };
        let b = parts.remove(j);
        let a = parts.remove(i);
        let ids: HashSet<ColumnId> = a.ids.union(&b.ids).copied().collect();
        // Conditions now fully covered go into this join.
        let (here, rest): (Vec<Expr>, Vec<Expr>) = conditions
            .into_iter()
            .partition(|c| c.columns().is_subset(&ids));
        conditions = rest;
        let (probe, build) = if a.rows >= b.rows { (a, b) } else { (b, a) };
        let plan = LogicalPlan::Join {
            left: Box::new(probe.plan),
            right: Box::new(build.plan),
            kind: JoinKind::Inner,
            on: vec![],
            filter: Expr::conjunction(here),
        };
        let rows = estimate_rows(&super::pushdown::push_down_predicates(plan.clone()));
        parts.push(Part { plan, ids, rows });
    }
    let last = parts.pop().expect("at least one relation").plan;
    match Expr::conjunction(conditions) {
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(last),
            predicate,
        },
        None => last,
    }
}

fn join_of(a: &Part, b: &Part, conditions: &[Expr]) -> LogicalPlan {
    let ids: HashSet<ColumnId> = a.ids.union(&b.ids).copied().collect();
    let here: Vec<Expr> = conditions
        .iter()
        .filter(|c| c.columns().is_subset(&ids))
        .cloned()
        .collect();
    super::pushdown::push_down_predicates(LogicalPlan::Join {
        left: Box::new(a.plan.clone()),
        right: Box::new(b.plan.clone()),
        kind: JoinKind::Inner,
        on: vec![],
        filter: Expr::conjunction(here),
    })
}

pub(crate) fn map_children(
    plan: LogicalPlan,
    f: impl Fn(LogicalPlan) -> LogicalPlan,
) -> LogicalPlan {
    match plan {
        LogicalPlan::Filter { input, predicate } => LogicalPlan::Filter {
            input: Box::new(f(*input)),
            predicate,
        },
        LogicalPlan::Project { input, exprs } => LogicalPlan::Project {
            input: Box::new(f(*input)),
            exprs,
        },
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter,
        } => LogicalPlan::Join {
            left: Box::new(f(*left)),
            right: Box::new(f(*right)),
            kind,
            on,
            filter,
        },
        LogicalPlan::Aggregate { input, group, aggs } => LogicalPlan::Aggregate {
            input: Box::new(f(*input)),
            group,
            aggs,
        },
        LogicalPlan::Window { input, exprs } => LogicalPlan::Window {
            input: Box::new(f(*input)),
            exprs,
        },
        LogicalPlan::Sort { input, keys, fetch } => LogicalPlan::Sort {
            input: Box::new(f(*input)),
            keys,
            fetch,
        },
        LogicalPlan::Limit { input, skip, fetch } => LogicalPlan::Limit {
            input: Box::new(f(*input)),
            skip,
            fetch,
        },
        LogicalPlan::Union { inputs, columns } => LogicalPlan::Union {
            inputs: inputs.into_iter().map(f).collect(),
            columns,
        },
        leaf => leaf,
    }
}
