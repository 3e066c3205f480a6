//! System variables a session may SET: which exist, what values each
//! takes, and the value stored for `@@name` to read. Checked as MariaDB
//! checks them: an unknown name is 1193, a read-only one 1238 (1229 for a
//! global-only one, 1621 for one whose session value is read-only), a value
//! of the wrong type 1232, a wrong value 1231. Values that would change what
//! Quiver computes in a way it does not implement are refused with 1235.

use quiver_common::{QuiverError, Result, ScalarValue};

/// What values a variable takes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// An integer, clamped into `min..=max` as MariaDB clamps it (with a warning there).
    Int { min: i64, max: i64 },
    /// An unsigned integer up to 2^64-1 (`sql_select_limit`).
    UInt,
    /// ON / OFF, 1 / 0; read as 1 / 0, shown ON / OFF by SHOW VARIABLES.
    Bool,
    /// One of the names (case-insensitive; also their index).
    Enum(&'static [&'static str]),
    /// A comma-separated set of SQL modes.
    SqlMode,
    /// `SYSTEM` or an offset `+hh:mm`.
    TimeZone,
    /// Any string.
    Text,
    /// Seconds to the microsecond, clamped into `0..=max` as MariaDB
    /// clamps them (`max_statement_time`); a DECIMAL with 6 digits after
    /// the point (MariaDB's is a DOUBLE shown with 6).
    Seconds { max: i64 },
}

const ISOLATION: &[&str] = &[
    "READ-UNCOMMITTED",
    "READ-COMMITTED",
    "REPEATABLE-READ",
    "SERIALIZABLE",
];

const TIMEOUT: Kind = Kind::Int {
    min: 1,
    max: 31_536_000,
};

/// The session variables SET may change.
const SETTABLE: &[(&str, Kind)] = &[
    // Off: writes go to a transaction until COMMIT (transaction.rs).
    ("autocommit", Kind::Bool),
    (
        "auto_increment_increment",
        Kind::Int {
            min: 1,
            max: 65_535,
        },
    ),
    (
        "auto_increment_offset",
        Kind::Int {
            min: 1,
            max: 65_535,
        },
    ),
    ("big_tables", Kind::Bool),
    ("div_precision_increment", Kind::Int { min: 0, max: 38 }),
    ("foreign_key_checks", Kind::Bool),
    (
        "group_concat_max_len",
        // MariaDB 10.11 takes up to 1 GiB.
        Kind::Int {
            min: 4,
            max: 1 << 30,
        },
    ),
    ("interactive_timeout", TIMEOUT),
    // MySQL's statement time limit in milliseconds (0: none); a statement
    // over it stops with error 3024 (the engine's `statement_deadline`).
    (
        "max_execution_time",
        Kind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
    ),
    // How many notes, warnings and errors SHOW WARNINGS keeps.
    (
        "max_error_count",
        Kind::Int {
            min: 0,
            max: 65_535,
        },
    ),
    // WITH RECURSIVE stops after this many rounds (warning 1931).
    (
        "max_recursive_iterations",
        Kind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
    ),
    // MariaDB's statement time limit in seconds (0: none); a statement
    // over it stops with error 1969.
    ("max_statement_time", Kind::Seconds { max: 31_536_000 }),
    ("net_read_timeout", TIMEOUT),
    ("net_write_timeout", TIMEOUT),
    ("session_track_schema", Kind::Bool),
    ("session_track_state_change", Kind::Bool),
    ("session_track_system_variables", Kind::Text),
    (
        "session_track_transaction_info",
        Kind::Enum(&["OFF", "STATE", "CHARACTERISTICS"]),
    ),
    ("sql_auto_is_null", Kind::Bool),
    ("sql_big_selects", Kind::Bool),
    ("sql_mode", Kind::SqlMode),
    ("sql_notes", Kind::Bool),
    ("sql_quote_show_create", Kind::Bool),
    ("sql_safe_updates", Kind::Bool),
    ("sql_select_limit", Kind::UInt),
    ("sql_warnings", Kind::Bool),
    ("time_zone", Kind::TimeZone),
    ("transaction_isolation", Kind::Enum(ISOLATION)),
    ("transaction_read_only", Kind::Bool),
    ("tx_isolation", Kind::Enum(ISOLATION)),
    ("tx_read_only", Kind::Bool),
    ("unique_checks", Kind::Bool),
    ("wait_timeout", TIMEOUT),
];

/// Variables whose session value cannot be SET (MariaDB's 1621).
const SESSION_READ_ONLY: &[&str] = &["max_allowed_packet", "net_buffer_length"];

