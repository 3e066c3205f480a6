//! STR_TO_DATE(text, format): text read by a format's `%` specifiers, as
//! MariaDB's `extract_date_time`. The result is a DATE when a constant
//! format has only date specifiers, a DATETIME (with 6 fraction digits
//! for `%f` or a format that is not constant) when it has both. Refused
//! (1235): a format of time specifiers only (its result is a TIME), the
//! week and day-of-year specifiers, and a result that is no real date
//! ('2024-00-00', '2024-02-30'), which MariaDB returns and a Quiver DATE
//! cannot hold. Text that does not match is NULL with warning 1411.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, Array, ArrayRef, Date32Array, TimestampMicrosecondArray};
use arrow_schema::DataType;
use quiver_common::types::datetime_type;
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::{days_in_month, non_null_as, Tm, DAY_NAMES, MONTH_NAMES};
use crate::expr::cast_array;
use crate::functions::kernel::Arrays;
use crate::warnings::{raise_with, Level};

pub struct StrToDate;

pub static STR_TO_DATE: StrToDate = StrToDate;

const DATE_SPECS: &[u8] = b"abcDdeMmYyWw";
const TIME_SPECS: &[u8] = b"fHhIiklpSsTr";
const REFUSED_SPECS: &[u8] = b"jUuVvXx";

/// What a constant format makes the result: (has date parts, has time
/// parts, has a fraction).
fn classify(f: &str) -> Result<(bool, bool, bool)> {
    let b = f.as_bytes();
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 1 < b.len() {
            let s = b[i + 1];
            if REFUSED_SPECS.contains(&s) {
                return Err(QuiverError::not_supported(format!(
                    "STR_TO_DATE with the specifier %{}",
                    s as char
                )));
            }
            date |= DATE_SPECS.contains(&s);
            time |= TIME_SPECS.contains(&s);
            frac |= s == b'f';
            i += 2;
        } else {
            i += 1;
        }
    }
    Ok((date, time, frac))
}

impl ScalarFunction for StrToDate {
    fn name(&self) -> &'static str {
        "str_to_date"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(non_null_as(args, DataType::Utf8))
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = match &args[1].literal {
            Some(ScalarValue::Utf8(f)) => match classify(f)? {
                (_, true, frac) => datetime_type(if frac { 6 } else { 0 }),
                (true, false, _) => DataType::Date32,
                (false, false, _) => {
                    return Err(QuiverError::not_supported(
                        "STR_TO_DATE with a format of no date specifier (a TIME result)",
                    ))
                }
            },
            _ => datetime_type(6),
        };
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let text = cast_array(a.arg(0)?, &DataType::Utf8)?;
        let format = cast_array(a.arg(1)?, &DataType::Utf8)?;
        let (text, format) = (text.as_string::<i32>(), format.as_string::<i32>());
        let mut values: Vec<Option<Tm>> = Vec::with_capacity(a.rows);
        for i in 0..a.rows {
            if text.is_null(i) || format.is_null(i) {
                values.push(None);
                continue;
            }
            let s = text.value(i);
            let f = format.value(i);
            if matches!(args[1], ColumnarValue::Array(_)) {
                classify(f)?;
            }
            match extract(s.as_bytes(), f.as_bytes()) {
                Some((tm, rest)) => {
                    if rest.iter().any(|c| !c.is_ascii_whitespace()) {
                        raise_with(Level::Warning, 1292, || {
                            format!("Truncated incorrect date value: '{s}'")
                        });
                    }
                    let real =
                        tm.month != 0 && tm.day != 0 && tm.day <= days_in_month(tm.year, tm.month);
                    if !real {
                        return Err(QuiverError::not_supported(format!(
                            "STR_TO_DATE giving a value that is no real date ('{s}')"
                        )));
                    }
                    values.push(Some(tm));
                }
                None => {
                    raise_with(Level::Warning, 1411, || {
                        format!("Incorrect datetime value: '{s}' for function str_to_date")
                    });
                    values.push(None);
                }
            }
        }
        let out: ArrayRef = match call.data_type {
            DataType::Date32 => Arc::new(
                values
                    .iter()
                    .map(|t| t.map(|t| t.epoch_days() as i32))
                    .collect::<Date32Array>(),
            ),
            t => Arc::new(
                values
                    .iter()
                    .map(|t| {
                        t.map(|t| {
                            (t.epoch_days() * 86_400 + t.seconds_of_day()) * 1_000_000
                                + t.micros as i64
                        })
                    })
                    .collect::<TimestampMicrosecondArray>()
                    .with_data_type(t.clone()),
            ),
        };
        a.finish(out, call.data_type)
    }
}

/// Up to `max` digits at the start of `v`: value and count (None: none).
fn digits(v: &[u8], max: usize) -> Option<(u32, usize)> {
    let n = v
        .iter()
        .take(max)
        .take_while(|c| c.is_ascii_digit())
        .count();
    (n > 0).then(|| (v[..n].iter().fold(0, |x, c| x * 10 + (c - b'0') as u32), n))
}

/// Up to `max` digits taken from the start of `v`.
fn take_num(v: &mut &[u8], max: usize) -> Option<u32> {
    let (x, n) = digits(v, max)?;
    *v = &v[n..];
    Some(x)
}

/// The index of the name `v` starts with (ASCII case-insensitive), and
/// its length.
fn name_prefix(v: &[u8], names: &[&str], abbreviated: bool) -> Option<(usize, usize)> {
    names.iter().enumerate().find_map(|(i, n)| {
        let n = if abbreviated {
            &n.as_bytes()[..3]
        } else {
            n.as_bytes()
        };
        (v.len() >= n.len() && v[..n.len()].eq_ignore_ascii_case(n)).then_some((i, n.len()))
    })
}

