//! What CREATE TABLE declares of keys: PRIMARY KEY and UNIQUE (column and
//! table constraints, several columns) and the AUTO_INCREMENT column, with
//! MariaDB's names, order and errors. They are kept in the table's schema
//! metadata (`TableKey`, `TABLE_AUTO_INCREMENT_KEY`); `keys.rs` enforces
//! them, INSERT numbers the AUTO_INCREMENT column.

use std::collections::HashMap;

use arrow_schema::Field;
use quiver_common::types::{TableKey, TABLE_AUTO_INCREMENT_KEY, TABLE_KEYS_KEY};
use quiver_common::{QuiverError, Result};
use quiver_sql::sqlparser::ast::{
    ColumnOption, CreateTable, Expr as SqlExpr, IndexColumn, TableConstraint,
};
use quiver_sql::sqlparser::tokenizer::Token;

fn is_auto_increment(o: &ColumnOption) -> bool {
    matches!(o, ColumnOption::DialectSpecific(tokens) if tokens.iter().any(|t| {
        matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT"))
    }))
}

/// The column a key part names (1072 when the table has none); a prefix
/// (`b(10)`) or an expression is refused.
fn key_column(fields: &[Field], part: &IndexColumn) -> Result<usize> {
    let name = match &part.column.expr {
        SqlExpr::Identifier(i) => i.value.clone(),
        other => {
            return Err(QuiverError::not_supported(format!(
                "a key on {other} (a prefix or an expression)"
            )))
        }
    };
    fields
        .iter()
        .position(|f| f.name().eq_ignore_ascii_case(&name))
        .ok_or_else(|| {
            QuiverError::new(
                1072,
                "42000",
                format!("Key column '{name}' doesn't exist in table"),
            )
        })
}

