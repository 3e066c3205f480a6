//! Statements that change rows: INSERT (VALUES and SELECT), UPDATE, DELETE
//! and TRUNCATE, and the values they store (constants, column defaults). The
//! checks of each stored value are in `store.rs`.
//!
//! Each of them writes the table's rows anew as its next generation, which
//! one atomic switch of the table's manifest publishes (docs/STORAGE.md):
//! a statement's change is all there or not at all, after a crash too.
//! INSERT and UPDATE check the table's keys first (`keys.rs`: a duplicate
//! is 1062 and nothing is written, as a statement of InnoDB is atomic);
//! INSERT numbers the AUTO_INCREMENT column (`auto_increment.rs`).

use std::sync::Arc;

use arrow_array::BooleanArray;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_common::types::COLUMN_DEFAULT_KEY;
use quiver_common::{QuiverError, Result};
use quiver_exec::expr::{cast_array, PhysicalExpr};
use quiver_sql::sqlparser::ast::helpers::attached_token::AttachedToken;
use quiver_sql::sqlparser::ast::{
    CaseWhen, Delete, Expr as SqlExpr, FromTable, Insert, OnInsert, SelectItem, SetExpr, Statement,
    TableFactor, TableObject, TableWithJoins, Truncate, Update,
};
use quiver_sql::{parse_sql, Binder, SqlSource};

use crate::query::Purpose;
use crate::session::first_words;
use crate::store::{store_cast, text_as_bytes, Misfits};
use crate::upsert::OnDuplicate;
use crate::{Session, StatementResult};
use quiver_exec::warnings::{Condition, Level};

