//! Name resolution and typing: sqlparser AST to [`LogicalPlan`].
//!
//! A query block (one SELECT) is bound in this order: FROM (scans, joins,
//! derived tables), WHERE (with EXISTS / IN subqueries turned into semi and
//! anti joins), the select list, GROUP BY, HAVING and ORDER BY. Aggregates and
//! window functions met on the way are registered in the block's state and
//! replaced by references to the columns the Aggregate / Window nodes will
//! produce; scalar subqueries become joins waiting to be attached to the
//! block's plan ([`PendingJoin`]).

mod aggregate;
mod coerce;
mod collation;
mod declared;
mod derivation;
pub use collation::{
    charset_default, collation_by_name, column_charset_default, column_collation_by_name,
};
mod expr;
mod from;
mod functions;
mod group_concat;
mod json_table;
mod members;
mod order;
mod percentile;
mod query;
mod recursive;
mod registry;
mod rollup;
mod scope;
mod set_ops;
mod strict;
mod subquery;
mod window_frame;
pub use strict::{strict_division, strict_division_expr};

use std::collections::{HashMap, HashSet};

use arrow_schema::DataType;
use quiver_collation::Collation;
use quiver_common::{QuiverError, Result};
use quiver_plan::{
    AggExpr, ColumnId, ColumnInfo, ColumnOrigin, Expr, JoinKind, LogicalPlan, WindowExpr,
};
use sqlparser::ast;

use crate::catalog::Catalog;
pub(crate) use scope::{Lookup, Scope, ScopeColumn};

/// Deepest expression nesting bound before giving up (the binder recurses).
const MAX_EXPR_DEPTH: usize = 256;

/// Deepest nesting of views inside views.
const MAX_VIEW_DEPTH: usize = 32;

/// Binds SQL statements against a catalog.
/// A user variable's value (`SET @name = expr`): its type and, for a
/// string, its collation, as the expression had them.
#[derive(Debug, Clone, PartialEq)]
pub struct UserVariable {
    pub value: quiver_common::ScalarValue,
    pub data_type: DataType,
    /// None for the default collation (or a value that is not a string).
    pub collation: Option<Collation>,
}

/// The session variables binding depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionVars {
    /// The collation of string literals (`SET NAMES`, `collation_connection`).
    pub collation_connection: Collation,
    /// The default collation of new tables' string columns.
    pub collation_database: Collation,
    /// The charset a client's statements arrive in (`SET NAMES`,
    /// `character_set_client`): the server reads their bytes in it.
    pub character_set_client: quiver_collation::Charset,
    /// The collation result strings are sent in (`character_set_results`,
    /// made a collation by `SET NAMES`); None for each column's own.
    pub character_set_results: Option<Collation>,
    /// System variables SET in this session, by lowercase name, as
    /// `@@name` reads them (others have their defaults).
    pub system: std::sync::Arc<std::collections::BTreeMap<String, quiver_common::ScalarValue>>,
    /// User variables (`@name`), by lowercase name.
    pub user: std::sync::Arc<std::collections::BTreeMap<String, UserVariable>>,
    /// Who the session is and where: `USER()`, `DATABASE()`, ...
    pub identity: SessionIdentity,
}

/// What `USER()`, `CURRENT_USER()`, `DATABASE()` and `CONNECTION_ID()`
/// return in a session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionIdentity {
    /// `user@host` as the client connected (`USER()`).
    pub user: String,
    /// The account the session runs as (`CURRENT_USER()`).
    pub account: String,
    /// The current database; None before `USE`.
    pub database: Option<String>,
    pub connection_id: u64,
}

impl Default for SessionIdentity {
    /// The embedded session's: root on the local machine.
    fn default() -> Self {
        SessionIdentity {
            user: "root@localhost".to_string(),
            account: "root@localhost".to_string(),
            database: None,
            connection_id: 0,
        }
    }
}

impl Default for SessionVars {
    /// The engine's defaults: utf8mb4_bin everywhere.
    fn default() -> Self {
        SessionVars {
            collation_connection: quiver_plan::default_collation(),
            collation_database: quiver_plan::default_collation(),
            character_set_client: quiver_plan::default_collation().charset(),
            character_set_results: Some(quiver_plan::default_collation()),
            system: Default::default(),
            user: Default::default(),
            identity: Default::default(),
        }
    }
}

