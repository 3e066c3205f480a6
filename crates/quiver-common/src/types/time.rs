//! TIME rules: the Arrow type of TIME(fsp), and the parsing, number
//! conversion and printing of MySQL's signed time values.
//!
//! Representation. A TIME is a signed span, not a time of day: MySQL's
//! range is -838:59:59.999999 ..= 838:59:59.999999, and '-1 10:00:00' or
//! '100:00:00' are ordinary values. It is kept as i64 microseconds (the sign
//! and the whole range fit, and ordering, grouping and hashing are those of
//! the integers). The fractional-seconds precision (0 ..= 6) must travel
//! with the type, as DATETIME's does, because it decides how a value prints
//! ('10:00:00' for TIME, '10:00:00.500' for TIME(3)) and what it keeps.
//! Arrow's Duration and Time64 carry only a unit, which cannot say 7
//! precisions; so TIME(fsp) is `Decimal64(TIME_TAG_PRECISION, fsp)`: a
//! 64-bit primitive whose scale slot holds the fsp, while the values stay
//! microseconds whatever the fsp (a Decimal64's scale does not describe
//! them). No other Quiver type is a Decimal64 (DECIMAL is Decimal128 /
//! Decimal256, and Parquet's Decimal64 is widened on load), so the tag is
//! unambiguous; [`is_time`] is the test, and code that asks Arrow's
//! `is_numeric()` must rule TIME out first.

use arrow_schema::DataType;

use super::datetime::MAX_FSP;

/// The precision slot of the Decimal64 that marks a TIME (its value says
/// nothing: the fsp is the scale).
pub const TIME_TAG_PRECISION: u8 = 18;

/// 838:59:59.999999, MySQL's largest TIME, in microseconds.
pub const MAX_TIME_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;

const MICROS_PER_SECOND: i64 = 1_000_000;

/// The Arrow type of TIME(fsp).
pub fn time_type(fsp: u8) -> DataType {
    DataType::Decimal64(TIME_TAG_PRECISION, fsp.min(MAX_FSP) as i8)
}

pub fn is_time(t: &DataType) -> bool {
    matches!(t, DataType::Decimal64(..))
}

/// The fractional-seconds precision of a TIME type (None if `t` is none).
pub fn time_fsp(t: &DataType) -> Option<u8> {
    match t {
        DataType::Decimal64(_, s) => Some((*s).clamp(0, MAX_FSP as i8) as u8),
        _ => None,
    }
}

/// The TIME of the larger precision of two.
pub fn wider_time(a: &DataType, b: &DataType) -> DataType {
    let fsp = |t| time_fsp(t).unwrap_or(0);
    time_type(fsp(a).max(fsp(b)))
}

/// The largest TIME of `fsp` digits (838:59:59.9 for TIME(1)).
pub fn max_time(fsp: u8) -> i64 {
    super::datetime::truncate_fsp(MAX_TIME_MICROS, fsp)
}

/// `micros` cut toward zero to `fsp` digits: MySQL truncates a TIME's
/// magnitude ('-10:05:03.25' as TIME(1) is '-10:05:03.2').
pub fn truncate_time(micros: i64, fsp: u8) -> i64 {
    let unit = 10i64.pow((MAX_FSP - fsp.min(MAX_FSP)) as u32);
    micros - micros % unit
}

/// What reading a text or a number as a TIME found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeRead {
    /// A valid time.
    Exact(i64),
    /// Valid, with characters after it that were ignored (MySQL's
    /// "Truncated incorrect time value").
    Trailing(i64),
    /// Beyond ±838:59:59: clipped to the limit.
    Clipped(i64),
    /// Not a time (a minute or second of 60 or more, no digits): NULL, or
    /// 00:00:00 when stored in non-strict mode.
    Invalid,
}

impl TimeRead {
    pub fn value(self) -> Option<i64> {
        match self {
            TimeRead::Exact(v) | TimeRead::Trailing(v) | TimeRead::Clipped(v) => Some(v),
            TimeRead::Invalid => None,
        }
    }
}

/// A time of hours, minutes, seconds and microseconds, clipped to the range.
fn time_of(neg: bool, h: u64, m: u64, s: u64, us: u64, trailing: bool) -> TimeRead {
    if m >= 60 || s >= 60 {
        return TimeRead::Invalid;
    }
    let total = h
        .saturating_mul(3600)
        .saturating_add(m * 60 + s)
        .saturating_mul(MICROS_PER_SECOND as u64)
        .saturating_add(us);
    let sign = if neg { -1 } else { 1 };
    if total > MAX_TIME_MICROS as u64 {
        // The largest TIME (of 6 digits: a TIME(n) cuts it to its own).
        return TimeRead::Clipped(sign * MAX_TIME_MICROS);
    }
    let v = sign * total as i64;
    if trailing {
        TimeRead::Trailing(v)
    } else {
        TimeRead::Exact(v)
    }
}

/// Digits at the start of `s`: their value (saturating) and how many.
fn digits(s: &[u8]) -> (u64, usize) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let v = s[..n].iter().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add((b - b'0') as u64)
    });
    (v, n)
}

