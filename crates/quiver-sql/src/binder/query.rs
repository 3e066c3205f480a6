//! Queries: WITH, set operations, VALUES, and the SELECT block with its
//! GROUP BY / HAVING / window / DISTINCT / ORDER BY / LIMIT pipeline.

use std::collections::{BTreeSet, HashSet};

use super::collation::UnionCollation;
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{ColumnId, ColumnInfo, Expr, LogicalPlan, SortExpr};
use sqlparser::ast;

use super::aggregate::{empty_group_value, GroupRewrite};
use super::coerce::{branches_common_type, cast, fold, integer_decimal_type, to_bool};
use super::order::order_asc;
use super::subquery::correlation_key;
use super::{
    display_name, nullable, plan_ids, replace_exprs, Binder, BoundQuery, Clause, CteDef, Ctx,
    Nesting, PendingJoin, Scope, ScopeColumn, SelectItem,
};
use crate::parser::MAX_QUERY_DEPTH;

/// LIMIT / OFFSET values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limit {
    skip: usize,
    fetch: Option<usize>,
}

impl Limit {
    fn apply(self, plan: LogicalPlan) -> LogicalPlan {
        LogicalPlan::Limit {
            input: Box::new(plan),
            skip: self.skip,
            fetch: self.fetch,
        }
    }

    /// The number of rows a sort below this limit has to produce.
    fn sort_fetch(self) -> Option<usize> {
        self.fetch.map(|f| f.saturating_add(self.skip))
    }
}

fn sorted(plan: LogicalPlan, keys: Vec<SortExpr>, limit: Option<Limit>) -> LogicalPlan {
    let fetch = limit.and_then(Limit::sort_fetch);
    LogicalPlan::Sort {
        input: Box::new(plan),
        keys,
        fetch,
    }
}

pub(super) fn project(input: LogicalPlan, exprs: Vec<(ColumnInfo, Expr)>) -> LogicalPlan {
    LogicalPlan::Project {
        input: Box::new(input),
        exprs,
    }
}

