//! WHERE, and subqueries decorrelated into joins (the executor never re-runs
//! a subquery per row).
//!
//! * `EXISTS` / `IN` / `= ANY` as WHERE conjuncts become Semi joins, `NOT
//!   EXISTS` an Anti join, `NOT IN` / `<> ALL` a null-aware Anti join; the
//!   subquery's correlation predicates become the join's condition (exact),
//!   the IN comparison its null-aware keys.
//! * A scalar subquery becomes a Single join (at most one match per row). A
//!   correlated one with aggregates is grouped by its correlation columns and
//!   joined on them; COUNT's 0 for rows without matches is restored with a CASE.
//! * Elsewhere (under OR, in the select list) EXISTS and IN are the Boolean
//!   column of a Mark join (TRUE / NULL / FALSE); `x < ANY (q)` and the other
//!   ordered quantified comparisons come from q's MIN or MAX and counts.
//! * `IN` over a subquery that always has one row (an aggregate without
//!   GROUP BY) is a comparison with its value.

use std::collections::{HashMap, HashSet};

use arrow_schema::DataType;
use quiver_common::types::{comparison_type, is_string};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{
    copy_with_fresh_ids, mark_column, AggExpr, AggFunc, BinaryOp, ColumnId, ColumnInfo, Expr,
    JoinKind, LogicalPlan,
};
use sqlparser::ast;

