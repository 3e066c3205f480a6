//! The session variables: reading them, and SET (`NAMES`, `CHARACTER
//! SET`, system and user variables). Which system variables exist and what
//! values they take is `variables.rs`.

use std::sync::Arc;

use quiver_collation::Collation;
use quiver_common::types::COLUMN_COLLATION_KEY;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_sql::sqlparser::ast::{Expr as SqlExpr, ObjectName, ObjectNamePart, SetExpr, Statement};
use quiver_sql::{charset_default, collation_by_name, parse_sql, SessionVars, SqlSource};

use crate::query::Purpose;
use crate::{Session, StatementResult};

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

impl Session {
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
    pub(crate) fn identity_vars(&self) -> SessionVars {
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
    pub(crate) fn binding_vars(&self, source: Option<&SqlSource>) -> SessionVars {
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
    pub(crate) fn set(
        &self,
        set: &quiver_sql::sqlparser::ast::Set,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<StatementResult> {
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
                SetValue::User(self.user_value(value, source)?)
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
    fn user_value(
        &self,
        e: &SqlExpr,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<quiver_sql::UserVariable> {
        let mut stmts = parse_sql("SELECT NULL")?;
        let Some(Statement::Query(mut q)) = stmts.pop() else {
            return Err(QuiverError::internal("SELECT did not parse as a query"));
        };
        if let SetExpr::Select(sel) = q.body.as_mut() {
            sel.projection = vec![quiver_sql::sqlparser::ast::SelectItem::UnnamedExpr(
                e.clone(),
            )];
        }
        let (schema, batches) = self.prepare(&q, source, Purpose::Plan)?.collect()?;
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

    /// What the session's sql_mode makes of values a statement writes that
    /// do not fit: (strict mode: strings too long or of bad characters are
    /// errors, division by zero too when ERROR_FOR_DIVISION_BY_ZERO is on).
    pub(crate) fn strictness(&self) -> (bool, bool) {
        let mode = match self.with_vars(|v| v.system.get("sql_mode").cloned()) {
            Some(ScalarValue::Utf8(m)) => m,
            // Not set: MariaDB's default, which is strict.
            _ => return (true, true),
        };
        let has = |name: &str| mode.split(',').any(|m| m == name);
        let strict = has("STRICT_TRANS_TABLES") || has("STRICT_ALL_TABLES");
        (strict, strict && has("ERROR_FOR_DIVISION_BY_ZERO"))
    }

    /// Whether `@@sql_mode` names `mode` (MariaDB's default names none of
    /// the modes this is asked about).
    pub(crate) fn sql_mode_has(&self, mode: &str) -> bool {
        match self.with_vars(|v| v.system.get("sql_mode").cloned()) {
            Some(ScalarValue::Utf8(m)) => m.split(',').any(|m| m.eq_ignore_ascii_case(mode)),
            _ => false,
        }
    }

    /// An INSERT generated AUTO_INCREMENT values from `id` on:
    /// LAST_INSERT_ID() and the statement's OK packet say it.
    pub(crate) fn set_last_insert_id(&self, id: u64) {
        self.insert_id
            .store(id, std::sync::atomic::Ordering::Relaxed);
        let mut vars = self.vars.lock().unwrap_or_else(|p| p.into_inner());
        let mut system = (*vars.system).clone();
        system.insert("last_insert_id".into(), ScalarValue::UInt64(id));
        vars.system = Arc::new(system);
    }

    /// The first AUTO_INCREMENT value the last statement generated (0:
    /// none), as the protocol's OK packet carries it.
    pub fn statement_insert_id(&self) -> u64 {
        self.insert_id.load(std::sync::atomic::Ordering::Relaxed)
    }
}
