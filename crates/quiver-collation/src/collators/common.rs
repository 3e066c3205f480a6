//! Byte helpers the byte and UTF-8 collators share (and `crate::uca`
//! borrows `find_bytes`): substring search, the ASCII prefix key, first
//! differences and the PAD SPACE tail rules.

use std::cmp::Ordering;

use quiver_string_kernels as sk;

use crate::hash::{ascii_upper_word, word_is_ascii};

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

/// [`Collator::prefix_key_of_head`](crate::Collator::prefix_key_of_head) for collations in which every ASCII
/// byte is a character ordering (against any character) as its byte, after
/// uppercasing when `fold`: the first 8 bytes, padded with spaces under PAD
/// SPACE (the padding is what the shorter value compares as) or with NULs
/// (a value ending first is less, and a NUL ties, leaving it to
/// `compare`), read as a big-endian number. Only for values whose first 8
/// bytes are ASCII: there bytes are whole characters.
#[inline(always)]
pub(super) fn ascii_prefix_key<const PAD: bool>(head: u64, len: usize, fold: bool) -> Option<u64> {
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
pub(super) fn first_bytes_differ(a: &[u8], b: &[u8]) -> Option<(u8, u8)> {
    match (a.first(), b.first()) {
        (Some(&x), Some(&y)) if x != y => Some((x, y)),
        _ => None,
    }
}

/// Whether the PAD SPACE rule rules `a = b` out cheaply: when the lengths
/// differ, the longer string must end in a space.
#[inline(always)]
pub(super) fn pad_lengths_rule_out(a: &[u8], b: &[u8]) -> bool {
    let long = if a.len() > b.len() { a } else { b };
    a.len() != b.len() && long[long.len() - 1] != b' '
}

/// Order of a PAD SPACE tail (the rest of the longer string) against the
/// padding, where a byte above or below 0x20 means a character weighing
/// above or below the space (the `_bin` collations).
#[inline]
pub(super) fn byte_tail_vs_pad(rest: &[u8]) -> Ordering {
    match sk::first_non_space(rest) {
        None => Ordering::Equal,
        Some(p) => rest[p].cmp(&b' '),
    }
}

#[inline(always)]
pub(super) fn load_word(s: &[u8]) -> u64 {
    u64::from_le_bytes(s[..8].try_into().expect("8 bytes"))
}

/// Appends `s` mapped byte by byte through `table`; ASCII-only input takes
/// the kernel's uppercase when `table` uppercases ASCII like it.
#[inline]
pub(super) fn map_bytes(s: &[u8], table: &[u8; 256], out: &mut Vec<u8>) {
    out.reserve(s.len());
    out.extend(s.iter().map(|&b| table[usize::from(b)]));
}
