//! Single-byte charsets over text kept as UTF-8.
//!
//! The engine keeps every string as UTF-8; a latin1 or ascii column is
//! UTF-8 text whose characters are all ones its charset can hold. This
//! module maps between that text and the charset's bytes, as MariaDB
//! converts: latin1 is Windows-1252, with the five bytes cp1252 leaves
//! undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) as U+0081.. (checked against
//! `CONVERT(_latin1 X'80..FF' USING utf8mb4)` and back); ascii is
//! 0x00..=0x7F. A character the charset cannot hold becomes `?` in a
//! conversion (`CONVERT(x USING latin1)`), one `?` per character.

use crate::charset::{decode_utf8, Charset};

/// The code points of latin1 (cp1252) bytes 0x80..=0x9F; 0xA0..=0xFF are
/// U+00A0..=U+00FF.
const CP1252_80_9F: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

/// The byte MariaDB writes for a character a charset cannot hold.
pub const REPLACEMENT: u8 = b'?';

/// Whether `charset` is one byte per character with text kept as UTF-8
/// (latin1, ascii): the charsets this module converts.
pub fn is_single_byte_text(charset: Charset) -> bool {
    matches!(charset, Charset::Latin1 | Charset::Ascii)
}

/// The character of byte `b` in `charset` (latin1 or ascii); an ascii byte
/// above 0x7F is not a character and reads as `?`. Other charsets: the byte
/// as a code point.
#[inline]
pub fn decode_byte(charset: Charset, b: u8) -> char {
    match (charset, b) {
        (_, 0..=0x7F) => char::from(b),
        (Charset::Ascii, _) => char::from(REPLACEMENT),
        (Charset::Latin1, 0x80..=0x9F) => {
            char::from_u32(u32::from(CP1252_80_9F[usize::from(b - 0x80)])).expect("BMP code point")
        }
        _ => char::from(b),
    }
}

/// The byte of code point `cp` in `charset` (latin1 or ascii), if the
/// charset holds it. Other charsets: `None` above 0x7F.
#[inline]
pub fn encode_code_point(charset: Charset, cp: u32) -> Option<u8> {
    if cp < 0x80 {
        return Some(cp as u8);
    }
    if charset != Charset::Latin1 {
        return None;
    }
    match cp {
        0xA0..=0xFF | 0x81 | 0x8D | 0x8F | 0x90 | 0x9D => Some(cp as u8),
        _ => CP1252_80_9F
            .iter()
            .position(|&c| u32::from(c) == cp)
            .map(|i| 0x80 + i as u8),
    }
}

/// Whether `charset` holds fewer characters than Unicode text may have:
/// latin1 and ascii, and utf8mb3 (no character above U+FFFF).
pub fn restricts(charset: Charset) -> bool {
    matches!(charset, Charset::Latin1 | Charset::Ascii | Charset::Utf8mb3)
}

/// Whether `charset` holds code point `cp` (an invalid UTF-8 byte, which
/// decodes above U+10FFFF, is held by none).
#[inline]
pub fn holds(charset: Charset, cp: u32) -> bool {
    match charset {
        Charset::Latin1 | Charset::Ascii => encode_code_point(charset, cp).is_some(),
        Charset::Utf8mb3 => cp <= 0xFFFF,
        _ => cp <= 0x10FFFF,
    }
}

/// Byte offset in `s` of the first character `charset` cannot hold (an
/// invalid UTF-8 byte counts as one), or `None` when it holds them all.
/// Always `None` for the charsets that hold every character.
pub fn first_unrepresentable(charset: Charset, s: &[u8]) -> Option<usize> {
    if !restricts(charset) {
        return None;
    }
    let mut i = 0;
    while i < s.len() {
        if s[i] < 0x80 {
            i += 1;
            continue;
        }
        let (cp, len) = decode_utf8::<true>(&s[i..]);
        if !holds(charset, cp) {
            return Some(i);
        }
        i += len;
    }
    None
}

/// Appends the bytes of `s` (UTF-8) in `charset` (latin1 or ascii): one byte
/// per character, `?` for a character the charset cannot hold or an invalid
/// UTF-8 byte. Returns the number of bytes appended.
pub fn encode(charset: Charset, s: &[u8], out: &mut Vec<u8>) -> usize {
    let start = out.len();
    out.reserve(s.len());
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b < 0x80 {
            out.push(b);
            i += 1;
            continue;
        }
        let (cp, len) = decode_utf8::<true>(&s[i..]);
        out.push(encode_code_point(charset, cp).unwrap_or(REPLACEMENT));
        i += len;
    }
    out.len() - start
}

/// Writes the bytes of `s` in `charset` into `out` (at least `s.len()` long,
/// as no character takes more bytes in `charset` than in UTF-8), as
/// [`encode`]; returns how many were written.
#[inline]
pub fn encode_into(charset: Charset, s: &[u8], out: &mut [u8]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < s.len() {
        let b = s[i];
        if b < 0x80 {
            out[n] = b;
            i += 1;
        } else {
            let (cp, len) = decode_utf8::<true>(&s[i..]);
            out[n] = encode_code_point(charset, cp).unwrap_or(REPLACEMENT);
            i += len;
        }
        n += 1;
    }
    n
}

/// Appends the UTF-8 text of `bytes` read in `charset` (latin1 or ascii).
pub fn decode(charset: Charset, bytes: &[u8], out: &mut String) {
    out.reserve(bytes.len());
    out.extend(bytes.iter().map(|&b| decode_byte(charset, b)));
}

