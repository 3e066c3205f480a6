//! Single SQL values: literals, constant-folded results, and cells pulled out of arrays.

use std::cmp::Ordering;
use std::fmt;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef};
use arrow_buffer::i256;
use arrow_schema::{DataType, TimeUnit};

use crate::types::datetime::{format_date, format_datetime};
use crate::types::decimal::{
    decimal_type, float_to_decimal256, format_decimal256, i256_to_f64, parse_decimal256, pow10,
    rescale256,
};
use crate::types::number_text::parse_f64_prefix;
use crate::{QuiverError, Result};

/// One SQL value. Integers keep their signedness because MySQL's
/// arithmetic and overflow rules depend on it.
#[derive(Debug, Clone, PartialEq)]
pub enum ScalarValue {
    Null,
    Boolean(bool),
    Int64(i64),
    UInt64(u64),
    /// Unscaled value, precision, scale (a Decimal128 column up to
    /// precision 38, Decimal256 beyond).
    Decimal(i256, u8, i8),
    Float64(f64),
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since 1970-01-01 00:00:00, and the DATETIME's
    /// fractional-seconds precision (0 ..= 6), which it prints with.
    DateTime(i64, u8),
    /// A TIME: signed microseconds (±838:59:59.999999), and its fsp.
    Time(i64, u8),
    Utf8(String),
    /// A binary string (charset `binary`): bytes, not text. X'FF', BINARY 'a',
    /// VARBINARY / BLOB cells.
    Binary(Vec<u8>),
}

impl ScalarValue {
    /// A DECIMAL(p, s) scalar of an i128 unscaled value.
    pub fn decimal(v: i128, p: u8, s: i8) -> ScalarValue {
        ScalarValue::Decimal(i256::from_i128(v), p, s)
    }

    pub fn is_null(&self) -> bool {
        matches!(self, ScalarValue::Null)
    }

    /// The natural Arrow type of this value (Null for NULL).
    pub fn data_type(&self) -> DataType {
        match self {
            ScalarValue::Null => DataType::Null,
            ScalarValue::Boolean(_) => DataType::Boolean,
            ScalarValue::Int64(_) => DataType::Int64,
            ScalarValue::UInt64(_) => DataType::UInt64,
            ScalarValue::Decimal(_, p, s) => decimal_type(*p, *s),
            ScalarValue::Float64(_) => DataType::Float64,
            ScalarValue::Date(_) => DataType::Date32,
            ScalarValue::DateTime(_, fsp) => crate::types::datetime::datetime_type(*fsp),
            ScalarValue::Time(_, fsp) => crate::types::time::time_type(*fsp),
            ScalarValue::Utf8(_) => DataType::Utf8,
            ScalarValue::Binary(_) => DataType::Binary,
        }
    }

    /// Reads row `i` of `array` as a scalar.
    pub fn from_array(array: &dyn Array, i: usize) -> Result<ScalarValue> {
        if array.is_null(i) {
            return Ok(ScalarValue::Null);
        }
        Ok(match array.data_type() {
            DataType::Null => ScalarValue::Null,
            DataType::Boolean => ScalarValue::Boolean(array.as_boolean().value(i)),
            DataType::Int8 => ScalarValue::Int64(array.as_primitive::<Int8Type>().value(i) as i64),
            DataType::Int16 => {
                ScalarValue::Int64(array.as_primitive::<Int16Type>().value(i) as i64)
            }
            DataType::Int32 => {
                ScalarValue::Int64(array.as_primitive::<Int32Type>().value(i) as i64)
            }
            DataType::Int64 => ScalarValue::Int64(array.as_primitive::<Int64Type>().value(i)),
            DataType::UInt8 => {
                ScalarValue::UInt64(array.as_primitive::<UInt8Type>().value(i) as u64)
            }
            DataType::UInt16 => {
                ScalarValue::UInt64(array.as_primitive::<UInt16Type>().value(i) as u64)
            }
            DataType::UInt32 => {
                ScalarValue::UInt64(array.as_primitive::<UInt32Type>().value(i) as u64)
            }
            DataType::UInt64 => ScalarValue::UInt64(array.as_primitive::<UInt64Type>().value(i)),
            DataType::Float32 => {
                ScalarValue::Float64(array.as_primitive::<Float32Type>().value(i) as f64)
            }
            DataType::Float64 => ScalarValue::Float64(array.as_primitive::<Float64Type>().value(i)),
            DataType::Decimal128(p, s) => {
                ScalarValue::decimal(array.as_primitive::<Decimal128Type>().value(i), *p, *s)
            }
            DataType::Decimal256(p, s) => {
                ScalarValue::Decimal(array.as_primitive::<Decimal256Type>().value(i), *p, *s)
            }
            DataType::Date32 => ScalarValue::Date(array.as_primitive::<Date32Type>().value(i)),
            t @ DataType::Timestamp(TimeUnit::Microsecond, _) => ScalarValue::DateTime(
                array.as_primitive::<TimestampMicrosecondType>().value(i),
                crate::types::datetime::datetime_fsp(t).unwrap_or(0),
            ),
            t @ DataType::Decimal64(..) => ScalarValue::Time(
                array.as_primitive::<Decimal64Type>().value(i),
                crate::types::time::time_fsp(t).unwrap_or(0),
            ),
            DataType::Utf8 => ScalarValue::Utf8(array.as_string::<i32>().value(i).to_string()),
            DataType::LargeUtf8 => ScalarValue::Utf8(array.as_string::<i64>().value(i).to_string()),
            DataType::Utf8View => ScalarValue::Utf8(array.as_string_view().value(i).to_string()),
            DataType::Binary => ScalarValue::Binary(array.as_binary::<i32>().value(i).to_vec()),
            DataType::LargeBinary => {
                ScalarValue::Binary(array.as_binary::<i64>().value(i).to_vec())
            }
            other => return Err(QuiverError::internal(format!("no scalar for type {other}"))),
        })
    }