/// The one database of a Quiver folder, as clients see it.
pub(crate) const SCHEMA: &str = "quiver";

pub struct Binder<'a> {
    catalog: &'a dyn Catalog,
    pub(crate) vars: SessionVars,
    next_id: u32,
    /// CTEs in scope, outermost first; a CTE sees the ones before it.
    ctes: Vec<CteDef>,
    /// Scopes of the enclosing query blocks, for correlated column references.
    outer: Vec<Scope>,
    /// State of the query block being bound.
    block: BlockState,
    /// Views being expanded (database, name), to stop recursion.
    views: Vec<(String, String)>,
    depth: usize,
    /// Query blocks being bound, one inside the other.
    query_depth: usize,
    /// The SQL text the statement was parsed from: unaliased select items are
    /// named by their text as written, as MySQL names them.
    source: Option<std::sync::Arc<crate::SqlSource>>,
    /// The table or derived-table column each column id reads unchanged.
    origins: HashMap<ColumnId, std::sync::Arc<ColumnOrigin>>,
    /// The declared string type of each column id that has one.
    declared: HashMap<ColumnId, std::sync::Arc<str>>,
    /// Display lengths of DOUBLE columns computed in this query.
    double_lengths: HashMap<ColumnId, u32>,
    /// Fixed decimals of DOUBLE columns computed in this query (see
    /// [`ColumnInfo::decimals`]).
    double_decimals: HashMap<ColumnId, u8>,
    /// Strings MariaDB sends with decimals 0 (CAST AS CHAR, GROUP_CONCAT),
    /// by their length in bytes (see [`ColumnInfo::display_length`]).
    fixed_strings: HashMap<ColumnId, u32>,
    /// The bound CAST(x AS CHAR) / CONVERT(x, CHAR) expressions.
    char_casts: Vec<Expr>,
    /// The statement's time (UTC microseconds), read once when first asked.
    now: std::cell::OnceCell<i64>,
    /// Recursive CTEs whose bodies are being bound, innermost last.
    recursive: Vec<recursive::RecursiveRef>,
}

#[derive(Debug, Clone)]
struct CteDef {
    name: String,
    columns: Vec<String>,
    query: ast::Query,
    /// How many entries of `ctes` its body may see (the ones defined before
    /// it; under WITH RECURSIVE, itself too).
    visible: usize,
    /// Defined by WITH RECURSIVE: its body may read itself.
    recursive: bool,
}

/// Aggregates, windows and subquery joins collected while binding one query block.
#[derive(Default)]
pub(crate) struct BlockState {
    pub aggs: Vec<(ColumnInfo, AggExpr)>,
    pub windows: Vec<(ColumnInfo, WindowExpr)>,
    pub named_windows: HashMap<String, ast::WindowSpec>,
    pub pending: Vec<PendingJoin>,
}

/// A subquery turned into a join, to be attached to the block's plan.
#[derive(Debug)]
pub(crate) struct PendingJoin {
    pub kind: JoinKind,
    pub right: LogicalPlan,
    /// (expression over the block's columns, expression over `right`).
    pub on: Vec<(Expr, Expr)>,
    pub filter: Option<Expr>,
}

impl PendingJoin {
    pub fn attach(self, left: LogicalPlan) -> LogicalPlan {
        LogicalPlan::Join {
            left: Box::new(left),
            right: Box::new(self.right),
            kind: self.kind,
            on: self.on,
            filter: self.filter,
        }
    }
}

/// Which clause an expression is in: MySQL names it in errors 1054 and 1052.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Clause {
    FieldList,
    Where,
    On,
    Order,
    Group,
    Having,
    From,
    JsonTable,
}

impl Clause {
    pub fn name(self) -> &'static str {
        match self {
            Clause::FieldList => "field list",
            Clause::Where => "where clause",
            Clause::On => "on clause",
            Clause::Order => "order clause",
            Clause::Group => "group statement",
            Clause::Having => "having clause",
            Clause::From => "from clause",
            Clause::JsonTable => "JSON_TABLE",
        }
    }
}

/// A bound select-list item.
#[derive(Debug, Clone)]
pub(crate) struct SelectItem {
    pub name: String,
    pub expr: Expr,
}

