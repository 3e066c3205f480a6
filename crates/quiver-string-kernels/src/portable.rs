//! Portable code path: safe Rust, eight bytes at a time in `u64` words.
//!
//! Words are loaded little-endian, so byte `k` of a slice window is bits
//! `8k..8k + 8` and `trailing_zeros / 8` of a per-byte flag word is the
//! first flagged byte. Operands shorter than a word use overlapping windows
//! (the first and the last 4 or 8 bytes) instead of a byte-at-a-time tail.
//! A window that overlaps bytes an earlier window already cleared is fine for
//! every kernel here: those bytes are known not to be hits, so the first hit
//! found in the overlapping window is the first hit overall.

use std::cmp::Ordering;

use crate::reference::SPACE;

/// Lowest bit of every byte.
const LO: u64 = 0x0101_0101_0101_0101;
/// Highest bit of every byte.
const HI: u64 = 0x8080_8080_8080_8080;
/// Low seven bits of every byte.
const LOW7: u64 = !HI;

/// `b` in every byte of a word.
#[inline(always)]
pub(crate) const fn splat(b: u8) -> u64 {
    LO * b as u64
}

/// The eight bytes of `s` at `i`, little-endian. `i + 8 <= s.len()`, which
/// every caller establishes from a length test (the check folds away).
#[inline(always)]
pub(crate) fn word(s: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[i..i + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn word4(s: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&s[i..i + 4]);
    u64::from(u32::from_le_bytes(w))
}

/// 0x80 in each byte of `x` that is zero, 0 elsewhere. Exact: the add of
/// the low seven bits cannot carry into the next byte, so no byte's answer
/// depends on its neighbours (unlike the shorter `(x - LO) & !x & HI`).
#[inline(always)]
pub(crate) const fn zero_bytes(x: u64) -> u64 {
    !(((x & LOW7) + LOW7) | x) & HI
}

/// 0x80 in each byte of `x` that is not zero.
#[inline(always)]
pub(crate) const fn nonzero_bytes(x: u64) -> u64 {
    (((x & LOW7) + LOW7) | x) & HI
}

/// Position of the lowest flagged byte of a nonzero flag word.
#[inline(always)]
fn first_flag(flags: u64) -> usize {
    (flags.trailing_zeros() / 8) as usize
}

/// Position of the highest flagged byte of a nonzero flag word.
#[inline(always)]
fn last_flag(flags: u64) -> usize {
    7 - (flags.leading_zeros() / 8) as usize
}

/// Uppercases the ASCII letters of each byte of `x`.
#[inline(always)]
pub(crate) const fn upper_word(x: u64) -> u64 {
    let low7 = x & LOW7;
    // Bit 7 of each byte: low7 >= 'a', and low7 > 'z'. No carries leave a byte.
    let at_least_a = low7 + splat(0x80 - b'a');
    let above_z = low7 + splat(0x80 - b'z' - 1);
    // Bytes with bit 7 set are not ASCII, so never letters.
    let lower = at_least_a & !above_z & !x & HI;
    x ^ (lower >> 2)
}

/// Calls `flags(i)` on the 8-byte windows of an `n >= 8` byte range (the last
/// window overlapping) and returns the first flagged position.
#[inline(always)]
fn scan_forward(n: usize, mut flags: impl FnMut(usize) -> u64) -> Option<usize> {
    debug_assert!(n >= 8);
    let mut i = 0;
    while i + 8 <= n {
        let f = flags(i);
        if f != 0 {
            return Some(i + first_flag(f));
        }
        i += 8;
    }
    if i < n {
        let f = flags(n - 8);
        if f != 0 {
            return Some(n - 8 + first_flag(f));
        }
    }
    None
}

/// [`scan_forward`] from the end: the last flagged position.
#[inline(always)]
fn scan_backward(n: usize, mut flags: impl FnMut(usize) -> u64) -> Option<usize> {
    debug_assert!(n >= 8);
    let mut end = n;
    while end >= 8 {
        let f = flags(end - 8);
        if f != 0 {
            return Some(end - 8 + last_flag(f));
        }
        end -= 8;
    }
    if end > 0 {
        let f = flags(0);
        if f != 0 {
            return Some(last_flag(f));
        }
    }
    None
}

/// Whether equal-length `a` and `b` hold the same bytes.
#[inline(always)]
fn eq_same_len(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => (word4(a, 0) ^ word4(b, 0)) | (word4(a, n - 4) ^ word4(b, n - 4)) == 0,
        8..=16 => (word(a, 0) ^ word(b, 0)) | (word(a, n - 8) ^ word(b, n - 8)) == 0,
        _ => {
            let mut i = 0;
            while i + 16 <= n {
                if (word(a, i) ^ word(b, i)) | (word(a, i + 8) ^ word(b, i + 8)) != 0 {
                    return false;
                }
                i += 16;
            }
            i == n || (word(a, n - 16) ^ word(b, n - 16)) | (word(a, n - 8) ^ word(b, n - 8)) == 0
        }
    }
}

