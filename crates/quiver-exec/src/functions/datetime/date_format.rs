//! DATE_FORMAT(date, format): the date printed by MariaDB's `%` specifiers
//! (English names). A constant format is parsed once per batch into
//! [`Step`]s; each row's text is written straight into the result's value
//! buffer, no allocation per row. The result is VARCHAR as long as the
//! format can print (MariaDB's `format_length`), LONGTEXT for a format
//! that is not constant. FROM_UNIXTIME(n, format) prints with the same
//! steps.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, Array, ArrayRef, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::{
    calc_daynr, calc_week, calc_weekday, date_arg_type, Dates, Tm, DAY_NAMES, MONTH_NAMES,
    WEEK_FIRST_WEEKDAY, WEEK_MONDAY_FIRST, WEEK_YEAR,
};
use crate::expr::cast_array;
use crate::functions::kernel::Arrays;

pub struct DateFormat;

pub static DATE_FORMAT: DateFormat = DateFormat;

/// One piece of a parsed format: text copied as it is, or a specifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Text(Box<str>),
    Spec(u8),
}

/// A format parsed into steps (None for the empty format, whose result is
/// NULL in MariaDB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Format {
    steps: Vec<Step>,
}

const SPECIFIERS: &[u8] = b"abcDdefHhIijklMmprSsTUuVvWwXxYy";

