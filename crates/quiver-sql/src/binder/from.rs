//! FROM: tables, views, CTEs, derived tables and joins.

use std::collections::HashSet;
use std::sync::Arc;

use quiver_common::types::COLUMN_TYPE_KEY;
use quiver_common::{QuiverError, Result};
use quiver_plan::{BinaryOp, ColumnOrigin, Expr, JoinKind, LogicalPlan};
use sqlparser::ast;

use super::coerce::{and, compare, to_bool};
use super::{
    Binder, Clause, CteDef, Ctx, Lookup, Nesting, Scope, ScopeColumn, MAX_VIEW_DEPTH, SCHEMA,
};

/// The most tables one FROM clause may join (MySQL's and MariaDB's 61).
const MAX_JOIN_TABLES: usize = 61;

/// The tables (and derived tables) a FROM item joins, nested joins counted
/// through.
fn tables_joined(twj: &ast::TableWithJoins) -> usize {
    fn factor(f: &ast::TableFactor) -> usize {
        match f {
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => tables_joined(table_with_joins),
            _ => 1,
        }
    }
    factor(&twj.relation) + twj.joins.iter().map(|j| factor(&j.relation)).sum::<usize>()
}

/// One row, no columns: MySQL's DUAL, the input of SELECT without FROM.
pub(crate) fn dual() -> LogicalPlan {
    LogicalPlan::Values {
        columns: vec![],
        rows: vec![vec![]],
    }
}

