//! JSON_TABLE as a table reference (MariaDB 10.11): its document may read
//! the columns of the tables before it in FROM (a lateral reference), its
//! columns are typed as a CREATE TABLE's. The executor makes the rows
//! (`quiver_exec::operators::json_table`).

use std::collections::HashSet;
use std::sync::Arc;

use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{QuiverError, Result};
use quiver_plan::{ColumnInfo, ColumnOrigin, Expr, JsonTableColumn, JsonTableDef, JsonTableOn};
use sqlparser::ast;

use super::coerce::cast;
use super::{Binder, Clause, Ctx, Scope, ScopeColumn};

/// A JSON_TABLE bound: its document, definition and columns; `lateral`
/// when the document reads a column of the tables before it.
pub(super) struct BoundJsonTable {
    pub doc: Expr,
    pub def: Arc<JsonTableDef>,
    pub columns: Vec<ColumnInfo>,
    pub scope: Scope,
    pub lateral: bool,
}

fn syntax_near(text: &str) -> QuiverError {
    QuiverError::syntax_msg(format!(
        "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{text}'"
    ))
}

/// A path or DEFAULT literal's text.
fn literal_text(v: &ast::ValueWithSpan, strings_only: bool) -> Result<String> {
    use ast::Value as V;
    match &v.value {
        V::SingleQuotedString(s)
        | V::DoubleQuotedString(s)
        | V::NationalStringLiteral(s)
        | V::EscapedStringLiteral(s) => Ok(s.clone()),
        V::Number(n, _) if !strings_only => Ok(n.clone()),
        other => Err(syntax_near(&other.to_string())),
    }
}

fn on_clause(h: &Option<ast::JsonTableColumnErrorHandling>) -> Result<JsonTableOn> {
    use ast::JsonTableColumnErrorHandling as H;
    Ok(match h {
        None | Some(H::Null) => JsonTableOn::Null,
        Some(H::Error) => JsonTableOn::Error,
        Some(H::Default(v)) => JsonTableOn::Default(literal_text(v, false)?),
    })
}

impl Binder<'_> {
    /// Binds `JSON_TABLE(doc, path COLUMNS (...)) AS alias`; its document
    /// sees the columns of `left` (the tables before it), and nothing of
    /// an enclosing query.
    pub(super) fn json_table(
        &mut self,
        tf: &ast::TableFactor,
        left: Option<&Scope>,
    ) -> Result<BoundJsonTable> {
        let ast::TableFactor::JsonTable {
            json_expr,
            json_path,
            columns,
            alias,
        } = tf
        else {
            return Err(QuiverError::internal("not a JSON_TABLE"));
        };
        let Some(alias) = alias else {
            return Err(QuiverError::new(
                4177,
                "HY000",
                "Every table function must have an alias.",
            ));
        };
        if !alias.columns.is_empty() {
            return Err(syntax_near(&alias.to_string()));
        }
        let qualifier = alias.name.value.clone();
        let empty = Scope::default();
        let scope = left.unwrap_or(&empty);
        let outer = std::mem::take(&mut self.outer);
        let ctx = Ctx {
            subqueries: false,
            ..Ctx::new(scope, Clause::JsonTable)
        };
        let doc = self.expr(json_expr, &ctx);
        self.outer = outer;
        let doc = doc?;
        let reads = doc.columns();
        let lateral = scope.columns.iter().any(|c| reads.contains(&c.id));
        let doc = match doc.data_type() {
            t if is_string(&t) || t == DataType::Null => doc,
            _ => cast(doc, &DataType::Utf8),
        };
        let path = literal_text(json_path, true)?;
        let mut out = Vec::new();
        let columns = self.json_table_columns(columns, &qualifier, &mut out)?;
        let mut seen = HashSet::new();
        for c in &out {
            if !seen.insert(c.name.to_lowercase()) {
                return Err(QuiverError::duplicate_column(&c.name));
            }
        }
        let def = Arc::new(JsonTableDef {
            alias: qualifier.clone(),
            path,
            columns,
        });
        let scope = Scope {
            columns: out
                .iter()
                .map(|c| ScopeColumn::new(Some(&qualifier), c))
                .collect(),
        };
        Ok(BoundJsonTable {
            doc,
            def,
            columns: out,
            scope,
            lateral,
        })
    }

    fn json_table_columns(
        &mut self,
        cols: &[ast::JsonTableColumn],
        qualifier: &str,
        out: &mut Vec<ColumnInfo>,
    ) -> Result<Vec<JsonTableColumn>> {
        let mut def = Vec::with_capacity(cols.len());
        for c in cols {
            def.push(match c {
                ast::JsonTableColumn::ForOrdinality(name) => {
                    let mut info = self.new_column(name.value.clone(), DataType::Int32, true);
                    self.json_table_origin(&mut info, qualifier);
                    out.push(info);
                    JsonTableColumn::Ordinality {
                        name: name.value.clone(),
                    }
                }
                ast::JsonTableColumn::Named(n) => {
                    let json = matches!(n.r#type, ast::DataType::JSON);
                    let (data_type, declared) = if json {
                        (DataType::Utf8, Some("longtext".to_string()))
                    } else {
                        crate::types::check_fsp(&n.r#type, &n.name.value)?;
                        (
                            crate::types::sql_type(&n.r#type)?,
                            crate::types::column_type_text(&n.r#type),
                        )
                    };
                    let mut info = self.new_column(n.name.value.clone(), data_type, true);
                    self.set_declared(&mut info, declared.map(Arc::from));
                    self.json_table_origin(&mut info, qualifier);
                    out.push(info);
                    JsonTableColumn::Path {
                        name: n.name.value.clone(),
                        path: literal_text(&n.path, true)?,
                        exists: n.exists,
                        json,
                        on_empty: on_clause(&n.on_empty)?,
                        on_error: on_clause(&n.on_error)?,
                    }
                }
                ast::JsonTableColumn::Nested(n) => JsonTableColumn::Nested {
                    path: literal_text(&n.path, true)?,
                    columns: self.json_table_columns(&n.columns, qualifier, out)?,
                },
            });
        }
        Ok(def)
    }

    fn json_table_origin(&mut self, c: &mut ColumnInfo, qualifier: &str) {
        let origin = ColumnOrigin {
            schema: String::new(),
            table: qualifier.to_string(),
            org_table: qualifier.to_string(),
            org_name: c.name.clone(),
            field: None,
        };
        self.set_origin(c, Arc::new(origin));
    }
}
