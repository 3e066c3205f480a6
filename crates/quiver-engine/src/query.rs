//! Queries, from SQL to rows: [`Session::prepare`] binds and optimizes a
//! query (or takes its plan from the plan cache) into a [`PreparedQuery`],
//! whose [`PreparedQuery::stream`] runs it. Every query a statement runs
//! goes this one way: a SELECT, the rows INSERT ... SELECT stores, a SET's
//! value, SHOW's rows filtered by a query, EXPLAIN.
//!
//! The one policy of running: decimals beyond 38 digits are computed in
//! i128 where they fit ([`create_narrow_plan`]); a value that does not fit
//! (1690) before any row left runs the query again as declared. The stream
//! ([`RowStream`]) holds that retry; running to the end is
//! `stream().collect()`.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};
use quiver_exec::planner::arrow_schema;
use quiver_exec::{create_narrow_plan, create_physical_plan, ExecContext, ExecutionPlan};
use quiver_plan::optimizer::optimize;
use quiver_plan::{LogicalPlan, TableSource};
use quiver_sql::sqlparser::ast::{Query, Statement};
use quiver_sql::{Binder, SqlSource};

use crate::information_schema::{info_table, rewrite_query, MemTable, SessionInfo, PREFIX};
use crate::plan_cache::Conditions;
use crate::stream::{NarrowAttempt, RowStream, StreamedResult};
use crate::Session;

/// What a query's rows are for, which decides how it is bound and run.
pub(crate) enum Purpose {
    /// A statement's result, sent to the client: `sql_select_limit`
    /// applies. With `keep`, the plan is kept for the next time the same
    /// text comes (the text must be the query's whole statement).
    Result { keep: bool },
    /// Rows a statement stores (INSERT ... SELECT, CREATE TABLE ... SELECT):
    /// strict mode makes division by zero error 1365; run as declared.
    Stored { strict_division: bool },
    /// SHOW's rows (`extra`, a table by its name) filtered by a query.
    Show(Arc<MemTable>),
    /// The plan alone (a view's definition, EXPLAIN, a value of SET).
    Plan,
}

/// A bound, optimized query of a session, ready to run.
pub struct PreparedQuery<'s> {
    session: &'s Session,
    plan: Arc<LogicalPlan>,
    /// Whether decimals may be computed narrow first.
    narrow: bool,
    /// Partitions of the physical plan: the session's threads, or one where
    /// rows must come in the order of the table they are read from.
    partitions: usize,
}

impl<'s> PreparedQuery<'s> {
    /// The optimized logical plan.
    pub fn plan(&self) -> &Arc<LogicalPlan> {
        &self.plan
    }

    /// Runs in one partition, so that a plain scan's rows come in the order
    /// the table holds them (a statement that rewrites a table keeps it).
    pub(crate) fn in_one_partition(mut self) -> Self {
        self.partitions = 1;
        self
    }

    /// The physical plan the query runs first, and whether it is a narrowed
    /// one (which may give way to the declared plan).
    pub fn physical_plan(&self) -> Result<(Arc<dyn ExecutionPlan>, bool)> {
        let threads = self.partitions;
        if self.narrow {
            if let Ok(Some(planned)) = create_narrow_plan(&self.plan, threads) {
                return Ok(planned);
            }
        }
        Ok((create_physical_plan(&self.plan, threads)?, false))
    }

    /// The rows as they are computed. A query of one partition starts on
    /// this call, so an error at its start is returned here.
    pub fn stream(self) -> Result<RowStream> {
        self.rows(false)?.started()
    }

    /// Runs the query to its end: the declared schema and its batches.
    pub fn collect(self) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        let mut rows = self.rows(true)?;
        let batches = rows.collect_whole()?;
        Ok((rows.schema(), batches))
    }

    /// Runs the query to its end for EXPLAIN ANALYZE: its batches and the
    /// plan that made them, with its counters.
    pub(crate) fn collect_analyzed(self) -> Result<(Vec<RecordBatch>, Arc<dyn ExecutionPlan>)> {
        let mut rows = self.rows(true)?;
        let batches = rows.collect_whole()?;
        let plan = rows.plan().expect("a planned query").clone();
        Ok((batches, plan))
    }

    /// The stream, not started: `whole` runs the plan to its end at once.
    fn rows(&self, whole: bool) -> Result<RowStream> {
        let session = self.session;
        let ctx = session.context();
        let (plan, narrowed) = self.physical_plan()?;
        if !narrowed {
            return Ok(RowStream::of_plan(
                plan.clone(),
                ctx,
                plan.schema(),
                None,
                whole,
            ));
        }
        // The narrow attempt keeps its warnings apart: they are the
        // command's only if it runs to its end.
        let attempt = session.attempt_context(&ctx);
        let threads = self.partitions;
        Ok(RowStream::of_plan(
            plan,
            attempt,
            arrow_schema(&self.plan.schema()),
            Some(NarrowAttempt::new(self.plan.clone(), threads, ctx)),
            whole,
        ))
    }
}

