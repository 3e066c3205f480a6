//! MySQL's INTERVAL units: their names, and how an interval value written
//! as a string (`INTERVAL '1 2:03' DAY_MINUTE`) is read, as MariaDB's
//! `get_interval_value` reads it.

use crate::DatePart;

const UNITS: [(&str, DatePart); 20] = [
    ("YEAR", DatePart::Year),
    ("QUARTER", DatePart::Quarter),
    ("MONTH", DatePart::Month),
    ("WEEK", DatePart::Week),
    ("DAY", DatePart::Day),
    ("HOUR", DatePart::Hour),
    ("MINUTE", DatePart::Minute),
    ("SECOND", DatePart::Second),
    ("MICROSECOND", DatePart::Microsecond),
    ("SECOND_MICROSECOND", DatePart::SecondMicrosecond),
    ("MINUTE_MICROSECOND", DatePart::MinuteMicrosecond),
    ("MINUTE_SECOND", DatePart::MinuteSecond),
    ("HOUR_MICROSECOND", DatePart::HourMicrosecond),
    ("HOUR_SECOND", DatePart::HourSecond),
    ("HOUR_MINUTE", DatePart::HourMinute),
    ("DAY_MICROSECOND", DatePart::DayMicrosecond),
    ("DAY_SECOND", DatePart::DaySecond),
    ("DAY_MINUTE", DatePart::DayMinute),
    ("DAY_HOUR", DatePart::DayHour),
    ("YEAR_MONTH", DatePart::YearMonth),
];

const MICROS: [i128; 5] = [86_400_000_000, 3_600_000_000, 60_000_000, 1_000_000, 1];

impl DatePart {
    /// The unit MySQL spells `name` (any case), compound ones included.
    pub fn from_name(name: &str) -> Option<DatePart> {
        UNITS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, p)| *p)
    }

    pub fn name(self) -> &'static str {
        UNITS
            .iter()
            .find(|(_, p)| *p == self)
            .map(|(n, _)| *n)
            .unwrap_or("")
    }

    /// `YEAR_MONTH`, `DAY_HOUR`, ...: written as a string of several fields.
    pub fn is_compound(self) -> bool {
        self.fields().is_some()
    }

    /// The single unit an interval of this unit is counted in by
    /// `ScalarFunc::Interval`: months for YEAR_MONTH, microseconds for the
    /// other compound units and for SECOND (which may have a fraction).
    pub fn interval_base(self) -> DatePart {
        match self {
            DatePart::YearMonth => DatePart::Month,
            p if p.is_compound() || p == DatePart::Second => DatePart::Microsecond,
            p => p,
        }
    }

    /// For a compound unit: the first field's index in days, hours,
    /// minutes, seconds, microseconds, and the number of fields.
    fn fields(self) -> Option<(usize, usize)> {
        Some(match self {
            DatePart::DayMicrosecond => (0, 5),
            DatePart::DaySecond => (0, 4),
            DatePart::DayMinute => (0, 3),
            DatePart::DayHour => (0, 2),
            DatePart::HourMicrosecond => (1, 4),
            DatePart::HourSecond => (1, 3),
            DatePart::HourMinute => (1, 2),
            DatePart::MinuteMicrosecond => (2, 3),
            DatePart::MinuteSecond => (2, 2),
            DatePart::SecondMicrosecond => (3, 2),
            // Years and months, not a time: see `parse_interval`.
            DatePart::YearMonth => (0, 2),
            _ => return None,
        })
    }

    /// Reads `INTERVAL s unit` from the string `s`, counted in
    /// [`DatePart::interval_base`] units; None (SQL NULL) where MySQL gives
    /// NULL: more fields than the unit has, or a count out of range.
    ///
    /// A single unit reads `s` as a number: an integer prefix (`'1.5'` DAY is
    /// 1 day, `'abc'` is 0), but SECOND keeps six digits of fraction.
    /// A compound unit reads its fields as runs of digits separated by
    /// anything else (`'1-2'`, `'1 2:03:04.5'`); missing leading fields are
    /// 0 (`'5'` DAY_HOUR is 5 hours), a leading `-` negates them all, and a
    /// microsecond field is a fraction (`.5` is 500000).
    pub fn parse_interval(self, s: &str) -> Option<i64> {
        let s = s.trim_start_matches(|c: char| c.is_ascii_whitespace());
        let (neg, rest) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let sign = if neg { -1 } else { 1 };
        let Some((first, count)) = self.fields() else {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            // MySQL saturates an integer that overflows (and the date then does).
            let whole: i128 =
                rest[..digits]
                    .parse()
                    .unwrap_or(if digits > 0 { i64::MAX as i128 } else { 0 });
            if self != DatePart::Second {
                return i64::try_from(sign * whole).ok();
            }
            let frac: String = rest[digits..]
                .strip_prefix('.')
                .map(|f| f.chars().take_while(char::is_ascii_digit).take(6).collect())
                .unwrap_or_default();
            let micros = format!("{frac:0<6}").parse::<i128>().unwrap_or(0);
            return i64::try_from(sign * (whole * 1_000_000 + micros)).ok();
        };
        let values = interval_fields(s, count, first + count == 5 && self != DatePart::YearMonth)?;
        let total: i128 = if self == DatePart::YearMonth {
            values[0] as i128 * 12 + values[1] as i128
        } else {
            values
                .iter()
                .zip(&MICROS[first..first + count])
                .map(|(v, unit)| *v as i128 * unit)
                .sum()
        };
        i64::try_from(sign * total).ok()
    }
}

