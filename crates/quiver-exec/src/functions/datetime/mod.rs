//! Date functions that need no TIME type (DATE_FORMAT, UNIX_TIMESTAMP,
//! DATEDIFF, WEEK, ...), and what they share: a date argument read row by
//! row as MariaDB's broken-down `MYSQL_TIME` ([`Tm`]), MariaDB's day
//! numbers and week rules ([`calc_daynr`], [`calc_week`]), and the reading
//! of date text with its 1292 warnings.
//!
//! Day numbers are MariaDB's (`TO_DAYS`), not the proleptic Gregorian
//! calendar's: MariaDB's year 0 has 365 days, and a date with a zero month
//! or day still has a number (which its week arithmetic shows, wrapping
//! as unsigned C integers do). From 0001-01-01 on both agree, so a DATE
//! column (days since 1970) takes the fast path `days + 719528`.

pub mod convert_tz;
pub mod date_format;
pub mod datediff;
pub mod day_numbers;
pub mod day_parts;
pub mod str_to_date;
pub mod time_fns;
pub mod time_format;
pub(crate) mod tz;
pub mod unix_time;
pub mod week;

use arrow_array::{
    cast::AsArray,
    types::{Date32Type, TimestampMicrosecondType},
    Array, ArrayRef, Date32Array, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::DataType;
use quiver_common::types::{civil_from_days, datetime_fsp, is_string};
use quiver_common::{QuiverError, Result};

use crate::expr::cast_array;
use crate::warnings::{raise_with, Level};

/// MariaDB's day number of 1970-01-01 (TO_DAYS('1970-01-01')).
pub(crate) const EPOCH_DAYNR: i64 = 719_528;

/// A date and time as MariaDB holds it broken down; month and day may be 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tm {
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micros: u32,
}

impl Tm {
    /// The date `days` after 1970-01-01.
    #[inline]
    pub fn from_days(days: i32) -> Tm {
        let (y, m, d) = civil_from_days(days);
        Tm {
            year: y.max(0) as u32,
            month: m,
            day: d,
            ..Tm::default()
        }
    }

    /// The DATETIME `micros` after 1970-01-01 00:00:00.
    #[inline]
    pub fn from_micros(micros: i64) -> Tm {
        let days = micros.div_euclid(86_400_000_000);
        let rem = micros.rem_euclid(86_400_000_000);
        let secs = (rem / 1_000_000) as u32;
        Tm {
            hour: secs / 3600,
            minute: secs / 60 % 60,
            second: secs % 60,
            micros: (rem % 1_000_000) as u32,
            ..Tm::from_days(days as i32)
        }
    }

    pub fn has_zero_part(&self) -> bool {
        self.month == 0 || self.day == 0
    }

    /// MariaDB's day number of the date.
    pub fn daynr(&self) -> i64 {
        calc_daynr(self.year, self.month, self.day)
    }

    /// Days since 1970-01-01 (a valid date of year 1 or later).
    pub fn epoch_days(&self) -> i64 {
        self.daynr() - EPOCH_DAYNR
    }

    pub fn seconds_of_day(&self) -> i64 {
        (self.hour as i64 * 60 + self.minute as i64) * 60 + self.second as i64
    }
}

/// MariaDB's `calc_daynr`: days since year 0 by its calendar (year 0 has
/// 365 days), computed for zero months and days too.
pub(crate) fn calc_daynr(year: u32, month: u32, day: u32) -> i64 {
    if year == 0 && month == 0 {
        return 0;
    }
    let mut y = year as i64;
    let mut delsum = 365 * y + 31 * (month as i64 - 1) + day as i64;
    if month <= 2 {
        y -= 1;
    } else {
        delsum -= (month as i64 * 4 + 23) / 10;
    }
    // C's division truncates toward zero (y is -1 for January of year 0).
    let temp = ((y / 100 + 1) * 3) / 4;
    delsum + y / 4 - temp
}

/// MariaDB's leap years: year 0 is none.
pub(crate) fn is_leap(year: u32) -> bool {
    year & 3 == 0 && (!year.is_multiple_of(100) || (year.is_multiple_of(400) && year != 0))
}

pub(crate) fn days_in_year(year: u32) -> u32 {
    if is_leap(year) {
        366
    } else {
        365
    }
}

