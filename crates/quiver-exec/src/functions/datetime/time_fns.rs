//! The functions of TIME values: HOUR, MINUTE, SECOND and MICROSECOND
//! (which read any argument, a TIME's hours past 24 included), TIME(),
//! TIME_TO_SEC, SEC_TO_TIME, MAKETIME, TIMEDIFF, ADDTIME and SUBTIME.
//!
//! A TIME is signed microseconds (quiver_common::types::time). Arguments
//! that are text stay text until the kernel, because MariaDB reads each
//! string as a DATETIME or else a TIME, and because a literal's fraction
//! digits decide the result's (`TIMEDIFF('10:00:00', '09:00:00.5')` is a
//! TIME(1)).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, Decimal64Array, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::DataType;
use quiver_common::types::{
    datetime_fsp, datetime_type, decimal_type, is_string, is_time, max_time, parse_datetime,
    parse_time, time_fsp, time_type, truncate_fsp, truncate_time, IntKind, TimeRead, MAX_FSP,
    MAX_TIME_MICROS,
};
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::{DatePart, ScalarFunction};

use crate::expr::cast_array;
use crate::expr::time_cast::cast_to_time;
use crate::functions::kernel::Arrays;
use crate::warnings::{raise_with, Level};

/// The argument types a TIME argument keeps: TIME, DATETIME, text (read by
/// the kernel), numbers (read as [-]HHMMSS[.f]); a DATE is a DATETIME.
pub(super) fn time_arg_type(t: &DataType) -> Result<DataType> {
    Ok(match t {
        t if is_time(t) => t.clone(),
        DataType::Timestamp(..) | DataType::Null => t.clone(),
        DataType::Date32 => datetime_type(0),
        t if is_string(t) => DataType::Utf8,
        DataType::Boolean => DataType::Int64,
        t if t.is_integer() => DataType::Int64,
        t @ (DataType::Decimal128(..) | DataType::Decimal256(..)) => t.clone(),
        t if t.is_floating() => DataType::Float64,
        other => {
            return Err(QuiverError::not_supported(format!(
                "a time function over {other}"
            )))
        }
    })
}

/// The fraction digits of a TIME argument as MariaDB counts them: its
/// type's, a string literal's own digits (6 for a column or text that is no
/// time), a decimal's scale, 6 for a DOUBLE.
fn time_arg_fsp(a: &ArgInfo) -> u8 {
    let t = &a.data_type;
    if let Some(f) = time_fsp(t).or_else(|| datetime_fsp(t)) {
        return f;
    }
    match t {
        DataType::Utf8 => match &a.literal {
            Some(ScalarValue::Utf8(s)) => match parse_time(s) {
                TimeRead::Invalid if parse_datetime(s).is_none() => MAX_FSP,
                _ => quiver_common::types::time_literal_fsp(s),
            },
            Some(_) => 0,
            None => MAX_FSP,
        },
        DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => (*s).clamp(0, 6) as u8,
        DataType::Float64 => MAX_FSP,
        _ => 0,
    }
}

/// A value read as a DATETIME or a TIME (MariaDB's `get_time` of a string
/// keeps whichever it is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Temporal {
    Time(i64),
    DateTime(i64),
}

/// Each row of `a` as a DATETIME or TIME; text that is neither is NULL with
/// warning 1292, a TIME past the range clipped with 1292.
pub(super) fn temporals(a: &ArrayRef) -> Result<Vec<Option<Temporal>>> {
    Ok(match a.data_type() {
        DataType::Timestamp(..) => a
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .map(|v| v.map(Temporal::DateTime))
            .collect(),
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            let mut out = Vec::with_capacity(s.len());
            for (i, v) in s.iter().enumerate() {
                out.push(match v {
                    None => None,
                    Some(text) if looks_like_datetime(text) => match parse_datetime(text) {
                        Some(t) => Some(Temporal::DateTime(t)),
                        None => time_of_text(a, i)?,
                    },
                    Some(_) => time_of_text(a, i)?,
                });
            }
            out
        }
        _ => times(a)?
            .into_iter()
            .map(|v| v.map(Temporal::Time))
            .collect(),
    })
}

/// Whether a text has a date part (`YYYY-MM-DD ...`).
fn looks_like_datetime(s: &str) -> bool {
    let s = s.trim_start();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    digits >= 2 && s.as_bytes().get(digits) == Some(&b'-')
}