/// MariaDB's `get_interval_info`: `count` runs of digits (at most 18 read
/// per run), separated and preceded by anything else; fewer runs fill the
/// last fields. With `micros_last`, the last field is scaled to six digits
/// by the length of the last run. None if digits remain after `count` runs.
fn interval_fields(s: &str, count: usize, micros_last: bool) -> Option<Vec<u64>> {
    let b = s.as_bytes();
    let skip = |mut i: usize| {
        while i < b.len() && !b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut values = vec![0u64; count];
    let mut i = skip(0);
    let mut field_length = 0;
    for k in 0..count {
        let start = i;
        let end = b.len().min(start + 18);
        let mut v = 0u64;
        while i < end && b[i].is_ascii_digit() {
            v = v * 10 + (b[i] - b'0') as u64;
            i += 1;
        }
        field_length = i - start;
        values[k] = v;
        i = skip(i);
        if i == b.len() && k != count - 1 {
            // Fewer fields than the unit has: they are its last ones.
            values.rotate_right(count - k - 1);
            break;
        }
    }
    if micros_last && field_length > 0 {
        let last = &mut values[count - 1];
        if field_length < 6 {
            *last *= 10u64.pow((6 - field_length) as u32);
        } else {
            *last /= 10u64.pow((field_length - 6) as u32);
        }
    }
    (i == b.len()).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DatePart as P;

    #[test]
    fn compound_intervals_read_as_mysql() {
        assert_eq!(P::YearMonth.parse_interval("1-2"), Some(14));
        assert_eq!(P::YearMonth.parse_interval(" -1-2"), Some(-14));
        assert_eq!(P::YearMonth.parse_interval("5"), Some(5));
        assert_eq!(P::YearMonth.parse_interval("1-2-3"), None);
        assert_eq!(P::YearMonth.parse_interval("abc"), Some(0));
        assert_eq!(P::YearMonth.parse_interval("1-2x"), Some(14));
        assert_eq!(
            P::DayMinute.parse_interval("1 2:03"),
            Some(((24 + 2) * 60 + 3) * 60_000_000)
        );
        assert_eq!(P::DayHour.parse_interval("5"), Some(5 * 3_600_000_000));
        assert_eq!(P::DayHour.parse_interval("1.5"), Some(29 * 3_600_000_000));
        assert_eq!(P::SecondMicrosecond.parse_interval("1.5"), Some(1_500_000));
        assert_eq!(
            P::SecondMicrosecond.parse_interval("1.0000005"),
            Some(1_000_000)
        );
        assert_eq!(
            P::DayMicrosecond.parse_interval("1 2:3:4.5"),
            Some(93_784_500_000)
        );
        // The short form counts the given fields from the end; the
        // microseconds scale by the length of the last run.
        assert_eq!(P::DayMicrosecond.parse_interval("4.25"), Some(4_250_000));
    }

    #[test]
    fn single_units_read_a_number_prefix() {
        assert_eq!(P::Day.parse_interval("1.5"), Some(1));
        assert_eq!(P::Day.parse_interval(" 2 "), Some(2));
        assert_eq!(P::Day.parse_interval("-1.5"), Some(-1));
        assert_eq!(P::Day.parse_interval("1e3"), Some(1));
        assert_eq!(P::Day.parse_interval("abc"), Some(0));
        assert_eq!(P::Second.parse_interval("-1.5"), Some(-1_500_000));
        assert_eq!(P::Second.parse_interval("x"), Some(0));
        assert_eq!(P::from_name("day_hour"), Some(P::DayHour));
        assert_eq!(P::DayHour.name(), "DAY_HOUR");
    }
}
