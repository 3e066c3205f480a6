//! The collators of bytes: `binary` and the 8-bit charsets (latin1,
//! ascii), `_bin` and `_ci`.

use std::cmp::Ordering;

use quiver_string_kernels as sk;

use super::common::*;
use crate::charset::Charset;
use crate::collator::Collator;
use crate::constant::CollatedConstant;
use crate::generated as tables;
use crate::hash::{ascii_upper_word, hash_bytes, word_is_ascii, StreamHasher};
use crate::info::CollationKind;
use crate::simple::{self, SimpleWeights};

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
