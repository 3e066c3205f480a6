//! Column pruning: each node keeps only the columns someone above reads,
//! so scans touch and joins carry the fewest columns.

use std::collections::HashSet;

use crate::expr::ColumnId;
use crate::plan::LogicalPlan;

pub fn prune_columns(plan: LogicalPlan) -> LogicalPlan {
    let all = plan.schema().iter().map(|c| c.id).collect();
    prune(plan, &all)
}

fn prune(plan: LogicalPlan, required: &HashSet<ColumnId>) -> LogicalPlan {
    match plan {
        LogicalPlan::Scan {
            table,
            columns,
            filters,
            filter_columns,
        } => {
            let mut filtered = HashSet::new();
            for f in &filters {
                f.collect_columns(&mut filtered);
            }
            let all = || columns.iter().chain(&filter_columns);
            let kept: Vec<_> = all()
                .filter(|(_, c)| required.contains(&c.id))
                .cloned()
                .collect();
            let filter_only: Vec<_> = all()
                .filter(|(_, c)| filtered.contains(&c.id) && !required.contains(&c.id))
                .cloned()
                .collect();
            // Nothing needed (COUNT(*), `SELECT 1 FROM t`): a scan of no
            // column still yields its batches' row counts, and reads nothing.
            LogicalPlan::Scan {
                table,
                columns: kept,
                filters,
                filter_columns: filter_only,
            }
        }
        LogicalPlan::Project { input, exprs } => {
            let kept: Vec<_> = exprs
                .into_iter()
                .filter(|(c, _)| required.contains(&c.id))
                .collect();
            let mut need = HashSet::new();
            for (_, e) in &kept {
                e.collect_columns(&mut need);
            }
            LogicalPlan::Project {
                input: Box::new(prune(*input, &need)),
                exprs: kept,
            }
        }
        LogicalPlan::Filter { input, predicate } => {
            let mut need = required.clone();
            predicate.collect_columns(&mut need);
            LogicalPlan::Filter {
                input: Box::new(prune(*input, &need)),
                predicate,
            }
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter,
        } => {
            let mut need = required.clone();
            for (l, r) in &on {
                l.collect_columns(&mut need);
                r.collect_columns(&mut need);
            }
            if let Some(f) = &filter {
                f.collect_columns(&mut need);
            }
            let left = prune(*left, &need);
            let right = prune(*right, &need);
            LogicalPlan::Join {
                left: Box::new(left),
                right: Box::new(right),
                kind,
                on,
                filter,
            }
        }
        LogicalPlan::Aggregate { input, group, aggs } => {
            let aggs: Vec<_> = aggs
                .into_iter()
                .filter(|(c, _)| required.contains(&c.id))
                .collect();
            let mut need = HashSet::new();
            for (_, e) in &group {
                e.collect_columns(&mut need);
            }
            for (_, a) in &aggs {
                for e in a.exprs() {
                    e.collect_columns(&mut need);
                }
            }
            LogicalPlan::Aggregate {
                input: Box::new(prune(*input, &need)),
                group,
                aggs,
            }
        }
        LogicalPlan::Window { input, exprs } => {
            let mut need = required.clone();
            for (_, w) in &exprs {
                for e in &w.args {
                    e.collect_columns(&mut need);
                }
                for e in &w.partition_by {
                    e.collect_columns(&mut need);
                }
                for k in &w.order_by {
                    k.expr.collect_columns(&mut need);
                }
            }
            LogicalPlan::Window {
                input: Box::new(prune(*input, &need)),
                exprs,
            }
        }
        LogicalPlan::Sort { input, keys, fetch } => {
            let mut need = required.clone();
            for k in &keys {
                k.expr.collect_columns(&mut need);
            }
            LogicalPlan::Sort {
                input: Box::new(prune(*input, &need)),
                keys,
                fetch,
            }
        }
        LogicalPlan::Limit { input, skip, fetch } => LogicalPlan::Limit {
            input: Box::new(prune(*input, required)),
            skip,
            fetch,
        },
        LogicalPlan::Union { inputs, columns } => LogicalPlan::Union {
            inputs: inputs
                .into_iter()
                .map(|i| {
                    let all = i.schema().iter().map(|c| c.id).collect();
                    prune(i, &all)
                })
                .collect(),
            columns,
        },
        // Every JSON_TABLE column stays (they are made together).
        LogicalPlan::JsonTable {
            input,
            doc,
            def,
            columns,
        } => {
            let mut need = required.clone();
            doc.collect_columns(&mut need);
            LogicalPlan::JsonTable {
                input: Box::new(prune(*input, &need)),
                doc,
                def,
                columns,
            }
        }
        // The counts and every column decide which rows are kept.
        LogicalPlan::SetOp { input, kind } => {
            let all = input.schema().iter().map(|c| c.id).collect();
            LogicalPlan::SetOp {
                input: Box::new(prune(*input, &all)),
                kind,
            }
        }
        LogicalPlan::RecursiveCte {
            anchor,
            recursive,
            work,
            distinct,
            max_iterations,
            columns,
        } => {
            let all = |p: &LogicalPlan| p.schema().iter().map(|c| c.id).collect();
            let (a, r) = (all(&anchor), all(&recursive));
            LogicalPlan::RecursiveCte {
                anchor: Box::new(prune(*anchor, &a)),
                recursive: Box::new(prune(*recursive, &r)),
                work,
                distinct,
                max_iterations,
                columns,
            }
        }
        leaf @ (LogicalPlan::Values { .. } | LogicalPlan::WorkTable { .. }) => leaf,
    }
}
