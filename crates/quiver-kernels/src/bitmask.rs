//! Packed-word helpers shared by the kernels.
//!
//! Kernels write one `u64` per 64 input values, bit `i` of word `w` being
//! value `64 * w + i`; that is exactly Arrow's LSB-first bitmap layout on
//! little-endian targets, so the words become a `BooleanBuffer` without a copy.
//! Bits past the logical length are always zero, so popcounts and
//! bit-iteration over whole words need no masking.

use arrow_buffer::{BooleanBuffer, Buffer};

/// Values per mask word.
pub(crate) const WORD_BITS: usize = 64;

/// Number of words needed for `len` bits.
#[inline]
pub(crate) fn word_count(len: usize) -> usize {
    len.div_ceil(WORD_BITS)
}

/// Mask selecting the low `len % 64` bits of the last word (all bits when the
/// length is a multiple of 64).
#[inline]
pub(crate) fn tail_mask(len: usize) -> u64 {
    match len % WORD_BITS {
        0 => u64::MAX,
        rem => (1u64 << rem) - 1,
    }
}

/// Wraps packed words as a `BooleanBuffer` of `len` bits (zero-copy).
#[inline]
pub(crate) fn into_boolean_buffer(mut words: Vec<u64>, len: usize) -> BooleanBuffer {
    debug_assert_eq!(words.len(), word_count(len));
    debug_assert!(words.last().is_none_or(|w| w & !tail_mask(len) == 0));
    if cfg!(target_endian = "big") {
        // Arrow bitmaps are byte-ordered LSB-first; a no-op on little-endian.
        words.iter_mut().for_each(|w| *w = w.to_le());
    }
    BooleanBuffer::new(Buffer::from_vec(words), 0, len)
}
