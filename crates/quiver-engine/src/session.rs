//! Running statements: queries go through binder, optimizer, physical planner
//! and executor; DDL and DML change the catalog.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_collation::Collation;
use quiver_common::types::{
    is_numeric, IntType, COLUMN_COLLATION_KEY, COLUMN_DEFAULT_KEY, COLUMN_DISPLAY_LENGTH_KEY,
    COLUMN_NOT_NULL_KEY, COLUMN_NO_DEFAULT_KEY, COLUMN_ORIGIN_KEY, COLUMN_TYPE_KEY,
};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_exec::context::{Deadline, TimeLimit};
use quiver_exec::expr::{cast_array, PhysicalExpr};
use quiver_exec::operators::display_plan;
use quiver_exec::planner::arrow_schema;
use quiver_exec::{
    collect, create_narrow_plan, create_physical_plan, to_declared, ExecContext, ExecutionPlan,
};
use quiver_plan::optimizer::optimize;
use quiver_plan::LogicalPlan;
use quiver_sql::sqlparser::ast::{
    ColumnDef, ColumnOption, CreateTable, CreateTableLikeKind, CreateView, Expr as SqlExpr, Insert,
    ObjectName, ObjectNamePart, ObjectType, Query, SetExpr, Statement, TableObject,
};
use quiver_sql::{
    charset_default, collation_by_name, column_charset_default, column_collation_by_name,
    parse_sql, sql_type, Binder, SessionVars, SqlSource,
};

use crate::catalog::Database;
use crate::information_schema::{rewrite_query, MemTable, SessionCatalog, SessionInfo};
use crate::plan_cache::{Conditions, PlanCache};
use crate::process::{Process, ProcessList};
use crate::store::{store_cast, text_as_bytes, Misfits};

#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub threads: usize,
    /// Bytes operators may hold at once.
    pub memory_limit: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_limit: default_memory_limit(),
        }
    }
}

/// The error of a value that does not fit where it is computed (1690, out
/// of range): a plan with narrowed decimals is then run again as declared.
pub(crate) const NARROW_OVERFLOW: u16 = 1690;

/// 60% of physical memory: room for the OS and the rest of the process.
pub fn default_memory_limit() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<usize>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(8 << 30);
    total / 10 * 6
}

#[derive(Debug, Clone)]
pub enum StatementResult {
    Rows {
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
    },
    Done {
        affected: u64,
    },
}

impl StatementResult {
    pub fn num_rows(&self) -> usize {
        match self {
            StatementResult::Rows { batches, .. } => batches.iter().map(|b| b.num_rows()).sum(),
            StatementResult::Done { .. } => 0,
        }
    }
}

/// The one schema a database folder is, as clients see it (`SHOW DATABASES`,
/// `USE`, `DATABASE()`, qualified names in error messages).
pub const SCHEMA_NAME: &str = "quiver";

/// The schema of the metadata views (`information_schema.TABLES`, ...).
pub const INFORMATION_SCHEMA: &str = "information_schema";

pub struct Session {
    db: Arc<Database>,
    config: EngineConfig,
    /// `SET NAMES`, `SET collation_connection = ...` and the like.
    vars: std::sync::Mutex<SessionVars>,
    /// The schema chosen by `USE` (None until then, as in MySQL).
    current_database: std::sync::Mutex<Option<String>>,
    /// `USER()`: `user@host` (a server sets the client's).
    user: String,
    /// `CURRENT_USER()`: the account, `user@%` for a server's client (an
    /// account matches from any host).
    account: String,
    /// `CONNECTION_ID()`.
    connection_id: u64,
    /// The SQL text of the statements running now, which names unaliased
    /// select items as MySQL does (by their text as written).
    source: std::sync::Mutex<Option<Arc<SqlSource>>>,
    /// This connection in SHOW PROCESSLIST; its running command's cancel
    /// flag stops the queries it runs (KILL QUERY).
    process: Arc<Process>,
    /// A server's connections (None for a session of its own).
    processes: Option<Arc<ProcessList>>,
    /// Plans of the queries run, by their text, for when they come again.
    plan_cache: PlanCache,
    /// What SHOW WARNINGS shows (see [`crate::diagnostics`]).
    pub(crate) diagnostics: std::sync::Mutex<crate::diagnostics::Diagnostics>,
    /// When the running statement started: its time limits count from here.
    pub(crate) statement_started: std::sync::Mutex<Instant>,
}

/// A SET assignment's value, computed before any is assigned.
enum SetValue {
    /// `NAMES ...` / `CHARACTER SET ...`, applied from the statement.
    Charset,
    User(quiver_sql::UserVariable),
    /// `= DEFAULT`.
    Default,
    System(ScalarValue),
}

