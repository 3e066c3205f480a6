//! AVX2 kernels: 256-bit compares reduced to bitmasks with `movemask`.
//!
//! Each kernel walks its input in blocks of 64 values (one mask word). A
//! block is 2..16 vector loads depending on the width; compare results are
//! reduced two vectors at a time by [`Lanes::movemask_pair`]. A trailing
//! partial block is copied into a zero-padded stack block, so the hot loop
//! never needs a bounds check or a scalar tail, and the padding bits are
//! masked off afterwards.
//!
//! AVX2 has only signed `==` and `>` for integers. `<` swaps the operands;
//! `!=`, `<=` and `>=` compute the opposite compare and invert the finished
//! 64-bit word (one `not` per 64 values instead of one per vector). Unsigned
//! values are XOR-ed with the sign bit on load, which maps unsigned order onto
//! signed order. Floats use `vcmpps`/`vcmppd` with the ordered IEEE
//! predicates (`!=` is the unordered one, so `NaN != x` holds).
//!
//! Every function here is `unsafe` and compiled for AVX2: callers must have
//! checked that the CPU supports it.

use std::arch::x86_64::*;

use super::op::op_code::{EQ, GE, GT, LE, LT, NE};
use crate::bitmask::{tail_mask, WORD_BITS};

/// Per-type AVX2 primitives the generic kernels are written against.
///
/// # Safety
/// Implementors guarantee that `V` holds exactly `LANES` values of `Self`
/// and that `64` is a multiple of `2 * LANES`, so a block's loads stay
/// inside its 64 values.
pub unsafe trait Lanes: Copy + Default {
    /// The 256-bit vector type.
    type V: Copy;
    /// Values per vector.
    const LANES: usize;
    /// Whether [`Lanes::between`] yields the complement ("outside the range").
    const BETWEEN_NEGATED: bool;

    /// Whether [`Lanes::cmp`] yields the complement of `op`'s result.
    fn negated(op: u8) -> bool;

    /// Broadcasts `x` (in the compare domain, i.e. sign-flipped if unsigned).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn splat(x: Self) -> Self::V;

    /// Loads `LANES` values from `p` (unaligned), in the compare domain.
    ///
    /// # Safety
    /// The CPU must support AVX2 and `p..p + LANES` must be readable.
    unsafe fn load(p: *const Self) -> Self::V;

    /// Lane-wise `a <OP> b` as all-ones/all-zeros lanes, complemented when
    /// `negated(OP)`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn cmp<const OP: u8>(a: Self::V, b: Self::V) -> Self::V;

    /// Lane-wise `lo <= v <= hi`, complemented when `BETWEEN_NEGATED`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn between(v: Self::V, lo: Self::V, hi: Self::V) -> Self::V;

    /// Lane-wise OR of two compare results.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn or(a: Self::V, b: Self::V) -> Self::V;

    /// The all-false compare result.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn zero() -> Self::V;

    /// Packs two compare results into `2 * LANES` low bits, `a` first.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn movemask_pair(a: Self::V, b: Self::V) -> u64;
}

