//! Statements that change the catalog: CREATE / ALTER / DROP of databases,
//! tables and views.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_collation::Collation;
use quiver_common::types::{
    is_numeric, IntType, COLUMN_COLLATION_KEY, COLUMN_DEFAULT_KEY, COLUMN_DISPLAY_LENGTH_KEY,
    COLUMN_NOT_NULL_KEY, COLUMN_NO_DEFAULT_KEY, COLUMN_ORIGIN_KEY, COLUMN_TYPE_KEY,
};
use quiver_common::{QuiverError, Result};
use quiver_exec::expr::cast_array;
use quiver_sql::sqlparser::ast::{
    ColumnDef, ColumnOption, CreateTable, CreateTableLikeKind, CreateView, Expr as SqlExpr,
    ObjectName, ObjectType,
};
use quiver_sql::{column_charset_default, column_collation_by_name, sql_type, SqlSource};

use crate::catalog::INFORMATION_SCHEMA;
use crate::query::Purpose;
use crate::session::object_name;
use crate::store::{store_cast, Misfits};
use crate::{Session, StatementResult};

impl Session {
    /// DROP TABLE / VIEW (any number of them), or DROP DATABASE.
    pub(crate) fn drop(
        &self,
        object_type: &ObjectType,
        names: &[ObjectName],
        if_exists: bool,
    ) -> Result<StatementResult> {
        if matches!(object_type, ObjectType::Database | ObjectType::Schema) {
            return self.drop_database(names, if_exists);
        }
        let mut missing = Vec::new();
        for n in names {
            let (database, name) = self.qualified_name(n)?;
            let dropped = match object_type {
                ObjectType::Table => self.db.drop_table_in(&database, &name, if_exists)?,
                ObjectType::View => self.db.drop_view_in(&database, &name, if_exists)?,
                other => return Err(QuiverError::not_supported(format!("DROP {other}"))),
            };
            if !dropped {
                missing.push(format!("{database}.{name}"));
            }
        }
        // IF EXISTS: one note names them all, as MySQL's does (also
        // for views: 1051 as MySQL, where MariaDB has 4092).
        if !missing.is_empty() {
            self.note(1051, format!("Unknown table '{}'", missing.join(",")));
        }
        Ok(StatementResult::Done { affected: 0 })
    }