impl Session {
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
    pub(crate) fn column_default(&self, f: &Field, rows: usize) -> Result<ArrayRef> {
        let Some(text) = f.metadata().get(COLUMN_DEFAULT_KEY) else {
            if f.is_nullable() {
                return Ok(arrow_array::new_null_array(f.data_type(), rows));
            }
            // A NOT NULL ENUM without DEFAULT takes its first member (MariaDB).
            if let Some(quiver_common::types::MemberType {
                kind: quiver_common::types::MemberKind::Enum,
                ..
            }) = quiver_common::types::member_type(f)
            {
                let one: ArrayRef = Arc::new(arrow_array::UInt64Array::from(vec![1u64; rows]));
                return quiver_exec::expr::cast_array(&one, f.data_type());
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

    pub(crate) fn insert(
        &self,
        ins: &Insert,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<StatementResult> {
        let TableObject::TableName(name) = &ins.table else {
            return Err(QuiverError::not_supported("INSERT into a table function"));
        };
        // A row whose key is taken: an error, or what IGNORE, REPLACE or ON
        // DUPLICATE KEY UPDATE make of it (upsert.rs).
        let assignments = match &ins.on {
            None => None,
            Some(OnInsert::DuplicateKeyUpdate(a)) => Some(a.as_slice()),
            Some(_) => return Err(QuiverError::not_supported(first_words(&ins.to_string()))),
        };
        if ins.ignore && assignments.is_some() {
            return Err(QuiverError::not_supported(
                "INSERT IGNORE ... ON DUPLICATE KEY UPDATE",
            ));
        }
        let (database, name) = self.qualified_name(name)?;
        let table = self.table_to_write(&database, &name)?.ok_or_else(|| {
            match self.db.view_sql_in(&database, &name) {
                // Quiver's views are read-only.
                Some(_) => QuiverError::new(
                    1471,
                    "HY000",
                    format!("The target table {name} of the INSERT is not insertable-into"),
                ),
                None => QuiverError::unknown_table(&format!("{database}.{name}")),
            }
        })?;
        let schema = table.schema();
        // Without keys no row is a duplicate: REPLACE and ON DUPLICATE KEY
        // UPDATE are plain INSERTs there.
        let keyed = schema
            .metadata()
            .contains_key(quiver_common::types::TABLE_KEYS_KEY);
        let on_duplicate = match (keyed, ins.replace_into, ins.ignore, assignments) {
            (false, _, _, _) => None,
            (true, true, _, _) => Some(OnDuplicate::Replace),
            (true, _, true, _) => Some(OnDuplicate::Ignore),
            (true, _, _, Some(a)) => Some(OnDuplicate::Update(a)),
            (true, false, false, None) => None,
        };
        let auto = quiver_common::types::auto_increment_column(
            schema
                .metadata()
                .get(quiver_common::types::TABLE_AUTO_INCREMENT_KEY),
        );
        let table_prefix = self.column_prefix(&database, &name);
        let query = ins
            .source
            .as_ref()
            .ok_or_else(|| QuiverError::not_supported("INSERT without a query"))?;
        let (strict, strict_division) = self.strictness();
        // IGNORE turns what strict mode refuses into warnings.
        let mut misfits = Misfits::new(strict && !ins.ignore);
        // `VALUES ()` (also `() VALUES ()`): rows of defaults, as in MariaDB.
        let value_rows = match query.body.as_ref() {
            SetExpr::Values(v) => v.rows.len(),
            _ => 0,
        };
        let only_defaults = matches!(query.body.as_ref(),
            SetExpr::Values(v) if v.rows.iter().all(|r| r.content.is_empty()));
        // Which table column each query column fills.
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
        let columns: Vec<ArrayRef> = match query.body.as_ref() {
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
                                match auto == Some(targets[c]) {
                                    // Numbered below.
                                    true => arrow_array::new_null_array(
                                        schema.field(targets[c]).data_type(),
                                        1,
                                    ),
                                    false => self.column_default(schema.field(targets[c]), 1)?,
                                }
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
                let (s, batches) = self
                    .prepare(query, source, Purpose::Stored { strict_division })?
                    .collect()?;
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
        let mut rows = columns.first().map_or(value_rows, |c| c.len());
        let old = table.data()?;
        let mut full: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
        let mut numbered = None;
        let mut numberer = None;
        let zero_is_a_value = self.sql_mode_has("NO_AUTO_VALUE_ON_ZERO");
        let listed = matches!(query.body.as_ref(), SetExpr::Values(_));
        for (i, f) in schema.fields().iter().enumerate() {
            let mut a = match targets.iter().position(|t| *t == i) {
                Some(src) => {
                    misfits.at_column(i);
                    store_cast(&columns[src], f, 0, &table_prefix, &mut misfits)?
                }
                None if auto == Some(i) => arrow_array::new_null_array(f.data_type(), rows),
                None => self.column_default(f, rows)?,
            };
            if auto == Some(i) && on_duplicate.is_some() {
                // Numbered row by row as the rows are decided.
                numberer = Some((
                    i,
                    crate::auto_increment::Numberer::new(
                        &table,
                        &old,
                        i,
                        f,
                        zero_is_a_value,
                        listed.then_some(rows),
                    )?,
                ));
                full.push(a);
                continue;
            }
            if auto == Some(i) {
                let n =
                    crate::auto_increment::number(&table, &old, i, f, &a, zero_is_a_value, listed)?;
                a = n.column.clone();
                numbered = Some(n);
            }
            if !f.is_nullable() && a.null_count() > 0 {
                let null = QuiverError::new(
                    1048,
                    "23000",
                    format!("Column '{}' cannot be null", f.name()),
                );
                if !ins.ignore {
                    return Err(null);
                }
                // IGNORE stores the type's implicit default instead, with
                // the error as a warning per row.
                misfits.at_column(i);
                for r in (0..rows).filter(|&r| a.is_null(r)) {
                    misfits.warn(
                        r,
                        Condition::new(Level::Warning, null.code, null.message.clone()),
                    );
                }
                let zeros = crate::store::zero_values(f, rows)?.ok_or_else(|| {
                    QuiverError::not_supported(format!(
                        "INSERT IGNORE storing the zero value of column '{}'",
                        f.name()
                    ))
                })?;
                let valid = arrow_array::BooleanArray::from(
                    (0..rows).map(|r| a.is_valid(r)).collect::<Vec<_>>(),
                );
                a = arrow_select::zip::zip(&valid, &a, &zeros)?;
            }
            full.push(a);
        }
        // CHECK constraints, before the keys (as MariaDB checks a row
        // before writing it): a failing row is error 4025, or with IGNORE
        // the row is skipped with the error as a warning.
        let failing = self.failing_checks(&name, &schema, &full, rows)?;
        let mut kept_rows = None;
        if let Some(first) = failing.iter().flatten().next() {
            let checks = quiver_common::types::checks_of_schema(&schema);
            let db = self.database_name();
            if !ins.ignore {
                return Err(checks[*first].failed(&db, &name));
            }
            let mut keep = Vec::with_capacity(rows);
            for (r, f) in failing.iter().enumerate() {
                match f {
                    Some(i) => {
                        let e = checks[*i].failed(&db, &name);
                        misfits.warn(r, Condition::new(Level::Warning, e.code, e.message));
                    }
                    None => keep.push(r),
                }
            }
            let mask = BooleanArray::from(failing.iter().map(|f| f.is_none()).collect::<Vec<_>>());
            full = full
                .iter()
                .map(|c| Ok(arrow_select::filter::filter(c.as_ref(), &mask)?))
                .collect::<Result<_>>()?;
            if let Some(n) = &mut numbered {
                n.column = full[auto.unwrap_or(0)].clone();
            }
            rows = keep.len();
            kept_rows = Some(keep);
        }
        if let Some(on) = on_duplicate {
            let mark = misfits.mark();
            let updates = matches!(on, OnDuplicate::Update(_));
            let written = self.insert_deciding(
                crate::upsert::NewRows {
                    table: &table,
                    name: &name,
                    schema: &schema,
                    old: &old,
                    columns: full,
                    auto: numberer,
                    from_query: match query.body.as_ref() {
                        SetExpr::Values(_) => None,
                        _ => Some(query.as_ref()),
                    },
                    table_prefix: &table_prefix,
                },
                on,
                &mut misfits,
            )?;
            if let Some(keep) = &kept_rows {
                misfits.renumber_since(mark, keep);
            }
            // ON DUPLICATE KEY UPDATE's updated rows are checked too.
            if let (Some(batches), true) = (&written.batches, updates) {
                self.check_batches(&name, &schema, batches)?;
            }
            misfits.raise(&self.statement_warnings());
            if let Some(batches) = written.batches {
                table.replace(batches)?;
            }
            if let Some(id) = written.first_id {
                self.set_last_insert_id(id);
            }
            return Ok(StatementResult::Done {
                affected: written.affected,
            });
        }
        let duplicate = crate::keys::first_duplicate(&schema, &old, &full)?;
        if let Some(n) = &numbered {
            n.keep(&table, duplicate.as_ref().map(|d| d.0));
        }
        if let Some((_, e)) = duplicate {
            return Err(e);
        }
        misfits.raise(&self.statement_warnings());
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            full,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        let mut all: Vec<RecordBatch> = old.as_ref().clone();
        all.push(batch);
        table.replace(all)?;
        if let Some(id) = numbered.and_then(|n| n.first) {
            self.set_last_insert_id(id);
        }
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

impl Session {
    /// DELETE FROM t [WHERE p]: the rows for which p is not true stay, in
    /// the order the table holds them. A statement that deletes nothing
    /// writes nothing.
    pub(crate) fn delete(&self, del: &Delete) -> Result<StatementResult> {
        if !del.tables.is_empty() || del.using.is_some() {
            return Err(QuiverError::not_supported("multi-table DELETE"));
        }
        if !del.order_by.is_empty() || del.limit.is_some() {
            return Err(QuiverError::not_supported("DELETE ... ORDER BY / LIMIT"));
        }
        if del.returning.is_some() {
            return Err(QuiverError::not_supported("DELETE ... RETURNING"));
        }
        let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) = &del.from;
        let [TableWithJoins {
            relation: TableFactor::Table { name, .. },
            joins,
        }] = from.as_slice()
        else {
            return Err(QuiverError::not_supported("multi-table DELETE"));
        };
        if !joins.is_empty() {
            return Err(QuiverError::not_supported("multi-table DELETE"));
        }
        let (database, name) = self.qualified_name(name)?;
        let table = self.rewritten_table(&database, &name, "DELETE")?;
        let before: usize = table.data()?.iter().map(|b| b.num_rows()).sum();
        let Some(p) = &del.selection else {
            if before > 0 {
                table.replace(Vec::new())?;
            }
            return Ok(StatementResult::Done {
                affected: before as u64,
            });
        };
        // The rows that stay: SELECT * FROM <the same FROM> WHERE (p) IS NOT TRUE.
        let Some(Statement::Query(mut kept)) = parse_sql("SELECT * FROM t")?.pop() else {
            return Err(QuiverError::internal("SELECT did not parse as a query"));
        };
        let SetExpr::Select(select) = kept.body.as_mut() else {
            return Err(QuiverError::internal("SELECT did not parse as a select"));
        };
        select.from = from.clone();
        select.selection = Some(SqlExpr::IsNotTrue(Box::new(SqlExpr::Nested(Box::new(
            p.clone(),
        )))));
        let (s, batches) = self
            .prepare(
                &kept,
                None,
                Purpose::Stored {
                    strict_division: false,
                },
            )?
            .in_one_partition()
            .collect()?;
        let after: usize = batches.iter().map(|b| b.num_rows()).sum();
        if after < before {
            let schema = table.schema();
            let batches = batches
                .iter()
                .map(|b| as_table_batch(b, &s, &schema))
                .collect::<Result<Vec<_>>>()?;
            table.replace(batches)?;
        }
        Ok(StatementResult::Done {
            affected: (before - after) as u64,
        })
    }

    /// TRUNCATE [TABLE] t: every row goes; 0 rows affected, as MySQL says.
    pub(crate) fn truncate(&self, t: &Truncate) -> Result<StatementResult> {
        if t.partitions.is_some() {
            return Err(QuiverError::not_supported("TRUNCATE ... PARTITION"));
        }
        for target in &t.table_names {
            let (database, name) = self.qualified_name(&target.name)?;
            // A view is no table to empty (MariaDB: 1146).
            let table = self
                .db
                .table_in(&database, &name)
                .ok_or_else(|| QuiverError::unknown_table(&format!("{database}.{name}")))?;
            // AUTO_INCREMENT starts again at 1, as InnoDB's TRUNCATE does.
            table.set_auto_increment(0);
            table.replace(Vec::new())?;
        }
        Ok(StatementResult::Done { affected: 0 })
    }

    /// How error 1366 names a column of table `name`: `` `db`.`name`. ``.
    pub(crate) fn column_prefix(&self, database: &str, name: &str) -> String {
        format!("`{database}`.`{name}`.")
    }

    /// The table `name` that `statement` writes anew: 1146 when there is
    /// none; a view is refused (Quiver's views are read-only).
    fn rewritten_table(
        &self,
        database: &str,
        name: &str,
        statement: &str,
    ) -> Result<Arc<crate::Table>> {
        self.table_to_write(database, name)?.ok_or_else(|| {
            match self.db.view_sql_in(database, name) {
                Some(_) => QuiverError::not_supported(format!("{statement} through a view")),
                None => QuiverError::unknown_table(&format!("{database}.{name}")),
            }
        })
    }
}

/// A batch of a `SELECT *` over a table (`from`) as the table stores it.
fn as_table_batch(b: &RecordBatch, from: &SchemaRef, schema: &SchemaRef) -> Result<RecordBatch> {
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        as_table_columns(b.columns(), from, schema)?,
        &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
    )?)
}

/// The columns of a `SELECT *` over a table (`from`) in the table's types:
/// latin1 / ascii text headed for a binary column as its bytes, the rest
/// cast where the query's type differs.
fn as_table_columns(
    columns: &[ArrayRef],
    from: &SchemaRef,
    schema: &SchemaRef,
) -> Result<Vec<ArrayRef>> {
    columns
        .iter()
        .zip(from.fields())
        .zip(schema.fields())
        .map(|((c, from), to)| {
            let c = text_as_bytes(c, from, to);
            match c.data_type() == to.data_type() {
                true => Ok(c),
                // ENUM / SET text back to the codes it was read from.
                false if quiver_common::types::member_type(to).is_some() => {
                    store_cast(&c, to, 0, "", &mut Misfits::new(false))
                }
                false => cast_array(&c, to.data_type()),
            }
        })
        .collect()
}

impl Session {
    /// UPDATE t SET c = e, ... [WHERE p]: the rows for which p is true
    /// take the new values, stored with INSERT's checks; affected rows are
    /// those whose stored values changed, as MySQL counts them. A statement
    /// that changes nothing writes nothing.
    pub(crate) fn update(&self, upd: &Update) -> Result<StatementResult> {
        if upd.from.is_some() || !upd.table.joins.is_empty() {
            return Err(QuiverError::not_supported("multi-table UPDATE"));
        }
        if !upd.order_by.is_empty() || upd.limit.is_some() {
            return Err(QuiverError::not_supported("UPDATE ... ORDER BY / LIMIT"));
        }
        if upd.returning.is_some() || upd.or.is_some() {
            return Err(QuiverError::not_supported(first_words(&upd.to_string())));
        }
        let TableFactor::Table { name, .. } = &upd.table.relation else {
            return Err(QuiverError::not_supported("UPDATE of a derived table"));
        };
        let (database, name) = self.qualified_name(name)?;
        let table = self.rewritten_table(&database, &name, "UPDATE")?;
        let schema = table.schema();
        let targets =
            crate::assignments::assignment_targets(&schema, &upd.assignments, "field list")?;
        // Every column as it is, each new value where p holds (NULL
        // elsewhere: a value is computed for matched rows only), and p.
        let matched = SqlExpr::IsTrue(Box::new(SqlExpr::Nested(Box::new(
            upd.selection.clone().unwrap_or(SqlExpr::Value(
                quiver_sql::sqlparser::ast::Value::Boolean(true).into(),
            )),
        ))));
        let Some(Statement::Query(mut q)) = parse_sql("SELECT * FROM t")?.pop() else {
            return Err(QuiverError::internal("SELECT did not parse as a query"));
        };
        let SetExpr::Select(select) = q.body.as_mut() else {
            return Err(QuiverError::internal("SELECT did not parse as a select"));
        };
        select.from = vec![upd.table.clone()];
        // `SELECT *`, then each new value and the condition.
        for a in &upd.assignments {
            select
                .projection
                .push(SelectItem::UnnamedExpr(SqlExpr::Case {
                    case_token: AttachedToken::empty(),
                    end_token: AttachedToken::empty(),
                    operand: None,
                    conditions: vec![CaseWhen {
                        condition: matched.clone(),
                        result: a.value.clone(),
                    }],
                    else_result: None,
                }));
        }
        select.projection.push(SelectItem::UnnamedExpr(matched));
        let (strict, strict_division) = self.strictness();
        let (s, batches) = self
            .prepare(&q, None, Purpose::Stored { strict_division })?
            .in_one_partition()
            .collect()?;
        let all = arrow_select::concat::concat_batches(&s, &batches)?;
        let n = schema.fields().len();
        let rows = all.num_rows();
        let Some(hit) = all
            .column(n + targets.len())
            .as_any()
            .downcast_ref::<BooleanArray>()
            .cloned()
        else {
            return Err(QuiverError::internal(
                "UPDATE's condition is not a truth value",
            ));
        };
        // `IS TRUE` is never NULL; were it, NULL would not match.
        let hit = match hit.null_count() {
            0 => hit,
            _ => arrow_select::filter::prep_null_mask_filter(&hit),
        };
        let table_prefix = self.column_prefix(&database, &name);
        let mut misfits = Misfits::new(strict);
        let mut columns = as_table_columns(&all.columns()[..n], &s, &schema)?;
        let before = columns.clone();
        let mut changed = vec![false; rows];
        for (k, &t) in targets.iter().enumerate() {
            let f = schema.field(t);
            misfits.at_column(t);
            let new = store_cast(all.column(n + k), f, 0, &table_prefix, &mut misfits)?;
            if !f.is_nullable() && (0..rows).any(|r| hit.value(r) && new.is_null(r)) {
                return Err(QuiverError::new(
                    1048,
                    "23000",
                    format!("Column '{}' cannot be null", f.name()),
                ));
            }
            let old = &columns[t];
            let converter = RowConverter::new(vec![SortField::new(f.data_type().clone())])?;
            let (new_rows, old_rows) = (
                converter.convert_columns(std::slice::from_ref(&new))?,
                converter.convert_columns(std::slice::from_ref(old))?,
            );
            for (r, c) in changed.iter_mut().enumerate() {
                *c |= hit.value(r) && new_rows.row(r) != old_rows.row(r);
            }
            columns[t] = arrow_select::zip::zip(&hit, &new, old)?;
        }
        if changed.iter().any(|c| *c) {
            self.check_rows(&name, &schema, &columns, Some(&changed))?;
        }
        crate::keys::check_update(&schema, &before, &columns, &changed)?;
        misfits.raise(&self.statement_warnings());
        let affected = changed.iter().filter(|c| **c).count();
        if affected > 0 {
            let batch = RecordBatch::try_new_with_options(
                schema.clone(),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )?;
            table.replace(vec![batch])?;
        }
        Ok(StatementResult::Done {
            affected: affected as u64,
        })
    }
}