impl Format {
    pub fn parse(f: &str) -> Option<Format> {
        if f.is_empty() {
            return None;
        }
        let mut steps = Vec::new();
        let mut text = String::new();
        let mut chars = f.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            match chars.next() {
                // A last '%' prints itself.
                None => text.push('%'),
                Some(s) if s.is_ascii() && SPECIFIERS.contains(&(s as u8)) => {
                    if !text.is_empty() {
                        steps.push(Step::Text(std::mem::take(&mut text).into()));
                    }
                    steps.push(Step::Spec(s as u8));
                }
                // '%%' and unknown specifiers print the character.
                Some(s) => text.push(s),
            }
        }
        if !text.is_empty() {
            steps.push(Step::Text(text.into()));
        }
        Some(Format { steps })
    }

    /// The bytes most rows take (the result buffer is reserved for them).
    fn typical_len(&self) -> usize {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Text(t) => t.len(),
                Step::Spec(b'M' | b'W') => 9,
                Step::Spec(b'r') => 11,
                Step::Spec(b'T') => 8,
                Step::Spec(b'f') => 6,
                Step::Spec(b'D' | b'Y' | b'X' | b'x') => 4,
                Step::Spec(_) => 2,
            })
            .sum()
    }

    /// Appends `tm` printed to `out`; false when a specifier has no value
    /// for it (a name of month 0), which makes the row NULL.
    pub fn write(&self, tm: &Tm, out: &mut Vec<u8>) -> bool {
        for step in &self.steps {
            let spec = match step {
                Step::Text(t) => {
                    out.extend_from_slice(t.as_bytes());
                    continue;
                }
                Step::Spec(s) => *s,
            };
            let hour12 = if tm.hour.is_multiple_of(12) {
                12
            } else {
                tm.hour % 12
            };
            match spec {
                b'a' | b'W' | b'w' => {
                    if tm.month == 0 && tm.year == 0 {
                        return false;
                    }
                    let daynr = tm.daynr();
                    if spec == b'w' {
                        push_num(out, calc_weekday(daynr, true), 1);
                    } else {
                        let name = DAY_NAMES[calc_weekday(daynr, false) as usize];
                        let name = if spec == b'a' { &name[..3] } else { name };
                        out.extend_from_slice(name.as_bytes());
                    }
                }
                b'b' | b'M' => {
                    if tm.month == 0 {
                        return false;
                    }
                    let name = MONTH_NAMES[(tm.month - 1) as usize % 12];
                    let name = if spec == b'b' { &name[..3] } else { name };
                    out.extend_from_slice(name.as_bytes());
                }
                b'c' => push_num(out, tm.month, 1),
                b'D' => {
                    push_num(out, tm.day, 1);
                    let suffix = match (tm.day % 100, tm.day % 10) {
                        (11..=13, _) => "th",
                        (_, 1) => "st",
                        (_, 2) => "nd",
                        (_, 3) => "rd",
                        _ => "th",
                    };
                    out.extend_from_slice(suffix.as_bytes());
                }
                b'd' => push_num(out, tm.day, 2),
                b'e' => push_num(out, tm.day, 1),
                b'f' => push_num(out, tm.micros, 6),
                b'H' => push_num(out, tm.hour, 2),
                b'h' | b'I' => push_num(out, hour12, 2),
                b'i' => push_num(out, tm.minute, 2),
                b'j' => {
                    if tm.month == 0 || tm.year == 0 {
                        return false;
                    }
                    let doy = tm.daynr() - calc_daynr(tm.year, 1, 1) + 1;
                    push_num(out, doy as u32, 3);
                }
                b'k' => push_num(out, tm.hour, 1),
                b'l' => push_num(out, hour12, 1),
                b'm' => push_num(out, tm.month, 2),
                b'p' => out.extend_from_slice(if tm.hour % 24 < 12 { b"AM" } else { b"PM" }),
                b'r' => {
                    push_num(out, hour12, 2);
                    out.push(b':');
                    push_num(out, tm.minute, 2);
                    out.push(b':');
                    push_num(out, tm.second, 2);
                    out.extend_from_slice(if tm.hour % 24 < 12 { b" AM" } else { b" PM" });
                }
                b'S' | b's' => push_num(out, tm.second, 2),
                b'T' => {
                    push_num(out, tm.hour, 2);
                    out.push(b':');
                    push_num(out, tm.minute, 2);
                    out.push(b':');
                    push_num(out, tm.second, 2);
                }
                b'U' => push_num(out, calc_week(tm, WEEK_FIRST_WEEKDAY).0, 2),
                b'u' => push_num(out, calc_week(tm, WEEK_MONDAY_FIRST).0, 2),
                b'V' => push_num(out, calc_week(tm, WEEK_YEAR | WEEK_FIRST_WEEKDAY).0, 2),
                b'v' => push_num(out, calc_week(tm, WEEK_MONDAY_FIRST | WEEK_YEAR).0, 2),
                b'X' => push_num(out, calc_week(tm, WEEK_YEAR | WEEK_FIRST_WEEKDAY).1, 4),
                b'x' => push_num(out, calc_week(tm, WEEK_MONDAY_FIRST | WEEK_YEAR).1, 4),
                b'Y' => push_num(out, tm.year, 4),
                b'y' => push_num(out, tm.year % 100, 2),
                _ => {}
            }
        }
        true
    }

    /// Appends a TIME printed to `out` (TIME_FORMAT): hours in full (`%H`
    /// of 100:00:00 is 100), the 12-hour specifiers of the hour of the day,
    /// a `-` first for a negative time; false (NULL) when the format has a
    /// date specifier.
    pub fn write_time(&self, micros: i64, out: &mut Vec<u8>) -> bool {
        let m = micros.unsigned_abs();
        let hours = (m / 3_600_000_000) as u32;
        let (minute, second) = ((m / 60_000_000 % 60) as u32, (m / 1_000_000 % 60) as u32);
        let day_hour = hours % 24;
        let hour12 = if day_hour.is_multiple_of(12) {
            12
        } else {
            day_hour % 12
        };
        let pm: &[u8] = if day_hour < 12 { b"AM" } else { b"PM" };
        if micros < 0 {
            out.push(b'-');
        }
        for step in &self.steps {
            match step {
                Step::Text(t) => out.extend_from_slice(t.as_bytes()),
                Step::Spec(b'f') => push_num(out, (m % 1_000_000) as u32, 6),
                Step::Spec(b'H') => push_num(out, hours, 2),
                Step::Spec(b'k') => push_num(out, hours, 1),
                Step::Spec(b'h' | b'I') => push_num(out, hour12, 2),
                Step::Spec(b'l') => push_num(out, hour12, 1),
                Step::Spec(b'i') => push_num(out, minute, 2),
                Step::Spec(b'S' | b's') => push_num(out, second, 2),
                Step::Spec(b'p') => out.extend_from_slice(pm),
                Step::Spec(b'r') => {
                    push_num(out, hour12, 2);
                    out.push(b':');
                    push_num(out, minute, 2);
                    out.push(b':');
                    push_num(out, second, 2);
                    out.push(b' ');
                    out.extend_from_slice(pm);
                }
                Step::Spec(b'T') => {
                    push_num(out, hours, 2);
                    out.push(b':');
                    push_num(out, minute, 2);
                    out.push(b':');
                    push_num(out, second, 2);
                }
                Step::Spec(_) => return false,
            }
        }
        true
    }

    /// MariaDB's `format_length`: the characters the format can print.
    pub fn max_chars(f: &str) -> u64 {
        let b = f.as_bytes();
        let mut size = 0u64;
        let mut i = 0;
        while i < b.len() {
            if b[i] != b'%' || i == b.len() - 1 {
                // One character (its continuation bytes are not counted).
                if b[i] & 0xC0 != 0x80 {
                    size += 1;
                }
                i += 1;
                continue;
            }
            i += 1;
            size += match b[i] {
                b'M' | b'W' => 64,
                b'D' | b'Y' | b'x' | b'X' => 4,
                b'a' | b'b' => 32,
                b'j' => 3,
                b'U' | b'u' | b'V' | b'v' | b'y' | b'm' | b'd' | b'h' | b'I' | b'i' | b'l'
                | b'p' | b'S' | b's' | b'c' | b'e' => 2,
                b'k' | b'H' => 7,
                b'r' => 11,
                b'T' => 8,
                b'f' => 6,
                _ => 1,
            };
            i += 1;
        }
        size
    }
}