/// Integer lanes only have `==` and `>`: the remaining operators are the
/// complement of one of those.
#[inline(always)]
fn int_negated(op: u8) -> bool {
    matches!(op, NE | LE | GE)
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pair_mask_8(a: __m256i, b: __m256i) -> u64 {
    let lo = _mm256_movemask_epi8(a) as u32;
    let hi = _mm256_movemask_epi8(b) as u32;
    u64::from(lo) | (u64::from(hi) << 32)
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pair_mask_16(a: __m256i, b: __m256i) -> u64 {
    // Saturating-pack keeps 0/-1 lanes as 0/-1 bytes, but packs within each
    // 128-bit half: [a.lo, b.lo, a.hi, b.hi]. The permute restores [a, b].
    let packed = _mm256_packs_epi16(a, b);
    let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
    u64::from(_mm256_movemask_epi8(ordered) as u32)
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pair_mask_32(a: __m256i, b: __m256i) -> u64 {
    let lo = _mm256_movemask_ps(_mm256_castsi256_ps(a)) as u64;
    let hi = _mm256_movemask_ps(_mm256_castsi256_ps(b)) as u64;
    lo | (hi << 8)
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pair_mask_64(a: __m256i, b: __m256i) -> u64 {
    let lo = _mm256_movemask_pd(_mm256_castsi256_pd(a)) as u64;
    let hi = _mm256_movemask_pd(_mm256_castsi256_pd(b)) as u64;
    lo | (hi << 4)
}

macro_rules! int_lanes {
    ($($t:ty => $signed:ty, $sign_flip:expr, $lanes:literal,
       $set1:ident, $cmpeq:ident, $cmpgt:ident, $pair:ident;)*) => {$(
        // SAFETY: a __m256i holds 32 bytes = $lanes values of $t, and
        // 64 is a multiple of 2 * $lanes.
        unsafe impl Lanes for $t {
            type V = __m256i;
            const LANES: usize = $lanes;
            const BETWEEN_NEGATED: bool = true;

            #[inline(always)]
            fn negated(op: u8) -> bool {
                int_negated(op)
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn splat(x: Self) -> __m256i {
                $set1((x as $signed) ^ $sign_flip)
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn load(p: *const Self) -> __m256i {
                let v = _mm256_loadu_si256(p.cast());
                if $sign_flip == 0 {
                    v
                } else {
                    _mm256_xor_si256(v, $set1($sign_flip))
                }
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn cmp<const OP: u8>(a: __m256i, b: __m256i) -> __m256i {
                match OP {
                    EQ | NE => $cmpeq(a, b),
                    GT | LE => $cmpgt(a, b),
                    _ => $cmpgt(b, a), // LT | GE
                }
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn between(v: __m256i, lo: __m256i, hi: __m256i) -> __m256i {
                // Outside the range: lo > v or v > hi.
                _mm256_or_si256($cmpgt(lo, v), $cmpgt(v, hi))
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn or(a: __m256i, b: __m256i) -> __m256i {
                _mm256_or_si256(a, b)
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn zero() -> __m256i {
                _mm256_setzero_si256()
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn movemask_pair(a: __m256i, b: __m256i) -> u64 {
                $pair(a, b)
            }
        }
    )*};
}

// type => compare domain, sign flip, lanes, splat, ==, >, mask packer
int_lanes! {
    i8  => i8,  0,        32, _mm256_set1_epi8,    _mm256_cmpeq_epi8,  _mm256_cmpgt_epi8,  pair_mask_8;
    u8  => i8,  i8::MIN,  32, _mm256_set1_epi8,    _mm256_cmpeq_epi8,  _mm256_cmpgt_epi8,  pair_mask_8;
    i16 => i16, 0,        16, _mm256_set1_epi16,   _mm256_cmpeq_epi16, _mm256_cmpgt_epi16, pair_mask_16;
    u16 => i16, i16::MIN, 16, _mm256_set1_epi16,   _mm256_cmpeq_epi16, _mm256_cmpgt_epi16, pair_mask_16;
    i32 => i32, 0,        8,  _mm256_set1_epi32,   _mm256_cmpeq_epi32, _mm256_cmpgt_epi32, pair_mask_32;
    u32 => i32, i32::MIN, 8,  _mm256_set1_epi32,   _mm256_cmpeq_epi32, _mm256_cmpgt_epi32, pair_mask_32;
    i64 => i64, 0,        4,  _mm256_set1_epi64x,  _mm256_cmpeq_epi64, _mm256_cmpgt_epi64, pair_mask_64;
    u64 => i64, i64::MIN, 4,  _mm256_set1_epi64x,  _mm256_cmpeq_epi64, _mm256_cmpgt_epi64, pair_mask_64;
}

macro_rules! float_lanes {
    ($($t:ty => $v:ty, $lanes:literal, $set1:ident, $loadu:ident, $cmp:ident,
       $and:ident, $or:ident, $setzero:ident, $movemask:ident;)*) => {$(
        // SAFETY: a 256-bit float vector holds $lanes values of $t, and
        // 64 is a multiple of 2 * $lanes.
        unsafe impl Lanes for $t {
            type V = $v;
            const LANES: usize = $lanes;
            const BETWEEN_NEGATED: bool = false;

            // NaN makes `!(a > b)` differ from `a <= b`, so floats use the
            // exact predicate for every operator and never invert.
            #[inline(always)]
            fn negated(_op: u8) -> bool {
                false
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn splat(x: Self) -> $v {
                $set1(x)
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn load(p: *const Self) -> $v {
                $loadu(p)
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn cmp<const OP: u8>(a: $v, b: $v) -> $v {
                match OP {
                    EQ => $cmp::<_CMP_EQ_OQ>(a, b),
                    NE => $cmp::<_CMP_NEQ_UQ>(a, b),
                    LT => $cmp::<_CMP_LT_OQ>(a, b),
                    LE => $cmp::<_CMP_LE_OQ>(a, b),
                    GT => $cmp::<_CMP_GT_OQ>(a, b),
                    _ => $cmp::<_CMP_GE_OQ>(a, b), // GE
                }
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn between(v: $v, lo: $v, hi: $v) -> $v {
                $and($cmp::<_CMP_GE_OQ>(v, lo), $cmp::<_CMP_LE_OQ>(v, hi))
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn or(a: $v, b: $v) -> $v {
                $or(a, b)
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn zero() -> $v {
                $setzero()
            }

            #[inline]
            #[target_feature(enable = "avx2")]
            unsafe fn movemask_pair(a: $v, b: $v) -> u64 {
                let lo = $movemask(a) as u64;
                let hi = $movemask(b) as u64;
                lo | (hi << $lanes)
            }
        }
    )*};
}

// type => vector, lanes, splat, load, compare, and, or, zero, movemask
float_lanes! {
    f32 => __m256,  8, _mm256_set1_ps, _mm256_loadu_ps, _mm256_cmp_ps,
           _mm256_and_ps, _mm256_or_ps, _mm256_setzero_ps, _mm256_movemask_ps;
    f64 => __m256d, 4, _mm256_set1_pd, _mm256_loadu_pd, _mm256_cmp_pd,
           _mm256_and_pd, _mm256_or_pd, _mm256_setzero_pd, _mm256_movemask_pd;
}

/// Copies a partial trailing block into a full one; the padding values'
/// result bits are masked off by the caller.
#[inline]
fn padded_block<T: Copy + Default>(tail: &[T]) -> [T; WORD_BITS] {
    let mut block = [T::default(); WORD_BITS];
    block[..tail.len()].copy_from_slice(tail);
    block
}

/// Runs `$block(ptr...) -> u64` over every 64-value block of the inputs,
/// writing one word per block into `$out`. A macro rather than a generic
/// helper taking a closure, so the per-block code is certain to be compiled
/// inside the AVX2 caller.
macro_rules! for_each_block {
    ($out:expr, [$($input:expr),+], |$($ptr:ident),+| $block:expr) => {{
        let out: &mut [u64] = $out;
        let len = [$($input.len()),+][0];
        let full = len / WORD_BITS;
        for (w, word) in out[..full].iter_mut().enumerate() {
            $(let $ptr = $input[w * WORD_BITS..][..WORD_BITS].as_ptr();)+
            *word = $block;
        }
        if len % WORD_BITS != 0 {
            $(let $ptr = padded_block(&$input[full * WORD_BITS..]);)+
            $(let $ptr = $ptr.as_ptr();)+
            out[full] = $block & tail_mask(len);
        }
    }};
}

/// `values[i] <OP> rhs` into `out` (one word per 64 values).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn cmp_scalar<T: Lanes, const OP: u8>(values: &[T], rhs: T, out: &mut [u64]) {
    let rhs = T::splat(rhs);
    for_each_block!(out, [values], |p| {
        let mut word = 0u64;
        let mut i = 0;
        while i < WORD_BITS {
            // SAFETY (loads): `p` points at 64 readable values and
            // `i + 2 * LANES <= 64`.
            let a = T::cmp::<OP>(T::load(p.add(i)), rhs);
            let b = T::cmp::<OP>(T::load(p.add(i + T::LANES)), rhs);
            word |= T::movemask_pair(a, b) << i;
            i += 2 * T::LANES;
        }
        if T::negated(OP) {
            !word
        } else {
            word
        }
    });
}

/// `lhs[i] <OP> rhs[i]` into `out`.
///
/// # Safety
/// The CPU must support AVX2 and `lhs.len() == rhs.len()`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn cmp_columns<T: Lanes, const OP: u8>(lhs: &[T], rhs: &[T], out: &mut [u64]) {
    debug_assert_eq!(lhs.len(), rhs.len());
    for_each_block!(out, [lhs, rhs], |pl, pr| {
        let mut word = 0u64;
        let mut i = 0;
        while i < WORD_BITS {
            // SAFETY (loads): both pointers address 64 readable values and
            // `i + 2 * LANES <= 64`.
            let a = T::cmp::<OP>(T::load(pl.add(i)), T::load(pr.add(i)));
            let b = T::cmp::<OP>(T::load(pl.add(i + T::LANES)), T::load(pr.add(i + T::LANES)));
            word |= T::movemask_pair(a, b) << i;
            i += 2 * T::LANES;
        }
        if T::negated(OP) {
            !word
        } else {
            word
        }
    });
}

/// `lo <= values[i] <= hi` into `out`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn between<T: Lanes>(values: &[T], lo: T, hi: T, out: &mut [u64]) {
    let (lo, hi) = (T::splat(lo), T::splat(hi));
    for_each_block!(out, [values], |p| {
        let mut word = 0u64;
        let mut i = 0;
        while i < WORD_BITS {
            // SAFETY (loads): `p` points at 64 readable values and
            // `i + 2 * LANES <= 64`.
            let a = T::between(T::load(p.add(i)), lo, hi);
            let b = T::between(T::load(p.add(i + T::LANES)), lo, hi);
            word |= T::movemask_pair(a, b) << i;
            i += 2 * T::LANES;
        }
        if T::BETWEEN_NEGATED {
            !word
        } else {
            word
        }
    });
}

/// Most list entries the linear IN kernel accepts (its needle registers live
/// in a fixed stack array).
pub(crate) const MAX_LINEAR_NEEDLES: usize = 32;

/// `values[i] IN list` by OR-ing one vector equality per list entry.
///
/// # Safety
/// The CPU must support AVX2 and `list.len() <= MAX_LINEAR_NEEDLES`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn in_list_linear<T: Lanes>(values: &[T], list: &[T], out: &mut [u64]) {
    debug_assert!(list.len() <= MAX_LINEAR_NEEDLES);
    debug_assert!(!T::negated(EQ), "equality is exact for every type");
    let mut splats = [T::zero(); MAX_LINEAR_NEEDLES];
    for (splat, &needle) in splats.iter_mut().zip(list) {
        *splat = T::splat(needle);
    }
    let needles = &splats[..list.len()];
    for_each_block!(out, [values], |p| {
        let mut word = 0u64;
        let mut i = 0;
        while i < WORD_BITS {
            // SAFETY (loads): `p` points at 64 readable values and
            // `i + 2 * LANES <= 64`.
            let (a, b) = (T::load(p.add(i)), T::load(p.add(i + T::LANES)));
            let (mut hit_a, mut hit_b) = (T::zero(), T::zero());
            for &needle in needles {
                hit_a = T::or(hit_a, T::cmp::<EQ>(a, needle));
                hit_b = T::or(hit_b, T::cmp::<EQ>(b, needle));
            }
            word |= T::movemask_pair(hit_a, hit_b) << i;
            i += 2 * T::LANES;
        }
        word
    });
}