/// What an expression may contain and how its names resolve.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'s> {
    pub scope: &'s Scope,
    pub clause: Clause,
    /// Select-list items an otherwise unknown name may refer to (GROUP BY, HAVING, ORDER BY).
    pub aliases: &'s [SelectItem],
    pub aggregates: bool,
    pub windows: bool,
    pub subqueries: bool,
}

impl<'s> Ctx<'s> {
    pub fn new(scope: &'s Scope, clause: Clause) -> Self {
        Ctx {
            scope,
            clause,
            aliases: &[],
            aggregates: false,
            windows: false,
            subqueries: true,
        }
    }

    /// The context of an aggregate's arguments, where this context allows
    /// an aggregate at all (else "Invalid use of group function"): no
    /// aggregates, windows or subqueries inside (a subquery would need a
    /// join below the Aggregate).
    pub fn aggregate_arguments(&self) -> Result<Ctx<'s>> {
        if !self.aggregates {
            return Err(QuiverError::invalid_group("Invalid use of group function"));
        }
        Ok(Ctx {
            aggregates: false,
            windows: false,
            subqueries: false,
            ..*self
        })
    }
}

/// How a query is used: it decides what happens to outer references and ORDER BY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nesting {
    Top,
    /// FROM subquery, CTE or view: no outer references; ORDER BY without LIMIT is dropped.
    Derived,
    /// Subquery in an expression: correlated predicates are pulled out.
    Subquery,
}

/// A bound query with what its user needs to join it.
pub(crate) struct BoundQuery {
    pub plan: LogicalPlan,
    /// The plan's first `visible` columns are the select list; any others are
    /// the inner sides of correlation predicates.
    pub visible: usize,
    /// Correlation predicates pulled out of a subquery's WHERE, over the plan's
    /// output columns and the enclosing blocks' columns.
    pub correlation: Vec<Expr>,
    /// An aggregation without GROUP BY or HAVING: one row whatever the input.
    pub always_one_row: bool,
    /// For a correlated aggregate subquery, what each visible column would be
    /// for an outer row with no inner rows (COUNT gives 0); None if unknown.
    pub empty_row: Vec<Option<Expr>>,
}

impl<'a> Binder<'a> {
    /// A binder under the session variables `vars`.
    pub fn with_vars(catalog: &'a dyn Catalog, vars: SessionVars) -> Self {
        Binder {
            vars,
            ..Binder::new(catalog)
        }
    }

    pub fn new(catalog: &'a dyn Catalog) -> Self {
        Binder {
            catalog,
            vars: SessionVars::default(),
            next_id: 0,
            ctes: vec![],
            outer: vec![],
            block: BlockState::default(),
            views: vec![],
            depth: 0,
            query_depth: 0,
            source: None,
            origins: HashMap::new(),
            declared: HashMap::new(),
            double_lengths: HashMap::new(),
            double_decimals: HashMap::new(),
            fixed_strings: HashMap::new(),
            char_casts: Vec::new(),
            now: Default::default(),
            recursive: Vec::new(),
        }
    }

    /// Error 1064 at `e`, which parses but is not allowed where it is
    /// (`LIMIT -1`): near the text from `e` on, as MySQL's parser says it.
    pub(crate) fn syntax_error_at(&self, e: &ast::Expr) -> QuiverError {
        match self
            .source
            .as_deref()
            .and_then(|src| source_position(src, e).map(|(at, line)| (&src.text()[at..], line)))
        {
            Some((near, line)) => QuiverError::syntax(near, line),
            None => QuiverError::syntax(&e.to_string(), 1),
        }
    }

    /// Names unaliased select items by their text in `sql`, the text the
    /// statement was parsed from (else by the expression's printed form).
    pub fn with_source(mut self, sql: std::sync::Arc<crate::SqlSource>) -> Self {
        self.source = Some(sql);
        self
    }