    /// A numeric view for comparisons and double arithmetic.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ScalarValue::Boolean(b) => Some(*b as i64 as f64),
            ScalarValue::Int64(v) => Some(*v as f64),
            ScalarValue::UInt64(v) => Some(*v as f64),
            ScalarValue::Decimal(v, _, s) => Some(i256_to_f64(*v) / 10f64.powi(*s as i32)),
            ScalarValue::Float64(v) => Some(*v),
            ScalarValue::Date(d) => Some(*d as f64),
            ScalarValue::DateTime(t, _) => Some(*t as f64),
            // MySQL reads a TIME as the number HHMMSS.ffffff.
            ScalarValue::Time(t, _) => Some(crate::types::time::time_number(*t) as f64 / 1e6),
            ScalarValue::Utf8(s) => Some(crate::types::number_text::parse_f64_prefix(s)),
            ScalarValue::Binary(b) => Some(crate::types::number_text::parse_f64_prefix(
                &String::from_utf8_lossy(b),
            )),
            ScalarValue::Null => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            ScalarValue::Boolean(b) => Some(*b as i64),
            ScalarValue::Int64(v) => Some(*v),
            ScalarValue::UInt64(v) => i64::try_from(*v).ok(),
            // MySQL rounds half away from zero when converting to an integer.
            ScalarValue::Decimal(v, _, s) => crate::types::decimal::rescale256(*v, *s, 0)?
                .to_i128()
                .and_then(|q| i64::try_from(q).ok()),
            ScalarValue::Float64(f) => Some(f.round_ties_even() as i64),
            ScalarValue::Utf8(s) => {
                Some(crate::types::number_text::parse_f64_prefix(s).round() as i64)
            }
            ScalarValue::Binary(b) => Some(
                crate::types::number_text::parse_f64_prefix(&String::from_utf8_lossy(b)).round()
                    as i64,
            ),
            ScalarValue::Date(d) => Some(*d as i64),
            ScalarValue::DateTime(t, _) => Some(*t),
            ScalarValue::Time(t, _) => {
                let n = crate::types::time::time_number(*t);
                // CAST(TIME AS SIGNED) cuts the fraction.
                Some((n / 1_000_000) as i64)
            }
            ScalarValue::Null => None,
        }
    }

    /// SQL truth value: NULL is unknown (None), numbers are true when non-zero.
    pub fn truth(&self) -> Option<bool> {
        match self {
            ScalarValue::Null => None,
            ScalarValue::Boolean(b) => Some(*b),
            other => other.as_f64().map(|f| f != 0.0),
        }
    }

    /// Orders two non-NULL values of compatible kinds (numbers with numbers,
    /// strings byte-wise, dates with dates).
    pub fn compare(&self, other: &ScalarValue) -> Option<Ordering> {
        use ScalarValue::*;
        match (self, other) {
            (Null, _) | (_, Null) => None,
            (Utf8(a), Utf8(b)) => Some(crate::types::pad_space::compare_pad_space(
                a.as_bytes(),
                b.as_bytes(),
            )),
            // The binary collation has no padding: plain byte order.
            (Binary(a), Binary(b)) => Some(a.cmp(b)),
            (Binary(a), Utf8(b)) => Some(a.as_slice().cmp(b.as_bytes())),
            (Utf8(a), Binary(b)) => Some(a.as_bytes().cmp(b.as_slice())),
            (Int64(a), Int64(b)) => Some(a.cmp(b)),
            (UInt64(a), UInt64(b)) => Some(a.cmp(b)),
            (Int64(a), UInt64(b)) => Some((*a as i128).cmp(&(*b as i128))),
            (UInt64(a), Int64(b)) => Some((*a as i128).cmp(&(*b as i128))),
            (Date(a), Date(b)) => Some(a.cmp(b)),
            (DateTime(a, _), DateTime(b, _)) => Some(a.cmp(b)),
            (Time(a, _), Time(b, _)) => Some(a.cmp(b)),
            (Decimal(a, _, sa), Decimal(b, _, sb)) => {
                let s = (*sa).max(*sb);
                let a = crate::types::decimal::rescale256(*a, *sa, s)?;
                let b = crate::types::decimal::rescale256(*b, *sb, s)?;
                Some(a.cmp(&b))
            }
            (a, b) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        }
    }
}