#[inline]
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && eq_same_len(a, b)
}

/// Common-prefix length of `a` and `b` after mapping both words through `map`.
#[inline(always)]
fn mismatch_by(a: &[u8], b: &[u8], map: impl Fn(u64) -> u64) -> usize {
    let n = a.len().min(b.len());
    let differs = |i: usize| nonzero_bytes(map(word(a, i)) ^ map(word(b, i)));
    if n >= 8 {
        return scan_forward(n, differs).unwrap_or(n);
    }
    if n >= 4 {
        let differs4 = |i: usize| nonzero_bytes(map(word4(a, i)) ^ map(word4(b, i))) & 0x8080_8080;
        let f = differs4(0);
        if f != 0 {
            return first_flag(f);
        }
        let f = differs4(n - 4);
        return if f != 0 { n - 4 + first_flag(f) } else { n };
    }
    (0..n)
        .find(|&i| map(u64::from(a[i])) != map(u64::from(b[i])))
        .unwrap_or(n)
}

#[inline]
pub(crate) fn mismatch(a: &[u8], b: &[u8]) -> usize {
    mismatch_by(a, b, |w| w)
}

pub(crate) fn bytes_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let m = mismatch(a, b);
    match (a.get(m), b.get(m)) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => a.len().cmp(&b.len()),
    }
}

/// First position in `hay` whose byte is flagged by `flags` (word form) /
/// `hit` (byte form).
#[inline(always)]
fn find_byte(hay: &[u8], flags: impl Fn(u64) -> u64, hit: impl Fn(u8) -> bool) -> Option<usize> {
    if hay.len() >= 8 {
        scan_forward(hay.len(), |i| flags(word(hay, i)))
    } else {
        hay.iter().position(|&b| hit(b))
    }
}

/// Last position in `hay` whose byte is flagged.
#[inline(always)]
fn rfind_byte(hay: &[u8], flags: impl Fn(u64) -> u64, hit: impl Fn(u8) -> bool) -> Option<usize> {
    if hay.len() >= 8 {
        scan_backward(hay.len(), |i| flags(word(hay, i)))
    } else {
        hay.iter().rposition(|&b| hit(b))
    }
}

#[inline]
pub(crate) fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    let n = splat(needle);
    find_byte(hay, |w| zero_bytes(w ^ n), |b| b == needle)
}

#[inline]
pub(crate) fn memrchr(needle: u8, hay: &[u8]) -> Option<usize> {
    let n = splat(needle);
    rfind_byte(hay, |w| zero_bytes(w ^ n), |b| b == needle)
}

/// First position whose byte is not `byte`.
#[inline]
pub(crate) fn find_not(byte: u8, hay: &[u8]) -> Option<usize> {
    let n = splat(byte);
    find_byte(hay, |w| nonzero_bytes(w ^ n), |b| b != byte)
}

/// Last position whose byte is not `byte`.
#[inline]
pub(crate) fn rfind_not(byte: u8, hay: &[u8]) -> Option<usize> {
    let n = splat(byte);
    rfind_byte(hay, |w| nonzero_bytes(w ^ n), |b| b != byte)
}

pub(crate) fn first_non_space(s: &[u8]) -> Option<usize> {
    find_not(SPACE, s)
}

pub(crate) fn trim_end_spaces(s: &[u8]) -> &[u8] {
    // Most values have no trailing space: one byte test, no word work.
    if s.last() != Some(&SPACE) {
        return s;
    }
    match rfind_not(SPACE, s) {
        Some(i) => &s[..=i],
        None => &[],
    }
}

pub(crate) fn is_all_spaces(s: &[u8]) -> bool {
    first_non_space(s).is_none()
}

/// `a` vs `b` under PAD SPACE, given the length `m` of their common prefix
/// (after whatever mapping the caller compared with) and how to order two
/// differing bytes.
#[inline(always)]
pub(crate) fn pad_space_finish(
    a: &[u8],
    b: &[u8],
    m: usize,
    byte_cmp: impl Fn(u8, u8) -> Ordering,
    first_non_space: impl Fn(&[u8]) -> Option<usize>,
) -> Ordering {
    match (a.get(m), b.get(m)) {
        (Some(&x), Some(&y)) => byte_cmp(x, y),
        (None, None) => Ordering::Equal,
        // The shorter side is all padding from here on; the first byte of the
        // longer side's rest that is not a space decides. A case fold never
        // moves a byte across 0x20, so comparing unfolded bytes is exact.
        (Some(_), None) => match first_non_space(&a[m..]) {
            Some(i) => a[m + i].cmp(&SPACE),
            None => Ordering::Equal,
        },
        (None, Some(_)) => match first_non_space(&b[m..]) {
            Some(i) => SPACE.cmp(&b[m + i]),
            None => Ordering::Equal,
        },
    }
}

