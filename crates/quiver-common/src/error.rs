//! Errors as MySQL reports them: a numeric code, a SQLSTATE and a message.
//!
//! Clients (and scripts) match on the code, so every error the engine raises
//! picks the code MySQL uses for the same case.

use std::fmt;

/// An error with MySQL's code and SQLSTATE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuiverError {
    pub code: u16,
    pub sqlstate: &'static str,
    pub message: String,
}

pub type Result<T, E = QuiverError> = std::result::Result<T, E>;

impl fmt::Display for QuiverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code, self.sqlstate, self.message
        )
    }
}

impl std::error::Error for QuiverError {}

impl QuiverError {
    pub fn new(code: u16, sqlstate: &'static str, message: impl Into<String>) -> Self {
        QuiverError {
            code,
            sqlstate,
            message: message.into(),
        }
    }

    /// 1064: a syntax error. `near` is the rest of the statement from the error position.
    pub fn syntax(near: &str, line: u64) -> Self {
        let near: String = near.chars().take(80).collect();
        Self::new(
            1064,
            "42000",
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{near}' at line {line}"
            ),
        )
    }

    /// 1064 with a message of our own, for constructs the parser accepts but Quiver does not.
    pub fn syntax_msg(message: impl Into<String>) -> Self {
        Self::new(1064, "42000", message)
    }

    pub fn unknown_table(name: &str) -> Self {
        Self::new(1146, "42S02", format!("Table '{name}' doesn't exist"))
    }

    pub fn unknown_table_drop(name: &str) -> Self {
        Self::new(1051, "42S02", format!("Unknown table '{name}'"))
    }

    pub fn table_exists(name: &str) -> Self {
        Self::new(1050, "42S01", format!("Table '{name}' already exists"))
    }

    pub fn unknown_column(name: &str, place: &str) -> Self {
        Self::new(
            1054,
            "42S22",
            format!("Unknown column '{name}' in '{place}'"),
        )
    }

    pub fn ambiguous_column(name: &str, place: &str) -> Self {
        Self::new(
            1052,
            "23000",
            format!("Column '{name}' in {place} is ambiguous"),
        )
    }

    pub fn duplicate_column(name: &str) -> Self {
        Self::new(1060, "42S21", format!("Duplicate column name '{name}'"))
    }

    pub fn column_count_mismatch(row: usize) -> Self {
        Self::new(
            1136,
            "21S01",
            format!("Column count doesn't match value count at row {row}"),
        )
    }

    pub fn operand_columns(n: usize) -> Self {
        Self::new(
            1241,
            "21000",
            format!("Operand should contain {n} column(s)"),
        )
    }

    pub fn subquery_rows() -> Self {
        Self::new(1242, "21000", "Subquery returns more than 1 row")
    }

    pub fn out_of_range(type_name: &str, expr: &str) -> Self {
        Self::new(
            1690,
            "22003",
            format!("{type_name} value is out of range in '{expr}'"),
        )
    }

    /// 1690 raised by a kernel, which does not know the expression's text:
    /// the expression node that called it names it ([`Self::in_expression`]).
    pub fn out_of_range_unnamed(type_name: &str) -> Self {
        Self::out_of_range(type_name, "")
    }

    /// Names the expression of a 1690 that has no name yet; the innermost
    /// node names it, as MySQL reports the operation that overflowed.
    pub fn in_expression(mut self, text: &str) -> Self {
        if self.code == 1690 && self.message.ends_with(" in ''") {
            self.message.pop();
            self.message.push_str(text);
            self.message.push('\'');
        }
        self
    }

    pub fn invalid_group(msg: impl Into<String>) -> Self {
        Self::new(1111, "HY000", msg)
    }

    pub fn not_supported(what: impl Into<String>) -> Self {
        Self::new(
            1235,
            "42000",
            format!(
                "This version of Quiver doesn't yet support '{}'",
                what.into()
            ),
        )
    }

    pub fn memory_limit(limit: usize) -> Self {
        Self::new(
            1041,
            "HY001",
            format!(
                "Out of memory: the query needs more than the memory limit of {}; raise --memory-limit",
                byte_size(limit)
            ),
        )
    }

    /// 1041 for the limit of all queries together (and the table pages
    /// read into memory): the server's, not one query's.
    pub fn shared_memory_limit(limit: usize) -> Self {
        Self::new(
            1041,
            "HY001",
            format!(
                "Out of memory: the queries running together and the tables read into memory need more than the memory limit of {}; raise --memory-limit or run fewer queries at once",
                byte_size(limit)
            ),
        )
    }

    pub fn io(context: &str, err: impl fmt::Display) -> Self {
        Self::new(1105, "HY000", format!("{context}: {err}"))
    }

    /// 1105 (ER_UNKNOWN_ERROR): an internal invariant broke. Reported, never a panic.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(1105, "HY000", format!("Internal error: {}", message.into()))
    }

    pub fn wrong_arguments(func: &str) -> Self {
        Self::new(
            1582,
            "42000",
            format!("Incorrect parameter count in the call to native function '{func}'"),
        )
    }

    pub fn unknown_function(name: &str) -> Self {
        Self::new(1305, "42000", format!("FUNCTION {name} does not exist"))
    }

    pub fn truncated_value(type_name: &str, value: &str) -> Self {
        Self::new(
            1292,
            "22007",
            format!("Truncated incorrect {type_name} value: '{value}'"),
        )
    }
}

/// A byte count in the largest unit (bytes, KiB, MiB, GiB, TiB) that it
/// fills at least once, so a small limit does not read as 0 MiB; whole
/// multiples print without a fraction, as `--memory-limit 100K` was written.
fn byte_size(bytes: usize) -> String {
    const UNITS: [(&str, usize); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, size) in UNITS {
        if bytes >= size {
            return if bytes.is_multiple_of(size) {
                format!("{} {name}", bytes / size)
            } else {
                format!("{:.1} {name}", bytes as f64 / size as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

impl From<arrow_schema::ArrowError> for QuiverError {
    fn from(e: arrow_schema::ArrowError) -> Self {
        match e {
            arrow_schema::ArrowError::DivideByZero => Self::new(1365, "22012", "Division by 0"),
            other => Self::internal(other.to_string()),
        }
    }
}

impl From<std::io::Error> for QuiverError {
    fn from(e: std::io::Error) -> Self {
        Self::io("I/O error", e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_limit_shows_its_value_in_a_fitting_unit() {
        let text = |limit| QuiverError::memory_limit(limit).message;
        assert!(text(100 << 10).contains("memory limit of 100 KiB;"));
        assert!(text(512).contains("memory limit of 512 bytes;"));
        assert!(text(4 << 30).contains("memory limit of 4 GiB;"));
        assert!(text(3 << 19).contains("memory limit of 1.5 MiB;"));
        assert!(text(64 << 20).contains("memory limit of 64 MiB;"));
    }

    #[test]
    fn display_is_mysql_style() {
        let e = QuiverError::unknown_table("db.t");
        assert_eq!(
            e.to_string(),
            "ERROR 1146 (42S02): Table 'db.t' doesn't exist"
        );
        let s = QuiverError::syntax("FORM t", 1).to_string();
        assert!(s.starts_with("ERROR 1064 (42000): You have an error in your SQL syntax"));
        assert!(s.ends_with("near 'FORM t' at line 1"));
    }
}
