//! AVX2 code path: 32-byte compares reduced to bitmasks with `movemask`.
//!
//! Shape of every kernel, by operand length `n`:
//! - `n >= 32`: a main loop over 32-byte blocks (unrolled to 64 or 128 bytes
//!   where the loop body is cheap enough to be load-bound), then one last
//!   block ending exactly at `n`, overlapping the previous one. Bytes in the
//!   overlap were already found not to be hits, so the first hit in the last
//!   block is the first hit overall; in-place case folding is idempotent, so
//!   re-folding the overlap is harmless.
//! - `16 <= n < 32`: two SSE2 blocks, the first and the last 16 bytes.
//! - `n < 16`: the portable word-at-a-time code (two overlapping 8- or
//!   4-byte words), which is as fast as a vector at that size.
//!
//! Loads and stores go through [`load`], [`load16`] and [`store`], which take
//! fixed-size array references cut from the slice with bounds-checked
//! indexing: a wrong index is a panic in testing, never a read past the end.
//!
//! Every function is `unsafe` only because it is compiled for AVX2: callers
//! must have checked that the CPU supports it.

use std::arch::x86_64::*;
use std::cmp::Ordering;

use crate::portable;
use crate::reference::SPACE;

/// The `N` elements of `s` at `i` as an array reference (bounds-checked).
#[inline(always)]
fn block<T, const N: usize>(s: &[T], i: usize) -> &[T; N] {
    s[i..i + N].try_into().expect("block is N bytes long")
}

/// Mutable [`block`].
#[inline(always)]
fn block_mut<const N: usize>(s: &mut [u8], i: usize) -> &mut [u8; N] {
    (&mut s[i..i + N])
        .try_into()
        .expect("block is N bytes long")
}

/// The 32 bytes of `s` at `i`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(s: &[u8], i: usize) -> __m256i {
    let b: &[u8; 32] = block(s, i);
    // SAFETY: `b` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

/// The 16 bytes of `s` at `i`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load16(s: &[u8], i: usize) -> __m128i {
    let b: &[u8; 16] = block(s, i);
    // SAFETY: `b` is 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// Stores `v` into the 32 bytes of `s` at `i`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store(s: &mut [u8], i: usize, v: __m256i) {
    let b: &mut [u8; 32] = block_mut(s, i);
    // SAFETY: `b` is 32 writable bytes, borrowed exclusively; `storeu` has no
    // alignment requirement.
    unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) }
}

/// Stores `v` into the 16 bytes of `s` at `i`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store16(s: &mut [u8], i: usize, v: __m128i) {
    let b: &mut [u8; 16] = block_mut(s, i);
    // SAFETY: `b` is 16 writable bytes, borrowed exclusively; `storeu` has no
    // alignment requirement.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
}

/// One bit per byte: set where `a` and `b` are equal.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn eq_bits(a: __m256i, b: __m256i) -> u32 {
    _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b)) as u32
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn eq_bits16(a: __m128i, b: __m128i) -> u32 {
    _mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) as u32
}

/// Maps `a..=z` to `A..=Z`: a byte is lower case iff `b - 'a'` (wrapping)
/// is at most 25 unsigned, i.e. `min(b - 'a', 25) == b - 'a'`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn upper(v: __m256i) -> __m256i {
    let rel = _mm256_sub_epi8(v, _mm256_set1_epi8(b'a' as i8));
    let lower = _mm256_cmpeq_epi8(_mm256_min_epu8(rel, _mm256_set1_epi8(25)), rel);
    _mm256_sub_epi8(v, _mm256_and_si256(lower, _mm256_set1_epi8(0x20)))
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn upper16(v: __m128i) -> __m128i {
    let rel = _mm_sub_epi8(v, _mm_set1_epi8(b'a' as i8));
    let lower = _mm_cmpeq_epi8(_mm_min_epu8(rel, _mm_set1_epi8(25)), rel);
    _mm_sub_epi8(v, _mm_and_si128(lower, _mm_set1_epi8(0x20)))
}

/// The first and the last 8 bytes of `s` (`8 <= s.len() <= 16`) in the low
/// and high halves of one vector.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn ends8(s: &[u8]) -> __m128i {
    let n = s.len();
    _mm_set_epi64x(portable::word(s, n - 8) as i64, portable::word(s, 0) as i64)
}

