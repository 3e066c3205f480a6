//! WHERE, and subqueries decorrelated into joins (the executor never re-runs
//! a subquery per row).
//!
//! * `EXISTS` / `IN` as WHERE conjuncts become Semi joins, `NOT EXISTS` an Anti
//!   join, `NOT IN` a null-aware Anti join; the subquery's correlation
//!   predicates become the join's condition.
//! * A scalar subquery becomes a Single join (at most one match per row). A
//!   correlated one with aggregates is grouped by its correlation columns and
//!   joined on them; COUNT's 0 for rows without matches is restored with a CASE.
//! * Elsewhere (under OR, in the select list) EXISTS and IN are computed as
//!   values from joined aggregates.

use std::collections::HashSet;

use arrow_schema::DataType;
use quiver_common::types::comparison_type;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{AggExpr, AggFunc, BinaryOp, ColumnId, Expr, JoinKind, LogicalPlan};
use sqlparser::ast;

use super::coerce::{
    bool_lit, case, cast, compare, declared_parts, is_null, not, null_lit, or, to_bool,
    with_declared_scale,
};
use super::{
    outside_reference, plan_ids, Binder, BoundQuery, Clause, Ctx, Nesting, PendingJoin, Scope,
};

/// What a WHERE conjunct that is a subquery predicate turned into.
enum Conjunct {
    Join(Box<PendingJoin>),
    Constant(bool),
}

