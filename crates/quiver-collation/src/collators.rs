//! The concrete collators: one zero-sized type per [`CollationKind`].
//!
//! | type | collations |
//! |---|---|
//! | [`Binary`] | `binary` |
//! | [`ByteBin`] | `latin1_bin`, `latin1_nopad_bin`, `ascii_bin`, `ascii_nopad_bin` |
//! | [`ByteCi`] | `latin1_swedish_ci`, `latin1_swedish_nopad_ci`, `ascii_general_ci`, `ascii_general_nopad_ci` |
//! | [`Utf8Bin`] | `utf8mb4_bin`, `utf8mb4_nopad_bin`, `utf8mb3_bin`, `utf8mb3_nopad_bin` |
//! | [`Utf8GeneralCi`] | `utf8mb4_general_ci`, `utf8mb4_general_nopad_ci`, `utf8mb3_general_ci`, `utf8mb3_general_nopad_ci` |
//! | [`Uca`] | `utf8mb4_unicode_ci`, `utf8mb4_unicode_520_ci`, `utf8mb4_uca1400_ai_ci`, `utf8mb3_unicode_ci`, `utf8mb3_unicode_520_ci`, `utf8mb4_0900_ai_ci` (see [`crate::uca`]) |
//! | [`Utf8mb40900Bin`] | `utf8mb4_0900_bin` |

use std::cmp::Ordering;

use quiver_string_kernels as sk;

use crate::charset::{
    decode_utf8, is_bad, push_utf8, utf8_char_length, utf8_len, Charset, BAD_BYTE,
};
use crate::collator::{Collator, LIKE_POISON};
use crate::constant::CollatedConstant;
use crate::generated as tables;
use crate::hash::{ascii_upper_word, hash_bytes, word_is_ascii, StreamHasher};
use crate::info::CollationKind;
use crate::simple::{self, SimpleWeights};

pub use crate::uca::{
    Uca, Utf8mb3Unicode520Ci, Utf8mb3UnicodeCi, Utf8mb40900AiCi, Utf8mb40900Bin,
    Utf8mb4Uca1400AiCi, Utf8mb4Unicode520Ci, Utf8mb4UnicodeCi,
};

/// Byte offset of the first occurrence of `needle` in `hay` (bytes).
#[inline]
pub(crate) fn find_bytes(needle: &[u8], hay: &[u8]) -> Option<usize> {
    let n = needle.len();
    if n == 0 {
        return Some(0);
    }
    let mut from = 0;
    while from + n <= hay.len() {
        let i = from + sk::memchr(needle[0], &hay[from..=hay.len() - n])?;
        if sk::bytes_eq(&hay[i..i + n], needle) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// [`Collator::prefix_key_of_head`] for collations in which every ASCII
/// byte is a character ordering (against any character) as its byte, after
/// uppercasing when `fold`: the first 8 bytes, padded with spaces under PAD
/// SPACE (the padding is what the shorter value compares as) or with NULs
/// (a value ending first is less, and a NUL ties, leaving it to
/// `compare`), read as a big-endian number. Only for values whose first 8
/// bytes are ASCII: there bytes are whole characters.
#[inline(always)]
fn ascii_prefix_key<const PAD: bool>(head: u64, len: usize, fold: bool) -> Option<u64> {
    // The value's bytes, and the padding above them (no branch: a select).
    let mask = if len >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * len)) - 1
    };
    let pad = if PAD { 0x2020_2020_2020_2020 } else { 0 };
    let w = (head & mask) | (pad & !mask);
    if !word_is_ascii(w) {
        return None;
    }
    let w = if fold { ascii_upper_word(w) } else { w };
    Some(w.swap_bytes())
}

/// The first bytes of `a` and `b` when both are non-empty and differ: most
/// unequal values differ there, and a byte test is far cheaper than a
/// kernel call.
#[inline(always)]
fn first_bytes_differ(a: &[u8], b: &[u8]) -> Option<(u8, u8)> {
    match (a.first(), b.first()) {
        (Some(&x), Some(&y)) if x != y => Some((x, y)),
        _ => None,
    }
}

/// Whether the PAD SPACE rule rules `a = b` out cheaply: when the lengths
/// differ, the longer string must end in a space.
#[inline(always)]
fn pad_lengths_rule_out(a: &[u8], b: &[u8]) -> bool {
    let long = if a.len() > b.len() { a } else { b };
    a.len() != b.len() && long[long.len() - 1] != b' '
}

