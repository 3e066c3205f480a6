//! Binds every query of the engine's sqllogictest files (tests/sql) against a
//! catalog built from their CREATE TABLE / CREATE VIEW statements: queries the
//! files expect to run must bind, and expected errors raised at bind time must
//! have the expected code.

use std::path::Path;

use arrow_schema::{DataType, Field};
use quiver_common::types::COLUMN_COLLATION_KEY;
use sqlparser::ast::{
    CreateTable, CreateTableLikeKind, CreateView, ObjectName, ObjectNamePart, Statement,
};

use super::MockCatalog;
use crate::{parse_sql, sql_type, view_query_with_columns, Binder};

const KNOWN_GAPS: &[&str] = &["function HEX", "function TRUNCATE"];

struct Record {
    location: String,
    sql: String,
    /// None: must succeed; Some(code): expected error.
    error: Option<u16>,
}

fn records(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut skip = false;
    while let Some((n, line)) = lines.next() {
        let words: Vec<&str> = line.split_whitespace().collect();
        // A record the engine skips (`skipif quiver`) is not bound either.
        if words.as_slice() == ["skipif", "quiver"] {
            skip = true;
            continue;
        }
        let error = match words.as_slice() {
            ["statement", "ok" | "count", ..] => None,
            ["query", "error", code, ..] | ["statement", "error", code, ..] => code.parse().ok(),
            ["query", ..] => None,
            _ => continue,
        };
        let mut sql = String::new();
        while let Some((_, l)) = lines.peek() {
            if l.trim().is_empty() || l.trim() == "----" {
                break;
            }
            sql.push_str(l);
            sql.push('\n');
            lines.next();
        }
        if std::mem::take(&mut skip) {
            continue;
        }
        out.push(Record {
            location: format!("{}:{}", path.display(), n + 1),
            sql,
            error,
        });
    }
    out
}

/// A column's own COLLATE or CHARACTER SET, as the engine stores it (the
/// table's default is not looked at).
fn column_collation(c: &sqlparser::ast::ColumnDef) -> Option<String> {
    use sqlparser::ast::ColumnOption;
    let mut found = None;
    for o in &c.options {
        match &o.option {
            ColumnOption::Collation(n) => {
                return crate::column_collation_by_name(&n.to_string())
                    .ok()
                    .map(|c| c.name().to_string())
            }
            ColumnOption::CharacterSet(n) => {
                found = crate::column_charset_default(&n.to_string())
                    .ok()
                    .map(|c| c.name().to_string())
            }
            _ => {}
        }
    }
    found
}