    /// The name MySQL gives an unaliased select item: its text as written.
    /// The text is taken from the source by the expression's span, and used
    /// only if it parses back to the same expression (a view's query carries
    /// spans into its own text, not this one).
    pub(crate) fn item_name(&self, e: &ast::Expr) -> String {
        // `((a))` is named `a`, as a plain column or literal is; `(a+1)` keeps
        // its parentheses. MySQL's parser drops a unary plus before a
        // literal: `+1` is named `1` (but `+(1+2)` keeps it).
        let mut e = e;
        while let ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Plus,
            expr,
        } = e
        {
            if !matches!(**expr, ast::Expr::Value(_)) {
                break;
            }
            e = expr;
        }
        let mut inner = e;
        while let ast::Expr::Nested(n) = inner {
            inner = n;
        }
        // Strings are named by their value, NULL / TRUE / FALSE in capitals.
        let string = matches!(
            inner,
            ast::Expr::Value(v) if matches!(
                v.value,
                ast::Value::SingleQuotedString(_)
                    | ast::Value::DoubleQuotedString(_)
                    | ast::Value::NationalStringLiteral(_)
                    | ast::Value::EscapedStringLiteral(_)
                    | ast::Value::Null
                    | ast::Value::Boolean(_)
            )
        );
        let plain = string
            || matches!(
                inner,
                ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
            );
        // Other literals are named as written (`0x41`, `x'41'`, `1.0e3`).
        let source = if plain {
            None
        } else {
            let e = if matches!(inner, ast::Expr::Value(_)) {
                inner
            } else {
                e
            };
            self.source.as_deref().and_then(|src| source_text(src, e))
        };
        let name = source.unwrap_or_else(|| display_name(if plain { inner } else { e }));
        mysql_item_name(name)
    }

    /// Binds a query; the plan's schema() gives the output columns with their
    /// display names (alias, else the column name, else the expression text).
    pub fn bind_query(&mut self, query: &ast::Query) -> Result<LogicalPlan> {
        self.reset();
        let bound = self.query(query, Nesting::Top)?;
        check_closed(&bound.plan)?;
        Ok(bound.plan)
    }

    /// Binds a constant expression (INSERT ... VALUES cells, LIMIT values): no columns in scope.
    pub fn bind_constant(&mut self, expr: &ast::Expr) -> Result<Expr> {
        self.reset();
        let scope = Scope::default();
        let ctx = Ctx {
            subqueries: false,
            ..Ctx::new(&scope, Clause::FieldList)
        };
        Ok(coerce::fold(self.expr(expr, &ctx)?))
    }

    /// Clears state a failed earlier statement may have left.
    fn reset(&mut self) {
        self.ctes.clear();
        self.outer.clear();
        self.block = BlockState::default();
        self.views.clear();
        self.depth = 0;
        self.query_depth = 0;
        self.origins.clear();
        self.declared.clear();
        self.double_lengths.clear();
        self.double_decimals.clear();
        self.fixed_strings.clear();
        self.char_casts.clear();
    }

    pub(crate) fn new_column(
        &mut self,
        name: impl Into<String>,
        data_type: DataType,
        nullable: bool,
    ) -> ColumnInfo {
        let id = ColumnId(self.next_id);
        self.next_id += 1;
        ColumnInfo::plain(id, name, data_type, nullable)
    }

    /// A new column holding `e`, under `e`'s collation.
    pub(crate) fn new_column_for(
        &mut self,
        name: impl Into<String>,
        e: &Expr,
        nullable: bool,
    ) -> ColumnInfo {
        let mut c = self.new_column(name, e.data_type(), nullable);
        c.collation = collation::column_collation(e);
        c.coercibility = collation::column_coercibility(e);
        let declared = self.declared_type(e);
        self.set_declared(&mut c, declared);
        if c.data_type == arrow_schema::DataType::Float64 {
            let n = self.double_length(e);
            self.double_lengths.insert(c.id, n);
            c.display_length = Some(n);
            c.decimals = self.fixed_decimals(e);
            if let Some(d) = c.decimals {
                self.double_decimals.insert(c.id, d);
            }
        }
        if let Some(n) = self.fixed_string(e) {
            self.fixed_strings.insert(c.id, n);
            c.display_length = Some(n);
        }
        // A column passed on unchanged (by a projection, GROUP BY, DISTINCT)
        // keeps its origin; a computed one has none, as in MySQL.
        let bare = match e {
            Expr::Collate { expr, .. } => expr.as_ref(),
            e => e,
        };
        // An ENUM / SET column's text is the column too.
        let bare = bare.member_codes().unwrap_or(bare);
        // CAST(v AS CHAR) of a string column is a computed string, as in MariaDB.
        let cast = self.char_casts.contains(e);
        if let (Expr::Column(id, _), false) = (bare, cast) {
            if let Some(o) = self.origins.get(id).cloned() {
                self.set_origin(&mut c, o);
            }
        }
        c
    }

    /// A text string MariaDB gives decimals 0 where other computed strings
    /// have 39 (CAST(x AS CHAR), GROUP_CONCAT, columns carrying them), and
    /// its length in bytes.
    fn fixed_string(&self, e: &Expr) -> Option<u32> {
        if self.char_casts.contains(e) {
            let chars = self.declared_type(e).and_then(|d| {
                quiver_common::types::CharLength::of(&d).map(|c| c.max_chars() as u64)
            })?;
            return Some(u32::try_from(chars.saturating_mul(4)).unwrap_or(u32::MAX));
        }
        match e {
            Expr::Collate { expr, .. } => self.fixed_string(expr),
            Expr::Column(id, _) => self.fixed_strings.get(id).copied(),
            _ => None,
        }
    }

    /// `e`, a bound CAST / CONVERT to `to`, noted when it makes text (its
    /// column then has decimals 0, see [`Binder::fixed_string`]).
    pub(crate) fn char_cast(&mut self, e: Expr, to: &arrow_schema::DataType) -> Expr {
        if *to == arrow_schema::DataType::Utf8 && !self.char_casts.contains(&e) {
            self.char_casts.push(e.clone());
        }
        e
    }

    /// Records column `c`'s declared string type.
    pub(crate) fn set_declared(&mut self, c: &mut ColumnInfo, t: Option<std::sync::Arc<str>>) {
        if let Some(t) = &t {
            self.declared.insert(c.id, t.clone());
        }
        c.column_type = t;
    }

    /// Records that column `c` reads `origin` unchanged.
    pub(crate) fn set_origin(&mut self, c: &mut ColumnInfo, origin: std::sync::Arc<ColumnOrigin>) {
        self.origins.insert(c.id, origin.clone());
        c.origin = Some(origin);
    }

    /// Ids of all columns of the enclosing blocks.
    pub(crate) fn outer_ids(&self) -> HashSet<ColumnId> {
        self.outer
            .iter()
            .flat_map(|s| s.columns.iter().map(|c| c.id))
            .collect()
    }
}