/// The catalog of a statement in a session: the database's tables and
/// views, information_schema's, and a SHOW statement's rows.
pub(crate) struct SessionCatalog<'a> {
    pub session: &'a Session,
    /// The text of the statement being bound (SHOW PROCESSLIST's own row).
    pub source: Option<&'a Arc<SqlSource>>,
    /// Extra tables by name (a SHOW statement's rows, filtered by a query).
    pub extra: Option<Arc<MemTable>>,
    /// Set once a table made for this statement (information_schema, the
    /// SHOW rows) was handed out: the plan holds contents of this moment.
    pub read_snapshot: std::sync::atomic::AtomicBool,
}

impl quiver_sql::Catalog for SessionCatalog<'_> {
    fn table(&self, name: &str) -> Option<Arc<dyn TableSource>> {
        self.table_in(None, name)
    }

    fn table_in(&self, database: Option<&str>, name: &str) -> Option<Arc<dyn TableSource>> {
        // A SHOW statement's rows are named `quiver`.`<SHOW_TABLE>`.
        if let Some(t) = &self.extra {
            if t.name.eq_ignore_ascii_case(name) {
                self.read_snapshot
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                return Some(t.clone());
            }
        }
        if database.is_none() {
            if let Some(view) = name.strip_prefix(PREFIX) {
                self.read_snapshot
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                // Unknown names were refused when the query was renamed.
                return info_table(self.session, self.source, view)
                    .ok()
                    .map(|t| t as Arc<dyn TableSource>);
            }
        }
        let database = self.session.schema_for(database).ok()?;
        // A transaction reads the tables it wrote as it left them.
        if let Some(copy) = self.session.copy_of(&database, name) {
            return Some(copy as Arc<dyn TableSource>);
        }
        self.session
            .database()
            .table_in(&database, name)
            .map(|t| t as Arc<dyn TableSource>)
    }

    fn damaged(&self, name: &str) -> Option<QuiverError> {
        self.damaged_in(None, name)
    }

    fn damaged_in(&self, database: Option<&str>, name: &str) -> Option<QuiverError> {
        let database = self.session.schema_for(database).ok()?;
        self.session.database().damaged_in(&database, name)
    }

    fn current_database(&self) -> Result<String> {
        self.session.schema_for(None)
    }

    fn functions(&self) -> &dyn quiver_plan::FunctionRegistry {
        &quiver_exec::functions::REGISTRY
    }

    fn view(&self, name: &str) -> Option<Query> {
        self.view_in(None, name)
    }

    fn view_in(&self, database: Option<&str>, name: &str) -> Option<Query> {
        if database.is_none() && name.starts_with(PREFIX) {
            return None;
        }
        let database = self.session.schema_for(database).ok()?;
        crate::catalog::parse_view(&self.session.database().view_sql_in(&database, name)?)
    }
}

/// NOW() and its kin are bound as the statement's time, and the counts of
/// the statement before as they were: a plan that reads them is not kept.
const NOT_KEPT: [&str; 8] = [
    "now",
    "curdate",
    "current_",
    "localtime",
    "sysdate",
    "utc_",
    "warning_count",
    "error_count",
];