impl Binder<'_> {
    /// Binds a query block (a subquery, derived table, CTE or view body
    /// inside another counts one level deeper).
    pub(crate) fn query(&mut self, q: &ast::Query, nesting: Nesting) -> Result<BoundQuery> {
        if self.query_depth >= MAX_QUERY_DEPTH {
            return Err(crate::parser::too_deep());
        }
        self.query_depth += 1;
        let bound = self.query_block(q, nesting);
        self.query_depth -= 1;
        bound
    }

    fn query_block(&mut self, q: &ast::Query, nesting: Nesting) -> Result<BoundQuery> {
        if q.fetch.is_some()
            || q.for_clause.is_some()
            || q.settings.is_some()
            || q.format_clause.is_some()
            || !q.pipe_operators.is_empty()
        {
            return Err(QuiverError::not_supported(format!("the query {q}")));
        }
        // FOR UPDATE / LOCK IN SHARE MODE (q.locks) need no locks here: reads see a snapshot.
        let base = self.ctes.len();
        let r = match &q.with {
            Some(with) => self
                .define_ctes(with)
                .and_then(|_| self.query_body(q, nesting)),
            None => self.query_body(q, nesting),
        };
        self.ctes.truncate(base);
        r
    }

    fn define_ctes(&mut self, with: &ast::With) -> Result<()> {
        let base = self.ctes.len();
        for cte in &with.cte_tables {
            if cte.from.is_some() {
                return Err(QuiverError::not_supported(format!(
                    "the common table expression {cte}"
                )));
            }
            let name = cte.alias.name.value.clone();
            if self.ctes[base..]
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(&name))
            {
                return Err(QuiverError::new(
                    1066,
                    "42000",
                    format!("Not unique table/alias: '{name}'"),
                ));
            }
            let columns = cte
                .alias
                .columns
                .iter()
                .map(|c| c.name.value.clone())
                .collect();
            // Under WITH RECURSIVE a CTE sees itself (MariaDB's mutual
            // recursion, a CTE reading a later one, is not supported).
            let visible = self.ctes.len() + usize::from(with.recursive);
            self.ctes.push(CteDef {
                name,
                columns,
                query: (*cte.query).clone(),
                visible,
                recursive: with.recursive,
            });
        }
        Ok(())
    }

    fn query_body(&mut self, q: &ast::Query, nesting: Nesting) -> Result<BoundQuery> {
        let limit = self.limit(q.limit_clause.as_ref())?;
        match &*q.body {
            ast::SetExpr::Select(s) => self.select(s, q.order_by.as_ref(), limit, nesting),
            body => {
                let bound = self.set_expr(body, nesting)?;
                self.order_outputs(bound, q.order_by.as_ref(), limit, nesting)
            }
        }
    }

    fn limit(&mut self, clause: Option<&ast::LimitClause>) -> Result<Option<Limit>> {
        let (limit, offset) = match clause {
            None => return Ok(None),
            Some(ast::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if !limit_by.is_empty() {
                    return Err(QuiverError::not_supported("LIMIT BY"));
                }
                (limit.as_ref(), offset.as_ref().map(|o| &o.value))
            }
            Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
                (Some(limit), Some(offset))
            }
        };
        let fetch = limit.map(|e| self.row_count(e)).transpose()?;
        let skip = offset.map(|e| self.row_count(e)).transpose()?.unwrap_or(0);
        if fetch.is_none() && skip == 0 {
            return Ok(None);
        }
        Ok(Some(Limit { skip, fetch }))
    }

    /// A LIMIT or OFFSET value: a non-negative integer constant.
    fn row_count(&mut self, e: &ast::Expr) -> Result<usize> {
        let scope = Scope::default();
        let ctx = Ctx {
            subqueries: false,
            ..Ctx::new(&scope, Clause::FieldList)
        };
        match fold(self.expr(e, &ctx)?) {
            Expr::Literal(ScalarValue::Int64(v), _) if v >= 0 => Ok(v as usize),
            Expr::Literal(ScalarValue::UInt64(v), _) => {
                Ok(usize::try_from(v).unwrap_or(usize::MAX))
            }
            _ => Err(self.syntax_error_at(e)),
        }
    }

    pub(super) fn set_expr(&mut self, body: &ast::SetExpr, nesting: Nesting) -> Result<BoundQuery> {
        match body {
            ast::SetExpr::Select(s) => self.select(s, None, None, nesting),
            ast::SetExpr::Query(q) => self.query(q, nesting),
            ast::SetExpr::SetOperation {
                op: ast::SetOperator::Union,
                ..
            } => self.union(body, nesting),
            ast::SetExpr::SetOperation {
                op: op @ (ast::SetOperator::Except | ast::SetOperator::Intersect),
                set_quantifier,
                left,
                right,
            } => self.except_intersect(*op, *set_quantifier, left, right, nesting),
            ast::SetExpr::SetOperation { op, .. } => {
                Err(QuiverError::not_supported(op.to_string()))
            }
            ast::SetExpr::Values(v) => self.values(v),
            other => Err(QuiverError::not_supported(format!("{other}"))),
        }
    }

    /// A chain of UNION [ALL | DISTINCT] operands, evaluated left to right: a
    /// DISTINCT union removes duplicates from everything to its left.
    fn union(&mut self, body: &ast::SetExpr, nesting: Nesting) -> Result<BoundQuery> {
        let mut operands = Vec::new();
        flatten_union(body, &mut operands)?;
        let mut plans = Vec::with_capacity(operands.len());
        for (operand, _) in &operands {
            plans.push(self.set_expr(operand, nesting)?);
        }
        // MySQL types each column from all operands at once: in
        // `1 UNION 1.5 UNION 'x'` the 1 becomes '1', not the text of 1.0.
        let plans = self.cast_to_common_types(plans);
        let width = plans.first().map_or(0, |b| b.plan.schema().len());
        for b in &plans {
            if !b.correlation.is_empty() {
                return Err(QuiverError::not_supported(
                    "correlated subqueries with UNION",
                ));
            }
            if b.plan.schema().len() != width {
                return Err(QuiverError::new(
                    1222,
                    "21000",
                    "The used SELECT statements have a different number of columns",
                ));
            }
        }
        // Collations too: a column's comes from every operand, and the
        // partial unions a DISTINCT makes compare under it.
        let inputs: Vec<&LogicalPlan> = plans.iter().map(|b| &b.plan).collect();
        let collations = union_collations(&inputs)?;
        let mut acc: Vec<LogicalPlan> = Vec::new();
        for (i, (b, (_, distinct))) in plans.into_iter().zip(operands).enumerate() {
            acc.push(b.plan);
            if distinct && i > 0 {
                let all = self.union_all(acc, &collations)?;
                acc = vec![self.distinct_rows(all)];
            }
        }
        let plan = if acc.len() == 1 {
            acc.pop().expect("one operand")
        } else {
            self.union_all(acc, &collations)?
        };
        Ok(BoundQuery {
            plan,
            visible: width,
            correlation: vec![],
            always_one_row: false,
            empty_row: vec![],
        })
    }

    /// Union operands with each column cast to the common type of all of
    /// them (operands of another width are left for `union` to reject).
    pub(super) fn cast_to_common_types(&mut self, operands: Vec<BoundQuery>) -> Vec<BoundQuery> {
        let schemas: Vec<Vec<ColumnInfo>> = operands.iter().map(|b| b.plan.schema()).collect();
        let width = schemas[0].len();
        if schemas.iter().any(|s| s.len() != width) {
            return operands;
        }
        let plans: Vec<&LogicalPlan> = operands.iter().map(|b| &b.plan).collect();
        let types = column_common_types(&plans, &schemas, width);
        operands
            .into_iter()
            .zip(schemas)
            .map(|(mut b, schema)| {
                if schema.iter().zip(&types).all(|(c, t)| &c.data_type == t) {
                    return b;
                }
                let plan = std::mem::replace(
                    &mut b.plan,
                    LogicalPlan::Values {
                        columns: vec![],
                        rows: vec![],
                    },
                );
                // A projection is cast in place, so a literal stays visible
                // to the collation rules of the union.
                let LogicalPlan::Project { input, exprs } = plan else {
                    let exprs = schema
                        .iter()
                        .zip(&types)
                        .map(|(c, t)| {
                            let mut n = self.new_column(c.name.clone(), t.clone(), c.nullable);
                            (n.collation, n.coercibility) = (c.collation, c.coercibility);
                            let declared = declared_through_cast(c, t);
                            self.set_declared(&mut n, declared);
                            (n, cast(c.expr(), t))
                        })
                        .collect();
                    b.plan = project(plan, exprs);
                    return b;
                };
                let exprs = exprs
                    .into_iter()
                    .zip(&types)
                    .map(|((c, e), t)| {
                        if &c.data_type == t {
                            (c, e)
                        } else {
                            let mut n = self.new_column(c.name.clone(), t.clone(), c.nullable);
                            (n.collation, n.coercibility) = (c.collation, c.coercibility);
                            let declared = declared_through_cast(&c, t);
                            self.set_declared(&mut n, declared);
                            (n, cast(e, t))
                        }
                    })
                    .collect();
                b.plan = project(*input, exprs);
                b
            })
            .collect()
    }

    /// UNION ALL of inputs with the same width: column types unified with
    /// `common_type` (inputs cast as needed), names from the first input.
    pub(super) fn union_all(
        &mut self,
        inputs: Vec<LogicalPlan>,
        collations: &[UnionCollation],
    ) -> Result<LogicalPlan> {
        let schemas: Vec<Vec<ColumnInfo>> = inputs.iter().map(LogicalPlan::schema).collect();
        let width = schemas[0].len();
        let types = column_common_types(&inputs.iter().collect::<Vec<_>>(), &schemas, width);
        let inputs = inputs
            .into_iter()
            .zip(&schemas)
            .map(|(p, schema)| {
                if schema.iter().zip(&types).all(|(c, t)| &c.data_type == t) {
                    return p;
                }
                let exprs = schema
                    .iter()
                    .zip(&types)
                    .map(|(c, t)| {
                        (
                            self.new_column(c.name.clone(), t.clone(), c.nullable),
                            cast(c.expr(), t),
                        )
                    })
                    .collect();
                project(p, exprs)
            })
            .collect();
        let columns = (0..width)
            .map(|j| {
                let nullable = schemas.iter().any(|s| s[j].nullable);
                let mut c = self.new_column(schemas[0][j].name.clone(), types[j].clone(), nullable);
                (c.collation, c.coercibility) = collations[j];
                // The longest of the inputs' lengths.
                // An integer input without a declared type is its kind at
                // full width (a table's INT is int(11)).
                let inputs: Vec<Option<String>> = schemas
                    .iter()
                    .map(|s| match union_int_input(&s[j]) {
                        Some(t) if s[j].data_type.is_integer() => Some(t),
                        _ => s[j].column_type.as_deref().map(str::to_string),
                    })
                    .collect();
                let declared = super::declared::declared_union(inputs.iter().map(|t| t.as_deref()));
                self.set_declared(&mut c, declared);
                // MySQL sends a UNION's column as one of a temporary table
                // named after the first SELECT's (no schema or table).
                let name = c.name.clone();
                self.set_origin(
                    &mut c,
                    std::sync::Arc::new(quiver_plan::ColumnOrigin {
                        schema: String::new(),
                        table: String::new(),
                        org_table: String::new(),
                        org_name: name,
                        field: None,
                    }),
                );
                c
            })
            .collect();
        Ok(LogicalPlan::Union { inputs, columns })
    }

    /// Duplicate removal: an Aggregate grouping on every column.
    pub(super) fn distinct_rows(&mut self, plan: LogicalPlan) -> LogicalPlan {
        let group = plan
            .schema()
            .into_iter()
            .map(|c| {
                let e = c.expr();
                (self.new_column_for(c.name.clone(), &e, c.nullable), e)
            })
            .collect();
        LogicalPlan::Aggregate {
            input: Box::new(plan),
            group,
            aggs: vec![],
        }
    }

    fn values(&mut self, v: &ast::Values) -> Result<BoundQuery> {
        let scope = Scope::default();
        let ctx = Ctx {
            subqueries: false,
            ..Ctx::new(&scope, Clause::FieldList)
        };
        let mut rows = Vec::with_capacity(v.rows.len());
        for (i, row) in v.rows.iter().enumerate() {
            let cells = row
                .content
                .iter()
                .map(|e| self.expr(e, &ctx).map(fold))
                .collect::<Result<Vec<_>>>()?;
            if rows
                .first()
                .is_some_and(|r: &Vec<Expr>| r.len() != cells.len())
            {
                return Err(QuiverError::column_count_mismatch(i + 1));
            }
            rows.push(cells);
        }
        let width = rows.first().map_or(0, Vec::len);
        let types: Vec<DataType> = (0..width)
            .map(|j| {
                branches_common_type(
                    &rows.iter().map(|r| r[j].data_type()).collect::<Vec<_>>(),
                    &rows
                        .iter()
                        .map(|r| integer_decimal_type(&r[j]))
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let rows: Vec<Vec<Expr>> = rows
            .into_iter()
            .map(|r| r.into_iter().zip(&types).map(|(e, t)| cast(e, t)).collect())
            .collect();
        let columns = (0..width)
            .map(|j| {
                let nullable = rows.iter().any(|r| nullable(&r[j], &[]));
                self.new_column(format!("column_{j}"), types[j].clone(), nullable)
            })
            .collect();
        Ok(BoundQuery {
            plan: LogicalPlan::Values { columns, rows },
            visible: width,
            correlation: vec![],
            always_one_row: false,
            empty_row: vec![],
        })
    }

    /// ORDER BY / LIMIT over the output of a set operation.
    fn order_outputs(
        &mut self,
        bound: BoundQuery,
        order_by: Option<&ast::OrderBy>,
        limit: Option<Limit>,
        nesting: Nesting,
    ) -> Result<BoundQuery> {
        if order_by.is_none() && limit.is_none() {
            return Ok(bound);
        }
        if !bound.correlation.is_empty() {
            return Err(QuiverError::not_supported(
                "ORDER BY or LIMIT around a correlated subquery",
            ));
        }
        let schema = bound.plan.schema();
        let scope = Scope {
            columns: schema.iter().map(|c| ScopeColumn::new(None, c)).collect(),
        };
        let items: Vec<SelectItem> = schema
            .iter()
            .map(|c| SelectItem {
                name: c.name.clone(),
                expr: c.expr(),
            })
            .collect();
        let saved = std::mem::take(&mut self.block);
        let keys = self.order_keys(order_by, &scope, &items, false);
        self.block = saved;
        let keys = keys?;
        let mut plan = bound.plan;
        if !keys.is_empty() && (nesting == Nesting::Top || limit.is_some()) {
            plan = sorted(plan, keys, limit);
        }
        if let Some(l) = limit {
            plan = l.apply(plan);
        }
        let exprs = schema
            .iter()
            .map(|c| {
                let mut n = self.new_column(c.name.clone(), c.data_type.clone(), c.nullable);
                self.set_declared(&mut n, c.column_type.clone());
                (n, c.expr())
            })
            .collect();
        Ok(BoundQuery {
            plan: project(plan, exprs),
            ..bound
        })
    }

    /// ORDER BY keys: ordinals and bare names refer to the select list first
    /// (MySQL), anything else is an expression over the FROM scope.
    fn order_keys(
        &mut self,
        order_by: Option<&ast::OrderBy>,
        scope: &Scope,
        items: &[SelectItem],
        aggregates: bool,
    ) -> Result<Vec<SortExpr>> {
        let Some(ob) = order_by else {
            return Ok(vec![]);
        };
        let exprs = match (&ob.kind, &ob.interpolate) {
            (ast::OrderByKind::Expressions(v), None) => v,
            _ => return Err(QuiverError::not_supported(format!("{ob}"))),
        };
        let ctx = Ctx {
            aliases: items,
            aggregates,
            windows: aggregates,
            ..Ctx::new(scope, Clause::Order)
        };
        let mut keys = Vec::with_capacity(exprs.len());
        for o in exprs {
            let asc = order_asc(o)?;
            let expr = match &o.expr {
                ast::Expr::Value(v) if matches!(&v.value, ast::Value::Number(n, _) if !n.contains(['.', 'e', 'E'])) =>
                {
                    let ast::Value::Number(n, _) = &v.value else {
                        unreachable!("matched a number")
                    };
                    match n
                        .parse::<usize>()
                        .ok()
                        .and_then(|k| k.checked_sub(1))
                        .and_then(|k| items.get(k))
                    {
                        Some(item) => item.expr.clone(),
                        None => return Err(QuiverError::unknown_column(n, Clause::Order.name())),
                    }
                }
                ast::Expr::Identifier(i) => {
                    let mut hits = items
                        .iter()
                        .filter(|it| it.name.eq_ignore_ascii_case(&i.value));
                    match hits.next() {
                        Some(first) => {
                            if hits.any(|h| h.expr != first.expr) {
                                return Err(QuiverError::ambiguous_column(
                                    &i.value,
                                    Clause::Order.name(),
                                ));
                            }
                            first.expr.clone()
                        }
                        None => self.expr(&o.expr, &ctx)?,
                    }
                }
                e => self.expr(e, &ctx)?,
            };
            // An ENUM / SET sorts by its code.
            let expr = super::members::code_key(expr);
            // A constant does not order anything.
            if !matches!(expr, Expr::Literal(..)) {
                keys.push(SortExpr {
                    expr: super::collation::collated(expr),
                    asc,
                    nulls_first: asc,
                });
            }
        }
        Ok(keys)
    }

    fn select(
        &mut self,
        s: &ast::Select,
        order_by: Option<&ast::OrderBy>,
        limit: Option<Limit>,
        nesting: Nesting,
    ) -> Result<BoundQuery> {
        check_select(s)?;
        let saved = std::mem::take(&mut self.block);
        let r = self.select_block(s, order_by, limit, nesting);
        self.block = saved;
        r
    }

    fn select_block(
        &mut self,
        s: &ast::Select,
        order_by: Option<&ast::OrderBy>,
        limit: Option<Limit>,
        nesting: Nesting,
    ) -> Result<BoundQuery> {
        let (mut plan, scope) = self.bind_from(&s.from)?;
        self.define_windows(&s.named_window)?;
        let mut correlation = Vec::new();
        if let Some(w) = &s.selection {
            plan = self.where_clause(w, plan, &scope, nesting, &mut correlation)?;
        }
        if !correlation.is_empty() && limit.is_some() {
            return Err(QuiverError::not_supported("LIMIT in a correlated subquery"));
        }
        let mut input_ids = plan_ids(&plan);

        let mut items = self.select_items(&s.projection, &scope)?;
        let (group_asts, rollup) = match &s.group_by {
            ast::GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => {
                (exprs, false)
            }
            ast::GroupByExpr::Expressions(exprs, modifiers)
                if !exprs.is_empty() && modifiers[..] == [ast::GroupByWithModifier::Rollup] =>
            {
                (exprs, true)
            }
            other => return Err(QuiverError::not_supported(format!("{other}"))),
        };
        if rollup && order_by.is_some() {
            return Err(QuiverError::new(
                1221,
                "HY000",
                "Incorrect usage of CUBE/ROLLUP and ORDER BY",
            ));
        }
        let (group_exprs, mut group_names) = self.group_by(group_asts, &scope, &items)?;
        // Group keys carry their collation (rows equal under it are one group).
        // ENUM / SET keys group by their codes.
        let mut group_exprs: Vec<Expr> = group_exprs
            .into_iter()
            .map(|e| super::collation::collated(super::members::code_key(e)))
            .collect();
        let mut having = match &s.having {
            Some(h) => {
                let ctx = Ctx {
                    aliases: &items,
                    aggregates: true,
                    ..Ctx::new(&scope, Clause::Having)
                };
                Some(to_bool(self.expr(h, &ctx)?))
            }
            None => None,
        };
        let mut order = self.order_keys(order_by, &scope, &items, true)?;
        let aggregated = !group_exprs.is_empty() || !self.block.aggs.is_empty();
        let always_one_row = aggregated
            && group_asts.is_empty()
            && having.is_none()
            && limit.is_none_or(|l| l.skip == 0 && l.fetch != Some(0));

        // The inner sides of correlation predicates leave the block as hidden
        // columns after the select list, so the user can join on them.
        let mut hidden: Vec<Expr> = Vec::new();
        if aggregated
            && correlation
                .iter()
                .any(|p| correlation_key(p, &input_ids).is_none())
        {
            plan = self.parameterize(plan, &mut correlation)?;
            input_ids = plan_ids(&plan);
        }
        if aggregated {
            for p in &correlation {
                let Some((inner, _)) = correlation_key(p, &input_ids) else {
                    return Err(QuiverError::not_supported(
                        "a non-equality correlation in an aggregated subquery",
                    ));
                };
                if !group_exprs.contains(&inner) {
                    group_exprs.push(inner.clone());
                    group_names.push("correlation".into());
                }
                if !hidden.contains(&inner) {
                    hidden.push(inner);
                }
            }
        } else {
            let ids: BTreeSet<_> = correlation
                .iter()
                .flat_map(|p| p.columns())
                .filter(|id| input_ids.contains(id))
                .collect();
            let schema = plan.schema();
            hidden = schema
                .iter()
                .filter(|c| ids.contains(&c.id))
                .map(ColumnInfo::expr)
                .collect();
        }

        let mut windows = std::mem::take(&mut self.block.windows);
        let mut pending = std::mem::take(&mut self.block.pending);
        let mut empty_row = Vec::new();
        if aggregated {
            // A subquery whose value GROUP BY reads (`GROUP BY 1` over a
            // select item with one) joins before grouping, where it reads
            // the rows' own columns, as does one that reads row columns no
            // group key holds (a key folded away: `NULL >= (SELECT ..
            // WHERE s.x = t.c)` is NULL); the others join after it, over
            // groups and aggregates.
            let keys: HashSet<ColumnId> = group_exprs.iter().flat_map(Expr::columns).collect();
            let (before, after): (Vec<PendingJoin>, Vec<PendingJoin>) =
                pending.into_iter().partition(|j| {
                    let reads = pending_reads(j);
                    let grouped = pending_outputs(j).iter().any(|c| keys.contains(c));
                    let rows_only = reads.iter().any(|c| !keys.contains(c));
                    (grouped || rows_only) && reads.is_subset(&input_ids)
                });
            pending = after;
            for j in before {
                plan = self.attach_pending(j, plan);
            }
            input_ids = plan_ids(&plan);
            let schema = plan.schema();
            let group: Vec<(ColumnInfo, Expr)> = group_exprs
                .iter()
                .zip(group_names)
                .map(|(e, name)| {
                    (
                        self.new_column_for(name, e, nullable(e, &schema)),
                        e.clone(),
                    )
                })
                .collect();
            let mut from = group_exprs;
            let mut to: Vec<Expr> = group.iter().map(|(c, _)| c.expr()).collect();
            self.any_values(
                &schema,
                &input_ids,
                (&mut from, &mut to),
                (&items, &having, &order),
                (&windows, &pending),
            )?;
            let aggs = std::mem::take(&mut self.block.aggs);
            let rw = GroupRewrite {
                from,
                to,
                input: input_ids.clone(),
                scope: &scope,
                has_group_by: !group_asts.is_empty(),
            };
            rw.apply(
                &mut items,
                &mut having,
                &mut order,
                &mut windows,
                &mut pending,
            )?;
            hidden = hidden.iter().map(|h| rw.rewrite(h)).collect();
            correlation = correlation.iter().map(|p| rw.rewrite(p)).collect();
            if !correlation.is_empty() {
                let groups: Vec<Expr> = group.iter().map(|(c, _)| c.expr()).collect();
                empty_row = items
                    .iter()
                    .map(|i| empty_group_value(&i.expr, &aggs, &groups))
                    .collect();
            }
            plan = if rollup {
                if !correlation.is_empty() || !pending.is_empty() {
                    return Err(QuiverError::not_supported(
                        "WITH ROLLUP with subqueries in the select list",
                    ));
                }
                self.rollup(plan, group, aggs)
            } else {
                LogicalPlan::Aggregate {
                    input: Box::new(plan),
                    group,
                    aggs,
                }
            };
        }
        // Scalar subqueries of the select list, HAVING and ORDER BY.
        for j in pending {
            plan = self.attach_pending(j, plan);
        }
        if let Some(h) = having {
            plan = LogicalPlan::Filter {
                input: Box::new(plan),
                predicate: h,
            };
        }
        if !windows.is_empty() {
            plan = LogicalPlan::Window {
                input: Box::new(plan),
                exprs: windows,
            };
        }

        let visible = items.len();
        let mut outputs: Vec<(String, Expr)> =
            items.into_iter().map(|i| (i.name, i.expr)).collect();
        outputs.extend(
            hidden
                .iter()
                .map(|h| ("correlation".to_string(), h.clone())),
        );
        // FOUND_ROWS() has no count to give yet: SQL_CALC_FOUND_ROWS is refused.
        if s.select_modifiers
            .as_ref()
            .is_some_and(|m| m.sql_calc_found_rows)
        {
            return Err(QuiverError::not_supported("SQL_CALC_FOUND_ROWS"));
        }
        let distinct = match &s.distinct {
            None | Some(ast::Distinct::All) => false,
            Some(ast::Distinct::Distinct) => true,
            Some(other) => return Err(QuiverError::not_supported(format!("{other}"))),
        };
        if distinct {
            // Project the select list, then group on all of it. ORDER BY may only
            // use what is selected.
            let below = plan_ids(&plan);
            let schema = plan.schema();
            // ENUM / SET outputs are made distinct as their codes, their
            // text put back above.
            let texts: Vec<Expr> = outputs.iter().map(|(_, e)| e.clone()).collect();
            for (_, e) in outputs.iter_mut() {
                *e = super::members::code_key(e.clone());
            }
            let proj: Vec<(ColumnInfo, Expr)> = outputs
                .iter()
                .map(|(n, e)| {
                    (
                        self.new_column_for(n.clone(), e, nullable(e, &schema)),
                        e.clone(),
                    )
                })
                .collect();
            let from: Vec<Expr> = outputs.iter().map(|(_, e)| e.clone()).collect();
            let to: Vec<Expr> = proj.iter().map(|(c, _)| c.expr()).collect();
            for (i, k) in order.iter_mut().enumerate() {
                k.expr = replace_exprs(&k.expr, &from, &to);
                if let Some(id) = k.expr.columns().into_iter().find(|id| below.contains(id)) {
                    let col = scope
                        .by_id(id)
                        .map(|c| c.display())
                        .unwrap_or_else(|| format!("#{}", id.0));
                    return Err(QuiverError::new(
                        3065,
                        "HY000",
                        format!(
                            "Expression #{} of ORDER BY clause is not in SELECT list, references column '{col}' which is not in SELECT list; this is incompatible with DISTINCT",
                            i + 1
                        ),
                    ));
                }
            }
            correlation = correlation
                .iter()
                .map(|p| replace_exprs(p, &from, &to))
                .collect();
            plan = project(plan, proj);
            let distinct_plan = self.distinct_rows(plan);
            let LogicalPlan::Aggregate { group, .. } = &distinct_plan else {
                unreachable!("distinct_rows builds an Aggregate")
            };
            let grouped: Vec<Expr> = group.iter().map(|(c, _)| c.expr()).collect();
            for k in order.iter_mut() {
                k.expr = replace_exprs(&k.expr, &to, &grouped);
            }
            correlation = correlation
                .iter()
                .map(|p| replace_exprs(p, &to, &grouped))
                .collect();
            for (((_, e), g), text) in outputs.iter_mut().zip(&grouped).zip(&texts) {
                *e = match text.member_codes() {
                    Some(codes) => {
                        replace_exprs(text, std::slice::from_ref(codes), std::slice::from_ref(g))
                    }
                    None => g.clone(),
                };
            }
            plan = distinct_plan;
        }
        // A derived table or subquery has no order of its own unless LIMIT picks rows by it.
        if !order.is_empty() && (nesting == Nesting::Top || limit.is_some()) {
            plan = sorted(plan, order, limit);
        }
        if let Some(l) = limit {
            plan = l.apply(plan);
        }
        let schema = plan.schema();
        let exprs: Vec<(ColumnInfo, Expr)> = outputs
            .into_iter()
            .map(|(name, e)| (self.new_column_for(name, &e, nullable(&e, &schema)), e))
            .collect();
        // Correlation predicates now read the hidden output columns. A
        // column leaves under its own collation (a Collate node over it),
        // while a predicate reads it bare where another collation won the
        // comparison: such a column is replaced as the bare column, so the
        // predicate keeps the collation it was resolved in.
        let (hidden_from, hidden_to): (Vec<Expr>, Vec<Expr>) = exprs[visible..]
            .iter()
            .map(|(c, e)| match e {
                Expr::Collate { expr, .. } if matches!(**expr, Expr::Column(..)) => {
                    ((**expr).clone(), Expr::Column(c.id, c.data_type.clone()))
                }
                _ => (e.clone(), c.expr()),
            })
            .unzip();
        let correlation = correlation
            .iter()
            .map(|p| replace_exprs(p, &hidden_from, &hidden_to))
            .collect();
        Ok(BoundQuery {
            plan: project(plan, exprs),
            visible,
            correlation,
            always_one_row,
            empty_row,
        })
    }

    fn select_items(
        &mut self,
        projection: &[ast::SelectItem],
        scope: &Scope,
    ) -> Result<Vec<SelectItem>> {
        let ctx = Ctx {
            aggregates: true,
            windows: true,
            ..Ctx::new(scope, Clause::FieldList)
        };
        let mut items = Vec::with_capacity(projection.len());
        for p in projection {
            match p {
                ast::SelectItem::UnnamedExpr(e) => items.push(SelectItem {
                    name: self.item_name(e),
                    expr: self.expr(e, &ctx)?,
                }),
                ast::SelectItem::ExprWithAlias { expr, alias } => items.push(SelectItem {
                    name: alias.value.clone(),
                    expr: self.expr(expr, &ctx)?,
                }),
                ast::SelectItem::Wildcard(opts) => {
                    check_wildcard(opts)?;
                    if scope.columns.is_empty() {
                        return Err(QuiverError::new(1096, "HY000", "No tables used"));
                    }
                    items.extend(scope.star().map(|c| SelectItem {
                        name: c.name.clone(),
                        expr: c.expr(),
                    }));
                }
                ast::SelectItem::QualifiedWildcard(kind, opts) => {
                    check_wildcard(opts)?;
                    let q = match kind {
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n) => match n.0.last() {
                            Some(ast::ObjectNamePart::Identifier(i)) => i.value.clone(),
                            _ => return Err(QuiverError::not_supported(format!("{p}"))),
                        },
                        ast::SelectItemQualifiedWildcardKind::Expr(_) => {
                            return Err(QuiverError::not_supported(format!("{p}")))
                        }
                    };
                    let cols = scope.qualified_star(&q);
                    if cols.is_empty() {
                        return Err(QuiverError::new(
                            1051,
                            "42S02",
                            format!("Unknown table '{q}'"),
                        ));
                    }
                    items.extend(cols.into_iter().map(|c| SelectItem {
                        name: c.name.clone(),
                        expr: c.expr(),
                    }));
                }
                ast::SelectItem::ExprWithAliases { .. } => {
                    return Err(QuiverError::not_supported(format!("{p}")))
                }
            }
        }
        Ok(items)
    }

    /// GROUP BY: expressions over the FROM scope, ordinals and select-list
    /// aliases (MySQL looks in FROM first).
    fn group_by(
        &mut self,
        exprs: &[ast::Expr],
        scope: &Scope,
        items: &[SelectItem],
    ) -> Result<(Vec<Expr>, Vec<String>)> {
        let ctx = Ctx {
            aliases: items,
            subqueries: false,
            ..Ctx::new(scope, Clause::Group)
        };
        let produced: HashSet<_> = self
            .block
            .aggs
            .iter()
            .map(|(c, _)| c.id)
            .chain(self.block.windows.iter().map(|(c, _)| c.id))
            .collect();
        let mut out: Vec<Expr> = Vec::with_capacity(exprs.len());
        let mut names = Vec::with_capacity(exprs.len());
        for e in exprs {
            let (bound, name) = match e {
                ast::Expr::Value(v) if matches!(&v.value, ast::Value::Number(n, _) if !n.contains(['.', 'e', 'E'])) =>
                {
                    let ast::Value::Number(n, _) = &v.value else {
                        unreachable!("matched a number")
                    };
                    match n
                        .parse::<usize>()
                        .ok()
                        .and_then(|k| k.checked_sub(1))
                        .and_then(|k| items.get(k))
                    {
                        Some(item) => (item.expr.clone(), item.name.clone()),
                        None => return Err(QuiverError::unknown_column(n, Clause::Group.name())),
                    }
                }
                e => (self.expr(e, &ctx)?, display_name(e)),
            };
            if bound.columns().iter().any(|id| produced.contains(id)) {
                return Err(QuiverError::new(
                    1056,
                    "42000",
                    format!("Can't group on '{name}'"),
                ));
            }
            if !out.contains(&bound) {
                out.push(bound);
                names.push(name);
            }
        }
        Ok((out, names))
    }
}

/// Each string column's collation as MySQL aggregates a union's inputs'
/// (a projected literal is COERCIBLE, a column IMPLICIT); inputs of one
/// width.
pub(super) fn union_collations(inputs: &[&LogicalPlan]) -> Result<Vec<UnionCollation>> {
    let schemas: Vec<Vec<ColumnInfo>> = inputs.iter().map(|p| p.schema()).collect();
    let width = schemas.first().map_or(0, Vec::len);
    (0..width)
        .map(|j| {
            let operands: Vec<Expr> = inputs
                .iter()
                .zip(&schemas)
                .filter(|(_, s)| is_string(&s[j].data_type))
                .map(|(p, s)| match p {
                    LogicalPlan::Project { exprs, .. } => exprs
                        .iter()
                        .find(|(c, _)| c.id == s[j].id)
                        .map_or_else(|| s[j].expr(), |(_, e)| e.clone()),
                    _ => s[j].expr(),
                })
                .collect();
            super::collation::union_collation(&operands)
        })
        .collect()
}

pub(super) fn flatten_union<'q>(
    body: &'q ast::SetExpr,
    out: &mut Vec<(&'q ast::SetExpr, bool)>,
) -> Result<()> {
    match body {
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            flatten_union(left, out)?;
            let distinct = match set_quantifier {
                ast::SetQuantifier::All => false,
                ast::SetQuantifier::Distinct | ast::SetQuantifier::None => true,
                other => return Err(QuiverError::not_supported(format!("UNION {other}"))),
            };
            out.push((right, distinct));
        }
        other => out.push((other, false)),
    }
    Ok(())
}