/// Ids of a plan's output columns.
pub(crate) fn plan_ids(plan: &LogicalPlan) -> HashSet<ColumnId> {
    plan.schema().iter().map(|c| c.id).collect()
}

/// Checks that every column a plan reads is produced inside it.
pub(crate) fn check_closed(plan: &LogicalPlan) -> Result<()> {
    match outside_reference(plan) {
        Some(id) => Err(QuiverError::internal(format!(
            "plan reads column #{} that it does not produce",
            id.0
        ))),
        None => Ok(()),
    }
}

/// A column a plan reads but does not produce (an outer reference left inside).
pub(crate) fn outside_reference(plan: &LogicalPlan) -> Option<ColumnId> {
    let mut produced = HashSet::new();
    let mut read = HashSet::new();
    collect_ids(plan, &mut produced, &mut read);
    read.into_iter().find(|id| !produced.contains(id))
}

fn collect_ids(plan: &LogicalPlan, produced: &mut HashSet<ColumnId>, read: &mut HashSet<ColumnId>) {
    produced.extend(plan.schema().iter().map(|c| c.id));
    let mut reads = |e: &Expr| e.collect_columns(read);
    match plan {
        LogicalPlan::Scan { filters, .. } => filters.iter().for_each(&mut reads),
        LogicalPlan::Values { rows, .. } => rows.iter().flatten().for_each(&mut reads),
        LogicalPlan::Filter { predicate, .. } => reads(predicate),
        LogicalPlan::Project { exprs, .. } => exprs.iter().for_each(|(_, e)| reads(e)),
        LogicalPlan::Join { on, filter, .. } => {
            on.iter().for_each(|(l, r)| {
                reads(l);
                reads(r)
            });
            filter.iter().for_each(&mut reads);
        }
        LogicalPlan::Aggregate { group, aggs, .. } => {
            group.iter().for_each(|(_, e)| reads(e));
            aggs.iter()
                .flat_map(|(_, a)| a.exprs())
                .for_each(&mut reads);
        }
        LogicalPlan::Window { exprs, .. } => {
            for (_, w) in exprs {
                w.args.iter().for_each(&mut reads);
                w.partition_by.iter().for_each(&mut reads);
                w.order_by.iter().for_each(|k| reads(&k.expr));
            }
        }
        LogicalPlan::Sort { keys, .. } => keys.iter().for_each(|k| reads(&k.expr)),
        LogicalPlan::JsonTable { doc, .. } => reads(doc),
        LogicalPlan::Limit { .. }
        | LogicalPlan::Union { .. }
        | LogicalPlan::SetOp { .. }
        | LogicalPlan::RecursiveCte { .. }
        | LogicalPlan::WorkTable { .. } => {}
    }
    for c in plan.children() {
        collect_ids(c, produced, read);
    }
}

