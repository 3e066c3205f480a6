//! `information_schema`: SCHEMATA, TABLES, COLUMNS, COLLATIONS,
//! CHARACTER_SETS and PROCESSLIST as tables built from the catalog when a query names them,
//! and the catalog the binder sees in a session (the database's tables, these
//! views, and tables a SHOW statement filters).
//!
//! The binder looks tables up by their last name part, so before binding a
//! query `information_schema.X` is renamed to the one-part name
//! `information_schema.X`, which no user table can have (the dot).

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use quiver_collation::Collation;
use quiver_common::types::{
    CharLength, IntKind, IntType, COLUMN_COLLATION_KEY, COLUMN_DEFAULT_KEY, COLUMN_TYPE_KEY,
};
use quiver_common::{QuiverError, Result};
use quiver_plan::TableSource;
use quiver_sql::sqlparser::ast::{
    Expr as SqlExpr, Ident, ObjectName, ObjectNamePart, Query, SelectItem, SetExpr, TableFactor,
};
use quiver_sql::SqlSource;

use crate::catalog::{INFORMATION_SCHEMA, SCHEMA_NAME};
use crate::Session;

/// A metadata column's type, values and field metadata: text compares and
/// sorts as MySQL's metadata does, case-insensitively.
fn column_array(
    c: Column,
) -> (
    DataType,
    ArrayRef,
    std::collections::HashMap<String, String>,
) {
    let mut meta = std::collections::HashMap::new();
    let (t, a): (DataType, ArrayRef) = match c {
        Column::Text(v) => {
            meta.insert(
                COLUMN_COLLATION_KEY.to_string(),
                "utf8mb4_general_ci".to_string(),
            );
            (DataType::Utf8, Arc::new(StringArray::from(v)))
        }
        Column::Number(v) => (DataType::UInt64, Arc::new(UInt64Array::from(v))),
        Column::Int(v) => (DataType::Int32, Arc::new(Int32Array::from(v))),
        Column::DateTime(v) => (
            DataType::Timestamp(TimeUnit::Microsecond, None),
            Arc::new(TimestampMicrosecondArray::from(v)),
        ),
    };
    (t, a, meta)
}

/// A table held in memory for one statement.
#[derive(Debug)]
pub struct MemTable {
    pub(crate) name: String,
    schema: SchemaRef,
    batches: Arc<Vec<RecordBatch>>,
}

impl MemTable {
    /// Columns of strings (None is NULL) or unsigned numbers.
    pub fn new(name: &str, columns: Vec<(&str, Column)>) -> Result<Arc<MemTable>> {
        let (fields, arrays) = columns
            .into_iter()
            .map(|(n, c)| {
                let (t, a, meta) = column_array(c);
                (Field::new(n, t, true).with_metadata(meta), a)
            })
            .unzip();
        MemTable::of(name, fields, arrays)
    }

    /// The rows of `batch`, columns as its schema declares them.
    pub(crate) fn of_batch(name: &str, batch: RecordBatch) -> Arc<MemTable> {
        Arc::new(MemTable {
            name: name.to_string(),
            schema: batch.schema(),
            batches: Arc::new(vec![batch]),
        })
    }

    fn of(name: &str, fields: Vec<Field>, arrays: Vec<ArrayRef>) -> Result<Arc<MemTable>> {
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new(schema.clone(), arrays)?;
        Ok(Arc::new(MemTable {
            name: name.to_string(),
            schema,
            batches: Arc::new(vec![batch]),
        }))
    }

    /// Columns with MariaDB's declared types (text, unsigned numbers or
    /// datetimes).
    pub fn typed(name: &str, columns: Vec<Typed>) -> Result<Arc<MemTable>> {
        let (fields, arrays) = columns
            .into_iter()
            .map(|c| {
                let (t, a, mut meta) = column_array(c.values);
                meta.insert(COLUMN_TYPE_KEY.to_string(), c.column_type.to_string());
                (Field::new(c.name, t, !c.not_null).with_metadata(meta), a)
            })
            .unzip();
        MemTable::of(name, fields, arrays)
    }

    pub fn batches_now(&self) -> Arc<Vec<RecordBatch>> {
        self.batches.clone()
    }
}

pub enum Column {
    Text(Vec<Option<String>>),
    Number(Vec<Option<u64>>),
    Int(Vec<Option<i32>>),
    /// DATETIME values, microseconds since 1970-01-01 00:00:00.
    DateTime(Vec<Option<i64>>),
}

/// A column of an information_schema table as MariaDB declares it: its
/// type (`varchar(64)`, `bigint(21) unsigned`, `datetime`), which sets what
/// a client is told of it, and whether it is NOT NULL.
pub struct Typed {
    pub name: &'static str,
    pub column_type: &'static str,
    pub not_null: bool,
    pub values: Column,
}