use super::coerce::{
    and, bool_lit, case, cast, compare, declared_parts, is_null, not, null_lit, or, to_bool,
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
        let mut pending = std::mem::take(&mut self.block.pending);
        pending.extend(joins);
        for mut j in pending {
            if nesting == Nesting::Subquery {
                plan = self.lift_outer_reads(&mut j, plan, correlation)?;
            }
            plan = self.attach_pending(j, plan);
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
                Ok(self
                    .in_join(expr, subquery, negated, ctx)?
                    .map(|j| Conjunct::Join(Box::new(j))))
            }
            // `x = ANY (q)` is `x IN (q)`; `x <> ALL (q)` is `x NOT IN (q)`.
            ast::Expr::AnyOp {
                left,
                compare_op: ast::BinaryOperator::Eq,
                right,
                ..
            } => match subquery_operand(right) {
                Some(q) => Ok(self
                    .in_join(left, q, negated, ctx)?
                    .map(|j| Conjunct::Join(Box::new(j)))),
                None => Ok(None),
            },
            ast::Expr::AllOp {
                left,
                compare_op: ast::BinaryOperator::NotEq,
                right,
            } => match subquery_operand(right) {
                Some(q) => Ok(self
                    .in_join(left, q, !negated, ctx)?
                    .map(|j| Conjunct::Join(Box::new(j)))),
                None => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// Binds a subquery of an expression, with the current block as its outer scope.
    pub(crate) fn subquery(&mut self, q: &ast::Query, scope: &Scope) -> Result<BoundQuery> {
        self.outer.push(scope.clone());
        let r = self.query(q, Nesting::Subquery);
        self.outer.pop();
        let b = r?;
        // Parameter relations read enclosing blocks' columns until attached.
        if outside_reference(&without_parameters(b.plan.clone())).is_some() {
            return Err(QuiverError::not_supported(
                "outer references in this part of a subquery (only WHERE conjuncts of the subquery itself may be correlated)",
            ));
        }
        Ok(b)
    }

    /// `x [NOT] IN (q)` as a WHERE conjunct: a Semi or null-aware Anti
    /// join; None when q always has one row (then it is a comparison).
    fn in_join(
        &mut self,
        lhs: &ast::Expr,
        q: &ast::Query,
        negated: bool,
        ctx: &Ctx,
    ) -> Result<Option<PendingJoin>> {
        check_in_subquery(q)?;
        let keys = self.operands(lhs, ctx)?;
        let sub = self.subquery(q, ctx.scope)?;
        if sub.visible != keys.len() {
            return Err(QuiverError::operand_columns(keys.len()));
        }
        if sub.always_one_row {
            return Ok(None);
        }
        let on = in_keys(keys, &sub.plan)?;
        let kind = if negated {
            JoinKind::NullAwareAnti {
                null_aware: on.len(),
            }
        } else {
            JoinKind::Semi
        };
        Ok(Some(PendingJoin {
            kind,
            right: sub.plan,
            on,
            filter: Expr::conjunction(sub.correlation),
        }))
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
        let value = self.single_join(sub)?.pop().expect("one column");
        Ok(match &declared {
            Some(t) => with_declared_scale(value, t),
            None => value,
        })
    }

    /// The visible columns of `sub` as values, through a Single join.
    fn single_join(&mut self, sub: BoundQuery) -> Result<Vec<Expr>> {
        let schema = sub.plan.schema();
        let (on, rest) = split_keys(sub.correlation.clone(), &plan_ids(&sub.plan));
        let correlated = !on.is_empty() || !rest.is_empty();
        let mut values = Vec::with_capacity(sub.visible);
        let items = select_items(&sub.plan);
        for (i, col) in schema[..sub.visible].iter().enumerate() {
            let mut value = subquery_value(col, items.as_ref().and_then(|v| v.get(i)));
            if correlated && sub.always_one_row {
                // The subquery has one row for every outer row, but the join
                // finds none where the inner side is empty: give those the
                // value of an aggregate over no rows (COUNT is 0).
                match sub
                    .empty_row
                    .get(i)
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
            values.push(value);
        }
        self.block.pending.push(PendingJoin {
            kind: JoinKind::Single,
            right: sub.plan,
            on,
            filter: Expr::conjunction(rest),
        });
        Ok(values)
    }

    /// A Mark join of the block with `sub`: its Boolean column is TRUE when
    /// a row of `sub` (correlated to the block's row) equals `keys`, NULL
    /// when one might but for NULLs, else FALSE. No keys: EXISTS.
    fn mark_join(&mut self, keys: Vec<Expr>, sub: BoundQuery) -> Result<Expr> {
        let inner_ids = plan_ids(&sub.plan);
        let mut on = in_keys(keys, &sub.plan)?;
        let null_aware = on.len();
        let (correlation, rest) = split_keys(sub.correlation, &inner_ids);
        on.extend(correlation);
        let mark = self
            .new_column("mark", DataType::Boolean, null_aware > 0)
            .id;
        self.block.pending.push(PendingJoin {
            kind: JoinKind::Mark { mark, null_aware },
            right: sub.plan,
            on,
            filter: Expr::conjunction(rest),
        });
        Ok(mark_column(mark, null_aware).expr())
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
        let value = self.mark_join(vec![], sub)?;
        Ok(if negated { not(value) } else { value })
    }

    /// `x IN (q)` as a value, with SQL's NULL rules: TRUE on a match; else
    /// FALSE if q is empty; else NULL if x is NULL or q has a NULL; else FALSE.
    /// A row `(a, b)` equals a row of q when every pair does, and is unequal
    /// when one pair is; otherwise (a NULL) the comparison is NULL.
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
        check_in_subquery(q)?;
        let keys = self.operands(lhs, ctx)?;
        let sub = self.subquery(q, ctx.scope)?;
        if sub.visible != keys.len() {
            return Err(QuiverError::operand_columns(keys.len()));
        }
        let value = if sub.always_one_row {
            // Exactly one row: IN is equality with it.
            let values = self.single_join(sub)?;
            let mut eq = bool_lit(true);
            for (k, v) in keys.into_iter().zip(values) {
                eq = and(eq, super::collation::compare(BinaryOp::Eq, k, v)?);
            }
            eq
        } else {
            self.mark_join(keys, sub)?
        };
        Ok(if negated { not(value) } else { value })
    }

    /// `x op ANY (q)` / `x op ALL (q)`.
    pub(crate) fn quantified_subquery(
        &mut self,
        lhs: &ast::Expr,
        op: &ast::BinaryOperator,
        rhs: &ast::Expr,
        all: bool,
        ctx: &Ctx,
    ) -> Result<Expr> {
        let Some(q) = subquery_operand(rhs) else {
            return Err(QuiverError::not_supported(
                "ANY / ALL over anything but a subquery",
            ));
        };
        use ast::BinaryOperator as B;
        let op = match op {
            B::Eq => BinaryOp::Eq,
            B::NotEq => BinaryOp::NotEq,
            B::Lt => BinaryOp::Lt,
            B::LtEq => BinaryOp::LtEq,
            B::Gt => BinaryOp::Gt,
            B::GtEq => BinaryOp::GtEq,
            other => {
                return Err(QuiverError::not_supported(format!(
                    "the operator {other} with ANY / ALL"
                )))
            }
        };
        // `x op ALL (q)` is `NOT (x op' ANY (q))` for the opposite op'.
        let (op, negated) = if all {
            (opposite(op), true)
        } else {
            (op, false)
        };
        let value = if op == BinaryOp::Eq {
            self.in_subquery_value(lhs, q, false, ctx)?
        } else {
            self.ordered_any(lhs, q, op, ctx)?
        };
        Ok(if negated { not(value) } else { value })
    }

    /// `x op ANY (q)` for `op` other than `=`, from q's row count, its
    /// non-NULL count and its MIN / MAX: TRUE if x op MAX (for < and <=) or
    /// x op MIN (for > and >=; both for <>); else FALSE if q is empty; else
    /// NULL if x or a value of q is NULL; else FALSE.
    fn ordered_any(
        &mut self,
        lhs: &ast::Expr,
        q: &ast::Query,
        op: BinaryOp,
        ctx: &Ctx,
    ) -> Result<Expr> {
        if !ctx.subqueries {
            return Err(QuiverError::not_supported(format!(
                "subqueries in the {}",
                ctx.clause.name()
            )));
        }
        check_in_subquery(q)?;
        let mut keys = self.operands(lhs, ctx)?;
        if keys.len() != 1 {
            return Err(QuiverError::operand_columns(1));
        }
        let x = keys.pop().expect("one operand");
        let sub = self.subquery(q, ctx.scope)?;
        if sub.visible != 1 {
            return Err(QuiverError::operand_columns(1));
        }
        let y = sub.plan.schema()[0].clone();
        let (mut plan, mut correlation) = (sub.plan, sub.correlation);
        let ids = plan_ids(&plan);
        if correlation
            .iter()
            .any(|p| correlation_key(p, &ids).is_none())
        {
            // The subquery's outer scope is this block's again.
            self.outer.push(ctx.scope.clone());
            let r = self.parameterize(plan, &mut correlation);
            self.outer.pop();
            plan = r?;
        }
        let (on, rest) = split_keys(correlation, &plan_ids(&plan));
        if !rest.is_empty() {
            return Err(QuiverError::internal(
                "a parameterized correlation is not an equality",
            ));
        }
        let correlated = !on.is_empty();
        let mut group = Vec::with_capacity(on.len());
        let mut join_on = Vec::with_capacity(on.len());
        for (outer, inner) in on {
            let c = self.new_column_for("correlation", &inner, true);
            join_on.push((outer, c.expr()));
            group.push((c, inner));
        }
        let int = DataType::Int64;
        let count = |func, arg| AggExpr {
            func,
            arg,
            distinct: false,
            data_type: DataType::Int64,
            concat: None,
        };
        let rows = self.new_column("count(*)", int.clone(), correlated);
        let values = self.new_column("count(y)", int, correlated);
        let mut aggs = vec![
            (rows.clone(), count(AggFunc::CountStar, None)),
            (values.clone(), count(AggFunc::Count, Some(y.expr()))),
        ];
        // MIN / MAX under the collation x and y compare in (for `b = ALL
        // (SELECT g ...)` the _bin one of b, not g's _ci one).
        let y_compared = if is_string(&y.data_type) && is_string(&x.data_type()) {
            let mut v = super::collation::collate_operands(vec![x.clone(), y.expr()], op.symbol())?;
            v.pop().expect("two operands")
        } else {
            y.expr()
        };
        let mut extreme = |binder: &mut Self, func: AggFunc, name: &str| {
            let c = binder.new_column_for(name, &y_compared, true);
            aggs.push((
                c.clone(),
                AggExpr {
                    func,
                    arg: Some(y_compared.clone()),
                    distinct: false,
                    data_type: y.data_type.clone(),
                    concat: None,
                },
            ));
            c.expr()
        };
        let cmp = super::collation::compare;
        let hit = match op {
            BinaryOp::Lt | BinaryOp::LtEq => {
                cmp(op, x.clone(), extreme(self, AggFunc::Max, "max(y)"))?
            }
            BinaryOp::Gt | BinaryOp::GtEq => {
                cmp(op, x.clone(), extreme(self, AggFunc::Min, "min(y)"))?
            }
            _ => {
                let lo = extreme(self, AggFunc::Min, "min(y)");
                let hi = extreme(self, AggFunc::Max, "max(y)");
                or(cmp(op, x.clone(), lo)?, cmp(op, x.clone(), hi)?)
            }
        };
        self.block.pending.push(PendingJoin {
            kind: JoinKind::Single,
            right: LogicalPlan::Aggregate {
                input: Box::new(plan),
                group,
                aggs,
            },
            on: join_on,
            filter: None,
        });
        let zero = || Expr::lit(ScalarValue::Int64(0));
        // No group for the row (correlated): q is empty.
        let empty = or(
            is_null(rows.expr(), false),
            compare(BinaryOp::Eq, rows.expr(), zero()),
        );
        Ok(case(
            vec![
                (empty, bool_lit(false)),
                (hit, bool_lit(true)),
                (
                    or(
                        is_null(x, false),
                        compare(BinaryOp::Lt, values.expr(), rows.expr()),
                    ),
                    null_lit(DataType::Boolean),
                ),
            ],
            Some(bool_lit(false)),
        ))
    }
}

impl Binder<'_> {
    /// Attaches a subquery's join to the block's plan `left`, first computing
    /// each parameter relation of the subquery that reads `left`'s columns.
    pub(crate) fn attach_pending(&mut self, j: PendingJoin, left: LogicalPlan) -> LogicalPlan {
        let ids = plan_ids(&left);
        let right = self.resolve_parameters(j.right, &left, &ids);
        PendingJoin { right, ..j }.attach(left)
    }

    /// Replaces the parameter relations of `plan` that read only `ids` by the
    /// distinct values of those columns in a copy of `outer` (a magic set).
    fn resolve_parameters(
        &mut self,
        plan: LogicalPlan,
        outer: &LogicalPlan,
        ids: &HashSet<ColumnId>,
    ) -> LogicalPlan {
        match plan {
            LogicalPlan::Values { columns, rows }
                if is_parameter(&columns, &rows)
                    && rows[0].iter().all(|e| e.columns().is_subset(ids)) =>
            {
                let mut map = HashMap::new();
                let mut next_id = || self.new_column("", DataType::Null, true).id;
                let copy = copy_with_fresh_ids(outer, &mut next_id, &mut map);
                let group = columns
                    .into_iter()
                    .zip(&rows[0])
                    .map(|(c, e)| {
                        let e = e.clone().transform(&mut |e| match e {
                            Expr::Column(id, t) => {
                                Expr::Column(map.get(&id).copied().unwrap_or(id), t)
                            }
                            other => other,
                        });
                        (c, e)
                    })
                    .collect();
                LogicalPlan::Aggregate {
                    input: Box::new(copy),
                    group,
                    aggs: vec![],
                }
            }
            other => other.map_children(|c| self.resolve_parameters(c, outer, ids)),
        }
    }

    /// A relation with one row per distinct value of the enclosing blocks'
    /// columns `outer`, filled in when the subquery is attached to the block
    /// holding them; its columns stand for `outer` inside the subquery.
    fn parameter(&mut self, outer: &[ColumnId]) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        let mut columns = Vec::with_capacity(outer.len());
        let mut row = Vec::with_capacity(outer.len());
        for id in outer {
            let Some(c) = self.outer_column(*id) else {
                return Err(QuiverError::internal(format!(
                    "outer column #{} not in scope",
                    id.0
                )));
            };
            // Without collation: the distinct values and the join back on
            // them both use the default (byte) equality; predicates over
            // them keep the COLLATE they were written with.
            let mut p = self.new_column(c.name.clone(), c.data_type.clone(), true);
            p.collation = None;
            row.push(Expr::Column(c.id, c.data_type.clone()));
            columns.push(p);
        }
        Ok((
            LogicalPlan::Values {
                columns: columns.clone(),
                rows: vec![row],
            },
            columns,
        ))
    }

    fn outer_column(&self, id: ColumnId) -> Option<super::ScopeColumn> {
        self.outer
            .iter()
            .rev()
            .flat_map(|s| s.columns.iter())
            .find(|c| c.id == id)
            .cloned()
    }

    /// `parameter = outer` for each parameter column, as correlation keys.
    /// A plain equality (which no NULL passes) is right when the outer column
    /// is NOT NULL or when `preds` are never true for its NULL (`filters`:
    /// the subquery then has no rows for it either); otherwise the keys are
    /// NULL-safe.
    fn parameter_keys(
        &self,
        outer: &[ColumnId],
        columns: &[ColumnInfo],
        preds: &[&Expr],
        filters: bool,
    ) -> Result<Vec<Expr>> {
        let mut keys = Vec::with_capacity(outer.len());
        for (id, c) in outer.iter().zip(columns) {
            let inner = Expr::Column(c.id, c.data_type.clone());
            let outer = Expr::Column(*id, c.data_type.clone());
            let not_null = self.outer_column(*id).is_some_and(|c| !c.nullable);
            if not_null || (filters && preds.iter().any(|p| rejects_null(p, *id))) {
                keys.push(Expr::binary(BinaryOp::Eq, inner, outer));
            } else {
                keys.extend(null_safe_keys(inner, outer)?);
            }
        }
        Ok(keys)
    }

    /// An aggregated subquery correlated by other than `inner = outer`:
    /// the block is joined with the distinct outer values (a parameter
    /// relation) on those predicates, so that it can group by them, and is
    /// correlated by equality with them instead.
    pub(crate) fn parameterize(
        &mut self,
        plan: LogicalPlan,
        correlation: &mut Vec<Expr>,
    ) -> Result<LogicalPlan> {
        let inner_ids = plan_ids(&plan);
        let (mut keys, others): (Vec<Expr>, Vec<Expr>) = correlation
            .drain(..)
            .partition(|p| correlation_key(p, &inner_ids).is_some());
        let outer = outside_columns(others.iter(), &inner_ids);
        let (param, columns) = self.parameter(&outer)?;
        // An aggregate's empty group is what a missing group gives.
        keys.extend(self.parameter_keys(
            &outer,
            &columns,
            &others.iter().collect::<Vec<_>>(),
            true,
        )?);
        let map = parameter_map(&outer, &columns);
        let filter = Expr::conjunction(
            others
                .into_iter()
                .map(|p| p.replace_columns(&map))
                .collect(),
        );
        *correlation = keys;
        Ok(LogicalPlan::Join {
            left: Box::new(plan),
            right: Box::new(param),
            kind: JoinKind::Inner,
            on: vec![],
            filter,
        })
    }

    /// A subquery's join that reads columns of blocks further out than
    /// this one (a correlation two levels deep): they are read from a
    /// parameter relation joined to this block, and this block becomes
    /// correlated to them by equality.
    fn lift_outer_reads(
        &mut self,
        j: &mut PendingJoin,
        plan: LogicalPlan,
        correlation: &mut Vec<Expr>,
    ) -> Result<LogicalPlan> {
        let mut here = plan_ids(&plan);
        here.extend(plan_ids(&j.right));
        let reads: Vec<&Expr> = j.on.iter().map(|(l, _)| l).chain(&j.filter).collect();
        let outer = outside_columns(reads.iter().copied(), &here);
        if outer.is_empty() {
            return Ok(plan);
        }
        let (param, columns) = self.parameter(&outer)?;
        // A semi join drops the block's rows its predicates fail: none is
        // left for an outer NULL. Other joins keep them.
        let keys = self.parameter_keys(&outer, &columns, &reads, j.kind == JoinKind::Semi)?;
        let map = parameter_map(&outer, &columns);
        for (l, _) in &mut j.on {
            *l = l.clone().replace_columns(&map);
        }
        j.filter = j.filter.take().map(|f| f.replace_columns(&map));
        correlation.extend(keys);
        Ok(LogicalPlan::Join {
            left: Box::new(plan),
            right: Box::new(param),
            kind: JoinKind::Inner,
            on: vec![],
            filter: None,
        })
    }
}

