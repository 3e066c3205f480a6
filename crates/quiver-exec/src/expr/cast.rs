//! Casts between column types with MySQL's conversions: strings read as
//! numbers by their numeric prefix, unparseable dates become NULL, decimals round.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{
    cast::AsArray, downcast_integer, types::*, Array, ArrayRef, BooleanArray, Date32Array,
    Decimal128Array, Decimal256Array, Float64Array, PrimitiveArray, TimestampMicrosecondArray,
};
use arrow_buffer::{i256, BooleanBuffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};
use quiver_common::types::{
    self, i256_to_f64, number_read, parse_date, parse_datetime, parse_f64_prefix, pow10, rescale,
    rescale256, NumberRead,
};
use quiver_common::{QuiverError, Result, ScalarValue};

use crate::warnings::{self, Level};

/// An integer column cast to an integer type that holds all its values
/// (INT to BIGINT, as every `int_column + 1` does): one conversion per value
/// that the compiler vectorizes, where the general path goes through i128
/// and clamps.
fn widen_int(a: &ArrayRef, to: &DataType) -> Option<ArrayRef> {
    fn widen<F: ArrowPrimitiveType, T: ArrowPrimitiveType>(a: &ArrayRef) -> ArrayRef
    where
        F::Native: Into<T::Native>,
    {
        Arc::new(a.as_primitive::<F>().unary::<_, T>(|v| v.into()))
    }
    use DataType::*;
    Some(match (a.data_type(), to) {
        (Int8, Int16) => widen::<Int8Type, Int16Type>(a),
        (Int8, Int32) => widen::<Int8Type, Int32Type>(a),
        (Int8, Int64) => widen::<Int8Type, Int64Type>(a),
        (Int16, Int32) => widen::<Int16Type, Int32Type>(a),
        (Int16, Int64) => widen::<Int16Type, Int64Type>(a),
        (Int32, Int64) => widen::<Int32Type, Int64Type>(a),
        (UInt8, Int16) => widen::<UInt8Type, Int16Type>(a),
        (UInt8, Int32) => widen::<UInt8Type, Int32Type>(a),
        (UInt8, Int64) => widen::<UInt8Type, Int64Type>(a),
        (UInt16, Int32) => widen::<UInt16Type, Int32Type>(a),
        (UInt16, Int64) => widen::<UInt16Type, Int64Type>(a),
        (UInt32, Int64) => widen::<UInt32Type, Int64Type>(a),
        (UInt8, UInt16) => widen::<UInt8Type, UInt16Type>(a),
        (UInt8, UInt32) => widen::<UInt8Type, UInt32Type>(a),
        (UInt8, UInt64) => widen::<UInt8Type, UInt64Type>(a),
        (UInt16, UInt32) => widen::<UInt16Type, UInt32Type>(a),
        (UInt16, UInt64) => widen::<UInt16Type, UInt64Type>(a),
        (UInt32, UInt64) => widen::<UInt32Type, UInt64Type>(a),
        _ => return None,
    })
}

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
    Some(downcast_integer! {
        a.data_type() => (conv),
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
        DataType::Decimal256(_, s) => {
            let d = 10f64.powi(*s as i32);
            a.as_primitive::<Decimal256Type>()
                .values()
                .iter()
                .map(|v| i256_to_f64(*v) / d)
                .collect()
        }
        DataType::Utf8 => {
            warn_bad_numbers(a, "DOUBLE", false);
            a.as_string::<i32>()
                .iter()
                .map(|s| s.map(parse_f64_prefix).unwrap_or(0.0))
                .collect()
        }
        DataType::Date32 => a
            .as_primitive::<Date32Type>()
            .values()
            .iter()
            .map(|d| date_number(*d) as f64)
            .collect(),
        // A TIME is the number HHMMSS.ffffff.
        DataType::Decimal64(..) => super::time_cast::time_numbers(a)
            .into_iter()
            .map(|n| n as f64 / 1e6)
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

/// A datetime in numeric context, YYYYMMDDhhmmss.ffffff, as an unscaled
/// decimal of scale 6.
fn datetime_number(micros: i64) -> i128 {
    let days = micros.div_euclid(86_400_000_000);
    let rem = micros.rem_euclid(86_400_000_000);
    let secs = rem / 1_000_000;
    let hms = secs / 3600 * 10_000 + secs / 60 % 60 * 100 + secs % 60;
    let whole = date_number(days as i32) as i128 * 1_000_000 + hms as i128;
    whole * 1_000_000 + (rem % 1_000_000) as i128
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
        // Beyond i128 the integer targets saturate anyway.
        DataType::Decimal256(_, s) => a
            .as_primitive::<Decimal256Type>()
            .values()
            .iter()
            .map(|v| {
                let q = rescale256(*v, *s, 0).unwrap_or(i256::ZERO);
                conv(q.to_i128().unwrap_or(if q.is_negative() {
                    i128::MIN
                } else {
                    i128::MAX
                }))
            })
            .collect(),
        // A DOUBLE rounds half to even (rint), a numeric string half away from zero.
        DataType::Float64 | DataType::Float32 => floats(a)?
            .into_iter()
            .map(|f| conv(f.round_ties_even() as i128))
            .collect(),
        DataType::Utf8 => {
            warn_bad_numbers(a, "INTEGER", false);
            a.as_string::<i32>()
                .iter()
                .map(|s| conv(s.map(parse_f64_prefix).unwrap_or(0.0).round() as i128))
                .collect()
        }
        DataType::Date32 => a
            .as_primitive::<Date32Type>()
            .values()
            .iter()
            .map(|d| conv(date_number(*d) as i128))
            .collect(),
        // CAST(datetime AS SIGNED): YYYYMMDDhhmmss, the fraction cut (MariaDB).
        DataType::Timestamp(TimeUnit::Microsecond, _) => a
            .as_primitive::<TimestampMicrosecondType>()
            .values()
            .iter()
            .map(|t| conv(datetime_number(*t) / 1_000_000))
            .collect(),
        // CAST(time AS SIGNED): HHMMSS, the fraction cut (MariaDB).
        DataType::Decimal64(..) => super::time_cast::time_numbers(a)
            .into_iter()
            .map(|n| conv(n / 1_000_000))
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
    if let Some(out) = binary_cast(a, to)? {
        return Ok(out);
    }
    if let Some(out) = widen_int(a, to) {
        return Ok(out);
    }
    let nulls = a.logical_nulls();
    Ok(match to {
        DataType::Decimal64(..) => super::time_cast::cast_to_time(a, to)?,
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
        DataType::Decimal256(p, s) => {
            let v = wide_decimals(a, *s, &mut |_| None)?;
            Arc::new(Decimal256Array::new(v.into(), nulls).with_precision_and_scale(*p, *s)?)
        }
        DataType::Decimal128(p, s) if matches!(from, DataType::Decimal256(..)) => {
            let v = wide_decimals(a, *s, &mut |_| None)?
                .into_iter()
                .map(|x| {
                    x.to_i128()
                        .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "cast"))
                })
                .collect::<Result<Vec<i128>>>()?;
            Arc::new(Decimal128Array::new(v.into(), nulls).with_precision_and_scale(*p, *s)?)
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
                    warn_bad_numbers(a, "DECIMAL", false);
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
                // HHMMSS.ffffff, rounded to the scale.
                DataType::Decimal64(..) => super::time_cast::time_numbers(a.as_ref())
                    .into_iter()
                    .map(|n| rescale(n, 6, *s).unwrap_or(0))
                    .collect(),
                // YYYYMMDDhhmmss.ffffff, rounded to the scale.
                DataType::Timestamp(TimeUnit::Microsecond, _) => a
                    .as_primitive::<TimestampMicrosecondType>()
                    .values()
                    .iter()
                    .map(|t| rescale(datetime_number(*t), 6, *s).unwrap_or(0))
                    .collect(),
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
        // Into DATETIME(fsp): the digits beyond fsp are cut (MySQL truncates
        // a value stored or cast into fewer digits); into more digits the
        // values stay as they are and only the type changes.
        DataType::Timestamp(TimeUnit::Microsecond, tag) => {
            let fsp = types::datetime_fsp(to).unwrap_or(0);
            let out = match from {
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    let v = a.as_primitive::<TimestampMicrosecondType>();
                    if types::datetime_fsp(from).unwrap_or(0) <= fsp {
                        v.clone()
                    } else {
                        v.unary(|t| types::truncate_fsp(t, fsp))
                    }
                }
                DataType::Date32 => {
                    let v: Vec<i64> = a
                        .as_primitive::<Date32Type>()
                        .values()
                        .iter()
                        .map(|d| *d as i64 * 86_400_000_000)
                        .collect();
                    TimestampMicrosecondArray::new(v.into(), nulls)
                }
                DataType::Utf8 => a
                    .as_string::<i32>()
                    .iter()
                    .map(|s| {
                        s.and_then(parse_datetime)
                            .map(|t| types::truncate_fsp(t, fsp))
                    })
                    .collect::<TimestampMicrosecondArray>(),
                other => {
                    return Err(QuiverError::not_supported(format!(
                        "cast of {other} to DATETIME"
                    )))
                }
            };
            Arc::new(out.with_timezone_opt(tag.clone()))
        }
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
        // A column typed NULL (`SELECT NULL UNION SELECT NULL`, MIN(NULL)):
        // NULL whatever it held.
        DataType::Null => arrow_array::new_null_array(&DataType::Null, a.len()),
        other => return Err(QuiverError::not_supported(format!("cast to {other}"))),
    })
}

