//! UNIX_TIMESTAMP(date) and FROM_UNIXTIME(n [, format]): seconds since
//! 1970-01-01 00:00:00 UTC. The session's time zone is UTC here: the
//! binder refuses (1235) a call under any other `@@time_zone`, and answers
//! UNIX_TIMESTAMP() from the statement's clock. MariaDB's range is
//! 0 ..= 2147483647 (a 32-bit TIMESTAMP): outside it the result is NULL.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{
    cast::AsArray,
    types::{Decimal128Type, Float64Type, Int64Type},
    Array, ArrayRef, Decimal128Array, Int64Array, TimestampMicrosecondArray,
};
use arrow_schema::DataType;
use quiver_common::types::{datetime_type, decimal_type, IntKind};
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::date_format::{format_arg_type, format_result_chars, format_rows, Formats};
use super::{arg_fsp, date_arg_type, Dates, Tm};
use crate::expr::cast_array;
use crate::functions::kernel::Arrays;
use crate::warnings::{raise_with, Level};

/// The last second a MariaDB TIMESTAMP holds (2038-01-19 03:14:07 UTC).
const MAX_UNIXTIME: i64 = i32::MAX as i64;

pub struct UnixTimestamp;

pub static UNIX_TIMESTAMP: UnixTimestamp = UnixTimestamp;

impl ScalarFunction for UnixTimestamp {
    fn name(&self) -> &'static str {
        "unix_timestamp"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![date_arg_type(&args[0])?])
    }

    /// BIGINT for whole seconds, DECIMAL(16 + f, f) when the argument
    /// carries f fraction digits.
    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let a = &args[0];
        let fsp = arg_fsp(&a.data_type, a.literal.as_ref());
        let t = match fsp {
            0 => DataType::Int64,
            f => decimal_type(16 + f, f as i8),
        };
        if a.is_null() {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::LongLong, 17))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let dates = Dates::new(a.arg(0)?)?;
        // Seconds and microseconds of each row in range.
        let value = |i: usize| -> Option<(i64, u32)> {
            let tm = dates.get(i, false)?;
            let secs = tm.epoch_days() * 86_400 + tm.seconds_of_day();
            (0..=MAX_UNIXTIME)
                .contains(&secs)
                .then_some((secs, tm.micros))
        };
        let out: ArrayRef = match (call.data_type, &dates) {
            // A DATE: its seconds, NULL before 1970 and past 2038-01-19.
            (DataType::Int64, Dates::Days(d)) => {
                let v: Vec<i64> = d.values().iter().map(|v| *v as i64 * 86_400).collect();
                let in_range = arrow_buffer::NullBuffer::from(
                    v.iter()
                        .map(|s| (0..=MAX_UNIXTIME).contains(s))
                        .collect::<Vec<_>>(),
                );
                let nulls = arrow_buffer::NullBuffer::union(d.nulls(), Some(&in_range));
                let nulls = nulls.filter(|n| n.null_count() > 0);
                Arc::new(Int64Array::new(v.into(), nulls))
            }
            (DataType::Decimal128(_, s), _) => {
                let cut = 10i128.pow(6 - *s as u32);
                let v: Decimal128Array = (0..a.rows)
                    .map(|i| value(i).map(|(s, us)| (s as i128 * 1_000_000 + us as i128) / cut))
                    .collect();
                Arc::new(v.with_data_type(call.data_type.clone()))
            }
            _ => Arc::new(
                (0..a.rows)
                    .map(|i| value(i).map(|(s, _)| s))
                    .collect::<Int64Array>(),
            ),
        };
        a.finish(out, call.data_type)
    }
}

pub struct FromUnixtime;

pub static FROM_UNIXTIME: FromUnixtime = FromUnixtime;