/// A parameter relation: one row of references to enclosing blocks' columns.
/// `plan` with the outer columns its parameter relations read mapped by
/// `f` (a subquery that joins above an Aggregate reads the group keys'
/// columns, not the rows' it was bound over).
pub(crate) fn map_parameter_rows(
    plan: LogicalPlan,
    f: &mut dyn FnMut(&Expr) -> Result<Expr>,
) -> Result<LogicalPlan> {
    Ok(match plan {
        LogicalPlan::Values { columns, rows } if is_parameter(&columns, &rows) => {
            let rows = rows
                .iter()
                .map(|r| r.iter().map(&mut *f).collect::<Result<Vec<_>>>())
                .collect::<Result<Vec<_>>>()?;
            LogicalPlan::Values { columns, rows }
        }
        other => {
            let mut failed = None;
            let out = other.map_children(|c| match map_parameter_rows(c, f) {
                Ok(c) => c,
                Err(e) => {
                    failed.get_or_insert(e);
                    LogicalPlan::Values {
                        columns: vec![],
                        rows: vec![],
                    }
                }
            });
            match failed {
                Some(e) => return Err(e),
                None => out,
            }
        }
    })
}

fn is_parameter(columns: &[ColumnInfo], rows: &[Vec<Expr>]) -> bool {
    !columns.is_empty() && rows.len() == 1 && rows[0].iter().all(|e| matches!(e, Expr::Column(..)))
}