impl Session {
    /// Binds and optimizes `query`, parsed from `source` (which names its
    /// unaliased select items as MySQL does), for `purpose`. A query whose
    /// plan is kept is taken from the plan cache when it is still valid.
    pub(crate) fn prepare(
        &self,
        query: &Query,
        source: Option<&Arc<SqlSource>>,
        purpose: Purpose,
    ) -> Result<PreparedQuery<'_>> {
        let prepared = |plan: LogicalPlan, narrow: bool| PreparedQuery {
            session: self,
            plan: Arc::new(plan),
            narrow,
            partitions: self.config().threads,
        };
        match purpose {
            Purpose::Result { keep: true } => {
                let source = source.ok_or_else(|| QuiverError::internal("a kept plan's text"))?;
                if let Some(kept) = self.kept_plan(source.text()) {
                    // As binding would have found (see `bind`).
                    if crate::diagnostics::reads_tables(&kept)
                        || crate::diagnostics::names_tables(query)
                    {
                        self.statement_reads_tables();
                    }
                    return Ok(self.prepared(kept));
                }
                // Read before binding: a change during it leaves the entry stale.
                let conditions = self.plan_conditions();
                let (plan, snapshot) = self.bind(query, Some(source), None)?;
                let plan = Arc::new(self.select_limit(plan, query));
                if !snapshot
                    && !NOT_KEPT.iter().any(|w| source.mentions(w))
                    && !self.has_copies.load(std::sync::atomic::Ordering::Relaxed)
                {
                    self.plan_cache.put(source.text(), conditions, plan.clone());
                }
                Ok(self.prepared(plan))
            }
            Purpose::Result { keep: false } => {
                let (plan, _) = self.bind(query, source, None)?;
                Ok(prepared(self.select_limit(plan, query), true))
            }
            Purpose::Stored { strict_division } => {
                let (plan, _) = self.bind(query, source, None)?;
                let plan = match strict_division {
                    true => quiver_sql::strict_division(plan),
                    false => plan,
                };
                Ok(prepared(plan, false))
            }
            Purpose::Show(table) => {
                let (plan, _) = self.bind(query, source, Some(table))?;
                Ok(prepared(plan, true))
            }
            Purpose::Plan => Ok(prepared(self.bind(query, source, None)?.0, true)),
        }
    }

    /// A kept plan, ready to run again.
    fn prepared(&self, plan: Arc<LogicalPlan>) -> PreparedQuery<'_> {
        PreparedQuery {
            session: self,
            plan,
            narrow: true,
            partitions: self.config().threads,
        }
    }

    /// Binds and optimizes a query (its text unknown).
    pub fn logical_plan(&self, query: &Query) -> Result<LogicalPlan> {
        self.bind(query, None, None).map(|(plan, _)| plan)
    }

    /// The physical plan of a query as declared (its text unknown).
    pub fn physical_plan(&self, query: &Query) -> Result<Arc<dyn ExecutionPlan>> {
        create_physical_plan(&self.logical_plan(query)?, self.config().threads)
    }

    /// Binds and optimizes `query` from `source`, which may also read
    /// `extra` (a SHOW statement's rows) and information_schema; and
    /// whether the plan holds tables made for this statement
    /// (information_schema, SHOW rows), which a later run must make again.
    fn bind(
        &self,
        query: &Query,
        source: Option<&Arc<SqlSource>>,
        extra: Option<Arc<MemTable>>,
    ) -> Result<(LogicalPlan, bool)> {
        // A COMMIT that published while the tables were looked up may have
        // given some of them before it and some after: bind again.
        loop {
            let commits = self.database().commits();
            let bound = self.bind_once(query, source, extra.clone())?;
            if self.database().commits() == commits {
                return Ok(bound);
            }
        }
    }

    fn bind_once(
        &self,
        query: &Query,
        source: Option<&Arc<SqlSource>>,
        extra: Option<Arc<MemTable>>,
    ) -> Result<(LogicalPlan, bool)> {
        let database = self.current_database();
        let info = SessionInfo {
            database: database.as_deref(),
        };
        // The rewrite (information_schema tables) works on a copy; a text
        // that names none is bound as it is (a copy of a UNION of thousands
        // of SELECTs is as deep to make).
        let rewritten;
        let query = if needs_rewrite(source.map(|s| s.as_ref()), database.as_deref()) {
            let mut q = quiver_sql::clone_query(query);
            rewrite_query(&mut q, &info)?;
            rewritten = q;
            &rewritten
        } else {
            query
        };
        let catalog = SessionCatalog {
            session: self,
            source,
            extra,
            read_snapshot: Default::default(),
        };
        let mut binder = Binder::with_vars(&catalog, self.binding_vars(source.map(|s| s.as_ref())));
        if let Some(src) = source {
            binder = binder.with_source(src.clone());
        }
        let plan = optimize(binder.bind_query(query)?)?;
        if crate::diagnostics::reads_tables(&plan) || crate::diagnostics::names_tables(query) {
            self.statement_reads_tables();
        }
        let snapshot = catalog
            .read_snapshot
            .load(std::sync::atomic::Ordering::Relaxed);
        Ok((plan, snapshot))
    }

    /// What a plan bound now depends on besides its text.
    fn plan_conditions(&self) -> Conditions {
        Conditions {
            generation: self.database().generation(),
            vars: self.vars(),
            database: self.current_database(),
        }
    }

    /// The kept plan of the query whose text is `sql`, if it is still valid.
    fn kept_plan(&self, sql: &str) -> Option<Arc<LogicalPlan>> {
        // Kept plans read the committed tables, not a transaction's copies.
        if sql.len() > crate::plan_cache::MAX_TEXT
            || self.has_copies.load(std::sync::atomic::Ordering::Relaxed)
        {
            return None;
        }
        // Compared in place: a kept plan serves repeated statements, which
        // should not pay for copying the variables.
        self.plan_cache
            .get(sql, self.database().generation(), |made| {
                self.with_vars(|v| made.vars == *v)
                    && self.with_current_database(|db| made.database.as_deref() == db)
            })
    }

    /// `sql_select_limit` on a query's result, unless it has its own LIMIT.
    fn select_limit(&self, plan: LogicalPlan, q: &Query) -> LogicalPlan {
        let limit = match self.with_vars(|v| v.system.get("sql_select_limit").cloned()) {
            Some(quiver_common::ScalarValue::UInt64(n)) if n < u64::MAX => n,
            _ => return plan,
        };
        if q.limit_clause.is_some() || q.fetch.is_some() {
            return plan;
        }
        LogicalPlan::Limit {
            input: Box::new(plan),
            skip: 0,
            fetch: Some(usize::try_from(limit).unwrap_or(usize::MAX)),
        }
    }

    /// A context for one attempt at the command of `ctx`: stopped with it,
    /// while its own stop (an attempt given up) leaves the command running.
    /// Its warnings are its own, the command's only if it succeeds.
    pub(crate) fn attempt_context(&self, ctx: &ExecContext) -> Arc<ExecContext> {
        let warnings = quiver_exec::warnings::Warnings::new(ctx.warnings.limit());
        Arc::new(
            ExecContext::new(self.config().threads, self.config().memory_limit)
                .within(self.db.memory())
                .with_cancel(ctx.cancel.child())
                .with_warnings(Arc::new(warnings)),
        )
    }

    /// Runs `stmt`, parsed from `source`, as [`Session::execute_statement_from`]
    /// does, except that a query's rows come as a [`RowStream`] while the plan
    /// runs. Other statements run to their end first.
    pub fn execute_streaming(
        &self,
        stmt: &Statement,
        source: &Arc<SqlSource>,
    ) -> Result<StreamedResult> {
        self.stream_statement(stmt, source, false)
    }

    /// [`Session::execute_streaming`] of a statement that is the whole of
    /// `source`'s text: a query's plan is kept, and
    /// [`Session::execute_kept`] runs the same text again without parsing,
    /// binding or optimizing it.
    pub fn execute_streaming_keeping_plan(
        &self,
        stmt: &Statement,
        source: &Arc<SqlSource>,
    ) -> Result<StreamedResult> {
        self.stream_statement(stmt, source, true)
    }

    fn stream_statement(
        &self,
        stmt: &Statement,
        source: &Arc<SqlSource>,
        keep: bool,
    ) -> Result<StreamedResult> {
        let Statement::Query(q) = stmt else {
            return self.execute_statement_from(stmt, source).map(Into::into);
        };
        // Binding finds whether it reads a table (which resets the warnings).
        self.begin_statement(false);
        let result = self.database().sync_with_disk().and_then(|()| {
            let rows = self
                .prepare(q, Some(source), Purpose::Result { keep })?
                .stream()?;
            Ok(StreamedResult::Rows(rows))
        });
        if let Err(e) = &result {
            self.statement_failed(e);
        }
        result
    }

    /// Runs the query whose text is `sql` from its kept plan; None when there
    /// is none valid now (never run, or the catalog, the session variables
    /// or the current database changed since): then parse and run it.
    pub fn execute_kept(&self, sql: &str) -> Option<Result<StreamedResult>> {
        if let Err(e) = self.database().sync_with_disk() {
            self.record_error(&e);
            return Some(Err(e));
        }
        let logical = self.kept_plan(sql)?;
        self.begin_statement(crate::diagnostics::reads_tables(&logical));
        let result = self.prepared(logical).stream().map(StreamedResult::Rows);
        if let Err(e) = &result {
            self.statement_failed(e);
        }
        Some(result)
    }
}

/// Whether a query from `source` may name what [`rewrite_query`] replaces:
/// an information_schema table or a session function. Without the text,
/// assume it does.
fn needs_rewrite(source: Option<&SqlSource>, database: Option<&str>) -> bool {
    match source {
        Some(s) => {
            database.is_some_and(|d| d.eq_ignore_ascii_case(crate::INFORMATION_SCHEMA))
                || s.mentions("information_schema")
        }
        None => true,
    }
}