/// Length in bytes of the UTF-8 text of `bytes` read in `charset`.
pub fn decoded_len(charset: Charset, bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| decode_byte(charset, b).len_utf8())
        .sum()
}

/// Appends `s` (UTF-8) converted to `charset` and back, as MariaDB's
/// `CONVERT(s USING charset)` shows it: every character the charset cannot
/// hold (and every invalid UTF-8 byte) becomes `?`. Text of other charsets
/// is appended unchanged.
pub fn convert_lossy(charset: Charset, s: &[u8], out: &mut Vec<u8>) {
    if !restricts(charset) {
        out.extend_from_slice(s);
        return;
    }
    out.reserve(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] < 0x80 {
            out.push(s[i]);
            i += 1;
            continue;
        }
        let (cp, len) = decode_utf8::<true>(&s[i..]);
        if holds(charset, cp) {
            out.extend_from_slice(&s[i..i + len]);
        } else {
            out.push(REPLACEMENT);
        }
        i += len;
    }
}

/// [`convert_lossy`] for text known to be UTF-8.
pub fn convert_lossy_str(charset: Charset, s: &str, out: &mut String) {
    if !restricts(charset) || s.is_ascii() {
        out.push_str(s);
        return;
    }
    out.reserve(s.len());
    out.extend(s.chars().map(|c| {
        if holds(charset, u32::from(c)) {
            c
        } else {
            char::from(REPLACEMENT)
        }
    }));
}

/// How MariaDB's error 1366 ("Incorrect string value: '...'") shows `s`
/// from byte `at` on: at most 6 bytes, non-printable ones as `\xHH`, then
/// `...` when more follow.
pub fn incorrect_value_text(s: &[u8], at: usize) -> String {
    let rest = &s[at.min(s.len())..];
    let mut out = String::new();
    for &b in rest.iter().take(6) {
        if (0x20..0x7F).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    if rest.len() > 6 {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_is_cp1252_with_mariadb_holes() {
        // MariaDB: HEX(CONVERT(_latin1 X'80818D' USING utf8mb4)) = E282AC C281 C28D.
        assert_eq!(decode_byte(Charset::Latin1, 0x80), '€');
        assert_eq!(decode_byte(Charset::Latin1, 0x81), '\u{81}');
        assert_eq!(decode_byte(Charset::Latin1, 0x9F), 'Ÿ');
        assert_eq!(decode_byte(Charset::Latin1, 0xE9), 'é');
        assert_eq!(decode_byte(Charset::Ascii, 0xE9), '?');
        for b in 0..=255u8 {
            let c = decode_byte(Charset::Latin1, b);
            assert_eq!(
                encode_code_point(Charset::Latin1, c as u32),
                Some(b),
                "{b:#x}"
            );
        }
        // MariaDB: HEX(CONVERT(_utf8mb4 X'C280C298' USING latin1)) = 3F3F.
        assert_eq!(encode_code_point(Charset::Latin1, 0x80), None);
        assert_eq!(encode_code_point(Charset::Latin1, 0x98), None);
        assert_eq!(encode_code_point(Charset::Ascii, 0xE9), None);
    }

    #[test]
    fn conversions() {
        let s = "a中é€😀".as_bytes();
        let mut out = Vec::new();
        encode(Charset::Latin1, s, &mut out);
        assert_eq!(out, b"a?\xE9\x80?");
        let mut buf = [0u8; 16];
        let n = encode_into(Charset::Ascii, s, &mut buf);
        assert_eq!(&buf[..n], b"a????");
        let mut out = Vec::new();
        convert_lossy(Charset::Latin1, s, &mut out);
        assert_eq!(out, "a?é€?".as_bytes());
        let mut t = String::new();
        convert_lossy_str(Charset::Latin1, "a中é€😀", &mut t);
        assert_eq!(t, "a?é€?");
        assert_eq!(first_unrepresentable(Charset::Latin1, s), Some(1));
        assert_eq!(
            first_unrepresentable(Charset::Latin1, "aé€".as_bytes()),
            None
        );
        assert_eq!(
            first_unrepresentable(Charset::Ascii, "aé".as_bytes()),
            Some(1)
        );
        assert_eq!(first_unrepresentable(Charset::Latin1, b"a\xFF"), Some(1));
        // utf8mb3 stops at U+FFFF.
        assert_eq!(first_unrepresentable(Charset::Utf8mb3, s), Some(9));
        assert_eq!(first_unrepresentable(Charset::Utf8mb4, s), None);
        let mut t = String::new();
        convert_lossy_str(Charset::Utf8mb3, "a中é€😀", &mut t);
        assert_eq!(t, "a中é€?");
        let mut text = String::new();
        decode(Charset::Latin1, b"\xE9\x80", &mut text);
        assert_eq!(text, "é€");
        assert_eq!(decoded_len(Charset::Latin1, b"\xE9\x80a"), 6);
        // MariaDB: Incorrect string value: '\xE4\xB8\xAD\xE6\x96\x87...'
        assert_eq!(
            incorrect_value_text("a中文字b".as_bytes(), 1),
            "\\xE4\\xB8\\xAD\\xE6\\x96\\x87..."
        );
        assert_eq!(
            incorrect_value_text("中b".as_bytes(), 0),
            "\\xE4\\xB8\\xADb"
        );
    }
}