/// Order of a PAD SPACE tail (the rest of the longer string) against the
/// padding, where a byte above or below 0x20 means a character weighing
/// above or below the space (the `_bin` collations).
#[inline]
fn byte_tail_vs_pad(rest: &[u8]) -> Ordering {
    match sk::first_non_space(rest) {
        None => Ordering::Equal,
        Some(p) => rest[p].cmp(&b' '),
    }
}

#[inline(always)]
fn load_word(s: &[u8]) -> u64 {
    u64::from_le_bytes(s[..8].try_into().expect("8 bytes"))
}

/// Appends `s` mapped byte by byte through `table`; ASCII-only input takes
/// the kernel's uppercase when `table` uppercases ASCII like it.
#[inline]
fn map_bytes(s: &[u8], table: &[u8; 256], out: &mut Vec<u8>) {
    out.reserve(s.len());
    out.extend(s.iter().map(|&b| table[usize::from(b)]));
}

// ---------------------------------------------------------------------------
// binary

/// `binary`: bytes, NO PAD, no case.
#[derive(Clone, Copy, Debug, Default)]
pub struct Binary;

impl SimpleWeights for Binary {
    const PAD: bool = false;
    #[inline(always)]
    fn weight_at(s: &[u8]) -> (u32, usize) {
        (u32::from(s[0]), 1)
    }
}

impl Collator for Binary {
    const KIND: CollationKind = CollationKind::Binary;
    const PAD_SPACE: bool = false;
    const CHARSET: Charset = Charset::Binary;
    const BINARY_EQ: bool = true;
    const PREFIX_KEYS: bool = true;

    /// The first 8 bytes, big-endian, zeros past the value: any bytes.
    #[inline(always)]
    fn prefix_key_of_head(&self, head: u64, len: usize) -> Option<u64> {
        let mask = if len >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * len)) - 1
        };
        Some((head & mask).swap_bytes())
    }

    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        if let Some((x, y)) = first_bytes_differ(a, b) {
            return x.cmp(&y);
        }
        sk::bytes_cmp(a, b)
    }
    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        a.len() == b.len() && first_bytes_differ(a, b).is_none() && sk::bytes_eq(a, b)
    }
    #[inline]
    fn hash(&self, s: &[u8], seed: u64) -> u64 {
        hash_bytes(s, seed)
    }
    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(s);
    }
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(s);
    }
    fn upper_len(&self, s: &[u8]) -> usize {
        s.len()
    }
    /// `UPPER` of a binary string is the string itself.
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(s);
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        s.len()
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(s);
    }
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        find_bytes(needle, hay)
    }
    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        (u32::from(s[0]), 1)
    }
    #[inline]
    fn eq_const(&self, c: &CollatedConstant, v: &[u8]) -> bool {
        first_bytes_differ(c.bytes(), v).is_none() && c.kernel().eq(v)
    }
}

// ---------------------------------------------------------------------------
// 8-bit charsets

/// Case tables of an 8-bit charset: `LATIN1` selects latin1, else ascii.
#[inline(always)]
fn byte_case_tables<const LATIN1: bool>() -> (&'static [u8; 256], &'static [u8; 256]) {
    if LATIN1 {
        (&tables::LATIN1_UPPER, &tables::LATIN1_LOWER)
    } else {
        (&tables::ASCII_UPPER, &tables::ASCII_LOWER)
    }
}

/// Appends `s` through an 8-bit case table; an ASCII `s` is uppercased by the
/// SIMD kernel when `upper` (the tables agree with it on ASCII, see tests).
#[inline]
fn byte_case(s: &[u8], table: &[u8; 256], upper: bool, out: &mut Vec<u8>) {
    if upper && sk::is_ascii(s) {
        let start = out.len();
        out.extend_from_slice(s);
        sk::ascii_upper_in_place(&mut out[start..]);
    } else {
        map_bytes(s, table, out);
    }
}

/// The `_bin` collations of latin1 (`LATIN1`) and ascii: byte order, PAD
/// SPACE unless `PAD` is false.
#[derive(Clone, Copy, Debug, Default)]
pub struct ByteBin<const LATIN1: bool, const PAD: bool>;

impl<const LATIN1: bool, const PAD: bool> SimpleWeights for ByteBin<LATIN1, PAD> {
    const PAD: bool = PAD;
    #[inline(always)]
    fn weight_at(s: &[u8]) -> (u32, usize) {
        (u32::from(s[0]), 1)
    }
}