/// `v` in decimal, zero-padded to `width` digits.
#[inline]
fn push_num(out: &mut Vec<u8>, v: u32, width: usize) {
    let mut buf = [b'0'; 10];
    let mut n = v;
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = i.min(buf.len() - width.min(buf.len()));
    out.extend_from_slice(&buf[start..]);
}

/// A string column of `rows` rows built by `row`, which appends a row's
/// text to the buffer and says whether it is not NULL.
pub(crate) fn build_strings(
    rows: usize,
    typical_len: usize,
    mut row: impl FnMut(usize, &mut Vec<u8>) -> bool,
) -> Result<ArrayRef> {
    let mut values: Vec<u8> = Vec::with_capacity(rows * typical_len);
    let mut offsets: Vec<i32> = Vec::with_capacity(rows + 1);
    let mut valid: Vec<bool> = Vec::with_capacity(rows);
    offsets.push(0);
    for i in 0..rows {
        let start = values.len();
        let ok = row(i, &mut values);
        if !ok {
            values.truncate(start);
        }
        valid.push(ok);
        offsets.push(
            i32::try_from(values.len()).map_err(|_| {
                quiver_common::QuiverError::internal("DATE_FORMAT result over 2 GiB")
            })?,
        );
    }
    let nulls = NullBuffer::from(valid);
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    Ok(Arc::new(StringArray::try_new(
        offsets,
        Buffer::from_vec(values),
        nulls,
    )?))
}

/// The format argument: one parsed format for a constant, else each row's.
pub(crate) enum Formats<'a> {
    Constant(Option<Format>),
    Rows(&'a StringArray),
}

