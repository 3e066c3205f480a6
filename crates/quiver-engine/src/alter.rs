//! ALTER TABLE and RENAME TABLE.
//!
//! A rename moves the table's folder (one atomic step). Column changes
//! (ADD, DROP, RENAME, MODIFY and CHANGE COLUMN) and CHECK changes (ADD /
//! DROP CONSTRAINT) rewrite the table as a new generation of its files with
//! the new schema, switched atomically like any write, and keep the keys,
//! the AUTO_INCREMENT column and the CHECK constraints pointing at the same
//! columns. MODIFY / CHANGE store the old values in the new type with
//! INSERT's conversions (strict mode: the first misfit is an error and the
//! table stays as it was). One statement renames or changes columns, not
//! both, so that a crash leaves the table as it was or as the statement
//! made it. Changes whose meaning is not kept yet (MODIFY of a key column,
//! keys, indexes) are refused with 1235.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use quiver_collation::Collation;
use quiver_common::types::{
    auto_increment_column, checks_of_schema, checks_text, TableCheck, TableKey, COLUMN_DEFAULT_KEY,
    TABLE_AUTO_INCREMENT_KEY, TABLE_CHECKS_KEY, TABLE_COLLATION_KEY, TABLE_KEYS_KEY,
};
use quiver_common::{QuiverError, Result};
use quiver_sql::sqlparser::ast::{
    AlterTable, AlterTableOperation, ColumnDef, ColumnOption, ColumnOptionDef, DataType, Ident,
    MySQLColumnPosition, RenameTableNameKind, TableConstraint,
};

use crate::session::first_words;
use crate::store::{store_cast, Misfits};
use crate::{Session, StatementResult};

/// A column of the altered table: its field and where its values come from.
struct NewColumn {
    field: Field,
    /// The old column it is, or None for a column ADD makes.
    from: Option<usize>,
    /// MODIFY / CHANGE: the old values are stored anew in `field`.
    convert: bool,
}