/// The first and the last 4 bytes of `s` (`4 <= s.len() <= 8`) in lanes
/// 0..4 and 4..8 of one vector (lanes 8..16 zero).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn ends4(s: &[u8]) -> __m128i {
    let n = s.len();
    let head = u32::from_le_bytes(*block::<u8, 4>(s, 0));
    let tail = u32::from_le_bytes(*block::<u8, 4>(s, n - 4));
    _mm_set_epi32(0, 0, tail as i32, head as i32)
}

/// Per-byte bits of an `n`-byte operand (bit `i` for byte `i`) from a
/// per-lane movemask `m` of [`ends8`] vectors.
#[inline(always)]
fn ends8_bits(m: u32, n: usize) -> u64 {
    u64::from(m & 0xFF) | (u64::from((m >> 8) & 0xFF) << (n - 8))
}

/// [`ends8_bits`] for [`ends4`] vectors.
#[inline(always)]
fn ends4_bits(m: u32, n: usize) -> u64 {
    u64::from(m & 0xF) | (u64::from((m >> 4) & 0xF) << (n - 4))
}

/// Per-byte bits (bit `i` for byte `i`) of a `16 <= n <= 64` byte operand,
/// from `$bits16`, the 16-bit result of a test of the 16 bytes at `$off`.
/// Four blocks at 0, `min(16, n - 16)`, `max(n - 32, 0)` and `n - 16` cover
/// every byte for any such `n`, so there is no branch on the length; blocks
/// that overlap report the same bits for the same bytes, so OR-ing is exact.
macro_rules! bits_16_to_64 {
    ($n:expr, |$off:ident| $bits16:expr) => {{
        let n: usize = $n;
        debug_assert!((16..=64).contains(&n));
        let o1 = 16.min(n - 16);
        let o2 = n.saturating_sub(32);
        let o3 = n - 16;
        let b0 = u64::from({
            let $off = 0usize;
            $bits16
        });
        let b1 = u64::from({
            let $off = o1;
            $bits16
        });
        let b2 = u64::from({
            let $off = o2;
            $bits16
        });
        let b3 = u64::from({
            let $off = o3;
            $bits16
        });
        b0 | (b1 << o1) | (b2 << o2) | (b3 << o3)
    }};
}

/// Equal-byte bits of `a` and `b` at `i`, case-folded first when `FOLD`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn same_bits<const FOLD: bool>(a: &[u8], b: &[u8], i: usize) -> u32 {
    let (x, y) = (load(a, i), load(b, i));
    if FOLD {
        eq_bits(upper(x), upper(y))
    } else {
        eq_bits(x, y)
    }
}

/// Lane-wise equality of the 16 bytes of `a` and `b` at `i`, case-folded
/// first when `FOLD`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn same16<const FOLD: bool>(a: &[u8], b: &[u8], i: usize) -> __m128i {
    let (x, y) = (load16(a, i), load16(b, i));
    if FOLD {
        _mm_cmpeq_epi8(upper16(x), upper16(y))
    } else {
        _mm_cmpeq_epi8(x, y)
    }
}

/// One bit per lane of a lane-wise equality: set where the lanes differ.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn differ_bits16(eq: __m128i) -> u64 {
    u64::from(!(_mm_movemask_epi8(eq) as u32) & 0xFFFF)
}

/// Whether equal-length `a` and `b` hold the same bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn eq_same_len(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    if n < 16 {
        return portable::bytes_eq(a, b);
    }
    if n <= 64 {
        // Four 16-byte blocks cover 16..=64 bytes without a length branch
        // (see `bits_16_to_64`).
        let o1 = 16.min(n - 16);
        let o2 = n.saturating_sub(32);
        let o3 = n - 16;
        let e0 = _mm_cmpeq_epi8(load16(a, 0), load16(b, 0));
        let e1 = _mm_cmpeq_epi8(load16(a, o1), load16(b, o1));
        let e2 = _mm_cmpeq_epi8(load16(a, o2), load16(b, o2));
        let e3 = _mm_cmpeq_epi8(load16(a, o3), load16(b, o3));
        let all = _mm_and_si128(_mm_and_si128(e0, e1), _mm_and_si128(e2, e3));
        return _mm_movemask_epi8(all) == 0xFFFF;
    }
    let mut i = 0;
    // XOR is zero exactly where the bytes agree; OR-ing four blocks defers
    // the test (one `vptest` per 128 bytes).
    while i + 128 <= n {
        let d0 = _mm256_xor_si256(load(a, i), load(b, i));
        let d1 = _mm256_xor_si256(load(a, i + 32), load(b, i + 32));
        let d2 = _mm256_xor_si256(load(a, i + 64), load(b, i + 64));
        let d3 = _mm256_xor_si256(load(a, i + 96), load(b, i + 96));
        let d = _mm256_or_si256(_mm256_or_si256(d0, d1), _mm256_or_si256(d2, d3));
        if _mm256_testz_si256(d, d) == 0 {
            return false;
        }
        i += 128;
    }
    while i + 32 <= n {
        let d = _mm256_xor_si256(load(a, i), load(b, i));
        if _mm256_testz_si256(d, d) == 0 {
            return false;
        }
        i += 32;
    }
    if i < n {
        let d = _mm256_xor_si256(load(a, n - 32), load(b, n - 32));
        return _mm256_testz_si256(d, d) != 0;
    }
    true
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && eq_same_len(a, b)
}

