//! Numbers as text: how much of a string MySQL reads as a number, its
//! numeric prefix as a double, and a double's shortest text.

/// MySQL prints doubles with the shortest text that reads back the same value.
pub fn format_double(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-15..1e15).contains(&a) {
        let s = format!("{v:e}");
        // Rust gives 1e20 / 1.5e-7; MySQL gives 1e20 / 1.5e-7 too.
        return s;
    }
    format!("{v}")
}

/// A DOUBLE with fixed decimals as MariaDB shows it (`%.*f`: rounded at
/// `decimals`, zeros kept).
pub fn format_double_fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return format_double(v);
    }
    let s = format!("{v:.decimals$}");
    // MariaDB prints no negative zero.
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|c| c == b'0' || c == b'.') => rest.to_string(),
        _ => s,
    }
}

/// How much of a string MySQL reads as a number (its warning 1292 when not
/// all: a Note when only spaces follow the number, else a Warning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberRead {
    /// All of it, after leading spaces.
    Whole,
    SpacesAfter,
    /// Other characters follow, or there are no digits at all.
    Partly,
}

/// How much of `s` reads as a number. `integer`: digits only (CAST AS
/// SIGNED stops at a `.` or an exponent), else a fraction and an exponent.
pub fn number_read(s: &str, integer: bool) -> NumberRead {
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let b = s.as_bytes();
    let (digits, end) = number_prefix(b, integer, space);
    if digits == 0 {
        return NumberRead::Partly;
    }
    match &b[end..] {
        [] => NumberRead::Whole,
        rest if rest.iter().all(|c| space(*c)) => NumberRead::SpacesAfter,
        _ => NumberRead::Partly,
    }
}

/// The number `b` starts with: leading `space`s, a sign, digits and, unless
/// `integer`, a fraction and an exponent (taken only when it has digits).
/// Returns the count of digits before any exponent and where the number ends.
pub fn number_prefix(b: &[u8], integer: bool, space: impl Fn(u8) -> bool) -> (usize, usize) {
    let mut i = 0;
    while i < b.len() && space(b[i]) {
        i += 1;
    }
    if i < b.len() && matches!(b[i], b'+' | b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if !integer {
        if i < b.len() && b[i] == b'.' {
            i += 1;
            n += digits(&mut i);
        }
        if n > 0 && i < b.len() && matches!(b[i], b'e' | b'E') {
            let mut j = i + 1;
            if j < b.len() && matches!(b[j], b'+' | b'-') {
                j += 1;
            }
            if digits(&mut j) > 0 {
                i = j;
            }
        }
    }
    (n, i)
}

/// Reads the numeric prefix of a string as MySQL does ('12abc' is 12, 'abc' is 0).
pub fn parse_f64_prefix(s: &str) -> f64 {
    let s = s.trim_start();
    let b = s.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
        end += 1;
    }
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end < b.len() && b[end] == b'.' {
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'-' || b[e] == b'+') {
            e += 1;
        }
        if e < b.len() && b[e].is_ascii_digit() {
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            end = e;
        }
    }
    s[..end].parse().unwrap_or(0.0)
}
