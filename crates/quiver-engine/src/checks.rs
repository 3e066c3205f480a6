//! CHECK constraints, as MariaDB keeps them: a column's `CHECK (e)` (named
//! after its column, `t.c` in error 4025) and the table's `[CONSTRAINT n]
//! CHECK (e)` (unnamed ones numbered `CONSTRAINT_1`, `CONSTRAINT_2`, ...,
//! skipping names taken). A JSON column is LONGTEXT with the automatic
//! column check `json_valid(c)`, unless it declares its own.
//!
//! Each check is kept as MariaDB prints its expression (`check_text.rs`), in
//! the table's schema metadata (`TABLE_CHECKS_KEY`), so that it is written
//! to the manifest with the rows and read back when the folder is opened.
//! A write evaluates every check over the rows it stores as one query over
//! those rows (`SELECT (e1) IS FALSE, ... FROM t`): a row fails a check whose
//! value is false (0); NULL passes. Column checks are tried first, in column
//! order, then table checks in declared order, as MariaDB does: the error
//! names the first that fails for the first failing row.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use quiver_common::{QuiverError, Result};
use quiver_sql::sqlparser::ast::{ColumnDef, ColumnOption, DataType as SqlType, TableConstraint};

use quiver_common::types::{checks_of_schema as of_schema, TableCheck};

use crate::information_schema::MemTable;
use crate::query::Purpose;
use crate::Session;

/// Whether a column is declared JSON (LONGTEXT with `json_valid`).
pub(crate) fn is_json(c: &ColumnDef) -> bool {
    matches!(c.data_type, SqlType::JSON)
}

/// The check of one column definition: its `CHECK (e)`, else a JSON
/// column's `json_valid(c)`. A named column check or a second one is a
/// syntax error in MariaDB.
pub(crate) fn column_check(c: &ColumnDef) -> Result<Option<TableCheck>> {
    let mut found = None;
    for o in &c.options {
        let ColumnOption::Check(check) = &o.option else {
            continue;
        };
        if o.name.is_some() || check.name.is_some() || found.is_some() {
            return Err(QuiverError::syntax_msg(format!(
                "CHECK of column '{}'",
                c.name.value
            )));
        }
        if check.enforced.is_some() || check.no_inherit {
            return Err(QuiverError::syntax_msg(check.to_string()));
        }
        found = Some(TableCheck {
            column: Some(c.name.value.clone()),
            name: c.name.value.clone(),
            text: crate::check_text::mariadb_text(&check.expr, &c.name.value)?,
        });
    }
    if found.is_none() && is_json(c) {
        found = Some(TableCheck {
            column: Some(c.name.value.clone()),
            name: c.name.value.clone(),
            text: format!("json_valid(`{}`)", c.name.value.replace('`', "``")),
        });
    }
    Ok(found)
}

/// The checks CREATE TABLE declares: column checks in column order, then
/// table checks with their names (1826 for a name given twice).
pub(crate) fn declared_checks(
    columns: &[ColumnDef],
    constraints: &[TableConstraint],
) -> Result<Vec<TableCheck>> {
    let mut checks = Vec::new();
    for c in columns {
        checks.extend(column_check(c)?);
    }
    add_table_checks(&mut checks, constraints.iter())?;
    Ok(checks)
}

/// Appends the CHECK constraints of `constraints` to `checks`, naming the
/// unnamed ones after every given name is known.
pub(crate) fn add_table_checks<'a>(
    checks: &mut Vec<TableCheck>,
    constraints: impl Iterator<Item = &'a TableConstraint>,
) -> Result<()> {
    let first_new = checks.len();
    let mut unnamed = Vec::new();
    for c in constraints {
        let TableConstraint::Check(check) = c else {
            continue;
        };
        if check.enforced.is_some() || check.no_inherit {
            return Err(QuiverError::syntax_msg(check.to_string()));
        }
        let name = check.name.as_ref().map(|n| n.value.clone());
        if let Some(n) = &name {
            check_name(n)?;
            if checks.iter().any(|c| c.name.eq_ignore_ascii_case(n)) {
                return Err(duplicate_name(n));
            }
        }
        // Named now only to print errors of the expression; numbered below.
        let shown = name.clone().unwrap_or_else(|| "CONSTRAINT_1".to_string());
        if name.is_none() {
            unnamed.push(checks.len());
        }
        checks.push(TableCheck {
            column: None,
            name: name.unwrap_or_default(),
            text: crate::check_text::mariadb_text(&check.expr, &shown)?,
        });
    }
    let mut n = 0;
    for i in unnamed {
        loop {
            n += 1;
            let candidate = format!("CONSTRAINT_{n}");
            if !checks
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(&candidate))
            {
                checks[i].name = candidate;
                break;
            }
        }
    }
    let _ = first_new;
    Ok(())
}

