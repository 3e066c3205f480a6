//! Running statements: queries go through binder, optimizer, physical planner
//! and executor; DDL and DML change the catalog.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_exec::context::{Deadline, TimeLimit};
use quiver_exec::ExecContext;
use quiver_sql::sqlparser::ast::{ObjectName, ObjectNamePart, ObjectType, Statement};
use quiver_sql::{parse_sql, SessionVars, SqlSource};

use crate::catalog::Database;
// Where clients have read them from.
pub use crate::catalog::{INFORMATION_SCHEMA, SCHEMA_NAME};
use crate::plan_cache::PlanCache;
use crate::process::{Process, ProcessList};
use crate::query::Purpose;

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

pub use quiver_exec::context::default_memory_limit;

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

pub struct Session {
    pub(crate) db: Arc<Database>,
    pub(crate) config: EngineConfig,
    /// `SET NAMES`, `SET collation_connection = ...` and the like.
    pub(crate) vars: std::sync::Mutex<SessionVars>,
    /// The schema chosen by `USE` (None until then, as in MySQL).
    pub(crate) current_database: std::sync::Mutex<Option<String>>,
    /// Set when the database chosen by `USE` was dropped: unqualified names
    /// are then MySQL's 1046. Before any USE they are the default
    /// database's ([`SCHEMA_NAME`]), as a folder with one database was.
    pub(crate) no_database: std::sync::atomic::AtomicBool,
    /// The statements of SQL `PREPARE`, by lowercase name.
    pub(crate) sql_prepared:
        std::sync::Mutex<std::collections::HashMap<String, crate::prepared_sql::SqlPrepared>>,
    /// `USER()`: `user@host` (a server sets the client's).
    pub(crate) user: String,
    /// `CURRENT_USER()`: the account, `user@%` for a server's client (an
    /// account matches from any host).
    pub(crate) account: String,
    /// `CONNECTION_ID()`.
    pub(crate) connection_id: u64,
    /// This connection in SHOW PROCESSLIST; its running command's cancel
    /// flag stops the queries it runs (KILL QUERY).
    pub(crate) process: Arc<Process>,
    /// A server's connections (None for a session of its own).
    pub(crate) processes: Option<Arc<ProcessList>>,
    /// Plans of the queries run, by their text, for when they come again.
    pub(crate) plan_cache: PlanCache,
    /// What SHOW WARNINGS shows (see [`crate::diagnostics`]).
    pub(crate) diagnostics: std::sync::Mutex<crate::diagnostics::Diagnostics>,
    /// When the running statement started: its time limits count from here.
    pub(crate) statement_started: std::sync::Mutex<Instant>,
    /// The first AUTO_INCREMENT value the running statement generated (0:
    /// none): the OK packet's last insert id.
    pub(crate) insert_id: std::sync::atomic::AtomicU64,
    /// Inside a transaction (`@@in_transaction`; see `transaction.rs`).
    pub(crate) in_transaction: std::sync::atomic::AtomicBool,
    /// The open transaction, with the copies of the tables it wrote.
    pub(crate) transaction: std::sync::Mutex<Option<crate::transaction::Transaction>>,
    /// Whether the transaction holds copies: a statement outside one asks
    /// nothing more.
    pub(crate) has_copies: std::sync::atomic::AtomicBool,
}

