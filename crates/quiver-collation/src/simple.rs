//! Generic algorithms for the collations of part 1, in which every
//! character has one weight (a `u32`) and equal strings have equal weight
//! sequences. The concrete collators use them for their slow paths.

use std::cmp::Ordering;

use quiver_string_kernels as sk;

use crate::charset::is_bad;

/// The weight of the space MariaDB pads with. In every collation of part 1,
/// only U+0020 (byte 0x20) has it (checked against the generated tables in
/// the tests), which lets trailing-space logic work on bytes.
pub(crate) const SPACE_WEIGHT: u32 = 0x20;

/// One weight per character.
pub(crate) trait SimpleWeights {
    const PAD: bool;
    /// Weight and byte length of the first character of a non-empty `s`;
    /// an invalid byte `b` weighs `BAD_BYTE | b`.
    fn weight_at(s: &[u8]) -> (u32, usize);
}

/// Order of `rest` against an endless run of spaces (PAD SPACE tail): decided
/// by the first character that is not a space.
#[inline]
pub(crate) fn tail_vs_pad<W: SimpleWeights>(rest: &[u8]) -> Ordering {
    match sk::first_non_space(rest) {
        None => Ordering::Equal,
        Some(p) => W::weight_at(&rest[p..]).0.cmp(&SPACE_WEIGHT),
    }
}

/// Order once one side is exhausted: `a[i..]` vs `b[j..]`, one of them empty.
#[inline]
pub(crate) fn compare_tails<W: SimpleWeights>(a: &[u8], i: usize, b: &[u8], j: usize) -> Ordering {
    let (ra, rb) = (&a[i.min(a.len())..], &b[j.min(b.len())..]);
    if W::PAD {
        if ra.is_empty() {
            tail_vs_pad::<W>(rb).reverse()
        } else {
            tail_vs_pad::<W>(ra)
        }
    } else {
        ra.len().cmp(&rb.len())
    }
}

/// Character-by-character order of `a[i..]` and `b[j..]`, both starting at
/// character boundaries.
pub(crate) fn compare_from<W: SimpleWeights>(
    a: &[u8],
    b: &[u8],
    mut i: usize,
    mut j: usize,
) -> Ordering {
    loop {
        if i >= a.len() || j >= b.len() {
            return compare_tails::<W>(a, i, b, j);
        }
        let (wa, la) = W::weight_at(&a[i..]);
        let (wb, lb) = W::weight_at(&b[j..]);
        if wa != wb {
            return wa.cmp(&wb);
        }
        i += la;
        j += lb;
    }
}

/// Whether `a` and `b` have the same weights, trailing spaces included (NO PAD).
pub(crate) fn eq_nopad<W: SimpleWeights>(a: &[u8], b: &[u8]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (wa, la) = W::weight_at(&a[i..]);
        let (wb, lb) = W::weight_at(&b[j..]);
        if wa != wb {
            return false;
        }
        i += la;
        j += lb;
    }
    i >= a.len() && j >= b.len()
}

#[inline(always)]
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The last UTF-8 character boundary at or before the end of `prefix`, which
/// starts at a boundary: the start of the character the end may cut.
#[inline]
pub(crate) fn utf8_boundary_back(prefix: &[u8]) -> usize {
    let n = prefix.len();
    for q in (n.saturating_sub(3)..n).rev() {
        if !is_continuation(prefix[q]) {
            // A character starts at q; if it is one byte it ends before n.
            return if prefix[q] < 0x80 { q + 1 } else { q };
        }
    }
    // No lead byte among the last three: no character can straddle n.
    n
}

/// `LOCATE` by weights: the first position `i` of `hay` where
/// `hay[i..i + needle.len()]` equals `needle` with NO PAD. Positions step by
/// characters, decoded as MariaDB does within the bytes that can still
/// start a match (`..= hay.len() - needle.len()`): a character cut by that
/// limit steps by one byte, so the last candidates may start inside it.
pub(crate) fn locate_by_weights<W: SimpleWeights>(needle: &[u8], hay: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    let n = needle.len();
    if n > hay.len() {
        return None;
    }
    let limit = hay.len() - n + 1;
    let mut i = 0;
    while i < limit {
        if eq_nopad::<W>(&hay[i..i + n], needle) {
            return Some(i);
        }
        i += W::weight_at(&hay[i..limit]).1;
    }
    None
}

/// Writes the normalized key of `s` (see `Collator::normalized_key`):
/// `encode` appends the encoding of one non-space character (its weight and
/// bytes given); spaces and the end get the PAD SPACE encoding.
#[inline]
pub(crate) fn normalized_key<W: SimpleWeights>(
    s: &[u8],
    out: &mut Vec<u8>,
    mut encode: impl FnMut(&mut Vec<u8>, u32, &[u8]),
) {
    if !W::PAD {
        let mut i = 0;
        while i < s.len() {
            let (w, l) = W::weight_at(&s[i..]);
            encode(out, w, &s[i..i + l]);
            i += l;
        }
        return;
    }
    let s = sk::trim_end_spaces(s);
    out.reserve(s.len() + 2);
    let mut i = 0;
    while i < s.len() {
        if s[i] == b' ' {
            // A run of spaces, always followed by a non-space (s is trimmed):
            // mark each space with how that character compares to a space.
            let run = sk::first_non_space(&s[i..]).unwrap_or(s.len() - i);
            let (next, _) = W::weight_at(&s[i + run..]);
            let flag = if next < SPACE_WEIGHT { 0 } else { 2 };
            for _ in 0..run {
                out.extend_from_slice(&[b' ', flag]);
            }
            i += run;
            continue;
        }
        let (w, l) = W::weight_at(&s[i..]);
        encode(out, w, &s[i..i + l]);
        i += l;
    }
    // The padding: spaces forever, between the "below" and "above" flags.
    out.extend_from_slice(&[b' ', 1]);
}

/// Encoding of an invalid byte in normalized keys of the utf8 collations:
/// 0xFF never starts a UTF-8 character, so it sorts above all of them.
#[inline]
pub(crate) fn push_bad(out: &mut Vec<u8>, w: u32) {
    debug_assert!(is_bad(w));
    out.extend_from_slice(&[0xFF, w as u8]);
}
