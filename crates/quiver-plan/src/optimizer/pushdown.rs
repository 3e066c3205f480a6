//! Predicate pushdown: every conjunct moves as close to the data as its
//! columns allow; equalities across the two sides of a join become join keys.
//! An OR across both sides of an inner join stays on the join, and what it
//! implies for each side alone is pushed there too (see [`implied_by_or`]).

use std::collections::{HashMap, HashSet};

use crate::expr::{BinaryOp, ColumnId, Expr, UnaryOp};
use crate::plan::{JoinKind, LogicalPlan};

pub fn push_down_predicates(plan: LogicalPlan) -> LogicalPlan {
    push(plan, Vec::new())
}

fn ids(plan: &LogicalPlan) -> HashSet<ColumnId> {
    plan.schema().iter().map(|c| c.id).collect()
}

fn covered(e: &Expr, cols: &HashSet<ColumnId>) -> bool {
    e.columns().is_subset(cols)
}

fn with_filter(plan: LogicalPlan, preds: Vec<Expr>) -> LogicalPlan {
    match Expr::conjunction(preds) {
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        },
        None => plan,
    }
}

/// A conjunct `l = r` with one side over `left` and the other over `right`.
fn as_join_key(
    e: &Expr,
    left: &HashSet<ColumnId>,
    right: &HashSet<ColumnId>,
) -> Option<(Expr, Expr)> {
    if let Expr::Binary {
        op: BinaryOp::Eq,
        left: a,
        right: b,
    } = e
    {
        let (ca, cb) = (a.columns(), b.columns());
        if ca.is_empty() || cb.is_empty() {
            return None;
        }
        if ca.is_subset(left) && cb.is_subset(right) {
            return Some(((**a).clone(), (**b).clone()));
        }
        if ca.is_subset(right) && cb.is_subset(left) {
            return Some(((**b).clone(), (**a).clone()));
        }
    }
    None
}

/// What an OR over both sides of an inner join implies for one side: the
/// OR of each branch's conjuncts over `side` alone (TPC-H Q19: the parts of
/// three brands and containers, the quantities of three ranges). A joined
/// row that passes the OR passes one of its branches, so its `side` row
/// passes that branch's part: rows failing every part can go before the
/// join. None unless every branch has such a part. Only plain tests of
/// columns against constants are taken, which cannot fail (an error) on the
/// rows the join would have dropped.
fn implied_by_or(p: &Expr, side: &HashSet<ColumnId>) -> Option<Expr> {
    if !matches!(
        p,
        Expr::Binary {
            op: BinaryOp::Or,
            ..
        }
    ) {
        return None;
    }
    let mut parts = Vec::new();
    for branch in p.clone().split_disjunction() {
        let own: Vec<Expr> = branch
            .split_conjunction()
            .into_iter()
            .filter(|c| !c.columns().is_empty() && covered(c, side) && is_plain_test(c))
            .collect();
        parts.push(Expr::conjunction(own)?);
    }
    parts
        .into_iter()
        .reduce(|a, b| Expr::binary(BinaryOp::Or, a, b))
}

/// A comparison, IN list, LIKE or NULL test of a column against constants,
/// or AND / OR / NOT of those.
fn is_plain_test(e: &Expr) -> bool {
    fn operand(e: &Expr) -> bool {
        match e {
            Expr::Column(..) | Expr::Literal(..) => true,
            Expr::Collate { expr, .. } => operand(expr),
            _ => false,
        }
    }
    match e {
        Expr::Binary { op, left, right } if op.is_comparison() => operand(left) && operand(right),
        Expr::Binary {
            op: BinaryOp::And | BinaryOp::Or,
            left,
            right,
        } => is_plain_test(left) && is_plain_test(right),
        Expr::Unary {
            op: UnaryOp::Not,
            expr,
        } => is_plain_test(expr),
        Expr::Unary {
            op: UnaryOp::IsNull | UnaryOp::IsNotNull,
            expr,
        } => operand(expr),
        Expr::InList { expr, list, .. } => {
            operand(expr) && list.iter().all(|v| matches!(v, Expr::Literal(..)))
        }
        Expr::Like { expr, pattern, .. } => operand(expr) && operand(pattern),
        _ => false,
    }
}