fn duplicate_name(n: &str) -> QuiverError {
    QuiverError::new(
        1826,
        "HY000",
        format!("Duplicate CHECK constraint name '{n}'"),
    )
}

/// A name the metadata lines can keep.
fn check_name(n: &str) -> Result<()> {
    if n.contains(['\t', '\n']) {
        return Err(QuiverError::not_supported(
            "a CHECK constraint name with a tab or newline",
        ));
    }
    Ok(())
}

/// The query that evaluates `checks` over the rows of table `name`: one
/// column per check, true where the row fails it.
fn failing_query(name: &str, checks: &[TableCheck]) -> Result<quiver_sql::sqlparser::ast::Query> {
    let items: Vec<String> = checks
        .iter()
        .map(|c| format!("({}) IS FALSE", c.text))
        .collect();
    let sql = format!(
        "SELECT {} FROM `{}`",
        items.join(", "),
        name.replace('`', "``")
    );
    match quiver_sql::parse_sql(&sql)?.pop() {
        Some(quiver_sql::sqlparser::ast::Statement::Query(q)) => Ok(*q),
        _ => Err(QuiverError::internal("a CHECK query did not parse")),
    }
}

impl Session {
    /// Binds the checks of `schema` (a table named `name`), so that a name
    /// they do not know is refused when they are declared (1054 "in
    /// 'CHECK'", as MariaDB says).
    pub(crate) fn bind_checks(&self, name: &str, schema: &SchemaRef) -> Result<()> {
        let checks = of_schema(schema);
        if checks.is_empty() {
            return Ok(());
        }
        let empty: Vec<ArrayRef> = schema
            .fields()
            .iter()
            .map(|f| arrow_array::new_empty_array(f.data_type()))
            .collect();
        self.failing_rows(name, schema, &checks, empty, 0)
            .map(|_| ())
            .map_err(|e| match e.code {
                1054 => QuiverError::new(
                    1054,
                    "42S22",
                    e.message
                        .rsplit_once(" in '")
                        .map_or(e.message.clone(), |(head, _)| format!("{head} in 'CHECK'")),
                ),
                _ => e,
            })
    }

    /// For each of `rows` rows of `columns` (one array per column of the
    /// table `name` of `schema`), the first check it fails, if any.
    pub(crate) fn failing_checks(
        &self,
        name: &str,
        schema: &SchemaRef,
        columns: &[ArrayRef],
        rows: usize,
    ) -> Result<Vec<Option<usize>>> {
        let checks = of_schema(schema);
        if checks.is_empty() || rows == 0 {
            return Ok(vec![None; rows]);
        }
        self.failing_rows(name, schema, &checks, columns.to_vec(), rows)
    }

    fn failing_rows(
        &self,
        name: &str,
        schema: &SchemaRef,
        checks: &[TableCheck],
        columns: Vec<ArrayRef>,
        rows: usize,
    ) -> Result<Vec<Option<usize>>> {
        // The rows as a table of plain columns (no keys or checks of its own).
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let batch = RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        let query = failing_query(name, checks)?;
        // Warnings of the checks' evaluation (a string read as a number)
        // are not the statement's: MariaDB raises none for them.
        let (out_schema, out) = quiver_exec::warnings::collecting_into(
            &Arc::new(quiver_exec::warnings::Warnings::default()),
            || {
                self.prepare(&query, None, Purpose::Show(MemTable::of_batch(name, batch)))?
                    .in_one_partition()
                    .collect()
            },
        )?;
        let out = arrow_select::concat::concat_batches(&out_schema, &out)?;
        let failing: Vec<&BooleanArray> = (0..checks.len())
            .map(|i| {
                out.column(i)
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .ok_or_else(|| QuiverError::internal("a CHECK is not a truth value"))
            })
            .collect::<Result<_>>()?;
        Ok((0..rows)
            .map(|r| failing.iter().position(|f| f.is_valid(r) && f.value(r)))
            .collect())
    }

