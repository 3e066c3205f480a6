//! Casts between column types with MySQL's conversions: strings read as
//! numbers by their numeric prefix, unparseable dates become NULL, decimals round.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array,
    Float64Array, PrimitiveArray, TimestampMicrosecondArray,
};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};
use quiver_common::types::{self, parse_date, parse_datetime, parse_f64_prefix, rescale};
use quiver_common::{QuiverError, Result, ScalarValue};

/// Exact integer view of an integer-like array as i128, or None if not integer-like.
fn ints(a: &dyn Array) -> Option<Vec<i128>> {
    macro_rules! conv {
        ($t:ty) => {
            a.as_primitive::<$t>()
                .values()
                .iter()
                .map(|v| *v as i128)
                .collect()
        };
    }
    Some(match a.data_type() {
        DataType::Int8 => conv!(Int8Type),
        DataType::Int16 => conv!(Int16Type),
        DataType::Int32 => conv!(Int32Type),
        DataType::Int64 => conv!(Int64Type),
        DataType::UInt8 => conv!(UInt8Type),
        DataType::UInt16 => conv!(UInt16Type),
        DataType::UInt32 => conv!(UInt32Type),
        DataType::UInt64 => conv!(UInt64Type),
        DataType::Boolean => a.as_boolean().values().iter().map(|b| b as i128).collect(),
        _ => return None,
    })
}

fn floats(a: &dyn Array) -> Result<Vec<f64>> {
    Ok(match a.data_type() {
        DataType::Float64 => a.as_primitive::<Float64Type>().values().to_vec(),
        DataType::Float32 => a
            .as_primitive::<Float32Type>()
            .values()
            .iter()
            .map(|v| *v as f64)
            .collect(),
        DataType::Decimal128(_, s) => {
            let d = 10f64.powi(*s as i32);
            a.as_primitive::<Decimal128Type>()
                .values()
                .iter()
                .map(|v| *v as f64 / d)
                .collect()
        }
        DataType::Utf8 => a
            .as_string::<i32>()
            .iter()
            .map(|s| s.map(parse_f64_prefix).unwrap_or(0.0))
            .collect(),
        DataType::Date32 => a
            .as_primitive::<Date32Type>()
            .values()
            .iter()
            .map(|d| date_number(*d) as f64)
            .collect(),
        _ => match ints(a) {
            Some(v) => v.into_iter().map(|x| x as f64).collect(),
            None => {
                return Err(QuiverError::not_supported(format!(
                    "cast of {} to a number",
                    a.data_type()
                )))
            }
        },
    })
}

/// A date in numeric context is YYYYMMDD, as in MySQL.
fn date_number(d: i32) -> i64 {
    let (y, m, dd) = types::civil_from_days(d);
    y as i64 * 10000 + m as i64 * 100 + dd as i64
}

fn with_nulls<T: arrow_array::ArrowPrimitiveType>(
    values: Vec<T::Native>,
    nulls: Option<NullBuffer>,
) -> PrimitiveArray<T> {
    PrimitiveArray::<T>::new(values.into(), nulls)
}

fn int_target<T: arrow_array::ArrowPrimitiveType>(
    a: &dyn Array,
    conv: impl Fn(i128) -> T::Native,
) -> Result<ArrayRef>
where
    PrimitiveArray<T>: From<Vec<T::Native>>,
{
    let nulls = a.logical_nulls();
    let v: Vec<T::Native> = match a.data_type() {
        DataType::Decimal128(_, s) => a
            .as_primitive::<Decimal128Type>()
            .values()
            .iter()
            .map(|v| conv(rescale(*v, *s, 0).unwrap_or(0)))
            .collect(),
        // A DOUBLE rounds half to even (rint), a numeric string half away from zero.
        DataType::Float64 | DataType::Float32 => floats(a)?
            .into_iter()
            .map(|f| conv(f.round_ties_even() as i128))
            .collect(),
        DataType::Utf8 => floats(a)?
            .into_iter()
            .map(|f| conv(f.round() as i128))
            .collect(),
        DataType::Date32 => a
            .as_primitive::<Date32Type>()
            .values()
            .iter()
            .map(|d| conv(date_number(*d) as i128))
            .collect(),
        _ => ints(a)
            .ok_or_else(|| {
                QuiverError::not_supported(format!("cast of {} to an integer", a.data_type()))
            })?
            .into_iter()
            .map(conv)
            .collect(),
    };
    Ok(Arc::new(with_nulls::<T>(v, nulls)))
}