/// A fraction's first six digits as microseconds (the rest is cut), and
/// how many digits there were.
fn fraction(s: &[u8]) -> (u64, usize) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut us = 0u64;
    for i in 0..6 {
        us = us * 10 + s.get(i).filter(|_| i < n).map_or(0, |b| (b - b'0') as u64);
    }
    (us, n)
}

/// Reads a text as MySQL reads a TIME: `[-][D ]HH[:MM[:SS]][.frac]`,
/// `[-]HHMMSS[.frac]` (digits from the right: '12' is 12 seconds, '1003'
/// 00:10:03), or a datetime 'YYYY-MM-DD hh:mm:ss' (its time).
pub fn parse_time(text: &str) -> TimeRead {
    let s = text.trim_start_matches([' ', '\t', '\n', '\r']).as_bytes();
    let s = {
        let mut end = s.len();
        while end > 0 && matches!(s[end - 1], b' ' | b'\t' | b'\n' | b'\r') {
            end -= 1;
        }
        &s[..end]
    };
    let (neg, s) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let (first, n) = digits(s);
    if n == 0 {
        return TimeRead::Invalid;
    }
    let rest = &s[n..];
    // A datetime: take its time part.
    if rest.first() == Some(&b'-') && n >= 2 && !neg {
        if let Some(t) = super::datetime::parse_datetime(text.trim()) {
            let v = t.rem_euclid(86_400_000_000);
            return TimeRead::Exact(v);
        }
        return TimeRead::Invalid;
    }
    match rest.first() {
        Some(b':') => clock(neg, first, &rest[1..]),
        Some(b' ') if rest.get(1).is_some_and(u8::is_ascii_digit) => {
            // D HH[:MM[:SS]]
            let (h, hn) = digits(&rest[1..]);
            let after = &rest[1 + hn..];
            match after.first() {
                Some(b':') => clock(neg, first * 24 + h, &after[1..]),
                _ => time_of(neg, first * 24 + h, 0, 0, 0, !after.is_empty()),
            }
        }
        _ => {
            // HHMMSS[.frac]: the digits read from the right.
            let (us, trailing) = match rest.first() {
                Some(b'.') => {
                    let (us, fnn) = fraction(&rest[1..]);
                    (us, rest.len() > 1 + fnn)
                }
                Some(_) => (0, true),
                None => (0, false),
            };
            // Other characters after the digits ('1e3', '12abc'): no time.
            if trailing {
                return TimeRead::Invalid;
            }
            let (h, m, sec) = (first / 10_000, first / 100 % 100, first % 100);
            time_of(neg, h, m, sec, us, false)
        }
    }
}

/// `MM[:SS][.frac]` after the first `:`; `h` is the hours before it (the
/// days counted in, in the day form).
fn clock(neg: bool, h: u64, s: &[u8]) -> TimeRead {
    let (m, mn) = digits(s);
    if mn == 0 {
        return time_of(neg, h, 0, 0, 0, true);
    }
    let rest = &s[mn..];
    let (sec, rest) = match rest.first() {
        Some(b':') => {
            let (sec, sn) = digits(&rest[1..]);
            if sn == 0 {
                return time_of(neg, h, m, 0, 0, true);
            }
            (sec, &rest[1 + sn..])
        }
        _ => (0, rest),
    };
    let (us, rest) = match rest.first() {
        Some(b'.') => {
            let (us, fnn) = fraction(&rest[1..]);
            (us, &rest[1 + fnn..])
        }
        _ => (0, rest),
    };
    time_of(neg, h, m, sec, us, !rest.is_empty())
}

/// Reads an integer as MySQL reads a TIME: [-]HHMMSS, or a datetime
/// number YYYYMMDDhhmmss (its time part).
pub fn time_from_int(n: i64) -> TimeRead {
    let neg = n < 0;
    let a = n.unsigned_abs();
    if a >= 10_000_000_000 {
        let t = a % 1_000_000;
        return if neg {
            TimeRead::Invalid
        } else {
            time_of(false, t / 10_000, t / 100 % 100, t % 100, 0, false)
        };
    }
    time_of(neg, a / 10_000, a / 100 % 100, a % 100, 0, false)
}

/// Reads a decimal number (unscaled `v` at `scale`) as a TIME: its integer
/// part as [`time_from_int`], its fraction as the microseconds (at most 6
/// digits: MariaDB reads more as invalid).
pub fn time_from_decimal(v: i128, scale: i8) -> TimeRead {
    if scale <= 0 {
        return match i64::try_from(v) {
            Ok(n) => time_from_int(n),
            Err(_) => TimeRead::Invalid,
        };
    }
    let m = 10i128.pow(scale as u32);
    let (int, frac) = (v / m, (v % m).unsigned_abs());
    let us = if scale <= 6 {
        frac * 10u128.pow(6 - scale as u32)
    } else {
        // Digits beyond the sixth that are all zero are harmless.
        let cut = 10u128.pow(scale as u32 - 6);
        if frac % cut != 0 {
            return TimeRead::Invalid;
        }
        frac / cut
    };
    let Ok(int) = i64::try_from(int) else {
        return TimeRead::Invalid;
    };
    match time_from_int(int) {
        TimeRead::Exact(t) => {
            let neg = v < 0;
            let t = t.abs() + us as i64;
            if t > MAX_TIME_MICROS {
                return TimeRead::Clipped(if neg {
                    -MAX_TIME_MICROS
                } else {
                    MAX_TIME_MICROS
                });
            }
            TimeRead::Exact(if neg { -t } else { t })
        }
        other => other,
    }
}

