//! Subquery reduction (a "magic set"): a decorrelated subquery that aggregates
//! by its correlation key computes a group for every key of its table, though
//! the outer query asks for few of them (TPC-H Q17: 200,000 groups of lineitem
//! by part, for the 204 parts of one brand and container). When a cheap plan
//! over one table, found below the outer side's inner and semi joins, already
//! holds every key the outer side can produce (Q17's filtered scan of `part`),
//! a copy of it semi-joins the aggregate's input first. Groups of other keys
//! could never find an outer row, so the answer does not change. DuckDB gets the
//! same effect from its delim join, which reuses the outer side itself; a copy
//! of a filtered scan is cheaper to repeat than the outer side is to keep.

use std::cell::Cell;
use std::collections::HashMap;

use arrow_schema::DataType;

use super::cardinality::estimate_rows;
use crate::expr::{ColumnId, Expr};
use crate::plan::{ColumnInfo, JoinKind, LogicalPlan};

/// How much smaller than the aggregate's groups the key set must be for the
/// extra semi join to pay for its probes.
const MIN_REDUCTION: f64 = 4.0;

pub fn reduce_grouped_subqueries(plan: LogicalPlan) -> LogicalPlan {
    let next_id = Cell::new(max_column_id(&plan) + 1);
    reduce(plan, &next_id)
}

fn reduce(plan: LogicalPlan, next_id: &Cell<u32>) -> LogicalPlan {
    let plan = plan.map_children(|c| reduce(c, next_id));
    match plan {
        LogicalPlan::Join {
            left,
            right,
            kind: kind @ (JoinKind::Single | JoinKind::Inner),
            on,
            filter,
        } => {
            let (left, right) = if let Some(r) = reduce_side(&left, &right, &on, next_id, false) {
                (left, Box::new(r))
            } else if kind == JoinKind::Inner {
                match reduce_side(&right, &left, &on, next_id, true) {
                    Some(l) => (Box::new(l), right),
                    None => (left, right),
                }
            } else {
                (left, right)
            };
            LogicalPlan::Join {
                left,
                right,
                kind,
                on,
                filter,
            }
        }
        other => other,
    }
}

/// `grouped` rewritten so that its aggregate sees only keys `outer` can hold,
/// or None when no key qualifies. `swapped`: `grouped` is the join's left side.
fn reduce_side(
    outer: &LogicalPlan,
    grouped: &LogicalPlan,
    on: &[(Expr, Expr)],
    next_id: &Cell<u32>,
    swapped: bool,
) -> Option<LogicalPlan> {
    let (agg_rows, agg_scanned) = aggregate_sizes(grouped)?;
    let mut best: Option<(f64, LogicalPlan, ColumnId, ColumnId, DataType)> = None;
    for (l, r) in on {
        let (outer_key, grouped_key) = if swapped { (r, l) } else { (l, r) };
        let (Expr::Column(oc, ot), Expr::Column(gc, gt)) = (outer_key, grouped_key) else {
            continue;
        };
        if ot != gt || !reducible_type(ot) {
            continue;
        }
        let Some(input_col) = group_input_column(grouped, *gc) else {
            continue;
        };
        let mut sources = Vec::new();
        key_sources(outer, *oc, &mut sources);
        for (plan, col) in sources {
            let rows = estimate_rows(&plan);
            let scanned = scanned_rows(&plan);
            // The copy must cost less than the subquery's own scans.
            if rows * MIN_REDUCTION > agg_rows || scanned > agg_scanned {
                continue;
            }
            if best.as_ref().is_none_or(|b| rows < b.0) {
                best = Some((rows, plan, col, input_col, ot.clone()));
            }
        }
    }
    let (_, source, source_col, input_col, data_type) = best?;
    let mut ids = HashMap::new();
    let source = fresh_ids(source, &mut ids, next_id);
    let key = ids[&source_col];
    Some(with_aggregate_input(grouped.clone(), &mut |input| {
        LogicalPlan::Join {
            left: Box::new(input),
            right: Box::new(source.clone()),
            kind: JoinKind::Semi,
            on: vec![(
                Expr::Column(input_col, data_type.clone()),
                Expr::Column(key, data_type.clone()),
            )],
            filter: None,
        }
    }))
}

/// Integers, dates and decimals compare by value alone; strings would need
/// their collations matched.
fn reducible_type(t: &DataType) -> bool {
    t.is_integer() || matches!(t, DataType::Date32 | DataType::Decimal128(..))
}

/// The aggregate's estimated groups and the rows its input scans, looking
/// through projections and filters above it.
fn aggregate_sizes(plan: &LogicalPlan) -> Option<(f64, f64)> {
    match plan {
        LogicalPlan::Project { input, .. } | LogicalPlan::Filter { input, .. } => {
            aggregate_sizes(input)
        }
        LogicalPlan::Aggregate { input, group, .. } if !group.is_empty() => {
            Some((estimate_rows(plan), scanned_rows(input)))
        }
        _ => None,
    }
}

/// The input column that output column `col` of `plan` groups by, when `col`
/// is (through projections and filters) a plain group key of the aggregate.
fn group_input_column(plan: &LogicalPlan, col: ColumnId) -> Option<ColumnId> {
    match plan {
        LogicalPlan::Filter { input, .. } => group_input_column(input, col),
        LogicalPlan::Project { input, exprs } => match exprs.iter().find(|(c, _)| c.id == col) {
            Some((_, Expr::Column(inner, _))) => group_input_column(input, *inner),
            _ => None,
        },
        LogicalPlan::Aggregate { group, .. } => match group.iter().find(|(c, _)| c.id == col) {
            Some((_, Expr::Column(inner, _))) => Some(*inner),
            _ => None,
        },
        _ => None,
    }
}