impl Binder<'_> {
    /// WHERE: subquery predicates become joins, the rest a Filter. In a
    /// subquery, conjuncts that read enclosing blocks are moved to `correlation`.
    pub(crate) fn where_clause(
        &mut self,
        w: &ast::Expr,
        mut plan: LogicalPlan,
        scope: &Scope,
        nesting: Nesting,
        correlation: &mut Vec<Expr>,
    ) -> Result<LogicalPlan> {
        let ctx = Ctx::new(scope, Clause::Where);
        let mut preds = Vec::new();
        let mut joins = Vec::new();
        for c in split_and(w) {
            match self.subquery_conjunct(c, &ctx)? {
                Some(Conjunct::Join(j)) => joins.push(*j),
                Some(Conjunct::Constant(b)) => preds.push(bool_lit(b)),
                None => preds.push(to_bool(self.expr(c, &ctx)?)),
            }
        }
        // Scalar subqueries first: predicates and semi-join keys may read their values.
        for j in std::mem::take(&mut self.block.pending) {
            plan = j.attach(plan);
        }
        for j in joins {
            plan = j.attach(plan);
        }
        let outer = self.outer_ids();
        let mut local = Vec::new();
        for p in preds.into_iter().flat_map(Expr::split_conjunction) {
            if matches!(p, Expr::Literal(ScalarValue::Boolean(true), _)) {
                continue;
            }
            if nesting == Nesting::Subquery && !p.columns().is_disjoint(&outer) {
                correlation.push(p);
            } else {
                local.push(factor_or(p));
            }
        }
        if let Some(predicate) = Expr::conjunction(
            local
                .into_iter()
                .flat_map(Expr::split_conjunction)
                .collect(),
        ) {
            plan = LogicalPlan::Filter {
                input: Box::new(plan),
                predicate,
            };
        }
        Ok(plan)
    }

    /// `[NOT] EXISTS (q)` and `x [NOT] IN (q)` as a WHERE conjunct.
    fn subquery_conjunct(&mut self, c: &ast::Expr, ctx: &Ctx) -> Result<Option<Conjunct>> {
        let (c, negated) = strip_not(c);
        match c {
            ast::Expr::Exists {
                subquery,
                negated: n,
            } => {
                let negated = negated != *n;
                let sub = self.subquery(subquery, ctx.scope)?;
                if sub.always_one_row {
                    // An aggregate without GROUP BY always has a row.
                    return Ok(Some(Conjunct::Constant(!negated)));
                }
                let kind = if negated {
                    JoinKind::Anti
                } else {
                    JoinKind::Semi
                };
                let filter = Expr::conjunction(sub.correlation);
                Ok(Some(Conjunct::Join(Box::new(PendingJoin {
                    kind,
                    right: sub.plan,
                    on: vec![],
                    filter,
                }))))
            }
            ast::Expr::InSubquery {
                expr,
                subquery,
                negated: n,
            } => {
                let negated = negated != *n;
                Ok(Some(Conjunct::Join(Box::new(
                    self.in_join(expr, subquery, negated, ctx)?,
                ))))
            }
            _ => Ok(None),
        }
    }

    /// Binds a subquery of an expression, with the current block as its outer scope.
    pub(crate) fn subquery(&mut self, q: &ast::Query, scope: &Scope) -> Result<BoundQuery> {
        self.outer.push(scope.clone());
        let r = self.query(q, Nesting::Subquery);
        self.outer.pop();
        let b = r?;
        if outside_reference(&b.plan).is_some() {
            return Err(QuiverError::not_supported(
                "outer references in this part of a subquery (only WHERE conjuncts of the subquery itself may be correlated)",
            ));
        }
        Ok(b)
    }

    fn in_join(
        &mut self,
        lhs: &ast::Expr,
        q: &ast::Query,
        negated: bool,
        ctx: &Ctx,
    ) -> Result<PendingJoin> {
        if q.limit_clause.is_some() {
            return Err(QuiverError::not_supported(
                "LIMIT & IN/ALL/ANY/SOME subquery",
            ));
        }
        let keys = self.operands(lhs, ctx)?;
        let sub = self.subquery(q, ctx.scope)?;
        if sub.visible != keys.len() {
            return Err(QuiverError::operand_columns(keys.len()));
        }
        if !sub.correlation.is_empty() && sub.always_one_row && !empty_is_null(&sub) {
            return Err(QuiverError::not_supported(
                "IN over a correlated subquery that counts",
            ));
        }
        let schema = sub.plan.schema();
        let on = keys
            .into_iter()
            .zip(&schema)
            .map(|(k, c)| {
                let t = comparison_type(&k.data_type(), &c.data_type);
                (cast(k, &t), cast(c.expr(), &t))
            })
            .collect();
        let kind = if negated {
            JoinKind::NullAwareAnti
        } else {
            JoinKind::Semi
        };
        Ok(PendingJoin {
            kind,
            right: sub.plan,
            on,
            filter: Expr::conjunction(sub.correlation),
        })
    }

    /// `(SELECT ...)` as a value: a Single join, and the value is its column.
    pub(crate) fn scalar_subquery(&mut self, q: &ast::Query, ctx: &Ctx) -> Result<Expr> {
        if !ctx.subqueries {
            return Err(QuiverError::not_supported(format!(
                "subqueries in the {}",
                ctx.clause.name()
            )));
        }
        let mut sub = self.subquery(q, ctx.scope)?;
        if sub.visible != 1 {
            return Err(QuiverError::operand_columns(1));
        }
        // A decimal rounded to its declared scale (AVG, a quotient) leaves the
        // subquery unrounded, as MariaDB's cached value does: arithmetic on it
        // sees every computed digit, comparisons and output the declared scale.
        let declared = pass_unrounded(&mut sub.plan);
        let col = sub.plan.schema()[0].clone();
        let (on, rest) = split_keys(sub.correlation.clone(), &plan_ids(&sub.plan));
        let mut value = col.expr();
        let correlated = !on.is_empty() || !rest.is_empty();
        if correlated && sub.always_one_row {
            // The subquery has one row for every outer row, but the join finds
            // none where the inner side is empty: give those the value of an
            // aggregate over no rows (COUNT is 0).
            match sub
                .empty_row
                .first()
                .cloned()
                .flatten()
                .map(|e| declared_parts(e).0)
            {
                Some(Expr::Literal(ScalarValue::Null, _)) => {}
                Some(empty) if !on.is_empty() => {
                    let matched = on[0].1.clone();
                    value = case(
                        vec![(is_null(matched, false), cast(empty, &col.data_type))],
                        Some(value),
                    );
                }
                _ => {
                    return Err(QuiverError::not_supported(
                        "this correlated scalar subquery",
                    ))
                }
            }
        }
        self.block.pending.push(PendingJoin {
            kind: JoinKind::Single,
            right: sub.plan,
            on,
            filter: Expr::conjunction(rest),
        });
        Ok(match &declared {
            Some(t) => with_declared_scale(value, t),
            None => value,
        })
    }

    /// `EXISTS (q)` as a value: whether the join to q's distinct correlation
    /// keys (or q's row count, when uncorrelated) finds anything.
    pub(crate) fn exists_value(
        &mut self,
        q: &ast::Query,
        negated: bool,
        ctx: &Ctx,
    ) -> Result<Expr> {
        if !ctx.subqueries {
            return Err(QuiverError::not_supported(format!(
                "subqueries in the {}",
                ctx.clause.name()
            )));
        }
        let sub = self.subquery(q, ctx.scope)?;
        if sub.always_one_row {
            return Ok(bool_lit(!negated));
        }
        let (on, rest) = split_keys(sub.correlation, &plan_ids(&sub.plan));
        if !rest.is_empty() {
            return Err(QuiverError::not_supported(
                "EXISTS with a non-equality correlation outside WHERE conjuncts",
            ));
        }
        let value = if on.is_empty() {
            let count = self.new_column("count(*)", DataType::Int64, false);
            let agg = AggExpr {
                func: AggFunc::CountStar,
                arg: None,
                distinct: false,
                data_type: DataType::Int64,
            };
            let right = LogicalPlan::Aggregate {
                input: Box::new(sub.plan),
                group: vec![],
                aggs: vec![(count.clone(), agg)],
            };
            self.block.pending.push(PendingJoin {
                kind: JoinKind::Single,
                right,
                on: vec![],
                filter: None,
            });
            compare(BinaryOp::Gt, count.expr(), Expr::lit(ScalarValue::Int64(0)))
        } else {
            let mut group = Vec::with_capacity(on.len());
            let mut keys = Vec::with_capacity(on.len());
            for (outer, inner) in on {
                let c = self.new_column("correlation", inner.data_type(), true);
                keys.push((outer, c.expr()));
                group.push((c, inner));
            }
            let marker = keys[0].1.clone();
            let right = LogicalPlan::Aggregate {
                input: Box::new(sub.plan),
                group,
                aggs: vec![],
            };
            self.block.pending.push(PendingJoin {
                kind: JoinKind::Single,
                right,
                on: keys,
                filter: None,
            });
            is_null(marker, true)
        };
        Ok(if negated { not(value) } else { value })
    }

    /// `x IN (q)` as a value, with SQL's NULL rules: TRUE on a match; else
    /// FALSE if q is empty; else NULL if x is NULL or q has a NULL; else FALSE.
    pub(crate) fn in_subquery_value(
        &mut self,
        lhs: &ast::Expr,
        q: &ast::Query,
        negated: bool,
        ctx: &Ctx,
    ) -> Result<Expr> {
        if !ctx.subqueries {
            return Err(QuiverError::not_supported(format!(
                "subqueries in the {}",
                ctx.clause.name()
            )));
        }
        if q.limit_clause.is_some() {
            return Err(QuiverError::not_supported(
                "LIMIT & IN/ALL/ANY/SOME subquery",
            ));
        }
        let mut keys = self.operands(lhs, ctx)?;
        if keys.len() != 1 {
            return Err(QuiverError::not_supported(
                "row IN subquery outside WHERE conjuncts",
            ));
        }
        let x = keys.pop().expect("one key");
        // The subquery is joined twice: once for matches, once for its counts.
        let matches = self.subquery(q, ctx.scope)?;
        if matches.visible != 1 {
            return Err(QuiverError::operand_columns(1));
        }
        if !matches.correlation.is_empty() {
            return Err(QuiverError::not_supported(
                "correlated IN subqueries outside WHERE conjuncts",
            ));
        }
        let counts = self.subquery(q, ctx.scope)?;
        let y = matches.plan.schema()[0].clone();
        let t = comparison_type(&x.data_type(), &y.data_type);
        let key = self.new_column("in_key", t.clone(), true);
        let right = LogicalPlan::Aggregate {
            input: Box::new(matches.plan),
            group: vec![(key.clone(), cast(y.expr(), &t))],
            aggs: vec![],
        };
        self.block.pending.push(PendingJoin {
            kind: JoinKind::Single,
            right,
            on: vec![(cast(x.clone(), &t), key.expr())],
            filter: None,
        });
        let y2 = counts.plan.schema()[0].clone();
        let rows = self.new_column("count(*)", DataType::Int64, false);
        let values = self.new_column("count(y)", DataType::Int64, false);
        let int = DataType::Int64;
        let aggs = vec![
            (
                rows.clone(),
                AggExpr {
                    func: AggFunc::CountStar,
                    arg: None,
                    distinct: false,
                    data_type: int.clone(),
                },
            ),
            (
                values.clone(),
                AggExpr {
                    func: AggFunc::Count,
                    arg: Some(y2.expr()),
                    distinct: false,
                    data_type: int,
                },
            ),
        ];
        let right = LogicalPlan::Aggregate {
            input: Box::new(counts.plan),
            group: vec![],
            aggs,
        };
        self.block.pending.push(PendingJoin {
            kind: JoinKind::Single,
            right,
            on: vec![],
            filter: None,
        });
        let zero = || Expr::lit(ScalarValue::Int64(0));
        let value = case(
            vec![
                (is_null(key.expr(), true), bool_lit(true)),
                (compare(BinaryOp::Eq, rows.expr(), zero()), bool_lit(false)),
                (
                    or(
                        is_null(x, false),
                        compare(BinaryOp::Lt, values.expr(), rows.expr()),
                    ),
                    null_lit(DataType::Boolean),
                ),
            ],
            Some(bool_lit(false)),
        );
        Ok(if negated { not(value) } else { value })
    }
}