fn check_wildcard(opts: &ast::WildcardAdditionalOptions) -> Result<()> {
    if opts.opt_ilike.is_some()
        || opts.opt_exclude.is_some()
        || opts.opt_except.is_some()
        || opts.opt_replace.is_some()
        || opts.opt_rename.is_some()
        || opts.opt_alias.is_some()
    {
        return Err(QuiverError::not_supported(format!("{opts}")));
    }
    Ok(())
}

/// Rejects SELECT features of other dialects.
fn check_select(s: &ast::Select) -> Result<()> {
    if s.top.is_some()
        || s.into.is_some()
        || !s.lateral_views.is_empty()
        || s.prewhere.is_some()
        || !s.connect_by.is_empty()
        || !s.cluster_by.is_empty()
        || !s.distribute_by.is_empty()
        || !s.sort_by.is_empty()
        || s.qualify.is_some()
        || s.value_table_mode.is_some()
        || s.exclude.is_some()
        || s.flavor != ast::SelectFlavor::Standard
    {
        return Err(QuiverError::not_supported(format!("{s}")));
    }
    Ok(())
}

/// Per column position, the type all operands' columns there convert to
/// (`schemas` are the `plans`' own).
fn column_common_types(
    plans: &[&LogicalPlan],
    schemas: &[Vec<ColumnInfo>],
    width: usize,
) -> Vec<DataType> {
    (0..width)
        .map(|j| {
            branches_common_type(
                &schemas
                    .iter()
                    .map(|s| s[j].data_type.clone())
                    .collect::<Vec<_>>(),
                &plans
                    .iter()
                    .zip(schemas)
                    .map(|(p, s)| match p {
                        // A projected integer literal counts its own digits.
                        LogicalPlan::Project { exprs, .. } => exprs
                            .iter()
                            .find(|(c, _)| c.id == s[j].id)
                            .and_then(|(_, e)| integer_decimal_type(e)),
                        _ => None,
                    })
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// A union input column's declared type once cast to the union's type `t`:
/// kept when the type is unchanged, and for an integer widened to another
/// integer (a table's INT stays int(11) in `i UNION bi`'s width rule).
fn declared_through_cast(c: &ColumnInfo, t: &DataType) -> Option<std::sync::Arc<str>> {
    if &c.data_type == t {
        return c.column_type.clone();
    }
    if c.data_type.is_integer() && t.is_integer() {
        return union_int_input(c).map(Into::into);
    }
    // Text made bytes: the union counts its characters' bytes.
    if quiver_common::types::is_string(&c.data_type) && quiver_common::types::is_string(t) {
        return c.column_type.clone();
    }
    None
}

/// An integer UNION input's type as MariaDB joins it: a table's column
/// counts its kind's full width whatever its display width (`ti UNION ALL
/// n` with n INT(5) is 11 wide), a computed value its own (`1` is 1).
fn union_int_input(c: &ColumnInfo) -> Option<String> {
    use quiver_common::types::IntType;
    let declared = c.column_type.as_deref().and_then(IntType::parse);
    match declared {
        Some(i) if c.origin.is_none() => Some(i.text()),
        Some(i) => Some(
            IntType {
                width: i.kind.default_width(i.unsigned),
                ..i
            }
            .text(),
        ),
        None => IntType::of_arrow(&c.data_type).map(|i| i.text()),
    }
}

/// The columns a pending join adds to the block: its mark, or the
/// subquery's values.
fn pending_outputs(j: &PendingJoin) -> HashSet<ColumnId> {
    match j.kind {
        quiver_plan::JoinKind::Mark { mark, .. } => HashSet::from([mark]),
        _ => plan_ids(&j.right),
    }
}

/// The block's columns a pending join reads (its keys and filter, less the
/// subquery's own).
fn pending_reads(j: &PendingJoin) -> HashSet<ColumnId> {
    let inner = plan_ids(&j.right);
    j.on.iter()
        .map(|(outer, _)| outer)
        .chain(j.filter.iter())
        .flat_map(Expr::columns)
        .filter(|c| !inner.contains(c))
        .collect()
}