fn time_of_text(a: &ArrayRef, i: usize) -> Result<Option<Temporal>> {
    let one = a.slice(i, 1);
    Ok(times(&one)?[0].map(Temporal::Time))
}

/// Each row of `a` as a TIME (CAST's reading and warnings).
fn times(a: &ArrayRef) -> Result<Vec<Option<i64>>> {
    let t = cast_to_time(a, &time_type(MAX_FSP))?;
    Ok(t.as_primitive::<Decimal64Type>().iter().collect())
}

/// A TIME result past ±838:59:59 is the limit, with MariaDB's warning
/// naming the value it would have been.
fn clip_time(v: i64, fsp: u8) -> i64 {
    if v.abs() <= MAX_TIME_MICROS {
        return truncate_time(v, fsp);
    }
    raise_with(Level::Warning, 1292, || {
        let a = v.unsigned_abs() / 1_000_000;
        let sign = if v < 0 { "-" } else { "" };
        format!(
            "Truncated incorrect time value: '{sign}{}:{:02}:{:02}'",
            a / 3600,
            a / 60 % 60,
            a % 60
        )
    });
    let m = max_time(fsp);
    if v < 0 {
        -m
    } else {
        m
    }
}

fn time_array(v: Vec<Option<i64>>, t: &DataType) -> ArrayRef {
    Arc::new(
        v.into_iter()
            .collect::<Decimal64Array>()
            .with_data_type(t.clone()),
    )
}

/// HOUR, MINUTE, SECOND, MICROSECOND: of a TIME its magnitude's fields
/// (HOUR(TIME'-100:00:00') is 100); of anything else what EXTRACT gives.
pub struct TimeField {
    name: &'static str,
    part: DatePart,
}

pub static HOUR: TimeField = TimeField {
    name: "hour",
    part: DatePart::Hour,
};
pub static MINUTE: TimeField = TimeField {
    name: "minute",
    part: DatePart::Minute,
};
pub static SECOND: TimeField = TimeField {
    name: "second",
    part: DatePart::Second,
};
pub static MICROSECOND: TimeField = TimeField {
    name: "microsecond",
    part: DatePart::Microsecond,
};

impl ScalarFunction for TimeField {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![match &args[0] {
            // Numbers are read as times ([-]HHMMSS).
            t if t.is_integer()
                || t.is_floating()
                || matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..)) =>
            {
                time_type(MAX_FSP)
            }
            DataType::Date32 => datetime_type(0),
            t if is_string(t) => DataType::Utf8,
            t => time_arg_type(t)?,
        }])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        if args[0].is_null() {
            return Ok(Bound::Constant(ScalarValue::Null, DataType::Int64));
        }
        Ok(Bound::Call(DataType::Int64))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(
            IntKind::Long,
            if self.part == DatePart::Microsecond {
                7
            } else {
                2
            },
        ))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = a.arg(0)?;
        let out: ArrayRef = if is_time(x.data_type()) {
            let part = self.part;
            Arc::new(
                x.as_primitive::<Decimal64Type>()
                    .unary::<_, Int64Type>(|t| {
                        let m = t.unsigned_abs() as i64;
                        match part {
                            DatePart::Hour => m / 3_600_000_000,
                            DatePart::Minute => m / 60_000_000 % 60,
                            DatePart::Second => m / 1_000_000 % 60,
                            _ => m % 1_000_000,
                        }
                    }),
            )
        } else {
            crate::expr::extract_part(x, self.part)?
        };
        a.finish(out, call.data_type)
    }
}

/// TIME(x): the time of a DATETIME, a string or a number, a TIME with the
/// argument's fraction digits.
pub struct TimeOf;

pub static TIME: TimeOf = TimeOf;

impl ScalarFunction for TimeOf {
    fn name(&self) -> &'static str {
        "time"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![time_arg_type(&args[0])?])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = time_type(time_arg_fsp(&args[0]));
        if args[0].is_null() {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let out = cast_to_time(a.arg(0)?, call.data_type)?;
        a.finish(out, call.data_type)
    }
}

/// TIME_TO_SEC(t): the seconds of a TIME (of a DATETIME, its time of day),
/// signed; BIGINT, or DECIMAL with the argument's fraction digits.
pub struct TimeToSec;