impl<const LATIN1: bool, const PAD: bool> Collator for ByteBin<LATIN1, PAD> {
    const KIND: CollationKind = match (LATIN1, PAD) {
        (true, true) => CollationKind::Latin1Bin,
        (true, false) => CollationKind::Latin1NopadBin,
        (false, true) => CollationKind::AsciiBin,
        (false, false) => CollationKind::AsciiNopadBin,
    };
    const PAD_SPACE: bool = PAD;
    const CHARSET: Charset = if LATIN1 {
        Charset::Latin1
    } else {
        Charset::Ascii
    };
    const BINARY_EQ: bool = true;

    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        if let Some((x, y)) = first_bytes_differ(a, b) {
            return x.cmp(&y);
        }
        if PAD {
            sk::pad_space_cmp(a, b)
        } else {
            sk::bytes_cmp(a, b)
        }
    }
    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        // Padding only extends the shorter string at its end: differing
        // first bytes are unequal under either rule.
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
        out.extend_from_slice(s);
    }
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        simple::normalized_key::<Self>(s, out, |out, w, _| out.push(w as u8));
    }
    fn upper_len(&self, s: &[u8]) -> usize {
        s.len()
    }
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        byte_case(s, byte_case_tables::<LATIN1>().0, true, out);
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        s.len()
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        byte_case(s, byte_case_tables::<LATIN1>().1, false, out);
    }
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        find_bytes(needle, hay)
    }
    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        (u32::from(s[0]), 1)
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

/// The `_ci` collations of latin1 (`latin1_swedish_ci`, `LATIN1`) and ascii
/// (`ascii_general_ci`): one weight byte per byte from a table. ASCII letters
/// weigh as their upper case, so ASCII runs are compared with the SIMD
/// case-insensitive kernels; other bytes go through the table (in
/// latin1_swedish_ci 'é' = 'E', 'Ä' = '\\').
#[derive(Clone, Copy, Debug, Default)]
pub struct ByteCi<const LATIN1: bool, const PAD: bool>;

impl<const LATIN1: bool, const PAD: bool> ByteCi<LATIN1, PAD> {
    #[inline(always)]
    fn weights() -> &'static [u8; 256] {
        if LATIN1 {
            &tables::LATIN1_SWEDISH_CI_WEIGHTS
        } else {
            &tables::ASCII_GENERAL_CI_WEIGHTS
        }
    }

    /// Whether the first bytes of `a` and `b` weigh differently (then the
    /// strings differ, under PAD SPACE too).
    #[inline(always)]
    fn first_weights_differ(a: &[u8], b: &[u8]) -> bool {
        let w = Self::weights();
        matches!((a.first(), b.first()), (Some(&x), Some(&y)) if w[usize::from(x)] != w[usize::from(y)])
    }

    /// Comparison by weights, ASCII runs by the kernel.
    #[inline]
    fn cmp_weights(a: &[u8], b: &[u8]) -> Ordering {
        let w = Self::weights();
        if let (Some(&x), Some(&y)) = (a.first(), b.first()) {
            let (wx, wy) = (w[usize::from(x)], w[usize::from(y)]);
            if wx != wy {
                return wx.cmp(&wy);
            }
        }
        let mut i = 0;
        loop {
            i += sk::mismatch_ignore_case(&a[i..], &b[i..]);
            if i >= a.len() || i >= b.len() {
                return simple::compare_tails::<Self>(a, i, b, i);
            }
            let (wa, wb) = (w[usize::from(a[i])], w[usize::from(b[i])]);
            if wa != wb {
                return wa.cmp(&wb);
            }
            i += 1;
        }
    }
}

impl<const LATIN1: bool, const PAD: bool> SimpleWeights for ByteCi<LATIN1, PAD> {
    const PAD: bool = PAD;
    #[inline(always)]
    fn weight_at(s: &[u8]) -> (u32, usize) {
        (u32::from(Self::weights()[usize::from(s[0])]), 1)
    }
}