impl TableSource for MemTable {
    fn name(&self) -> &str {
        &self.name
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn row_count(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
    fn distinct_estimate(&self, _column: usize) -> Option<usize> {
        None
    }
    fn batches(&self) -> Result<Arc<Vec<RecordBatch>>> {
        Ok(self.batches.clone())
    }
}

fn text<I: IntoIterator<Item = S>, S: Into<String>>(v: I) -> Column {
    Column::Text(v.into_iter().map(|s| Some(s.into())).collect())
}

/// How information_schema's tables are named once a query is renamed.
pub(crate) const PREFIX: &str = "information_schema.";

const VIEWS: [&str; 8] = [
    "CHECK_CONSTRAINTS",
    "TABLE_CONSTRAINTS",
    "SCHEMATA",
    "TABLES",
    "COLUMNS",
    "COLLATIONS",
    "CHARACTER_SETS",
    "PROCESSLIST",
];

/// Builds one information_schema view now.
pub(crate) fn info_table(
    session: &Session,
    source: Option<&Arc<SqlSource>>,
    view: &str,
) -> Result<Arc<MemTable>> {
    let name = format!("{PREFIX}{}", view.to_ascii_uppercase());
    match view.to_ascii_uppercase().as_str() {
        "SCHEMATA" => {
            // information_schema, then each database with its default
            // collation (the current one's as the session has it).
            let db = session.database();
            let mut schemas = vec![(
                INFORMATION_SCHEMA.to_string(),
                Collation::from_name("utf8mb3_general_ci").expect("a built-in collation"),
            )];
            for d in db.schema_names() {
                let c = match session.current_database() {
                    Some(cur) if cur.eq_ignore_ascii_case(&d) => db_collation(session),
                    None if d == SCHEMA_NAME => db_collation(session),
                    _ => db
                        .schema_collation(&d)
                        .unwrap_or_else(quiver_plan::default_collation),
                };
                schemas.push((d, c));
            }
            let n = schemas.len();
            MemTable::new(
                &name,
                vec![
                    ("CATALOG_NAME", text(vec!["def"; n])),
                    ("SCHEMA_NAME", text(schemas.iter().map(|s| s.0.clone()))),
                    (
                        "DEFAULT_CHARACTER_SET_NAME",
                        text(schemas.iter().map(|s| s.1.charset().name())),
                    ),
                    (
                        "DEFAULT_COLLATION_NAME",
                        text(schemas.iter().map(|s| s.1.name())),
                    ),
                    ("SQL_PATH", Column::Text(vec![None; n])),
                ],
            )
        }
        "TABLES" => tables(session, &name),
        "PROCESSLIST" => processlist(session, source, &name, PROCESSLIST_COLUMNS, None),
        "COLUMNS" => columns(session, &name),
        "CHECK_CONSTRAINTS" => check_constraints(session, &name),
        "TABLE_CONSTRAINTS" => table_constraints(session, &name),
        "COLLATIONS" => {
            let all: Vec<Collation> = Collation::all().collect();
            MemTable::new(
                &name,
                vec![
                    ("COLLATION_NAME", text(all.iter().map(|c| c.name()))),
                    (
                        "CHARACTER_SET_NAME",
                        text(all.iter().map(|c| c.charset().name())),
                    ),
                    (
                        "ID",
                        Column::Number(all.iter().map(|c| Some(c.id() as u64)).collect()),
                    ),
                    (
                        "IS_DEFAULT",
                        text(all.iter().map(|c| if c.is_default() { "Yes" } else { "" })),
                    ),
                    ("IS_COMPILED", text(all.iter().map(|_| "Yes"))),
                    (
                        "SORTLEN",
                        Column::Number(all.iter().map(|_| Some(1)).collect()),
                    ),
                ],
            )
        }
        "CHARACTER_SETS" => {
            let sets: Vec<Collation> = Collation::all().filter(|c| c.is_default()).collect();
            MemTable::new(
                &name,
                vec![
                    (
                        "CHARACTER_SET_NAME",
                        text(sets.iter().map(|c| c.charset().name())),
                    ),
                    ("DEFAULT_COLLATE_NAME", text(sets.iter().map(|c| c.name()))),
                    (
                        "DESCRIPTION",
                        text(sets.iter().map(|c| charset_description(c.charset().name()))),
                    ),
                    (
                        "MAXLEN",
                        Column::Number(
                            sets.iter()
                                .map(|c| Some(c.charset().max_char_len() as u64))
                                .collect(),
                        ),
                    ),
                ],
            )
        }
        _ => Err(unknown_view(view)),
    }
}

/// information_schema.PROCESSLIST's columns, as MySQL names them.
const PROCESSLIST_COLUMNS: [&str; 8] = [
    "ID", "USER", "HOST", "DB", "COMMAND", "TIME", "STATE", "INFO",
];

/// The connections (a server's, else this session alone), by id, with the
/// given column names; `info_chars` cuts the statement text (SHOW
/// PROCESSLIST without FULL shows 100 characters).
pub(crate) fn processlist(
    session: &Session,
    source: Option<&Arc<SqlSource>>,
    name: &str,
    names: [&str; 8],
    info_chars: Option<usize>,
) -> Result<Arc<MemTable>> {
    let me = session.process();
    let procs = match session.process_list() {
        Some(list) => list.all(),
        None => vec![me.clone()],
    };
    let mut rows: Vec<_> = procs.iter().map(|p| p.row()).collect();
    for r in rows.iter_mut() {
        // A session of its own marks no commands: it is running this one.
        if r.id == me.id && r.command == "Sleep" {
            r.command = "Query";
            r.state = "executing";
            r.info = source.map(|s| Arc::from(s.text().trim()));
        }
    }
    let info = |i: &Option<Arc<str>>| {
        i.as_ref().map(|t| match info_chars {
            Some(n) => t.chars().take(n).collect(),
            None => t.to_string(),
        })
    };
    MemTable::new(
        name,
        vec![
            (
                names[0],
                Column::Number(rows.iter().map(|r| Some(r.id)).collect()),
            ),
            (names[1], text(rows.iter().map(|r| r.user.clone()))),
            (names[2], text(rows.iter().map(|r| r.host.clone()))),
            (
                names[3],
                Column::Text(rows.iter().map(|r| r.db.clone()).collect()),
            ),
            (names[4], text(rows.iter().map(|r| r.command))),
            (
                names[5],
                Column::Int(
                    rows.iter()
                        .map(|r| Some(r.time.min(i32::MAX as u64) as i32))
                        .collect(),
                ),
            ),
            (names[6], text(rows.iter().map(|r| r.state))),
            (
                names[7],
                Column::Text(rows.iter().map(|r| info(&r.info)).collect()),
            ),
        ],
    )
}

fn unknown_view(view: &str) -> QuiverError {
    QuiverError::new(
        1109,
        "42S02",
        format!("Unknown table '{view}' in information_schema"),
    )
}

fn charset_description(name: &str) -> &'static str {
    match name {
        "utf8mb4" => "UTF-8 Unicode",
        "utf8mb3" => "UTF-8 Unicode",
        "latin1" => "cp1252 West European",
        "ascii" => "US ASCII",
        "binary" => "Binary pseudo charset",
        _ => "",
    }
}

fn db_collation(session: &Session) -> Collation {
    session.vars().collation_database
}

/// Each table and view of every database: its database, name, whether a
/// view, and its schema (a view's from binding its query; None when it no
/// longer binds).
pub(crate) fn relations(session: &Session) -> Vec<(String, String, bool, Option<SchemaRef>)> {
    let db = session.database();
    let mut out = Vec::new();
    for d in db.schema_names() {
        for n in db.table_names_in(&d) {
            out.push(match db.table_in(&d, &n) {
                Some(t) => (d.clone(), n, false, Some(t.schema())),
                None if db.damaged_in(&d, &n).is_some() => (d.clone(), n, false, None),
                None => {
                    let schema = quiver_sql::Catalog::view_in(db.as_ref(), Some(&d), &n)
                        .and_then(|q| session.physical_plan(&q).ok())
                        .map(|p| p.schema());
                    (d.clone(), n, true, schema)
                }
            });
        }
    }
    out
}

/// What information_schema.TABLES and SHOW TABLE STATUS say of one
/// table or view.
struct TableFacts {
    database: String,
    name: String,
    /// The table's default collation, as CREATE TABLE kept it.
    collation: Option<String>,
    view: bool,
    rows: Option<u64>,
    /// Bytes of the table's files (None in memory).
    data_length: Option<u64>,
    /// When the table's folder was made, and its files last written.
    created: Option<i64>,
    updated: Option<i64>,
}

/// A file time as a DATETIME in the session's time zone (an explicit
/// `+hh:mm` offset; SYSTEM is taken as UTC, Quiver's system zone).
fn datetime_of(t: std::io::Result<std::time::SystemTime>, offset_secs: i64) -> Option<i64> {
    let since = t.ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    let secs = since.as_secs() as i64 + offset_secs;
    // Whole seconds, as MariaDB shows them.
    Some(secs * 1_000_000)
}

/// The session's `time_zone` as seconds east of UTC.
fn zone_offset(session: &Session) -> i64 {
    let vars = session.vars();
    let Some(quiver_common::ScalarValue::Utf8(z)) = vars.system.get("time_zone") else {
        return 0;
    };
    let (sign, rest) = match z.as_bytes().first() {
        Some(b'+') => (1, &z[1..]),
        Some(b'-') => (-1, &z[1..]),
        _ => return 0,
    };
    let Some((h, m)) = rest.split_once(':') else {
        return 0;
    };
    sign * (h.parse::<i64>().unwrap_or(0) * 3600 + m.parse::<i64>().unwrap_or(0) * 60)
}

fn table_facts(session: &Session) -> Vec<TableFacts> {
    let db = session.database();
    let offset = zone_offset(session);
    relations(session)
        .into_iter()
        .map(|(database, name, view, _)| {
            let table = db.table_in(&database, &name);
            let rows = table
                .as_ref()
                .map(|t| TableSource::row_count(t.as_ref()) as u64);
            let (mut data_length, mut created, mut updated) = (None, None, None);
            if let Some(dir) = table.as_ref().and_then(|t| t.dir()) {
                created = std::fs::metadata(dir)
                    .ok()
                    .and_then(|m| datetime_of(m.created(), offset));
                if let Ok(entries) = std::fs::read_dir(dir) {
                    let (mut bytes, mut newest) = (0u64, None::<i64>);
                    for m in entries.flatten().filter_map(|e| e.metadata().ok()) {
                        if m.is_file() {
                            bytes += m.len();
                            newest = newest.max(datetime_of(m.modified(), offset));
                        }
                    }
                    data_length = Some(bytes);
                    updated = newest;
                }
            }
            let collation = table.as_ref().and_then(|t| {
                t.schema()
                    .metadata()
                    .get(quiver_common::types::TABLE_COLLATION_KEY)
                    .cloned()
            });
            TableFacts {
                database,
                name,
                collation,
                view,
                rows,
                data_length,
                created,
                updated,
            }
        })
        .collect()
}

/// information_schema.TABLES's columns, as MariaDB 10.11 declares them (and
/// SHOW TABLE STATUS's names for them), with each table's values: row
/// counts and the size and times of its files where Quiver knows them,
/// no indexes, NULL for what Quiver does not have (a format version, a row
/// format, AUTO_INCREMENT, checksums); a view has only its name, type and
/// the comment VIEW, as in MariaDB.
fn tables_columns(session: &Session, facts: &[TableFacts]) -> Vec<(&'static str, Typed)> {
    let db_collation = db_collation(session).name().to_string();
    let base = |f: &TableFacts| !f.view;
    let text_all = |v: Vec<String>| Column::Text(v.into_iter().map(Some).collect());
    let text_base = |value: &dyn Fn(&TableFacts) -> String| {
        Column::Text(facts.iter().map(|f| base(f).then(|| value(f))).collect())
    };
    let num_base = |value: &dyn Fn(&TableFacts) -> Option<u64>| {
        Column::Number(
            facts
                .iter()
                .map(|f| if base(f) { value(f) } else { None })
                .collect(),
        )
    };
    let none_num = || Column::Number(vec![None; facts.len()]);
    let none_dt = || Column::DateTime(vec![None; facts.len()]);
    let n = facts.len();
    let col = |name, column_type, not_null, values| Typed {
        name,
        column_type,
        not_null,
        values,
    };
    vec![
        (
            "",
            col(
                "TABLE_CATALOG",
                "varchar(512)",
                true,
                text_all(vec!["def".into(); n]),
            ),
        ),
        (
            "",
            col(
                "TABLE_SCHEMA",
                "varchar(64)",
                true,
                text_all(facts.iter().map(|f| f.database.clone()).collect()),
            ),
        ),
        (
            "Name",
            col(
                "TABLE_NAME",
                "varchar(64)",
                true,
                text_all(facts.iter().map(|f| f.name.clone()).collect()),
            ),
        ),
        (
            "",
            col(
                "TABLE_TYPE",
                "varchar(64)",
                true,
                text_all(
                    facts
                        .iter()
                        .map(|f| if f.view { "VIEW" } else { "BASE TABLE" }.into())
                        .collect(),
                ),
            ),
        ),
        (
            "Engine",
            col(
                "ENGINE",
                "varchar(64)",
                false,
                text_base(&|_| "Quiver".into()),
            ),
        ),
        (
            "Version",
            col("VERSION", "bigint(21) unsigned", false, none_num()),
        ),
        (
            "Row_format",
            col(
                "ROW_FORMAT",
                "varchar(10)",
                false,
                Column::Text(vec![None; n]),
            ),
        ),
        (
            "Rows",
            col(
                "TABLE_ROWS",
                "bigint(21) unsigned",
                false,
                num_base(&|f| f.rows),
            ),
        ),
        (
            "Avg_row_length",
            col(
                "AVG_ROW_LENGTH",
                "bigint(21) unsigned",
                false,
                num_base(&|f| {
                    let bytes = f.data_length?;
                    Some(match f.rows {
                        Some(r) if r > 0 => bytes / r,
                        _ => 0,
                    })
                }),
            ),
        ),
        (
            "Data_length",
            col(
                "DATA_LENGTH",
                "bigint(21) unsigned",
                false,
                num_base(&|f| f.data_length),
            ),
        ),
        (
            "Max_data_length",
            col(
                "MAX_DATA_LENGTH",
                "bigint(21) unsigned",
                false,
                // 0: no fixed limit, as InnoDB says it.
                num_base(&|_| Some(0)),
            ),
        ),
        (
            "Index_length",
            col(
                "INDEX_LENGTH",
                "bigint(21) unsigned",
                false,
                num_base(&|_| Some(0)),
            ),
        ),
        (
            "Data_free",
            col(
                "DATA_FREE",
                "bigint(21) unsigned",
                false,
                // Files are written whole: nothing allocated lies unused.
                num_base(&|_| Some(0)),
            ),
        ),
        (
            "Auto_increment",
            col("AUTO_INCREMENT", "bigint(21) unsigned", false, none_num()),
        ),
        (
            "Create_time",
            col(
                "CREATE_TIME",
                "datetime",
                false,
                Column::DateTime(
                    facts
                        .iter()
                        .map(|f| if base(f) { f.created } else { None })
                        .collect(),
                ),
            ),
        ),
        (
            "Update_time",
            col(
                "UPDATE_TIME",
                "datetime",
                false,
                Column::DateTime(
                    facts
                        .iter()
                        .map(|f| if base(f) { f.updated } else { None })
                        .collect(),
                ),
            ),
        ),
        (
            "Check_time",
            col("CHECK_TIME", "datetime", false, none_dt()),
        ),
        (
            "Collation",
            col(
                "TABLE_COLLATION",
                "varchar(64)",
                false,
                text_base(&|f| f.collation.clone().unwrap_or_else(|| db_collation.clone())),
            ),
        ),
        (
            "Checksum",
            col("CHECKSUM", "bigint(21) unsigned", false, none_num()),
        ),
        (
            "Create_options",
            col(
                "CREATE_OPTIONS",
                "varchar(2048)",
                false,
                text_base(&|_| String::new()),
            ),
        ),
        (
            "Comment",
            col(
                "TABLE_COMMENT",
                "varchar(2048)",
                true,
                text_all(
                    facts
                        .iter()
                        .map(|f| if f.view { "VIEW" } else { "" }.into())
                        .collect(),
                ),
            ),
        ),
        (
            "Max_index_length",
            col(
                "MAX_INDEX_LENGTH",
                "bigint(21) unsigned",
                false,
                num_base(&|_| Some(0)),
            ),
        ),
        (
            "Temporary",
            col("TEMPORARY", "varchar(1)", false, text_base(&|_| "N".into())),
        ),
    ]
}

fn tables(session: &Session, name: &str) -> Result<Arc<MemTable>> {
    let facts = table_facts(session);
    let columns = tables_columns(session, &facts)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    MemTable::typed(name, columns)
}

/// A SHOW column's name and the information_schema.TABLES column it shows.
pub(crate) type ShownName = (&'static str, &'static str);

/// SHOW TABLE STATUS's rows: TABLES's columns without the catalog, schema
/// and type, the tables of `database` in name order (none without), and
/// each column's SHOW name with its TABLES name.
pub(crate) fn table_status(
    session: &Session,
    name: &str,
    database: Option<&str>,
) -> Result<(Arc<MemTable>, Vec<ShownName>)> {
    let mut facts = match database {
        Some(d) => table_facts(session)
            .into_iter()
            .filter(|f| f.database.eq_ignore_ascii_case(d))
            .collect(),
        None => vec![],
    };
    facts.sort_by(|a, b| a.name.cmp(&b.name));
    let (names, columns): (Vec<_>, Vec<_>) = tables_columns(session, &facts)
        .into_iter()
        .filter(|(show, _)| !show.is_empty())
        .map(|(show, c)| ((show, c.name), c))
        .unzip();
    Ok((MemTable::typed(name, columns)?, names))
}

/// What COLUMNS and SHOW COLUMNS say about one column.
pub(crate) struct ColumnFacts {
    pub name: String,
    pub column_type: String,
    pub data_type: String,
    pub nullable: bool,
    /// The DEFAULT as kept: a quoted literal for strings and dates.
    pub default: Option<String>,
    pub collation: Option<Collation>,
    pub char_length: Option<usize>,
    pub precision: Option<(u64, Option<u64>)>,
    /// A DATETIME's or TIME's fraction digits (DATETIME_PRECISION).
    pub fsp: Option<u8>,
}

pub(crate) fn column_facts(f: &Field) -> ColumnFacts {
    let mut column_type = match f.metadata().get(COLUMN_TYPE_KEY) {
        Some(t) => t.clone(),
        None => quiver_common::types::mysql_type_name(f.data_type()),
    };
    // An integer shows its kind without the display width, as MySQL 8
    // does, except BOOLEAN's tinyint(1).
    let int = IntType::parse(&column_type).filter(|_| f.data_type().is_integer());
    let mut numeric_type = f.data_type().clone();
    if let Some(i) = int {
        numeric_type = i.kind.arrow_type(i.unsigned);
        if !(i.kind == IntKind::Tiny && i.width == 1) {
            column_type = i.name();
        }
    }
    let data_type = column_type
        .split(['(', ' '])
        .next()
        .unwrap_or("")
        .to_string();
    // Binary strings have no charset or collation (NULL, as MariaDB shows).
    let members = quiver_common::types::member_type(f);
    if members.is_some() {
        // Codes, not a number: ENUM / SET read as text.
        numeric_type = DataType::Utf8;
    }
    if quiver_common::types::is_year(f) {
        // YEAR has no numeric precision in MariaDB's COLUMNS.
        numeric_type = DataType::Null;
    }
    let is_text = quiver_common::types::is_text(f.data_type()) || members.is_some();
    let collation = is_text.then(|| {
        f.metadata()
            .get(COLUMN_COLLATION_KEY)
            .and_then(|c| Collation::from_name(c))
            .unwrap_or_else(Collation::utf8mb4_bin)
    });
    let precision = match &numeric_type {
        _ if data_type == "mediumint" => {
            Some((7 + u64::from(column_type.ends_with("unsigned")), Some(0)))
        }
        DataType::Int8 | DataType::UInt8 => Some((3, Some(0))),
        DataType::Int16 | DataType::UInt16 => Some((5, Some(0))),
        DataType::Int32 | DataType::UInt32 => Some((10, Some(0))),
        DataType::Int64 => Some((19, Some(0))),
        DataType::UInt64 => Some((20, Some(0))),
        DataType::Float32 => Some((12, None)),
        DataType::Float64 => Some((22, None)),
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            Some((*p as u64, Some((*s).max(0) as u64)))
        }
        _ => None,
    };
    ColumnFacts {
        name: f.name().clone(),
        char_length: CharLength::of(&column_type)
            .map(|l| l.max_chars())
            .or_else(|| members.as_ref().map(|m| m.max_chars()))
            .or_else(|| binary_length(&column_type))
            .or_else(|| text_length(&column_type)),
        column_type,
        data_type,
        nullable: f.is_nullable(),
        default: f.metadata().get(COLUMN_DEFAULT_KEY).cloned(),
        collation,
        precision,
        fsp: quiver_common::types::datetime_fsp(f.data_type())
            .or_else(|| quiver_common::types::time_fsp(f.data_type())),
    }
}