impl Session {
    pub(crate) fn alter_table(&self, alter: &AlterTable) -> Result<StatementResult> {
        let (database, name) = self.qualified_name(&alter.name)?;
        let Some(table) = self.db.table_in(&database, &name) else {
            return Err(QuiverError::unknown_table(&format!("{database}.{name}")));
        };
        let schema = table.schema();
        let mut renamed = None;
        let mut columns: Vec<NewColumn> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| NewColumn {
                field: f.as_ref().clone(),
                from: Some(i),
                convert: false,
            })
            .collect();
        let table_collation = schema
            .metadata()
            .get(TABLE_COLLATION_KEY)
            .and_then(|c| Collation::from_name(c))
            .unwrap_or(self.vars().collation_database);
        let keys = TableKey::of_schema(schema.metadata().get(TABLE_KEYS_KEY));
        // CHECK constraints follow renamed columns; added ones are verified
        // over every row (`verify`), as MariaDB's copy does.
        let old_checks = checks_of_schema(&schema);
        let mut checks = old_checks.clone();
        let mut verify = false;
        let auto = auto_increment_column(schema.metadata().get(TABLE_AUTO_INCREMENT_KEY));
        let keyed = |old: usize| keys.iter().any(|k| k.columns.contains(&old)) || auto == Some(old);
        let position = |columns: &[NewColumn], n: &str| {
            columns
                .iter()
                .position(|c| c.field.name().eq_ignore_ascii_case(n))
        };
        for op in &alter.operations {
            match op {
                AlterTableOperation::RenameTable { table_name } => {
                    let (RenameTableNameKind::To(n) | RenameTableNameKind::As(n)) = table_name;
                    renamed = Some(self.qualified_name(n)?);
                }
                AlterTableOperation::AddColumn {
                    if_not_exists,
                    column_def,
                    column_position,
                    ..
                } => {
                    // Keys and AUTO_INCREMENT would have to check or number
                    // the rows the table has.
                    if let Some(what) = column_def
                        .options
                        .iter()
                        .find_map(|o| crate::ddl::unkept_column_option(&o.option, true))
                    {
                        return Err(QuiverError::not_supported(format!(
                            "ALTER TABLE ADD COLUMN ... {what}"
                        )));
                    }
                    let field = self.column_field(column_def, table_collation)?;
                    // A JSON column's json_valid (MariaDB does not check
                    // the rows ADD fills either).
                    let check = crate::checks::column_check(column_def)?;
                    if position(&columns, field.name()).is_some() {
                        if *if_not_exists {
                            self.note(1060, format!("Duplicate column name '{}'", field.name()));
                            continue;
                        }
                        return Err(QuiverError::duplicate_column(field.name()));
                    }
                    let at = match column_position {
                        None => columns.len(),
                        Some(MySQLColumnPosition::First) => 0,
                        Some(MySQLColumnPosition::After(c)) => {
                            position(&columns, &c.value)
                                .ok_or_else(|| unknown_column(&c.value, &name))?
                                + 1
                        }
                    };
                    columns.insert(
                        at,
                        NewColumn {
                            field,
                            from: None,
                            convert: false,
                        },
                    );
                    checks.extend(check);
                }
                AlterTableOperation::DropColumn {
                    column_names,
                    if_exists,
                    ..
                } => {
                    for c in column_names {
                        let Some(at) = position(&columns, &c.value) else {
                            if *if_exists {
                                self.note(
                                    1091,
                                    format!(
                                        "Can't DROP COLUMN `{}`; check that it exists",
                                        c.value
                                    ),
                                );
                                continue;
                            }
                            return Err(QuiverError::new(
                                1091,
                                "42000",
                                format!("Can't DROP COLUMN `{}`; check that it exists", c.value),
                            ));
                        };
                        if columns[at].from.is_some_and(keyed) {
                            return Err(QuiverError::not_supported(
                                "ALTER TABLE dropping a column of a key or AUTO_INCREMENT",
                            ));
                        }
                        let gone = columns.remove(at);
                        let gone = gone.field.name();
                        // Its column check goes, and so does a table check
                        // that reads no other column (as in MariaDB); one
                        // that does is refused below (1054).
                        let reads = |text: &str, c: &str| {
                            crate::checks::rename_column_in(text, c, "\u{1}") != text
                        };
                        checks.retain(|k| match &k.column {
                            Some(c) => !c.eq_ignore_ascii_case(gone),
                            None => {
                                !reads(&k.text, gone)
                                    || columns.iter().any(|c| reads(&k.text, c.field.name()))
                            }
                        });
                    }
                }
                AlterTableOperation::RenameColumn {
                    old_column_name,
                    new_column_name,
                } => {
                    let at = position(&columns, &old_column_name.value)
                        .ok_or_else(|| unknown_column(&old_column_name.value, &name))?;
                    let new = &new_column_name.value;
                    if position(&columns, new).is_some_and(|p| p != at) {
                        return Err(QuiverError::duplicate_column(new));
                    }
                    let f = &columns[at].field;
                    let old = f.name().clone();
                    columns[at].field = f.clone().with_name(new);
                    rename_in_checks(&mut checks, &old, new);
                }
                AlterTableOperation::ModifyColumn {
                    col_name,
                    data_type,
                    options,
                    column_position,
                } => self.change_column(
                    &mut columns,
                    &mut checks,
                    ChangedColumn {
                        table: &name,
                        old_name: col_name,
                        new_name: col_name,
                        data_type,
                        options,
                        position: column_position.as_ref(),
                        table_collation,
                    },
                    &keyed,
                )?,
                AlterTableOperation::ChangeColumn {
                    old_name,
                    new_name,
                    data_type,
                    options,
                    column_position,
                } => self.change_column(
                    &mut columns,
                    &mut checks,
                    ChangedColumn {
                        table: &name,
                        old_name,
                        new_name,
                        data_type,
                        options,
                        position: column_position.as_ref(),
                        table_collation,
                    },
                    &keyed,
                )?,
                AlterTableOperation::AddConstraint { constraint, .. }
                    if matches!(constraint, TableConstraint::Check(_)) =>
                {
                    crate::checks::add_table_checks(&mut checks, std::iter::once(constraint))?;
                    verify = true;
                }
                AlterTableOperation::DropConstraint {
                    if_exists, name: n, ..
                } => {
                    let Some(at) = checks
                        .iter()
                        .position(|k| k.column.is_none() && k.name.eq_ignore_ascii_case(&n.value))
                    else {
                        if keys.iter().any(|k| k.name.eq_ignore_ascii_case(&n.value)) {
                            return Err(QuiverError::not_supported(
                                "ALTER TABLE DROP CONSTRAINT of a key",
                            ));
                        }
                        let message =
                            format!("Can't DROP CONSTRAINT `{}`; check that it exists", n.value);
                        if *if_exists {
                            self.note(1091, message);
                            continue;
                        }
                        return Err(QuiverError::new(1091, "42000", message));
                    };
                    checks.remove(at);
                }
                other => {
                    return Err(QuiverError::not_supported(format!(
                        "ALTER TABLE ... {}",
                        first_words(&other.to_string())
                    )))
                }
            }
        }
        if columns.is_empty() {
            return Err(QuiverError::new(
                1090,
                "42000",
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
            ));
        }
        let changed = columns.len() != schema.fields().len()
            || columns
                .iter()
                .zip(schema.fields())
                .enumerate()
                .any(|(i, (c, f))| c.from != Some(i) || c.convert || c.field != *f.as_ref())
            || checks != old_checks;
        let new_name = renamed
            .clone()
            .unwrap_or_else(|| (database.clone(), name.clone()));
        if renamed.is_some() && changed {
            return Err(QuiverError::not_supported(
                "ALTER TABLE renaming the table and changing its columns at once",
            ));
        }
        if !changed {
            if renamed.is_some() {
                self.db.alter_table_in(
                    (&database, &name),
                    (&new_name.0, &new_name.1),
                    schema,
                    None,
                )?;
            }
            return Ok(StatementResult::Done { affected: 0 });
        }
        // Keys and the AUTO_INCREMENT column follow their columns.
        let new_index = |old: usize| columns.iter().position(|c| c.from == Some(old));
        let mut meta = schema.metadata().clone();
        if !keys.is_empty() {
            let moved: Vec<TableKey> = keys
                .iter()
                .map(|k| TableKey {
                    columns: k.columns.iter().filter_map(|&c| new_index(c)).collect(),
                    ..k.clone()
                })
                .collect();
            meta.insert(TABLE_KEYS_KEY.to_string(), TableKey::list_text(&moved));
        }
        if let Some(a) = auto.and_then(new_index) {
            meta.insert(TABLE_AUTO_INCREMENT_KEY.to_string(), a.to_string());
        }
        // Column checks in column order, then table checks as declared.
        let column_rank = |k: &TableCheck| match &k.column {
            Some(n) => columns
                .iter()
                .position(|c| c.field.name().eq_ignore_ascii_case(n))
                .unwrap_or(usize::MAX),
            None => usize::MAX,
        };
        checks.sort_by_key(|k| (k.column.is_none(), column_rank(k)));
        match checks.is_empty() {
            true => meta.remove(TABLE_CHECKS_KEY),
            false => meta.insert(TABLE_CHECKS_KEY.to_string(), checks_text(&checks)),
        };
        if !meta.contains_key(TABLE_COLLATION_KEY) {
            meta.insert(
                TABLE_COLLATION_KEY.to_string(),
                table_collation.name().to_string(),
            );
        }
        let new_schema: SchemaRef = Arc::new(Schema::new_with_metadata(
            columns.iter().map(|c| c.field.clone()).collect::<Vec<_>>(),
            meta,
        ));
        let mut batches = Vec::new();
        let (strict, _) = self.strictness();
        let mut misfits = Misfits::new(strict);
        let prefix = self.column_prefix(&database, &name);
        let mut first_row = 0;
        for b in table.data()?.iter() {
            let arrays = columns
                .iter()
                .enumerate()
                .map(|(at, c)| match c.from {
                    Some(i) if c.convert => {
                        misfits.at_column(at);
                        let values = member_values(b.column(i), b.schema().field(i), &c.field)?;
                        converted(&values, &c.field, first_row, &prefix, &mut misfits)
                    }
                    Some(i) => Ok(b.column(i).clone()),
                    None => self.added_values(&c.field, b.num_rows()),
                })
                .collect::<Result<Vec<ArrayRef>>>()?;
            first_row += b.num_rows();
            batches.push(RecordBatch::try_new_with_options(
                new_schema.clone(),
                arrays,
                &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
            )?);
        }
        if checks != old_checks {
            self.bind_checks(&new_name.1, &new_schema)?;
        }
        if verify || columns.iter().any(|c| c.convert) {
            self.check_batches(&new_name.1, &new_schema, &batches)?;
        }
        misfits.raise(&self.statement_warnings());
        self.db.alter_table_in(
            (&database, &name),
            (&new_name.0, &new_name.1),
            new_schema,
            Some(batches),
        )?;
        Ok(StatementResult::Done { affected: 0 })
    }

    /// The values of a column ADD makes in `rows` existing rows: its
    /// DEFAULT, else NULL, else (NOT NULL) the type's zero, as MariaDB
    /// fills them.
    fn added_values(&self, f: &Field, rows: usize) -> Result<ArrayRef> {
        if f.metadata().contains_key(COLUMN_DEFAULT_KEY) || f.is_nullable() {
            return self.column_default(f, rows);
        }
        match crate::store::zero_values(f, rows)? {
            Some(zero) => Ok(zero),
            None if rows == 0 => Ok(arrow_array::new_empty_array(f.data_type())),
            None => Err(QuiverError::not_supported(format!(
                "ALTER TABLE adding NOT NULL column '{}' without a DEFAULT to rows (its zero date)",
                f.name()
            ))),
        }
    }

    /// RENAME TABLE a TO b [, c TO d ...], in order; each rename is one
    /// atomic step.
    pub(crate) fn rename_tables(
        &self,
        renames: &[quiver_sql::sqlparser::ast::RenameTable],
    ) -> Result<StatementResult> {
        for r in renames {
            let from = self.qualified_name(&r.old_name)?;
            let to = self.qualified_name(&r.new_name)?;
            let Some(t) = self.db.table_in(&from.0, &from.1) else {
                return Err(QuiverError::unknown_table(&format!(
                    "{}.{}",
                    from.0, from.1
                )));
            };
            self.db
                .alter_table_in((&from.0, &from.1), (&to.0, &to.1), t.schema(), None)?;
        }
        Ok(StatementResult::Done { affected: 0 })
    }
}