impl fmt::Display for ScalarValue {
    /// MySQL's text-protocol rendering.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Null => write!(f, "NULL"),
            ScalarValue::Boolean(b) => write!(f, "{}", *b as i32),
            ScalarValue::Int64(v) => write!(f, "{v}"),
            ScalarValue::UInt64(v) => write!(f, "{v}"),
            ScalarValue::Decimal(v, _, s) => write!(f, "{}", format_decimal256(*v, *s)),
            ScalarValue::Float64(v) => {
                write!(f, "{}", crate::types::number_text::format_double(*v))
            }
            ScalarValue::Date(d) => write!(f, "{}", format_date(*d)),
            ScalarValue::DateTime(t, fsp) => write!(f, "{}", format_datetime(*t, *fsp)),
            ScalarValue::Time(t, fsp) => write!(f, "{}", crate::types::time::format_time(*t, *fsp)),
            ScalarValue::Utf8(s) => write!(f, "{s}"),
            // Bytes that are not UTF-8 cannot be text; shown as the
            // replacement character (HEX() shows them exactly).
            ScalarValue::Binary(b) => write!(f, "{}", String::from_utf8_lossy(b)),
        }
    }
}

/// Converts a value to an unscaled decimal at `scale`, rounding half away from zero.
/// (Also `quiver_common::types::to_decimal`, its home before: a type rule that
/// reads a value, kept with the value so this file needs no file that needs it.)
pub fn to_decimal(v: &ScalarValue, scale: i8) -> Result<i128> {
    to_decimal256(v, scale)?
        .to_i128()
        .ok_or_else(|| QuiverError::out_of_range("DECIMAL", &v.to_string()))
}

/// [`to_decimal`] with room for 76 digits.
pub fn to_decimal256(v: &ScalarValue, scale: i8) -> Result<i256> {
    let overflow = || QuiverError::out_of_range("DECIMAL", &v.to_string());
    let m = pow10(scale.max(0) as u32).ok_or_else(overflow)?;
    match v {
        ScalarValue::Decimal(u, _, s) => rescale256(*u, *s, scale).ok_or_else(overflow),
        ScalarValue::Int64(i) => i256::from(*i).checked_mul(m).ok_or_else(overflow),
        ScalarValue::UInt64(i) => i256::from_i128(*i as i128)
            .checked_mul(m)
            .ok_or_else(overflow),
        ScalarValue::Boolean(b) => Ok(if *b { m } else { i256::ZERO }),
        ScalarValue::Time(t, _) => rescale256(
            i256::from_i128(crate::types::time::time_number(*t)),
            6,
            scale,
        )
        .ok_or_else(overflow),
        ScalarValue::Utf8(s) => match parse_decimal256(s.trim()) {
            Some((u, s0)) => rescale256(u, s0, scale).ok_or_else(overflow),
            None => float_to_decimal256(parse_f64_prefix(s), scale).ok_or_else(overflow),
        },
        other => float_to_decimal256(other.as_f64().unwrap_or(0.0), scale).ok_or_else(overflow),
    }
}