/// Variables set only with SET GLOBAL (MariaDB's 1229).
const GLOBAL_ONLY: &[&str] = &[
    "connect_timeout",
    "init_connect",
    "max_connections",
    "performance_schema",
    "query_cache_size",
];

/// Read-only variables (MariaDB's 1238).
const READ_ONLY: &[&str] = &[
    "character_set_system",
    "error_count",
    "have_ssl",
    "last_insert_id",
    "license",
    "lower_case_table_names",
    "protocol_version",
    "system_time_zone",
    "version",
    "version_comment",
    "version_compile_machine",
    "version_compile_os",
    "warning_count",
];

/// Names that share one value: setting one sets the other.
pub(crate) fn aliases(name: &str) -> &'static [&'static str] {
    match name {
        "tx_isolation" | "transaction_isolation" => &["tx_isolation", "transaction_isolation"],
        "tx_read_only" | "transaction_read_only" => &["tx_read_only", "transaction_read_only"],
        _ => &[],
    }
}

/// MariaDB's SQL modes in the order it lists them (bit i is the i-th).
const SQL_MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// Modes Quiver accepts: they leave the results of the statements it runs
/// as they are. Quiver always stores as STRICT_TRANS_TABLES and
/// ERROR_FOR_DIVISION_BY_ZERO do, so a mode without them only makes Quiver
/// refuse what MariaDB would store with a warning; ONLY_FULL_GROUP_BY and
/// the NO_ZERO_* modes only refuse statements (Quiver does not check them).
/// Every other mode changes what statements mean (ANSI_QUOTES makes "x" a
/// name, PIPES_AS_CONCAT makes || CONCAT, ...) and is refused with 1235.
const ACCEPTED_MODES: &[&str] = &[
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_DIR_IN_CREATE",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "NO_AUTO_VALUE_ON_ZERO",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "NO_ENGINE_SUBSTITUTION",
];

/// What a combination mode stands for, itself included (MariaDB's expansions).
fn expand_mode(mode: &str) -> &'static [&'static str] {
    match mode {
        "ANSI" => &[
            "REAL_AS_FLOAT",
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "ANSI",
        ],
        "TRADITIONAL" => &[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "TRADITIONAL",
            "NO_AUTO_CREATE_USER",
            "NO_ENGINE_SUBSTITUTION",
        ],
        _ => &[],
    }
}

fn wrong_value(name: &str, v: &str) -> QuiverError {
    QuiverError::new(
        1231,
        "42000",
        format!("Variable '{name}' can't be set to the value of '{v}'"),
    )
}

fn wrong_type(name: &str) -> QuiverError {
    QuiverError::new(
        1232,
        "42000",
        format!("Incorrect argument type to variable '{name}'"),
    )
}

/// MySQL's error for a name no variable has.
pub(crate) fn unknown(name: &str) -> QuiverError {
    QuiverError::new(1193, "HY000", format!("Unknown system variable '{name}'"))
}

/// The text of a value in error 1231.
fn value_text(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Null => "NULL".to_string(),
        other => other.to_string(),
    }
}

/// Whether `name` (lowercase) is a variable SET may change in a session;
/// else the error MariaDB gives for it. Variables handled by the session
/// itself (`character_set_*`, `collation_*`) are not checked here.
pub(crate) fn check_settable(name: &str) -> Result<()> {
    if SETTABLE.iter().any(|(n, _)| *n == name) {
        Ok(())
    } else if READ_ONLY.contains(&name) {
        Err(QuiverError::new(
            1238,
            "HY000",
            format!("Variable '{name}' is a read only variable"),
        ))
    } else if GLOBAL_ONLY.contains(&name) {
        Err(QuiverError::new(
            1229,
            "HY000",
            format!("Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"),
        ))
    } else if SESSION_READ_ONLY.contains(&name) {
        Err(QuiverError::new(
            1621,
            "HY000",
            format!("SESSION variable '{name}' is read-only. Use SET GLOBAL to assign the value"),
        ))
    } else {
        Err(unknown(name))
    }
}

