//! Copies of plans with new column ids, so that a copy can sit in the same
//! query as its original (ids must be unique in a query). The binder uses it
//! to compute the distinct outer values a correlated subquery is evaluated
//! for (a "magic set") from a copy of the outer block.

use std::collections::HashMap;

use crate::expr::{ColumnId, Expr};
use crate::plan::{ColumnInfo, JoinKind, LogicalPlan};

/// `plan` with every column it produces renamed to an id from `next_id`;
/// `ids` maps the old ids to the new ones (reads of columns produced outside
/// `plan` are left as they are).
pub fn copy_with_fresh_ids(
    plan: &LogicalPlan,
    next_id: &mut dyn FnMut() -> ColumnId,
    ids: &mut HashMap<ColumnId, ColumnId>,
) -> LogicalPlan {
    let mut copier = Copier { next_id, ids };
    copier.copy(plan)
}

struct Copier<'a> {
    next_id: &'a mut dyn FnMut() -> ColumnId,
    ids: &'a mut HashMap<ColumnId, ColumnId>,
}

impl Copier<'_> {
    fn expr(&self, e: &Expr) -> Expr {
        e.clone().transform(&mut |e| match e {
            Expr::Column(id, t) => Expr::Column(self.ids.get(&id).copied().unwrap_or(id), t),
            other => other,
        })
    }

    fn exprs(&self, v: &[Expr]) -> Vec<Expr> {
        v.iter().map(|e| self.expr(e)).collect()
    }

    fn fresh_id(&mut self, old: ColumnId) -> ColumnId {
        let id = (self.next_id)();
        self.ids.insert(old, id);
        id
    }

    fn column(&mut self, c: &ColumnInfo) -> ColumnInfo {
        ColumnInfo {
            id: self.fresh_id(c.id),
            ..c.clone()
        }
    }

    fn sort_keys(&self, keys: &[crate::expr::SortExpr]) -> Vec<crate::expr::SortExpr> {
        keys.iter()
            .map(|k| crate::expr::SortExpr {
                expr: self.expr(&k.expr),
                ..k.clone()
            })
            .collect()
    }

    fn copy(&mut self, plan: &LogicalPlan) -> LogicalPlan {
        match plan {
            LogicalPlan::Scan {
                table,
                columns,
                filters,
                filter_columns,
            } => {
                let columns = columns.iter().map(|(i, c)| (*i, self.column(c))).collect();
                let filter_columns = filter_columns
                    .iter()
                    .map(|(i, c)| (*i, self.column(c)))
                    .collect();
                LogicalPlan::Scan {
                    table: table.clone(),
                    columns,
                    filters: self.exprs(filters),
                    filter_columns,
                }
            }
            LogicalPlan::Values { columns, rows } => {
                let rows = rows.iter().map(|r| self.exprs(r)).collect();
                let columns = columns.iter().map(|c| self.column(c)).collect();
                LogicalPlan::Values { columns, rows }
            }
            LogicalPlan::Filter { input, predicate } => {
                let input = self.copy(input);
                LogicalPlan::Filter {
                    input: Box::new(input),
                    predicate: self.expr(predicate),
                }
            }
            LogicalPlan::Project { input, exprs } => {
                let input = self.copy(input);
                let exprs = exprs
                    .iter()
                    .map(|(c, e)| {
                        let e = self.expr(e);
                        (self.column(c), e)
                    })
                    .collect();
                LogicalPlan::Project {
                    input: Box::new(input),
                    exprs,
                }
            }
            LogicalPlan::Join {
                left,
                right,
                kind,
                on,
                filter,
            } => {
                let left = self.copy(left);
                let right = self.copy(right);
                let on = on
                    .iter()
                    .map(|(l, r)| (self.expr(l), self.expr(r)))
                    .collect();
                let filter = filter.as_ref().map(|f| self.expr(f));
                let kind = match *kind {
                    JoinKind::Mark { mark, null_aware } => JoinKind::Mark {
                        mark: self.fresh_id(mark),
                        null_aware,
                    },
                    other => other,
                };
                LogicalPlan::Join {
                    left: Box::new(left),
                    right: Box::new(right),
                    kind,
                    on,
                    filter,
                }
            }
            LogicalPlan::Aggregate { input, group, aggs } => {
                let input = self.copy(input);
                let group = group
                    .iter()
                    .map(|(c, e)| {
                        let e = self.expr(e);
                        (self.column(c), e)
                    })
                    .collect();
                let aggs = aggs
                    .iter()
                    .map(|(c, a)| {
                        let mut a = a.clone();
                        for e in a.exprs_mut() {
                            *e = self.expr(e);
                        }
                        (self.column(c), a)
                    })
                    .collect();
                LogicalPlan::Aggregate {
                    input: Box::new(input),
                    group,
                    aggs,
                }
            }
            LogicalPlan::Window { input, exprs } => {
                let input = self.copy(input);
                let exprs = exprs
                    .iter()
                    .map(|(c, w)| {
                        let mut w = w.clone();
                        w.args = self.exprs(&w.args);
                        w.partition_by = self.exprs(&w.partition_by);
                        w.order_by = self.sort_keys(&w.order_by);
                        (self.column(c), w)
                    })
                    .collect();
                LogicalPlan::Window {
                    input: Box::new(input),
                    exprs,
                }
            }
            LogicalPlan::Sort { input, keys, fetch } => {
                let input = self.copy(input);
                LogicalPlan::Sort {
                    input: Box::new(input),
                    keys: self.sort_keys(keys),
                    fetch: *fetch,
                }
            }
            LogicalPlan::Limit { input, skip, fetch } => LogicalPlan::Limit {
                input: Box::new(self.copy(input)),
                skip: *skip,
                fetch: *fetch,
            },
            LogicalPlan::Union { inputs, columns } => {
                let inputs = inputs.iter().map(|i| self.copy(i)).collect();
                let columns = columns.iter().map(|c| self.column(c)).collect();
                LogicalPlan::Union { inputs, columns }
            }
            LogicalPlan::SetOp { input, kind } => LogicalPlan::SetOp {
                input: Box::new(self.copy(input)),
                kind: *kind,
            },
            LogicalPlan::JsonTable {
                input,
                doc,
                def,
                columns,
            } => {
                let input = self.copy(input);
                LogicalPlan::JsonTable {
                    input: Box::new(input),
                    doc: self.expr(doc),
                    def: def.clone(),
                    columns: columns.iter().map(|c| self.column(c)).collect(),
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
                let anchor = self.copy(anchor);
                let recursive = self.copy(recursive);
                let columns = columns.iter().map(|c| self.column(c)).collect();
                LogicalPlan::RecursiveCte {
                    anchor: Box::new(anchor),
                    recursive: Box::new(recursive),
                    work: *work,
                    distinct: *distinct,
                    max_iterations: *max_iterations,
                    columns,
                }
            }
            LogicalPlan::WorkTable { work, columns } => LogicalPlan::WorkTable {
                work: *work,
                columns: columns.iter().map(|c| self.column(c)).collect(),
            },
        }
    }
}