    /// Error 4025 for the first row of `columns` that fails a check of the
    /// table `name`; `only`: the rows to look at (None: all).
    pub(crate) fn check_rows(
        &self,
        name: &str,
        schema: &SchemaRef,
        columns: &[ArrayRef],
        only: Option<&[bool]>,
    ) -> Result<()> {
        let checks = of_schema(schema);
        if checks.is_empty() {
            return Ok(());
        }
        let rows = columns.first().map_or(0, |c| c.len());
        let failing = self.failing_rows(name, schema, &checks, columns.to_vec(), rows)?;
        for (r, f) in failing.into_iter().enumerate() {
            if let Some(i) = f.filter(|_| only.is_none_or(|o| o[r])) {
                return Err(checks[i].failed(&self.database_name(), name));
            }
        }
        Ok(())
    }

    /// [`Session::check_rows`] over a table's batches.
    pub fn check_batches(
        &self,
        name: &str,
        schema: &SchemaRef,
        batches: &[RecordBatch],
    ) -> Result<()> {
        if of_schema(schema).is_empty() || batches.is_empty() {
            return Ok(());
        }
        let all = arrow_select::concat::concat_batches(schema, batches)?;
        self.check_rows(name, schema, all.columns(), None)
    }

    /// The database error 4025 names.
    pub(crate) fn database_name(&self) -> String {
        self.current_database()
            .unwrap_or_else(|| crate::catalog::SCHEMA_NAME.to_string())
    }
}

/// A check's text with column `old` named `new`: backquoted names and bare
/// words that are not function names; string literals are kept as they are.
pub(crate) fn rename_column_in(text: &str, old: &str, new: &str) -> String {
    let quoted_new = format!("`{}`", new.replace('`', "``"));
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + new.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' | '"' => {
                // A string: to its closing quote (`\x` escapes, `''` doubles).
                let start = i;
                i += 1;
                while i < chars.len() {
                    if chars[i] == '\\' {
                        i += 2;
                        continue;
                    }
                    if chars[i] == c {
                        if chars.get(i + 1) == Some(&c) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i = (i + 1).min(chars.len());
                out.extend(&chars[start..i]);
            }
            '`' => {
                let mut name = String::new();
                i += 1;
                while i < chars.len() {
                    if chars[i] == '`' {
                        if chars.get(i + 1) == Some(&'`') {
                            name.push('`');
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    name.push(chars[i]);
                    i += 1;
                }
                i = (i + 1).min(chars.len());
                match name.eq_ignore_ascii_case(old) {
                    true => out.push_str(&quoted_new),
                    false => {
                        out.push('`');
                        out.push_str(&name.replace('`', "``"));
                        out.push('`');
                    }
                }
            }
            c if c.is_alphanumeric() || c == '_' || c == '$' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let mut j = i;
                while j < chars.len() && chars[j] == ' ' {
                    j += 1;
                }
                let call = chars.get(j) == Some(&'(');
                let after_dot = start > 0 && chars[start - 1] == '.';
                let number = word.starts_with(|d: char| d.is_ascii_digit());
                match !call && !after_dot && !number && word.eq_ignore_ascii_case(old) {
                    true => out.push_str(&quoted_new),
                    false => out.push_str(&word),
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn renames_names_not_strings_or_functions() {
        assert_eq!(
            super::rename_column_in("`a` > 0 and `s` <> '`a`' and a(`b`) and ab = a", "a", "x"),
            "`x` > 0 and `s` <> '`a`' and a(`b`) and ab = `x`"
        );
    }
}