impl Binder<'_> {
    pub(crate) fn bind_from(
        &mut self,
        from: &[ast::TableWithJoins],
    ) -> Result<(LogicalPlan, Scope)> {
        // MySQL's limit, which also keeps join ordering (superlinear in the
        // tables of one join) to a bounded time.
        if from.iter().map(tables_joined).sum::<usize>() > MAX_JOIN_TABLES {
            return Err(QuiverError::new(
                1116,
                "HY000",
                format!("Too many tables; MariaDB can only use {MAX_JOIN_TABLES} tables in a join"),
            ));
        }
        let mut acc: Option<(LogicalPlan, Scope)> = None;
        for twj in from {
            acc = Some(match acc {
                // `t, JSON_TABLE(t.doc, ...)`: the document may read the
                // tables before it, so its joins come after.
                Some((lp, ls)) if matches!(twj.relation, ast::TableFactor::JsonTable { .. }) => {
                    let (mut plan, mut scope) = self.json_table_after(lp, ls, &twj.relation)?;
                    for j in &twj.joins {
                        (plan, scope) = self.join(plan, scope, j)?;
                    }
                    (plan, scope)
                }
                None => self.table_with_joins(twj)?,
                Some((lp, ls)) => {
                    let (plan, scope) = self.table_with_joins(twj)?;
                    cross(lp, ls, plan, scope)?
                }
            });
        }
        Ok(acc.unwrap_or_else(|| (dual(), Scope::default())))
    }

    fn table_with_joins(&mut self, twj: &ast::TableWithJoins) -> Result<(LogicalPlan, Scope)> {
        let (mut plan, mut scope) = self.table_factor(&twj.relation)?;
        for j in &twj.joins {
            (plan, scope) = self.join(plan, scope, j)?;
        }
        Ok((plan, scope))
    }

    fn table_factor(&mut self, tf: &ast::TableFactor) -> Result<(LogicalPlan, Scope)> {
        match tf {
            ast::TableFactor::Table {
                name,
                alias,
                args: None,
                version: None,
                sample: None,
                with_ordinality: false,
                ..
            } => self.named_table(name, alias.as_ref()),
            ast::TableFactor::Derived {
                lateral: false,
                subquery,
                alias,
                sample: None,
            } => {
                let Some(alias) = alias else {
                    return Err(QuiverError::syntax_msg(
                        "You have an error in your SQL syntax: every derived table must have its own alias",
                    ));
                };
                let columns: Vec<String> =
                    alias.columns.iter().map(|c| c.name.value.clone()).collect();
                self.derived(subquery, &alias.name.value, None, &columns)
            }
            ast::TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => self.table_with_joins(table_with_joins),
            ast::TableFactor::JsonTable { .. } => {
                let jt = self.json_table(tf, None)?;
                Ok((
                    json_table_node(dual(), jt.doc, jt.def, jt.columns),
                    jt.scope,
                ))
            }
            other => Err(QuiverError::not_supported(format!(
                "the table reference {other}"
            ))),
        }
    }

    /// JSON_TABLE after the tables `left`: over each of their rows when
    /// its document reads them, else joined to them.
    fn json_table_after(
        &mut self,
        left: LogicalPlan,
        lscope: Scope,
        tf: &ast::TableFactor,
    ) -> Result<(LogicalPlan, Scope)> {
        let jt = self.json_table(tf, Some(&lscope))?;
        if !jt.lateral {
            let right = json_table_node(dual(), jt.doc, jt.def, jt.columns);
            return cross(left, lscope, right, jt.scope);
        }
        check_unique_qualifiers(&lscope, &jt.scope)?;
        let scope = Scope {
            columns: lscope.columns.into_iter().chain(jt.scope.columns).collect(),
        };
        Ok((json_table_node(left, jt.doc, jt.def, jt.columns), scope))
    }

    fn named_table(
        &mut self,
        name: &ast::ObjectName,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        let parts: Vec<&str> = name
            .0
            .iter()
            .map(|p| match p {
                ast::ObjectNamePart::Identifier(i) => Ok(i.value.as_str()),
                other => Err(QuiverError::not_supported(format!(
                    "the table name {other}"
                ))),
            })
            .collect::<Result<_>>()?;
        let (db, table) = match parts.as_slice() {
            [t] => (None, *t),
            [db, t] => (Some(*db), *t),
            _ => return Err(QuiverError::not_supported(format!("the table name {name}"))),
        };
        let qualifier = alias.map(|a| a.name.value.as_str()).unwrap_or(table);
        let alias_columns: Vec<String> = alias
            .map(|a| a.columns.iter().map(|c| c.name.value.clone()).collect())
            .unwrap_or_default();
        if db.is_none() {
            if table.eq_ignore_ascii_case("dual") {
                return Ok((dual(), Scope::default()));
            }
            if let Some(cte) = self
                .ctes
                .iter()
                .rev()
                .find(|c| c.name.eq_ignore_ascii_case(table))
                .cloned()
            {
                return self.cte(&cte, qualifier, &alias_columns);
            }
        }
        // Inside a view, an unqualified name is of the view's database.
        let db = db.or_else(|| self.views.last().map(|(d, _)| d.as_str()));
        if let Some(query) = self.catalog.view_in(db, table) {
            let database = match db {
                Some(d) => d.to_string(),
                None => self.catalog.current_database()?,
            };
            return self.view(&database, table, &query, qualifier, &alias_columns);
        }
        let Some(source) = self.catalog.table_in(db, table) else {
            if let Some(e) = self.catalog.damaged_in(db, table) {
                return Err(e);
            }
            let database = match db {
                Some(d) => d.to_string(),
                None => self.catalog.current_database()?,
            };
            return Err(QuiverError::unknown_table(&format!("{database}.{table}")));
        };
        let database = match db {
            Some(d) => d.to_string(),
            None => self.catalog.current_database().unwrap_or_default(),
        };
        if !alias_columns.is_empty() {
            return Err(QuiverError::syntax_msg(
                "You have an error in your SQL syntax: a table alias can not list columns",
            ));
        }
        let schema = source.schema();
        let columns: Vec<_> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut c =
                    self.new_column(f.name().clone(), f.data_type().clone(), f.is_nullable());
                c.collation = f
                    .metadata()
                    .get(quiver_common::types::COLUMN_COLLATION_KEY)
                    .and_then(|n| quiver_collation::Collation::from_name(n))
                    // latin1 / ascii columns hold UTF-8 text too.
                    .map(quiver_collation::Collation::over_utf8)
                    .filter(|c| *c != quiver_plan::default_collation());
                let declared = f
                    .metadata()
                    .get(COLUMN_TYPE_KEY)
                    .map(|t| Arc::from(t.as_str()));
                self.set_declared(&mut c, declared);
                let origin = ColumnOrigin {
                    schema: database.clone(),
                    table: qualifier.to_string(),
                    org_table: source.name().to_string(),
                    org_name: f.name().clone(),
                    field: Some(f.clone()),
                };
                self.set_origin(&mut c, Arc::new(origin));
                (i, c)
            })
            .collect();
        let scope = Scope {
            columns: columns
                .iter()
                .map(|(_, c)| ScopeColumn::new(Some(qualifier), c))
                .collect(),
        };
        Ok((
            LogicalPlan::Scan {
                table: source,
                columns,
                filters: vec![],
                filter_columns: vec![],
            },
            scope,
        ))
    }

    /// A CTE is bound again at every use, seeing only the CTEs defined before it.
    fn cte(
        &mut self,
        cte: &CteDef,
        qualifier: &str,
        alias_columns: &[String],
    ) -> Result<(LogicalPlan, Scope)> {
        if cte.recursive {
            return self.recursive_cte(cte, qualifier, alias_columns);
        }
        let hidden = self.ctes.split_off(cte.visible.min(self.ctes.len()));
        let columns = if alias_columns.is_empty() {
            &cte.columns[..]
        } else {
            alias_columns
        };
        let r = self.derived(&cte.query, qualifier, Some(&cte.name), columns);
        self.ctes.extend(hidden);
        r
    }

    /// A view is bound like a derived table, without the query's CTEs.
    fn view(
        &mut self,
        database: &str,
        name: &str,
        query: &ast::Query,
        qualifier: &str,
        columns: &[String],
    ) -> Result<(LogicalPlan, Scope)> {
        if self.views.len() >= MAX_VIEW_DEPTH
            || self
                .views
                .iter()
                .any(|(d, v)| d.eq_ignore_ascii_case(database) && v.eq_ignore_ascii_case(name))
        {
            return Err(QuiverError::new(
                1462,
                "HY000",
                format!("`{database}`.`{name}` contains view recursion"),
            ));
        }
        self.views.push((database.to_string(), name.to_string()));
        let ctes = std::mem::take(&mut self.ctes);
        let r = self.derived(query, qualifier, Some(name), columns);
        self.ctes = ctes;
        self.views.pop();
        // A view whose tables or columns are gone (dropped or altered since).
        r.map_err(|e| match e.code {
            1146 | 1054 => QuiverError::new(
                1356,
                "HY000",
                format!(
                    "View '{database}.{name}' references invalid table(s) or column(s) or \
                     function(s) or definer/invoker of view lack rights to use them"
                ),
            ),
            _ => e,
        })
    }

    /// A subquery in FROM (also a CTE or view body): its own block, which can
    /// not see the enclosing query's columns.
    pub(super) fn derived(
        &mut self,
        query: &ast::Query,
        qualifier: &str,
        org_table: Option<&str>,
        names: &[String],
    ) -> Result<(LogicalPlan, Scope)> {
        let outer = std::mem::take(&mut self.outer);
        let bound = self.query(query, Nesting::Derived);
        self.outer = outer;
        self.derived_scope(bound?.plan, qualifier, org_table, names)
    }

    /// A derived table's plan seen from outside: its columns named
    /// `names` (or as the plan names them), under `qualifier`.
    pub(super) fn derived_scope(
        &mut self,
        plan: LogicalPlan,
        qualifier: &str,
        org_table: Option<&str>,
        names: &[String],
    ) -> Result<(LogicalPlan, Scope)> {
        let schema = plan.schema();
        let names: Vec<String> = if names.is_empty() {
            schema.iter().map(|c| c.name.clone()).collect()
        } else if names.len() != schema.len() {
            return Err(QuiverError::new(
                1353,
                "HY000",
                "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts",
            ));
        } else {
            names.to_vec()
        };
        let mut seen = HashSet::new();
        for n in &names {
            if !seen.insert(n.to_lowercase()) {
                return Err(QuiverError::duplicate_column(n));
            }
        }
        // The outer query sees the derived table's columns as its own (as
        // MySQL names them to clients), declared as the inner ones were.
        for (name, c) in names.iter().zip(&schema) {
            let field = c.origin.as_ref().and_then(|o| o.field.clone());
            let origin = ColumnOrigin {
                // MariaDB names no schema for a computed column of one.
                schema: if field.is_some() { SCHEMA } else { "" }.to_string(),
                table: qualifier.to_string(),
                org_table: org_table.unwrap_or(qualifier).to_string(),
                org_name: name.clone(),
                field,
            };
            self.origins.insert(c.id, Arc::new(origin));
        }
        let columns = names
            .into_iter()
            .zip(&schema)
            .map(|(name, c)| ScopeColumn {
                name,
                ..ScopeColumn::new(Some(qualifier), c)
            })
            .collect();
        Ok((plan, Scope { columns }))
    }

    fn join(
        &mut self,
        left: LogicalPlan,
        lscope: Scope,
        j: &ast::Join,
    ) -> Result<(LogicalPlan, Scope)> {
        use ast::JoinOperator as O;
        if let ast::TableFactor::JsonTable { .. } = &j.relation {
            if let Some(r) = self.join_json_table(&left, &lscope, j)? {
                let (plan, scope) = self.json_table_after(left, lscope, &j.relation)?;
                return match r {
                    Some(on) => {
                        let ctx = Ctx {
                            subqueries: false,
                            ..Ctx::new(&scope, Clause::On)
                        };
                        let predicate = to_bool(self.expr(on, &ctx)?);
                        Ok((
                            LogicalPlan::Filter {
                                input: Box::new(plan),
                                predicate,
                            },
                            scope,
                        ))
                    }
                    None => Ok((plan, scope)),
                };
            }
        }
        let (right, rscope) = self.table_factor(&j.relation)?;
        check_unique_qualifiers(&lscope, &rscope)?;
        let (side, constraint) = match &j.join_operator {
            O::Join(c) | O::Inner(c) | O::StraightJoin(c) | O::CrossJoin(c) => (Side::Inner, c),
            O::Left(c) | O::LeftOuter(c) => (Side::Left, c),
            O::Right(c) | O::RightOuter(c) => (Side::Right, c),
            other => return Err(QuiverError::not_supported(join_kind(other))),
        };
        // Columns of the side an outer join may fill with NULLs become nullable.
        let (lscope, rscope) = match side {
            Side::Left => (lscope, nullable_scope(rscope)),
            Side::Right => (nullable_scope(lscope), rscope),
            Side::Inner => (lscope, rscope),
        };
        let (cond, scope) = match constraint {
            ast::JoinConstraint::On(e) => {
                let scope = Scope { columns: lscope.columns.into_iter().chain(rscope.columns).collect() };
                let ctx = Ctx { subqueries: false, ..Ctx::new(&scope, Clause::On) };
                let cond = to_bool(self.expr(e, &ctx)?);
                (Some(cond), scope)
            }
            ast::JoinConstraint::Using(names) => {
                let names = names
                    .iter()
                    .map(|n| match n.0.as_slice() {
                        [ast::ObjectNamePart::Identifier(i)] => Ok(i.value.clone()),
                        _ => Err(QuiverError::syntax_msg(format!("You have an error in your SQL syntax near '{n}'"))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                using(lscope, rscope, &names, side)?
            }
            ast::JoinConstraint::Natural => {
                let names: Vec<String> = lscope
                    .star()
                    .filter(|l| rscope.star().any(|r| r.name.eq_ignore_ascii_case(&l.name)))
                    .map(|c| c.name.clone())
                    .collect();
                using(lscope, rscope, &names, side)?
            }
            ast::JoinConstraint::None if side == Side::Inner => {
                (None, Scope { columns: lscope.columns.into_iter().chain(rscope.columns).collect() })
            }
            ast::JoinConstraint::None => {
                return Err(QuiverError::syntax_msg(
                    "You have an error in your SQL syntax: an outer join needs an ON or USING condition",
                ))
            }
        };
        let filter = cond.filter(|c| {
            !matches!(
                c,
                Expr::Literal(quiver_common::ScalarValue::Boolean(true), _)
            )
        });
        let plan = match side {
            Side::Inner => join_node(left, right, JoinKind::Inner, filter),
            Side::Left => join_node(left, right, JoinKind::Left, filter),
            // RIGHT JOIN is a LEFT JOIN with the sides swapped; names resolve through
            // the scope (kept in the written order), so no re-projection is needed.
            Side::Right => join_node(right, left, JoinKind::Left, filter),
        };
        Ok((plan, scope))
    }
}

impl Binder<'_> {
    /// How `left JOIN JSON_TABLE(...)` is bound: `Some(on)` over the rows
    /// of `left` (an inner join, or any join whose JSON_TABLE reads no
    /// column of `left` is bound as usual: None).
    #[allow(clippy::type_complexity)]
    fn join_json_table<'j>(
        &mut self,
        _left: &LogicalPlan,
        lscope: &Scope,
        j: &'j ast::Join,
    ) -> Result<Option<Option<&'j ast::Expr>>> {
        use ast::JoinOperator as O;
        match &j.join_operator {
            O::Join(c) | O::Inner(c) | O::CrossJoin(c) | O::StraightJoin(c) => match c {
                ast::JoinConstraint::On(e) => Ok(Some(Some(e))),
                ast::JoinConstraint::None => Ok(Some(None)),
                _ => Err(QuiverError::not_supported(
                    "JSON_TABLE joined with USING or NATURAL",
                )),
            },
            O::Left(_) | O::LeftOuter(_) => {
                if self.json_table(&j.relation, Some(lscope))?.lateral {
                    Err(QuiverError::not_supported(
                        "LEFT JOIN of a JSON_TABLE reading the columns of the tables before it",
                    ))
                } else {
                    Ok(None)
                }
            }
            _ => Ok(None),
        }
    }
}