/// The value `@@name` holds after `SET name = value`; `value` is a bare
/// word (`ON`, `READ-COMMITTED` as a string) or the expression's value.
pub(crate) fn validate(name: &str, value: &ScalarValue) -> Result<ScalarValue> {
    check_settable(name)?;
    let kind = SETTABLE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
        .expect("checked");
    let int = |v: &ScalarValue| -> Option<i128> {
        match v {
            ScalarValue::Int64(i) => Some(*i as i128),
            ScalarValue::UInt64(u) => Some(*u as i128),
            ScalarValue::Boolean(b) => Some(*b as i128),
            _ => None,
        }
    };
    let stored = match kind {
        Kind::Int { min, max } => match int(value) {
            Some(i) => ScalarValue::Int64(i.clamp(min as i128, max as i128) as i64),
            None => return Err(wrong_type(name)),
        },
        Kind::UInt => match int(value) {
            Some(i) => ScalarValue::UInt64(i.clamp(0, u64::MAX as i128) as u64),
            None => return Err(wrong_type(name)),
        },
        Kind::Bool => match value {
            ScalarValue::Utf8(s) if s.eq_ignore_ascii_case("ON") => ScalarValue::Int64(1),
            ScalarValue::Utf8(s) if s.eq_ignore_ascii_case("OFF") => ScalarValue::Int64(0),
            ScalarValue::Utf8(_) | ScalarValue::Null => {
                return Err(wrong_value(name, &value_text(value)))
            }
            v => match int(v) {
                Some(i @ (0 | 1)) => ScalarValue::Int64(i as i64),
                Some(_) => return Err(wrong_value(name, &value_text(v))),
                None => return Err(wrong_type(name)),
            },
        },
        Kind::Enum(names) => match value {
            ScalarValue::Utf8(s) => match names.iter().find(|n| n.eq_ignore_ascii_case(s.trim())) {
                Some(n) => ScalarValue::Utf8(n.to_string()),
                None => return Err(wrong_value(name, s)),
            },
            ScalarValue::Null => return Err(wrong_value(name, "NULL")),
            v => match int(v) {
                Some(i) if (0..names.len() as i128).contains(&i) => {
                    ScalarValue::Utf8(names[i as usize].to_string())
                }
                Some(_) => return Err(wrong_value(name, &value_text(v))),
                None => return Err(wrong_type(name)),
            },
        },
        Kind::SqlMode => ScalarValue::Utf8(sql_mode(value)?),
        Kind::TimeZone => match value {
            ScalarValue::Utf8(s) => ScalarValue::Utf8(time_zone(s)?),
            ScalarValue::Null => return Err(wrong_value(name, "NULL")),
            _ => return Err(wrong_type(name)),
        },
        Kind::Seconds { max } => {
            // Microseconds, rounded half away from zero as MariaDB shows them.
            let micros = match value {
                ScalarValue::Decimal(v, _, scale) => {
                    let v = v.as_i128();
                    // Too large for microseconds: clamped below anyway.
                    quiver_common::types::rescale(v, *scale, 6).unwrap_or(if v < 0 {
                        i128::MIN
                    } else {
                        i128::MAX
                    })
                }
                ScalarValue::Float64(f) if f.is_finite() => (f * 1e6).round() as i128,
                v => match int(v) {
                    Some(i) => i.saturating_mul(1_000_000),
                    None => return Err(wrong_type(name)),
                },
            };
            let micros = micros.clamp(0, i128::from(max) * 1_000_000);
            ScalarValue::decimal(micros, 14, 6)
        }
        Kind::Text => match value {
            ScalarValue::Utf8(s) => ScalarValue::Utf8(s.clone()),
            ScalarValue::Null => return Err(wrong_value(name, "NULL")),
            _ => return Err(wrong_type(name)),
        },
    };
    supported(name, &stored)?;
    Ok(stored)
}

/// Values of variables whose other values Quiver does not implement.
fn supported(name: &str, v: &ScalarValue) -> Result<()> {
    let refuse = |what: &str| Err(QuiverError::not_supported(what.to_string()));
    match (name, v) {
        // Division results have 4 more decimals than the dividend, always.
        ("div_precision_increment", ScalarValue::Int64(i)) if *i != 4 => {
            refuse("div_precision_increment other than 4")
        }
        // Writes are not refused in a read-only transaction.
        ("transaction_read_only" | "tx_read_only", ScalarValue::Int64(1)) => {
            refuse("read-only transactions")
        }
        // sql_auto_is_null finds rows by AUTO_INCREMENT, which Quiver has not.
        _ => Ok(()),
    }
}