fn name_of(n: &ObjectName) -> String {
    match n.0.last() {
        Some(ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => n.to_string(),
    }
}

#[test]
fn sqllogictest_queries_bind() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sql");
    let Ok(groups) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut files: Vec<_> = groups
        .flatten()
        .flat_map(|g| std::fs::read_dir(g.path()).into_iter().flatten().flatten())
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .collect();
    files.sort();
    let mut problems = Vec::new();
    let mut bound = 0;
    for file in files {
        let mut catalog = MockCatalog::default();
        // Tables made from information_schema (CREATE TABLE .. AS SELECT):
        // the engine's too, and so are the statements that read them.
        let mut engine_tables: Vec<String> = vec![];
        for r in records(&file) {
            // information_schema is the engine's (quiver-engine), not a bound table.
            let lower = r.sql.to_ascii_lowercase();
            if lower.contains("information_schema") {
                if let Ok(s) = parse_sql(&r.sql) {
                    if let [Statement::CreateTable(CreateTable { name, .. })] = s.as_slice() {
                        engine_tables.push(name_of(name).to_ascii_lowercase());
                    }
                }
                continue;
            }
            if engine_tables.iter().any(|t| lower.contains(t.as_str())) {
                continue;
            }
            let stmt = match parse_sql(&r.sql) {
                Ok(mut s) if s.len() == 1 => s.remove(0),
                Ok(_) => continue,
                Err(e) => {
                    if r.error != Some(e.code) {
                        problems.push(format!(
                            "{}: parse: {e} (expected {:?})\n{}",
                            r.location, r.error, r.sql
                        ));
                    }
                    continue;
                }
            };
            let result = match &stmt {
                // The mock catalog does not follow ALTER / RENAME: the rest
                // of such a file is the engine's to check.
                Statement::AlterTable(_) | Statement::RenameTable(_) => break,
                Statement::Query(q) => Binder::new(&catalog).bind_query(q).map(|_| ()),
                Statement::CreateTable(CreateTable {
                    name,
                    columns,
                    query,
                    like:
                        Some(
                            CreateTableLikeKind::Plain(like)
                            | CreateTableLikeKind::Parenthesized(like),
                        ),
                    ..
                }) if columns.is_empty() && query.is_none() => {
                    // The source's fields as they are.
                    let source = catalog.get_table(&name_of(&like.name)).map(|t| t.schema());
                    if let (None, Some(schema)) = (catalog.get_table(&name_of(name)), source) {
                        let fields = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
                        catalog = catalog.table_fields(&name_of(name), fields);
                    }
                    continue;
                }
                Statement::CreateTable(CreateTable {
                    name,
                    columns,
                    query,
                    ..
                }) => {
                    let cols: Vec<(String, DataType, Option<String>)> = match query {
                        Some(q) => match Binder::new(&catalog).bind_query(q) {
                            Ok(p) => p
                                .schema()
                                .into_iter()
                                .map(|c| (c.name, c.data_type, None))
                                .collect(),
                            Err(e) => {
                                if r.error != Some(e.code) && r.error.is_none() {
                                    problems.push(format!("{}: {e}\n{}", r.location, r.sql));
                                }
                                continue;
                            }
                        },
                        None => columns
                            .iter()
                            .filter_map(|c| {
                                // JSON is the engine's LONGTEXT alias.
                                let t = match c.data_type {
                                    sqlparser::ast::DataType::JSON => arrow_schema::DataType::Utf8,
                                    _ => sql_type(&c.data_type).ok()?,
                                };
                                Some((c.name.value.clone(), t, column_collation(c)))
                            })
                            .collect(),
                    };
                    if r.error.is_none() && catalog.get_table(&name_of(name)).is_none() {
                        let fields: Vec<Field> = cols
                            .iter()
                            .map(|(n, t, c)| {
                                let f = Field::new(n, t.clone(), true);
                                match c {
                                    Some(c) => {
                                        f.with_metadata(std::collections::HashMap::from([(
                                            COLUMN_COLLATION_KEY.to_string(),
                                            c.clone(),
                                        )]))
                                    }
                                    None => f,
                                }
                            })
                            .collect();
                        catalog = catalog.table_fields(&name_of(name), fields);
                    }
                    continue;
                }
                Statement::CreateView(CreateView {
                    name,
                    columns,
                    query,
                    ..
                }) => {
                    let q = Binder::new(&catalog).bind_query(query).map(|_| ());
                    if q.is_ok() && r.error.is_none() {
                        let cols: Vec<_> = columns.iter().map(|c| c.name.clone()).collect();
                        let q = view_query_with_columns(&name_of(name), (**query).clone(), &cols);
                        catalog = catalog.view_query(&name_of(name), q);
                    }
                    q
                }
                Statement::Drop { names, .. } => {
                    for n in names {
                        catalog.drop(&name_of(n));
                    }
                    continue;
                }
                Statement::Insert(insert) => match &insert.source {
                    Some(q) => match &*q.body {
                        sqlparser::ast::SetExpr::Values(v) => {
                            let mut b = Binder::new(&catalog);
                            // DEFAULT is the engine's to resolve, not an expression.
                            let is_default = |e: &&sqlparser::ast::Expr| matches!(e, sqlparser::ast::Expr::Identifier(i) if i.value.eq_ignore_ascii_case("default"));
                            v.rows
                                .iter()
                                .flat_map(|r| r.content.iter())
                                .filter(|e| !is_default(e))
                                .try_for_each(|e| b.bind_constant(e).map(|_| ()))
                        }
                        _ => Binder::new(&catalog).bind_query(q).map(|_| ()),
                    },
                    None => continue,
                },
                _ => continue,
            };
            bound += 1;
            match (result, r.error) {
                (Ok(()), _) => {}
                (Err(e), Some(code)) if e.code == code => {}
                // Functions that need a ScalarFunc the plan crate does not have yet.
                (Err(e), None)
                    if e.code == 1235 && KNOWN_GAPS.iter().any(|g| e.message.contains(g)) =>
                {
                    println!("known gap: {}: {e}", r.location)
                }
                (Err(e), expected) => problems.push(format!(
                    "{}: {e} (expected {expected:?})\n{}",
                    r.location, r.sql
                )),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {bound} statements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