/// Common-prefix length, case-folded when `FOLD`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn mismatch_impl<const FOLD: bool>(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    if n <= 64 {
        let differ = if n >= 16 {
            // Equal operands (hash-table probes, GROUP BY keys) are common:
            // settle that case with one movemask before locating a difference.
            let o1 = 16.min(n - 16);
            let o2 = n.saturating_sub(32);
            let o3 = n - 16;
            let e0 = same16::<FOLD>(a, b, 0);
            let e1 = same16::<FOLD>(a, b, o1);
            let e2 = same16::<FOLD>(a, b, o2);
            let e3 = same16::<FOLD>(a, b, o3);
            let all = _mm_and_si128(_mm_and_si128(e0, e1), _mm_and_si128(e2, e3));
            if _mm_movemask_epi8(all) == 0xFFFF {
                return n;
            }
            differ_bits16(e0)
                | (differ_bits16(e1) << o1)
                | (differ_bits16(e2) << o2)
                | (differ_bits16(e3) << o3)
        } else if n >= 8 {
            let (x, y) = (ends8(&a[..n]), ends8(&b[..n]));
            let same = if FOLD {
                eq_bits16(upper16(x), upper16(y))
            } else {
                eq_bits16(x, y)
            };
            ends8_bits(!same, n)
        } else if n >= 4 {
            let (x, y) = (ends4(&a[..n]), ends4(&b[..n]));
            let same = if FOLD {
                eq_bits16(upper16(x), upper16(y))
            } else {
                eq_bits16(x, y)
            };
            ends4_bits(!same, n)
        } else {
            return if FOLD {
                portable::mismatch_ignore_case(a, b)
            } else {
                portable::mismatch(a, b)
            };
        };
        return if differ != 0 {
            differ.trailing_zeros() as usize
        } else {
            n
        };
    }
    let mut i = 0;
    while i + 64 <= n {
        let m0 = same_bits::<FOLD>(a, b, i);
        let m1 = same_bits::<FOLD>(a, b, i + 32);
        if m0 & m1 != u32::MAX {
            return if m0 != u32::MAX {
                i + (!m0).trailing_zeros() as usize
            } else {
                i + 32 + (!m1).trailing_zeros() as usize
            };
        }
        i += 64;
    }
    if i + 32 <= n {
        let m = same_bits::<FOLD>(a, b, i);
        if m != u32::MAX {
            return i + (!m).trailing_zeros() as usize;
        }
        i += 32;
    }
    if i < n {
        let m = same_bits::<FOLD>(a, b, n - 32);
        if m != u32::MAX {
            return n - 32 + (!m).trailing_zeros() as usize;
        }
    }
    n
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn mismatch(a: &[u8], b: &[u8]) -> usize {
    mismatch_impl::<false>(a, b)
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn bytes_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let m = mismatch_impl::<false>(a, b);
    match (a.get(m), b.get(m)) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => a.len().cmp(&b.len()),
    }
}

/// One bit per byte of the 32 at `i`: set where the byte is a hit, i.e.
/// equals `needle` (`!NOT`) or differs from it (`NOT`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hit_bits<const NOT: bool>(hay: &[u8], i: usize, needle: __m256i) -> u32 {
    let m = eq_bits(load(hay, i), needle);
    if NOT {
        !m
    } else {
        m
    }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hit_bits16<const NOT: bool>(hay: &[u8], i: usize, needle: __m128i) -> u32 {
    let m = eq_bits16(load16(hay, i), needle);
    if NOT {
        !m & 0xFFFF
    } else {
        m
    }
}

