//! MySQL's YEAR column type: a small integer (1901..2155, or 0 for 0000)
//! under `COLUMN_TYPE_KEY` `year(4)`, printed as four digits.

/// The declared type text of a YEAR column, as SHOW COLUMNS prints it.
pub const YEAR_TYPE_TEXT: &str = "year(4)";

/// Whether `f` is a YEAR column (or a value read unchanged from one).
pub fn is_year(f: &arrow_schema::Field) -> bool {
    f.metadata().get(super::COLUMN_TYPE_KEY).map(String::as_str) == Some(YEAR_TYPE_TEXT)
}

/// Whether `f` is a YEAR column read unchanged from a table, which MariaDB
/// prints as four digits (0000); a computed YEAR (MIN, COALESCE) prints 0.
pub fn prints_year_digits(f: &arrow_schema::Field) -> bool {
    is_year(f) && f.data_type().is_integer() && f.metadata().contains_key(super::COLUMN_ORIGIN_KEY)
}

/// A value read for a YEAR column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YearRead {
    /// Stored as it is.
    Exact(i16),
    /// Outside 1901..2155: MariaDB's 1264 (stored as 0000 when not strict).
    OutOfRange,
    /// Text with something after the number: 1265, the number kept.
    Trailing(i16),
    /// Text with trailing spaces: a note 1265, the number kept.
    Spaces(i16),
    /// Text that is no number: 1366 (stored as 0000 when not strict).
    NotANumber,
}

/// A whole number stored into YEAR: 0 stays 0000, 1..69 is 2001..2069,
/// 70..99 1970..1999, else it must be within 1901..2155.
pub fn year_of_number(v: i128) -> YearRead {
    match v {
        0 => YearRead::Exact(0),
        1..=69 => YearRead::Exact(2000 + v as i16),
        70..=99 => YearRead::Exact(1900 + v as i16),
        1901..=2155 => YearRead::Exact(v as i16),
        _ => YearRead::OutOfRange,
    }
}

/// Text stored into YEAR, as MariaDB reads it: leading spaces skipped, an
/// optional sign, digits and a fraction (rounded); one or two digits alone
/// ('0', '00' included) are 2000..2069 or 1970..1999; other numbers as
/// [`year_of_number`]. Trailing spaces are `Spaces` (a note).
pub fn year_of_text(s: &str) -> YearRead {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return YearRead::NotANumber;
    }
    let mut end = digits;
    let mut value: f64 = body[..digits].parse().unwrap_or(f64::MAX);
    if body.as_bytes().get(digits) == Some(&b'.') {
        let frac = body[digits + 1..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        value = body[..digits + 1 + frac].parse().unwrap_or(value);
        end = digits + 1 + frac;
    }
    let rest = &body[end..];
    let read = match (negative && value != 0.0, digits <= 2 && end == digits) {
        (true, _) => YearRead::OutOfRange,
        (false, true) if value < 70.0 => YearRead::Exact(2000 + value as i16),
        (false, _) if value >= 1e9 => YearRead::OutOfRange,
        (false, _) => year_of_number(value.round() as i128),
    };
    match (read, rest.is_empty()) {
        (YearRead::Exact(y), false)
            if rest.trim_end_matches([' ', '\t', '\n', '\r']).is_empty() =>
        {
            YearRead::Spaces(y)
        }
        (YearRead::Exact(y), false) => YearRead::Trailing(y),
        (r, _) => r,
    }
}

/// A stored YEAR as MariaDB prints it: four digits.
pub fn year_text(y: i64) -> String {
    format!("{y:04}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_digit_rules() {
        assert_eq!(year_of_number(0), YearRead::Exact(0));
        assert_eq!(year_of_text("0"), YearRead::Exact(2000));
        assert_eq!(year_of_text("00"), YearRead::Exact(2000));
        assert_eq!(year_of_text("69"), YearRead::Exact(2069));
        assert_eq!(year_of_text("70"), YearRead::Exact(1970));
        assert_eq!(year_of_number(69), YearRead::Exact(2069));
        assert_eq!(year_of_number(99), YearRead::Exact(1999));
        assert_eq!(year_of_number(1900), YearRead::OutOfRange);
        assert_eq!(year_of_text("2155"), YearRead::Exact(2155));
        assert_eq!(year_of_text("abc"), YearRead::NotANumber);
        assert_eq!(year_of_text("1999x"), YearRead::Trailing(1999));
        assert_eq!(year_text(0), "0000");
        assert_eq!(year_of_text("1999.5"), YearRead::Exact(2000));
        assert_eq!(year_of_text("2000 "), YearRead::Spaces(2000));
    }
}