/// Casts from or to binary strings. A binary value read as a number or a
/// date reads its bytes as text (`CAST(X'3132' AS SIGNED)` is 12); as text
/// it is its bytes in utf8mb4 with `?` for each invalid byte (the binder
/// writes charset conversions as `ToCharset`; this is the fallback). A value
/// cast to binary is its text's UTF-8 bytes. None: no binary string involved.
fn binary_cast(a: &ArrayRef, to: &DataType) -> Result<Option<ArrayRef>> {
    let from = a.data_type();
    if from == &DataType::Binary {
        let text =
            crate::bytes::decode_array(quiver_collation::Charset::Utf8mb4, a.as_binary::<i32>());
        return Ok(Some(match to {
            DataType::Utf8 => text,
            to => cast_array(&text, to)?,
        }));
    }
    if to != &DataType::Binary {
        return Ok(None);
    }
    let text = cast_array(a, &DataType::Utf8)?;
    Ok(Some(Arc::new(
        crate::bytes::byte_view(text.as_ref()).expect("text"),
    )))
}

/// CAST(x AS type) / CONVERT(x, type) as the SQL operator converts, where
/// that differs from the conversion of a value stored into a column
/// ([`cast_array`]): between SIGNED and UNSIGNED integers wrap around, a
/// string is read as an integer (digits up to the first other character, no
/// exponent), a DECIMAL(p, s) clamps to its largest value (MySQL warns), and
/// a number is read as a YYYYMMDD[hhmmss] date.
pub fn sql_cast(a: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    let from = a.data_type();
    if from == to || from == &DataType::Null {
        return cast_array(a, to);
    }
    if from == &DataType::Binary {
        // Bytes read as text, then converted as text is.
        let text =
            crate::bytes::decode_array(quiver_collation::Charset::Utf8mb4, a.as_binary::<i32>());
        return sql_cast(&text, to);
    }
    let nulls = a.logical_nulls();
    Ok(match (from, to) {
        (DataType::UInt64, DataType::Int64) => {
            let v: Vec<i64> = a
                .as_primitive::<UInt64Type>()
                .values()
                .iter()
                .map(|x| *x as i64)
                .collect();
            Arc::new(with_nulls::<Int64Type>(v, nulls))
        }
        (f, DataType::UInt64) if f.is_signed_integer() || f == &DataType::Boolean => {
            let v: Vec<u64> = ints(a.as_ref())
                .expect("integer")
                .into_iter()
                .map(|x| x as i64 as u64)
                .collect();
            Arc::new(with_nulls::<UInt64Type>(v, nulls))
        }
        (DataType::Utf8, DataType::Int64 | DataType::UInt64) => {
            warn_bad_numbers(a, "INTEGER", true);
            let v: Vec<u64> = a
                .as_string::<i32>()
                .iter()
                .map(|s| s.map(string_to_u64).unwrap_or(0))
                .collect();
            if to == &DataType::Int64 {
                let v = v.into_iter().map(|x| x as i64).collect();
                Arc::new(with_nulls::<Int64Type>(v, nulls))
            } else {
                Arc::new(with_nulls::<UInt64Type>(v, nulls))
            }
        }
        (DataType::Decimal256(..), DataType::Decimal128(p, s))
        | (_, DataType::Decimal256(p, s)) => clamp_wide_decimal(a, *p, *s)?,
        (_, DataType::Decimal128(p, s)) => clamp_decimal(a, *p, *s)?,
        (f, DataType::Date32 | DataType::Timestamp(TimeUnit::Microsecond, _))
            if types::is_numeric(f) =>
        {
            let date = to == &DataType::Date32;
            let v: Vec<Option<i64>> = number_parts(a)?
                .into_iter()
                .map(|n| {
                    let micros = number_to_datetime(n?)?;
                    Some(if date {
                        micros.div_euclid(86_400_000_000)
                    } else {
                        micros
                    })
                })
                .collect();
            if date {
                Arc::new(
                    v.into_iter()
                        .map(|d| d.map(|d| d as i32))
                        .collect::<Date32Array>(),
                )
            } else {
                let fsp = types::datetime_fsp(to).unwrap_or(0);
                let tag = match to {
                    DataType::Timestamp(_, tag) => tag.clone(),
                    _ => None,
                };
                Arc::new(
                    v.into_iter()
                        .map(|t| t.map(|t| types::truncate_fsp(t, fsp)))
                        .collect::<TimestampMicrosecondArray>()
                        .with_timezone_opt(tag),
                )
            }
        }
        _ => cast_array(a, to)?,
    })
}