/// The keys of `ct` as schema metadata; makes the PRIMARY KEY and
/// AUTO_INCREMENT columns NOT NULL (as MariaDB does).
pub(crate) fn table_keys(
    ct: &CreateTable,
    fields: &mut [Field],
) -> Result<HashMap<String, String>> {
    // (key, name given by the statement): column keys, then table ones.
    let mut keys: Vec<(TableKey, bool)> = Vec::new();
    // First columns of plain KEY / INDEX (they can carry AUTO_INCREMENT).
    let mut indexed: Vec<usize> = Vec::new();
    let mut auto = None;
    for (i, c) in ct.columns.iter().enumerate() {
        for o in &c.options {
            match &o.option {
                ColumnOption::PrimaryKey(_) => keys.push((
                    TableKey {
                        primary: true,
                        name: "PRIMARY".into(),
                        columns: vec![i],
                    },
                    true,
                )),
                ColumnOption::Unique(_) => keys.push((
                    TableKey {
                        primary: false,
                        name: c.name.value.clone(),
                        columns: vec![i],
                    },
                    false,
                )),
                o if is_auto_increment(o) => {
                    if auto.is_some() {
                        return Err(wrong_auto());
                    }
                    auto = Some(i);
                }
                _ => {}
            }
        }
    }
    for c in &ct.constraints {
        match c {
            TableConstraint::PrimaryKey(p) => {
                let columns = p
                    .columns
                    .iter()
                    .map(|part| key_column(fields, part))
                    .collect::<Result<Vec<_>>>()?;
                keys.push((
                    TableKey {
                        primary: true,
                        name: "PRIMARY".into(),
                        columns,
                    },
                    true,
                ));
            }
            TableConstraint::Unique(u) => {
                let columns = u
                    .columns
                    .iter()
                    .map(|part| key_column(fields, part))
                    .collect::<Result<Vec<_>>>()?;
                let given = u.index_name.as_ref().or(u.name.as_ref());
                let name =
                    given.map_or_else(|| fields[columns[0]].name().clone(), |n| n.value.clone());
                keys.push((
                    TableKey {
                        primary: false,
                        name,
                        columns,
                    },
                    given.is_some(),
                ));
            }
            TableConstraint::Index(x) => {
                if let Some(part) = x.columns.first() {
                    indexed.push(key_column(fields, part)?);
                }
            }
            _ => {}
        }
    }
    if keys.iter().filter(|(k, _)| k.primary).count() > 1 {
        return Err(QuiverError::new(
            1068,
            "42000",
            "Multiple primary key defined",
        ));
    }
    for (k, _) in &keys {
        if k.name.contains('\n') {
            return Err(QuiverError::not_supported("a key name with a newline"));
        }
        let mut seen = Vec::new();
        for &c in &k.columns {
            if seen.contains(&c) {
                return Err(QuiverError::duplicate_column(fields[c].name()));
            }
            seen.push(c);
            if k.primary {
                fields[c] = fields[c].clone().with_nullable(false);
            }
        }
    }
    // Names: a given one must be new (1061); a made-up one takes `_2`, `_3`.
    let mut names: Vec<String> = Vec::new();
    for (k, given) in keys.iter_mut() {
        let taken = |n: &str, names: &[String]| names.iter().any(|m| m.eq_ignore_ascii_case(n));
        if !k.primary {
            if *given && taken(&k.name, &names) {
                return Err(QuiverError::new(
                    1061,
                    "42000",
                    format!("Duplicate key name '{}'", k.name),
                ));
            }
            if taken(&k.name, &names) || k.name.eq_ignore_ascii_case("PRIMARY") {
                let base = k.name.clone();
                let mut n = 2;
                while taken(&format!("{base}_{n}"), &names) {
                    n += 1;
                }
                k.name = format!("{base}_{n}");
            }
        }
        names.push(k.name.clone());
    }
    let mut meta = HashMap::new();
    if let Some(a) = auto {
        let f = &fields[a];
        if !f.data_type().is_integer() {
            return Err(match f.data_type().is_floating() {
                true => QuiverError::not_supported("AUTO_INCREMENT on a FLOAT or DOUBLE column"),
                false => QuiverError::new(
                    1063,
                    "42000",
                    format!("Incorrect column specifier for column '{}'", f.name()),
                ),
            });
        }
        let keyed = keys.iter().any(|(k, _)| k.columns[0] == a) || indexed.contains(&a);
        if !keyed {
            return Err(wrong_auto());
        }
        fields[a] = fields[a].clone().with_nullable(false);
        meta.insert(TABLE_AUTO_INCREMENT_KEY.to_string(), a.to_string());
    }
    // MariaDB's order: PRIMARY, then UNIQUE keys of NOT NULL columns, then
    // the other UNIQUE keys, each in the order declared.
    let mut keys: Vec<TableKey> = keys.into_iter().map(|(k, _)| k).collect();
    keys.sort_by_key(|k| {
        match (
            k.primary,
            k.columns.iter().all(|&c| !fields[c].is_nullable()),
        ) {
            (true, _) => 0,
            (false, true) => 1,
            (false, false) => 2,
        }
    });
    if !keys.is_empty() {
        meta.insert(TABLE_KEYS_KEY.to_string(), TableKey::list_text(&keys));
    }
    Ok(meta)
}

fn wrong_auto() -> QuiverError {
    QuiverError::new(
        1075,
        "42000",
        "Incorrect table definition; there can be only one auto column and it must be defined as a key",
    )
}

/// The table option `AUTO_INCREMENT = n`: where numbering starts (0: at 1).
pub(crate) fn auto_increment_option(ct: &CreateTable) -> Result<u64> {
    use quiver_sql::sqlparser::ast::{CreateTableOptions, SqlOption};
    let options = match &ct.table_options {
        CreateTableOptions::Plain(o)
        | CreateTableOptions::With(o)
        | CreateTableOptions::Options(o) => o.as_slice(),
        _ => &[],
    };
    for o in options {
        if let SqlOption::KeyValue { key, value } = o {
            if key.value.eq_ignore_ascii_case("AUTO_INCREMENT") {
                return value
                    .to_string()
                    .parse::<u64>()
                    .map_err(|_| QuiverError::syntax_msg(format!("AUTO_INCREMENT = {value}")));
            }
        }
    }
    Ok(0)
}