/// The fields `format` reads from `v`, and what is left of `v`; None when
/// they do not match or a field is out of range.
fn extract<'v>(mut v: &'v [u8], format: &[u8]) -> Option<(Tm, &'v [u8])> {
    let mut tm = Tm::default();
    let mut pm: Option<bool> = None;
    let mut twelve = false;
    let mut f = 0;
    while f < format.len() && !v.is_empty() {
        // Spaces before each field are skipped.
        let sp = v.iter().take_while(|c| c.is_ascii_whitespace()).count();
        v = &v[sp..];
        if v.is_empty() {
            break;
        }
        if format[f] == b'%' && f + 1 < format.len() {
            let s = format[f + 1];
            f += 2;
            match s {
                b'Y' => {
                    let (x, n) = digits(v, 4)?;
                    v = &v[n..];
                    tm.year = if n <= 2 { two_digit(x) } else { x };
                }
                b'y' => tm.year = two_digit(take_num(&mut v, 2)?),
                b'm' | b'c' => tm.month = take_num(&mut v, 2)?,
                b'd' | b'e' => tm.day = take_num(&mut v, 2)?,
                b'D' => {
                    tm.day = take_num(&mut v, 2)?;
                    v = &v[v.len().min(2)..];
                }
                b'H' | b'k' => tm.hour = take_num(&mut v, 2)?,
                b'h' | b'I' | b'l' => {
                    tm.hour = take_num(&mut v, 2)?;
                    twelve = true;
                }
                b'i' => tm.minute = take_num(&mut v, 2)?,
                b's' | b'S' => tm.second = take_num(&mut v, 2)?,
                b'f' => {
                    let (x, n) = digits(v, 6)?;
                    v = &v[n..];
                    tm.micros = x * 10u32.pow(6 - n as u32);
                }
                b'p' => {
                    if v.len() < 2 {
                        return None;
                    }
                    pm = Some(if v[..2].eq_ignore_ascii_case(b"PM") {
                        true
                    } else if v[..2].eq_ignore_ascii_case(b"AM") {
                        false
                    } else {
                        return None;
                    });
                    v = &v[2..];
                }
                b'M' | b'b' => {
                    let (i, n) = name_prefix(v, &MONTH_NAMES, s == b'b')?;
                    tm.month = i as u32 + 1;
                    v = &v[n..];
                }
                b'W' | b'a' => {
                    let (_, n) = name_prefix(v, &DAY_NAMES, s == b'a')?;
                    v = &v[n..];
                }
                b'w' => {
                    take_num(&mut v, 1)?;
                }
                b'T' | b'r' => {
                    let sub: &[u8] = if s == b'T' {
                        b"%H:%i:%S"
                    } else {
                        b"%I:%i:%S %p"
                    };
                    let (t, rest) = extract(v, sub)?;
                    tm.hour = t.hour;
                    tm.minute = t.minute;
                    tm.second = t.second;
                    v = rest;
                }
                b'%' => {
                    if v[0] != b'%' {
                        return None;
                    }
                    v = &v[1..];
                }
                // Unknown specifiers read nothing.
                _ => {}
            }
        } else {
            let c = format[f];
            f += 1;
            if !c.is_ascii_whitespace() {
                if v[0] != c {
                    return None;
                }
                v = &v[1..];
            }
        }
    }
    if let Some(pm) = pm {
        if tm.hour > 12 || tm.hour < 1 {
            return None;
        }
        tm.hour = tm.hour % 12 + if pm { 12 } else { 0 };
    } else if twelve && tm.hour > 12 {
        return None;
    }
    let ok = tm.month <= 12 && tm.day <= 31 && tm.hour <= 23 && tm.minute <= 59 && tm.second <= 59;
    ok.then_some((tm, v))
}

fn two_digit(y: u32) -> u32 {
    if y < 70 {
        y + 2000
    } else if y < 100 {
        y + 1900
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_mariadb() {
        let r = |s: &str, f: &str| {
            extract(s.as_bytes(), f.as_bytes())
                .map(|(t, _)| (t.year, t.month, t.day, t.hour, t.minute, t.second, t.micros))
        };
        assert_eq!(r("2024-01-05", "%Y-%m-%d"), Some((2024, 1, 5, 0, 0, 0, 0)));
        assert_eq!(
            r("  2024 - 01 -  05", "%Y-%m-%d"),
            Some((2024, 1, 5, 0, 0, 0, 0))
        );
        assert_eq!(
            r("5 January 2024", "%e %M %Y"),
            Some((2024, 1, 5, 0, 0, 0, 0))
        );
        assert_eq!(
            r("Fri 5th Jan 2024", "%a %D %b %Y"),
            Some((2024, 1, 5, 0, 0, 0, 0))
        );
        assert_eq!(
            r("2024-01-05 1:02:03 PM", "%Y-%m-%d %r"),
            Some((2024, 1, 5, 13, 2, 3, 0))
        );
        assert_eq!(
            r("2024-01-05 12:00 AM", "%Y-%m-%d %h:%i %p"),
            Some((2024, 1, 5, 0, 0, 0, 0))
        );
        assert_eq!(r("13:02:03.5", "%T.%f"), Some((0, 0, 0, 13, 2, 3, 500_000)));
        assert_eq!(r("20240105", "%Y%m%d"), Some((2024, 1, 5, 0, 0, 0, 0)));
        assert_eq!(r("2024-13-05", "%Y-%m-%d"), None);
        assert_eq!(r("abc", "%Y"), None);
        assert_eq!(r("2024x01", "%Y%%%m"), None);
    }
}
