//! The direction of one ORDER BY item, read the same way for a query's
//! ORDER BY, a window's and GROUP_CONCAT's (kept apart so none of those
//! files needs another for it).

use quiver_common::{QuiverError, Result};
use sqlparser::ast;

/// Whether ORDER BY item `o` sorts ascending; NULLS FIRST / LAST and WITH
/// FILL are not MySQL syntax.
pub(crate) fn order_asc(o: &ast::OrderByExpr) -> Result<bool> {
    if o.options.nulls_first.is_some() || o.with_fill.is_some() {
        return Err(QuiverError::syntax_msg(format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{}'",
            o
        )));
    }
    match &o.options.sort {
        None | Some(ast::OrderBySort::Asc) => Ok(true),
        Some(ast::OrderBySort::Desc) => Ok(false),
        Some(_) => Err(QuiverError::not_supported(format!("ORDER BY {o}"))),
    }
}
