//! The session's diagnostics area, as MariaDB keeps it: the notes, warnings
//! and error of the last statement that raised any or read a table, which
//! SHOW WARNINGS / SHOW ERRORS / `@@warning_count` read.
//!
//! A statement starts with a fresh sink ([`Warnings`]) that its execution
//! context shares. What SHOW WARNINGS shows is that sink once the statement
//! raised something or read a table; until then (SET, USE, `SELECT 1`,
//! `SELECT @@warning_count`) the list of the statements before stays, and the
//! diagnostic statements themselves (SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*)
//! ...) keep it as it is.

use std::sync::Arc;

use quiver_common::{QuiverError, ScalarValue};
use quiver_exec::warnings::{Condition, Conditions, Level, Warnings, MAX_ERROR_COUNT};
use quiver_plan::LogicalPlan;
use quiver_sql::sqlparser::ast::{Query, SetExpr, TableFactor};

use crate::Session;

#[derive(Debug)]
pub(crate) struct Diagnostics {
    /// What the statements before left to show.
    kept: Conditions,
    /// The statement running, or the last one run.
    current: Arc<Warnings>,
    /// It read a table: its conditions replace `kept` even if there are none.
    clears: bool,
    /// It is SHOW WARNINGS or the like, which raises nothing (its OK packet
    /// counts no warnings) and leaves the list alone.
    diagnostic: bool,
    /// Whether it uses tables was known when it began (SHOW, DDL): the
    /// queries it runs inside (SHOW PROCESSLIST's rows) do not change that.
    settled: bool,
}

impl Default for Diagnostics {
    fn default() -> Self {
        Diagnostics {
            kept: Conditions::new(MAX_ERROR_COUNT),
            current: Arc::new(Warnings::new(MAX_ERROR_COUNT)),
            clears: false,
            diagnostic: false,
            settled: false,
        }
    }
}

impl Diagnostics {
    fn view(&self) -> Conditions {
        let current = self.current.snapshot();
        if self.clears || current.total() > 0 {
            current
        } else {
            self.kept.clone()
        }
    }
}

/// Whether a logical plan reads a table (MariaDB resets the list for a
/// statement that uses tables).
pub(crate) fn reads_tables(plan: &LogicalPlan) -> bool {
    matches!(plan, LogicalPlan::Scan { .. }) || plan.children().into_iter().any(reads_tables)
}

/// Whether a query names a table in a FROM clause of its own or of a UNION
/// operand (a derived table or a CTE counts, DUAL does not), which MariaDB
/// counts as using tables though the plan may read none.
pub(crate) fn names_tables(q: &Query) -> bool {
    fn body(e: &SetExpr) -> bool {
        match e {
            SetExpr::Select(s) => s.from.iter().any(|t| {
                !t.joins.is_empty()
                    || !matches!(&t.relation, TableFactor::Table { name, .. }
                        if name.to_string().eq_ignore_ascii_case("dual"))
            }),
            SetExpr::Query(q) => names_tables(q),
            SetExpr::SetOperation { left, right, .. } => body(left) || body(right),
            _ => false,
        }
    }
    body(&q.body)
}

impl Session {
    fn diagnostics(&self) -> std::sync::MutexGuard<'_, Diagnostics> {
        self.diagnostics.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `@@max_error_count`: how many conditions are kept (all are counted).
    fn max_error_count(&self) -> usize {
        match self.with_vars(|v| v.system.get("max_error_count").cloned()) {
            Some(ScalarValue::Int64(n)) => usize::try_from(n).unwrap_or(0),
            Some(ScalarValue::UInt64(n)) => usize::try_from(n).unwrap_or(usize::MAX),
            _ => MAX_ERROR_COUNT,
        }
    }

    /// A statement starts; `clears`: it uses tables (as far as known before
    /// it runs: a query, or a SET reading one, tells when it is bound).
    pub(crate) fn begin_statement(&self, clears: bool) {
        self.begin(clears, false);
    }

    /// A statement starts whose use of tables `clears` says all of.
    pub(crate) fn begin_settled_statement(&self, clears: bool) {
        self.begin(clears, true);
    }

    fn begin(&self, clears: bool, settled: bool) {
        // A statement starts: its time limits count from now too.
        *self
            .statement_started
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = std::time::Instant::now();
        let limit = self.max_error_count();
        let mut d = self.diagnostics();
        d.kept = d.view();
        d.current = Arc::new(Warnings::new(limit));
        d.clears = clears;
        d.diagnostic = false;
        d.settled = settled;
    }

    /// SHOW WARNINGS and the like start: the list stays as it is.
    pub(crate) fn begin_diagnostic_statement(&self) {
        self.diagnostics().diagnostic = true;
    }

    /// The running statement read a table (found binding its query).
    pub(crate) fn statement_reads_tables(&self) {
        let mut d = self.diagnostics();
        if !d.diagnostic && !d.settled {
            d.clears = true;
        }
    }

    /// Whether the running statement read a table (as binding found).
    pub(crate) fn statement_used_tables(&self) -> bool {
        self.diagnostics().clears
    }

    /// The sink of the running statement, for its execution context.
    pub(crate) fn statement_warnings(&self) -> Arc<Warnings> {
        self.diagnostics().current.clone()
    }

    /// The running statement failed with `e`: it ends its list.
    pub(crate) fn statement_failed(&self, e: &QuiverError) {
        let d = self.diagnostics();
        if !d.diagnostic {
            d.current
                .push(Condition::new(Level::Error, e.code, e.message.clone()));
        }
    }

    /// A statement that failed outside the engine (a syntax error, an
    /// account statement of a server): the list is its error.
    pub fn record_error(&self, e: &QuiverError) {
        self.begin_statement(true);
        self.statement_failed(e);
    }

    /// The last statement failed after the engine was done with it (its
    /// rows could not be sent): the error joins its list.
    pub fn add_error(&self, e: &QuiverError) {
        self.statement_failed(e);
    }

    /// A note of the running statement (`DROP TABLE IF EXISTS` of a missing
    /// one); none when `sql_notes` is off, as in MySQL.
    pub(crate) fn note(&self, code: u16, message: impl Into<String>) {
        let off = self.with_vars(|v| {
            matches!(
                v.system.get("sql_notes"),
                Some(ScalarValue::Int64(0)) | Some(ScalarValue::UInt64(0))
            )
        });
        if !off {
            self.statement_warnings()
                .push(Condition::new(Level::Note, code, message));
        }
    }

    /// What SHOW WARNINGS shows now (and `@@warning_count` counts).
    pub fn warnings(&self) -> Conditions {
        self.diagnostics().view()
    }

    /// The conditions the last statement raised, for its OK or EOF packet
    /// (0 after SHOW WARNINGS, which raises none).
    pub fn statement_warning_count(&self) -> u64 {
        let d = self.diagnostics();
        if d.diagnostic {
            0
        } else {
            d.current.total()
        }
    }
}
