//! JSON_TABLE's definition as a plan holds it: the row path and the tree of
//! columns (`LogicalPlan::JsonTable` appends the leaves' values, in the
//! order written, to each input row). Paths stay text here; the executor
//! parses them (the binder has already checked them).

/// What JSON_TABLE does when a column's path finds nothing (ON EMPTY) or
/// finds what the column can not hold (ON ERROR).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonTableOn {
    Null,
    /// MariaDB's 4176 (ON EMPTY), 4178 / 4179 (ON ERROR).
    Error,
    /// The literal, converted to the column's type as a found value is.
    Default(String),
}

/// One column of JSON_TABLE's COLUMNS list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonTableColumn {
    /// `name FOR ORDINALITY`: the row's 1-based number among its siblings.
    Ordinality { name: String },
    /// `name type PATH 'p'` (a JSON column keeps the value's JSON text), or
    /// with `exists`, `name type EXISTS PATH 'p'` (1 when it finds something).
    Path {
        name: String,
        path: String,
        exists: bool,
        json: bool,
        on_empty: JsonTableOn,
        on_error: JsonTableOn,
    },
    /// `NESTED PATH 'p' COLUMNS (...)`: one row per match, outer-joined to
    /// the row around it; sibling NESTED clauses take turns.
    Nested {
        path: String,
        columns: Vec<JsonTableColumn>,
    },
}

/// A JSON_TABLE: its alias (for error messages), row path and columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonTableDef {
    pub alias: String,
    pub path: String,
    pub columns: Vec<JsonTableColumn>,
}

impl JsonTableDef {
    /// How many output columns (leaves of the column tree).
    pub fn width(&self) -> usize {
        fn count(cols: &[JsonTableColumn]) -> usize {
            cols.iter()
                .map(|c| match c {
                    JsonTableColumn::Nested { columns, .. } => count(columns),
                    _ => 1,
                })
                .sum()
        }
        count(&self.columns)
    }
}