/// Rebuilds `e` with each direct child replaced by `f(child)`.
pub(crate) fn map_children(e: &Expr, f: &mut impl FnMut(&Expr) -> Expr) -> Expr {
    match e {
        Expr::Column(..) | Expr::Literal(..) => e.clone(),
        Expr::Binary { op, left, right } => Expr::Binary {
            op: *op,
            left: Box::new(f(left)),
            right: Box::new(f(right)),
        },
        Expr::Unary { op, expr } => Expr::Unary {
            op: *op,
            expr: Box::new(f(expr)),
        },
        Expr::Like {
            negated,
            expr,
            pattern,
            escape,
        } => Expr::Like {
            negated: *negated,
            expr: Box::new(f(expr)),
            pattern: Box::new(f(pattern)),
            escape: *escape,
        },
        Expr::InList {
            negated,
            expr,
            list,
        } => Expr::InList {
            negated: *negated,
            expr: Box::new(f(expr)),
            list: list.iter().map(&mut *f).collect(),
        },
        Expr::Case {
            branches,
            else_expr,
            data_type,
        } => Expr::Case {
            branches: branches.iter().map(|(w, t)| (f(w), f(t))).collect(),
            else_expr: else_expr.as_ref().map(|e| Box::new(f(e))),
            data_type: data_type.clone(),
        },
        Expr::Cast { expr, to } => Expr::Cast {
            expr: Box::new(f(expr)),
            to: to.clone(),
        },
        Expr::Function {
            func,
            args,
            data_type,
        } => Expr::Function {
            func: *func,
            args: args.iter().map(&mut *f).collect(),
            data_type: data_type.clone(),
        },
        Expr::Collate {
            expr,
            collation,
            coercibility,
        } => Expr::Collate {
            expr: Box::new(f(expr)),
            collation: *collation,
            coercibility: *coercibility,
        },
    }
}

/// Replaces, top-down, every subexpression equal to `from[i]` by `to[i]`.
pub(crate) fn replace_exprs(e: &Expr, from: &[Expr], to: &[Expr]) -> Expr {
    if let Some(i) = from.iter().position(|g| g == e) {
        return to[i].clone();
    }
    map_children(e, &mut |c| replace_exprs(c, from, to))
}

