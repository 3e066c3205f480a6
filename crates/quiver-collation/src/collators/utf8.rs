//! The utf8 collators: `_bin` (code point order) and `general_ci` (one
//! 16-bit weight per character), for utf8mb4 and utf8mb3, PAD SPACE and
//! NO PAD.

use std::cmp::Ordering;

use quiver_string_kernels as sk;

use super::common::*;
use crate::charset::{
    decode_utf8, is_bad, push_utf8, utf8_char_length, utf8_len, Charset, BAD_BYTE,
};
use crate::collator::{Collator, LIKE_POISON};
use crate::constant::CollatedConstant;
use crate::generated as tables;
use crate::hash::{ascii_upper_word, hash_bytes, word_is_ascii, StreamHasher};
use crate::info::CollationKind;
use crate::simple::{self, SimpleWeights};

// ---------------------------------------------------------------------------
// utf8

/// utf8 case mapping of one code point through a BMP page table (the
/// supplementary planes map to themselves in these collations).
#[inline(always)]
fn utf8_case(pages: &[Option<&'static [u16; 256]>; 256], cp: u32) -> u32 {
    if cp < 0x1_0000 {
        match pages[(cp >> 8) as usize] {
            Some(page) => u32::from(page[(cp & 0xFF) as usize]),
            None => cp,
        }
    } else {
        cp
    }
}

/// Length of the utf8 case mapping of `s`, which stops at the first invalid
/// byte as MariaDB's UPPER/LOWER do.
fn utf8_case_len<const MB4: bool>(s: &[u8], pages: &[Option<&'static [u16; 256]>; 256]) -> usize {
    if sk::is_ascii(s) {
        return s.len();
    }
    let mut n = 0;
    let mut i = 0;
    while i < s.len() {
        let (cp, l) = decode_utf8::<MB4>(&s[i..]);
        if is_bad(cp) {
            break;
        }
        n += utf8_len(utf8_case(pages, cp));
        i += l;
    }
    n
}

fn utf8_case_map<const MB4: bool>(
    s: &[u8],
    pages: &[Option<&'static [u16; 256]>; 256],
    upper: bool,
    out: &mut Vec<u8>,
) {
    if sk::is_ascii(s) {
        let start = out.len();
        out.extend_from_slice(s);
        if upper {
            sk::ascii_upper_in_place(&mut out[start..]);
        } else {
            out[start..].make_ascii_lowercase();
        }
        return;
    }
    out.reserve(utf8_case_len::<MB4>(s, pages));
    let mut i = 0;
    while i < s.len() {
        let (cp, l) = decode_utf8::<MB4>(&s[i..]);
        if is_bad(cp) {
            break;
        }
        push_utf8(out, utf8_case(pages, cp));
        i += l;
    }
}

/// The `_bin` collations of utf8mb4 (`MB4`) and utf8mb3: code point order,
/// which is byte order for valid UTF-8; an invalid byte weighs above every
/// character. Equality is byte equality (trailing spaces trimmed under PAD
/// SPACE); order takes the byte kernels' answer unless the first difference
/// touches a non-ASCII byte, where it decodes the characters there.
#[derive(Clone, Copy, Debug, Default)]
pub struct Utf8Bin<const MB4: bool, const PAD: bool>;

impl<const MB4: bool, const PAD: bool> SimpleWeights for Utf8Bin<MB4, PAD> {
    const PAD: bool = PAD;
    #[inline(always)]
    fn weight_at(s: &[u8]) -> (u32, usize) {
        decode_utf8::<MB4>(s)
    }
}

impl<const MB4: bool, const PAD: bool> Collator for Utf8Bin<MB4, PAD> {
    const KIND: CollationKind = match (MB4, PAD) {
        (true, true) => CollationKind::Utf8mb4Bin,
        (true, false) => CollationKind::Utf8mb4NopadBin,
        (false, true) => CollationKind::Utf8mb3Bin,
        (false, false) => CollationKind::Utf8mb3NopadBin,
    };
    const PAD_SPACE: bool = PAD;
    const CHARSET: Charset = if MB4 {
        Charset::Utf8mb4
    } else {
        Charset::Utf8mb3
    };
    const BINARY_EQ: bool = true;

    const PREFIX_KEYS: bool = true;
    #[inline(always)]
    fn prefix_key_of_head(&self, head: u64, len: usize) -> Option<u64> {
        ascii_prefix_key::<PAD>(head, len, false)
    }
    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        if let Some((x, y)) = first_bytes_differ(a, b) {
            // An ASCII byte orders against any other byte as its character
            // against any other character; two other first bytes are decoded
            // (an invalid byte weighs above every character).
            if x < 0x80 || y < 0x80 {
                return x.cmp(&y);
            }
            return decode_utf8::<MB4>(a).0.cmp(&decode_utf8::<MB4>(b).0);
        }
        let m = sk::mismatch(a, b);
        // Where the difference is between ASCII characters, or one string
        // ends, at a character boundary, bytes order as code points and a
        // PAD SPACE tail is decided by its first non-space byte (any byte
        // of a multibyte or invalid character is above 0x20, as its weight
        // is above the space's).
        if m == 0 || a[m - 1] < 0x80 {
            match (a.get(m), b.get(m)) {
                (Some(&x), Some(&y)) if x < 0x80 && y < 0x80 => return x.cmp(&y),
                (None, None) => return Ordering::Equal,
                (None, Some(_)) if PAD => return byte_tail_vs_pad(&b[m..]).reverse(),
                (Some(_), None) if PAD => return byte_tail_vs_pad(&a[m..]),
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                _ => {}
            }
        }
        let start = simple::utf8_boundary_back(&a[..m]);
        simple::compare_from::<Self>(a, b, start, start)
    }
    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        // Each character (or invalid byte) has its own weight, so equal
        // weights means equal bytes.
        if first_bytes_differ(a, b).is_some() {
            return false;
        }
        if PAD {
            !pad_lengths_rule_out(a, b) && sk::pad_space_eq(a, b)
        } else {
            a.len() == b.len() && sk::bytes_eq(a, b)
        }
    }
    #[inline]
    fn hash(&self, s: &[u8], seed: u64) -> u64 {
        hash_bytes(if PAD { sk::trim_end_spaces(s) } else { s }, seed)
    }
    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>) {
        // WEIGHT_STRING: the code point in 3 bytes (utf8mb4) or 2 (utf8mb3),
        // up to the first invalid byte.
        let width = if MB4 { 3 } else { 2 };
        if sk::is_ascii(s) {
            out.reserve(s.len() * width);
            for &b in s {
                if MB4 {
                    out.extend_from_slice(&[0, 0, b]);
                } else {
                    out.extend_from_slice(&[0, b]);
                }
            }
            return;
        }
        let mut i = 0;
        while i < s.len() {
            let (cp, l) = decode_utf8::<MB4>(&s[i..]);
            if is_bad(cp) {
                break;
            }
            out.extend_from_slice(&cp.to_be_bytes()[4 - width..]);
            i += l;
        }
    }
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        // UTF-8 bytes order as code points; an invalid byte goes after all.
        simple::normalized_key::<Self>(s, out, |out, w, bytes| {
            if is_bad(w) {
                simple::push_bad(out, w);
            } else {
                out.extend_from_slice(bytes);
            }
        });
    }
    fn char_length(&self, s: &[u8]) -> usize {
        utf8_char_length::<MB4>(s)
    }
    fn upper_len(&self, s: &[u8]) -> usize {
        utf8_case_len::<MB4>(s, &tables::UTF8_UPPER)
    }
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        utf8_case_map::<MB4>(s, &tables::UTF8_UPPER, true, out);
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        utf8_case_len::<MB4>(s, &tables::UTF8_LOWER)
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        utf8_case_map::<MB4>(s, &tables::UTF8_LOWER, false, out);
    }
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        match needle.first() {
            // A needle that starts a character can only be found at a
            // character boundary of hay, so a byte search is exact.
            Some(&b) if b & 0xC0 != 0x80 => find_bytes(needle, hay),
            _ => simple::locate_by_weights::<Self>(needle, hay),
        }
    }
    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        decode_utf8::<MB4>(s)
    }
    #[inline]
    fn eq_const(&self, c: &CollatedConstant, v: &[u8]) -> bool {
        if first_bytes_differ(c.bytes(), v).is_some() {
            return false;
        }
        if PAD {
            c.kernel().pad_space_eq(v)
        } else {
            c.kernel().eq(v)
        }
    }
}