/// The bytes a TEXT type holds: MariaDB shows them as both its character
/// and its octet length.
fn text_length(column_type: &str) -> Option<usize> {
    Some(match column_type {
        "tinytext" => 255,
        "text" => 65_535,
        "mediumtext" => 16_777_215,
        "longtext" => 4_294_967_295,
        _ => return None,
    })
}

/// The bytes a binary column type holds (its characters and its octets).
fn binary_length(column_type: &str) -> Option<usize> {
    Some(match column_type {
        "tinyblob" => 255,
        "blob" => 65_535,
        "mediumblob" => 16_777_215,
        "longblob" => 4_294_967_295,
        t => {
            let (kind, rest) = t.split_once('(')?;
            if !matches!(kind, "binary" | "varbinary") {
                return None;
            }
            rest.strip_suffix(')')?.parse().ok()?
        }
    })
}

fn columns(session: &Session, name: &str) -> Result<Arc<MemTable>> {
    let mut rows: Vec<(String, u64, ColumnFacts)> = vec![];
    let mut databases: Vec<String> = vec![];
    let mut keys: Vec<(&str, &str)> = vec![];
    for (database, table, _, schema) in relations(session) {
        let Some(schema) = schema else { continue };
        keys.extend(crate::keys::column_key_texts(&schema));
        for (i, f) in schema.fields().iter().enumerate() {
            rows.push((table.clone(), i as u64 + 1, column_facts(f)));
            databases.push(database.clone());
        }
    }
    let n = rows.len();
    let opt = |f: &dyn Fn(&ColumnFacts) -> Option<String>| {
        Column::Text(rows.iter().map(|r| f(&r.2)).collect())
    };
    let num = |f: &dyn Fn(&ColumnFacts) -> Option<u64>| {
        Column::Number(rows.iter().map(|r| f(&r.2)).collect())
    };
    MemTable::new(
        name,
        vec![
            ("TABLE_CATALOG", text(vec!["def"; n])),
            ("TABLE_SCHEMA", text(databases)),
            ("TABLE_NAME", text(rows.iter().map(|r| r.0.clone()))),
            ("COLUMN_NAME", text(rows.iter().map(|r| r.2.name.clone()))),
            (
                "ORDINAL_POSITION",
                Column::Number(rows.iter().map(|r| Some(r.1)).collect()),
            ),
            // As kept: strings quoted; a nullable column without a DEFAULT
            // has the text NULL, as in MariaDB.
            (
                "COLUMN_DEFAULT",
                opt(&|c| {
                    c.default
                        .clone()
                        .or_else(|| c.nullable.then(|| "NULL".to_string()))
                }),
            ),
            (
                "IS_NULLABLE",
                opt(&|c| Some(if c.nullable { "YES" } else { "NO" }.to_string())),
            ),
            ("DATA_TYPE", opt(&|c| Some(c.data_type.clone()))),
            (
                "CHARACTER_MAXIMUM_LENGTH",
                num(&|c| c.char_length.map(|l| l as u64)),
            ),
            (
                "CHARACTER_OCTET_LENGTH",
                num(&|c| {
                    c.char_length.map(|l| match c.collation {
                        _ if text_length(&c.column_type).is_some() => l as u64,
                        Some(co) => (l * co.charset().max_char_len()) as u64,
                        None => l as u64,
                    })
                }),
            ),
            ("NUMERIC_PRECISION", num(&|c| c.precision.map(|p| p.0))),
            ("NUMERIC_SCALE", num(&|c| c.precision.and_then(|p| p.1))),
            ("DATETIME_PRECISION", num(&|c| c.fsp.map(u64::from))),
            (
                "CHARACTER_SET_NAME",
                opt(&|c| c.collation.map(|co| co.charset().name().to_string())),
            ),
            (
                "COLLATION_NAME",
                opt(&|c| c.collation.map(|co| co.name().to_string())),
            ),
            ("COLUMN_TYPE", opt(&|c| Some(c.column_type.clone()))),
            ("COLUMN_KEY", text(keys.iter().map(|k| k.0))),
            ("EXTRA", text(keys.iter().map(|k| k.1))),
            (
                "PRIVILEGES",
                text(vec!["select,insert,update,references"; n]),
            ),
            ("COLUMN_COMMENT", text(vec![""; n])),
        ],
    )
}

