//! DATETIME and DATE rules: the fractional-seconds precision kept in the
//! Arrow type, and the civil-calendar arithmetic, parsing and printing of
//! dates and datetimes.

use arrow_schema::{DataType, TimeUnit};

/// MySQL's largest fractional-seconds precision (DATETIME(6): microseconds).
pub const MAX_FSP: u8 = 6;

/// The timezone texts that mark DATETIME(1) ..= DATETIME(6).
const FSP_TAGS: [&str; 7] = ["", "fsp1", "fsp2", "fsp3", "fsp4", "fsp5", "fsp6"];

/// The Arrow type of DATETIME(fsp). Values are always microseconds since
/// 1970-01-01 (a DATETIME has no time zone); the fractional-seconds precision
/// MySQL declares (0 ..= 6 digits, which a TimeUnit cannot say) is kept in
/// the Timestamp's otherwise unused timezone slot: `None` for DATETIME(0),
/// MySQL's plain DATETIME (and what a manifest's `datetime` has always
/// meant), `Some("fspN")` for DATETIME(N). Being part of the type, it travels
/// with every expression, result column and stored column as a DECIMAL's
/// scale does: casts between precisions truncate, output prints N digits.
pub fn datetime_type(fsp: u8) -> DataType {
    let fsp = fsp.min(MAX_FSP) as usize;
    DataType::Timestamp(
        TimeUnit::Microsecond,
        (fsp > 0).then(|| FSP_TAGS[fsp].into()),
    )
}

/// The fractional-seconds precision of a DATETIME type (None if `t` is none).
pub fn datetime_fsp(t: &DataType) -> Option<u8> {
    match t {
        DataType::Timestamp(_, None) => Some(0),
        DataType::Timestamp(_, Some(tag)) => Some(
            FSP_TAGS
                .iter()
                .position(|f| f == &tag.as_ref())
                .map_or(MAX_FSP, |i| i as u8),
        ),
        _ => None,
    }
}

pub fn is_datetime(t: &DataType) -> bool {
    matches!(t, DataType::Timestamp(..))
}

/// `micros` cut to `fsp` fraction digits. MySQL truncates (does not round)
/// a value stored or cast into fewer digits, unless TIME_ROUND_FRACTIONAL.
pub fn truncate_fsp(micros: i64, fsp: u8) -> i64 {
    let unit = 10i64.pow((MAX_FSP - fsp.min(MAX_FSP)) as u32);
    micros - micros.rem_euclid(unit)
}

/// The digits of the fraction a datetime literal's text writes (at most 6):
/// `TIMESTAMP'2020-01-01 10:00:00.12'` is DATETIME(2).
pub fn literal_fsp(s: &str) -> u8 {
    let s = s.trim();
    let Some((_, time)) = s.split_once([' ', 'T']) else {
        return 0;
    };
    match time.split_once('.') {
        Some((_, frac)) => frac
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count()
            .min(MAX_FSP as usize) as u8,
        None => 0,
    }
}

/// The DATETIME of the larger precision of two.
pub fn wider_datetime(a: &DataType, b: &DataType) -> DataType {
    let fsp = |t| datetime_fsp(t).unwrap_or(0);
    datetime_type(fsp(a).max(fsp(b)))
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian).
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = (y - era * 400) as u32;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe as i32 - 719468
}