fn with_aggregate_input(
    plan: LogicalPlan,
    f: &mut impl FnMut(LogicalPlan) -> LogicalPlan,
) -> LogicalPlan {
    match plan {
        LogicalPlan::Filter { input, predicate } => LogicalPlan::Filter {
            input: Box::new(with_aggregate_input(*input, f)),
            predicate,
        },
        LogicalPlan::Project { input, exprs } => LogicalPlan::Project {
            input: Box::new(with_aggregate_input(*input, f)),
            exprs,
        },
        LogicalPlan::Aggregate { input, group, aggs } => LogicalPlan::Aggregate {
            input: Box::new(f(*input)),
            group,
            aggs,
        },
        other => other,
    }
}

/// A scan under filters and projections: cheap to run twice.
fn is_scan_chain(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Scan { .. } => true,
        LogicalPlan::Filter { input, .. } | LogicalPlan::Project { input, .. } => {
            is_scan_chain(input)
        }
        _ => false,
    }
}

fn scanned_rows(plan: &LogicalPlan) -> f64 {
    match plan {
        LogicalPlan::Scan { table, .. } => table.row_count() as f64,
        other => other.children().into_iter().map(scanned_rows).sum(),
    }
}

/// Scan chains in `plan` whose column (the second item) holds every value
/// that column `col` of `plan`'s output can hold: inner and semi joins only
/// drop rows, and an equi-join key has the values of its partner.
fn key_sources(plan: &LogicalPlan, col: ColumnId, out: &mut Vec<(LogicalPlan, ColumnId)>) {
    if is_scan_chain(plan) {
        out.push((plan.clone(), col));
        return;
    }
    let produces = |p: &LogicalPlan| p.schema().iter().any(|c| c.id == col);
    match plan {
        LogicalPlan::Filter { input, .. } => key_sources(input, col, out),
        LogicalPlan::Project { input, exprs } => {
            if let Some((_, Expr::Column(inner, _))) = exprs.iter().find(|(c, _)| c.id == col) {
                key_sources(input, *inner, out);
            }
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            ..
        } => {
            let in_left = produces(left);
            match kind {
                JoinKind::Inner | JoinKind::Semi => {
                    if in_left {
                        key_sources(left, col, out);
                    } else if *kind == JoinKind::Inner {
                        key_sources(right, col, out);
                    }
                    for (l, r) in on {
                        match (l, r) {
                            (Expr::Column(a, ta), Expr::Column(b, tb)) if ta == tb => {
                                if *a == col {
                                    key_sources(right, *b, out);
                                } else if *b == col {
                                    key_sources(left, *a, out);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                // Rows of the preserved side all survive, with their values.
                JoinKind::Left
                | JoinKind::Single
                | JoinKind::Anti
                | JoinKind::NullAwareAnti { .. }
                | JoinKind::Mark { .. }
                    if in_left =>
                {
                    key_sources(left, col, out)
                }
                _ => {}
            }
        }
        _ => {}
    }
}

pub(super) fn max_column_id(plan: &LogicalPlan) -> u32 {
    let own = plan.schema().iter().map(|c| c.id.0).max().unwrap_or(0);
    let own = match plan {
        LogicalPlan::Scan {
            columns,
            filter_columns,
            ..
        } => own.max(
            columns
                .iter()
                .chain(filter_columns)
                .map(|(_, c)| c.id.0)
                .max()
                .unwrap_or(0),
        ),
        _ => own,
    };
    plan.children()
        .into_iter()
        .map(max_column_id)
        .fold(own, u32::max)
}

/// A copy of a scan chain whose columns have new ids, so the copy can sit in
/// the same plan as the original; `ids` maps old ids to new.
fn fresh_ids(
    plan: LogicalPlan,
    ids: &mut HashMap<ColumnId, ColumnId>,
    next_id: &Cell<u32>,
) -> LogicalPlan {
    let fresh = |ids: &mut HashMap<ColumnId, ColumnId>, old: ColumnId| {
        let id = ColumnId(next_id.get());
        next_id.set(id.0 + 1);
        ids.insert(old, id);
        id
    };
    let remap = |e: Expr, ids: &HashMap<ColumnId, ColumnId>| {
        e.transform(&mut |e| match e {
            Expr::Column(id, t) => Expr::Column(ids.get(&id).copied().unwrap_or(id), t),
            other => other,
        })
    };
    match plan {
        LogicalPlan::Scan {
            table,
            columns,
            filters,
            filter_columns,
        } => {
            let mut renew = |cols: Vec<(usize, ColumnInfo)>| -> Vec<(usize, ColumnInfo)> {
                cols.into_iter()
                    .map(|(i, mut c)| {
                        c.id = fresh(ids, c.id);
                        (i, c)
                    })
                    .collect()
            };
            let columns = renew(columns);
            let filter_columns = renew(filter_columns);
            let filters = filters.into_iter().map(|f| remap(f, ids)).collect();
            LogicalPlan::Scan {
                table,
                columns,
                filters,
                filter_columns,
            }
        }
        LogicalPlan::Filter { input, predicate } => {
            let input = fresh_ids(*input, ids, next_id);
            LogicalPlan::Filter {
                input: Box::new(input),
                predicate: remap(predicate, ids),
            }
        }
        LogicalPlan::Project { input, exprs } => {
            let input = fresh_ids(*input, ids, next_id);
            let exprs = exprs
                .into_iter()
                .map(|(mut c, e)| {
                    let e = remap(e, ids);
                    c.id = fresh(ids, c.id);
                    (c, e)
                })
                .collect();
            LogicalPlan::Project {
                input: Box::new(input),
                exprs,
            }
        }
        other => other,
    }
}
