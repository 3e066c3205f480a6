//! SHOW statements that clients and tools send: DATABASES, TABLES, COLUMNS,
//! VARIABLES, COLLATION, CHARACTER SET, WARNINGS. Each builds its rows as a
//! table in memory; a `LIKE` or `WHERE` filter then runs as a query over it,
//! so it means what it means in any SELECT.

use std::sync::Arc;

use quiver_collation::Collation;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_exec::warnings::{Condition, Level};
use quiver_sql::sqlparser::ast::{ObjectName, ShowStatementFilter, Statement};
use quiver_sql::SqlSource;

use crate::catalog::{INFORMATION_SCHEMA, SCHEMA_NAME};
use crate::information_schema::{
    column_facts, info_table, processlist, table_status, Column, MemTable,
};
use crate::query::Purpose;
use crate::{Session, StatementResult};

/// The variables SHOW VARIABLES lists; each value comes from `@@name`.
const VARIABLES: &[&str] = &[
    "auto_increment_increment",
    "auto_increment_offset",
    "autocommit",
    "big_tables",
    "character_set_client",
    "character_set_connection",
    "character_set_database",
    "character_set_results",
    "character_set_server",
    "character_set_system",
    "collation_connection",
    "collation_database",
    "collation_server",
    "connect_timeout",
    "default_storage_engine",
    "div_precision_increment",
    "foreign_key_checks",
    "group_concat_max_len",
    "have_ssl",
    "init_connect",
    "interactive_timeout",
    "license",
    "lower_case_table_names",
    "max_allowed_packet",
    "max_connections",
    "max_execution_time",
    "max_recursive_iterations",
    "max_statement_time",
    "net_buffer_length",
    "net_read_timeout",
    "net_write_timeout",
    "performance_schema",
    "protocol_version",
    "query_cache_size",
    "query_cache_type",
    "session_track_schema",
    "session_track_state_change",
    "session_track_system_variables",
    "session_track_transaction_info",
    "sql_auto_is_null",
    "sql_big_selects",
    "sql_mode",
    "sql_notes",
    "sql_quote_show_create",
    "sql_safe_updates",
    "sql_select_limit",
    "sql_warnings",
    "system_time_zone",
    "time_zone",
    "transaction_isolation",
    "transaction_read_only",
    "tx_isolation",
    "tx_read_only",
    "unique_checks",
    "version",
    "version_comment",
    "version_compile_machine",
    "version_compile_os",
    "wait_timeout",
];

/// Variables SHOW VARIABLES prints as ON / OFF.
const BOOLEAN_VARIABLES: &[&str] = &[
    "autocommit",
    "big_tables",
    "foreign_key_checks",
    "performance_schema",
    "session_track_schema",
    "session_track_state_change",
    "sql_auto_is_null",
    "sql_big_selects",
    "sql_notes",
    "sql_quote_show_create",
    "sql_safe_updates",
    "sql_warnings",
    "transaction_read_only",
    "tx_read_only",
    "unique_checks",
];

pub(crate) const SHOW_TABLE: &str = "show";

fn texts<I: IntoIterator<Item = S>, S: Into<String>>(v: I) -> Column {
    Column::Text(v.into_iter().map(|s| Some(s.into())).collect())
}

/// A kept DEFAULT as SHOW COLUMNS prints it: a quoted literal's value
/// (`'it''s'` is `it's`), anything else as it is.
fn unquoted(text: &str) -> String {
    match text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Some(inner) => {
            let mut out = String::with_capacity(inner.len());
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => out.extend(chars.next()),
                    '\'' => {
                        out.push('\'');
                        chars.next(); // the quote doubled
                    }
                    c => out.push(c),
                }
            }
            out
        }
        None => text.to_string(),
    }
}

fn last_name(n: &ObjectName) -> String {
    n.0.last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.clone())
        .unwrap_or_default()
}