    /// CREATE [OR REPLACE] VIEW, its query parsed from `source`.
    pub(crate) fn create_view(
        &self,
        view: &CreateView,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<StatementResult> {
        let CreateView {
            name,
            query,
            or_replace,
            columns,
            ..
        } = view;
        let (database, name) = self.qualified_name(name)?;
        let mut names: Vec<_> = columns.iter().map(|c| c.name.clone()).collect();
        let plan = self.prepare(query, source, Purpose::Plan)?;
        let schema = plan.plan().schema();
        if names.is_empty() {
            // The view keeps the names its items have here, taken from
            // this text (`(1/3)*3`), not from the stored, reprinted query.
            names = schema
                .iter()
                .map(|f| sqlparser::ast::Ident::with_quote('`', f.name.clone()))
                .collect();
        } else if schema.len() != names.len() {
            return Err(QuiverError::new(1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts"));
        }
        let query = quiver_sql::view_query_with_columns(&name, query.as_ref().clone(), &names);
        // Bind once so a broken view is refused when created.
        self.prepare(&query, source, Purpose::Plan)?;
        // A view's unqualified names are read in its own database when it
        // is used; MariaDB reads them in the creator's. Where the two
        // differ, a view naming a table without its database is refused
        // (bound with no database selected, such a name is 1046).
        if !self.schema_for(None)?.eq_ignore_ascii_case(&database) {
            let current = self.current_database();
            self.set_current_database(None);
            let unqualified = self.prepare(&query, source, Purpose::Plan).err();
            match current {
                Some(d) => self.set_current_database(Some(d)),
                None => {
                    self.set_current_database(None);
                    self.no_database
                        .store(false, std::sync::atomic::Ordering::Relaxed);
                }
            }
            if unqualified.is_some_and(|e| e.code == 1046) {
                return Err(QuiverError::not_supported(
                    "a view in another database than the current one naming a table without its database",
                ));
            }
        }
        self.db
            .create_view_in(&database, &name, &query.to_string(), *or_replace)?;
        Ok(StatementResult::Done { affected: 0 })
    }

    /// CREATE DATABASE / SCHEMA [IF NOT EXISTS] name [CHARACTER SET cs]
    /// [COLLATE c]: 1007 when it exists (a note with IF NOT EXISTS). Its
    /// tables take its collation when they name none.
    pub(crate) fn create_database(
        &self,
        name: &ObjectName,
        if_not_exists: bool,
        charset: Option<&str>,
        collate: Option<&str>,
    ) -> Result<StatementResult> {
        let name = object_name(name)?;
        if name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
            return Err(self.access_denied(&name));
        }
        let charset = charset.map(column_charset_default).transpose()?;
        let mut collation = None;
        if let Some(c) = collate {
            add_collate(&mut collation, column_collation_by_name(c)?)?;
        }
        let c =
            declared_collation(charset, collation)?.unwrap_or_else(|| self.db.default_collation());
        if !self.db.create_schema(&name, c, if_not_exists)? {
            self.note(
                1007,
                format!("Can't create database '{name}'; database exists"),
            );
            return Ok(StatementResult::Done { affected: 0 });
        }
        Ok(StatementResult::Done { affected: 1 })
    }

    /// `ALTER DATABASE [name] [DEFAULT] CHARACTER SET cs | COLLATE c ...`:
    /// the collation of the tables created after it that name none (kept in
    /// the folder), and this session's `@@collation_database`.
    pub(crate) fn alter_database(
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
        let name = self
            .db
            .schema_name(&name)
            .ok_or_else(|| crate::catalog::unknown_database(&name))?;
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
        self.db.set_schema_collation(&name, c)?;
        if self
            .schema_for(None)
            .is_ok_and(|d| d.eq_ignore_ascii_case(&name))
        {
            self.vars
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .collation_database = c;
        }
        Ok(StatementResult::Done { affected: 1 })
    }

    /// DROP DATABASE with its tables: 1008 when there is none (a note with
    /// IF EXISTS); the affected rows are its tables and views, as MariaDB's.
    /// Dropping the current database leaves the session without one.
    fn drop_database(&self, names: &[ObjectName], if_exists: bool) -> Result<StatementResult> {
        let [name] = names else {
            return Err(QuiverError::syntax_msg("DROP DATABASE names one database"));
        };
        let name = object_name(name)?;
        if name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
            return Err(self.access_denied(&name));
        }
        let Some(tables) = self.db.drop_schema(&name, if_exists)? else {
            self.note(
                1008,
                format!("Can't drop database '{name}'; database doesn't exist"),
            );
            return Ok(StatementResult::Done { affected: 0 });
        };
        if self
            .current_database()
            .is_some_and(|d| d.eq_ignore_ascii_case(&name))
        {
            self.set_current_database(None);
        }
        Ok(StatementResult::Done {
            affected: tables as u64,
        })
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

    pub(crate) fn create_table(
        &self,
        ct: &CreateTable,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<StatementResult> {
        let (database, name) = self.qualified_name(&ct.name)?;
        let database = self
            .db
            .schema_name(&database)
            .ok_or_else(|| crate::catalog::unknown_database(&database))?;
        refuse_unkept_meanings(ct, ct.query.is_some())?;
        if let Some(q) = &ct.query {
            if ct.if_not_exists && self.db.table_in(&database, &name).is_some() {
                self.note(1050, format!("Table '{name}' already exists"));
                return Ok(StatementResult::Done { affected: 0 });
            }
            let (_, strict_division) = self.strictness();
            let (schema, batches) = self
                .prepare(q, source, Purpose::Stored { strict_division })?
                .collect()?;
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
                        meta.remove(quiver_common::types::COLUMN_DECIMALS_KEY);
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
                        // An ENUM / SET read unchanged (or its MIN / MAX)
                        // stays one: stored as its codes.
                        let members = meta
                            .get(COLUMN_TYPE_KEY)
                            .and_then(|c| quiver_common::types::MemberType::parse(c));
                        if let Some(m) = members.filter(|_| t == DataType::Utf8) {
                            t = m.code_type();
                        }
                        // A YEAR read unchanged (or its MIN / MAX) stays one.
                        if quiver_common::types::is_year(f) && t.is_integer() {
                            t = DataType::Int16;
                        } else if quiver_common::types::is_year(f) {
                            meta.remove(COLUMN_TYPE_KEY);
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
                            // Member text back to its codes ('' is 0); YEAR
                            // values by YEAR's rules.
                            false
                                if quiver_common::types::member_type(f).is_some()
                                    || quiver_common::types::is_year(f) =>
                            {
                                store_cast(c, f, 0, "", &mut Misfits::new(false))
                            }
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
                .create_table_in(&database, &name, schema, batches, ct.if_not_exists, 0)?
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
            let (from_db, source) = self.qualified_name(&like.name)?;
            let schema = self
                .db
                .table_in(&from_db, &source)
                .ok_or_else(|| QuiverError::unknown_table(&format!("{from_db}.{source}")))?
                .schema();
            if !self.db.create_table_in(
                &database,
                &name,
                schema,
                Vec::new(),
                ct.if_not_exists,
                0,
            )? {
                self.note(1050, format!("Table '{name}' already exists"));
            }
            return Ok(StatementResult::Done { affected: 0 });
        }
        // The table's database's default, as MariaDB takes it (the current
        // database's may have been SET for the session).
        let database_collation = match self.current_database() {
            Some(d) if d.eq_ignore_ascii_case(&database) => self.vars().collation_database,
            None if database.eq_ignore_ascii_case(crate::SCHEMA_NAME) => {
                self.vars().collation_database
            }
            _ => self
                .db
                .schema_collation(&database)
                .unwrap_or(self.vars().collation_database),
        };
        let table_collation = table_default_collation(ct, database_collation)?;
        let mut fields = Vec::with_capacity(ct.columns.len());
        for c in &ct.columns {
            fields.push(self.column_field(c, table_collation)?);
        }
        check_unique_names(&Arc::new(Schema::new(fields.clone())))?;
        let mut table_meta = crate::keys_ddl::table_keys(ct, &mut fields)?;
        let checks = crate::checks::declared_checks(&ct.columns, &ct.constraints)?;
        quiver_common::types::set_checks(&mut table_meta, &checks);
        table_meta.insert(
            quiver_common::types::TABLE_COLLATION_KEY.to_string(),
            table_collation.name().to_string(),
        );
        let start = crate::keys_ddl::auto_increment_option(ct)?;
        let schema = Arc::new(Schema::new(fields).with_metadata(table_meta));
        self.bind_checks(&name, &schema)?;
        if !self
            .db
            .create_table_in(&database, &name, schema, vec![], ct.if_not_exists, start)?
        {
            self.note(1050, format!("Table '{name}' already exists"));
        }
        Ok(StatementResult::Done { affected: 0 })
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
    // An ENUM / SET default is its member text.
    if let Some(m) = quiver_common::types::member_type(field) {
        let codes = quiver_exec::expr::cast_array(stored, &DataType::UInt64)?;
        let text = quiver_exec::expr::members::text_of_codes(
            arrow_array::cast::AsArray::as_primitive::<arrow_array::types::UInt64Type>(&codes),
            &m,
        );
        let text = arrow_array::cast::AsArray::as_string::<i32>(&text);
        return Ok(match text.is_null(0) {
            true => "NULL".to_string(),
            false => format!(
                "'{}'",
                text.value(0).replace('\\', "\\\\").replace('\'', "''")
            ),
        });
    }
    // A YEAR default is four digits (0000), as MariaDB shows it.
    if quiver_common::types::is_year(field) {
        let wide = quiver_exec::expr::cast_array(stored, &DataType::Int64)?;
        let wide = arrow_array::cast::AsArray::as_primitive::<arrow_array::types::Int64Type>(&wide);
        return Ok(match wide.is_null(0) {
            true => "NULL".to_string(),
            false => quiver_common::types::year_text(wide.value(0)),
        });
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

/// What a column option names when Quiver would not keep its meaning:
/// CHECK, REFERENCES, hidden and generated columns always, and keys and
/// AUTO_INCREMENT where existing rows would have to be checked or
/// numbered (`with_rows`: CREATE TABLE ... AS SELECT, ALTER TABLE ADD).
pub(crate) fn unkept_column_option(o: &ColumnOption, with_rows: bool) -> Option<&'static str> {
    use quiver_sql::sqlparser::tokenizer::Token;
    Some(match o {
        ColumnOption::PrimaryKey(_) if with_rows => "PRIMARY KEY",
        ColumnOption::Unique(_) if with_rows => "UNIQUE",
        ColumnOption::ForeignKey(_) => "REFERENCES",
        ColumnOption::Check(_) if with_rows => "CHECK",
        ColumnOption::Identity(_) => "AUTO_INCREMENT",
        ColumnOption::DialectSpecific(tokens)
            if with_rows
                && tokens.iter().any(|t| {
                    matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT"))
                }) =>
        {
            "AUTO_INCREMENT"
        }
        ColumnOption::Invisible => "INVISIBLE",
        ColumnOption::Generated { .. } => "generated columns",
        _ => return None,
    })
}

/// The parts of a CREATE TABLE whose meaning Quiver does not keep yet:
/// CHECK constraints it would not check, foreign keys, hidden and generated
/// columns, a TEMPORARY table it would keep for everyone, and keys and
/// AUTO_INCREMENT in CREATE TABLE ... AS SELECT (`with_query`), whose rows
/// they would have to check. Refused (1235) until they are real. Keys and
/// AUTO_INCREMENT of a plain CREATE TABLE are kept
/// (`crate::keys_ddl::table_keys`); plain indexes (KEY, INDEX) only speed
/// MySQL up and are accepted.
fn refuse_unkept_meanings(ct: &CreateTable, with_query: bool) -> Result<()> {
    use quiver_sql::sqlparser::ast::TableConstraint;
    if ct.temporary {
        return Err(QuiverError::not_supported("CREATE TEMPORARY TABLE"));
    }
    for c in &ct.columns {
        if let Some(what) = c
            .options
            .iter()
            .find_map(|o| unkept_column_option(&o.option, with_query))
        {
            return Err(QuiverError::not_supported(what));
        }
    }
    for c in &ct.constraints {
        let what = match c {
            TableConstraint::PrimaryKey(_) if with_query => "PRIMARY KEY",
            TableConstraint::Unique(_) if with_query => "UNIQUE",
            TableConstraint::ForeignKey(_) => "FOREIGN KEY",
            TableConstraint::Check(_) if with_query => "CHECK",
            _ => continue,
        };
        return Err(QuiverError::not_supported(what));
    }
    Ok(())
}

impl Session {
    /// The stored field of a column definition of CREATE TABLE (or ALTER
    /// TABLE ADD COLUMN) in a table whose default collation is
    /// `table_collation`: its type, collation, nullability and DEFAULT
    /// (checked now, so that a bad DEFAULT is refused when declared).
    pub(crate) fn column_field(&self, c: &ColumnDef, table_collation: Collation) -> Result<Field> {
        let n = &c.name.value;
        if n.is_empty() || n.ends_with(' ') {
            return Err(QuiverError::new(
                1166,
                "42000",
                format!("Incorrect column name '{n}'"),
            ));
        }
        quiver_sql::check_fsp(&c.data_type, n)?;
        // JSON is MariaDB's alias of LONGTEXT COLLATE utf8mb4_bin (its
        // check, json_valid, is made with the table's checks).
        let json = crate::checks::is_json(c);
        let mut t = match json {
            true => DataType::Utf8,
            false => sql_type(&c.data_type)?,
        };
        let not_null = c.options.iter().any(|o| {
            matches!(o.option, ColumnOption::NotNull)
                || matches!(o.option, ColumnOption::PrimaryKey(_))
        });
        let mut meta = std::collections::HashMap::new();
        if let Some(text) = quiver_sql::column_type_text(&c.data_type) {
            meta.insert(COLUMN_TYPE_KEY.to_string(), text);
        }
        if json {
            if c.options
                .iter()
                .any(|o| matches!(o.option, ColumnOption::CharacterSet(_)))
            {
                return Err(QuiverError::syntax_msg("JSON ... CHARACTER SET"));
            }
            meta.insert(COLUMN_TYPE_KEY.to_string(), "longtext".to_string());
        }
        if let Some(m) = quiver_sql::member_type(&c.data_type)? {
            // Members are matched under the column's collation: two equal
            // under it are one (MariaDB's 1291).
            let coll = column_collation(c, table_collation)?;
            for (k, a) in m.members.iter().enumerate() {
                if let Some(b) = m.members[..k]
                    .iter()
                    .find(|b| coll.eq(b.as_bytes(), a.as_bytes()))
                {
                    let what = match m.kind {
                        quiver_common::types::MemberKind::Enum => "ENUM",
                        quiver_common::types::MemberKind::Set => "SET",
                    };
                    return Err(QuiverError::new(
                        1291,
                        "HY000",
                        format!("Column '{n}' has duplicated value '{b}' in {what}"),
                    ));
                }
            }
            meta.insert(COLUMN_COLLATION_KEY.to_string(), coll.name().to_string());
        }
        if t == DataType::Utf8 {
            let default = match json {
                true => Collation::utf8mb4_bin(),
                false => table_collation,
            };
            let coll = column_collation(c, default)?;
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
            // An ENUM / SET default names members: a number is refused.
            if quiver_common::types::member_type(&field).is_some() && is_numeric(value.data_type())
            {
                return Err(QuiverError::new(
                    1067,
                    "42000",
                    format!("Invalid default value for '{}'", c.name.value),
                ));
            }
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
        Ok(field)
    }
}
