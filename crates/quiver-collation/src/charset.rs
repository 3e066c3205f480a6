//! Character sets: how bytes split into characters.
//!
//! MariaDB's utf8 decoders, as observed on the server (CHAR_LENGTH,
//! WEIGHT_STRING and comparisons of raw byte literals, see
//! `scripts/collation/golden.py`):
//! - a lead byte 0xC2..=0xDF takes one continuation byte, 0xE0..=0xEF two
//!   (0xE0 needs the first one >= 0xA0: no overlongs; surrogates ED A0..BF
//!   are accepted as code points D800..DFFF), 0xF0..=0xF4 three in utf8mb4
//!   only (0xF0 needs >= 0x90, 0xF4 needs < 0x90: nothing above U+10FFFF);
//! - anything else (a stray continuation byte, C0/C1, F5..FF, a truncated or
//!   malformed sequence, any 4-byte sequence in utf8mb3) is an *invalid byte*:
//!   one character of one byte. Comparisons weigh it above every valid
//!   character ([`BAD_BYTE`] + the byte), WEIGHT_STRING and UPPER/LOWER stop
//!   at it, and `_ci` LIKE never reads past it.

/// A character set of the collations of this crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    /// Bytes: no characters, no case.
    Binary,
    /// UTF-8, up to 4 bytes per character.
    Utf8mb4,
    /// UTF-8 limited to the BMP (3 bytes); `utf8` is this charset in MariaDB 10.11.
    Utf8mb3,
    /// One byte per character (MariaDB's latin1 is Windows-1252).
    Latin1,
    /// One byte per character.
    Ascii,
}

impl Charset {
    /// The name MariaDB shows (`CHARSET()`).
    pub fn name(self) -> &'static str {
        match self {
            Charset::Binary => "binary",
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Utf8mb3 => "utf8mb3",
            Charset::Latin1 => "latin1",
            Charset::Ascii => "ascii",
        }
    }

    /// Looks a charset up by name, case-insensitively; `utf8` is `utf8mb3`.
    pub fn from_name(name: &str) -> Option<Charset> {
        let n = name.to_ascii_lowercase();
        Some(match n.as_str() {
            "binary" => Charset::Binary,
            "utf8mb4" => Charset::Utf8mb4,
            "utf8mb3" | "utf8" => Charset::Utf8mb3,
            "latin1" => Charset::Latin1,
            "ascii" => Charset::Ascii,
            _ => return None,
        })
    }

    /// The longest character in bytes.
    pub fn max_char_len(self) -> usize {
        match self {
            Charset::Utf8mb4 => 4,
            Charset::Utf8mb3 => 3,
            _ => 1,
        }
    }

    /// Whether characters may take more than one byte.
    pub fn is_multibyte(self) -> bool {
        self.max_char_len() > 1
    }

    /// Length in bytes of the first character of `s` (0 for an empty `s`).
    pub fn char_width(self, s: &[u8]) -> usize {
        match self {
            Charset::Utf8mb4 => utf8_width::<true>(s),
            Charset::Utf8mb3 => utf8_width::<false>(s),
            _ => usize::from(!s.is_empty()),
        }
    }

    /// Number of characters in `s` (each invalid byte counts as one).
    pub fn char_length(self, s: &[u8]) -> usize {
        match self {
            Charset::Utf8mb4 => utf8_char_length::<true>(s),
            Charset::Utf8mb3 => utf8_char_length::<false>(s),
            _ => s.len(),
        }
    }

    /// Byte offset of character number `n` (0-based) of `s`, or `s.len()`
    /// when `s` has at most `n` characters. For SUBSTRING/LEFT/RIGHT.
    pub fn char_offset(self, s: &[u8], n: usize) -> usize {
        if !self.is_multibyte() {
            return n.min(s.len());
        }
        let mut pos = 0;
        let mut left = n;
        while left > 0 && pos < s.len() {
            pos += self.char_width(&s[pos..]);
            left -= 1;
        }
        pos
    }

    /// The characters of `s` as byte ranges, in order.
    pub fn chars(self, s: &[u8]) -> Chars<'_> {
        Chars {
            charset: self,
            s,
            pos: 0,
        }
    }
}

/// Iterator over the characters of a string: `(start, end)` byte ranges.
#[derive(Clone, Debug)]
pub struct Chars<'a> {
    charset: Charset,
    s: &'a [u8],
    pos: usize,
}

impl Iterator for Chars<'_> {
    type Item = (usize, usize);
    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.pos >= self.s.len() {
            return None;
        }
        let start = self.pos;
        self.pos += self.charset.char_width(&self.s[start..]);
        Some((start, self.pos))
    }
}

/// Base of the weight (and of the decoded value) of an invalid byte `b`:
/// `BAD_BYTE | b`, above every code point and every general_ci weight, as
/// MariaDB orders them.
pub const BAD_BYTE: u32 = 0x00FF_0000;

/// Whether a decoded value is an invalid byte.
#[inline(always)]
pub fn is_bad(v: u32) -> bool {
    v >= BAD_BYTE
}