impl Session {
    /// A SHOW statement's result; None when `stmt` is not one handled here.
    pub(crate) fn show(
        &self,
        stmt: &Statement,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<Option<StatementResult>> {
        let (table, filter) = match stmt {
            Statement::ShowCreate {
                obj_type: quiver_sql::sqlparser::ast::ShowCreateObject::Table,
                obj_name,
            } => (self.show_create_table(obj_name)?, None),
            Statement::ShowDatabases { show_options, .. }
            | Statement::ShowSchemas { show_options, .. } => (
                MemTable::new(
                    SHOW_TABLE,
                    vec![(
                        "Database",
                        texts(
                            std::iter::once(INFORMATION_SCHEMA.to_string())
                                .chain(self.database().schema_names()),
                        ),
                    )],
                )?,
                filter_of(show_options),
            ),
            Statement::ShowTables {
                full, show_options, ..
            } => {
                if let Some(db) = show_options
                    .show_in
                    .as_ref()
                    .and_then(|i| i.parent_name.as_ref())
                {
                    self.check_schema(&last_name(db))?;
                }
                // FROM db, else the current database.
                let in_info = match show_options
                    .show_in
                    .as_ref()
                    .and_then(|i| i.parent_name.as_ref())
                {
                    Some(n) => last_name(n).eq_ignore_ascii_case(INFORMATION_SCHEMA),
                    None => self
                        .current_database()
                        .is_some_and(|d| d.eq_ignore_ascii_case(INFORMATION_SCHEMA)),
                };
                let schema = if in_info {
                    INFORMATION_SCHEMA.to_string()
                } else {
                    let named = show_options
                        .show_in
                        .as_ref()
                        .and_then(|i| i.parent_name.as_ref())
                        .map(last_name);
                    let d = self.schema_for(named.as_deref())?;
                    self.database().schema_name(&d).unwrap_or(d)
                };
                let (names, kinds): (Vec<String>, Vec<&str>) = if in_info {
                    [
                        "CHARACTER_SETS",
                        "COLLATIONS",
                        "COLUMNS",
                        "PROCESSLIST",
                        "SCHEMATA",
                        "TABLES",
                    ]
                    .iter()
                    .map(|n| (n.to_string(), "SYSTEM VIEW"))
                    .unzip()
                } else {
                    let db = self.database();
                    db.table_names_in(&schema)
                        .into_iter()
                        .map(|n| {
                            let kind = if db.table_in(&schema, &n).is_some()
                                || db.damaged_in(&schema, &n).is_some()
                            {
                                "BASE TABLE"
                            } else {
                                "VIEW"
                            };
                            (n, kind)
                        })
                        .unzip()
                };
                let first = format!("Tables_in_{schema}");
                let mut cols = vec![(first.as_str(), texts(names))];
                if *full {
                    cols.push(("Table_type", texts(kinds)));
                }
                (MemTable::new(SHOW_TABLE, cols)?, filter_of(show_options))
            }
            Statement::ShowColumns {
                full, show_options, ..
            } => {
                let name = show_options
                    .show_in
                    .as_ref()
                    .and_then(|i| i.parent_name.as_ref())
                    .ok_or_else(|| QuiverError::syntax_msg("SHOW COLUMNS needs FROM table"))?;
                let parts: Vec<String> = name
                    .0
                    .iter()
                    .filter_map(|p| p.as_ident().map(|i| i.value.clone()))
                    .collect();
                // `FROM db.t` (sqlparser makes `FROM t FROM db` one name too).
                let from_db = (parts.len() == 2).then(|| parts[0].clone());
                if let Some(d) = &from_db {
                    self.check_schema(d)?;
                }
                (
                    self.show_columns(from_db.as_deref(), &last_name(name), *full)?,
                    filter_of(show_options),
                )
            }
            Statement::ShowVariables { filter, global, .. } => {
                let mut values = Vec::with_capacity(VARIABLES.len());
                // GLOBAL: the values a new session starts with.
                let scope = if *global { "@@global." } else { "@@" };
                for v in VARIABLES {
                    let e = quiver_sql::sqlparser::ast::Expr::Identifier(
                        quiver_sql::sqlparser::ast::Ident::new(format!("{scope}{v}")),
                    );
                    let a = self.constant_value(&e)?;
                    values.push(match ScalarValue::from_array(&a, 0)? {
                        ScalarValue::Null => String::new(),
                        // Switches show as ON / OFF here, as 1 / 0 in @@name.
                        ScalarValue::Int64(i) if BOOLEAN_VARIABLES.contains(v) => {
                            if i != 0 { "ON" } else { "OFF" }.to_string()
                        }
                        s => s.to_string(),
                    });
                }
                (
                    MemTable::new(
                        SHOW_TABLE,
                        vec![
                            ("Variable_name", texts(VARIABLES.iter().copied())),
                            ("Value", texts(values)),
                        ],
                    )?,
                    filter.clone(),
                )
            }
            Statement::ShowCollation { filter } => {
                let all: Vec<Collation> = Collation::all().collect();
                (
                    MemTable::new(
                        SHOW_TABLE,
                        vec![
                            ("Collation", texts(all.iter().map(|c| c.name()))),
                            ("Charset", texts(all.iter().map(|c| c.charset().name()))),
                            (
                                "Id",
                                Column::Number(all.iter().map(|c| Some(c.id() as u64)).collect()),
                            ),
                            (
                                "Default",
                                texts(all.iter().map(|c| if c.is_default() { "Yes" } else { "" })),
                            ),
                            ("Compiled", texts(all.iter().map(|_| "Yes"))),
                            (
                                "Sortlen",
                                Column::Number(all.iter().map(|_| Some(1)).collect()),
                            ),
                        ],
                    )?,
                    filter.clone(),
                )
            }
            Statement::ShowCharset(s) => {
                let t = info_table(self, source, "CHARACTER_SETS")?;
                let b = &t.batches_now()[0];
                let col = |i: usize| -> Column {
                    let a = b.column(i);
                    Column::Text(
                        (0..a.len())
                            .map(|r| ScalarValue::from_array(a, r).ok().map(|v| v.to_string()))
                            .collect(),
                    )
                };
                let maxlen = b.column(3);
                (
                    MemTable::new(
                        SHOW_TABLE,
                        vec![
                            ("Charset", col(0)),
                            ("Description", col(2)),
                            ("Default collation", col(1)),
                            (
                                "Maxlen",
                                Column::Number(
                                    (0..maxlen.len())
                                        .map(|r| match ScalarValue::from_array(maxlen, r) {
                                            Ok(ScalarValue::UInt64(v)) => Some(v),
                                            _ => None,
                                        })
                                        .collect(),
                                ),
                            ),
                        ],
                    )?,
                    s.filter.clone(),
                )
            }
            Statement::ShowVariable { variable }
                if variable.len() >= 2
                    && variable[0].value.eq_ignore_ascii_case("TABLE")
                    && variable[1].value.eq_ignore_ascii_case("STATUS") =>
            {
                let (db, filter) = self.table_status_options(variable, source)?;
                if let Some(db) = &db {
                    self.check_schema(db)?;
                }
                // information_schema's views have no status here (MariaDB
                // lists them as its MEMORY / Aria tables): no rows.
                let in_info = db
                    .clone()
                    .or_else(|| self.current_database())
                    .is_some_and(|d| d.eq_ignore_ascii_case(INFORMATION_SCHEMA));
                let target = match in_info {
                    true => None,
                    false => Some(self.schema_for(db.as_deref())?),
                };
                let (t, names) =
                    table_status(self, "information_schema.TABLES", target.as_deref())?;
                return self.filter_table_status(t, &names, filter).map(Some);
            }
            Statement::ShowProcessList { full } => (
                processlist(
                    self,
                    source,
                    SHOW_TABLE,
                    [
                        "Id", "User", "Host", "db", "Command", "Time", "State", "Info",
                    ],
                    (!full).then_some(100),
                )?,
                None,
            ),
            _ => return Ok(None),
        };
        self.filter_show(table, filter).map(Some)
    }

    /// SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] count] and SHOW COUNT(*)
    /// WARNINGS / ERRORS (None for any other statement). The parser keeps
    /// only the words of such a SHOW, so the numbers of LIMIT are read from
    /// the statement's text.
    pub(crate) fn diagnostic_statement(
        &self,
        stmt: &Statement,
        source: Option<&Arc<SqlSource>>,
    ) -> Option<Result<DiagnosticShow>> {
        let Statement::ShowVariable { variable } = stmt else {
            return None;
        };
        let word = |i: usize, w: &str| {
            variable
                .get(i)
                .is_some_and(|v| v.value.eq_ignore_ascii_case(w))
        };
        let (count, at) = if word(0, "COUNT") {
            (true, 1)
        } else {
            (false, 0)
        };
        let errors = if word(at, "ERRORS") {
            true
        } else if word(at, "WARNINGS") {
            false
        } else {
            return None;
        };
        let limit = match variable.len() - at {
            1 => None,
            2 if !count && word(at + 1, "LIMIT") => {
                match self.limit_after(&variable[at + 1], source) {
                    Ok(l) => Some(l),
                    Err(e) => return Some(Err(e)),
                }
            }
            _ => return None,
        };
        Some(Ok(DiagnosticShow {
            errors,
            count,
            limit,
        }))
    }

    /// `[offset,] count` (or `count OFFSET offset`) after the word LIMIT.
    fn limit_after(
        &self,
        limit: &quiver_sql::sqlparser::ast::Ident,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<(u64, u64)> {
        let rest = source
            .as_ref()
            .and_then(|s| Some(&s.text()[s.offset(limit.span.end)?..]))
            .unwrap_or("");
        let rest = rest.split(';').next().unwrap_or("");
        let bad = || {
            QuiverError::syntax_msg(format!(
                "You have an error in your SQL syntax near '{}'",
                rest.trim()
            ))
        };
        let numbers: Vec<&str> = rest
            .split(|c: char| c == ',' || c.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let n = |w: &str| w.parse::<u64>().map_err(|_| bad());
        match numbers.as_slice() {
            [count] => Ok((0, n(count)?)),
            [offset, count] if rest.contains(',') => Ok((n(offset)?, n(count)?)),
            [count, o, offset] if o.eq_ignore_ascii_case("OFFSET") => Ok((n(offset)?, n(count)?)),
            _ => Err(bad()),
        }
    }

    /// The rows of a SHOW WARNINGS-like statement, from the list the
    /// statements before left.
    pub(crate) fn show_diagnostics(&self, show: Result<DiagnosticShow>) -> Result<StatementResult> {
        let show = show?;
        let list = self.warnings();
        if show.count {
            let (name, n) = if show.errors {
                ("@@session.error_count", list.errors())
            } else {
                ("@@session.warning_count", list.total())
            };
            let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
                name,
                arrow_schema::DataType::UInt64,
                true,
            )]));
            let batch = arrow_array::RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(arrow_array::UInt64Array::from(vec![n]))],
            )?;
            return Ok(StatementResult::Rows {
                schema,
                batches: vec![batch],
            });
        }
        let (skip, take) = show.limit.unwrap_or((0, u64::MAX));
        let rows: Vec<&Condition> = list
            .list
            .iter()
            .filter(|c| !show.errors || c.level == Level::Error)
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .take(usize::try_from(take).unwrap_or(usize::MAX))
            .collect();
        let t = MemTable::new(
            SHOW_TABLE,
            vec![
                ("Level", texts(rows.iter().map(|c| c.level.name()))),
                (
                    "Code",
                    Column::Number(rows.iter().map(|c| Some(c.code as u64)).collect()),
                ),
                ("Message", texts(rows.iter().map(|c| c.message.clone()))),
            ],
        )?;
        self.filter_show(t, None)
    }

    fn check_schema(&self, name: &str) -> Result<()> {
        if self.database().schema_name(name).is_some()
            || name.eq_ignore_ascii_case(INFORMATION_SCHEMA)
        {
            Ok(())
        } else {
            Err(QuiverError::new(
                1049,
                "42000",
                format!("Unknown database '{name}'"),
            ))
        }
    }

    /// DESCRIBE / DESC / EXPLAIN t: what SHOW COLUMNS FROM t shows, also for a view.
    pub(crate) fn describe(&self, name: &ObjectName) -> Result<StatementResult> {
        let mut database = None;
        if let [schema, _] = name.0.as_slice() {
            if let Some(s) = schema.as_ident() {
                self.check_schema(&s.value)?;
                database = Some(s.value.as_str());
            }
        }
        let table = self.show_columns(database, &last_name(name), false)?;
        self.filter_show(table, None)
    }

    fn show_columns(
        &self,
        database: Option<&str>,
        table: &str,
        full: bool,
    ) -> Result<Arc<MemTable>> {
        let db = self.database();
        let database = self.schema_for(database)?;
        let schema = match db.table_in(&database, table) {
            Some(t) => t.schema(),
            None => match quiver_sql::Catalog::view_in(db.as_ref(), Some(&database), table) {
                Some(q) => self.physical_plan(&q)?.schema(),
                None => return Err(QuiverError::unknown_table(&format!("{database}.{table}"))),
            },
        };
        let facts: Vec<_> = schema.fields().iter().map(|f| column_facts(f)).collect();
        let n = facts.len();
        let keys = crate::keys::column_key_texts(&schema);
        let mut cols = vec![
            ("Field", texts(facts.iter().map(|c| c.name.clone()))),
            ("Type", texts(facts.iter().map(|c| c.column_type.clone()))),
        ];
        if full {
            cols.push((
                "Collation",
                Column::Text(
                    facts
                        .iter()
                        .map(|c| c.collation.map(|co| co.name().to_string()))
                        .collect(),
                ),
            ));
        }
        cols.push((
            "Null",
            texts(facts.iter().map(|c| if c.nullable { "YES" } else { "NO" })),
        ));
        cols.push(("Key", texts(keys.iter().map(|k| k.0))));
        cols.push((
            "Default",
            Column::Text(
                facts
                    .iter()
                    .map(|c| c.default.as_deref().filter(|d| *d != "NULL").map(unquoted))
                    .collect(),
            ),
        ));
        cols.push(("Extra", texts(keys.iter().map(|k| k.1))));
        if full {
            cols.push((
                "Privileges",
                texts(vec!["select,insert,update,references"; n]),
            ));
            cols.push(("Comment", texts(vec![""; n])));
        }
        MemTable::new(SHOW_TABLE, cols)
    }

    /// `SHOW TABLE STATUS [FROM | IN db] [LIKE 'p' | WHERE expr]`, which
    /// the parser keeps only as words (`variable`): the options are read
    /// again from the statement's text after STATUS, as those of a SHOW
    /// TABLES. Without the text, only FROM / IN db of the words.
    fn table_status_options(
        &self,
        variable: &[quiver_sql::sqlparser::ast::Ident],
        source: Option<&Arc<SqlSource>>,
    ) -> Result<(Option<String>, Option<ShowStatementFilter>)> {
        let status = &variable[1];
        let rest = source.and_then(|src| {
            let at = src.offset(status.span.end)?;
            src.text().get(at..).map(str::to_string)
        });
        if let Some(rest) = rest {
            let stmts = quiver_sql::parse_sql(&format!("SHOW TABLES {rest}"))?;
            if let Some(Statement::ShowTables { show_options, .. }) = stmts.first() {
                let db = show_options
                    .show_in
                    .as_ref()
                    .and_then(|i| i.parent_name.as_ref())
                    .map(last_name);
                return Ok((db, filter_of(show_options)));
            }
        }
        let db = match variable.get(2..4) {
            Some([from, db])
                if from.value.eq_ignore_ascii_case("FROM")
                    || from.value.eq_ignore_ascii_case("IN") =>
            {
                Some(db.value.clone())
            }
            _ => None,
        };
        Ok((db, None))
    }

    /// SHOW TABLE STATUS's rows selected from information_schema.TABLES's
    /// columns under their SHOW names, so that a client is told the names
    /// MariaDB tells (schema information_schema, table TABLES, the columns'
    /// own names); LIKE on TABLE_NAME, a WHERE over the SHOW names.
    fn filter_table_status(
        &self,
        table: Arc<MemTable>,
        names: &[(&str, &str)],
        filter: Option<ShowStatementFilter>,
    ) -> Result<StatementResult> {
        let items: Vec<String> = names
            .iter()
            .map(|(show, column)| format!("`{column}` AS `{show}`"))
            .collect();
        let select = format!(
            "SELECT {} FROM `information_schema`.`TABLES`",
            items.join(", ")
        );
        let sql = match filter {
            None => select,
            Some(ShowStatementFilter::Like(p))
            | Some(ShowStatementFilter::ILike(p))
            | Some(ShowStatementFilter::NoKeyword(p)) => format!(
                "{select} WHERE `TABLE_NAME` LIKE '{}'",
                p.replace('\\', "\\\\").replace('\'', "''")
            ),
            Some(ShowStatementFilter::Where(e)) => {
                format!("SELECT * FROM ({select}) AS `status` WHERE {e}")
            }
        };
        self.run_show_query(&sql, table)
    }

    /// Runs `sql` over `table` (a SHOW's rows).
    fn run_show_query(&self, sql: &str, table: Arc<MemTable>) -> Result<StatementResult> {
        let stmts = quiver_sql::parse_sql(sql)?;
        let Some(Statement::Query(q)) = stmts.first() else {
            return Err(QuiverError::internal(
                "SHOW filter did not parse as a query",
            ));
        };
        // Bound as the text it is (information_schema is renamed when it
        // names it), not as the SHOW statement's.
        let source = Arc::new(quiver_sql::SqlSource::new(sql));
        let (schema, batches) = self
            .prepare(q, Some(&source), Purpose::Show(table))?
            .collect()?;
        Ok(StatementResult::Rows { schema, batches })
    }

    /// The rows of `table` that pass `filter` (LIKE on the first column,
    /// case-insensitive as MySQL's metadata; or a WHERE over its columns).
    fn filter_show(
        &self,
        table: Arc<MemTable>,
        filter: Option<ShowStatementFilter>,
    ) -> Result<StatementResult> {
        // Named with its schema: a one-part name would be an
        // information_schema table while that is the current database.
        let from = format!("`{SCHEMA_NAME}`.`{SHOW_TABLE}`");

        let first = quiver_plan::TableSource::schema(table.as_ref())
            .field(0)
            .name()
            .clone();
        let condition = match filter {
            None => None,
            Some(ShowStatementFilter::Like(p))
            | Some(ShowStatementFilter::ILike(p))
            | Some(ShowStatementFilter::NoKeyword(p)) => Some(format!(
                "`{}` LIKE '{}'",
                first.replace('`', "``"),
                p.replace('\\', "\\\\").replace('\'', "''")
            )),
            Some(ShowStatementFilter::Where(e)) => Some(e.to_string()),
        };
        let sql = match condition {
            Some(c) => format!("SELECT * FROM {from} WHERE {c}"),
            None => format!("SELECT * FROM {from}"),
        };
        self.run_show_query(&sql, table)
    }
}

fn filter_of(o: &quiver_sql::sqlparser::ast::ShowStatementOptions) -> Option<ShowStatementFilter> {
    use quiver_sql::sqlparser::ast::ShowStatementFilterPosition as P;
    match &o.filter_position {
        Some(P::Infix(f)) | Some(P::Suffix(f)) => Some(f.clone()),
        None => None,
    }
}

/// What a SHOW WARNINGS-like statement asks for.
pub(crate) struct DiagnosticShow {
    /// SHOW ERRORS: only the errors.
    errors: bool,
    /// SHOW COUNT(*) ...: how many.
    count: bool,
    /// LIMIT: rows skipped, rows shown.
    limit: Option<(u64, u64)>,
}