pub static TIME_TO_SEC: TimeToSec = TimeToSec;

impl ScalarFunction for TimeToSec {
    fn name(&self) -> &'static str {
        "time_to_sec"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![time_arg_type(&args[0])?])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = match time_arg_fsp(&args[0]) {
            0 => DataType::Int64,
            f => decimal_type(18 + f, f as i8),
        };
        if args[0].is_null() {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::LongLong, 17))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = a.arg(0)?;
        let t = match x.data_type() {
            t if is_time(t) => x.clone(),
            _ => cast_to_time(x, &time_type(MAX_FSP))?,
        };
        let t = t.as_primitive::<Decimal64Type>();
        let out: ArrayRef = match call.data_type {
            DataType::Decimal128(_, s) => {
                let cut = 10i64.pow(6 - *s as u32);
                Arc::new(
                    t.unary::<_, Decimal128Type>(|v| (v / cut) as i128)
                        .with_data_type(call.data_type.clone()),
                )
            }
            _ => Arc::new(t.unary::<_, Int64Type>(|v| v / 1_000_000)),
        };
        a.finish(out, call.data_type)
    }
}

/// SEC_TO_TIME(n): the TIME of n seconds, with n's fraction digits (6 for
/// a DOUBLE or a string); past ±838:59:59 the limit with warning 1292.
pub struct SecToTime;

pub static SEC_TO_TIME: SecToTime = SecToTime;

impl ScalarFunction for SecToTime {
    fn name(&self) -> &'static str {
        "sec_to_time"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![match &args[0] {
            DataType::Null => DataType::Null,
            t if t.is_integer() || *t == DataType::Boolean => DataType::Int64,
            t @ DataType::Decimal128(..) => t.clone(),
            _ => DataType::Float64,
        }])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let fsp = match &args[0].data_type {
            DataType::Decimal128(_, s) => (*s).clamp(0, 6) as u8,
            DataType::Float64 => MAX_FSP,
            _ => 0,
        };
        let t = time_type(fsp);
        if args[0].is_null() {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = a.arg(0)?;
        let fsp = time_fsp(call.data_type).unwrap_or(0);
        let limit = max_time(MAX_FSP) as i128;
        let warn = |text: String| {
            raise_with(Level::Warning, 1292, || {
                format!("Truncated incorrect seconds value: '{text}'")
            })
        };
        // Microseconds of each row, unclipped (as i128 so none overflows).
        let micros: Vec<Option<(i128, usize)>> = match x.data_type() {
            DataType::Int64 => x
                .as_primitive::<Int64Type>()
                .iter()
                .enumerate()
                .map(|(i, v)| v.map(|v| (v as i128 * 1_000_000, i)))
                .collect(),
            DataType::Decimal128(_, s) => x
                .as_primitive::<Decimal128Type>()
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.map(|v| {
                        let us = if *s <= 6 {
                            v.saturating_mul(10i128.pow(6 - *s as u32))
                        } else {
                            v / 10i128.pow(*s as u32 - 6)
                        };
                        (us, i)
                    })
                })
                .collect(),
            DataType::Null => vec![None; x.len()],
            _ => {
                let f = cast_array(x, &DataType::Float64)?;
                f.as_primitive::<Float64Type>()
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        v.map(|f| {
                            let us = (f * 1e6).trunc();
                            let us = if us.is_nan() {
                                0
                            } else {
                                us.clamp(-1e30, 1e30) as i128
                            };
                            (us, i)
                        })
                    })
                    .collect()
            }
        };
        let v: Vec<Option<i64>> = micros
            .into_iter()
            .map(|m| {
                m.map(|(us, i)| {
                    if us.abs() > limit {
                        warn(
                            ScalarValue::from_array(x.as_ref(), i)
                                .map(|v| v.to_string())
                                .unwrap_or_default(),
                        );
                        let l = limit as i64;
                        if us < 0 {
                            -l
                        } else {
                            l
                        }
                    } else {
                        truncate_time(us as i64, fsp)
                    }
                })
            })
            .collect();
        a.finish(time_array(v, call.data_type), call.data_type)
    }
}

/// MAKETIME(h, m, s): a TIME of hours (any sign, clipped to ±838), minutes
/// and seconds (NULL unless 0 ..= 59), with the seconds' fraction digits.
pub struct MakeTime;

pub static MAKETIME: MakeTime = MakeTime;

