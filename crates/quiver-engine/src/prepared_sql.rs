//! `PREPARE name FROM {'text' | @var}`, `EXECUTE name [USING @v, ...]` and
//! `{DEALLOCATE | DROP} PREPARE name` as SQL statements. A statement keeps
//! its text and where its `?` are; EXECUTE puts each USING value in as a
//! literal of its value (a string quoted and escaped, never its text as
//! SQL), as the server's binary-protocol COM_STMT_EXECUTE does.

use std::sync::Arc;

use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_sql::sqlparser::ast::{Expr as SqlExpr, ExprWithAlias, Ident, SetExpr, Statement};
use quiver_sql::SqlSource;

use crate::{Session, StatementResult};

/// A statement PREPARE made: its text and the byte offsets of its `?`.
#[derive(Debug, Clone)]
pub(crate) struct SqlPrepared {
    sql: String,
    placeholders: Vec<usize>,
}

fn unknown(name: &str, statement: &str) -> QuiverError {
    QuiverError::new(
        1243,
        "HY000",
        format!("Unknown prepared statement handler ({name}) given to {statement}"),
    )
}

/// `s` as a quoted SQL string literal that reads back as `s` (quotes
/// doubled, backslashes and NULs escaped): how a bound value enters
/// statement text here and in the server's COM_STMT_EXECUTE.
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A value as a SQL literal that reads back as the same value.
fn literal(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Null => "NULL".into(),
        ScalarValue::Boolean(b) => (if *b { "1" } else { "0" }).into(),
        ScalarValue::Float64(f) => format!("{f:e}"),
        ScalarValue::Date(_) => format!("DATE'{v}'"),
        ScalarValue::DateTime(..) => format!("TIMESTAMP'{v}'"),
        ScalarValue::Time(..) => format!("TIME'{v}'"),
        ScalarValue::Utf8(s) => string_literal(s),
        ScalarValue::Binary(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
            format!("X'{hex}'")
        }
        ScalarValue::Int64(_) | ScalarValue::UInt64(_) | ScalarValue::Decimal(..) => v.to_string(),
    }
}

/// `sql` with its `?` (at byte offsets `placeholders`) replaced by
/// `value(i)`, each a literal.
fn substitute(
    sql: &str,
    placeholders: &[usize],
    mut value: impl FnMut(usize) -> Result<String>,
) -> Result<String> {
    let mut out = String::with_capacity(sql.len());
    let mut last = 0;
    for (i, at) in placeholders.iter().enumerate() {
        out.push_str(&sql[last..*at]);
        // Spaces keep a literal from joining its neighbours into one token.
        out.push(' ');
        out.push_str(&value(i)?);
        out.push(' ');
        last = at + 1;
    }
    out.push_str(&sql[last..]);
    Ok(out)
}

impl Session {
    /// The value of a constant expression (a literal, `@var`).
    fn scalar_of(&self, e: &SqlExpr) -> Result<ScalarValue> {
        ScalarValue::from_array(&self.constant_value(e)?, 0)
    }

    /// PREPARE name FROM source (see `quiver_sql`'s parser: the source is
    /// the one value of the statement's `VALUES`): the text must be one
    /// statement that parses.
    pub(crate) fn prepare_sql(&self, name: &Ident, source: &Statement) -> Result<StatementResult> {
        let Statement::Query(q) = source else {
            return Err(QuiverError::internal("PREPARE without its source"));
        };
        let SetExpr::Values(v) = q.body.as_ref() else {
            return Err(QuiverError::internal("PREPARE without its source"));
        };
        let Some(e) = v.rows.first().and_then(|r| r.content.first()) else {
            return Err(QuiverError::internal("PREPARE without its source"));
        };
        let sql = match self.scalar_of(e)? {
            ScalarValue::Utf8(s) => s,
            ScalarValue::Binary(b) => String::from_utf8_lossy(&b).into_owned(),
            ScalarValue::Null => "NULL".to_string(),
            other => other.to_string(),
        };
        // A failed PREPARE drops the statement of that name, as MariaDB's.
        self.prepared_sql().remove(&name.value.to_lowercase());
        let statements = quiver_sql::parse_sql(&sql)?;
        if statements.len() != 1 {
            return Err(QuiverError::new(
                1064,
                "42000",
                "You have an error in your SQL syntax: PREPARE takes one statement",
            ));
        }
        if matches!(
            statements[0],
            Statement::Prepare { .. } | Statement::Execute { .. } | Statement::Deallocate { .. }
        ) {
            return Err(QuiverError::new(
                1295,
                "HY000",
                "This command is not supported in the prepared statement protocol yet",
            ));
        }
        let placeholders = quiver_sql::placeholders(&sql);
        // Missing tables and columns of a query are reported at PREPARE,
        // as MariaDB does (bound with NULL for each `?`).
        if let Statement::Query(_) = &statements[0] {
            let probe = substitute(&sql, &placeholders, |_| Ok("NULL".to_string()))?;
            if let Ok(Some(Statement::Query(q))) =
                quiver_sql::parse_sql(&probe).map(|mut v| v.pop())
            {
                if let Err(e) = self.physical_plan(&q) {
                    if matches!(e.code, 1146 | 1054 | 1046) {
                        return Err(e);
                    }
                }
            }
        }
        self.prepared_sql()
            .insert(name.value.to_lowercase(), SqlPrepared { sql, placeholders });
        Ok(StatementResult::Done { affected: 0 })
    }

    /// EXECUTE name [USING v, ...]: 1243 for an unknown name, 1210 when the
    /// values are not one per `?`.
    pub(crate) fn execute_prepared(
        &self,
        name: &str,
        using: &[ExprWithAlias],
    ) -> Result<StatementResult> {
        let p = self
            .prepared_sql()
            .get(&name.to_lowercase())
            .cloned()
            .ok_or_else(|| unknown(name, "EXECUTE"))?;
        if using.len() != p.placeholders.len() {
            return Err(QuiverError::new(
                1210,
                "HY000",
                "Incorrect arguments to EXECUTE",
            ));
        }
        let sql = substitute(&p.sql, &p.placeholders, |i| {
            Ok(literal(&self.scalar_of(&using[i].expr)?))
        })?;
        let mut statements = quiver_sql::parse_sql(&sql)?;
        let Some(stmt) = statements.pop() else {
            return Err(QuiverError::internal("a prepared statement without text"));
        };
        self.run_statement(&stmt, Some(&Arc::new(SqlSource::new(&sql))))
    }

    fn prepared_sql(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, SqlPrepared>> {
        self.sql_prepared.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// {DEALLOCATE | DROP} PREPARE name: 1243 for an unknown name.
    pub(crate) fn deallocate_prepared(&self, name: &str) -> Result<StatementResult> {
        match self.prepared_sql().remove(&name.to_lowercase()) {
            Some(_) => Ok(StatementResult::Done { affected: 0 }),
            None => Err(unknown(name, "DEALLOCATE PREPARE")),
        }
    }
}
