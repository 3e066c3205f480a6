//! Row-count estimates for join ordering: table sizes and distinct counts
//! from storage, textbook selectivities for predicates.

use std::collections::HashMap;

use crate::expr::{BinaryOp, ColumnId, Expr, UnaryOp};
use crate::plan::{JoinKind, LogicalPlan};

/// Distinct-value estimates of the columns a plan produces, where known.
pub type DistinctMap = HashMap<ColumnId, f64>;

pub fn estimate_rows(plan: &LogicalPlan) -> f64 {
    estimate(plan).0
}

pub(crate) fn estimate(plan: &LogicalPlan) -> (f64, DistinctMap) {
    match plan {
        LogicalPlan::Scan {
            table,
            columns,
            filters,
            filter_columns,
        } => {
            let rows = table.row_count() as f64;
            let mut ndv = DistinctMap::new();
            for (i, c) in columns.iter().chain(filter_columns) {
                let d = table
                    .distinct_estimate(*i)
                    .map(|d| d as f64)
                    .unwrap_or(rows);
                ndv.insert(c.id, d.max(1.0));
            }
            let sel: f64 = filters.iter().map(|f| selectivity(f, &ndv)).product();
            let out = (rows * sel).max(1.0);
            cap(&mut ndv, out);
            (out, ndv)
        }
        LogicalPlan::Values { rows, .. } => (rows.len() as f64, DistinctMap::new()),
        LogicalPlan::Filter { input, predicate } => {
            let (rows, mut ndv) = estimate(input);
            let sel: f64 = predicate
                .clone()
                .split_conjunction()
                .iter()
                .map(|f| selectivity(f, &ndv))
                .product();
            let out = (rows * sel).max(1.0);
            cap(&mut ndv, out);
            (out, ndv)
        }
        LogicalPlan::Project { input, exprs } => {
            let (rows, ndv) = estimate(input);
            let mut out = DistinctMap::new();
            for (c, e) in exprs {
                if let Expr::Column(id, _) = e {
                    if let Some(d) = ndv.get(id) {
                        out.insert(c.id, *d);
                    }
                }
            }
            (rows, out)
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter,
        } => {
            let (lr, lndv) = estimate(left);
            let (rr, rndv) = estimate(right);
            let mut ndv = lndv.clone();
            let key_ndv = |e: &Expr, m: &DistinctMap, rows: f64| match e {
                Expr::Column(id, _) => m.get(id).copied().unwrap_or(rows),
                _ => rows,
            };
            let rows = match kind {
                JoinKind::Inner => {
                    ndv.extend(rndv.clone());
                    let mut r = lr * rr;
                    // A side's distinct keys: the product of its key
                    // columns' distinct counts, but no more than its rows
                    // (keys are often correlated: a lineitem's part and
                    // supplier name one of few partsupp rows). The side
                    // with more distinct keys decides, as for one key.
                    let (mut kl, mut kr) = (1.0f64, 1.0f64);
                    for (l, rk) in on {
                        let (dl, dr) = (key_ndv(l, &lndv, lr), key_ndv(rk, &rndv, rr));
                        kl *= dl;
                        kr *= dr;
                        // A joined row's key is on both sides: at most the
                        // fewer distinct values of the two (Q9's green parts
                        // stay few after partsupp joins them).
                        let both = dl.min(dr);
                        for k in [l, rk] {
                            if let Expr::Column(id, _) = k {
                                ndv.insert(*id, both);
                            }
                        }
                    }
                    r /= kl.min(lr).max(kr.min(rr)).max(1.0);
                    if let Some(f) = filter {
                        // Over both sides' columns: a cross product's filter
                        // (Q7's pair of nations) is all that makes it small.
                        r *= f
                            .clone()
                            .split_conjunction()
                            .iter()
                            .map(|c| selectivity(c, &ndv))
                            .product::<f64>();
                    }
                    r
                }
                JoinKind::Left | JoinKind::Single | JoinKind::Mark { .. } => {
                    ndv.extend(rndv.clone());
                    lr
                }
                JoinKind::Semi => {
                    // The share of left keys that find a partner.
                    let mut s: f64 = 1.0;
                    for (l, rk) in on {
                        s = s.min(key_ndv(rk, &rndv, rr) / key_ndv(l, &lndv, lr).max(1.0));
                    }
                    lr * s.clamp(0.05, 1.0)
                }
                JoinKind::Anti | JoinKind::NullAwareAnti { .. } => lr * 0.5,
            };
            let rows = rows.max(1.0);
            cap(&mut ndv, rows);
            (rows, ndv)
        }
        LogicalPlan::Aggregate { input, group, .. } => {
            let (rows, ndv) = estimate(input);
            let mut groups = 1.0f64;
            let mut out = DistinctMap::new();
            for (c, e) in group {
                let d = match e {
                    Expr::Column(id, _) => ndv.get(id).copied().unwrap_or(rows / 10.0),
                    _ => rows / 10.0,
                };
                out.insert(c.id, d);
                groups *= d.max(1.0);
            }
            let rows = if group.is_empty() {
                1.0
            } else {
                groups.min(rows).max(1.0)
            };
            (rows, out)
        }
        LogicalPlan::Window { input, .. }
        | LogicalPlan::Sort {
            input, fetch: None, ..
        } => estimate(input),
        LogicalPlan::Sort {
            input,
            fetch: Some(n),
            ..
        } => {
            let (rows, ndv) = estimate(input);
            (rows.min(*n as f64), ndv)
        }
        LogicalPlan::Limit { input, fetch, .. } => {
            let (rows, ndv) = estimate(input);
            (fetch.map(|n| rows.min(n as f64)).unwrap_or(rows), ndv)
        }
        LogicalPlan::Union { inputs, .. } => {
            (inputs.iter().map(estimate_rows).sum(), DistinctMap::new())
        }
        LogicalPlan::SetOp { input, .. } => estimate(input),
        // A guess: the anchor's rows, ten rounds deep.
        LogicalPlan::RecursiveCte { anchor, .. } => {
            (estimate_rows(anchor) * 10.0, DistinctMap::new())
        }
        LogicalPlan::WorkTable { .. } => (100.0, DistinctMap::new()),
        // A guess: ten rows per document.
        LogicalPlan::JsonTable { input, .. } => (estimate_rows(input) * 10.0, DistinctMap::new()),
    }
}

