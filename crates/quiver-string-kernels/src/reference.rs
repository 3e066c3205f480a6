//! Plain per-byte reference versions of every kernel.
//!
//! These define what the fast paths must compute: the property tests compare
//! every SIMD and word-at-a-time kernel against them, and the benchmark uses
//! them as the "naive per-byte" baseline. They are written for obviousness,
//! not speed.

use std::cmp::Ordering;

/// The byte MySQL's binary PAD SPACE collations pad the shorter operand with.
pub const SPACE: u8 = b' ';

/// Whether `a` and `b` hold the same bytes.
pub fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    for i in 0..a.len() {
        if a[i] != b[i] {
            return false;
        }
    }
    true
}

/// Length of the common prefix of `a` and `b`.
pub fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    for i in 0..n {
        if a[i] != b[i] {
            return i;
        }
    }
    n
}

/// `memcmp` order; on a common prefix the shorter operand is less.
pub fn bytes_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let m = mismatch(a, b);
    if m < a.len() && m < b.len() {
        a[m].cmp(&b[m])
    } else {
        a.len().cmp(&b.len())
    }
}

/// Position of the first `needle` in `hay`.
pub fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    (0..hay.len()).find(|&i| hay[i] == needle)
}

/// Position of the last `needle` in `hay`.
pub fn memrchr(needle: u8, hay: &[u8]) -> Option<usize> {
    (0..hay.len()).rev().find(|&i| hay[i] == needle)
}

/// `s` without its trailing 0x20 bytes (other white space is kept).
pub fn trim_end_spaces(s: &[u8]) -> &[u8] {
    let mut end = s.len();
    while end > 0 && s[end - 1] == SPACE {
        end -= 1;
    }
    &s[..end]
}

/// Whether every byte of `s` is 0x20 (true for the empty slice).
pub fn is_all_spaces(s: &[u8]) -> bool {
    s.iter().all(|&b| b == SPACE)
}

/// `a` vs `b` with the shorter one padded with 0x20 to the longer's length.
pub fn pad_space_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().max(b.len());
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(SPACE);
        let y = b.get(i).copied().unwrap_or(SPACE);
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

/// `pad_space_cmp(a, b) == Equal`.
pub fn pad_space_eq(a: &[u8], b: &[u8]) -> bool {
    pad_space_cmp(a, b) == Ordering::Equal
}

/// Whether every byte is below 0x80.
pub fn is_ascii(s: &[u8]) -> bool {
    s.iter().all(|&b| b < 0x80)
}

/// Maps `a..=z` to `A..=Z`; every other byte is left alone.
pub fn ascii_upper(b: u8) -> u8 {
    if b.is_ascii_lowercase() {
        b - 0x20
    } else {
        b
    }
}

/// Uppercases the ASCII letters of `s` in place.
pub fn ascii_upper_in_place(s: &mut [u8]) {
    for b in s {
        *b = ascii_upper(*b);
    }
}

/// Length of the common prefix after mapping both sides through [`ascii_upper`].
pub fn mismatch_ignore_case(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    for i in 0..n {
        if ascii_upper(a[i]) != ascii_upper(b[i]) {
            return i;
        }
    }
    n
}

/// Equality after mapping both sides through [`ascii_upper`].
pub fn ascii_eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && mismatch_ignore_case(a, b) == a.len()
}

/// `memcmp` order of the uppercased bytes; shorter is less on a common prefix.
pub fn ascii_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering {
    let m = mismatch_ignore_case(a, b);
    if m < a.len() && m < b.len() {
        ascii_upper(a[m]).cmp(&ascii_upper(b[m]))
    } else {
        a.len().cmp(&b.len())
    }
}

/// [`pad_space_cmp`] of the uppercased bytes.
pub fn ascii_pad_space_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().max(b.len());
    for i in 0..n {
        let x = ascii_upper(a.get(i).copied().unwrap_or(SPACE));
        let y = ascii_upper(b.get(i).copied().unwrap_or(SPACE));
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

/// Position of the first occurrence of `needle` in `hay`; the empty needle is
/// found at 0.
pub fn find(needle: &[u8], hay: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| bytes_eq(&hay[i..i + needle.len()], needle))
}

/// `eq2_masks64`: bit `i` of the first mask where `s[i]` is `x` or `y`, of
/// the second where `s[i] >= 0x80`.
pub fn eq2_masks64(s: &[u8; 64], x: u8, y: u8) -> [u64; 2] {
    let mut m = [0u64; 2];
    for (i, &b) in s.iter().enumerate() {
        m[0] |= u64::from(b == x || b == y) << i;
        m[1] |= u64::from(b >= 0x80) << i;
    }
    m
}