impl<const LATIN1: bool, const PAD: bool> Collator for ByteCi<LATIN1, PAD> {
    const KIND: CollationKind = match (LATIN1, PAD) {
        (true, true) => CollationKind::Latin1SwedishCi,
        (true, false) => CollationKind::Latin1SwedishNopadCi,
        (false, true) => CollationKind::AsciiGeneralCi,
        (false, false) => CollationKind::AsciiGeneralNopadCi,
    };
    const PAD_SPACE: bool = PAD;
    const CHARSET: Charset = if LATIN1 {
        Charset::Latin1
    } else {
        Charset::Ascii
    };
    const ASCII_CI: bool = true;

    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        Self::cmp_weights(a, b)
    }
    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        if Self::first_weights_differ(a, b) {
            return false;
        }
        // One byte per character and only 0x20 weighs as a space: equal
        // strings have equal lengths once trailing spaces are trimmed.
        let (a, b) = if PAD {
            (sk::trim_end_spaces(a), sk::trim_end_spaces(b))
        } else {
            (a, b)
        };
        a.len() == b.len() && (sk::ascii_eq_ignore_case(a, b) || Self::cmp_weights(a, b).is_eq())
    }
    fn hash(&self, s: &[u8], seed: u64) -> u64 {
        let s = if PAD { sk::trim_end_spaces(s) } else { s };
        let w = Self::weights();
        let mut h = StreamHasher::new(seed);
        let mut words = s.chunks_exact(8);
        for chunk in &mut words {
            let word = load_word(chunk);
            if word_is_ascii(word) {
                h.write_word(ascii_upper_word(word));
            } else {
                for &b in chunk {
                    h.write_byte(w[usize::from(b)]);
                }
            }
        }
        for &b in words.remainder() {
            h.write_byte(w[usize::from(b)]);
        }
        h.finish()
    }
    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>) {
        map_bytes(s, Self::weights(), out);
    }
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        simple::normalized_key::<Self>(s, out, |out, w, _| out.push(w as u8));
    }
    fn upper_len(&self, s: &[u8]) -> usize {
        s.len()
    }
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        byte_case(s, byte_case_tables::<LATIN1>().0, true, out);
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        s.len()
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        byte_case(s, byte_case_tables::<LATIN1>().1, false, out);
    }
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        simple::locate_by_weights::<Self>(needle, hay)
    }
    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        Self::weight_at(s)
    }
    #[inline]
    fn eq_const(&self, c: &CollatedConstant, v: &[u8]) -> bool {
        if Self::first_weights_differ(c.bytes(), v) {
            return false;
        }
        let v = if PAD { sk::trim_end_spaces(v) } else { v };
        let k = if PAD { c.trimmed() } else { c.bytes() };
        v.len() == k.len() && (sk::ascii_eq_ignore_case(v, k) || Self::cmp_weights(v, k).is_eq())
    }
}

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
/// `latin1_swedish_ci`.
pub type Latin1SwedishCi = ByteCi<true, true>;
/// `latin1_swedish_nopad_ci`.
pub type Latin1SwedishNopadCi = ByteCi<true, false>;
/// `latin1_bin`.
pub type Latin1Bin = ByteBin<true, true>;
/// `latin1_nopad_bin`.
pub type Latin1NopadBin = ByteBin<true, false>;
/// `ascii_general_ci`.
pub type AsciiGeneralCi = ByteCi<false, true>;
/// `ascii_general_nopad_ci`.
pub type AsciiGeneralNopadCi = ByteCi<false, false>;
/// `ascii_bin`.
pub type AsciiBin = ByteBin<false, true>;
/// `ascii_nopad_bin`.
pub type AsciiNopadBin = ByteBin<false, false>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast paths rest on these facts of the generated tables.
    #[test]
    fn table_invariants() {
        // Only U+0020 / byte 0x20 weighs as the padding space, so trailing
        // space logic can work on bytes.
        for cp in 0..0x1_0000u32 {
            assert_eq!(general_ci_weight(cp) == 0x20, cp == 0x20, "U+{cp:04X}");
        }
        for b in 0..=255u8 {
            let i = usize::from(b);
            assert_eq!(tables::LATIN1_SWEDISH_CI_WEIGHTS[i] == 0x20, b == 0x20);
            assert_eq!(tables::ASCII_GENERAL_CI_WEIGHTS[i] == 0x20, b == 0x20);
        }
        // ASCII characters weigh as their ASCII upper case under every `_ci`
        // collation here, and the 8-bit UPPER tables uppercase ASCII the same.
        for b in 0..0x80u8 {
            let i = usize::from(b);
            let up = b.to_ascii_uppercase();
            assert_eq!(general_ci_weight(u32::from(b)), u32::from(up));
            assert_eq!(tables::LATIN1_SWEDISH_CI_WEIGHTS[i], up);
            assert_eq!(tables::ASCII_GENERAL_CI_WEIGHTS[i], up);
            assert_eq!(tables::LATIN1_UPPER[i], up);
            assert_eq!(tables::ASCII_UPPER[i], up);
            assert_eq!(tables::LATIN1_LOWER[i], b.to_ascii_lowercase());
            assert_eq!(tables::ASCII_LOWER[i], b.to_ascii_lowercase());
        }
        // Weights fit the normalized key encodings (general_ci: <= 0xFFFF).
        assert!((0..0x1_0000u32).all(|cp| general_ci_weight(cp) <= 0xFFFF));
    }
}