fn push(plan: LogicalPlan, mut preds: Vec<Expr>) -> LogicalPlan {
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            preds.extend(predicate.split_conjunction());
            push(*input, preds)
        }
        LogicalPlan::Scan {
            table,
            columns,
            mut filters,
            filter_columns,
        } => {
            for p in preds {
                // A predicate derived again by a later pass is there already.
                if !filters.contains(&p) {
                    filters.push(p);
                }
            }
            LogicalPlan::Scan {
                table,
                columns,
                filters,
                filter_columns,
            }
        }
        LogicalPlan::Project { input, exprs } => {
            // A predicate moves below the projection with each column read
            // as its expression, less a `Collate` node on top: that node
            // only says the column's collation to the operators above, and
            // the predicate's operators have theirs in their own operands'
            // nodes (a comparison resolved to utf8mb4_bin over a general_ci
            // column of a derived table compared under general_ci once
            // pushed down).
            let map: HashMap<ColumnId, Expr> = exprs
                .iter()
                .map(|(c, e)| {
                    let value = match e {
                        Expr::Collate { expr, .. } => expr.as_ref().clone(),
                        e => e.clone(),
                    };
                    (c.id, value)
                })
                .collect();
            let down: Vec<Expr> = preds.into_iter().map(|p| p.replace_columns(&map)).collect();
            LogicalPlan::Project {
                input: Box::new(push(*input, down)),
                exprs,
            }
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            mut on,
            filter,
        } => {
            let (lids, rids) = (ids(&left), ids(&right));
            let (mut to_left, mut to_right, mut keep) = (Vec::new(), Vec::new(), Vec::new());
            let mut join_filter = Vec::new();
            let own: Vec<Expr> = filter.map(|f| f.split_conjunction()).unwrap_or_default();
            match kind {
                JoinKind::Inner => {
                    for p in preds.into_iter().chain(own) {
                        if covered(&p, &lids) {
                            to_left.push(p);
                        } else if covered(&p, &rids) {
                            to_right.push(p);
                        } else if let Some(k) = as_join_key(&p, &lids, &rids) {
                            on.push(k);
                        } else {
                            to_left.extend(implied_by_or(&p, &lids));
                            to_right.extend(implied_by_or(&p, &rids));
                            join_filter.push(p);
                        }
                    }
                }
                _ => {
                    for p in preds {
                        if covered(&p, &lids) {
                            to_left.push(p);
                        } else {
                            keep.push(p);
                        }
                    }
                    for p in own {
                        if covered(&p, &rids) && !p.columns().is_empty() {
                            to_right.push(p);
                        } else if let Some(k) = as_join_key(&p, &lids, &rids) {
                            on.push(k);
                        } else {
                            join_filter.push(p);
                        }
                    }
                }
            }
            let join = LogicalPlan::Join {
                left: Box::new(push(*left, to_left)),
                right: Box::new(push(*right, to_right)),
                kind,
                on,
                filter: Expr::conjunction(join_filter),
            };
            with_filter(join, keep)
        }
        LogicalPlan::Aggregate { input, group, aggs } => {
            let group_ids: HashSet<ColumnId> = group.iter().map(|(c, _)| c.id).collect();
            let map: HashMap<ColumnId, Expr> =
                group.iter().map(|(c, e)| (c.id, e.clone())).collect();
            let (down, keep): (Vec<Expr>, Vec<Expr>) = preds
                .into_iter()
                .partition(|p| !p.columns().is_empty() && covered(p, &group_ids));
            let down = down.into_iter().map(|p| p.replace_columns(&map)).collect();
            with_filter(
                LogicalPlan::Aggregate {
                    input: Box::new(push(*input, down)),
                    group,
                    aggs,
                },
                keep,
            )
        }
        LogicalPlan::Sort {
            input,
            keys,
            fetch: None,
        } => LogicalPlan::Sort {
            input: Box::new(push(*input, preds)),
            keys,
            fetch: None,
        },
        LogicalPlan::Union { inputs, columns } => {
            let inputs = inputs
                .into_iter()
                .map(|input| {
                    let map: HashMap<ColumnId, Expr> = columns
                        .iter()
                        .zip(input.schema())
                        .map(|(u, c)| (u.id, c.expr()))
                        .collect();
                    let down = preds
                        .iter()
                        .map(|p| p.clone().replace_columns(&map))
                        .collect();
                    push(input, down)
                })
                .collect();
            LogicalPlan::Union { inputs, columns }
        }
        // A test of the input's columns alone holds for an input row
        // before JSON_TABLE makes its rows as after.
        LogicalPlan::JsonTable {
            input,
            doc,
            def,
            columns,
        } => {
            let below = ids(&input);
            let (down, keep): (Vec<Expr>, Vec<Expr>) =
                preds.into_iter().partition(|p| covered(p, &below));
            with_filter(
                LogicalPlan::JsonTable {
                    input: Box::new(push(*input, down)),
                    doc,
                    def,
                    columns,
                },
                keep,
            )
        }
        LogicalPlan::Window { input, exprs } => with_filter(
            LogicalPlan::Window {
                input: Box::new(push(*input, Vec::new())),
                exprs,
            },
            preds,
        ),
        LogicalPlan::Sort { input, keys, fetch } => with_filter(
            LogicalPlan::Sort {
                input: Box::new(push(*input, Vec::new())),
                keys,
                fetch,
            },
            preds,
        ),
        LogicalPlan::Limit { input, skip, fetch } => with_filter(
            LogicalPlan::Limit {
                input: Box::new(push(*input, Vec::new())),
                skip,
                fetch,
            },
            preds,
        ),
        LogicalPlan::SetOp { input, kind } => with_filter(
            LogicalPlan::SetOp {
                input: Box::new(push(*input, Vec::new())),
                kind,
            },
            preds,
        ),
        LogicalPlan::RecursiveCte {
            anchor,
            recursive,
            work,
            distinct,
            max_iterations,
            columns,
        } => with_filter(
            LogicalPlan::RecursiveCte {
                anchor: Box::new(push(*anchor, Vec::new())),
                recursive: Box::new(push(*recursive, Vec::new())),
                work,
                distinct,
                max_iterations,
                columns,
            },
            preds,
        ),
        leaf @ (LogicalPlan::Values { .. } | LogicalPlan::WorkTable { .. }) => {
            with_filter(leaf, preds)
        }
    }
}
