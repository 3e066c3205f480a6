//! Which MySQL family an Arrow type belongs to (numeric, decimal, text,
//! binary, temporal), and the type's name as DESCRIBE shows it.

use arrow_schema::DataType;

use super::datetime::datetime_fsp;

pub fn is_integer(t: &DataType) -> bool {
    t.is_integer()
}

pub fn is_unsigned(t: &DataType) -> bool {
    t.is_unsigned_integer()
}

pub fn is_numeric(t: &DataType) -> bool {
    t.is_integer() || t.is_floating() || is_decimal(t) || matches!(t, DataType::Boolean)
}

pub fn is_decimal(t: &DataType) -> bool {
    matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..))
}

/// Text or a binary string: MySQL's string types (CHAR, VARCHAR, TEXT, and
/// BINARY, VARBINARY, BLOB).
pub fn is_string(t: &DataType) -> bool {
    is_text(t) || is_binary(t)
}

/// Text: characters of some charset, kept as UTF-8.
pub fn is_text(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// A binary string (charset `binary`): bytes.
pub fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

pub fn is_temporal(t: &DataType) -> bool {
    matches!(t, DataType::Date32 | DataType::Timestamp(..))
}

/// The MySQL name of a type, as DESCRIBE shows it.
pub fn mysql_type_name(t: &DataType) -> String {
    match t {
        DataType::Null => "null".into(),
        DataType::Boolean => "tinyint(1)".into(),
        DataType::Int8 => "tinyint".into(),
        DataType::Int16 => "smallint".into(),
        DataType::Int32 => "int".into(),
        DataType::Int64 => "bigint".into(),
        DataType::UInt8 => "tinyint unsigned".into(),
        DataType::UInt16 => "smallint unsigned".into(),
        DataType::UInt32 => "int unsigned".into(),
        DataType::UInt64 => "bigint unsigned".into(),
        DataType::Float32 => "float".into(),
        DataType::Float64 => "double".into(),
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => format!("decimal({p},{s})"),
        DataType::Date32 => "date".into(),
        DataType::Timestamp(..) => match datetime_fsp(t) {
            Some(n @ 1..) => format!("datetime({n})"),
            _ => "datetime".into(),
        },
        DataType::Decimal64(..) => match super::time::time_fsp(t) {
            Some(n @ 1..) => format!("time({n})"),
            _ => "time".into(),
        },
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "varchar".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "blob".into(),
        other => other.to_string(),
    }
}