/// A string read as MySQL's CAST reads an integer: leading spaces, a sign,
/// then digits up to the first other character. Beyond the range a positive
/// value is 2^64 - 1 and a negative one -2^63; a negative value is kept as
/// its two's complement (CAST('-1' AS UNSIGNED) is 2^64 - 1).
fn string_to_u64(s: &str) -> u64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: u128 = 0;
    for b in digits.bytes().take_while(|b| b.is_ascii_digit()) {
        v = (v * 10 + (b - b'0') as u128).min(u64::MAX as u128 + 1);
    }
    if neg {
        (-(v.min(1 << 63) as i128)) as i64 as u64
    } else {
        v.min(u64::MAX as u128) as u64
    }
}

/// Values at scale `s`, clamped to the largest DECIMAL(p, s) of their sign.
fn clamp_decimal(a: &ArrayRef, p: u8, s: i8) -> Result<ArrayRef> {
    let max = 10i128.pow(p as u32) - 1;
    let clamp = |v: i128| v.clamp(-max, max);
    let saturated = |neg: bool| if neg { -max } else { max };
    let nulls = a.logical_nulls();
    let v: Vec<i128> = match a.data_type() {
        DataType::Decimal128(_, s0) => a
            .as_primitive::<Decimal128Type>()
            .values()
            .iter()
            .map(|x| rescale(*x, *s0, s).map_or(saturated(*x < 0), clamp))
            .collect(),
        DataType::Float64 | DataType::Float32 => {
            let m = 10f64.powi(s as i32);
            floats(a)?
                .into_iter()
                .map(|f| {
                    let x = (f * m).round();
                    if x.abs() >= 1e38 {
                        saturated(x < 0.0)
                    } else {
                        clamp(x as i128)
                    }
                })
                .collect()
        }
        DataType::Utf8 => {
            warn_bad_numbers(a, "DECIMAL", false);
            a.as_string::<i32>()
                .iter()
                .map(|x| {
                    let Some(t) = x else { return 0 };
                    match types::to_decimal(&ScalarValue::Utf8(t.to_string()), s) {
                        Ok(v) => clamp(v),
                        Err(_) => saturated(t.trim_start().starts_with('-')),
                    }
                })
                .collect()
        }
        f if ints(a.as_ref()).is_some() && f != &DataType::Date32 => {
            let m = 10i128.pow(s as u32);
            ints(a.as_ref())
                .expect("integer")
                .into_iter()
                .map(|x| x.checked_mul(m).map_or(saturated(x < 0), clamp))
                .collect()
        }
        _ => {
            let wide = cast_array(a, &DataType::Decimal128(38, s))?;
            wide.as_primitive::<Decimal128Type>()
                .values()
                .iter()
                .map(|x| clamp(*x))
                .collect()
        }
    };
    Ok(Arc::new(
        Decimal128Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
    ))
}