fn cap(ndv: &mut DistinctMap, rows: f64) {
    for v in ndv.values_mut() {
        *v = v.min(rows);
    }
}

fn column_ndv(e: &Expr, ndv: &DistinctMap) -> Option<f64> {
    match e {
        Expr::Column(id, _) => ndv.get(id).copied(),
        Expr::Cast { expr, .. } => column_ndv(expr, ndv),
        _ => None,
    }
}

fn selectivity(e: &Expr, ndv: &DistinctMap) -> f64 {
    match e {
        Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } => {
            let d = column_ndv(left, ndv)
                .or_else(|| column_ndv(right, ndv))
                .unwrap_or(10.0);
            if left.columns().is_empty() || right.columns().is_empty() {
                1.0 / d.max(1.0)
            } else {
                0.1
            }
        }
        Expr::Binary {
            op: BinaryOp::NotEq,
            ..
        } => 0.9,
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => selectivity(left, ndv) * selectivity(right, ndv),
        Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => {
            let (a, b) = (selectivity(left, ndv), selectivity(right, ndv));
            (a + b - a * b).min(1.0)
        }
        Expr::Binary { op, .. } if op.is_comparison() => 0.4,
        Expr::InList {
            negated: false,
            expr,
            list,
        } => {
            let d = column_ndv(expr, ndv).unwrap_or(10.0);
            (list.len() as f64 / d.max(1.0)).min(1.0)
        }
        Expr::Like { negated: false, .. } => 0.2,
        Expr::Unary {
            op: UnaryOp::IsNull,
            ..
        } => 0.05,
        _ => 0.5,
    }
}