fn json_table_node(
    input: LogicalPlan,
    doc: Expr,
    def: Arc<quiver_plan::JsonTableDef>,
    columns: Vec<quiver_plan::ColumnInfo>,
) -> LogicalPlan {
    LogicalPlan::JsonTable {
        input: Box::new(input),
        doc,
        def,
        columns,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Inner,
    Left,
    Right,
}

fn join_node(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: JoinKind,
    filter: Option<Expr>,
) -> LogicalPlan {
    LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind,
        on: vec![],
        filter,
    }
}

fn nullable_scope(mut s: Scope) -> Scope {
    for c in &mut s.columns {
        c.nullable = true;
    }
    s
}

/// A comma join: an inner join without condition (the optimizer finds the keys in WHERE).
fn cross(
    left: LogicalPlan,
    lscope: Scope,
    right: LogicalPlan,
    rscope: Scope,
) -> Result<(LogicalPlan, Scope)> {
    check_unique_qualifiers(&lscope, &rscope)?;
    let scope = Scope {
        columns: lscope.columns.into_iter().chain(rscope.columns).collect(),
    };
    Ok((join_node(left, right, JoinKind::Inner, None), scope))
}

fn check_unique_qualifiers(l: &Scope, r: &Scope) -> Result<()> {
    let left: HashSet<String> = l
        .columns
        .iter()
        .filter_map(|c| c.qualifier.as_ref().map(|q| q.to_lowercase()))
        .collect();
    match r
        .columns
        .iter()
        .filter_map(|c| c.qualifier.as_ref())
        .find(|q| left.contains(&q.to_lowercase()))
    {
        Some(q) => Err(QuiverError::new(
            1066,
            "42000",
            format!("Not unique table/alias: '{q}'"),
        )),
        None => Ok(()),
    }
}