/// Whether any of the four 32-byte blocks at `i` has a hit (one movemask).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn any_hit_128<const NOT: bool>(hay: &[u8], i: usize, needle: __m256i) -> bool {
    let c0 = _mm256_cmpeq_epi8(load(hay, i), needle);
    let c1 = _mm256_cmpeq_epi8(load(hay, i + 32), needle);
    let c2 = _mm256_cmpeq_epi8(load(hay, i + 64), needle);
    let c3 = _mm256_cmpeq_epi8(load(hay, i + 96), needle);
    if NOT {
        let all = _mm256_and_si256(_mm256_and_si256(c0, c1), _mm256_and_si256(c2, c3));
        _mm256_movemask_epi8(all) != -1
    } else {
        let any = _mm256_or_si256(_mm256_or_si256(c0, c1), _mm256_or_si256(c2, c3));
        _mm256_movemask_epi8(any) != 0
    }
}

/// Per-byte hit bits (bit `i` for byte `i`) of a haystack of at most 64
/// bytes: bytes equal to `byte` (`!NOT`) or different from it (`NOT`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn small_hit_bits<const NOT: bool>(byte: u8, hay: &[u8]) -> u64 {
    let n = hay.len();
    debug_assert!(n <= 64);
    let v = _mm_set1_epi8(byte as i8);
    let flip = if NOT { u32::MAX } else { 0 };
    if n >= 16 {
        bits_16_to_64!(n, |off| hit_bits16::<NOT>(hay, off, v))
    } else if n >= 8 {
        ends8_bits(eq_bits16(ends8(hay), v) ^ flip, n)
    } else if n >= 4 {
        ends4_bits(eq_bits16(ends4(hay), v) ^ flip, n)
    } else if n > 0 {
        // Bytes 0, n / 2 and n - 1 are every byte of a 1..=3 byte slice.
        let hit = |i: usize| u64::from((hay[i] == byte) != NOT) << i;
        hit(0) | hit(n / 2) | hit(n - 1)
    } else {
        0
    }
}

/// First position whose byte equals `byte` (`!NOT`) or differs from it (`NOT`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn find_impl<const NOT: bool>(byte: u8, hay: &[u8]) -> Option<usize> {
    let n = hay.len();
    if n <= 64 {
        let hits = small_hit_bits::<NOT>(byte, hay);
        return (hits != 0).then(|| hits.trailing_zeros() as usize);
    }
    let v = _mm256_set1_epi8(byte as i8);
    let mut i = 0;
    while i + 128 <= n {
        if any_hit_128::<NOT>(hay, i, v) {
            break;
        }
        i += 128;
    }
    // Either the 128-byte block at `i` has a hit or fewer than 128 bytes are
    // left; find it 32 bytes at a time.
    while i + 32 <= n {
        let m = hit_bits::<NOT>(hay, i, v);
        if m != 0 {
            return Some(i + m.trailing_zeros() as usize);
        }
        i += 32;
    }
    if i < n {
        let m = hit_bits::<NOT>(hay, n - 32, v);
        if m != 0 {
            return Some(n - 32 + m.trailing_zeros() as usize);
        }
    }
    None
}

