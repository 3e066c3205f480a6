//! The columns an UPDATE's (or ON DUPLICATE KEY UPDATE's) assignments
//! set, with the checks both statements share.

use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};
use quiver_sql::sqlparser::ast::{AssignmentTarget, Expr as SqlExpr};

use crate::session::object_name;

/// The column each assignment of an UPDATE (or ON DUPLICATE KEY UPDATE)
/// sets, in order; `clause` names where error 1054 says the unknown
/// column was.
pub(crate) fn assignment_targets(
    schema: &SchemaRef,
    assignments: &[quiver_sql::sqlparser::ast::Assignment],
    clause: &str,
) -> Result<Vec<usize>> {
    let mut targets: Vec<usize> = Vec::with_capacity(assignments.len());
    for a in assignments {
        let AssignmentTarget::ColumnName(target) = &a.target else {
            return Err(QuiverError::not_supported("UPDATE of a tuple of columns"));
        };
        let column = object_name(target)?;
        let i = schema
            .fields()
            .iter()
            .position(|f| f.name().eq_ignore_ascii_case(&column))
            .ok_or_else(|| {
                QuiverError::new(
                    1054,
                    "42S22",
                    format!("Unknown column '{column}' in '{clause}'"),
                )
            })?;
        if matches!(&a.value, SqlExpr::Identifier(d) if d.quote_style.is_none() && d.value.eq_ignore_ascii_case("DEFAULT"))
        {
            return Err(QuiverError::not_supported("UPDATE ... SET c = DEFAULT"));
        }
        // MySQL assigns left to right: a later value reads the new value
        // of a column set before it. Until that is kept, such an UPDATE is
        // refused (a word of the value's text that names such a column is
        // taken as a reference).
        let text = a.value.to_string().to_ascii_lowercase();
        let words = text.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        let earlier: Vec<String> = targets
            .iter()
            .map(|&t| schema.field(t).name().to_ascii_lowercase())
            .collect();
        if words.into_iter().any(|w| earlier.iter().any(|e| e == w)) {
            return Err(QuiverError::not_supported(
                "UPDATE whose value reads a column set before it",
            ));
        }
        if targets.contains(&i) {
            return Err(QuiverError::not_supported("UPDATE setting a column twice"));
        }
        targets.push(i);
    }
    Ok(targets)
}
