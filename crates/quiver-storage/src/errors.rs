//! The errors of reading and writing table files: an I/O error naming the
//! file, and a damaged table (MySQL's ER_TABLE_CORRUPT).

use std::path::Path;

use quiver_common::QuiverError;

pub(crate) fn err(path: &Path, e: impl std::fmt::Display) -> QuiverError {
    QuiverError::io(&format!("table file {}", path.display()), e)
}

/// Damage found in a table's files: MySQL's ER_TABLE_CORRUPT (1877, HY000),
/// the error InnoDB gives for a corrupt table, naming the table and, where it
/// applies, the column and the page.
pub fn corrupt(table: &str, column: Option<&str>, page: Option<usize>, what: &str) -> QuiverError {
    let mut place = format!("table '{table}'");
    if let Some(c) = column {
        place += &format!(", column '{c}'");
    }
    if let Some(p) = page {
        place += &format!(", page {p}");
    }
    QuiverError::new(1877, "HY000", format!("{place}: {what}"))
}