/// information_schema.CHECK_CONSTRAINTS: each table's checks, column
/// checks first (as MariaDB lists them).
fn check_constraints(session: &Session, name: &str) -> Result<Arc<MemTable>> {
    let mut rows: Vec<(String, String, quiver_common::types::TableCheck)> = Vec::new();
    for (database, table, view, schema) in relations(session) {
        let Some(schema) = schema.filter(|_| !view) else {
            continue;
        };
        for c in quiver_common::types::checks_of_schema(&schema) {
            rows.push((database.clone(), table.clone(), c));
        }
    }
    let n = rows.len();
    MemTable::new(
        name,
        vec![
            ("CONSTRAINT_CATALOG", text(vec!["def"; n])),
            ("CONSTRAINT_SCHEMA", text(rows.iter().map(|r| r.0.clone()))),
            ("TABLE_NAME", text(rows.iter().map(|r| r.1.clone()))),
            (
                "CONSTRAINT_NAME",
                text(rows.iter().map(|r| r.2.name.clone())),
            ),
            (
                "LEVEL",
                text(rows.iter().map(|r| {
                    if r.2.column.is_some() {
                        "Column"
                    } else {
                        "Table"
                    }
                })),
            ),
            ("CHECK_CLAUSE", text(rows.iter().map(|r| r.2.text.clone()))),
        ],
    )
}