/// `plan` with its parameter relations emptied (they read outer columns).
fn without_parameters(plan: LogicalPlan) -> LogicalPlan {
    match plan {
        LogicalPlan::Values { columns, rows } if is_parameter(&columns, &rows) => {
            LogicalPlan::Values {
                columns,
                rows: vec![],
            }
        }
        other => other.map_children(without_parameters),
    }
}

/// Columns read by `preds` that are not in `inner`, in id order.
fn outside_columns<'e>(
    preds: impl Iterator<Item = &'e Expr>,
    inner: &HashSet<ColumnId>,
) -> Vec<ColumnId> {
    let mut ids: Vec<ColumnId> = preds
        .flat_map(|p| p.columns())
        .filter(|id| !inner.contains(id))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

fn parameter_map(outer: &[ColumnId], columns: &[ColumnInfo]) -> HashMap<ColumnId, Expr> {
    outer
        .iter()
        .zip(columns)
        .map(|(id, c)| (*id, Expr::Column(c.id, c.data_type.clone())))
        .collect()
}

/// `inner <=> outer` as two equalities a hash join can take as keys: the
/// values with NULL replaced by a stand-in of their type, and whether each
/// is NULL (which tells the stand-in from a real value).
fn null_safe_keys(inner: Expr, outer: Expr) -> Result<Vec<Expr>> {
    let t = inner.data_type();
    let stand_in = match &t {
        t if t.is_numeric() => cast(Expr::lit(ScalarValue::Int64(0)), t),
        DataType::Utf8 | DataType::LargeUtf8 => {
            Expr::Literal(ScalarValue::Utf8(String::new()), t.clone())
        }
        DataType::Date32 => Expr::Literal(ScalarValue::Date(0), t.clone()),
        DataType::Timestamp(..) => Expr::Literal(
            ScalarValue::DateTime(0, quiver_common::types::datetime_fsp(&t).unwrap_or(0)),
            t.clone(),
        ),
        DataType::Boolean => Expr::Literal(ScalarValue::Boolean(false), t.clone()),
        other => {
            return Err(QuiverError::not_supported(format!(
                "a correlation over a nullable {other} column that NULL may pass"
            )))
        }
    };
    let value = |e: Expr| Expr::Function {
        func: quiver_plan::ScalarFunc::Coalesce,
        args: vec![e, stand_in.clone()],
        data_type: t.clone(),
    };
    let null_flag = |e: Expr| {
        case(
            vec![(is_null(e, false), Expr::lit(ScalarValue::Int64(1)))],
            Some(Expr::lit(ScalarValue::Int64(0))),
        )
    };
    Ok(vec![
        Expr::binary(BinaryOp::Eq, value(inner.clone()), value(outer.clone())),
        Expr::binary(BinaryOp::Eq, null_flag(inner), null_flag(outer)),
    ])
}

/// Whether `e` is never TRUE when column `col` is NULL.
fn rejects_null(e: &Expr, col: ColumnId) -> bool {
    match e {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => rejects_null(left, col) || rejects_null(right, col),
        Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => rejects_null(left, col) && rejects_null(right, col),
        other => null_if_null(other, col),
    }
}

/// Whether `e` is NULL whenever column `col` is.
fn null_if_null(e: &Expr, col: ColumnId) -> bool {
    use quiver_plan::UnaryOp;
    match e {
        Expr::Column(id, _) => *id == col,
        Expr::Binary {
            op: BinaryOp::And | BinaryOp::Or,
            ..
        } => false,
        Expr::Binary { left, right, .. } => null_if_null(left, col) || null_if_null(right, col),
        Expr::Unary {
            op: UnaryOp::Not | UnaryOp::Neg,
            expr,
        } => null_if_null(expr, col),
        Expr::Cast { expr, .. } | Expr::Collate { expr, .. } => null_if_null(expr, col),
        Expr::Like { expr, pattern, .. } => null_if_null(expr, col) || null_if_null(pattern, col),
        Expr::InList { expr, .. } => null_if_null(expr, col),
        _ => false,
    }
}

/// The operator whose result is the negation of `op`'s (for non-NULLs).
fn opposite(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Eq => BinaryOp::NotEq,
        BinaryOp::NotEq => BinaryOp::Eq,
        BinaryOp::Lt => BinaryOp::GtEq,
        BinaryOp::LtEq => BinaryOp::Gt,
        BinaryOp::Gt => BinaryOp::LtEq,
        BinaryOp::GtEq => BinaryOp::Lt,
        other => other,
    }
}

