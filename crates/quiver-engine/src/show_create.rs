//! SHOW CREATE TABLE: the statement that makes the table again, in
//! MariaDB's layout (one column a line, then the keys, then the table
//! options), so that MariaDB and Quiver both accept it and make the same
//! table. Quiver has no storage engines, so the text names none (MariaDB
//! then uses its default engine).

use quiver_collation::Collation;
use quiver_common::types::{IntType, TableKey, TABLE_COLLATION_KEY, TABLE_KEYS_KEY};
use quiver_common::{QuiverError, Result};
use quiver_sql::sqlparser::ast::ObjectName;

use std::sync::Arc;

use crate::information_schema::{column_facts, Column, MemTable};
use crate::show::SHOW_TABLE;
use crate::Session;

impl Session {
    /// `SHOW CREATE TABLE t`: one row, the table's name and its statement.
    pub(crate) fn show_create_table(&self, name: &ObjectName) -> Result<Arc<MemTable>> {
        let (database, table) = self.qualified_name(name)?;
        let db = self.database();
        let t = db.table_in(&database, &table).ok_or_else(|| {
            match db.view_sql_in(&database, &table) {
                Some(_) => QuiverError::not_supported("SHOW CREATE TABLE of a view"),
                None => QuiverError::unknown_table(&format!("{database}.{table}")),
            }
        })?;
        let schema = t.schema();
        let next = match quiver_common::types::auto_increment_column(
            schema
                .metadata()
                .get(quiver_common::types::TABLE_AUTO_INCREMENT_KEY),
        ) {
            Some(c) => Some(
                crate::auto_increment::next_value(&t, &t.data()?, c)?.min(u64::MAX as i128) as u64,
            ),
            None => None,
        };
        let text = create_table_text(t.name(), &schema, next, self.vars().collation_database);
        MemTable::new(
            SHOW_TABLE,
            vec![
                ("Table", Column::Text(vec![Some(t.name().to_string())])),
                ("Create Table", Column::Text(vec![Some(text)])),
            ],
        )
    }
}

/// MariaDB's text of `CREATE TABLE name (...)` for a table of `schema`
/// whose next AUTO_INCREMENT value is `next` (shown when above 1).
/// `database` is the collation of tables that declare none.
pub(crate) fn create_table_text(
    name: &str,
    schema: &arrow_schema::Schema,
    next: Option<u64>,
    database: Collation,
) -> String {
    let table_collation = schema
        .metadata()
        .get(TABLE_COLLATION_KEY)
        .and_then(|c| Collation::from_name(c))
        .unwrap_or(database);
    let auto = quiver_common::types::auto_increment_column(
        schema
            .metadata()
            .get(quiver_common::types::TABLE_AUTO_INCREMENT_KEY),
    );
    let checks = quiver_common::types::checks_of_schema(schema);
    let mut lines = Vec::new();
    for (i, f) in schema.fields().iter().enumerate() {
        let c = column_facts(f);
        let mut line = format!("  {} {}", quoted(&c.name), mariadb_type(&c.column_type, f));
        if let Some(coll) = c.collation.filter(|co| *co != table_collation) {
            line.push_str(&format!(
                " CHARACTER SET {} COLLATE {}",
                coll.charset().name(),
                coll.name()
            ));
        }
        if !c.nullable {
            line.push_str(" NOT NULL");
        }
        match c.default.as_deref() {
            Some(d) => line.push_str(&format!(" DEFAULT {}", default_text(d))),
            None if c.nullable => line.push_str(" DEFAULT NULL"),
            None => {}
        }
        if auto == Some(i) {
            line.push_str(" AUTO_INCREMENT");
        }
        if let Some(c) = checks.iter().find(|c| {
            c.column
                .as_ref()
                .is_some_and(|n| n.eq_ignore_ascii_case(f.name()))
        }) {
            line.push_str(&format!(" CHECK ({})", c.text));
        }
        lines.push(line);
    }
    for k in TableKey::of_schema(schema.metadata().get(TABLE_KEYS_KEY)) {
        let columns: Vec<String> = k
            .columns
            .iter()
            .map(|&c| quoted(schema.field(c).name()))
            .collect();
        lines.push(match k.primary {
            true => format!("  PRIMARY KEY ({})", columns.join(",")),
            false => format!("  UNIQUE KEY {} ({})", quoted(&k.name), columns.join(",")),
        });
    }
    for c in checks.iter().filter(|c| c.column.is_none()) {
        lines.push(format!(
            "  CONSTRAINT {} CHECK ({})",
            quoted(&c.name),
            c.text
        ));
    }
    let mut options = String::new();
    if let Some(n) = next.filter(|n| *n > 1) {
        options.push_str(&format!(" AUTO_INCREMENT={n}"));
    }
    options.push_str(&format!(
        " DEFAULT CHARSET={} COLLATE={}",
        table_collation.charset().name(),
        table_collation.name()
    ));
    format!(
        "CREATE TABLE {} (\n{}\n){}",
        quoted(name),
        lines.join(",\n"),
        options
    )
}

/// A name in backquotes, a backquote doubled.
fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The column type as MariaDB writes it: integers with their display width
/// (`int(11)`, `bigint(20) unsigned`), which Quiver's DESCRIBE leaves out
/// as MySQL 8 does.
fn mariadb_type(column_type: &str, f: &arrow_schema::Field) -> String {
    match IntType::parse(column_type).filter(|_| f.data_type().is_integer()) {
        Some(i) => i.text(),
        None => column_type.to_string(),
    }
}

/// A kept DEFAULT as SHOW CREATE TABLE writes it: literals as kept,
/// CURRENT_TIMESTAMP in MariaDB's lower case.
fn default_text(d: &str) -> String {
    let upper = d.to_ascii_uppercase();
    if upper.starts_with("CURRENT_TIMESTAMP") {
        let rest = &d["CURRENT_TIMESTAMP".len()..];
        return format!(
            "current_timestamp{}",
            if rest.is_empty() { "()" } else { rest }
        );
    }
    d.to_string()
}