/// information_schema.TABLE_CONSTRAINTS: each table's PRIMARY KEY and
/// UNIQUE keys, then its checks.
fn table_constraints(session: &Session, name: &str) -> Result<Arc<MemTable>> {
    let mut rows: Vec<(String, String, String, &'static str)> = Vec::new();
    for (database, table, view, schema) in relations(session) {
        let Some(schema) = schema.filter(|_| !view) else {
            continue;
        };
        let keys = quiver_common::types::TableKey::of_schema(
            schema.metadata().get(quiver_common::types::TABLE_KEYS_KEY),
        );
        for k in keys {
            let kind = if k.primary { "PRIMARY KEY" } else { "UNIQUE" };
            rows.push((database.clone(), table.clone(), k.name, kind));
        }
        for c in quiver_common::types::checks_of_schema(&schema) {
            rows.push((database.clone(), table.clone(), c.name, "CHECK"));
        }
    }
    let n = rows.len();
    MemTable::new(
        name,
        vec![
            ("CONSTRAINT_CATALOG", text(vec!["def"; n])),
            ("CONSTRAINT_SCHEMA", text(rows.iter().map(|r| r.0.clone()))),
            ("CONSTRAINT_NAME", text(rows.iter().map(|r| r.2.clone()))),
            ("TABLE_SCHEMA", text(rows.iter().map(|r| r.0.clone()))),
            ("TABLE_NAME", text(rows.iter().map(|r| r.1.clone()))),
            ("CONSTRAINT_TYPE", text(rows.iter().map(|r| r.3))),
        ],
    )
}

// ---- renaming before binding ----

/// What the renaming depends on: the current database (`information_schema`
/// itself names its views without a qualifier).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionInfo<'a> {
    pub database: Option<&'a str>,
}