/// Last position whose byte equals `byte` (`!NOT`) or differs from it (`NOT`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn rfind_impl<const NOT: bool>(byte: u8, hay: &[u8]) -> Option<usize> {
    let n = hay.len();
    if n <= 64 {
        let hits = small_hit_bits::<NOT>(byte, hay);
        return (hits != 0).then(|| 63 - hits.leading_zeros() as usize);
    }
    let v = _mm256_set1_epi8(byte as i8);
    // `end` is one past the last byte not yet searched.
    let mut end = n;
    while end >= 128 {
        if any_hit_128::<NOT>(hay, end - 128, v) {
            break;
        }
        end -= 128;
    }
    while end >= 32 {
        let m = hit_bits::<NOT>(hay, end - 32, v);
        if m != 0 {
            return Some(end - 32 + 31 - m.leading_zeros() as usize);
        }
        end -= 32;
    }
    if end > 0 {
        let m = hit_bits::<NOT>(hay, 0, v);
        if m != 0 {
            return Some(31 - m.leading_zeros() as usize);
        }
    }
    None
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    find_impl::<false>(needle, hay)
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn memrchr(needle: u8, hay: &[u8]) -> Option<usize> {
    rfind_impl::<false>(needle, hay)
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn first_non_space(s: &[u8]) -> Option<usize> {
    find_impl::<true>(SPACE, s)
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn trim_end_spaces(s: &[u8]) -> &[u8] {
    // Most values have no trailing space: one byte test, no vector work.
    if s.last() != Some(&SPACE) {
        return s;
    }
    match rfind_impl::<true>(SPACE, s) {
        Some(i) => &s[..=i],
        None => &[],
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn is_all_spaces(s: &[u8]) -> bool {
    find_impl::<true>(SPACE, s).is_none()
}

/// PAD SPACE order of `a` and `b` given their (possibly case-folded) common
/// prefix length `m`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pad_space_finish<const FOLD: bool>(a: &[u8], b: &[u8], m: usize) -> Ordering {
    match (a.get(m), b.get(m)) {
        (Some(&x), Some(&y)) if FOLD => x.to_ascii_uppercase().cmp(&y.to_ascii_uppercase()),
        (Some(&x), Some(&y)) => x.cmp(&y),
        (None, None) => Ordering::Equal,
        // The shorter side is all padding from here on; the first byte of the
        // longer side's rest that is not a space decides. A case fold never
        // moves a byte across 0x20, so comparing unfolded bytes is exact.
        (Some(_), None) => match find_impl::<true>(SPACE, &a[m..]) {
            Some(i) => a[m + i].cmp(&SPACE),
            None => Ordering::Equal,
        },
        (None, Some(_)) => match find_impl::<true>(SPACE, &b[m..]) {
            Some(i) => SPACE.cmp(&b[m + i]),
            None => Ordering::Equal,
        },
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pad_space_cmp(a: &[u8], b: &[u8]) -> Ordering {
    pad_space_finish::<false>(a, b, mismatch_impl::<false>(a, b))
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pad_space_eq(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let (head, rest) = long.split_at(short.len());
    eq_same_len(short, head) && (rest.is_empty() || find_impl::<true>(SPACE, rest).is_none())
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn is_ascii(s: &[u8]) -> bool {
    let n = s.len();
    if n < 16 {
        return portable::is_ascii(s);
    }
    if n < 32 {
        let v = _mm_or_si128(load16(s, 0), load16(s, n - 16));
        return _mm_movemask_epi8(v) == 0;
    }
    let mut i = 0;
    while i + 128 <= n {
        let v0 = _mm256_or_si256(load(s, i), load(s, i + 32));
        let v1 = _mm256_or_si256(load(s, i + 64), load(s, i + 96));
        if _mm256_movemask_epi8(_mm256_or_si256(v0, v1)) != 0 {
            return false;
        }
        i += 128;
    }
    let mut acc = _mm256_setzero_si256();
    while i + 32 <= n {
        acc = _mm256_or_si256(acc, load(s, i));
        i += 32;
    }
    if i < n {
        acc = _mm256_or_si256(acc, load(s, n - 32));
    }
    _mm256_movemask_epi8(acc) == 0
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn ascii_upper_in_place(s: &mut [u8]) {
    let n = s.len();
    if n < 16 {
        return portable::ascii_upper_in_place(s);
    }
    if n < 32 {
        // Fold the last 16 after storing the first 16: re-folding the
        // overlap is a no-op.
        let head = upper16(load16(s, 0));
        store16(s, 0, head);
        let tail = upper16(load16(s, n - 16));
        store16(s, n - 16, tail);
        return;
    }
    let mut i = 0;
    while i + 32 <= n {
        let v = upper(load(s, i));
        store(s, i, v);
        i += 32;
    }
    if i < n {
        let v = upper(load(s, n - 32));
        store(s, n - 32, v);
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn mismatch_ignore_case(a: &[u8], b: &[u8]) -> usize {
    mismatch_impl::<true>(a, b)
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn ascii_eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && mismatch_impl::<true>(a, b) == a.len()
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn ascii_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering {
    let m = mismatch_impl::<true>(a, b);
    match (a.get(m), b.get(m)) {
        (Some(x), Some(y)) => x.to_ascii_uppercase().cmp(&y.to_ascii_uppercase()),
        _ => a.len().cmp(&b.len()),
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn ascii_pad_space_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering {
    pad_space_finish::<true>(a, b, mismatch_impl::<true>(a, b))
}

/// Per-byte bits of the bytes equal to `p`'s lanes in four 16-byte blocks
/// found at offsets `at` of one operand (the blocks of `bits_16_to_64`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn blocks_eq_bits(w: [__m128i; 4], at: [usize; 4], p: __m128i) -> u64 {
    (u64::from(eq_bits16(w[0], p)) << at[0])
        | (u64::from(eq_bits16(w[1], p)) << at[1])
        | (u64::from(eq_bits16(w[2], p)) << at[2])
        | (u64::from(eq_bits16(w[3], p)) << at[3])
}

/// Verifies candidate starts (bits of `flags`, bit `k` = start `base + k`)
/// in order and returns the first where the whole needle matches.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn first_verified(hay: &[u8], needle: &[u8], base: usize, mut flags: u32) -> Option<usize> {
    while flags != 0 {
        let j = base + flags.trailing_zeros() as usize;
        if eq_same_len(&hay[j..j + needle.len()], needle) {
            return Some(j);
        }
        flags &= flags - 1;
    }
    None
}

/// Substring search filtered by two probe bytes of the needle, at needle
/// offsets `i1` and `i2` (chosen rare by the caller): a start `j` is a
/// candidate when `hay[j + i1]` and `hay[j + i2]` both match, which two
/// compares of shifted blocks decide for 32 starts at once; candidates are
/// then verified in full. `needle.len() <= hay.len()`, `i1, i2 < needle.len()`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn find_pair(hay: &[u8], needle: &[u8], i1: usize, i2: usize) -> Option<usize> {
    let n = needle.len();
    let len = hay.len();
    debug_assert!(n <= len && i1 < n && i2 < n);
    let starts = len - n + 1;
    if len <= 64 {
        // One bit per byte for each probe, shifted so bit j is start j.
        let (h1, h2) = if len >= 16 {
            // Both probes from the same four blocks (see `bits_16_to_64`).
            let (p1, p2) = (
                _mm_set1_epi8(needle[i1] as i8),
                _mm_set1_epi8(needle[i2] as i8),
            );
            let o1 = 16.min(len - 16);
            let o2 = len.saturating_sub(32);
            let o3 = len - 16;
            let w = [
                load16(hay, 0),
                load16(hay, o1),
                load16(hay, o2),
                load16(hay, o3),
            ];
            let at = [0, o1, o2, o3];
            (blocks_eq_bits(w, at, p1), blocks_eq_bits(w, at, p2))
        } else {
            (
                small_hit_bits::<false>(needle[i1], hay),
                small_hit_bits::<false>(needle[i2], hay),
            )
        };
        let (f1, f2) = (h1 >> i1, h2 >> i2);
        let in_range = u64::MAX >> (64 - starts);
        let mut flags = f1 & f2 & in_range;
        while flags != 0 {
            let j = flags.trailing_zeros() as usize;
            if eq_same_len(&hay[j..j + n], needle) {
                return Some(j);
            }
            flags &= flags - 1;
        }
        return None;
    }
    let v1 = _mm256_set1_epi8(needle[i1] as i8);
    let v2 = _mm256_set1_epi8(needle[i2] as i8);
    if starts < 32 {
        // A long needle leaves fewer than 32 starts: load each probe's block
        // where it fits and shift its bits so bit j is start j.
        let w1 = i1.min(len - 32);
        let w2 = i2.min(len - 32);
        let f1 = eq_bits(load(hay, w1), v1) >> (i1 - w1);
        let f2 = eq_bits(load(hay, w2), v2) >> (i2 - w2);
        return first_verified(hay, needle, 0, f1 & f2 & ((1u32 << starts) - 1));
    }
    let mut s = 0;
    while s + 32 <= starts {
        let f = eq_bits(load(hay, s + i1), v1) & eq_bits(load(hay, s + i2), v2);
        if f != 0 {
            if let Some(j) = first_verified(hay, needle, s, f) {
                return Some(j);
            }
        }
        s += 32;
    }
    if s < starts {
        let t = starts - 32;
        let f = eq_bits(load(hay, t + i1), v1) & eq_bits(load(hay, t + i2), v2);
        // Drop starts the previous block already tried.
        return first_verified(hay, needle, t, f & (u32::MAX << (s - t)));
    }
    None
}

/// Loads 8 `i32`s (or 4 `i64`s) of `s` at `i`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_i32x8(s: &[i32], i: usize) -> __m256i {
    let b: &[i32; 8] = block(s, i);
    // SAFETY: `b` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_i64x4(s: &[i64], i: usize) -> __m256i {
    let b: &[i64; 4] = block(s, i);
    // SAFETY: `b` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

/// Bit `i` set when row `i` of a 64-row block of `i32` offsets (65 entries,
/// validated: non-decreasing) has length `k` (at least `k` if `at_least`).
/// Lengths are `offsets[i + 1] - offsets[i]`: two overlapping loads and a
/// subtract give eight at a time.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn length_bits_i32(block: &[i32], k: usize, at_least: bool) -> u64 {
    debug_assert_eq!(block.len(), 65);
    if at_least && k == 0 {
        return u64::MAX;
    }
    // No i32-offset row can be longer than i32::MAX.
    let Ok(k) = i32::try_from(k) else {
        return 0;
    };
    let mut bits = 0u64;
    for c in 0..8 {
        let len = _mm256_sub_epi32(load_i32x8(block, 8 * c + 1), load_i32x8(block, 8 * c));
        let hit = if at_least {
            _mm256_cmpgt_epi32(len, _mm256_set1_epi32(k - 1))
        } else {
            _mm256_cmpeq_epi32(len, _mm256_set1_epi32(k))
        };
        let m = _mm256_movemask_ps(_mm256_castsi256_ps(hit)) as u64;
        bits |= m << (8 * c);
    }
    bits
}

/// Rows of length `k` or `k + 1` of a 64-row block of `i32` offsets, as one
/// mask (PAD SPACE equality with at most one trailing space reads both).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn length_bits_k_or_next_i32(block: &[i32], k: usize) -> u64 {
    debug_assert_eq!(block.len(), 65);
    // No i32-offset row is longer than i32::MAX; k + 1 = i32::MAX still fits.
    let Ok(k) = i32::try_from(k) else {
        return 0;
    };
    let mut bits = 0u64;
    if k % 2 == 0 {
        // k and k + 1 are the two lengths that give k + 1 with bit 0 set
        // (k is even, so below i32::MAX).
        let (vk1, one) = (_mm256_set1_epi32(k + 1), _mm256_set1_epi32(1));
        for c in 0..8 {
            let len = _mm256_sub_epi32(load_i32x8(block, 8 * c + 1), load_i32x8(block, 8 * c));
            let hit = _mm256_cmpeq_epi32(_mm256_or_si256(len, one), vk1);
            bits |= (_mm256_movemask_ps(_mm256_castsi256_ps(hit)) as u64) << (8 * c);
        }
        return bits;
    }
    // k = i32::MAX: k + 1 wraps to i32::MIN, which no length equals.
    let (vk, vk1) = (_mm256_set1_epi32(k), _mm256_set1_epi32(k.wrapping_add(1)));
    for c in 0..8 {
        let len = _mm256_sub_epi32(load_i32x8(block, 8 * c + 1), load_i32x8(block, 8 * c));
        let hit = _mm256_or_si256(_mm256_cmpeq_epi32(len, vk), _mm256_cmpeq_epi32(len, vk1));
        bits |= (_mm256_movemask_ps(_mm256_castsi256_ps(hit)) as u64) << (8 * c);
    }
    bits
}

/// [`length_bits_k_or_next_i32`] for `i64` offsets.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn length_bits_k_or_next_i64(block: &[i64], k: usize) -> u64 {
    debug_assert_eq!(block.len(), 65);
    let Ok(k) = i64::try_from(k) else {
        return 0;
    };
    let mut bits = 0u64;
    if k % 2 == 0 {
        // As for `i32`: one compare of the length with bit 0 set.
        let (vk1, one) = (_mm256_set1_epi64x(k + 1), _mm256_set1_epi64x(1));
        for c in 0..16 {
            let len = _mm256_sub_epi64(load_i64x4(block, 4 * c + 1), load_i64x4(block, 4 * c));
            let hit = _mm256_cmpeq_epi64(_mm256_or_si256(len, one), vk1);
            bits |= (_mm256_movemask_pd(_mm256_castsi256_pd(hit)) as u64) << (4 * c);
        }
        return bits;
    }
    let (vk, vk1) = (_mm256_set1_epi64x(k), _mm256_set1_epi64x(k.wrapping_add(1)));
    for c in 0..16 {
        let len = _mm256_sub_epi64(load_i64x4(block, 4 * c + 1), load_i64x4(block, 4 * c));
        let hit = _mm256_or_si256(_mm256_cmpeq_epi64(len, vk), _mm256_cmpeq_epi64(len, vk1));
        bits |= (_mm256_movemask_pd(_mm256_castsi256_pd(hit)) as u64) << (4 * c);
    }
    bits
}

/// Rows of a 64-row block of `i32` offsets whose length, less one where
/// `minus` has the row's bit set, is `k`: under PAD SPACE with at most one
/// trailing space and `minus` the rows ending in a space, the rows whose
/// trimmed length is `k`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn length_minus_bits_i32(block: &[i32], k: usize, minus: u64) -> u64 {
    debug_assert_eq!(block.len(), 65);
    let Ok(k) = i32::try_from(k) else {
        return 0;
    };
    let vk = _mm256_set1_epi32(k);
    // Each half of `minus` in every lane, once; lane j of chunk c then
    // tests bit 8c + j of it.
    let halves = [
        _mm256_set1_epi32(minus as u32 as i32),
        _mm256_set1_epi32((minus >> 32) as u32 as i32),
    ];
    let mut bits = 0u64;
    for c in 0..8 {
        let len = _mm256_sub_epi32(load_i32x8(block, 8 * c + 1), load_i32x8(block, 8 * c));
        let bit = |j: u32| (1u32 << (8 * (c % 4) as u32 + j)) as i32;
        let lane_bit = _mm256_setr_epi32(
            bit(0),
            bit(1),
            bit(2),
            bit(3),
            bit(4),
            bit(5),
            bit(6),
            bit(7),
        );
        // -1 where the row's bit is set: added, it takes the one off.
        let less = _mm256_cmpeq_epi32(_mm256_and_si256(halves[c / 4], lane_bit), lane_bit);
        let hit = _mm256_cmpeq_epi32(_mm256_add_epi32(len, less), vk);
        bits |= (_mm256_movemask_ps(_mm256_castsi256_ps(hit)) as u64) << (8 * c);
    }
    bits
}

/// [`length_minus_bits_i32`] for `i64` offsets.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn length_minus_bits_i64(block: &[i64], k: usize, minus: u64) -> u64 {
    debug_assert_eq!(block.len(), 65);
    let Ok(k) = i64::try_from(k) else {
        return 0;
    };
    let vk = _mm256_set1_epi64x(k);
    let all = _mm256_set1_epi64x(minus as i64);
    let mut bits = 0u64;
    for c in 0..16 {
        let len = _mm256_sub_epi64(load_i64x4(block, 4 * c + 1), load_i64x4(block, 4 * c));
        let bit = |j: u32| (1u64 << (4 * c as u32 + j)) as i64;
        let lane_bit = _mm256_setr_epi64x(bit(0), bit(1), bit(2), bit(3));
        let less = _mm256_cmpeq_epi64(_mm256_and_si256(all, lane_bit), lane_bit);
        let hit = _mm256_cmpeq_epi64(_mm256_add_epi64(len, less), vk);
        bits |= (_mm256_movemask_pd(_mm256_castsi256_pd(hit)) as u64) << (4 * c);
    }
    bits
}

/// [`length_bits_i32`] for `i64` offsets, four at a time.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn length_bits_i64(block: &[i64], k: usize, at_least: bool) -> u64 {
    debug_assert_eq!(block.len(), 65);
    if at_least && k == 0 {
        return u64::MAX;
    }
    let Ok(k) = i64::try_from(k) else {
        return 0;
    };
    let mut bits = 0u64;
    for c in 0..16 {
        let len = _mm256_sub_epi64(load_i64x4(block, 4 * c + 1), load_i64x4(block, 4 * c));
        let hit = if at_least {
            _mm256_cmpgt_epi64(len, _mm256_set1_epi64x(k - 1))
        } else {
            _mm256_cmpeq_epi64(len, _mm256_set1_epi64x(k))
        };
        let m = _mm256_movemask_pd(_mm256_castsi256_pd(hit)) as u64;
        bits |= m << (4 * c);
    }
    bits
}

/// Two 32-byte compares per half and `movemask`s: where the byte is `x` or
/// `y`, and the bytes' top bits.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn eq2_masks64(s: &[u8; 64], x: u8, y: u8) -> [u64; 2] {
    let (vx, vy) = (_mm256_set1_epi8(x as i8), _mm256_set1_epi8(y as i8));
    let (lo, hi) = (load(s, 0), load(s, 32));
    let eq_lo = _mm256_or_si256(_mm256_cmpeq_epi8(lo, vx), _mm256_cmpeq_epi8(lo, vy));
    let eq_hi = _mm256_or_si256(_mm256_cmpeq_epi8(hi, vx), _mm256_cmpeq_epi8(hi, vy));
    let bits = |lo: i32, hi: i32| u64::from(lo as u32) | (u64::from(hi as u32) << 32);
    [
        bits(_mm256_movemask_epi8(eq_lo), _mm256_movemask_epi8(eq_hi)),
        bits(_mm256_movemask_epi8(lo), _mm256_movemask_epi8(hi)),
    ]
}

/// Hints the CPU to start loading the cache line holding `s[i]` (nothing if
/// `i` is out of range). Not an AVX2 kernel: `prefetcht0` is SSE, which every
/// x86_64 CPU has, so this needs no runtime check.
#[inline(always)]
pub(crate) fn prefetch(s: &[u8], i: usize) {
    if let Some(b) = s.get(i) {
        // SAFETY: a prefetch only hints the cache and never faults; the
        // address is inside `s` anyway. SSE is part of the x86_64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((b as *const u8).cast()) }
    }
}