pub(crate) fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The day of the week of a day number: 0 is Monday, or Sunday when
/// `sunday_first`.
#[inline]
pub(crate) fn calc_weekday(daynr: i64, sunday_first: bool) -> u32 {
    (daynr + 5 + sunday_first as i64).rem_euclid(7) as u32
}

/// Week rule bits, as MariaDB's `week_mode` makes them of a mode 0-7.
pub(crate) const WEEK_MONDAY_FIRST: u32 = 1;
pub(crate) const WEEK_YEAR: u32 = 2;
pub(crate) const WEEK_FIRST_WEEKDAY: u32 = 4;

/// The week rule bits of WEEK's `mode` (its low 3 bits).
pub(crate) fn week_mode(mode: i64) -> u32 {
    let mut m = (mode & 7) as u32;
    if m & WEEK_MONDAY_FIRST == 0 {
        m ^= WEEK_FIRST_WEEKDAY;
    }
    m
}

/// MariaDB's `calc_week`: the week of `tm` under rule `behaviour`, and the
/// year it belongs to. Its arithmetic is unsigned 32-bit as MariaDB's is,
/// which zero dates show (DATE_FORMAT('0000-00-00', '%U') is 613566757).
pub(crate) fn calc_week(tm: &Tm, behaviour: u32) -> (u32, u32) {
    let daynr = tm.daynr();
    let mut first_daynr = calc_daynr(tm.year, 1, 1);
    let monday_first = behaviour & WEEK_MONDAY_FIRST != 0;
    let mut week_year = behaviour & WEEK_YEAR != 0;
    let first_weekday = behaviour & WEEK_FIRST_WEEKDAY != 0;
    let mut weekday = calc_weekday(first_daynr, !monday_first);
    let mut year = tm.year;
    if tm.month == 1 && tm.day <= 7 - weekday {
        if !week_year && ((first_weekday && weekday != 0) || (!first_weekday && weekday >= 4)) {
            return (0, year);
        }
        week_year = true;
        year = year.wrapping_sub(1);
        let days = days_in_year(year);
        first_daynr -= days as i64;
        weekday = (weekday + 53 * 7 - days) % 7;
    }
    let days = if (first_weekday && weekday != 0) || (!first_weekday && weekday >= 4) {
        daynr - (first_daynr + (7 - weekday as i64))
    } else {
        daynr - (first_daynr - weekday as i64)
    } as u32;
    if week_year && days >= 52 * 7 {
        let weekday = (weekday + days_in_year(year)) % 7;
        if (!first_weekday && weekday < 4) || (first_weekday && weekday == 0) {
            return (1, year.wrapping_add(1));
        }
    }
    (days / 7 + 1, year)
}

pub(crate) const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Monday first, as WEEKDAY counts.
pub(crate) const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Results by DATE value, direct-mapped: a date column holds few distinct
/// days (TPC-H's hold 2,500), so most rows skip the calendar arithmetic.
pub(crate) struct DayCache {
    keys: Vec<i32>,
    values: Vec<i64>,
}

impl DayCache {
    const SLOTS: usize = 4096;

    pub fn new() -> DayCache {
        DayCache {
            keys: vec![i32::MIN; Self::SLOTS],
            values: vec![0; Self::SLOTS],
        }
    }

    /// `f(day)`, computed once per slot occupant.
    #[inline]
    pub fn get(&mut self, day: i32, f: impl FnOnce(i32) -> i64) -> i64 {
        let slot = day as usize & (Self::SLOTS - 1);
        if self.keys[slot] != day {
            self.keys[slot] = day;
            self.values[slot] = f(day);
        }
        self.values[slot]
    }
}

/// Every non-NULL argument as `t` (NULL stays NULL so the call folds to
/// NULL): the argument types of the all-number and all-text functions.
pub(crate) fn non_null_as(args: &[DataType], t: DataType) -> Vec<DataType> {
    args.iter()
        .map(|a| match a {
            DataType::Null => DataType::Null,
            _ => t.clone(),
        })
        .collect()
}