/// A normalized `sql_mode`: known modes, combinations expanded, in
/// MariaDB's order; 1231 for an unknown one, 1235 for one Quiver refuses.
fn sql_mode(value: &ScalarValue) -> Result<String> {
    let mut bits = 0u64;
    match value {
        ScalarValue::Utf8(s) => {
            // Spaces are part of a name, as in MariaDB (' STRICT_TRANS_TABLES' is unknown).
            for part in s.split(',').filter(|p| !p.is_empty()) {
                let upper = part.to_ascii_uppercase();
                let Some(i) = SQL_MODES.iter().position(|m| *m == upper) else {
                    return Err(wrong_value("sql_mode", s));
                };
                bits |= 1 << i;
            }
        }
        v => match v {
            ScalarValue::Int64(i) if *i >= 0 && (*i as u64) < 1 << SQL_MODES.len() => {
                bits = *i as u64
            }
            ScalarValue::UInt64(u) if *u < 1 << SQL_MODES.len() => bits = *u,
            ScalarValue::Int64(_) | ScalarValue::UInt64(_) | ScalarValue::Null => {
                return Err(wrong_value("sql_mode", &value_text(v)))
            }
            _ => return Err(wrong_type("sql_mode")),
        },
    }
    for (i, m) in SQL_MODES.iter().enumerate() {
        if bits & (1 << i) != 0 {
            for e in expand_mode(m) {
                let j = SQL_MODES.iter().position(|x| x == e).expect("a mode");
                bits |= 1 << j;
            }
        }
    }
    let modes: Vec<&str> = SQL_MODES
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, m)| *m)
        .collect();
    if let Some(m) = modes.iter().find(|m| !ACCEPTED_MODES.contains(m)) {
        return Err(QuiverError::not_supported(format!("sql_mode {m}")));
    }
    Ok(modes.join(","))
}

/// `SYSTEM` or `[+-]h:mm` (-12:59 to +13:00), normalized as MariaDB shows
/// it; named zones are 1298 (MariaDB's without its time zone tables).
/// Quiver has no function that depends on the time zone yet.
fn time_zone(s: &str) -> Result<String> {
    let bad = || {
        QuiverError::new(
            1298,
            "HY000",
            format!("Unknown or incorrect time zone: '{s}'"),
        )
    };
    if s.eq_ignore_ascii_case("SYSTEM") {
        return Ok("SYSTEM".to_string());
    }
    let (sign, rest) = match s.trim().as_bytes().first() {
        Some(b'+') => (1, &s.trim()[1..]),
        Some(b'-') => (-1, &s.trim()[1..]),
        _ => return Err(bad()),
    };
    let (h, m) = rest.split_once(':').ok_or_else(bad)?;
    let digits = |t: &str| !t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(h) || !digits(m) {
        return Err(bad());
    }
    let (h, m): (i32, i32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    let minutes = sign * (h * 60 + m);
    if m > 59 || !(-(12 * 60 + 59)..=13 * 60).contains(&minutes) {
        return Err(bad());
    }
    Ok(format!(
        "{}{:02}:{:02}",
        if sign < 0 { '-' } else { '+' },
        h,
        m
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> ScalarValue {
        ScalarValue::Utf8(s.to_string())
    }

    #[test]
    fn sql_modes_are_normalized_and_checked() {
        assert_eq!(
            sql_mode(&text("no_engine_substitution,strict_trans_tables")).unwrap(),
            "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"
        );
        assert_eq!(sql_mode(&text("")).unwrap(), "");
        assert_eq!(
            sql_mode(&text("TRADITIONAL")).unwrap(),
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
             ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
        );
        assert_eq!(sql_mode(&text("foo")).unwrap_err().code, 1231);
        assert_eq!(sql_mode(&text("a, b")).unwrap_err().code, 1231);
        assert_eq!(sql_mode(&text("ANSI_QUOTES")).unwrap_err().code, 1235);
        assert_eq!(sql_mode(&text("ansi")).unwrap_err().code, 1235);
        assert_eq!(sql_mode(&ScalarValue::Null).unwrap_err().code, 1231);
    }

    #[test]
    fn values_are_checked_by_kind() {
        assert_eq!(
            validate("wait_timeout", &ScalarValue::Int64(0)).unwrap(),
            ScalarValue::Int64(1)
        );
        assert_eq!(
            validate("wait_timeout", &text("abc")).unwrap_err().code,
            1232
        );
        assert_eq!(
            validate("autocommit", &ScalarValue::Int64(5))
                .unwrap_err()
                .code,
            1231
        );
        assert_eq!(
            validate("autocommit", &text("off")).unwrap(),
            ScalarValue::Int64(0)
        );
        assert_eq!(
            validate("tx_isolation", &text("read-committed")).unwrap(),
            text("READ-COMMITTED")
        );
        assert_eq!(validate("nonexistent", &text("x")).unwrap_err().code, 1193);
        assert_eq!(validate("version", &text("x")).unwrap_err().code, 1238);
        assert_eq!(time_zone("+1:00").unwrap(), "+01:00");
        assert_eq!(time_zone("system").unwrap(), "SYSTEM");
        assert_eq!(time_zone("UTC").unwrap_err().code, 1298);
    }
}