/// general_ci weight of a decoded utf8 value: the BMP table, U+FFFD's
/// weight for supplementary characters, and invalid bytes as they are.
#[inline(always)]
pub(crate) fn general_ci_weight(cp: u32) -> u32 {
    if cp < 0x1_0000 {
        match tables::GENERAL_CI_WEIGHTS[(cp >> 8) as usize] {
            Some(page) => u32::from(page[(cp & 0xFF) as usize]),
            None => cp,
        }
    } else if cp < BAD_BYTE {
        0xFFFD
    } else {
        cp
    }
}

/// `utf8mb4_general_ci` (`MB4`), `utf8mb3_general_ci` and their NO PAD
/// forms: one 16-bit weight per character from a generated table (ASCII
/// letters weigh as their upper case; 'é' = 'E', 'ß' = 'S'; every
/// supplementary character = U+FFFD). ASCII runs are compared and hashed a
/// word or a SIMD vector at a time; other characters through the table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Utf8GeneralCi<const MB4: bool, const PAD: bool>;

impl<const MB4: bool, const PAD: bool> SimpleWeights for Utf8GeneralCi<MB4, PAD> {
    const PAD: bool = PAD;
    #[inline(always)]
    fn weight_at(s: &[u8]) -> (u32, usize) {
        let (cp, l) = decode_utf8::<MB4>(s);
        (general_ci_weight(cp), l)
    }
}