fn unknown_column(column: &str, table: &str) -> QuiverError {
    QuiverError::new(
        1054,
        "42S22",
        format!("Unknown column '{column}' in '{table}'"),
    )
}

/// Column `old` is named `new` in the checks.
fn rename_in_checks(checks: &mut [TableCheck], old: &str, new: &str) {
    for k in checks {
        k.text = crate::checks::rename_column_in(&k.text, old, new);
        if k.column
            .as_ref()
            .is_some_and(|c| c.eq_ignore_ascii_case(old))
        {
            k.column = Some(new.to_string());
        }
    }
}

/// What MODIFY / CHANGE COLUMN asks for.
struct ChangedColumn<'a> {
    table: &'a str,
    old_name: &'a Ident,
    new_name: &'a Ident,
    data_type: &'a DataType,
    options: &'a [ColumnOption],
    position: Option<&'a MySQLColumnPosition>,
    table_collation: Collation,
}

impl Session {
    /// MODIFY / CHANGE COLUMN: the column's new definition (type, NULL,
    /// DEFAULT, collation, name, position); its values are converted when
    /// the rows are written. A column of a key, of AUTO_INCREMENT or with a
    /// column check, and options whose meaning is not kept over existing
    /// rows, are refused (1235).
    fn change_column(
        &self,
        columns: &mut Vec<NewColumn>,
        checks: &mut [TableCheck],
        c: ChangedColumn<'_>,
        keyed: &dyn Fn(usize) -> bool,
    ) -> Result<()> {
        let position = |columns: &[NewColumn], n: &str| {
            columns
                .iter()
                .position(|c| c.field.name().eq_ignore_ascii_case(n))
        };
        let at = position(columns, &c.old_name.value)
            .ok_or_else(|| unknown_column(&c.old_name.value, c.table))?;
        let def = ColumnDef {
            name: c.new_name.clone(),
            data_type: c.data_type.clone(),
            options: c
                .options
                .iter()
                .map(|o| ColumnOptionDef {
                    name: None,
                    option: o.clone(),
                })
                .collect(),
        };
        if let Some(what) = def
            .options
            .iter()
            .find_map(|o| crate::ddl::unkept_column_option(&o.option, true))
        {
            return Err(QuiverError::not_supported(format!(
                "ALTER TABLE MODIFY / CHANGE COLUMN ... {what}"
            )));
        }
        if columns[at].from.is_some_and(keyed) {
            return Err(QuiverError::not_supported(
                "ALTER TABLE MODIFY / CHANGE of a column of a key or AUTO_INCREMENT",
            ));
        }
        let old = columns[at].field.name().clone();
        if checks.iter().any(|k| {
            k.column
                .as_ref()
                .is_some_and(|n| n.eq_ignore_ascii_case(&old))
        }) || crate::checks::is_json(&def)
        {
            return Err(QuiverError::not_supported(
                "ALTER TABLE MODIFY / CHANGE of a column with a column CHECK or to JSON",
            ));
        }
        let field = self.column_field(&def, c.table_collation)?;
        if position(columns, field.name()).is_some_and(|p| p != at) {
            return Err(QuiverError::duplicate_column(field.name()));
        }
        rename_in_checks(checks, &old, field.name());
        let mut moved = columns.remove(at);
        moved.convert = moved.from.is_some();
        moved.field = field;
        let to = match c.position {
            None => at,
            Some(MySQLColumnPosition::First) => 0,
            Some(MySQLColumnPosition::After(a)) => {
                position(columns, &a.value).ok_or_else(|| unknown_column(&a.value, c.table))? + 1
            }
        };
        columns.insert(to, moved);
        Ok(())
    }
}