/// Whether MariaDB counts `stmt` as using tables, which resets the list of
/// SHOW WARNINGS before it runs. A query (and a SET reading one) is known
/// when bound ([`crate::diagnostics::reads_tables`]).
fn uses_tables(stmt: &Statement) -> bool {
    match stmt {
        Statement::CreateTable(_)
        | Statement::Insert(_)
        | Statement::Update(_)
        | Statement::Delete(_)
        | Statement::Truncate(_)
        | Statement::AlterTable(_)
        | Statement::RenameTable(_)
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

pub(crate) fn object_name(name: &ObjectName) -> Result<String> {
    match name.0.last() {
        Some(ObjectNamePart::Identifier(i)) => Ok(i.value.clone()),
        _ => Err(QuiverError::syntax_msg(format!(
            "unsupported object name {name}"
        ))),
    }
}

pub(crate) fn text_result(column: &str, lines: Vec<String>) -> Result<StatementResult> {
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
        let mut vars = SessionVars {
            collation_database: db.default_collation(),
            ..SessionVars::default()
        };
        let mut system = (*vars.system).clone();
        system.insert("in_transaction".into(), ScalarValue::Int64(0));
        vars.system = Arc::new(system);
        Session {
            db,
            config,
            vars: std::sync::Mutex::new(vars),
            current_database: Default::default(),
            no_database: Default::default(),
            sql_prepared: Default::default(),
            user: "root@localhost".to_string(),
            account: "root@localhost".to_string(),
            connection_id: 0,
            process: Arc::new(Process::new(0, "root", "localhost")),
            processes: None,
            plan_cache: PlanCache::default(),
            diagnostics: Default::default(),
            statement_started: std::sync::Mutex::new(Instant::now()),
            insert_id: Default::default(),
            in_transaction: Default::default(),
            transaction: Default::default(),
            has_copies: Default::default(),
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
        let mut s = Session::new(db, config);
        s.user = format!("{user}@{host}");
        s.account = format!("{user}@%");
        s.connection_id = connection_id;
        s.process = Arc::new(Process::new(connection_id, user, host));
        s
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
        self.run_recorded(stmt, Some(source))
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
        self.with_current_database(|db| db.map(str::to_string))
    }

    /// `f` of the schema chosen by `USE`, read in place.
    pub(crate) fn with_current_database<R>(&self, f: impl FnOnce(Option<&str>) -> R) -> R {
        f(self
            .current_database
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_deref())
    }

    /// A query's execution context, stopped by what stops the running
    /// command and by the statement's time limit.
    pub(crate) fn context(&self) -> Arc<ExecContext> {
        Arc::new(
            ExecContext::new(self.config.threads, self.config.memory_limit)
                .within(self.db.memory())
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

    /// Runs one statement whose text is not known: a result column without
    /// an alias is named by its expression as printed again.
    pub fn execute_statement(&self, stmt: &Statement) -> Result<StatementResult> {
        self.run_recorded(stmt, None)
    }

    /// Runs `stmt` (parsed from `source`, when known), keeping its notes,
    /// warnings and error for SHOW WARNINGS (see [`crate::diagnostics`]).
    fn run_recorded(
        &self,
        stmt: &Statement,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<StatementResult> {
        if let Some(show) = self.diagnostic_statement(stmt, source) {
            self.begin_diagnostic_statement();
            return self.show_diagnostics(show);
        }
        match stmt {
            Statement::Query(_) | Statement::Set(_) => self.begin_statement(uses_tables(stmt)),
            _ => self.begin_settled_statement(uses_tables(stmt)),
        }
        self.insert_id
            .store(0, std::sync::atomic::Ordering::Relaxed);
        let result = self.run_statement(stmt, source);
        if let Err(e) = &result {
            self.statement_failed(e);
        }
        if result.is_ok() && matches!(stmt, Statement::Query(_) | Statement::Set(_)) {
            self.read_tables_in_transaction(self.statement_used_tables());
        }
        result
    }

    /// Whether `@@autocommit` is on (MariaDB's default).
    pub(crate) fn autocommit(&self) -> bool {
        !matches!(
            self.with_vars(|v| v.system.get("autocommit").cloned()),
            Some(ScalarValue::Int64(0) | ScalarValue::Boolean(false))
        )
    }

    pub(crate) fn run_statement(
        &self,
        stmt: &Statement,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<StatementResult> {
        // DDL and the like commit the open transaction first, as in MariaDB.
        if Session::commits_implicitly(stmt) {
            self.commit_open()?;
        }
        // A statement that writes holds the folder's write lock from before
        // it binds until its data is stored; any other sees what the last
        // write, of any process, left.
        let _writing = match stmt {
            Statement::CreateTable(_)
            | Statement::Insert(_)
            | Statement::Update(_)
            | Statement::Delete(_)
            | Statement::Truncate(_)
            | Statement::Drop { .. }
            | Statement::AlterTable(_)
            | Statement::RenameTable(_)
            | Statement::CreateView(_) => Some(self.db.write_lock()?),
            _ => {
                self.db.sync_with_disk()?;
                None
            }
        };
        if let Some(r) = self.show(stmt, source)? {
            return Ok(r);
        }
        match stmt {
            Statement::Query(q) => {
                let (schema, batches) = self
                    .prepare(q, source, Purpose::Result { keep: false })?
                    .collect()?;
                Ok(StatementResult::Rows { schema, batches })
            }
            Statement::CreateTable(ct) => self.create_table(ct, source),
            Statement::Insert(ins) => self.insert(ins, source),
            Statement::Update(upd) => self.update(upd),
            Statement::Delete(del) => self.delete(del),
            Statement::Truncate(t) => self.truncate(t),
            Statement::Drop {
                object_type,
                if_exists,
                names,
                ..
            } => self.drop(object_type, names, *if_exists),
            Statement::CreateView(view) => self.create_view(view, source),
            Statement::ExplainTable { table_name, .. } => self.describe(table_name),
            Statement::Explain {
                analyze, statement, ..
            } => self.explain(statement, *analyze, source),
            Statement::CreateDatabase {
                db_name,
                if_not_exists,
                default_charset,
                default_collation,
                ..
            } => self.create_database(
                db_name,
                *if_not_exists,
                default_charset.as_deref(),
                default_collation.as_deref(),
            ),
            Statement::CreateSchema {
                schema_name: quiver_sql::sqlparser::ast::SchemaName::Simple(db_name),
                if_not_exists,
                ..
            } => self.create_database(db_name, *if_not_exists, None, None),
            Statement::AlterSchema(a) => self.alter_database(a),
            Statement::Set(set) => {
                let was_on = self.autocommit();
                let r = self.set(set, source)?;
                // autocommit turned on commits the open transaction.
                if !was_on && self.autocommit() {
                    self.commit_open()?;
                }
                Ok(r)
            }
            Statement::Kill { modifier, id } => {
                use quiver_sql::sqlparser::ast::KillType;
                let connection = !matches!(modifier, Some(KillType::Query));
                crate::process::kill(self.processes.as_deref(), &self.process, *id, connection)?;
                Ok(StatementResult::Done { affected: 0 })
            }
            Statement::Use(u) => self.use_database(u),
            Statement::Prepare {
                name,
                data_types,
                statement,
            } if data_types.is_empty() => self.prepare_sql(name, statement),
            Statement::Execute {
                name: Some(name),
                parameters,
                immediate: false,
                into,
                using,
                output: false,
                default: false,
                ..
            } if parameters.is_empty() && into.is_empty() => {
                self.execute_prepared(&object_name(name)?, using)
            }
            Statement::Deallocate {
                name,
                prepare: true,
            } => self.deallocate_prepared(&name.value),
            Statement::AlterTable(a) => self.alter_table(a),
            Statement::RenameTable(r) => self.rename_tables(r),
            Statement::StartTransaction { .. }
            | Statement::Commit { .. }
            | Statement::Rollback { .. }
            | Statement::Savepoint { .. }
            | Statement::ReleaseSavepoint { .. } => self.transaction_statement(stmt),
            other => Err(QuiverError::not_supported(first_words(&other.to_string()))),
        }
    }
}

pub(crate) fn first_words(s: &str) -> String {
    s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}