/// A TIME(fsp) value as MySQL prints it: `[-]HH:MM:SS` (hours of two digits
/// or more), and exactly `fsp` fraction digits.
pub fn format_time(micros: i64, fsp: u8) -> String {
    let mut out = String::with_capacity(17);
    write_time(&mut out, micros, fsp);
    out
}

/// [`format_time`] into `out`.
pub fn write_time(out: &mut String, micros: i64, fsp: u8) {
    use std::fmt::Write;
    let a = micros.unsigned_abs();
    let secs = a / 1_000_000;
    if micros < 0 {
        out.push('-');
    }
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    let fsp = fsp.min(MAX_FSP);
    if fsp > 0 {
        let frac = a % 1_000_000;
        let digits = format!("{frac:06}");
        out.push('.');
        out.push_str(&digits[..fsp as usize]);
    }
}

/// The fraction digits a time literal's text writes (at most 6):
/// `TIME'10:00:00.12'` is TIME(2).
pub fn time_literal_fsp(s: &str) -> u8 {
    match s.trim().split_once('.') {
        Some((_, frac)) => frac
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count()
            .min(MAX_FSP as usize) as u8,
        None => 0,
    }
}

/// A TIME as MySQL's number HHMMSS.ffffff: the unscaled value at scale 6.
pub fn time_number(micros: i64) -> i128 {
    let a = micros.unsigned_abs() as i128;
    let secs = a / 1_000_000;
    let n = (secs / 3600 * 10_000 + secs / 60 % 60 * 100 + secs % 60) * 1_000_000 + a % 1_000_000;
    if micros < 0 {
        -n
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(h: i64, m: i64, s: i64, us: i64) -> i64 {
        ((h * 60 + m) * 60 + s) * 1_000_000 + us
    }

    #[test]
    fn parses_mysql_forms() {
        assert_eq!(parse_time("10:05:03"), TimeRead::Exact(t(10, 5, 3, 0)));
        assert_eq!(
            parse_time("-838:59:59"),
            TimeRead::Exact(-t(838, 59, 59, 0))
        );
        assert_eq!(parse_time("1 10:00:00"), TimeRead::Exact(t(34, 0, 0, 0)));
        assert_eq!(parse_time("1 10"), TimeRead::Exact(t(34, 0, 0, 0)));
        assert_eq!(parse_time("10:05"), TimeRead::Exact(t(10, 5, 0, 0)));
        assert_eq!(parse_time("12"), TimeRead::Exact(t(0, 0, 12, 0)));
        assert_eq!(parse_time("1003"), TimeRead::Exact(t(0, 10, 3, 0)));
        assert_eq!(
            parse_time("100503.5"),
            TimeRead::Exact(t(10, 5, 3, 500_000))
        );
        assert_eq!(
            parse_time("10:05:03.1234567"),
            TimeRead::Exact(t(10, 5, 3, 123_456))
        );
        assert_eq!(
            parse_time("10:05:03abc"),
            TimeRead::Trailing(t(10, 5, 3, 0))
        );
        assert_eq!(parse_time("1e3"), TimeRead::Invalid);
        assert_eq!(parse_time(" 10:00:00 "), TimeRead::Exact(t(10, 0, 0, 0)));
        assert_eq!(
            parse_time("2020-01-01 10:05:03"),
            TimeRead::Exact(t(10, 5, 3, 0))
        );
        assert_eq!(parse_time("900:00:00"), TimeRead::Clipped(MAX_TIME_MICROS));
        assert_eq!(parse_time("10:65:00"), TimeRead::Invalid);
        assert_eq!(parse_time("abc"), TimeRead::Invalid);
        assert_eq!(parse_time(""), TimeRead::Invalid);
    }

    #[test]
    fn numbers_and_printing() {
        assert_eq!(time_from_int(100503), TimeRead::Exact(t(10, 5, 3, 0)));
        assert_eq!(time_from_int(-1), TimeRead::Exact(-1_000_000));
        assert_eq!(time_from_int(70), TimeRead::Invalid);
        assert_eq!(time_from_int(8395959), TimeRead::Clipped(MAX_TIME_MICROS));
        assert_eq!(time_from_decimal(5, 1), TimeRead::Exact(500_000));
        assert_eq!(format_time(-t(838, 59, 59, 0), 0), "-838:59:59");
        assert_eq!(format_time(t(1, 2, 3, 450_000), 3), "01:02:03.450");
        assert_eq!(time_number(-t(10, 5, 3, 500_000)), -100_503_500_000);
        assert_eq!(
            truncate_time(-t(10, 5, 3, 250_000), 1),
            -t(10, 5, 3, 200_000)
        );
    }
}