/// Values of any numeric or string array as i256 at scale `s`, rounded half
/// away from zero; `overflow(negative)` gives the value of one that does not
/// fit (None: error 1690).
fn wide_decimals(
    a: &ArrayRef,
    s: i8,
    overflow: &mut dyn FnMut(bool) -> Option<i256>,
) -> Result<Vec<i256>> {
    let mut fix = |v: Option<i256>, neg: bool| -> Result<i256> {
        match v {
            Some(v) => Ok(v),
            None => overflow(neg).ok_or_else(|| QuiverError::out_of_range("DECIMAL", "cast")),
        }
    };
    let m = pow10(s.max(0) as u32).expect("scale <= 76");
    let valid = |i: usize| a.is_valid(i);
    Ok(match a.data_type() {
        DataType::Decimal256(_, s0) => {
            let v = a.as_primitive::<Decimal256Type>().values();
            let mut out = Vec::with_capacity(v.len());
            for (i, x) in v.iter().enumerate() {
                let r = rescale256(*x, *s0, s);
                out.push(if valid(i) {
                    fix(r, x.is_negative())?
                } else {
                    i256::ZERO
                });
            }
            out
        }
        DataType::Decimal128(_, s0) => {
            let v = a.as_primitive::<Decimal128Type>().values();
            let mut out = Vec::with_capacity(v.len());
            for (i, x) in v.iter().enumerate() {
                let r = rescale256(i256::from_i128(*x), *s0, s);
                out.push(if valid(i) {
                    fix(r, *x < 0)?
                } else {
                    i256::ZERO
                });
            }
            out
        }
        DataType::Utf8 => {
            let mut out = Vec::with_capacity(a.len());
            for t in a.as_string::<i32>().iter() {
                out.push(match t {
                    None => i256::ZERO,
                    Some(t) => {
                        let r = types::to_decimal256(&ScalarValue::Utf8(t.to_string()), s).ok();
                        fix(r, t.trim_start().starts_with('-'))?
                    }
                });
            }
            out
        }
        DataType::Date32 => {
            let v = floats(a)?;
            v.into_iter()
                .map(|f| i256::from_i128(f as i128).wrapping_mul(m))
                .collect()
        }
        _ => match ints(a.as_ref()) {
            Some(v) => {
                let mut out = Vec::with_capacity(v.len());
                for (i, x) in v.into_iter().enumerate() {
                    let r = i256::from_i128(x).checked_mul(m);
                    out.push(if valid(i) { fix(r, x < 0)? } else { i256::ZERO });
                }
                out
            }
            None => {
                let v = floats(a)?;
                let mut out = Vec::with_capacity(v.len());
                for (i, f) in v.into_iter().enumerate() {
                    let r = types::float_to_decimal256(f, s);
                    out.push(if valid(i) {
                        fix(r, f < 0.0)?
                    } else {
                        i256::ZERO
                    });
                }
                out
            }
        },
    })
}

