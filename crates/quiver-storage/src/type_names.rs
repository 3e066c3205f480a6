//! Stable text names of column types in table manifests.

use arrow_schema::{DataType, TimeUnit};
use quiver_common::{QuiverError, Result};

pub fn type_to_name(t: &DataType) -> Result<String> {
    Ok(match t {
        DataType::Boolean => "bool".into(),
        DataType::Int8 => "int8".into(),
        DataType::Int16 => "int16".into(),
        DataType::Int32 => "int32".into(),
        DataType::Int64 => "int64".into(),
        DataType::UInt8 => "uint8".into(),
        DataType::UInt16 => "uint16".into(),
        DataType::UInt32 => "uint32".into(),
        DataType::UInt64 => "uint64".into(),
        DataType::Float32 => "float32".into(),
        DataType::Float64 => "float64".into(),
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => format!("decimal({p},{s})"),
        DataType::Date32 => "date".into(),
        DataType::Timestamp(TimeUnit::Microsecond, None) => "datetime".into(),
        DataType::Utf8 => "utf8".into(),
        DataType::Binary => "binary".into(),
        DataType::Null => "null".into(),
        other => {
            return Err(QuiverError::not_supported(format!(
                "storing a column of type {other}"
            )))
        }
    })
}

pub fn name_to_type(s: &str) -> Result<DataType> {
    Ok(match s {
        "bool" => DataType::Boolean,
        "int8" => DataType::Int8,
        "int16" => DataType::Int16,
        "int32" => DataType::Int32,
        "int64" => DataType::Int64,
        "uint8" => DataType::UInt8,
        "uint16" => DataType::UInt16,
        "uint32" => DataType::UInt32,
        "uint64" => DataType::UInt64,
        "float32" => DataType::Float32,
        "float64" => DataType::Float64,
        "date" => DataType::Date32,
        "datetime" => DataType::Timestamp(TimeUnit::Microsecond, None),
        "utf8" => DataType::Utf8,
        "binary" => DataType::Binary,
        "null" => DataType::Null,
        d if d.starts_with("decimal(") && d.ends_with(')') => {
            let inner = &d[8..d.len() - 1];
            let (p, sc) = inner
                .split_once(',')
                .ok_or_else(|| QuiverError::io("bad type in manifest", d))?;
            // The precision picks Decimal128 or Decimal256, as for CREATE TABLE.
            quiver_common::types::decimal_type(
                p.trim()
                    .parse()
                    .map_err(|e| QuiverError::io("bad precision in manifest", e))?,
                sc.trim()
                    .parse()
                    .map_err(|e| QuiverError::io("bad scale in manifest", e))?,
            )
        }
        other => return Err(QuiverError::io("unknown type in table manifest", other)),
    })
}