impl ScalarFunction for MakeTime {
    fn name(&self) -> &'static str {
        "maketime"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        3..=3
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let seconds = match &args[2] {
            DataType::Null => DataType::Null,
            t if t.is_integer() || *t == DataType::Boolean => DataType::Int64,
            // The fraction past 6 digits is cut in the kernel (MariaDB
            // truncates it), so the decimal keeps its own scale.
            t @ DataType::Decimal128(..) => t.clone(),
            _ => decimal_type(38, 6),
        };
        Ok(vec![DataType::Int64, DataType::Int64, seconds])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let fsp = match &args[2].data_type {
            DataType::Decimal128(_, s) => (*s).clamp(0, 6) as u8,
            _ => 0,
        };
        let t = time_type(fsp);
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let (h, m) = (
            a.arg(0)?.as_primitive::<Int64Type>(),
            a.arg(1)?.as_primitive::<Int64Type>(),
        );
        let s = a.arg(2)?;
        let s_micros: Vec<Option<i128>> = match s.data_type() {
            DataType::Decimal128(_, sc) => {
                let sc = *sc as u32;
                s.as_primitive::<Decimal128Type>()
                    .iter()
                    .map(|v| {
                        v.map(|v| {
                            if sc <= 6 {
                                v * 10i128.pow(6 - sc)
                            } else {
                                v / 10i128.pow(sc - 6)
                            }
                        })
                    })
                    .collect()
            }
            _ => s
                .as_primitive::<Int64Type>()
                .iter()
                .map(|v| v.map(|v| v as i128 * 1_000_000))
                .collect(),
        };
        let v: Vec<Option<i64>> = (0..a.rows)
            .map(|i| {
                if h.is_null(i) || m.is_null(i) {
                    return None;
                }
                let (h, m, s) = (h.value(i), m.value(i), s_micros[i]?);
                if !(0..60).contains(&m) || !(0..60_000_000).contains(&s) {
                    return None;
                }
                let neg = h < 0;
                let total = (h.unsigned_abs() as i128 * 3600 + m as i128 * 60) * 1_000_000 + s;
                if total > MAX_TIME_MICROS as i128 {
                    raise_with(Level::Warning, 1292, || {
                        let sign = if neg { "-" } else { "" };
                        format!(
                            "Truncated incorrect time value: '{sign}{}:{m:02}:{:02}'",
                            h.unsigned_abs(),
                            s / 1_000_000
                        )
                    });
                    let l = max_time(time_fsp(call.data_type).unwrap_or(0));
                    return Some(if neg { -l } else { l });
                }
                let t = total as i64;
                Some(if neg { -t } else { t })
            })
            .collect();
        a.finish(time_array(v, call.data_type), call.data_type)
    }
}

/// TIMEDIFF(a, b): a - b as a TIME, both DATETIMEs or both TIMEs (NULL
/// when one is each), with the more fraction digits of the two.
pub struct TimeDiff;

pub static TIMEDIFF: TimeDiff = TimeDiff;

impl ScalarFunction for TimeDiff {
    fn name(&self) -> &'static str {
        "timediff"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter().map(time_arg_type).collect()
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = time_type(time_arg_fsp(&args[0]).max(time_arg_fsp(&args[1])));
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let fsp = time_fsp(call.data_type).unwrap_or(0);
        let out: ArrayRef = match (a.arg(0)?.data_type(), a.arg(1)?.data_type()) {
            // The common case, two columns of one kind: a subtraction.
            (x, y) if is_time(x) && is_time(y) || (is_datetime(x) && is_datetime(y)) => {
                let (x, y) = (a.arg(0)?, a.arg(1)?);
                let (x, y) = (micros_of(x), micros_of(y));
                let v: Vec<Option<i64>> = x
                    .iter()
                    .zip(y.iter())
                    .map(|(x, y)| Some(clip_time((*x)?.checked_sub((*y)?)?, fsp)))
                    .collect();
                time_array(v, call.data_type)
            }
            _ => {
                let (x, y) = (temporals(a.arg(0)?)?, temporals(a.arg(1)?)?);
                let v: Vec<Option<i64>> = x
                    .into_iter()
                    .zip(y)
                    .map(|(x, y)| match (x?, y?) {
                        (Temporal::Time(x), Temporal::Time(y))
                        | (Temporal::DateTime(x), Temporal::DateTime(y)) => {
                            Some(clip_time(x - y, fsp))
                        }
                        _ => None,
                    })
                    .collect();
                time_array(v, call.data_type)
            }
        };
        a.finish(out, call.data_type)
    }
}

