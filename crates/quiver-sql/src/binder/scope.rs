//! Name scopes: the columns a FROM clause makes visible, looked up by
//! (optional qualifier, name) case-insensitively.

use arrow_schema::DataType;
use quiver_plan::{ColumnId, ColumnInfo, Expr};

#[derive(Debug, Clone)]
pub(crate) struct ScopeColumn {
    /// Table name or alias the column is reachable through (`t.c`).
    pub qualifier: Option<String>,
    pub name: String,
    pub id: ColumnId,
    pub data_type: DataType,
    pub nullable: bool,
    /// A string column's collation when not the default.
    pub collation: Option<quiver_collation::Collation>,
    /// Its coercibility when not IMPLICIT (see `ColumnInfo::coercibility`).
    pub coercibility: Option<quiver_plan::Coercibility>,
    /// The right-hand copy of a USING / NATURAL join column: only reachable qualified,
    /// and not part of `SELECT *`.
    pub merged_away: bool,
    /// An ENUM / SET column's declared type text: the column holds codes,
    /// its references read as their text ([`ScopeColumn::expr`]).
    pub member_type: Option<std::sync::Arc<str>>,
}

impl ScopeColumn {
    pub fn new(qualifier: Option<&str>, c: &ColumnInfo) -> Self {
        ScopeColumn {
            qualifier: qualifier.map(str::to_string),
            name: c.name.clone(),
            id: c.id,
            data_type: c.data_type.clone(),
            nullable: c.nullable,
            collation: c.collation,
            coercibility: c.coercibility,
            merged_away: false,
            member_type: c.column_type.clone().filter(|t| {
                c.data_type.is_unsigned_integer()
                    && quiver_common::types::MemberType::parse(t).is_some()
            }),
        }
    }

    /// A reference to the column, under its collation and coercibility (an
    /// ENUM / SET column's: the text of its codes).
    pub fn expr(&self) -> Expr {
        let Some(t) = &self.member_type else {
            return quiver_plan::column_ref(
                self.id,
                &self.data_type,
                self.collation,
                self.coercibility,
            );
        };
        let text = Expr::Function {
            func: quiver_plan::ScalarFunc::MemberText,
            args: vec![
                Expr::Column(self.id, self.data_type.clone()),
                Expr::lit(quiver_common::ScalarValue::Utf8(t.to_string())),
            ],
            data_type: DataType::Utf8,
        };
        match self.collation {
            Some(c) => text.with_collation(
                c,
                self.coercibility
                    .unwrap_or(quiver_plan::Coercibility::Implicit),
            ),
            None => text,
        }
    }

    /// `t.c` as MySQL prints it in messages.
    pub fn display(&self) -> String {
        match &self.qualifier {
            Some(q) => format!("{q}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    pub columns: Vec<ScopeColumn>,
}

pub(crate) enum Lookup<'s> {
    Found(&'s ScopeColumn),
    NotFound,
    Ambiguous,
}

impl Scope {
    pub fn lookup(&self, qualifier: Option<&str>, name: &str) -> Lookup<'_> {
        let mut found: Option<&ScopeColumn> = None;
        for c in &self.columns {
            let hit = match qualifier {
                Some(q) => c
                    .qualifier
                    .as_deref()
                    .is_some_and(|cq| cq.eq_ignore_ascii_case(q)),
                None => !c.merged_away,
            };
            if !hit || !c.name.eq_ignore_ascii_case(name) {
                continue;
            }
            match found {
                Some(f) if f.id != c.id => return Lookup::Ambiguous,
                _ => found = Some(c),
            }
        }
        found.map_or(Lookup::NotFound, Lookup::Found)
    }

    /// The columns of `SELECT *`, in FROM order.
    pub fn star(&self) -> impl Iterator<Item = &ScopeColumn> {
        self.columns.iter().filter(|c| !c.merged_away)
    }

    /// The columns of `SELECT t.*`.
    pub fn qualified_star(&self, qualifier: &str) -> Vec<&ScopeColumn> {
        self.columns
            .iter()
            .filter(|c| {
                c.qualifier
                    .as_deref()
                    .is_some_and(|q| q.eq_ignore_ascii_case(qualifier))
            })
            .collect()
    }

    pub fn by_id(&self, id: ColumnId) -> Option<&ScopeColumn> {
        self.columns.iter().find(|c| c.id == id)
    }
}