fn empty_is_null(sub: &BoundQuery) -> bool {
    matches!(
        sub.empty_row.first(),
        Some(Some(Expr::Literal(ScalarValue::Null, _)))
    )
}

/// `inner = outer`, with `inner` reading only `inner_ids` and `outer` none of them.
pub(crate) fn correlation_key(p: &Expr, inner_ids: &HashSet<ColumnId>) -> Option<(Expr, Expr)> {
    let Expr::Binary {
        op: BinaryOp::Eq,
        left,
        right,
    } = p
    else {
        return None;
    };
    let (lc, rc) = (left.columns(), right.columns());
    let inner_only = |c: &HashSet<ColumnId>| !c.is_empty() && c.is_subset(inner_ids);
    let outer_only = |c: &HashSet<ColumnId>| !c.is_empty() && c.is_disjoint(inner_ids);
    if inner_only(&lc) && outer_only(&rc) {
        Some(((**left).clone(), (**right).clone()))
    } else if inner_only(&rc) && outer_only(&lc) {
        Some(((**right).clone(), (**left).clone()))
    } else {
        None
    }
}

/// Splits correlation predicates into join keys (outer, inner) and the rest.
fn split_keys(preds: Vec<Expr>, inner_ids: &HashSet<ColumnId>) -> (Vec<(Expr, Expr)>, Vec<Expr>) {
    let mut keys = Vec::new();
    let mut rest = Vec::new();
    for p in preds {
        match correlation_key(&p, inner_ids) {
            Some((inner, outer)) => keys.push((outer, inner)),
            None => rest.push(p),
        }
    }
    (keys, rest)
}