/// `USING (a, b)` / NATURAL: equalities on the named columns, which appear once
/// (first, from the side that keeps all its rows); the other side's copies stay
/// reachable qualified.
fn using(
    lscope: Scope,
    rscope: Scope,
    names: &[String],
    side: Side,
) -> Result<(Option<Expr>, Scope)> {
    let find = |s: &Scope, n: &str| -> Result<ScopeColumn> {
        match s.lookup(None, n) {
            Lookup::Found(c) => Ok(c.clone()),
            Lookup::NotFound => Err(QuiverError::unknown_column(n, Clause::From.name())),
            Lookup::Ambiguous => Err(QuiverError::ambiguous_column(n, Clause::From.name())),
        }
    };
    let mut cond: Option<Expr> = None;
    let mut merged = Vec::new();
    let mut away = HashSet::new();
    for n in names {
        let (l, r) = (find(&lscope, n)?, find(&rscope, n)?);
        let eq = compare(BinaryOp::Eq, l.expr(), r.expr());
        cond = Some(match cond {
            Some(c) => and(c, eq),
            None => eq,
        });
        let (keep, drop) = if side == Side::Right { (r, l) } else { (l, r) };
        away.insert(drop.id);
        away.insert(keep.id);
        merged.push(keep);
    }
    let mut columns = merged;
    for c in lscope.columns.into_iter().chain(rscope.columns) {
        // Both copies stay reachable qualified (`t.a`); the kept one is listed first already.
        let merged_away = away.contains(&c.id);
        columns.push(ScopeColumn { merged_away, ..c });
    }
    Ok((cond, Scope { columns }))
}

/// An unsupported join as SQL names it (`FULL OUTER JOIN`, `CROSS APPLY`),
/// from its variant's name: the message shows no parser internals.
fn join_kind(o: &ast::JoinOperator) -> String {
    let debug = format!("{o:?}");
    let variant = debug.split(['(', ' ', '{']).next().unwrap_or_default();
    let mut words = String::new();
    for c in variant.chars() {
        if c.is_uppercase() && !words.is_empty() {
            words.push(' ');
        }
        words.push(c.to_ascii_uppercase());
    }
    if words.ends_with("APPLY") || words.ends_with("JOIN") {
        words
    } else {
        words + " JOIN"
    }
}