pub(crate) fn pad_space_cmp(a: &[u8], b: &[u8]) -> Ordering {
    pad_space_finish(a, b, mismatch(a, b), |x, y| x.cmp(&y), first_non_space)
}

pub(crate) fn pad_space_eq(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let (head, rest) = long.split_at(short.len());
    eq_same_len(short, head) && is_all_spaces(rest)
}

#[inline]
pub(crate) fn is_ascii(s: &[u8]) -> bool {
    // std's check already runs a word at a time.
    s.is_ascii()
}

#[inline]
pub(crate) fn ascii_upper_in_place(s: &mut [u8]) {
    let mut chunks = s.chunks_exact_mut(8);
    for c in &mut chunks {
        let w = upper_word(word(c, 0));
        c.copy_from_slice(&w.to_le_bytes());
    }
    chunks.into_remainder().make_ascii_uppercase();
}

#[inline]
pub(crate) fn mismatch_ignore_case(a: &[u8], b: &[u8]) -> usize {
    mismatch_by(a, b, upper_word)
}

pub(crate) fn ascii_eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && mismatch_ignore_case(a, b) == a.len()
}

fn upper_cmp(x: u8, y: u8) -> Ordering {
    x.to_ascii_uppercase().cmp(&y.to_ascii_uppercase())
}

pub(crate) fn ascii_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering {
    let m = mismatch_ignore_case(a, b);
    match (a.get(m), b.get(m)) {
        (Some(&x), Some(&y)) => upper_cmp(x, y),
        _ => a.len().cmp(&b.len()),
    }
}

pub(crate) fn ascii_pad_space_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering {
    pad_space_finish(a, b, mismatch_ignore_case(a, b), upper_cmp, first_non_space)
}

/// First start `j` in `0..=hay.len() - needle.len()` where
/// `hay[j + i1] == needle[i1]`, `hay[j + i2] == needle[i2]` and the whole
/// needle matches. `needle.len() <= hay.len()`, `i1, i2 < needle.len()`.
///
/// Candidates come eight starts at a time: the word at `j + i1` XOR the
/// first probe byte, OR-ed with the word at `j + i2` XOR the second, has a
/// zero byte exactly where both probes match.
#[inline]
pub(crate) fn find_pair(hay: &[u8], needle: &[u8], i1: usize, i2: usize) -> Option<usize> {
    let n = needle.len();
    let len = hay.len();
    debug_assert!(n <= len && i1 < n && i2 < n);
    let starts = len - n + 1;
    let (b1, b2) = (needle[i1], needle[i2]);
    let (s1, s2) = (splat(b1), splat(b2));
    let verify = |j: usize| eq_same_len(&hay[j..j + n], needle);
    // Probe flags for the eight starts s..s + 8; `s + 8 <= starts`.
    let probe = |s: usize| zero_bytes((word(hay, s + i1) ^ s1) | (word(hay, s + i2) ^ s2));
    let check = |base: usize, mut flags: u64| -> Option<usize> {
        while flags != 0 {
            let j = base + first_flag(flags);
            if verify(j) {
                return Some(j);
            }
            flags &= flags - 1;
        }
        None
    };
    if starts >= 8 {
        let mut s = 0;
        while s + 8 <= starts {
            if let Some(j) = check(s, probe(s)) {
                return Some(j);
            }
            s += 8;
        }
        if s < starts {
            // Last window overlaps the previous one; drop starts already tried.
            let t = starts - 8;
            return check(t, probe(t) & (u64::MAX << (8 * (s - t))));
        }
        None
    } else if len >= 8 {
        // Fewer than eight starts: load each probe's window where it fits and
        // shift the flags so bit 8j is start j.
        let w1 = i1.min(len - 8);
        let w2 = i2.min(len - 8);
        let f1 = zero_bytes(word(hay, w1) ^ s1) >> (8 * (i1 - w1));
        let f2 = zero_bytes(word(hay, w2) ^ s2) >> (8 * (i2 - w2));
        check(0, f1 & f2 & (u64::MAX >> (64 - 8 * starts)))
    } else {
        (0..starts).find(|&j| hay[j + i1] == b1 && hay[j + i2] == b2 && verify(j))
    }
}

/// A branch-free loop over the 64 bytes (the compiler vectorizes it).
#[inline]
pub(crate) fn eq2_masks64(s: &[u8; 64], x: u8, y: u8) -> [u64; 2] {
    let (mut eq, mut hi) = (0u64, 0u64);
    for (i, &b) in s.iter().enumerate() {
        eq |= u64::from((b == x) | (b == y)) << i;
        hi |= u64::from(b >> 7) << i;
    }
    [eq, hi]
}