/// [`clamp_decimal`] where the source or the target is a Decimal256.
fn clamp_wide_decimal(a: &ArrayRef, p: u8, s: i8) -> Result<ArrayRef> {
    let max = pow10(p as u32)
        .expect("precision <= 76")
        .wrapping_sub(i256::ONE);
    let saturated = |neg: bool| if neg { max.wrapping_neg() } else { max };
    let v: Vec<i256> = wide_decimals(a, s, &mut |neg| Some(saturated(neg)))?
        .into_iter()
        .map(|x| x.clamp(max.wrapping_neg(), max))
        .collect();
    let nulls = a.logical_nulls();
    Ok(if p <= types::MAX_DECIMAL128_PRECISION {
        let v: Vec<i128> = v.into_iter().map(|x| x.as_i128()).collect();
        Arc::new(Decimal128Array::new(v.into(), nulls).with_precision_and_scale(p, s)?)
    } else {
        Arc::new(Decimal256Array::new(v.into(), nulls).with_precision_and_scale(p, s)?)
    })
}

/// The integer part of each number (None for a NULL or a value beyond i64).
fn number_parts(a: &ArrayRef) -> Result<Vec<Option<i64>>> {
    let valid = |i: usize| a.is_valid(i);
    Ok(match a.data_type() {
        DataType::Decimal256(_, s) => {
            let d = pow10(*s as u32).expect("scale <= 76");
            a.as_primitive::<Decimal256Type>()
                .values()
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    valid(i)
                        .then(|| {
                            x.wrapping_div(d)
                                .to_i128()
                                .and_then(|q| i64::try_from(q).ok())
                        })
                        .flatten()
                })
                .collect()
        }
        DataType::Decimal128(_, s) => {
            let d = 10i128.pow(*s as u32);
            a.as_primitive::<Decimal128Type>()
                .values()
                .iter()
                .enumerate()
                .map(|(i, x)| valid(i).then(|| i64::try_from(x / d).ok()).flatten())
                .collect()
        }
        DataType::Float64 | DataType::Float32 => floats(a)?
            .into_iter()
            .enumerate()
            .map(|(i, f)| (valid(i) && f.abs() < 9e18).then_some(f.trunc() as i64))
            .collect(),
        _ => match ints(a.as_ref()) {
            Some(v) => v
                .into_iter()
                .enumerate()
                .map(|(i, x)| valid(i).then(|| i64::try_from(x).ok()).flatten())
                .collect(),
            None => {
                return Err(QuiverError::not_supported(format!(
                    "cast of {} to a date",
                    a.data_type()
                )))
            }
        },
    })
}