#[inline(always)]
fn is_cont(s: &[u8], i: usize) -> bool {
    matches!(s.get(i), Some(&b) if b & 0xC0 == 0x80)
}

/// Decodes the first character of a non-empty `s` the way MariaDB's utf8mb4
/// (`MB4`) or utf8mb3 decoder does: `(code point, length)`, or
/// `(BAD_BYTE | s[0], 1)` for an invalid byte.
#[inline(always)]
pub fn decode_utf8<const MB4: bool>(s: &[u8]) -> (u32, usize) {
    let b0 = s[0];
    if b0 < 0x80 {
        return (u32::from(b0), 1);
    }
    let bad = (BAD_BYTE | u32::from(b0), 1);
    if b0 < 0xC2 {
        return bad;
    }
    if b0 < 0xE0 {
        if is_cont(s, 1) {
            return ((u32::from(b0 & 0x1F) << 6) | u32::from(s[1] & 0x3F), 2);
        }
        return bad;
    }
    if b0 < 0xF0 {
        if is_cont(s, 1) && is_cont(s, 2) && (b0 != 0xE0 || s[1] >= 0xA0) {
            let cp = (u32::from(b0 & 0x0F) << 12)
                | (u32::from(s[1] & 0x3F) << 6)
                | u32::from(s[2] & 0x3F);
            return (cp, 3);
        }
        return bad;
    }
    if MB4
        && b0 < 0xF5
        && is_cont(s, 1)
        && is_cont(s, 2)
        && is_cont(s, 3)
        && (b0 != 0xF0 || s[1] >= 0x90)
        && (b0 != 0xF4 || s[1] < 0x90)
    {
        let cp = (u32::from(b0 & 0x07) << 18)
            | (u32::from(s[1] & 0x3F) << 12)
            | (u32::from(s[2] & 0x3F) << 6)
            | u32::from(s[3] & 0x3F);
        return (cp, 4);
    }
    bad
}

/// Length of the first character of `s` (0 if empty).
#[inline]
pub(crate) fn utf8_width<const MB4: bool>(s: &[u8]) -> usize {
    if s.is_empty() {
        0
    } else {
        decode_utf8::<MB4>(s).1
    }
}

/// Number of characters of `s`; ASCII runs are counted a word at a time.
pub(crate) fn utf8_char_length<const MB4: bool>(s: &[u8]) -> usize {
    let mut n = 0;
    let mut pos = 0;
    while pos < s.len() {
        if pos + 8 <= s.len() {
            let w = u64::from_le_bytes(s[pos..pos + 8].try_into().expect("8 bytes"));
            if w & 0x8080_8080_8080_8080 == 0 {
                n += 8;
                pos += 8;
                continue;
            }
        }
        pos += decode_utf8::<MB4>(&s[pos..]).1;
        n += 1;
    }
    n
}

/// Appends the UTF-8 form of `cp` (any value up to U+10FFFF; surrogates get
/// the 3-byte form MariaDB uses for them).
#[inline]
pub(crate) fn push_utf8(out: &mut Vec<u8>, cp: u32) {
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else if cp < 0x10000 {
        out.extend_from_slice(&[
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    } else {
        out.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    }
}

/// Length of the UTF-8 form of `cp`.
#[inline]
pub(crate) fn utf8_len(cp: u32) -> usize {
    match cp {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_mariadb() {
        assert_eq!(decode_utf8::<true>(b"a"), (0x61, 1));
        assert_eq!(decode_utf8::<true>("é".as_bytes()), (0xE9, 2));
        assert_eq!(decode_utf8::<true>("😀".as_bytes()), (0x1F600, 4));
        assert_eq!(decode_utf8::<false>("😀".as_bytes()), (BAD_BYTE | 0xF0, 1));
        assert_eq!(decode_utf8::<true>(b"\xED\xA0\x80"), (0xD800, 3));
        assert_eq!(decode_utf8::<true>(b"\xC0\xAF"), (BAD_BYTE | 0xC0, 1));
        assert_eq!(decode_utf8::<true>(b"\xE0\x80\xAF"), (BAD_BYTE | 0xE0, 1));
        assert_eq!(
            decode_utf8::<true>(b"\xF4\x90\x80\x80"),
            (BAD_BYTE | 0xF4, 1)
        );
        assert_eq!(decode_utf8::<true>(b"\xE2\x82"), (BAD_BYTE | 0xE2, 1));
        assert_eq!(Charset::Utf8mb4.char_length(b"a\xE2\x82"), 3);
        assert_eq!(Charset::Utf8mb4.char_length("aaaaaaaaé😀".as_bytes()), 10);
        assert_eq!(Charset::Utf8mb4.char_offset("aé😀b".as_bytes(), 3), 7);
    }

    #[test]
    fn push_utf8_round_trips() {
        for cp in (0..0x11_0000).step_by(97) {
            let mut v = Vec::new();
            push_utf8(&mut v, cp);
            assert_eq!(v.len(), utf8_len(cp));
            assert_eq!(decode_utf8::<true>(&v), (cp, v.len()));
        }
    }
}