fn split_and(e: &ast::Expr) -> Vec<&ast::Expr> {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::And,
            right,
        } => {
            let mut v = split_and(left);
            v.extend(split_and(right));
            v
        }
        ast::Expr::Nested(inner)
            if matches!(
                **inner,
                ast::Expr::BinaryOp {
                    op: ast::BinaryOperator::And,
                    ..
                }
            ) =>
        {
            split_and(inner)
        }
        other => vec![other],
    }
}

/// Removes NOTs and parentheses around a subquery predicate.
fn strip_not(e: &ast::Expr) -> (&ast::Expr, bool) {
    match e {
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Not,
            expr,
        } => {
            let (inner, n) = strip_not(expr);
            (inner, !n)
        }
        ast::Expr::Nested(inner) => strip_not(inner),
        other => (other, false),
    }
}

/// `(a AND b) OR (a AND c)` is `a AND (b OR c)`: conjuncts common to every
/// branch of an OR are taken out, so join keys written in each branch (TPC-H
/// Q19) are seen as join keys.
fn factor_or(e: Expr) -> Expr {
    if !matches!(
        e,
        Expr::Binary {
            op: BinaryOp::Or,
            ..
        }
    ) {
        return e;
    }
    let branches: Vec<Vec<Expr>> = split_or(e.clone())
        .into_iter()
        .map(Expr::split_conjunction)
        .collect();
    let common: Vec<Expr> = branches[0]
        .iter()
        .filter(|c| branches[1..].iter().all(|b| b.contains(c)))
        .cloned()
        .collect();
    if common.is_empty() {
        return e;
    }
    let mut rest: Option<Expr> = None;
    for b in branches {
        let remaining: Vec<Expr> = b.into_iter().filter(|c| !common.contains(c)).collect();
        let Some(branch) = Expr::conjunction(remaining) else {
            // One branch is just the common part: the OR adds nothing.
            return Expr::conjunction(common).expect("common is not empty");
        };
        rest = Some(match rest {
            Some(r) => or(r, branch),
            None => branch,
        });
    }
    let mut terms = common;
    terms.extend(rest);
    Expr::conjunction(terms).expect("common is not empty")
}

fn split_or(e: Expr) -> Vec<Expr> {
    match e {
        Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => {
            let mut v = split_or(*left);
            v.extend(split_or(*right));
            v
        }
        other => vec![other],
    }
}

/// When `plan`'s first output is a decimal rounded to a declared scale by its
/// top projection, makes it the unrounded value and returns the declared type.
fn pass_unrounded(plan: &mut LogicalPlan) -> Option<DataType> {
    let LogicalPlan::Project { exprs, .. } = plan else {
        return None;
    };
    let (info, e) = exprs.first_mut()?;
    let (inner, declared) = declared_parts(e.clone());
    let declared = declared?;
    info.data_type = inner.data_type();
    *e = inner;
    Some(declared)
}