/// The type a date argument is converted to: DATE and DATETIME stay,
/// strings are read as text, numbers as their digits (20240105).
pub(crate) fn date_arg_type(t: &DataType) -> Result<DataType> {
    Ok(match t {
        DataType::Date32 | DataType::Timestamp(..) | DataType::Null => t.clone(),
        // MariaDB reads a TIME as today's date and time: not built yet.
        t if quiver_common::types::is_time(t) => {
            return Err(QuiverError::not_supported("a date function over TIME"))
        }
        t if is_string(t) || t.is_numeric() || *t == DataType::Boolean => DataType::Utf8,
        other => {
            return Err(QuiverError::not_supported(format!(
                "a date function over {other}"
            )))
        }
    })
}

/// A date argument's column, read row by row.
pub(crate) enum Dates<'a> {
    /// DATE: days since 1970-01-01.
    Days(&'a Date32Array),
    /// DATETIME: microseconds since 1970-01-01 00:00:00.
    Micros(&'a TimestampMicrosecondArray),
    Text(&'a StringArray),
    Null,
}

impl<'a> Dates<'a> {
    pub fn new(a: &'a ArrayRef) -> Result<Dates<'a>> {
        Ok(match a.data_type() {
            DataType::Date32 => Dates::Days(a.as_primitive::<Date32Type>()),
            DataType::Timestamp(..) => Dates::Micros(a.as_primitive::<TimestampMicrosecondType>()),
            DataType::Utf8 => Dates::Text(a.as_string::<i32>()),
            DataType::Null => Dates::Null,
            other => {
                return Err(QuiverError::internal(format!(
                    "date argument of type {other}"
                )))
            }
        })
    }

    /// Row `i`, or None for NULL and for text that is no date (warning
    /// 1292). A date with a zero month or day is None with that warning
    /// too unless `fuzzy` (the functions that read fields as written).
    #[inline]
    pub fn get(&self, i: usize, fuzzy: bool) -> Option<Tm> {
        match self {
            Dates::Days(a) => a.is_valid(i).then(|| Tm::from_days(a.value(i))),
            Dates::Micros(a) => a.is_valid(i).then(|| Tm::from_micros(a.value(i))),
            Dates::Text(a) => {
                if a.is_null(i) {
                    return None;
                }
                let s = a.value(i);
                let tm = read_date_text(s)?;
                if !fuzzy && tm.has_zero_part() {
                    incorrect_datetime(s);
                    return None;
                }
                Some(tm)
            }
            Dates::Null => None,
        }
    }
}

/// Warning 1292 for text that is no datetime.
#[cold]
pub(crate) fn incorrect_datetime(s: &str) {
    raise_with(Level::Warning, 1292, || {
        format!("Incorrect datetime value: '{s}'")
    });
}

/// `s` read as a date or datetime, with MariaDB's warnings: None (1292
/// "Incorrect datetime value") when it is none, the date with 1292
/// "Truncated incorrect date value" when characters follow it.
pub(crate) fn read_date_text(s: &str) -> Option<Tm> {
    match parse_date_text(s) {
        Some((tm, false)) => Some(tm),
        Some((tm, true)) => {
            raise_with(Level::Warning, 1292, || {
                format!("Truncated incorrect date value: '{s}'")
            });
            Some(tm)
        }
        None => {
            incorrect_datetime(s);
            None
        }
    }
}

/// MySQL's reading of date text, simplified: `YYYY-MM-DD[ hh:mm[:ss[.f]]]`
/// with any punctuation between the fields and a two-digit year read as
/// 1970-2069, or digits alone (`YYMMDD`, `YYYYMMDD`, `YYMMDDhhmmss`,
/// `YYYYMMDDhhmmss`, a fraction after them). Zero months and days are
/// kept; an impossible day (Feb 30) is none. The flag: characters follow.
pub(crate) fn parse_date_text(s: &str) -> Option<(Tm, bool)> {
    let b = s.trim_start_matches([' ', '\t', '\n', '\r']).as_bytes();
    let lead = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if lead == 0 {
        return None;
    }
    let (tm, rest) = if lead > 4 || lead == b.len() {
        packed_digits(b, lead)?
    } else {
        delimited(b)?
    };
    let valid = tm.month <= 12
        && tm.day <= 31
        && tm.hour <= 23
        && tm.minute <= 59
        && tm.second <= 59
        && (tm.month == 0 || tm.day <= days_in_month(tm.year, tm.month));
    if !valid {
        return None;
    }
    let truncated = rest.iter().any(|c| !c.is_ascii_whitespace());
    Some((tm, truncated))
}

/// A number of `n` ASCII digits.
fn digits_value(d: &[u8]) -> u32 {
    d.iter().fold(0u32, |v, c| {
        v.saturating_mul(10).saturating_add((c - b'0') as u32)
    })
}

fn two_digit_year(y: u32) -> u32 {
    if y < 70 {
        y + 2000
    } else {
        y + 1900
    }
}

/// Up to 6 fraction digits (more are cut) and what follows them.
fn fraction(b: &[u8]) -> (u32, &[u8]) {
    let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut v = 0;
    for i in 0..6 {
        v = v * 10 + b.get(i).filter(|_| i < n).map_or(0, |c| (c - b'0') as u32);
    }
    (v, &b[n..])
}

fn packed_digits(b: &[u8], n: usize) -> Option<(Tm, &[u8])> {
    let d = &b[..n];
    let f = |r: std::ops::Range<usize>| digits_value(&d[r]);
    let mut tm = match n {
        6 | 12 => Tm {
            year: two_digit_year(f(0..2)),
            month: f(2..4),
            day: f(4..6),
            ..Tm::default()
        },
        8 | 14 => Tm {
            year: f(0..4),
            month: f(4..6),
            day: f(6..8),
            ..Tm::default()
        },
        _ => return None,
    };
    if n >= 12 {
        let t = n - 6;
        tm.hour = f(t..t + 2);
        tm.minute = f(t + 2..t + 4);
        tm.second = f(t + 4..t + 6);
    }
    let mut rest = &b[n..];
    if let [b'.', tail @ ..] = rest {
        let (us, r) = fraction(tail);
        tm.micros = us;
        rest = r;
    }
    Some((tm, rest))
}

/// A run of digits at the start of `b` (at most `max`): its value and
/// length.
fn number(b: &[u8], max: usize) -> (u32, usize) {
    let n = b
        .iter()
        .take(max)
        .take_while(|c| c.is_ascii_digit())
        .count();
    (digits_value(&b[..n]), n)
}

fn delimited(b: &[u8]) -> Option<(Tm, &[u8])> {
    let mut tm = Tm::default();
    let (y, n) = number(b, 4);
    tm.year = if n <= 2 { two_digit_year(y) } else { y };
    let mut p = n;
    let mut fields = [0u32; 2];
    for f in &mut fields {
        if p >= b.len() || !b[p].is_ascii_punctuation() {
            return None;
        }
        p += 1;
        let (v, n) = number(&b[p..], 2);
        if n == 0 {
            return None;
        }
        *f = v;
        p += n;
    }
    tm.month = fields[0];
    tm.day = fields[1];
    // The time: after spaces or a 'T', hours then up to two more fields.
    let mut q = p;
    while q < b.len() && b[q] == b' ' {
        q += 1;
    }
    if q < b.len() && b[q] == b'T' && q == p {
        q += 1;
    }
    if q == p || q >= b.len() || !b[q].is_ascii_digit() {
        return Some((tm, &b[p..]));
    }
    let (h, n) = number(&b[q..], 2);
    tm.hour = h;
    p = q + n;
    for f in [&mut tm.minute, &mut tm.second] {
        if p + 1 < b.len() && b[p].is_ascii_punctuation() && b[p + 1].is_ascii_digit() {
            let (v, n) = number(&b[p + 1..], 2);
            *f = v;
            p += 1 + n;
        } else {
            break;
        }
    }
    if p < b.len() && b[p] == b'.' {
        let (us, r) = fraction(&b[p + 1..]);
        tm.micros = us;
        return Some((tm, r));
    }
    Some((tm, &b[p..]))
}

/// An integer argument (WEEK's mode, MAKEDATE's year) as i64 per row.
pub(crate) fn int_column(a: &ArrayRef) -> Result<ArrayRef> {
    cast_array(a, &DataType::Int64)
}

/// The fraction digits a date argument carries: a DATETIME's, a text
/// literal's, 6 for other text (as MariaDB decides for UNIX_TIMESTAMP).
pub(crate) fn arg_fsp(t: &DataType, literal: Option<&quiver_common::ScalarValue>) -> u8 {
    match t {
        DataType::Timestamp(..) => datetime_fsp(t).unwrap_or(0),
        DataType::Utf8 => match literal {
            Some(quiver_common::ScalarValue::Utf8(s)) => literal_text_fsp(s),
            Some(_) => 0,
            None => 6,
        },
        _ => 0,
    }
}

/// The fraction digits of a date literal's text (`'...10:00:00.123'` is 3;
/// digits alone with a fraction count it too).
fn literal_text_fsp(s: &str) -> u8 {
    match s.trim().rsplit_once('.') {
        Some((head, frac))
            if head.bytes().last().is_some_and(|c| c.is_ascii_digit())
                && (head.contains(':') || head.bytes().all(|c| c.is_ascii_digit())) =>
        {
            frac.bytes().take_while(u8::is_ascii_digit).count().min(6) as u8
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quiver_common::types::days_from_civil;

    #[test]
    fn day_numbers_are_mariadbs() {
        assert_eq!(calc_daynr(1970, 1, 1), EPOCH_DAYNR);
        assert_eq!(calc_daynr(1, 1, 1), 366);
        assert_eq!(calc_daynr(0, 1, 1), 1);
        assert_eq!(calc_daynr(2024, 1, 5), 739_255);
        for d in [-719_162, -1, 0, 19_000, 2_932_896] {
            assert_eq!(Tm::from_days(d).epoch_days(), d as i64);
        }
        assert_eq!(
            Tm::from_days(days_from_civil(2024, 2, 29)).daynr(),
            calc_daynr(2024, 2, 29)
        );
    }

    #[test]
    fn weeks_as_mariadb_counts_them() {
        let tm = |y, m, d| Tm {
            year: y,
            month: m,
            day: d,
            ..Tm::default()
        };
        // DATE_FORMAT('2024-01-05', '%U %u %V %v %X %x'): 00 01 53 01 2023 2024.
        let t = tm(2024, 1, 5);
        assert_eq!(calc_week(&t, WEEK_FIRST_WEEKDAY).0, 0);
        assert_eq!(calc_week(&t, WEEK_MONDAY_FIRST).0, 1);
        assert_eq!(calc_week(&t, WEEK_YEAR | WEEK_FIRST_WEEKDAY), (53, 2023));
        assert_eq!(calc_week(&t, WEEK_MONDAY_FIRST | WEEK_YEAR), (1, 2024));
        // Zero dates wrap as MariaDB's unsigned arithmetic does.
        assert_eq!(calc_week(&tm(0, 0, 0), WEEK_FIRST_WEEKDAY).0, 613_566_757);
        assert_eq!(
            calc_week(&tm(0, 1, 1), WEEK_MONDAY_FIRST | WEEK_YEAR).1,
            u32::MAX
        );
    }

    #[test]
    fn date_text() {
        let p =
            |s| parse_date_text(s).map(|(t, tr)| (t.year, t.month, t.day, t.hour, t.micros, tr));
        assert_eq!(p("2024-01-05"), Some((2024, 1, 5, 0, 0, false)));
        assert_eq!(p("24-1-5"), Some((2024, 1, 5, 0, 0, false)));
        assert_eq!(p("2024/01/05 10.11.12"), Some((2024, 1, 5, 10, 0, false)));
        assert_eq!(
            p("2024-01-05 10:00:00.5"),
            Some((2024, 1, 5, 10, 500_000, false))
        );
        assert_eq!(p("20240105"), Some((2024, 1, 5, 0, 0, false)));
        assert_eq!(p("20240105103000"), Some((2024, 1, 5, 10, 0, false)));
        assert_eq!(p(" 2024-01-05x"), Some((2024, 1, 5, 0, 0, true)));
        assert_eq!(p("0000-00-00"), Some((0, 0, 0, 0, 0, false)));
        assert_eq!(p("2024-02-30"), None);
        assert_eq!(p("2024-01-05 25:00:00"), None);
        assert_eq!(p("2024.5"), None);
        assert_eq!(p("abc"), None);
        assert_eq!(p(""), None);
        assert_eq!(literal_text_fsp("2024-01-05 10:00:00.123"), 3);
        assert_eq!(literal_text_fsp("2024-01-05"), 0);
    }
}