/// A bare word or string of a SET: its text.
fn word(e: &SqlExpr) -> String {
    match e {
        SqlExpr::Identifier(i) => i.value.clone(),
        SqlExpr::Value(v) => match &v.value {
            quiver_sql::sqlparser::ast::Value::SingleQuotedString(s)
            | quiver_sql::sqlparser::ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        other => other.to_string(),
    }
}

/// `SET NAMES cs [COLLATE c]` (`DEFAULT`: the engine's defaults).
fn set_names(vars: &mut SessionVars, charset: &SqlExpr, collation: Option<&str>) -> Result<()> {
    let name = word(charset);
    let charset = if name.eq_ignore_ascii_case("DEFAULT") {
        quiver_plan::default_collation()
    } else {
        charset_default(&name)?
    };
    vars.collation_connection = match collation {
        Some(name) if !name.eq_ignore_ascii_case("DEFAULT") => {
            let c = collation_by_name(name.trim_matches(|c| c == '\'' || c == '"'))?;
            if c.charset() != charset.charset() {
                return Err(QuiverError::new(
                    1253,
                    "42000",
                    format!(
                        "COLLATION '{c}' is not valid for CHARACTER SET '{}'",
                        charset.charset().name()
                    ),
                ));
            }
            c
        }
        _ => charset,
    };
    vars.character_set_client = vars.collation_connection.charset();
    vars.character_set_results = Some(vars.collation_connection);
    Ok(())
}

/// `SET` of a charset or collation variable (`value` None: DEFAULT);
/// false when `name` is not one.
fn set_charset_variable(
    vars: &mut SessionVars,
    name: &str,
    value: Option<&ScalarValue>,
) -> Result<bool> {
    let defaults = SessionVars::default();
    let text = || -> String {
        match value {
            Some(ScalarValue::Utf8(s)) => s.clone(),
            Some(ScalarValue::Null) | None => "NULL".to_string(),
            Some(other) => other.to_string(),
        }
    };
    match name {
        "collation_connection" => {
            vars.collation_connection = match value {
                None => defaults.collation_connection,
                Some(_) => collation_by_name(&text())?,
            }
        }
        "character_set_connection" => {
            vars.collation_connection = match value {
                None => defaults.collation_connection,
                Some(_) => charset_default(&text())?,
            }
        }
        "collation_database" | "collation_server" => {
            vars.collation_database = match value {
                None => defaults.collation_database,
                Some(_) => collation_by_name(&text())?,
            }
        }
        "character_set_database" | "character_set_server" => {
            vars.collation_database = match value {
                None => defaults.collation_database,
                Some(_) => charset_default(&text())?,
            }
        }
        "character_set_client" => {
            vars.character_set_client = match value {
                None => defaults.character_set_client,
                Some(_) => charset_default(&text())?.charset(),
            }
        }
        "character_set_results" => {
            let v = text();
            vars.character_set_results = match value {
                None => defaults.character_set_results,
                Some(_) if v.eq_ignore_ascii_case("NULL") || v.eq_ignore_ascii_case("binary") => {
                    None
                }
                Some(_) => Some(charset_default(&v)?),
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Whether MariaDB counts `stmt` as using tables, which resets the list of
/// SHOW WARNINGS before it runs. A query (and a SET reading one) is known
/// when bound ([`crate::diagnostics::reads_tables`]).
fn uses_tables(stmt: &Statement) -> bool {
    match stmt {
        Statement::CreateTable(_)
        | Statement::Insert(_)
        | Statement::CreateView(_)
        | Statement::ExplainTable { .. }
        | Statement::Explain { .. } => true,
        Statement::Drop { object_type, .. } => {
            !matches!(object_type, ObjectType::Database | ObjectType::Schema)
        }
        // SHOW reads information_schema, except for the list of connections.
        Statement::ShowFunctions { .. }
        | Statement::ShowVariable { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowCatalogs { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowCharset(_)
        | Statement::ShowObjects(_)
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. }
        | Statement::ShowCollation { .. } => true,
        _ => false,
    }
}

fn object_name(name: &ObjectName) -> Result<String> {
    match name.0.last() {
        Some(ObjectNamePart::Identifier(i)) => Ok(i.value.clone()),
        _ => Err(QuiverError::syntax_msg(format!(
            "unsupported object name {name}"
        ))),
    }
}

fn text_result(column: &str, lines: Vec<String>) -> Result<StatementResult> {
    let schema = Arc::new(Schema::new(vec![Field::new(column, DataType::Utf8, false)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(StringArray::from(lines))])?;
    Ok(StatementResult::Rows {
        schema,
        batches: vec![batch],
    })
}

impl Session {
    pub fn new(db: Arc<Database>, config: EngineConfig) -> Session {
        // New tables take the database's default collation (ALTER DATABASE).
        let vars = SessionVars {
            collation_database: db.default_collation(),
            ..SessionVars::default()
        };
        Session {
            db,
            config,
            vars: std::sync::Mutex::new(vars),
            current_database: Default::default(),
            user: "root@localhost".to_string(),
            account: "root@localhost".to_string(),
            connection_id: 0,
            source: Default::default(),
            process: Arc::new(Process::new(0, "root", "localhost")),
            processes: None,
            plan_cache: PlanCache::default(),
            diagnostics: Default::default(),
            statement_started: std::sync::Mutex::new(Instant::now()),
        }
    }

    /// A session for a client: its `user@host` and connection id, which
    /// `USER()` and `CONNECTION_ID()` return.
    pub fn for_client(
        db: Arc<Database>,
        config: EngineConfig,
        user: &str,
        host: &str,
        connection_id: u64,
    ) -> Session {
        Session {
            user: format!("{user}@{host}"),
            account: format!("{user}@%"),
            connection_id,
            process: Arc::new(Process::new(connection_id, user, host)),
            ..Session::new(db, config)
        }
    }

    /// The session of a server's connection `process`, listed with the
    /// others in `list` (SHOW PROCESSLIST, KILL).
    pub fn in_process_list(mut self, list: Arc<ProcessList>, process: Arc<Process>) -> Session {
        process.set_db(self.current_database());
        self.process = process;
        self.processes = Some(list);
        self
    }

    /// This connection as SHOW PROCESSLIST lists it.
    pub fn process(&self) -> &Arc<Process> {
        &self.process
    }

    pub(crate) fn process_list(&self) -> Option<&Arc<ProcessList>> {
        self.processes.as_ref()
    }

    /// The text of the statement being run (SHOW PROCESSLIST's own row).
    pub(crate) fn statement_text(&self) -> Option<Arc<str>> {
        let source = self.source.lock().expect("session lock");
        source.as_ref().map(|s| Arc::from(s.text().trim()))
    }

    /// The text the statement being run was parsed from, if known.
    pub(crate) fn source(&self) -> Option<Arc<SqlSource>> {
        self.source.lock().expect("session lock").clone()
    }

    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Runs every statement of `sql` in order; stops at the first error.
    pub fn execute(&self, sql: &str) -> Result<Vec<StatementResult>> {
        let source = Arc::new(SqlSource::new(sql));
        self.parse(sql)?
            .iter()
            .map(|s| self.execute_statement_from(s, &source))
            .collect()
    }

    /// Runs `stmt`, parsed from `sql`: result columns without an alias are
    /// named by their text in `sql`, as MySQL names them. For the statements
    /// of a long script, build the [`SqlSource`] once and use
    /// [`Session::execute_statement_from`].
    pub fn execute_statement_in(&self, stmt: &Statement, sql: &str) -> Result<StatementResult> {
        self.execute_statement_from(stmt, &Arc::new(SqlSource::new(sql)))
    }

    /// Runs `stmt`, parsed from the text of `source`.
    pub fn execute_statement_from(
        &self,
        stmt: &Statement,
        source: &Arc<SqlSource>,
    ) -> Result<StatementResult> {
        let previous = self
            .source
            .lock()
            .expect("session lock")
            .replace(source.clone());
        let result = self.execute_statement(stmt);
        *self.source.lock().expect("session lock") = previous;
        result
    }

    /// The statements of `sql`; a syntax error is the statement's error in
    /// SHOW WARNINGS too.
    fn parse(&self, sql: &str) -> Result<Vec<Statement>> {
        parse_sql(sql).inspect_err(|e| self.record_error(e))
    }

    /// Runs `sql`, which must be one statement, and returns its result.
    pub fn query(&self, sql: &str) -> Result<StatementResult> {
        let mut stmts = self.parse(sql)?;
        if stmts.len() != 1 {
            return Err(QuiverError::syntax_msg(format!(
                "expected one statement, got {}",
                stmts.len()
            )));
        }
        self.execute_statement_in(&stmts.remove(0), sql)
    }

    /// The schema chosen by `USE`, if any.
    pub fn current_database(&self) -> Option<String> {
        self.current_database
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// `USE name`: the database's own schema or information_schema; any
    /// other name is MySQL's error 1049.
    fn use_database(&self, u: &quiver_sql::sqlparser::ast::Use) -> Result<StatementResult> {
        use quiver_sql::sqlparser::ast::Use;
        let name = match u {
            Use::Object(n) | Use::Database(n) | Use::Schema(n) => object_name(n)?,
            other => return Err(QuiverError::not_supported(other.to_string())),
        };
        let canonical = [SCHEMA_NAME, INFORMATION_SCHEMA]
            .into_iter()
            .find(|s| s.eq_ignore_ascii_case(&name))
            .ok_or_else(|| QuiverError::new(1049, "42000", format!("Unknown database '{name}'")))?;
        self.process.set_db(Some(canonical.to_string()));
        *self
            .current_database
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(canonical.to_string());
        Ok(StatementResult::Done { affected: 0 })
    }

    /// The collation result strings are sent in (`character_set_results`,
    /// made a collation by `SET NAMES`); None for each column's own.
    pub fn results_collation(&self) -> Option<Collation> {
        self.with_vars(|v| v.character_set_results)
    }

    /// The charset the client's statements arrive in (`character_set_client`).
    pub fn client_charset(&self) -> quiver_collation::Charset {
        self.with_vars(|v| v.character_set_client)
    }

    /// The session variables now.
    pub fn vars(&self) -> SessionVars {
        self.with_vars(SessionVars::clone)
    }

    /// `f` of the session variables, read in place: what runs for every
    /// statement reads them so, without copying them.
    pub(crate) fn with_vars<R>(&self, f: impl FnOnce(&SessionVars) -> R) -> R {
        f(&self.vars.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The session variables and who the session is (`USER()`,
    /// `DATABASE()`), for binding.
    fn identity_vars(&self) -> SessionVars {
        let mut vars = self.vars();
        vars.identity = quiver_sql::SessionIdentity {
            user: self.user.clone(),
            account: self.account.clone(),
            database: self.current_database(),
            connection_id: self.connection_id,
        };
        vars
    }

    /// The variables a query is bound with: [`Session::identity_vars`], with
    /// `@@warning_count` and `@@error_count` when its text may read them
    /// (`source`; None: it may) (never kept in a plan).
    fn binding_vars(&self, source: Option<&SqlSource>) -> SessionVars {
        let mut vars = self.identity_vars();
        if source.is_none_or(|s| s.mentions("warning_count") || s.mentions("error_count")) {
            let w = self.warnings();
            let mut system = (*vars.system).clone();
            system.insert("warning_count".into(), ScalarValue::UInt64(w.total()));
            system.insert("error_count".into(), ScalarValue::UInt64(w.errors()));
            vars.system = Arc::new(system);
        }
        vars
    }

    /// `SET` of any number of assignments: `NAMES cs [COLLATE c]`,
    /// `CHARACTER SET cs`, `[SESSION] var = value` (checked and kept, see
    /// [`crate::variables`]), `@user = expr`. Every value is computed before
    /// any is assigned, and either all assignments are made or none, as in
    /// MariaDB. `SET GLOBAL` is not supported (1235): a server's sessions
    /// share no variables.
    fn set(&self, set: &quiver_sql::sqlparser::ast::Set) -> Result<StatementResult> {
        use quiver_sql::sqlparser::ast::{ContextModifier, Set};
        let before = self.vars();
        let mut vars = before.clone();
        let mut system = (*vars.system).clone();
        let mut user = (*vars.user).clone();
        let one;
        let assignments: Vec<(Option<ContextModifier>, &ObjectName, &SqlExpr)> = match set {
            Set::MultipleAssignments { assignments } => assignments
                .iter()
                .map(|a| (a.scope, &a.name, &a.value))
                .collect(),
            // A server takes SET PASSWORD itself; the embedded engine has no accounts.
            Set::SingleAssignment { variable, .. }
                if variable.to_string().eq_ignore_ascii_case("PASSWORD") =>
            {
                return Err(QuiverError::not_supported("SET PASSWORD"))
            }
            Set::SingleAssignment {
                scope,
                variable,
                values,
                ..
            } => match values.as_slice() {
                [v] => vec![(*scope, variable, v)],
                _ => {
                    return Err(QuiverError::syntax_msg(format!(
                        "You have an error in your SQL syntax near '{set}'"
                    )))
                }
            },
            Set::SetNames {
                charset_name,
                collation_name,
            } => {
                one = SqlExpr::Identifier(charset_name.clone());
                set_names(&mut vars, &one, collation_name.as_deref())?;
                *self.vars.lock().unwrap_or_else(|p| p.into_inner()) = vars;
                return Ok(StatementResult::Done { affected: 0 });
            }
            // SET TRANSACTION ...: statements commit when they end.
            _ => return Ok(StatementResult::Done { affected: 0 }),
        };
        // The values, all computed under the variables as they were.
        let mut values = Vec::with_capacity(assignments.len());
        for (scope, name, value) in &assignments {
            if matches!(scope, Some(ContextModifier::Global)) {
                return Err(QuiverError::not_supported("SET GLOBAL"));
            }
            let target = match name.0.as_slice() {
                [ObjectNamePart::Identifier(i)] => i,
                _ => {
                    return Err(QuiverError::syntax_msg(format!(
                        "unsupported SET of {name}"
                    )))
                }
            };
            let plain = target.quote_style.is_none();
            let v = if plain
                && (target.value == quiver_sql::SET_NAMES
                    || target.value == quiver_sql::SET_CHARACTER_SET)
            {
                SetValue::Charset
            } else if plain && target.value.starts_with('@') && !target.value.starts_with("@@") {
                SetValue::User(self.user_value(value)?)
            } else {
                match value {
                    SqlExpr::Identifier(i)
                        if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT") =>
                    {
                        SetValue::Default
                    }
                    // ON, OFF, REPEATABLE-READ: a bare word is its text.
                    SqlExpr::Identifier(i) if i.quote_style.is_none() => {
                        SetValue::System(ScalarValue::Utf8(i.value.clone()))
                    }
                    e => SetValue::System(ScalarValue::from_array(&self.constant_value(e)?, 0)?),
                }
            };
            values.push(v);
        }
        for ((_, name, value), v) in assignments.iter().zip(values) {
            let [ObjectNamePart::Identifier(target)] = name.0.as_slice() else {
                unreachable!("checked above");
            };
            match v {
                SetValue::Charset if target.value == quiver_sql::SET_NAMES => match value {
                    SqlExpr::Collate { expr, collation } => {
                        set_names(&mut vars, expr, Some(&collation.to_string()))?
                    }
                    e => set_names(&mut vars, e, None)?,
                },
                SetValue::Charset => {
                    // SET CHARACTER SET cs: the client's and the results'
                    // charset; the connection's collation is the database's.
                    let cs = word(value);
                    if cs.eq_ignore_ascii_case("DEFAULT") {
                        set_names(&mut vars, value, None)?;
                    } else {
                        let charset = charset_default(&cs)?;
                        vars.character_set_client = charset.charset();
                        vars.character_set_results = Some(charset);
                        vars.collation_connection = vars.collation_database;
                    }
                }
                SetValue::User(u) => {
                    user.insert(target.value[1..].to_lowercase(), u);
                }
                SetValue::Default | SetValue::System(_) => {
                    let name = target.value.to_lowercase();
                    let name = name.trim_start_matches("@@");
                    let name = ["session.", "local.", "global."]
                        .iter()
                        .find_map(|p| name.strip_prefix(p))
                        .unwrap_or(name);
                    let value = match v {
                        SetValue::System(s) => Some(s),
                        _ => None,
                    };
                    if !set_charset_variable(&mut vars, name, value.as_ref())? {
                        match value {
                            None => {
                                crate::variables::check_settable(name)?;
                                system.remove(name);
                                for a in crate::variables::aliases(name) {
                                    system.remove(*a);
                                }
                            }
                            Some(value) => {
                                let stored = crate::variables::validate(name, &value)?;
                                for a in crate::variables::aliases(name) {
                                    system.insert(a.to_string(), stored.clone());
                                }
                                system.insert(name.to_string(), stored);
                            }
                        }
                    }
                }
            }
        }
        vars.system = Arc::new(system);
        vars.user = Arc::new(user);
        *self.vars.lock().unwrap_or_else(|p| p.into_inner()) = vars;
        Ok(StatementResult::Done { affected: 0 })
    }

    /// `SET @x = expr`: the value of `SELECT expr`, with its type and collation.
    fn user_value(&self, e: &SqlExpr) -> Result<quiver_sql::UserVariable> {
        let mut stmts = parse_sql("SELECT NULL")?;
        let Some(Statement::Query(mut q)) = stmts.pop() else {
            return Err(QuiverError::internal("SELECT did not parse as a query"));
        };
        if let SetExpr::Select(sel) = q.body.as_mut() {
            sel.projection = vec![quiver_sql::sqlparser::ast::SelectItem::UnnamedExpr(
                e.clone(),
            )];
        }
        let (schema, batches) = self.collect_plan(&self.logical_plan(&q)?)?;
        let field = schema.field(0);
        let value = match batches.iter().find(|b| b.num_rows() > 0) {
            Some(b) => ScalarValue::from_array(b.column(0), 0)?,
            None => ScalarValue::Null,
        };
        let collation = match value {
            ScalarValue::Utf8(_) => field
                .metadata()
                .get(COLUMN_COLLATION_KEY)
                .and_then(|n| Collation::from_name(n))
                .map(Collation::over_utf8)
                .filter(|c| *c != quiver_plan::default_collation()),
            _ => None,
        };
        Ok(quiver_sql::UserVariable {
            data_type: value.data_type(),
            value,
            collation,
        })
    }

    /// `sql_select_limit` on a query's result, unless it has its own LIMIT.
    pub(crate) fn select_limit(&self, plan: LogicalPlan, q: &Query) -> LogicalPlan {
        let limit = match self.with_vars(|v| v.system.get("sql_select_limit").cloned()) {
            Some(ScalarValue::UInt64(n)) if n < u64::MAX => n,
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

    /// A query's execution context, stopped by what stops the running
    /// command and by the statement's time limit.
    pub(crate) fn context(&self) -> Arc<ExecContext> {
        Arc::new(
            ExecContext::new(self.config.threads, self.config.memory_limit)
                .with_cancel(
                    self.process
                        .cancel_token()
                        .with_deadline(self.statement_deadline()),
                )
                .with_warnings(self.statement_warnings()),
        )
    }

    /// When the running statement must stop: `max_statement_time` seconds
    /// (MariaDB) or `max_execution_time` milliseconds (MySQL) after it
    /// started, whichever is sooner; 0 is no limit.
    fn statement_deadline(&self) -> Option<Deadline> {
        let vars = self.vars.lock().unwrap_or_else(|p| p.into_inner());
        let micros = |name: &str, per_unit: i128| {
            match vars.system.get(name) {
                Some(ScalarValue::Decimal(v, _, scale)) => {
                    let v = v.as_i128();
                    Some(
                        v.checked_mul(per_unit)?
                            / 10i128.checked_pow(u32::try_from(*scale).ok()?)?,
                    )
                }
                Some(ScalarValue::Int64(v)) => Some(i128::from(*v) * per_unit),
                _ => None,
            }
            .filter(|&us| us > 0)
        };
        let limits = [
            (
                micros("max_statement_time", 1_000_000),
                TimeLimit::MaxStatementTime,
            ),
            (
                micros("max_execution_time", 1_000),
                TimeLimit::MaxExecutionTime,
            ),
        ];
        drop(vars);
        let (us, limit) = limits
            .into_iter()
            .filter_map(|(us, limit)| Some((us?, limit)))
            .min_by_key(|(us, _)| *us)?;
        let started = *self
            .statement_started
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        Some(Deadline {
            at: started.checked_add(Duration::from_micros(u64::try_from(us).ok()?))?,
            limit,
        })
    }

    /// A context for one attempt at the command of `ctx`: stopped with it,
    /// while its own stop (an attempt given up) leaves the command running.
    /// Its warnings are its own, the command's only if it succeeds.
    pub(crate) fn attempt_context(&self, ctx: &ExecContext) -> Arc<ExecContext> {
        let warnings = quiver_exec::warnings::Warnings::new(ctx.warnings.limit());
        Arc::new(
            ExecContext::new(self.config.threads, self.config.memory_limit)
                .with_cancel(ctx.cancel.child())
                .with_warnings(Arc::new(warnings)),
        )
    }

    /// Runs a query to its end: with narrow decimals first where that
    /// differs ([`create_narrow_plan`]), again as declared if a value does
    /// not fit. Returns the declared schema and batches of it.
    fn collect_plan(&self, logical: &LogicalPlan) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        let ctx = self.context();
        match create_narrow_plan(logical, self.config.threads) {
            Ok(Some((plan, true))) => {
                let attempt = self.attempt_context(&ctx);
                match collect(&plan, &attempt) {
                    Ok(batches) => {
                        ctx.warnings.append(&attempt.warnings);
                        let schema = arrow_schema(&logical.schema());
                        let batches = batches
                            .into_iter()
                            .map(|b| to_declared(b, &schema))
                            .collect::<Result<_>>()?;
                        return Ok((schema, batches));
                    }
                    Err(e) if e.code == NARROW_OVERFLOW => {}
                    Err(e) => return Err(e),
                }
            }
            // Nothing was narrowed: the plan is the declared one.
            Ok(Some((plan, false))) => {
                let batches = collect(&plan, &ctx)?;
                return Ok((plan.schema(), batches));
            }
            _ => {}
        }
        let plan = create_physical_plan(logical, self.config.threads)?;
        let batches = collect(&plan, &ctx)?;
        Ok((plan.schema(), batches))
    }

    /// Runs `f` with `source` as the text of the statement being bound.
    pub(crate) fn with_source<T>(&self, source: &Arc<SqlSource>, f: impl FnOnce() -> T) -> T {
        let previous = self
            .source
            .lock()
            .expect("session lock")
            .replace(source.clone());
        let result = f();
        *self.source.lock().expect("session lock") = previous;
        result
    }

    /// Binds and optimizes a query.
    pub fn logical_plan(&self, query: &Query) -> Result<LogicalPlan> {
        self.logical_plan_with(query, None)
    }

    /// Binds and optimizes a query that may also read `extra` (a SHOW
    /// statement's rows) and information_schema.
    fn logical_plan_with(
        &self,
        query: &Query,
        extra: Option<Arc<MemTable>>,
    ) -> Result<LogicalPlan> {
        self.bind_query(query, extra).map(|(plan, _)| plan)
    }

    /// [`Session::logical_plan_with`], and whether the plan holds tables made
    /// for this statement (information_schema, SHOW rows), which a later run
    /// must make again.
    fn bind_query(
        &self,
        query: &Query,
        extra: Option<Arc<MemTable>>,
    ) -> Result<(LogicalPlan, bool)> {
        let database = self.current_database();
        let info = SessionInfo {
            database: database.as_deref(),
        };
        // The rewrite (information_schema tables) works on a copy; a text
        // that names none is bound as it is (a copy of a UNION of thousands
        // of SELECTs is as deep to make).
        let source = self.source.lock().expect("session lock").clone();
        let rewritten;
        let query = if needs_rewrite(source.as_deref(), database.as_deref()) {
            let mut q = quiver_sql::clone_query(query);
            rewrite_query(&mut q, &info)?;
            rewritten = q;
            &rewritten
        } else {
            query
        };
        let catalog = SessionCatalog {
            session: self,
            extra,
            read_snapshot: Default::default(),
        };
        let mut binder = Binder::with_vars(&catalog, self.binding_vars(source.as_deref()));
        if let Some(src) = source {
            binder = binder.with_source(src);
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
            generation: self.db.generation(),
            vars: self.vars(),
            database: self.current_database(),
        }
    }

    /// Binds and optimizes `query`, whose whole text is `source`'s, keeping
    /// the plan (with `sql_select_limit` on top) for the next time that text comes (see [`PlanCache`]).
    pub(crate) fn logical_plan_kept(
        &self,
        query: &Query,
        source: &Arc<SqlSource>,
    ) -> Result<Arc<LogicalPlan>> {
        // Read before binding: a change during it leaves the entry stale.
        let conditions = self.plan_conditions();
        let (plan, snapshot) = self.with_source(source, || self.bind_query(query, None))?;
        let plan = Arc::new(self.select_limit(plan, query));
        // NOW() and its kin are bound as the statement's time: not kept.
        // So are the counts of the statement before.
        const CLOCKS: [&str; 8] = [
            "now",
            "curdate",
            "current_",
            "localtime",
            "sysdate",
            "utc_",
            "warning_count",
            "error_count",
        ];
        if !snapshot && !CLOCKS.iter().any(|w| source.mentions(w)) {
            self.plan_cache.put(source.text(), conditions, plan.clone());
        }
        Ok(plan)
    }

    /// The kept plan of the query whose text is `sql`, if it is still valid.
    pub(crate) fn kept_plan(&self, sql: &str) -> Option<Arc<LogicalPlan>> {
        if sql.len() > crate::plan_cache::MAX_TEXT {
            return None;
        }
        // Compared in place: a kept plan serves repeated statements, which
        // should not pay for copying the variables.
        self.plan_cache.get(sql, self.db.generation(), |made| {
            self.with_vars(|v| made.vars == *v)
                && made.database.as_deref()
                    == self
                        .current_database
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .as_deref()
        })
    }

    pub(crate) fn run_query_with(
        &self,
        query: &Query,
        extra: Option<Arc<MemTable>>,
    ) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        self.collect_plan(&self.logical_plan_with(query, extra)?)
    }

    pub fn physical_plan(&self, query: &Query) -> Result<Arc<dyn ExecutionPlan>> {
        create_physical_plan(&self.logical_plan(query)?, self.config.threads)
    }

    /// The rows of a query whose result a statement stores (INSERT ... SELECT,
    /// CREATE TABLE ... SELECT): strict mode makes division by zero error 1365.
    fn run_written_query(&self, query: &Query) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        let logical = self.logical_plan(query)?;
        let logical = match self.strictness() {
            (_, true) => quiver_sql::strict_division(logical),
            _ => logical,
        };
        let plan = create_physical_plan(&logical, self.config.threads)?;
        let batches = collect(&plan, &self.context())?;
        Ok((plan.schema(), batches))
    }

    /// What the session's sql_mode makes of values a statement writes that
    /// do not fit: (strict mode: strings too long or of bad characters are
    /// errors, division by zero too when ERROR_FOR_DIVISION_BY_ZERO is on).
    fn strictness(&self) -> (bool, bool) {
        let mode = match self.with_vars(|v| v.system.get("sql_mode").cloned()) {
            Some(ScalarValue::Utf8(m)) => m,
            // Not set: MariaDB's default, which is strict.
            _ => return (true, true),
        };
        let has = |name: &str| mode.split(',').any(|m| m == name);
        let strict = has("STRICT_TRANS_TABLES") || has("STRICT_ALL_TABLES");
        (strict, strict && has("ERROR_FOR_DIVISION_BY_ZERO"))
    }

    /// A statement's query: `sql_select_limit` applies.
    fn run_query(&self, query: &Query) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        self.collect_plan(&self.select_limit(self.logical_plan(query)?, query))
    }

    /// Runs one statement, keeping its notes, warnings and error for SHOW
    /// WARNINGS (see [`crate::diagnostics`]).
    pub fn execute_statement(&self, stmt: &Statement) -> Result<StatementResult> {
        if let Some(show) = self.diagnostic_statement(stmt) {
            self.begin_diagnostic_statement();
            return self.show_diagnostics(show);
        }
        match stmt {
            Statement::Query(_) | Statement::Set(_) => self.begin_statement(uses_tables(stmt)),
            _ => self.begin_settled_statement(uses_tables(stmt)),
        }
        let result = self.run_statement(stmt);
        if let Err(e) = &result {
            self.statement_failed(e);
        }
        result
    }

    fn run_statement(&self, stmt: &Statement) -> Result<StatementResult> {
        // A statement that writes holds the folder's write lock from before
        // it binds until its data is stored; any other sees what the last
        // write, of any process, left.
        let _writing = match stmt {
            Statement::CreateTable(_)
            | Statement::Insert(_)
            | Statement::Drop { .. }
            | Statement::CreateView(_) => Some(self.db.write_lock()?),
            _ => {
                self.db.sync_with_disk()?;
                None
            }
        };
        if let Some(r) = self.show(stmt)? {
            return Ok(r);
        }
        match stmt {
            Statement::Query(q) => {
                let (schema, batches) = self.run_query(q)?;
                Ok(StatementResult::Rows { schema, batches })
            }
            Statement::CreateTable(ct) => self.create_table(ct),
            Statement::Insert(ins) => self.insert(ins),
            Statement::Drop {
                object_type,
                if_exists,
                names,
                ..
            } => {
                if matches!(object_type, ObjectType::Database | ObjectType::Schema) {
                    return self.drop_database(names, *if_exists);
                }
                let mut missing = Vec::new();
                for n in names {
                    let name = object_name(n)?;
                    let dropped = match object_type {
                        ObjectType::Table => self.db.drop_table(&name, *if_exists)?,
                        ObjectType::View => self.db.drop_view(&name, *if_exists)?,
                        other => return Err(QuiverError::not_supported(format!("DROP {other}"))),
                    };
                    if !dropped {
                        missing.push(format!("{SCHEMA_NAME}.{name}"));
                    }
                }
                // IF EXISTS: one note names them all, as MySQL's does (also
                // for views: 1051 as MySQL, where MariaDB has 4092).
                if !missing.is_empty() {
                    self.note(1051, format!("Unknown table '{}'", missing.join(",")));
                }
                Ok(StatementResult::Done { affected: 0 })
            }
            Statement::CreateView(CreateView {
                name,
                query,
                or_replace,
                columns,
                ..
            }) => {
                let name = object_name(name)?;
                let mut names: Vec<_> = columns.iter().map(|c| c.name.clone()).collect();
                let plan = self.logical_plan(query)?;
                if names.is_empty() {
                    // The view keeps the names its items have here, taken from
                    // this text (`(1/3)*3`), not from the stored, reprinted query.
                    names = plan
                        .schema()
                        .iter()
                        .map(|f| sqlparser::ast::Ident::with_quote('`', f.name.clone()))
                        .collect();
                } else if plan.schema().len() != names.len() {
                    return Err(QuiverError::new(1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts"));
                }
                let query =
                    quiver_sql::view_query_with_columns(&name, query.as_ref().clone(), &names);
                // Bind once so a broken view is refused when created.
                self.logical_plan(&query)?;
                self.db
                    .create_view(&name, &query.to_string(), *or_replace)?;
                Ok(StatementResult::Done { affected: 0 })
            }
            Statement::ExplainTable { table_name, .. } => self.describe(table_name),
            Statement::Explain {
                analyze, statement, ..
            } => {
                let Statement::Query(q) = statement.as_ref() else {
                    return Err(QuiverError::not_supported(
                        "EXPLAIN of a statement other than SELECT",
                    ));
                };
                // The plan a query runs: narrow decimals where they differ.
                let logical = self.logical_plan(q)?;
                let (mut plan, narrowed) = match create_narrow_plan(&logical, self.config.threads) {
                    Ok(Some(planned)) => planned,
                    _ => (create_physical_plan(&logical, self.config.threads)?, false),
                };
                if *analyze {
                    let start = Instant::now();
                    let ctx = self.context();
                    let attempt = self.attempt_context(&ctx);
                    let batches = match collect(&plan, &attempt) {
                        Err(e) if e.code == NARROW_OVERFLOW && narrowed => {
                            plan = create_physical_plan(&logical, self.config.threads)?;
                            collect(&plan, &ctx)?
                        }
                        other => {
                            ctx.warnings.append(&attempt.warnings);
                            other?
                        }
                    };
                    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
                    let mut lines: Vec<String> = display_plan(&plan, true)
                        .lines()
                        .map(String::from)
                        .collect();
                    lines.push(format!(
                        "Total: {rows} rows in {:.3} ms",
                        start.elapsed().as_secs_f64() * 1e3
                    ));
                    text_result("plan", lines)
                } else {
                    text_result(
                        "plan",
                        display_plan(&plan, false)
                            .lines()
                            .map(String::from)
                            .collect(),
                    )
                }
            }
            Statement::CreateDatabase {
                db_name,
                if_not_exists,
                ..
            } => self.create_database(db_name, *if_not_exists),
            Statement::CreateSchema {
                schema_name: quiver_sql::sqlparser::ast::SchemaName::Simple(db_name),
                if_not_exists,
                ..
            } => self.create_database(db_name, *if_not_exists),
            Statement::AlterSchema(a) => self.alter_database(a),
            Statement::Set(set) => self.set(set),
            Statement::Kill { modifier, id } => {
                use quiver_sql::sqlparser::ast::KillType;
                let connection = !matches!(modifier, Some(KillType::Query));
                crate::process::kill(self.processes.as_deref(), &self.process, *id, connection)?;
                Ok(StatementResult::Done { affected: 0 })
            }
            Statement::Use(u) => self.use_database(u),
            // Every statement commits when it ends, as MySQL's non-transactional
            // tables do (MyISAM): transaction statements succeed and change
            // nothing, and ROLLBACK cannot undo what was stored (MySQL adds
            // warning 1196 there; statements keep no warnings yet).
            Statement::StartTransaction { .. }
            | Statement::Commit { .. }
            | Statement::Rollback { .. } => Ok(StatementResult::Done { affected: 0 }),
            other => Err(QuiverError::not_supported(first_words(&other.to_string()))),
        }
    }

    /// CREATE DATABASE: Quiver's one database exists already (1007; a
    /// note with IF NOT EXISTS); no other can be made.
    fn create_database(&self, name: &ObjectName, if_not_exists: bool) -> Result<StatementResult> {
        let name = object_name(name)?;
        if name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
            return Err(self.access_denied(&name));
        }
        if !name.eq_ignore_ascii_case(SCHEMA_NAME) {
            return Err(QuiverError::not_supported(
                "CREATE DATABASE of a database other than the one Quiver has",
            ));
        }
        let message = format!("Can't create database '{name}'; database exists");
        if !if_not_exists {
            return Err(QuiverError::new(1007, "HY000", message));
        }
        self.note(1007, message);
        Ok(StatementResult::Done { affected: 0 })
    }

    /// `ALTER DATABASE [name] [DEFAULT] CHARACTER SET cs | COLLATE c ...`:
    /// the collation of the tables created after it that name none (kept in
    /// the folder), and this session's `@@collation_database`.
    fn alter_database(
        &self,
        a: &quiver_sql::sqlparser::ast::AlterSchema,
    ) -> Result<StatementResult> {
        use quiver_sql::sqlparser::ast::{AlterSchemaOperation, SqlOption};
        let name = if a.name.0.is_empty() {
            self.current_database()
                .ok_or_else(|| QuiverError::new(1046, "3D000", "No database selected"))?
        } else {
            object_name(&a.name)?
        };
        if name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
            return Err(self.access_denied(&name));
        }
        if !name.eq_ignore_ascii_case(SCHEMA_NAME) {
            return Err(QuiverError::new(
                1049,
                "42000",
                format!("Unknown database '{name}'"),
            ));
        }
        let (mut charset, mut collation) = (None, None);
        for op in &a.operations {
            let AlterSchemaOperation::SetOptionsParens { options } = op else {
                return Err(QuiverError::not_supported(a.to_string()));
            };
            for o in options {
                let SqlOption::KeyValue { key, value } = o else {
                    return Err(QuiverError::not_supported(a.to_string()));
                };
                let value = match value {
                    SqlExpr::Identifier(i) => i.value.clone(),
                    other => other.to_string(),
                };
                if key.value == quiver_sql::DATABASE_CHARSET {
                    charset = Some(column_charset_default(&value)?);
                    continue;
                }
                add_collate(&mut collation, column_collation_by_name(&value)?)?;
            }
        }
        let Some(c) = declared_collation(charset, collation)? else {
            return Err(QuiverError::syntax_msg("ALTER DATABASE names no option"));
        };
        self.db.set_default_collation(c)?;
        self.vars
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .collation_database = c;
        Ok(StatementResult::Done { affected: 1 })
    }

    /// DROP DATABASE: of one that does not exist, 1008 (a note with IF
    /// EXISTS); Quiver's own database cannot be dropped.
    fn drop_database(&self, names: &[ObjectName], if_exists: bool) -> Result<StatementResult> {
        let [name] = names else {
            return Err(QuiverError::syntax_msg("DROP DATABASE names one database"));
        };
        let name = object_name(name)?;
        if name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
            return Err(self.access_denied(&name));
        }
        if name.eq_ignore_ascii_case(SCHEMA_NAME) {
            return Err(QuiverError::not_supported(
                "DROP DATABASE of Quiver's database",
            ));
        }
        let message = format!("Can't drop database '{name}'; database doesn't exist");
        if !if_exists {
            return Err(QuiverError::new(1008, "HY000", message));
        }
        self.note(1008, message);
        Ok(StatementResult::Done { affected: 0 })
    }

    /// MariaDB's 1044 for a change to information_schema.
    fn access_denied(&self, db: &str) -> QuiverError {
        let (user, host) = self
            .user
            .split_once('@')
            .unwrap_or((&self.user, "localhost"));
        QuiverError::new(
            1044,
            "42000",
            format!("Access denied for user '{user}'@'{host}' to database '{db}'"),
        )
    }

    fn create_table(&self, ct: &CreateTable) -> Result<StatementResult> {
        let name = object_name(&ct.name)?;
        if let Some(q) = &ct.query {
            if ct.if_not_exists && self.db.table(&name).is_some() {
                self.note(1050, format!("Table '{name}' already exists"));
                return Ok(StatementResult::Done { affected: 0 });
            }
            let (schema, batches) = self.run_written_query(q)?;
            check_unique_names(&schema)?;
            // A column is NOT NULL (without a default) where its expression
            // cannot be NULL, as MariaDB declares it; the names a client was
            // told of the query's columns are not the table's.
            let schema = Arc::new(Schema::new(
                schema
                    .fields()
                    .iter()
                    .map(|f| {
                        let mut meta = f.metadata().clone();
                        let nullable =
                            f.is_nullable() && meta.remove(COLUMN_NOT_NULL_KEY).is_none();
                        meta.remove(COLUMN_ORIGIN_KEY);
                        meta.remove(COLUMN_NO_DEFAULT_KEY);
                        meta.remove(COLUMN_DISPLAY_LENGTH_KEY);
                        let mut t = f.data_type().clone();
                        // An integer column takes the type MySQL derives for
                        // its expression (`SELECT 1` makes an INT(1) column).
                        let declared = meta.get(COLUMN_TYPE_KEY).and_then(|c| IntType::parse(c));
                        if let Some(i) = declared.filter(|_| t.is_integer()) {
                            t = i.kind.arrow_type(i.unsigned);
                        }
                        // A comparison's result is INT(1) in MariaDB, and so
                        // is its column (a BOOLEAN column is TINYINT(1)).
                        if t == DataType::Boolean {
                            t = DataType::Int32;
                            meta.insert(COLUMN_TYPE_KEY.to_string(), "int(1)".to_string());
                        }
                        Field::new(f.name(), t, nullable).with_metadata(meta)
                    })
                    .collect::<Vec<_>>(),
            ));
            let batches = batches
                .into_iter()
                .map(|b| {
                    let columns = b
                        .columns()
                        .iter()
                        .zip(schema.fields())
                        .map(|(c, f)| match c.data_type() == f.data_type() {
                            true => Ok(c.clone()),
                            false => cast_array(c, f.data_type()),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    Ok(RecordBatch::try_new_with_options(
                        schema.clone(),
                        columns,
                        &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
                    )?)
                })
                .collect::<Result<Vec<_>>>()?;
            let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
            if !self
                .db
                .create_table(&name, schema, batches, ct.if_not_exists)?
            {
                self.note(1050, format!("Table '{name}' already exists"));
                return Ok(StatementResult::Done { affected: 0 });
            }
            return Ok(StatementResult::Done { affected: rows });
        }
        if let Some(CreateTableLikeKind::Plain(like) | CreateTableLikeKind::Parenthesized(like)) =
            &ct.like
        {
            // The source's columns as declared (types, collations, NULL,
            // defaults), without its rows.
            let source = object_name(&like.name)?;
            let schema = self
                .db
                .table(&source)
                .ok_or_else(|| QuiverError::unknown_table(&format!("quiver.{source}")))?
                .schema();
            if !self
                .db
                .create_table(&name, schema, Vec::new(), ct.if_not_exists)?
            {
                self.note(1050, format!("Table '{name}' already exists"));
            }
            return Ok(StatementResult::Done { affected: 0 });
        }
        let table_collation = table_default_collation(ct, self.vars().collation_database)?;
        let mut fields = Vec::with_capacity(ct.columns.len());
        for c in &ct.columns {
            let n = &c.name.value;
            if n.is_empty() || n.ends_with(' ') {
                return Err(QuiverError::new(
                    1166,
                    "42000",
                    format!("Incorrect column name '{n}'"),
                ));
            }
            quiver_sql::check_fsp(&c.data_type, n)?;
            let mut t = sql_type(&c.data_type)?;
            let not_null = c.options.iter().any(|o| {
                matches!(o.option, ColumnOption::NotNull)
                    || matches!(o.option, ColumnOption::PrimaryKey(_))
            });
            let mut meta = std::collections::HashMap::new();
            if let Some(text) = quiver_sql::column_type_text(&c.data_type) {
                meta.insert(COLUMN_TYPE_KEY.to_string(), text);
            }
            if t == DataType::Utf8 {
                let coll = column_collation(c, table_collation)?;
                if coll.charset() == quiver_collation::Charset::Binary {
                    // MariaDB: VARCHAR(5) CHARACTER SET binary is VARBINARY(5).
                    t = DataType::Binary;
                    let text = meta.get(COLUMN_TYPE_KEY).map_or("text", String::as_str);
                    let bytes = quiver_sql::binary_column_type(text);
                    meta.insert(COLUMN_TYPE_KEY.to_string(), bytes);
                } else {
                    meta.insert(COLUMN_COLLATION_KEY.to_string(), coll.name().to_string());
                }
            }
            let mut field = Field::new(&c.name.value, t, !not_null).with_metadata(meta.clone());
            if let Some(def) = c.options.iter().find_map(|o| match &o.option {
                ColumnOption::Default(e) => Some(e),
                _ => None,
            }) {
                // Checked now so that a bad DEFAULT is refused at CREATE time.
                let value = self.constant_value(def)?;
                let mut strict = Misfits::strict();
                let stored = store_cast(&value, &field, 0, "", &mut strict).map_err(|_| {
                    QuiverError::new(
                        1067,
                        "42000",
                        format!("Invalid default value for '{}'", c.name.value),
                    )
                })?;
                meta.insert(
                    COLUMN_DEFAULT_KEY.to_string(),
                    default_text(def, &stored, &field)?,
                );
                field = field.with_metadata(meta);
            }
            fields.push(field);
        }
        let schema = Arc::new(Schema::new(fields));
        check_unique_names(&schema)?;
        if !self
            .db
            .create_table(&name, schema, vec![], ct.if_not_exists)?
        {
            self.note(1050, format!("Table '{name}' already exists"));
        }
        Ok(StatementResult::Done { affected: 0 })
    }

    /// A constant expression's value as a one-row array.
    pub(crate) fn constant_value(&self, e: &SqlExpr) -> Result<ArrayRef> {
        self.constant_value_with(e, false)
    }

    /// `strict`: a value INSERT stores, where division by zero is error 1365.
    fn constant_value_with(&self, e: &SqlExpr, strict: bool) -> Result<ArrayRef> {
        let one = RecordBatch::try_new_with_options(
            Arc::new(Schema::empty()),
            vec![],
            &RecordBatchOptions::new().with_row_count(Some(1)),
        )?;
        let mut bound =
            Binder::with_vars(self.db.as_ref(), self.identity_vars()).bind_constant(e)?;
        if strict {
            bound = quiver_sql::strict_division_expr(bound);
        }
        let e = PhysicalExpr::compile(&bound, &Default::default())?;
        quiver_exec::warnings::collecting_into(&self.statement_warnings(), || {
            e.evaluate_array(&one)
        })
    }

    /// `rows` copies of a column's DEFAULT: NULL when it has none and allows
    /// NULL, else MySQL's strict-mode error 1364.
    fn column_default(&self, f: &Field, rows: usize) -> Result<ArrayRef> {
        let Some(text) = f.metadata().get(COLUMN_DEFAULT_KEY) else {
            if f.is_nullable() {
                return Ok(arrow_array::new_null_array(f.data_type(), rows));
            }
            return Err(QuiverError::new(
                1364,
                "HY000",
                format!("Field '{}' doesn't have a default value", f.name()),
            ));
        };
        let e = quiver_sql::sqlparser::parser::Parser::new(
            &quiver_sql::sqlparser::dialect::MySqlDialect {},
        )
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| QuiverError::internal(format!("stored DEFAULT of '{}': {e}", f.name())))?;
        let one = store_cast(&self.constant_value(&e)?, f, 0, "", &mut Misfits::strict())?;
        let index = arrow_array::UInt32Array::from(vec![0u32; rows]);
        Ok(arrow_select::take::take(one.as_ref(), &index, None)?)
    }

    fn insert(&self, ins: &Insert) -> Result<StatementResult> {
        let TableObject::TableName(name) = &ins.table else {
            return Err(QuiverError::not_supported("INSERT into a table function"));
        };
        let name = object_name(name)?;
        let table = self
            .db
            .table(&name)
            .ok_or_else(|| match self.db.view_sql(&name) {
                // Quiver's views are read-only.
                Some(_) => QuiverError::new(
                    1471,
                    "HY000",
                    format!("The target table {name} of the INSERT is not insertable-into"),
                ),
                None => QuiverError::unknown_table(&format!("quiver.{name}")),
            })?;
        let schema = table.schema();
        let table_prefix = format!(
            "`{}`.`{name}`.",
            self.current_database().unwrap_or_else(|| "quiver".into())
        );
        let source = ins
            .source
            .as_ref()
            .ok_or_else(|| QuiverError::not_supported("INSERT without a source"))?;
        let (strict, strict_division) = self.strictness();
        let mut misfits = Misfits::new(strict);
        // `VALUES ()` (also `() VALUES ()`): rows of defaults, as in MariaDB.
        let value_rows = match source.body.as_ref() {
            SetExpr::Values(v) => v.rows.len(),
            _ => 0,
        };
        let only_defaults = matches!(source.body.as_ref(),
            SetExpr::Values(v) if v.rows.iter().all(|r| r.content.is_empty()));
        // Which table column each source column fills.
        let targets: Vec<usize> = if only_defaults {
            vec![]
        } else if ins.columns.is_empty() {
            (0..schema.fields().len()).collect()
        } else {
            ins.columns
                .iter()
                .map(|c| {
                    let c = c.to_string();
                    schema
                        .fields()
                        .iter()
                        .position(|f| f.name().eq_ignore_ascii_case(&c))
                        .ok_or_else(|| QuiverError::unknown_column(&c, "field list"))
                })
                .collect::<Result<_>>()?
        };
        let columns: Vec<ArrayRef> = match source.body.as_ref() {
            SetExpr::Values(values) => {
                let mut cols: Vec<Vec<ArrayRef>> =
                    vec![Vec::with_capacity(values.rows.len()); targets.len()];
                for (r, row) in values.rows.iter().enumerate() {
                    if row.content.len() != targets.len() {
                        return Err(QuiverError::column_count_mismatch(r + 1));
                    }
                    for (c, e) in row.content.iter().enumerate() {
                        let v = match e {
                            SqlExpr::Identifier(id)
                                if id.quote_style.is_none()
                                    && id.value.eq_ignore_ascii_case("DEFAULT") =>
                            {
                                self.column_default(schema.field(targets[c]), 1)?
                            }
                            _ => self.constant_value_with(e, strict_division)?,
                        };
                        cols[c].push(v);
                    }
                }
                cols.into_iter()
                    .enumerate()
                    .map(|(c, parts)| {
                        let f = schema.field(targets[c]);
                        misfits.at_column(targets[c]);
                        let t = f.data_type();
                        // Each row is stored on its own so that errors name its row
                        // and a NULL row does not clash with typed rows in the concat.
                        let parts = parts
                            .iter()
                            .enumerate()
                            .map(|(r, p)| {
                                store_cast(
                                    &cast_array(p, &common_input_type(p.data_type(), t))?,
                                    f,
                                    r,
                                    &table_prefix,
                                    &mut misfits,
                                )
                            })
                            .collect::<Result<Vec<_>>>()?;
                        let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
                        if refs.is_empty() {
                            Ok(arrow_array::new_empty_array(t))
                        } else {
                            Ok(arrow_select::concat::concat(&refs)?)
                        }
                    })
                    .collect::<Result<_>>()?
            }
            _ => {
                let (s, batches) = self.run_written_query(source)?;
                if s.fields().len() != targets.len() {
                    return Err(QuiverError::column_count_mismatch(1));
                }
                let b = arrow_select::concat::concat_batches(&s, &batches)?;
                b.columns()
                    .iter()
                    .zip(s.fields())
                    .zip(&targets)
                    .map(|((c, from), &to)| text_as_bytes(c, from, schema.field(to)))
                    .collect()
            }
        };
        let rows = columns.first().map_or(value_rows, |c| c.len());
        let mut full: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
        for (i, f) in schema.fields().iter().enumerate() {
            let a = match targets.iter().position(|t| *t == i) {
                Some(src) => {
                    misfits.at_column(i);
                    store_cast(&columns[src], f, 0, &table_prefix, &mut misfits)?
                }
                None => self.column_default(f, rows)?,
            };
            if !f.is_nullable() && a.null_count() > 0 {
                return Err(QuiverError::new(
                    1048,
                    "23000",
                    format!("Column '{}' cannot be null", f.name()),
                ));
            }
            full.push(a);
        }
        misfits.raise(&self.statement_warnings());
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            full,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        let mut all: Vec<RecordBatch> = table.data()?.as_ref().clone();
        all.push(batch);
        table.replace(all)?;
        Ok(StatementResult::Done {
            affected: rows as u64,
        })
    }
}

/// The type a literal is read as before it is stored (strings stay strings so
/// that dates and numbers are parsed by the store cast).
fn common_input_type(from: &DataType, _to: &DataType) -> DataType {
    match from {
        DataType::Null => DataType::Null,
        DataType::Utf8 => DataType::Utf8,
        DataType::UInt64 => DataType::UInt64,
        t if t.is_integer() => DataType::Int64,
        DataType::Boolean => DataType::Int64,
        other => other.clone(),
    }
}

/// Whether a query from `source` may name what [`rewrite_query`] replaces:
/// an information_schema table or a session function. Without the text,
/// assume it does.
fn needs_rewrite(source: Option<&SqlSource>, database: Option<&str>) -> bool {
    match source {
        _ if database.is_some_and(|d| d.eq_ignore_ascii_case("information_schema")) => true,
        Some(src) => src.mentions("information_schema"),
        None => true,
    }
}

/// How a column's DEFAULT is kept: a constant as the value the column
/// stores, written as MariaDB's `information_schema.COLUMNS.COLUMN_DEFAULT`
/// shows it (`DEFAULT 1` of a DECIMAL(5,2) is `1.00`, of a DATE
/// `'2020-1-2'` is `'2020-01-02'`, strings quoted); anything else (a
/// function such as CURRENT_TIMESTAMP, evaluated at each INSERT, or a
/// binary column's bytes) as written.
fn default_text(def: &SqlExpr, stored: &ArrayRef, field: &Field) -> Result<String> {
    use quiver_sql::sqlparser::ast::UnaryOperator;
    let constant = match def {
        SqlExpr::Value(_) => true,
        SqlExpr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        } => matches!(expr.as_ref(), SqlExpr::Value(_)),
        _ => false,
    };
    if !constant || field.data_type() == &DataType::Binary {
        return Ok(def.to_string());
    }
    let schema = Arc::new(Schema::new(vec![field.clone().with_nullable(true)]));
    let batch = RecordBatch::try_new(schema, vec![stored.clone()])?;
    let text = crate::format::rows_as_text(&[batch])?
        .into_iter()
        .next()
        .and_then(|row| row.into_iter().next())
        .flatten();
    Ok(match text {
        None => "NULL".to_string(),
        Some(t) if is_numeric(field.data_type()) => t,
        Some(t) => format!("'{}'", t.replace('\\', "\\\\").replace('\'', "''")),
    })
}

/// `DEFAULT CHARSET=... COLLATE=...` of CREATE TABLE; the database's
/// default (`collation_database`, utf8mb4_bin unless set) without them.
fn table_default_collation(ct: &CreateTable, database: Collation) -> Result<Collation> {
    use quiver_sql::sqlparser::ast::{CreateTableOptions, SqlOption};
    let options = match &ct.table_options {
        CreateTableOptions::Plain(o)
        | CreateTableOptions::With(o)
        | CreateTableOptions::Options(o) => o.as_slice(),
        _ => &[],
    };
    let mut charset = None;
    let mut collation = None;
    for o in options {
        if let SqlOption::KeyValue { key, value } = o {
            let k = key.value.to_uppercase();
            let v = value.to_string();
            if k.contains("COLLATE") {
                add_collate(&mut collation, column_collation_by_name(&v)?)?;
            } else if k.contains("CHARSET") || k.contains("CHARACTER") {
                charset = Some(column_charset_default(&v)?);
            }
        }
    }
    Ok(declared_collation(charset, collation)?.unwrap_or(database))
}

/// A string column's collation: its COLLATE, else its CHARACTER SET's
/// default, else the table's.
fn column_collation(c: &ColumnDef, table: Collation) -> Result<Collation> {
    let mut charset = None;
    let mut collation = None;
    for o in &c.options {
        match &o.option {
            ColumnOption::Collation(n) => {
                add_collate(&mut collation, column_collation_by_name(&n.to_string())?)?
            }
            ColumnOption::CharacterSet(n) => {
                charset = Some(column_charset_default(&n.to_string())?)
            }
            _ => {}
        }
    }
    Ok(declared_collation(charset, collation)?.unwrap_or(table))
}

/// One more `COLLATE c` of a declaration: a different one than before is
/// MySQL's 1302.
fn add_collate(slot: &mut Option<Collation>, c: Collation) -> Result<()> {
    match *slot {
        Some(prev) if prev != c => Err(QuiverError::new(
            1302,
            "HY000",
            format!("Conflicting declarations: 'COLLATE {prev}' and 'COLLATE {c}'"),
        )),
        _ => {
            *slot = Some(c);
            Ok(())
        }
    }
}

/// The collation a declaration's `CHARACTER SET cs` (as its default
/// collation) and `COLLATE c` name: c, which must be of cs (1253).
fn declared_collation(
    charset: Option<Collation>,
    collation: Option<Collation>,
) -> Result<Option<Collation>> {
    if let (Some(cs), Some(co)) = (charset, collation) {
        if cs.charset() != co.charset() {
            return Err(QuiverError::new(
                1253,
                "42000",
                format!(
                    "COLLATION '{co}' is not valid for CHARACTER SET '{}'",
                    cs.charset().name()
                ),
            ));
        }
    }
    Ok(collation.or(charset))
}

fn check_unique_names(schema: &SchemaRef) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for f in schema.fields() {
        if !seen.insert(f.name().to_lowercase()) {
            return Err(QuiverError::duplicate_column(f.name()));
        }
    }
    Ok(())
}

fn first_words(s: &str) -> String {
    s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}