impl<const MB4: bool, const PAD: bool> Utf8GeneralCi<MB4, PAD> {
    /// The order of the first characters' weights when they differ (then
    /// the strings order so); ASCII without decoding.
    #[inline(always)]
    fn first_chars_order(a: &[u8], b: &[u8]) -> Option<Ordering> {
        let (x, y) = first_bytes_differ(a, b)?;
        if x < 0x80 && y < 0x80 {
            let (x, y) = (x.to_ascii_uppercase(), y.to_ascii_uppercase());
            return (x != y).then(|| x.cmp(&y));
        }
        let (wa, wb) = (Self::weight_at(a).0, Self::weight_at(b).0);
        (wa != wb).then(|| wa.cmp(&wb))
    }

    /// Order of `a` and `b`: the case-insensitive ASCII kernel skips the
    /// common prefix, then characters are weighed one by one from the last
    /// character boundary before the difference.
    #[inline]
    fn cmp_weights(a: &[u8], b: &[u8]) -> Ordering {
        if let Some(order) = Self::first_chars_order(a, b) {
            return order;
        }
        let (mut i, mut j) = (0, 0);
        loop {
            let k = sk::mismatch_ignore_case(&a[i..], &b[j..]);
            if k > 0 {
                // The common prefix is the same characters in both (bytes
                // equal up to ASCII case), so one boundary serves both.
                let back = simple::utf8_boundary_back(&a[i..i + k]);
                i += back;
                j += back;
            }
            if i >= a.len() || j >= b.len() {
                return simple::compare_tails::<Self>(a, i, b, j);
            }
            let (wa, la) = Self::weight_at(&a[i..]);
            let (wb, lb) = Self::weight_at(&b[j..]);
            if wa != wb {
                return wa.cmp(&wb);
            }
            i += la;
            j += lb;
        }
    }
}

impl<const MB4: bool, const PAD: bool> Collator for Utf8GeneralCi<MB4, PAD> {
    const KIND: CollationKind = match (MB4, PAD) {
        (true, true) => CollationKind::Utf8mb4GeneralCi,
        (true, false) => CollationKind::Utf8mb4GeneralNopadCi,
        (false, true) => CollationKind::Utf8mb3GeneralCi,
        (false, false) => CollationKind::Utf8mb3GeneralNopadCi,
    };
    const PAD_SPACE: bool = PAD;
    const CHARSET: Charset = if MB4 {
        Charset::Utf8mb4
    } else {
        Charset::Utf8mb3
    };
    const ASCII_CI: bool = true;