fn is_datetime(t: &DataType) -> bool {
    matches!(t, DataType::Timestamp(..))
}

/// The i64 values of a TIME or DATETIME column.
fn micros_of(a: &ArrayRef) -> Vec<Option<i64>> {
    match a.data_type() {
        DataType::Timestamp(..) => a
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .collect(),
        _ => a.as_primitive::<Decimal64Type>().iter().collect(),
    }
}

/// ADDTIME(a, t) and SUBTIME(a, t): a DATETIME moved by a TIME (a
/// DATETIME), a TIME plus or minus one (a TIME), or for text whichever the
/// text is (the result is then text, as MariaDB's).
pub struct AddTime {
    name: &'static str,
    sign: i64,
}

pub static ADDTIME: AddTime = AddTime {
    name: "addtime",
    sign: 1,
};
pub static SUBTIME: AddTime = AddTime {
    name: "subtime",
    sign: -1,
};

impl ScalarFunction for AddTime {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter().map(time_arg_type).collect()
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let fsp = time_arg_fsp(&args[0]).max(time_arg_fsp(&args[1]));
        let t = match &args[0].data_type {
            DataType::Timestamp(..) => datetime_type(fsp),
            DataType::Utf8 => DataType::Utf8,
            _ => time_type(fsp),
        };
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        Some(26)
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        // The second argument is a TIME; a DATETIME there makes NULL.
        let delta: Vec<Option<i64>> = temporals(a.arg(1)?)?
            .into_iter()
            .map(|d| match d? {
                Temporal::Time(t) => Some(t * self.sign),
                Temporal::DateTime(_) => None,
            })
            .collect();
        let base = temporals(a.arg(0)?)?;
        let out: ArrayRef = match call.data_type {
            t @ DataType::Timestamp(..) => {
                let fsp = datetime_fsp(t).unwrap_or(0);
                let v: TimestampMicrosecondArray = base
                    .iter()
                    .zip(&delta)
                    .map(|(b, d)| match (*b, *d) {
                        (Some(Temporal::DateTime(b)), Some(d)) => {
                            datetime_in_range(b + d).map(|v| truncate_fsp(v, fsp))
                        }
                        _ => None,
                    })
                    .collect();
                Arc::new(v.with_data_type(t.clone()))
            }
            DataType::Utf8 => {
                let v: StringArray = base
                    .iter()
                    .zip(&delta)
                    .map(|(b, d)| {
                        let d = (*d)?;
                        Some(match (*b)? {
                            Temporal::DateTime(b) => {
                                let v = datetime_in_range(b + d)?;
                                let fsp = if v % 1_000_000 != 0 { 6 } else { 0 };
                                quiver_common::types::format_datetime(v, fsp)
                            }
                            Temporal::Time(b) => {
                                let v = clip_time(b + d, MAX_FSP);
                                let fsp = if v % 1_000_000 != 0 { 6 } else { 0 };
                                quiver_common::types::format_time(v, fsp)
                            }
                        })
                    })
                    .collect();
                Arc::new(v)
            }
            t => {
                let fsp = time_fsp(t).unwrap_or(0);
                let v: Vec<Option<i64>> = base
                    .iter()
                    .zip(&delta)
                    .map(|(b, d)| match (*b, *d) {
                        (Some(Temporal::Time(b)), Some(d)) => Some(clip_time(b + d, fsp)),
                        _ => None,
                    })
                    .collect();
                time_array(v, t)
            }
        };
        a.finish(out, call.data_type)
    }
}

/// A DATETIME within 0000-01-01 ..= 9999-12-31 23:59:59.999999.
fn datetime_in_range(v: i64) -> Option<i64> {
    const MIN: i64 = -62_167_219_200_000_000;
    const MAX: i64 = 253_402_300_799_999_999;
    (MIN..=MAX).contains(&v).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetime_text_is_told_from_time_text() {
        assert!(looks_like_datetime("2020-01-01 10:00:00"));
        assert!(!looks_like_datetime("10:00:00"));
        assert!(!looks_like_datetime("-10:00:00"));
    }
}