/// The civil date (year, month, day) of a day number.
pub fn civil_from_days(z: i32) -> (i32, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = (z - era * 146097) as u32;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe as i32 + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

pub fn format_date(days: i32) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A DATETIME(fsp) value as MySQL prints it: exactly `fsp` fraction digits
/// (`2020-01-01 00:00:00.000` for DATETIME(3)), none for DATETIME(0). A
/// value with more digits than its type (it never should have) is cut.
pub fn format_datetime(micros: i64, fsp: u8) -> String {
    let days = micros.div_euclid(86_400_000_000);
    let rem = micros.rem_euclid(86_400_000_000);
    let secs = rem / 1_000_000;
    let frac = rem % 1_000_000;
    let base = format!(
        "{} {:02}:{:02}:{:02}",
        format_date(days as i32),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    match fsp.min(MAX_FSP) {
        0 => base,
        n => {
            let digits = format!("{frac:06}");
            format!("{base}.{}", &digits[..n as usize])
        }
    }
}

/// The (year, month, day) numbers of 'YYYY-MM-DD' (a time part may
/// follow), unchecked. A year of exactly two digits is MySQL's: 70-99 are
/// 1970-1999, 00-69 2000-2069.
fn date_fields(s: &str) -> Option<(i32, u32, u32)> {
    let date = s.trim().split([' ', 'T']).next()?;
    let mut it = date.split('-');
    let year = it.next()?;
    let mut y: i32 = year.parse().ok()?;
    if year.len() == 2 && year.bytes().all(|b| b.is_ascii_digit()) {
        y += if y < 70 { 2000 } else { 1900 };
    }
    let m: u32 = it.next()?.parse().ok()?;
    let d: u32 = it.next()?.parse().ok()?;
    match it.next() {
        Some(_) => None,
        None => Some((y, m, d)),
    }
}

/// Parses 'YYYY-MM-DD' (also with a time part, which is dropped).
pub fn parse_date(s: &str) -> Option<i32> {
    let (y, m, d) = date_fields(s)?;
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Parses 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]'.
pub fn parse_datetime(s: &str) -> Option<i64> {
    let s = s.trim();
    let days = parse_date(s)? as i64;
    let time = s.split_once([' ', 'T']).map(|(_, t)| t).unwrap_or("");
    let mut micros = 0i64;
    if !time.is_empty() {
        let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
        let mut parts = hms.split(':');
        let h: i64 = parts.next()?.parse().ok()?;
        let mi: i64 = parts.next().unwrap_or("0").parse().ok()?;
        let se: i64 = parts.next().unwrap_or("0").parse().ok()?;
        if h > 23 || mi > 59 || se > 59 {
            return None;
        }
        let mut f = 0i64;
        let fd: String = frac.chars().take(6).collect();
        if !fd.is_empty() {
            f = fd.parse::<i64>().ok()? * 10i64.pow(6 - fd.len() as u32);
        }
        micros = ((h * 60 + mi) * 60 + se) * 1_000_000 + f;
    }
    Some(days * 86_400_000_000 + micros)
}

/// The (year, month, day) of a 'YYYY-MM-DD' text (a time part may
/// follow) whose month or day is zero, which MySQL's date functions accept
/// under the default sql_mode (MONTH('2019-00-03') is 0). None for any
/// other text: a valid date is [`parse_date`]'s.
pub fn parse_zero_part_date(s: &str) -> Option<(i32, u32, u32)> {
    let (y, m, d) = date_fields(s)?;
    (m <= 12 && d <= 31 && (m == 0 || d == 0)).then_some((y, m, d))
}

/// The fields of a TIME value read from text as MySQL reads it for HOUR,
/// MINUTE, SECOND and MICROSECOND: `[-][D ]H:MM[:SS][.ffffff]` or digits
/// (`SS`, `MMSS`, `HHMMSS`), the sign dropped. Past 838:59:59 the value is
/// 838:59:59 (`clamped`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeFields {
    pub hours: i64,
    pub minutes: i64,
    pub seconds: i64,
    pub micros: i64,
    pub clamped: bool,
}

/// [`TimeFields`] of `s`, or None when it is no time.
pub fn parse_time_fields(s: &str) -> Option<TimeFields> {
    let t = s.trim();
    let t = t.strip_prefix('-').unwrap_or(t);
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    let (days, rest) = match t.split_once(' ') {
        Some((d, r)) if digits(d) => (d.parse::<i64>().ok()?, r.trim_start()),
        _ => (0, t),
    };
    let (hms, frac) = rest.split_once('.').unwrap_or((rest, ""));
    if !frac.is_empty() && !digits(frac) {
        return None;
    }
    let micros = match frac {
        "" => 0,
        f => {
            let f: String = f.chars().take(6).collect();
            f.parse::<i64>().ok()? * 10i64.pow(6 - f.len() as u32)
        }
    };
    let (h, m, sec) = if hms.contains(':') {
        let parts: Vec<&str> = hms.split(':').collect();
        if parts.len() > 3 || !parts.iter().all(|p| digits(p)) {
            return None;
        }
        let n = |i: usize| parts.get(i).map_or(Some(0), |p| p.parse::<i64>().ok());
        (n(0)?, n(1)?, n(2)?)
    } else if digits(hms) {
        let v: i64 = hms.parse().ok()?;
        (v / 10_000, v / 100 % 100, v % 100)
    } else {
        return None;
    };
    if m > 59 || sec > 59 {
        return None;
    }
    let hours = days.checked_mul(24)?.checked_add(h)?;
    if hours > 838 {
        return Some(TimeFields {
            hours: 838,
            minutes: 59,
            seconds: 59,
            micros: 0,
            clamped: true,
        });
    }
    Some(TimeFields {
        hours,
        minutes: m,
        seconds: sec,
        micros,
        clamped: false,
    })
}

/// Adds months to a date as MySQL does: the day is clipped to the month's last day.
pub fn add_months(days: i32, months: i64) -> Option<i32> {
    let (y, m, d) = civil_from_days(days);
    let total = y as i64 * 12 + (m as i64 - 1) + months;
    let ny = total.div_euclid(12);
    let nm = (total.rem_euclid(12) + 1) as u32;
    if !(0..=9999).contains(&ny) {
        return None;
    }
    let nd = d.min(days_in_month(ny as i32, nm));
    Some(days_from_civil(ny as i32, nm, nd))
}

#[cfg(test)]
mod tests {
    use crate::types::*;

    #[test]
    fn civil_round_trip() {
        for d in [-800_000, -1, 0, 1, 10_000, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(parse_date("1998-12-01"), Some(10561));
        assert_eq!(format_date(10561), "1998-12-01");
        assert_eq!(parse_date("1998-02-30"), None);
        // Two-digit years, as MySQL reads them.
        assert_eq!(parse_date("99-12-31"), parse_date("1999-12-31"));
        assert_eq!(parse_date("69-01-01"), parse_date("2069-01-01"));
        assert_eq!(parse_date("00-02-29"), parse_date("2000-02-29"));
        assert_eq!(
            parse_date("0099-12-31").map(civil_from_days),
            Some((99, 12, 31))
        );
    }
    #[test]
    fn dates_with_a_zero_month_or_day() {
        assert_eq!(parse_zero_part_date("2019-00-03"), Some((2019, 0, 3)));
        assert_eq!(
            parse_zero_part_date("2024-00-00 10:00:00"),
            Some((2024, 0, 0))
        );
        assert_eq!(parse_zero_part_date("0000-00-00"), Some((0, 0, 0)));
        assert_eq!(parse_zero_part_date("2019-02-30"), None);
        assert_eq!(parse_zero_part_date("2019-13-00"), None);
    }

    #[test]
    fn time_fields_as_mysql_reads_them() {
        let f = |s| parse_time_fields(s).map(|t| (t.hours, t.minutes, t.seconds, t.micros));
        assert_eq!(f("10:05:03"), Some((10, 5, 3, 0)));
        assert_eq!(f("-10:05:03.25"), Some((10, 5, 3, 250_000)));
        assert_eq!(f("1 10:00:00"), Some((34, 0, 0, 0)));
        assert_eq!(f("10:05"), Some((10, 5, 0, 0)));
        assert_eq!(f("100503"), Some((10, 5, 3, 0)));
        assert_eq!(f("0503"), Some((0, 5, 3, 0)));
        assert_eq!(f("3"), Some((0, 0, 3, 0)));
        assert_eq!(f("900:00:00"), Some((838, 59, 59, 0)));
        assert_eq!(f("10:65:00"), None);
        assert_eq!(f("abc"), None);
        assert_eq!(f(""), None);
    }

    #[test]
    fn add_months_clips() {
        let jan31 = parse_date("2020-01-31").unwrap();
        assert_eq!(format_date(add_months(jan31, 1).unwrap()), "2020-02-29");
        assert_eq!(format_date(add_months(jan31, -13).unwrap()), "2018-12-31");
    }
    #[test]
    fn datetime_values_are_cut_and_printed_at_their_precision() {
        let t = parse_datetime("2020-01-01 10:00:00.123456").unwrap();
        assert_eq!(format_datetime(t, 6), "2020-01-01 10:00:00.123456");
        assert_eq!(format_datetime(t, 3), "2020-01-01 10:00:00.123");
        assert_eq!(format_datetime(t, 0), "2020-01-01 10:00:00");
        assert_eq!(
            format_datetime(truncate_fsp(t, 0), 3),
            "2020-01-01 10:00:00.000"
        );
        // Truncated, not rounded.
        let t = parse_datetime("2020-01-01 10:00:00.99").unwrap();
        assert_eq!(
            format_datetime(truncate_fsp(t, 1), 1),
            "2020-01-01 10:00:00.9"
        );
        // Before 1970 too.
        let t = parse_datetime("1969-12-31 23:59:59.75").unwrap();
        assert_eq!(
            format_datetime(truncate_fsp(t, 1), 1),
            "1969-12-31 23:59:59.7"
        );
        assert_eq!(literal_fsp("2020-01-01 10:00:00.12"), 2);
        assert_eq!(literal_fsp("2020-01-01 10:00:00"), 0);
        assert_eq!(literal_fsp("2020-01-01"), 0);
        assert_eq!(literal_fsp("2020-01-01 10:00:00.1234567"), 6);
    }
}
