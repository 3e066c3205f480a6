//! Portable kernels, written for LLVM's autovectorizer.
//!
//! A mask word is built in two steps, because each vectorizes well on its
//! own while the fused `word |= (pred(v) as u64) << i` loop does not (it
//! measured 3-6x slower for `u8`):
//! 1. evaluate the predicate over 64 values into 64 bytes of 0/1: a plain
//!    fixed-length loop that becomes packed compares plus narrowing packs;
//! 2. gather each 8 bytes into 8 bits with one multiply ([`pack_bytes`]).
//!
//! The predicate closures are inlined into each monomorphized loop, so there
//! is no per-value call.

use super::op::CmpOp;
use crate::bitmask::WORD_BITS;

type Bytes = [u8; WORD_BITS];

/// Packs 64 bytes, each 0 or 1, into a word (byte `i` -> bit `i`).
#[inline(always)]
pub(crate) fn pack_bytes(bytes: &Bytes) -> u64 {
    // With bytes b0..b7 (0/1) in a little-endian u64, multiplying by this
    // constant moves b_j to bit 56 + j; no two partial products share a bit,
    // so nothing carries and the top byte is exactly b7..b0.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut word = 0u64;
    for (k, group) in bytes.chunks_exact(8).enumerate() {
        let lanes = u64::from_le_bytes(group.try_into().expect("8-byte group"));
        word |= (lanes.wrapping_mul(GATHER) >> 56) << (8 * k);
    }
    word
}

/// Views a `chunks_exact(64)` item as an array so loops have a constant trip count.
#[inline(always)]
fn block<T>(chunk: &[T]) -> &[T; WORD_BITS] {
    chunk.try_into().expect("chunks_exact yields 64 values")
}

/// Copies a partial trailing block into a full one (padding value bits are
/// masked off by the caller), so the tail reuses the vectorized block code.
#[inline(always)]
fn padded<T: Copy + Default>(tail: &[T]) -> [T; WORD_BITS] {
    let mut block = [T::default(); WORD_BITS];
    block[..tail.len()].copy_from_slice(tail);
    block
}

#[inline(always)]
fn low_bits(len: usize) -> u64 {
    debug_assert!(len < WORD_BITS);
    (1u64 << len) - 1
}

/// `pred` over one block of 64 values.
#[inline(always)]
fn unary_word<T: Copy>(values: &[T; WORD_BITS], pred: &impl Fn(T) -> bool) -> u64 {
    let mut bytes: Bytes = [0; WORD_BITS];
    for (byte, &v) in bytes.iter_mut().zip(values) {
        *byte = u8::from(pred(v));
    }
    pack_bytes(&bytes)
}

/// Fills `out` (one word per 64 values) with `pred(values[i])`.
#[inline(always)]
fn fill_unary<T: Copy + Default>(values: &[T], out: &mut [u64], pred: impl Fn(T) -> bool) {
    let mut chunks = values.chunks_exact(WORD_BITS);
    for (word, chunk) in out.iter_mut().zip(&mut chunks) {
        *word = unary_word(block(chunk), &pred);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        out[out.len() - 1] = unary_word(&padded(tail), &pred) & low_bits(tail.len());
    }
}

/// `pred` over one block of 64 value pairs.
#[inline(always)]
fn binary_word<T: Copy>(
    lhs: &[T; WORD_BITS],
    rhs: &[T; WORD_BITS],
    pred: &impl Fn(T, T) -> bool,
) -> u64 {
    let mut bytes: Bytes = [0; WORD_BITS];
    for ((byte, &a), &b) in bytes.iter_mut().zip(lhs).zip(rhs) {
        *byte = u8::from(pred(a, b));
    }
    pack_bytes(&bytes)
}

/// Fills `out` with `pred(lhs[i], rhs[i])`; the slices have equal length.
#[inline(always)]
fn fill_binary<T: Copy + Default>(
    lhs: &[T],
    rhs: &[T],
    out: &mut [u64],
    pred: impl Fn(T, T) -> bool,
) {
    let mut lhs_chunks = lhs.chunks_exact(WORD_BITS);
    let mut rhs_chunks = rhs.chunks_exact(WORD_BITS);
    for (word, (l, r)) in out.iter_mut().zip((&mut lhs_chunks).zip(&mut rhs_chunks)) {
        *word = binary_word(block(l), block(r), &pred);
    }
    let (l, r) = (lhs_chunks.remainder(), rhs_chunks.remainder());
    if !l.is_empty() {
        out[out.len() - 1] = binary_word(&padded(l), &padded(r), &pred) & low_bits(l.len());
    }
}

pub(crate) fn cmp_scalar<T: Copy + Default + PartialOrd>(
    values: &[T],
    op: CmpOp,
    rhs: T,
    out: &mut [u64],
) {
    match op {
        CmpOp::Eq => fill_unary(values, out, |v| v == rhs),
        CmpOp::NotEq => fill_unary(values, out, |v| v != rhs),
        CmpOp::Lt => fill_unary(values, out, |v| v < rhs),
        CmpOp::LtEq => fill_unary(values, out, |v| v <= rhs),
        CmpOp::Gt => fill_unary(values, out, |v| v > rhs),
        CmpOp::GtEq => fill_unary(values, out, |v| v >= rhs),
    }
}

pub(crate) fn cmp_columns<T: Copy + Default + PartialOrd>(
    lhs: &[T],
    rhs: &[T],
    op: CmpOp,
    out: &mut [u64],
) {
    match op {
        CmpOp::Eq => fill_binary(lhs, rhs, out, |a, b| a == b),
        CmpOp::NotEq => fill_binary(lhs, rhs, out, |a, b| a != b),
        CmpOp::Lt => fill_binary(lhs, rhs, out, |a, b| a < b),
        CmpOp::LtEq => fill_binary(lhs, rhs, out, |a, b| a <= b),
        CmpOp::Gt => fill_binary(lhs, rhs, out, |a, b| a > b),
        CmpOp::GtEq => fill_binary(lhs, rhs, out, |a, b| a >= b),
    }
}

pub(crate) fn between<T: Copy + Default + PartialOrd>(values: &[T], lo: T, hi: T, out: &mut [u64]) {
    // `&` rather than `&&`: no short-circuit branch to block vectorization.
    fill_unary(values, out, |v| (lo <= v) & (v <= hi));
}

/// One block of `value IN list`: equality bytes OR-ed over the list while
/// the block is in L1, packed once at the end.
#[inline(always)]
fn in_list_word<T: Copy + PartialEq>(values: &[T; WORD_BITS], list: &[T]) -> u64 {
    let mut hits: Bytes = [0; WORD_BITS];
    for &needle in list {
        for (hit, &v) in hits.iter_mut().zip(values) {
            *hit |= u8::from(v == needle);
        }
    }
    pack_bytes(&hits)
}

/// IN-list by linear scan over the list for every 64-value block.
pub(crate) fn in_list_linear<T: Copy + Default + PartialEq>(
    values: &[T],
    list: &[T],
    out: &mut [u64],
) {
    let mut chunks = values.chunks_exact(WORD_BITS);
    for (word, chunk) in out.iter_mut().zip(&mut chunks) {
        *word = in_list_word(block(chunk), list);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        out[out.len() - 1] = in_list_word(&padded(tail), list) & low_bits(tail.len());
    }
}