/// Builds an array of `n` copies of `value` with type `data_type`.
pub fn scalar_to_array(value: &ScalarValue, data_type: &DataType, n: usize) -> Result<ArrayRef> {
    use arrow_array::*;
    use std::sync::Arc;
    if value.is_null() {
        return Ok(arrow_array::new_null_array(data_type, n));
    }
    let v = value;
    Ok(match data_type {
        DataType::Null => new_null_array(data_type, n),
        DataType::Boolean => Arc::new(BooleanArray::from(vec![v.truth().unwrap_or(false); n])),
        DataType::Int8 => Arc::new(Int8Array::from_value(v.as_i64().unwrap_or(0) as i8, n)),
        DataType::Int16 => Arc::new(Int16Array::from_value(v.as_i64().unwrap_or(0) as i16, n)),
        DataType::Int32 => Arc::new(Int32Array::from_value(v.as_i64().unwrap_or(0) as i32, n)),
        DataType::Int64 => Arc::new(Int64Array::from_value(v.as_i64().unwrap_or(0), n)),
        DataType::UInt8 => Arc::new(UInt8Array::from_value(v.as_i64().unwrap_or(0) as u8, n)),
        DataType::UInt16 => Arc::new(UInt16Array::from_value(v.as_i64().unwrap_or(0) as u16, n)),
        DataType::UInt32 => Arc::new(UInt32Array::from_value(v.as_i64().unwrap_or(0) as u32, n)),
        DataType::UInt64 => {
            let u = match v {
                ScalarValue::UInt64(u) => *u,
                other => other.as_i64().unwrap_or(0) as u64,
            };
            Arc::new(UInt64Array::from_value(u, n))
        }
        DataType::Float32 => Arc::new(Float32Array::from_value(
            v.as_f64().unwrap_or(0.0) as f32,
            n,
        )),
        DataType::Float64 => Arc::new(Float64Array::from_value(v.as_f64().unwrap_or(0.0), n)),
        DataType::Decimal128(p, s) => {
            let unscaled = to_decimal(v, *s)?;
            Arc::new(Decimal128Array::from_value(unscaled, n).with_precision_and_scale(*p, *s)?)
        }
        DataType::Decimal256(p, s) => {
            let unscaled = to_decimal256(v, *s)?;
            Arc::new(Decimal256Array::from_value(unscaled, n).with_precision_and_scale(*p, *s)?)
        }
        DataType::Date32 => {
            let d = match v {
                ScalarValue::Date(d) => *d,
                ScalarValue::DateTime(t, _) => t.div_euclid(86_400_000_000) as i32,
                ScalarValue::Utf8(s) => crate::types::datetime::parse_date(s)
                    .ok_or_else(|| QuiverError::truncated_value("date", s))?,
                other => {
                    return Err(QuiverError::internal(format!(
                        "cannot make a date of {other:?}"
                    )))
                }
            };
            Arc::new(Date32Array::from_value(d, n))
        }
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            let fsp = crate::types::datetime::datetime_fsp(data_type).unwrap_or(0);
            let t = match v {
                ScalarValue::Date(d) => *d as i64 * 86_400_000_000,
                ScalarValue::DateTime(t, _) => crate::types::datetime::truncate_fsp(*t, fsp),
                ScalarValue::Utf8(s) => crate::types::datetime::parse_datetime(s)
                    .map(|t| crate::types::datetime::truncate_fsp(t, fsp))
                    .ok_or_else(|| QuiverError::truncated_value("datetime", s))?,
                other => {
                    return Err(QuiverError::internal(format!(
                        "cannot make a datetime of {other:?}"
                    )))
                }
            };
            Arc::new(TimestampMicrosecondArray::from_value(t, n).with_timezone_opt(tz.clone()))
        }
        DataType::Decimal64(..) => {
            let fsp = crate::types::time::time_fsp(data_type).unwrap_or(0);
            let t = match v {
                ScalarValue::Time(t, _) => *t,
                ScalarValue::DateTime(t, _) => t.rem_euclid(86_400_000_000),
                ScalarValue::Utf8(s) => crate::types::time::parse_time(s)
                    .value()
                    .ok_or_else(|| QuiverError::truncated_value("time", s))?,
                other => {
                    return Err(QuiverError::internal(format!(
                        "cannot make a time of {other:?}"
                    )))
                }
            };
            let t = crate::types::time::truncate_time(t, fsp);
            Arc::new(Decimal64Array::from_value(t, n).with_data_type(data_type.clone()))
        }
        DataType::Binary => {
            let bytes: Vec<u8> = match v {
                ScalarValue::Binary(b) => b.clone(),
                other => other.to_string().into_bytes(),
            };
            Arc::new(BinaryArray::from_iter_values(std::iter::repeat_n(
                bytes.as_slice(),
                n,
            )))
        }
        DataType::Utf8 => {
            let s = v.to_string();
            Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                s.as_str(),
                n,
            )))
        }
        other => return Err(QuiverError::internal(format!("no array for type {other}"))),
    })
}