impl<'a> Formats<'a> {
    pub fn new(value: &ColumnarValue, array: &'a ArrayRef) -> Formats<'a> {
        match value {
            ColumnarValue::Scalar(ScalarValue::Utf8(f), _) => Formats::Constant(Format::parse(f)),
            ColumnarValue::Scalar(..) => Formats::Constant(None),
            ColumnarValue::Array(_) => Formats::Rows(array.as_string::<i32>()),
        }
    }

    fn typical_len(&self) -> usize {
        match self {
            Formats::Constant(Some(f)) => f.typical_len(),
            _ => 16,
        }
    }
}

/// The column of `dates(i)` printed by `formats`.
pub(crate) fn format_rows(
    rows: usize,
    formats: &Formats,
    mut date: impl FnMut(usize) -> Option<Tm>,
) -> Result<ArrayRef> {
    match formats {
        Formats::Constant(None) => Ok(arrow_array::new_null_array(&DataType::Utf8, rows)),
        Formats::Constant(Some(f)) => build_strings(rows, f.typical_len(), |i, out| {
            date(i).is_some_and(|tm| f.write(&tm, out))
        }),
        Formats::Rows(a) => {
            let mut last: Option<(usize, Option<Format>)> = None;
            build_strings(rows, formats.typical_len(), |i, out| {
                if a.is_null(i) {
                    return false;
                }
                let text = a.value(i);
                // Rows repeating the previous row's format reuse its steps.
                let same = last.as_ref().is_some_and(|(j, _)| a.value(*j) == text);
                if !same {
                    last = Some((i, Format::parse(text)));
                }
                let Some((_, Some(f))) = &last else {
                    return false;
                };
                date(i).is_some_and(|tm| f.write(&tm, out))
            })
        }
    }
}

/// A DATE column printed by a constant format. A DATE's text depends on
/// its day alone, and a column holds few distinct days: each day is
/// printed once into a direct-mapped cache and copied from there.
fn format_days(d: &arrow_array::Date32Array, f: &Format) -> Result<ArrayRef> {
    const SLOTS: usize = 4096;
    let mut keys = vec![i32::MIN; SLOTS];
    // Each slot's text as (start, end) in `texts`; `u32::MAX` for NULL.
    let mut spans = vec![(0u32, 0u32); SLOTS];
    let mut texts: Vec<u8> = Vec::with_capacity(SLOTS * f.typical_len());
    build_strings(d.len(), f.typical_len(), |i, out| {
        if d.is_null(i) {
            return false;
        }
        let day = d.value(i);
        let slot = day as usize & (SLOTS - 1);
        if keys[slot] != day {
            // Past 1 MiB of cached text start over (a column of many days).
            if texts.len() > 1 << 20 {
                texts.clear();
                keys.fill(i32::MIN);
            }
            keys[slot] = day;
            let start = texts.len();
            spans[slot] = if f.write(&Tm::from_days(day), &mut texts) {
                (start as u32, texts.len() as u32)
            } else {
                texts.truncate(start);
                (u32::MAX, u32::MAX)
            };
        }
        let (start, end) = spans[slot];
        if start == u32::MAX {
            return false;
        }
        out.extend_from_slice(&texts[start as usize..end as usize]);
        true
    })
}

/// The format argument's type: text (numbers print as their digits).
pub(crate) fn format_arg_type(t: &DataType) -> DataType {
    if *t == DataType::Null {
        DataType::Null
    } else {
        // Text, or a number's digits.
        DataType::Utf8
    }
}

/// The declared length of a format's result: constant formats only.
pub(crate) fn format_result_chars(format: &ArgInfo) -> Option<u64> {
    match &format.literal {
        Some(ScalarValue::Utf8(f)) => Some(Format::max_chars(f)),
        _ => None,
    }
}

impl ScalarFunction for DateFormat {
    fn name(&self) -> &'static str {
        "date_format"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        // MariaDB's third argument, the locale, is refused by coerce_types.
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![date_arg_type(&args[0])?, format_arg_type(&args[1])])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, DataType::Utf8));
        }
        Ok(Bound::Call(DataType::Utf8))
    }

    fn max_chars(&self, args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        format_result_chars(args.get(1)?)
    }

    fn string_result(&self) -> StringResult {
        StringResult::Coercible
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let format = cast_array(a.arg(1)?, &DataType::Utf8)?;
        let formats = Formats::new(&args[1], &format);
        let dates = Dates::new(a.arg(0)?)?;
        let out = match (&dates, &formats) {
            (Dates::Days(d), Formats::Constant(Some(f))) if !a.scalar => format_days(d, f)?,
            _ => format_rows(a.rows, &formats, |i| dates.get(i, true))?,
        };
        a.finish(out, call.data_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(tm: Tm, f: &str) -> Option<String> {
        let mut out = Vec::new();
        Format::parse(f)?
            .write(&tm, &mut out)
            .then(|| String::from_utf8(out).unwrap())
    }

    /// The per-day cache gives what printing each row gives, over more
    /// distinct days than it has slots (collisions) and NULLs.
    #[test]
    fn cached_days_match_rows() {
        let days: arrow_array::Date32Array = (0..20_000)
            .map(|i| (i % 7 != 3).then_some((i * 7919) % 2_932_897 - 719_162))
            .collect();
        let f = Format::parse("%W %D %M %Y %j %U %u %V %v %X %x %a %b %c %e %w").unwrap();
        let cached = format_days(&days, &f).unwrap();
        let dates = Dates::Days(&days);
        let rows = format_rows(days.len(), &Formats::Constant(Some(f)), |i| {
            dates.get(i, true)
        })
        .unwrap();
        assert_eq!(cached.as_ref(), rows.as_ref());
    }

    #[test]
    fn every_specifier() {
        let tm = Tm {
            year: 2024,
            month: 1,
            day: 5,
            hour: 13,
            minute: 4,
            second: 9,
            micros: 12_345,
        };
        // MariaDB 10.11's answer.
        assert_eq!(
            fmt(tm, "%a %b %c %D %d %e %f %H %h %I %i %j %k %l %M %m %p %r %S %s %T %U %u %V %v %W %w %X %x %Y %y %% %q %Z").unwrap(),
            "Fri Jan 1 5th 05 5 012345 13 01 01 04 005 13 1 January 01 PM 01:04:09 PM 09 09 13:04:09 00 01 53 01 Friday 5 2023 2024 2024 24 % q Z"
        );
        assert_eq!(fmt(tm, "%"), Some("%".into()));
        assert_eq!(fmt(tm, "%é"), Some("é".into()));
        assert_eq!(fmt(tm, ""), None);
        assert_eq!(fmt(Tm::default(), "%Y %M"), None);
        assert_eq!(
            fmt(Tm::default(), "%Y-%m-%d %D"),
            Some("0000-00-00 0th".into())
        );
        assert_eq!(Format::max_chars("%Y-%m"), 7);
        assert_eq!(Format::max_chars("%W %M"), 129);
        assert_eq!(Format::max_chars("%f%D%j%U%X"), 19);
    }
}