type Db<'a> = &'a SessionInfo<'a>;

/// Renames `information_schema.X` to the catalog's one-part name throughout
/// the FROM clauses of `q` and its subqueries (in select lists, WHERE and
/// HAVING too).
pub(crate) fn rewrite_query(q: &mut Query, current_db: Db) -> Result<()> {
    if let Some(with) = &mut q.with {
        for cte in &mut with.cte_tables {
            rewrite_query(&mut cte.query, current_db)?;
        }
    }
    rewrite_set_expr(&mut q.body, current_db)
}

fn rewrite_set_expr(s: &mut SetExpr, db: Db) -> Result<()> {
    match s {
        SetExpr::Select(sel) => {
            for twj in &mut sel.from {
                rewrite_factor(&mut twj.relation, db)?;
                for j in &mut twj.joins {
                    rewrite_factor(&mut j.relation, db)?;
                }
            }
            for item in &mut sel.projection {
                if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item
                {
                    rewrite_expr(e, db)?
                }
            }
            if let Some(w) = &mut sel.selection {
                rewrite_expr(w, db)?;
            }
            if let Some(h) = &mut sel.having {
                rewrite_expr(h, db)?;
            }
            Ok(())
        }
        SetExpr::Query(q) => rewrite_query(q, db),
        SetExpr::SetOperation { .. } => {
            // Down the left spine by a loop: a UNION of thousands of SELECTs
            // is as deep.
            let mut cur = s;
            while let SetExpr::SetOperation { left, right, .. } = cur {
                rewrite_set_expr(right, db)?;
                cur = left;
            }
            rewrite_set_expr(cur, db)
        }
        _ => Ok(()),
    }
}