/// The subquery of an ANY / ALL operand.
fn subquery_operand(e: &ast::Expr) -> Option<&ast::Query> {
    match e {
        ast::Expr::Subquery(q) => Some(q),
        ast::Expr::Nested(inner) => subquery_operand(inner),
        _ => None,
    }
}

/// MariaDB refuses LIMIT in an IN / ANY / ALL subquery.
fn check_in_subquery(q: &ast::Query) -> Result<()> {
    if q.limit_clause.is_some() {
        return Err(QuiverError::not_supported(
            "LIMIT & IN/ALL/ANY/SOME subquery",
        ));
    }
    Ok(())
}

/// The IN comparison as join keys: each operand against its column of
/// `plan`, both in their comparison type.
/// The select items of a subquery's plan (under its ORDER BY / LIMIT), if
/// its top is a projection: what its columns' collation derivations are.
fn select_items(mut plan: &LogicalPlan) -> Option<Vec<Expr>> {
    loop {
        match plan {
            LogicalPlan::Sort { input, .. } | LogicalPlan::Limit { input, .. } => plan = input,
            LogicalPlan::Project { exprs, .. } => {
                return Some(exprs.iter().map(|(_, e)| e.clone()).collect())
            }
            _ => return None,
        }
    }
}

/// A subquery's column as a value outside it, with the collation derivation
/// of its select item (`= (SELECT 'a')` compares as with a literal).
fn subquery_value(col: &ColumnInfo, item: Option<&Expr>) -> Expr {
    let value = col.expr();
    match item {
        Some(item) if is_string(&item.data_type()) && is_string(&col.data_type) => {
            let (c, coercibility) = super::derivation::derivation(item);
            let bare = match value {
                Expr::Collate { expr, .. } => *expr,
                v => v,
            };
            // Built as is: `with_collation` leaves the default collation
            // unmarked, which would read as a column's IMPLICIT.
            if (c, coercibility) == super::derivation::derivation(&bare) {
                bare
            } else {
                Expr::Collate {
                    expr: Box::new(bare),
                    collation: c,
                    coercibility,
                }
            }
        }
        _ => value,
    }
}

/// `keys IN (plan)` as equi-join keys (outer, inner). String pairs compare
/// under their combined collation as `=` does (error 1267 if none): the
/// inner side keeps the derivation of its select item (`IN (SELECT 'a')`
/// is a literal's, COERCIBLE), not a column's.
fn in_keys(keys: Vec<Expr>, plan: &LogicalPlan) -> Result<Vec<(Expr, Expr)>> {
    let items = select_items(plan);
    keys.into_iter()
        .zip(plan.schema())
        .enumerate()
        .map(|(i, (k, c))| {
            let t = comparison_type(&k.data_type(), &c.data_type);
            let inner = subquery_value(&c, items.as_ref().and_then(|v| v.get(i)));
            let (k, inner) = (cast(k, &t), cast(inner, &t));
            if !is_string(&t) {
                return Ok((k, inner));
            }
            super::collation::collate_key_pair(k, inner)
        })
        .collect()
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
    let branches: Vec<Vec<Expr>> = e
        .clone()
        .split_disjunction()
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