impl ScalarFunction for FromUnixtime {
    fn name(&self) -> &'static str {
        "from_unixtime"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let n = match &args[0] {
            DataType::Null => DataType::Null,
            t if t.is_integer() || *t == DataType::Boolean => DataType::Int64,
            t @ DataType::Decimal128(..) => t.clone(),
            DataType::Date32 | DataType::Timestamp(..) => {
                return Err(QuiverError::not_supported(
                    "FROM_UNIXTIME of a date (a number of seconds is expected)",
                ))
            }
            _ => DataType::Float64,
        };
        let mut out = vec![n];
        if let Some(f) = args.get(1) {
            out.push(format_arg_type(f));
        }
        Ok(out)
    }

    /// DATETIME with the argument's fraction digits (6 for DOUBLE), or the
    /// formatted text.
    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = if args.len() == 2 {
            DataType::Utf8
        } else {
            datetime_type(match &args[0].data_type {
                DataType::Decimal128(_, s) => (*s).clamp(0, 6) as u8,
                DataType::Float64 => 6,
                _ => 0,
            })
        };
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn max_chars(&self, args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        format_result_chars(args.get(1)?)
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let micros = unix_micros(a.arg(0)?)?;
        let out: ArrayRef = if a.arrays.len() == 2 {
            let format = cast_array(a.arg(1)?, &DataType::Utf8)?;
            let formats = Formats::new(&args[1], &format);
            format_rows(a.rows, &formats, |i| micros[i].map(Tm::from_micros))?
        } else {
            Arc::new(
                micros
                    .into_iter()
                    .collect::<TimestampMicrosecondArray>()
                    .with_data_type(call.data_type.clone()),
            )
        };
        a.finish(out, call.data_type)
    }
}

/// Each row's seconds as microseconds since the epoch (the fraction cut
/// at 6 digits); None for NULL, negative values, and past 2147483647
/// (with warning 1292, as MariaDB's).
fn unix_micros(n: &ArrayRef) -> Result<Vec<Option<i64>>> {
    let too_big = |i: usize| {
        let v = ScalarValue::from_array(n, i)
            .map(|v| v.to_string())
            .unwrap_or_default();
        raise_with(Level::Warning, 1292, || {
            format!("Truncated incorrect unixtime value: '{v}'")
        });
    };
    let whole = |i: usize, secs: i128, micros: i128| -> Option<i64> {
        if secs < 0 || (secs == 0 && micros < 0) {
            return None;
        }
        if secs > MAX_UNIXTIME as i128 {
            too_big(i);
            return None;
        }
        Some((secs * 1_000_000 + micros) as i64)
    };
    Ok(match n.data_type() {
        DataType::Null => vec![None; n.len()],
        DataType::Int64 => {
            let v = n.as_primitive::<Int64Type>();
            (0..v.len())
                .map(|i| v.is_valid(i).then(|| whole(i, v.value(i) as i128, 0))?)
                .collect()
        }
        DataType::Decimal128(_, s) => {
            let v = n.as_primitive::<Decimal128Type>();
            let unit = 10i128.pow(*s as u32);
            let to_micros = |frac: i128| {
                if *s <= 6 {
                    frac * 10i128.pow(6 - *s as u32)
                } else {
                    frac / 10i128.pow(*s as u32 - 6)
                }
            };
            (0..v.len())
                .map(|i| {
                    let x = v.is_valid(i).then(|| v.value(i))?;
                    whole(i, x / unit, to_micros(x % unit))
                })
                .collect()
        }
        _ => {
            let f = cast_array(n, &DataType::Float64)?;
            let v = f.as_primitive::<Float64Type>();
            (0..v.len())
                .map(|i| {
                    let x = v.is_valid(i).then(|| v.value(i))?;
                    if !x.is_finite() || x >= 1e15 {
                        if x > 0.0 {
                            too_big(i);
                        }
                        return None;
                    }
                    let secs = x.trunc();
                    whole(i, secs as i128, ((x - secs) * 1e6).trunc() as i128)
                })
                .collect()
        }
    })
}