/// MySQL's number_to_datetime: YYMMDD, YYYYMMDD, YYMMDDhhmmss or
/// YYYYMMDDhhmmss (two-digit years 70-99 are 19xx, 00-69 20xx), as
/// microseconds since the epoch; None for what is no valid date.
fn number_to_datetime(n: i64) -> Option<i64> {
    let n = match n {
        101..=691_231 => n + 20_000_000,
        700_101..=991_231 => n + 19_000_000,
        10_000_101..=99_991_231 => n,
        101_000_000..=691_231_235_959 => n + 20_000_000_000_000,
        700_101_000_000..=991_231_235_959 => n + 19_000_000_000_000,
        10_000_101_000_000..=99_991_231_235_959 => n,
        _ => return None,
    };
    let (date, time) = if n > 99_991_231 {
        (n / 1_000_000, n % 1_000_000)
    } else {
        (n, 0)
    };
    let (y, m, d) = (
        date / 10_000,
        (date / 100 % 100) as u32,
        (date % 100) as u32,
    );
    let (hh, mm, ss) = (time / 10_000, time / 100 % 100, time % 100);
    if !(1..=12).contains(&m)
        || d == 0
        || d > types::days_in_month(y as i32, m)
        || hh > 23
        || mm > 59
        || ss > 59
    {
        return None;
    }
    let days = types::days_from_civil(y as i32, m, d) as i64;
    Some(days * 86_400_000_000 + (hh * 3600 + mm * 60 + ss) * 1_000_000)
}