/// Whether an expression may be NULL, given its input's columns.
pub(crate) fn nullable(e: &Expr, input: &[ColumnInfo]) -> bool {
    use quiver_plan::{BinaryOp, ScalarFunc, UnaryOp};
    match e {
        Expr::Column(id, _) => input
            .iter()
            .find(|c| c.id == *id)
            .is_none_or(|c| c.nullable),
        Expr::Literal(v, _) => v.is_null(),
        Expr::Unary {
            op: UnaryOp::IsNull | UnaryOp::IsNotNull,
            ..
        } => false,
        // Division and modulo by zero give NULL.
        Expr::Binary {
            op: BinaryOp::Div | BinaryOp::IntDiv | BinaryOp::Mod,
            ..
        } => true,
        Expr::Binary { .. }
        | Expr::Unary { .. }
        | Expr::Like { .. }
        | Expr::InList { .. }
        | Expr::Collate { .. } => e.children().iter().any(|c| nullable(c, input)),
        Expr::Case {
            branches,
            else_expr,
            ..
        } => {
            else_expr.as_ref().is_none_or(|e| nullable(e, input))
                || branches.iter().any(|(_, t)| nullable(t, input))
        }
        // A string may not convert (invalid dates are NULL).
        Expr::Cast { expr, to } => {
            nullable(expr, input)
                || (expr.data_type() != *to && !to.is_numeric() && *to != DataType::Utf8)
        }
        Expr::Function {
            func: ScalarFunc::Coalesce,
            args,
            ..
        } => args.iter().all(|a| nullable(a, input)),
        // 0 when nothing matches, also for a NULL x.
        Expr::Function {
            func: ScalarFunc::Field,
            ..
        } => false,
        // NULL exactly when an argument is.
        Expr::Function {
            func: ScalarFunc::Greatest | ScalarFunc::Least | ScalarFunc::MemberText,
            args,
            ..
        } => args.iter().any(|a| nullable(a, input)),
        // String results (CONCAT, UPPER, TRIM, SUBSTRING, ...) and EXTRACT
        // may be NULL in MySQL even from non-NULL arguments (a result longer
        // than max_allowed_packet, an invalid date): MariaDB declares them
        // nullable, and clients see that flag.
        Expr::Function {
            func: ScalarFunc::Length | ScalarFunc::CharLength,
            args,
            ..
        } => args.iter().any(|a| nullable(a, input)),
        Expr::Function {
            func: ScalarFunc::Registered(f),
            args,
            ..
        } => f.nullable(args.iter().any(|a| nullable(a, input))),
        // CAST to a number reads a bad string as 0 (a warning), not NULL; to
        // a date, an invalid value is NULL.
        Expr::Function {
            func: ScalarFunc::SqlCast,
            args,
            data_type,
        } => {
            args.iter().any(|a| nullable(a, input))
                || matches!(data_type, DataType::Date32 | DataType::Timestamp(..))
        }
        Expr::Function { .. } => true,
    }
}

/// Where `e` starts in `src`: (byte offset, line).
fn source_position(src: &crate::SqlSource, e: &ast::Expr) -> Option<(usize, u64)> {
    let tokens = src.tokens()?;
    let (first, _) = crate::parser::expr_tokens(tokens, e)?;
    let start = tokens[first].span.start;
    Some((src.offset(start)?, start.line))
}

/// The name MySQL shows for a select-list expression without an alias:
/// its text from its first token to its last (comments inside kept).
fn source_text(src: &crate::SqlSource, e: &ast::Expr) -> Option<String> {
    let tokens = src.tokens()?;
    let (first, last) = crate::parser::expr_tokens(tokens, e)?;
    let start = src.offset(tokens[first].span.start)?;
    let end = src.offset(tokens[last].span.end)?;
    src.text().get(start..end).map(str::to_string)
}

/// MySQL's limits on a select item's name: no leading spaces (`' x'` is
/// named `x`), at most 255 bytes (cut at a character boundary).
fn mysql_item_name(name: String) -> String {
    let name = name.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let mut end = name.len().min(255);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].to_string()
}

pub(crate) fn display_name(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Identifier(i) => i.value.clone(),
        // `@@session.name` keeps its scope, as MySQL names the item.
        ast::Expr::CompoundIdentifier(parts)
            if parts.first().is_some_and(|p| p.value.starts_with("@@")) =>
        {
            parts
                .iter()
                .map(|i| i.value.as_str())
                .collect::<Vec<_>>()
                .join(".")
        }
        ast::Expr::CompoundIdentifier(parts) => {
            parts.last().map(|i| i.value.clone()).unwrap_or_default()
        }
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s)
            | ast::Value::DoubleQuotedString(s)
            | ast::Value::NationalStringLiteral(s)
            | ast::Value::EscapedStringLiteral(s) => s.clone(),
            ast::Value::Boolean(b) => (if *b { "TRUE" } else { "FALSE" }).to_string(),
            other => other.to_string(),
        },
        ast::Expr::Nested(inner)
            if matches!(
                **inner,
                ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
            ) =>
        {
            display_name(inner)
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod name_tests {
    use super::mysql_item_name;

    #[test]
    fn item_names_lose_leading_spaces_and_stop_at_255_bytes() {
        assert_eq!(mysql_item_name("  x ".into()), "x ");
        assert_eq!(mysql_item_name("1".repeat(300)), "1".repeat(255));
        // 127 two-byte characters: the 128th would pass 255 bytes.
        assert_eq!(mysql_item_name("é".repeat(300)), "é".repeat(127));
    }
}