fn rewrite_factor(f: &mut TableFactor, db: Db) -> Result<()> {
    match f {
        TableFactor::Table { name, .. } => {
            let parts: Vec<String> = name
                .0
                .iter()
                .filter_map(|p| match p {
                    ObjectNamePart::Identifier(i) => Some(i.value.clone()),
                    _ => None,
                })
                .collect();
            let view = match parts.as_slice() {
                [schema, t] if schema.eq_ignore_ascii_case(INFORMATION_SCHEMA) => Some(t),
                [t] if db.database == Some(INFORMATION_SCHEMA) => Some(t),
                _ => None,
            };
            if let Some(view) = view {
                if !VIEWS.iter().any(|v| v.eq_ignore_ascii_case(view)) {
                    return Err(unknown_view(view));
                }
                *name = ObjectName::from(vec![Ident::new(format!(
                    "{PREFIX}{}",
                    view.to_ascii_uppercase()
                ))]);
            }
            Ok(())
        }
        TableFactor::Derived { subquery, .. } => rewrite_query(subquery, db),
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            rewrite_factor(&mut table_with_joins.relation, db)?;
            for j in &mut table_with_joins.joins {
                rewrite_factor(&mut j.relation, db)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn rewrite_expr(e: &mut SqlExpr, db: Db) -> Result<()> {
    match e {
        SqlExpr::BinaryOp { left, right, .. } => {
            rewrite_expr(left, db)?;
            rewrite_expr(right, db)
        }
        SqlExpr::UnaryOp { expr, .. } | SqlExpr::Nested(expr) => rewrite_expr(expr, db),
        SqlExpr::IsNull(x) | SqlExpr::IsNotNull(x) => rewrite_expr(x, db),
        SqlExpr::InList { expr, list, .. } => {
            rewrite_expr(expr, db)?;
            list.iter_mut().try_for_each(|x| rewrite_expr(x, db))
        }
        SqlExpr::Like { expr, pattern, .. } | SqlExpr::ILike { expr, pattern, .. } => {
            rewrite_expr(expr, db)?;
            rewrite_expr(pattern, db)
        }
        SqlExpr::InSubquery { expr, subquery, .. } => {
            rewrite_expr(expr, db)?;
            rewrite_query(subquery, db)
        }
        SqlExpr::Exists { subquery, .. } | SqlExpr::Subquery(subquery) => {
            rewrite_query(subquery, db)
        }
        SqlExpr::Function(f) => {
            if let quiver_sql::sqlparser::ast::FunctionArguments::List(l) = &mut f.args {
                for a in &mut l.args {
                    if let quiver_sql::sqlparser::ast::FunctionArg::Unnamed(
                        quiver_sql::sqlparser::ast::FunctionArgExpr::Expr(x),
                    ) = a
                    {
                        rewrite_expr(x, db)?;
                    }
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
