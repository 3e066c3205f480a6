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
        // DATETIME(0) is `datetime`, as it has always been written.
        t @ DataType::Timestamp(TimeUnit::Microsecond, _) => {
            match quiver_common::types::datetime_fsp(t) {
                Some(0) | None => "datetime".into(),
                Some(n) => format!("datetime({n})"),
            }
        }
        t @ DataType::Decimal64(..) => match quiver_common::types::time_fsp(t) {
            Some(0) | None => "time".into(),
            Some(n) => format!("time({n})"),
        },
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
        // Manifests written before DATETIME kept its precision say
        // `datetime`: MySQL's DATETIME, fraction digits 0.
        "datetime" => quiver_common::types::datetime_type(0),
        "time" => quiver_common::types::time_type(0),
        "utf8" => DataType::Utf8,
        "binary" => DataType::Binary,
        "null" => DataType::Null,
        d if d.starts_with("datetime(") && d.ends_with(')') => {
            let fsp: u8 = d[9..d.len() - 1]
                .trim()
                .parse()
                .ok()
                .filter(|n| *n <= quiver_common::types::MAX_FSP)
                .ok_or_else(|| QuiverError::io("bad datetime precision in manifest", d))?;
            quiver_common::types::datetime_type(fsp)
        }
        d if d.starts_with("time(") && d.ends_with(')') => {
            let fsp: u8 = d[5..d.len() - 1]
                .trim()
                .parse()
                .ok()
                .filter(|n| *n <= quiver_common::types::MAX_FSP)
                .ok_or_else(|| QuiverError::io("bad time precision in manifest", d))?;
            quiver_common::types::time_type(fsp)
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use quiver_common::types::datetime_type;

    #[test]
    fn datetime_names_keep_the_precision() {
        for fsp in 0..=6 {
            let t = datetime_type(fsp);
            assert_eq!(name_to_type(&type_to_name(&t).unwrap()).unwrap(), t);
        }
        // What manifests have always said: plain DATETIME, no fraction digits.
        assert_eq!(type_to_name(&datetime_type(0)).unwrap(), "datetime");
        assert_eq!(name_to_type("datetime").unwrap(), datetime_type(0));
        assert_eq!(type_to_name(&datetime_type(3)).unwrap(), "datetime(3)");
        assert!(name_to_type("datetime(7)").is_err());
    }
}