/// An ENUM / SET column's codes as what they are when the column changes
/// type: numbers for a numeric column (MariaDB's val_int), else their
/// text. Other columns' values as they are.
fn member_values(values: &ArrayRef, old: &Field, new: &Field) -> Result<ArrayRef> {
    let Some(m) = quiver_common::types::member_type(old) else {
        return Ok(values.clone());
    };
    if quiver_common::types::is_numeric(new.data_type())
        && quiver_common::types::member_type(new).is_none()
    {
        return Ok(values.clone());
    }
    let codes = quiver_exec::expr::cast_array(values, &arrow_schema::DataType::UInt64)?;
    Ok(quiver_exec::expr::members::text_of_codes(
        arrow_array::cast::AsArray::as_primitive::<arrow_array::types::UInt64Type>(&codes),
        &m,
    ))
}

/// A column's values stored anew in `field`, with INSERT's conversions and
/// ALTER's messages: a string cut is 1265 "Data truncated" (INSERT's 1406),
/// a NULL in a NOT NULL column 1265 too, and without strict mode the
/// type's zero with that warning.
fn converted(
    values: &ArrayRef,
    field: &Field,
    first_row: usize,
    prefix: &str,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
    let truncated = |row: usize| {
        QuiverError::new(
            1265,
            "01000",
            format!("Data truncated for column '{}' at row {row}", field.name()),
        )
    };
    let stored = store_cast(values, field, first_row, prefix, misfits).map_err(|e| {
        match (e.code, e.message.rsplit_once(" at row ")) {
            (1406, Some((_, row))) => truncated(row.parse().unwrap_or(1)),
            _ => e,
        }
    })?;
    if field.is_nullable() || stored.null_count() == 0 {
        return Ok(stored);
    }
    let first_null = (0..stored.len()).find(|&r| stored.is_null(r)).unwrap_or(0);
    if misfits.is_strict() {
        return Err(truncated(first_row + first_null + 1));
    }
    for r in (0..stored.len()).filter(|&r| stored.is_null(r)) {
        let e = truncated(first_row + r + 1);
        misfits.warn(
            first_row + r,
            quiver_exec::warnings::Condition::new(
                quiver_exec::warnings::Level::Warning,
                e.code,
                e.message,
            ),
        );
    }
    let zeros = crate::store::zero_values(field, stored.len())?.ok_or_else(|| {
        QuiverError::not_supported(format!(
            "ALTER TABLE storing the zero value of column '{}'",
            field.name()
        ))
    })?;
    let valid = arrow_array::BooleanArray::from(
        (0..stored.len())
            .map(|r| stored.is_valid(r))
            .collect::<Vec<_>>(),
    );
    Ok(arrow_select::zip::zip(&valid, &stored, &zeros)?)
}