    const PREFIX_KEYS: bool = true;
    #[inline(always)]
    fn prefix_key_of_head(&self, head: u64, len: usize) -> Option<u64> {
        ascii_prefix_key::<PAD>(head, len, true)
    }
    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        Self::cmp_weights(a, b)
    }
    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        if Self::first_chars_order(a, b).is_some() {
            return false;
        }
        let (a, b) = if PAD {
            (sk::trim_end_spaces(a), sk::trim_end_spaces(b))
        } else {
            (a, b)
        };
        if a.len() == b.len() && sk::ascii_eq_ignore_case(a, b) {
            return true;
        }
        Self::cmp_weights(a, b).is_eq()
    }
    fn hash(&self, s: &[u8], seed: u64) -> u64 {
        // The stream: an ASCII weight as one byte, any other weight as 0x80
        // and three bytes. ASCII words go in uppercased, whole.
        let s = if PAD { sk::trim_end_spaces(s) } else { s };
        let mut h = StreamHasher::new(seed);
        let mut i = 0;
        while i < s.len() {
            if i + 8 <= s.len() {
                let word = load_word(&s[i..]);
                if word_is_ascii(word) {
                    h.write_word(ascii_upper_word(word));
                    i += 8;
                    continue;
                }
            } else {
                // Fewer than 8 bytes left (all of a short key): when ASCII,
                // their weights are their uppercased bytes, fed at once.
                let n = s.len() - i;
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(&s[i..]);
                let word = u64::from_le_bytes(w);
                if word_is_ascii(word) {
                    h.write_tail(ascii_upper_word(word), n);
                    break;
                }
            }
            let (w, l) = Self::weight_at(&s[i..]);
            if w < 0x80 {
                h.write_byte(w as u8);
            } else {
                h.write_byte(0x80);
                h.write_byte((w >> 16) as u8);
                h.write_byte((w >> 8) as u8);
                h.write_byte(w as u8);
            }
            i += l;
        }
        h.finish()
    }
    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>) {
        // WEIGHT_STRING: two bytes per character, up to the first invalid byte.
        out.reserve(2 * s.len());
        let mut i = 0;
        while i < s.len() {
            let (w, l) = Self::weight_at(&s[i..]);
            if is_bad(w) {
                break;
            }
            out.extend_from_slice(&(w as u16).to_be_bytes());
            i += l;
        }
    }
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        // A weight (<= 0xFFFF) in UTF-8 form keeps its order in fewer bytes.
        simple::normalized_key::<Self>(s, out, |out, w, _| {
            if is_bad(w) {
                simple::push_bad(out, w);
            } else {
                push_utf8(out, w);
            }
        });
    }
    fn char_length(&self, s: &[u8]) -> usize {
        utf8_char_length::<MB4>(s)
    }
    fn upper_len(&self, s: &[u8]) -> usize {
        utf8_case_len::<MB4>(s, &tables::UTF8_UPPER)
    }
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        utf8_case_map::<MB4>(s, &tables::UTF8_UPPER, true, out);
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        utf8_case_len::<MB4>(s, &tables::UTF8_LOWER)
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        utf8_case_map::<MB4>(s, &tables::UTF8_LOWER, false, out);
    }
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        if sk::is_ascii(needle) && sk::is_ascii(hay) {
            if needle.is_empty() {
                return Some(0);
            }
            return hay
                .windows(needle.len())
                .position(|w| sk::ascii_eq_ignore_case(w, needle));
        }
        simple::locate_by_weights::<Self>(needle, hay)
    }
    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        let (w, l) = Self::weight_at(s);
        (if is_bad(w) { LIKE_POISON } else { w }, l)
    }
    #[inline]
    fn eq_const(&self, c: &CollatedConstant, v: &[u8]) -> bool {
        if Self::first_chars_order(c.bytes(), v).is_some() {
            return false;
        }
        let v = if PAD { sk::trim_end_spaces(v) } else { v };
        let k = if PAD { c.trimmed() } else { c.bytes() };
        if c.is_ascii() {
            // k has k.len() characters; v needs as many, so a shorter v
            // cannot match, one as long must be ASCII, and a longer one
            // needs multibyte characters.
            if v.len() <= k.len() {
                return v.len() == k.len() && sk::ascii_eq_ignore_case(v, k);
            }
            if sk::is_ascii(v) {
                return false;
            }
        }
        Self::cmp_weights(v, k).is_eq()
    }
}

/// `utf8mb4_bin`.
pub type Utf8mb4Bin = Utf8Bin<true, true>;
/// `utf8mb4_nopad_bin`.
pub type Utf8mb4NopadBin = Utf8Bin<true, false>;
/// `utf8mb3_bin` (`utf8_bin`).
pub type Utf8mb3Bin = Utf8Bin<false, true>;
/// `utf8mb3_nopad_bin`.
pub type Utf8mb3NopadBin = Utf8Bin<false, false>;
/// `utf8mb4_general_ci`.
pub type Utf8mb4GeneralCi = Utf8GeneralCi<true, true>;
/// `utf8mb4_general_nopad_ci`.
pub type Utf8mb4GeneralNopadCi = Utf8GeneralCi<true, false>;
/// `utf8mb3_general_ci` (`utf8_general_ci`).
pub type Utf8mb3GeneralCi = Utf8GeneralCi<false, true>;
/// `utf8mb3_general_nopad_ci`.
pub type Utf8mb3GeneralNopadCi = Utf8GeneralCi<false, false>;