pub fn cast_array(a: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    let from = a.data_type();
    if from == to {
        return Ok(a.clone());
    }
    if from == &DataType::Null {
        return Ok(arrow_array::new_null_array(to, a.len()));
    }
    let nulls = a.logical_nulls();
    Ok(match to {
        DataType::Int8 => int_target::<Int8Type>(a, |v| v as i8)?,
        DataType::Int16 => int_target::<Int16Type>(a, |v| v as i16)?,
        DataType::Int32 => int_target::<Int32Type>(a, |v| v as i32)?,
        DataType::Int64 => {
            int_target::<Int64Type>(a, |v| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64)?
        }
        DataType::UInt8 => int_target::<UInt8Type>(a, |v| v as u8)?,
        DataType::UInt16 => int_target::<UInt16Type>(a, |v| v as u16)?,
        DataType::UInt32 => int_target::<UInt32Type>(a, |v| v as u32)?,
        DataType::UInt64 => int_target::<UInt64Type>(a, |v| v.clamp(0, u64::MAX as i128) as u64)?,
        DataType::Float64 => Arc::new(Float64Array::new(floats(a)?.into(), nulls)),
        DataType::Float32 => {
            let v: Vec<f32> = floats(a)?.into_iter().map(|f| f as f32).collect();
            Arc::new(with_nulls::<Float32Type>(v, nulls))
        }
        DataType::Decimal128(p, s) => {
            let v: Vec<i128> = match from {
                DataType::Decimal128(_, s0) if s0 == s => {
                    a.as_primitive::<Decimal128Type>().values().to_vec()
                }
                DataType::Decimal128(_, s0) => {
                    let mut of = false;
                    let v = a
                        .as_primitive::<Decimal128Type>()
                        .values()
                        .iter()
                        .map(|x| {
                            rescale(*x, *s0, *s).unwrap_or_else(|| {
                                of = true;
                                0
                            })
                        })
                        .collect();
                    if of {
                        return Err(QuiverError::out_of_range("DECIMAL", "cast"));
                    }
                    v
                }
                DataType::Utf8 => {
                    let s = *s;
                    a.as_string::<i32>()
                        .iter()
                        .map(|x| {
                            x.map(|t| types::to_decimal(&ScalarValue::Utf8(t.to_string()), s))
                                .transpose()
                        })
                        .map(|r| r.map(|o| o.unwrap_or(0)))
                        .collect::<Result<_>>()?
                }
                DataType::Float64 | DataType::Float32 => {
                    let m = 10f64.powi(*s as i32);
                    floats(a)?
                        .into_iter()
                        .map(|f| (f * m).round() as i128)
                        .collect()
                }
                _ => {
                    let m = 10i128.pow(*s as u32);
                    match ints(a) {
                        Some(v) => v.into_iter().map(|x| x * m).collect(),
                        None => {
                            let mf = m as f64;
                            floats(a)?
                                .into_iter()
                                .map(|f| (f * mf).round() as i128)
                                .collect()
                        }
                    }
                }
            };
            Arc::new(Decimal128Array::new(v.into(), nulls).with_precision_and_scale(*p, *s)?)
        }
        DataType::Date32 => match from {
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                let v: Vec<i32> = a
                    .as_primitive::<TimestampMicrosecondType>()
                    .values()
                    .iter()
                    .map(|t| t.div_euclid(86_400_000_000) as i32)
                    .collect();
                Arc::new(Date32Array::new(v.into(), nulls))
            }
            DataType::Utf8 => Arc::new(
                a.as_string::<i32>()
                    .iter()
                    .map(|s| s.and_then(parse_date))
                    .collect::<Date32Array>(),
            ),
            other => {
                return Err(QuiverError::not_supported(format!(
                    "cast of {other} to DATE"
                )))
            }
        },
        DataType::Timestamp(TimeUnit::Microsecond, _) => match from {
            DataType::Date32 => {
                let v: Vec<i64> = a
                    .as_primitive::<Date32Type>()
                    .values()
                    .iter()
                    .map(|d| *d as i64 * 86_400_000_000)
                    .collect();
                Arc::new(TimestampMicrosecondArray::new(v.into(), nulls))
            }
            DataType::Utf8 => Arc::new(
                a.as_string::<i32>()
                    .iter()
                    .map(|s| s.and_then(parse_datetime))
                    .collect::<TimestampMicrosecondArray>(),
            ),
            other => {
                return Err(QuiverError::not_supported(format!(
                    "cast of {other} to DATETIME"
                )))
            }
        },
        DataType::Boolean => {
            let f = floats(a)?;
            Arc::new(BooleanArray::new(
                BooleanBuffer::collect_bool(f.len(), |i| f[i] != 0.0),
                nulls,
            ))
        }
        DataType::Utf8 => {
            let mut b = StringBuilder::with_capacity(a.len(), a.len() * 8);
            for i in 0..a.len() {
                if a.is_null(i) {
                    b.append_null();
                } else {
                    b.append_value(ScalarValue::from_array(a, i)?.to_string());
                }
            }
            Arc::new(b.finish())
        }
        other => return Err(QuiverError::not_supported(format!("cast to {other}"))),
    })
}