/// What is wrong with a string stored into a numeric column, as MySQL's
/// strict mode sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericText {
    /// No number at all (`'abc'`, `''`): error 1366.
    Invalid,
    /// A number followed by other characters (`'12abc'`): error 1265.
    Truncated,
}

/// Checks a string stored into a numeric column: spaces, a sign, digits with
/// an optional fraction and exponent, then only spaces. None when it is fine.
pub fn numeric_text_problem(s: &str) -> Option<NumericText> {
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let b = s.as_bytes();
    match quiver_common::types::number_prefix(b, false, space) {
        (0, _) => Some(NumericText::Invalid),
        (_, end) if b[end..].iter().all(|c| space(*c)) => None,
        _ => Some(NumericText::Truncated),
    }
}

/// Warning 1292 (`Truncated incorrect DOUBLE value: '1a'`) for each string
/// of `a` that is not wholly a number, in row order; `kind` names the type
/// it is read as.
fn warn_bad_numbers(a: &dyn Array, kind: &str, integer: bool) {
    if !warnings::collecting() {
        return;
    }
    let strings = a.as_string::<i32>();
    // The usual case, nothing wrong, checks and allocates nothing more.
    let whole = |v: &str| number_read(v, integer) == NumberRead::Whole;
    if strings.iter().flatten().all(whole) {
        return;
    }
    for v in strings.iter().flatten() {
        let level = match number_read(v, integer) {
            NumberRead::Whole => continue,
            NumberRead::SpacesAfter => Level::Note,
            NumberRead::Partly => Level::Warning,
        };
        warnings::raise_with(level, 1292, || {
            format!("Truncated incorrect {kind} value: '{v}'")
        });
    }
}

#[cfg(test)]
mod widen_tests {
    use super::*;
    use arrow_array::{Int16Array, Int32Array, Int8Array, UInt16Array, UInt32Array, UInt8Array};

    /// The widening integer casts give what the general path through i128
    /// gives (the same values and NULLs), for every pair they take.
    #[test]
    fn widening_casts_equal_the_general_path() {
        let sources: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from(vec![
                Some(i8::MIN),
                None,
                Some(-1),
                Some(i8::MAX),
            ])),
            Arc::new(Int16Array::from(vec![
                Some(i16::MIN),
                Some(0),
                None,
                Some(i16::MAX),
            ])),
            Arc::new(Int32Array::from(vec![
                Some(i32::MIN),
                None,
                Some(7),
                Some(i32::MAX),
            ])),
            Arc::new(UInt8Array::from(vec![Some(0), None, Some(u8::MAX)])),
            Arc::new(UInt16Array::from(vec![Some(0), Some(u16::MAX), None])),
            Arc::new(UInt32Array::from(vec![None, Some(0), Some(u32::MAX)])),
        ];
        let targets = [
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::UInt16,
            DataType::UInt32,
            DataType::UInt64,
        ];
        let mut widened = 0;
        for a in &sources {
            for t in &targets {
                let Some(fast) = widen_int(a, t) else {
                    continue;
                };
                widened += 1;
                let i64s = |x: &ArrayRef| -> Vec<Option<i64>> {
                    let w = cast_array(x, &DataType::Decimal128(38, 0)).unwrap();
                    w.as_primitive::<Decimal128Type>()
                        .iter()
                        .map(|v| v.map(|v| v as i64))
                        .collect()
                };
                assert_eq!(fast.data_type(), t);
                assert_eq!(i64s(&fast), i64s(a), "{} to {t}", a.data_type());
            }
        }
        assert_eq!(widened, 18);
    }
}
