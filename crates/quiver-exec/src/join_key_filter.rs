//! A hash join's build keys handed to the scan of its probe side
//! ([`JoinKeyFilter`]), as a bitmap of the integer keys that occur
//! ([`KeyBitmap`], which the join's index also uses to sift probe rows).
//! Its own module because both the scan's filters (`expr`) and the join
//! (`operators::hash_join`) use it.

use std::sync::{Arc, OnceLock};

use arrow_array::BooleanArray;
use arrow_buffer::BooleanBuffer;

use crate::hash::{KeyColumn, KeyValues};

/// The keys of a hash join's build side, for the scan on its probe side: a
/// probe row whose key is not among them cannot match an inner or semi
/// join, so the scan drops it with its other filters, before it copies the
/// rows that pass (TPC-H Q7: 1.8 million lineitem rows in the date range,
/// of which the 8 % of two nations' suppliers go on). The probe side runs
/// after the build, so the keys are there by its first batch; until they
/// are, or when the build keys do not fit a bitmap, every row may match.
#[derive(Debug, Default)]
pub struct JoinKeyFilter {
    bits: OnceLock<Option<Arc<KeyBitmap>>>,
}

impl JoinKeyFilter {
    /// Which of the `rows` probe rows may find a match, by their join key
    /// `key` (the probe key evaluated over their batch).
    pub(crate) fn may_match(&self, key: &KeyColumn, rows: usize) -> BooleanArray {
        let all = || BooleanArray::new(BooleanBuffer::new_set(rows), None);
        let Some(Some(bits)) = self.bits.get() else {
            return all();
        };
        let Some((values, nulls)) = int_key(std::slice::from_ref(key)) else {
            return all();
        };
        let mut found = BooleanBuffer::collect_bool(rows, |i| bits.contains(values[i]));
        if let Some(n) = nulls {
            found = &found & n.inner();
        }
        BooleanArray::new(found, None)
    }

    /// Hands the build side's keys over (None: they fit no bitmap, every
    /// row may match); the first call wins.
    pub(crate) fn publish(&self, bits: Option<Arc<KeyBitmap>>) {
        let _ = self.bits.set(bits);
    }
}

/// Which integer keys occur on the build side: bit `k - min` of `words`.
/// TPC-H's selective joins (204 parts of 200,000 in Q17) probe millions of
/// rows of which few match: a bit test without a branch sifts them, where a
/// hash probe per row mispredicts on every other bucket.
#[derive(Debug)]
pub(crate) struct KeyBitmap {
    pub(crate) min: i64,
    pub(crate) words: Vec<u64>,
}

/// At most this many bits (1 MiB: at most an L2 cache of these cores, and
/// still far fewer cache misses than a chained table of the same keys) ...
pub(crate) const BITMAP_MAX_BITS: u64 = 1 << 23;

/// ... and at least this many per build key: a dense key range (every
/// order of lineitem) gains nothing from sifting.
pub(crate) const BITMAP_BITS_PER_KEY: u64 = 4;

impl KeyBitmap {
    pub(crate) fn build(keys: &[KeyColumn], rows: usize) -> Option<KeyBitmap> {
        let (values, nulls) = int_key(keys)?;
        let valid = |j: usize| nulls.is_none_or(|n| n.is_valid(j));
        let (mut min, mut max) = (i64::MAX, i64::MIN);
        for (j, &k) in values.iter().enumerate() {
            if valid(j) {
                min = min.min(k);
                max = max.max(k);
            }
        }
        if min > max {
            return None;
        }
        let range = key_span(min, max);
        if range > BITMAP_MAX_BITS as u128 || range < rows as u128 * BITMAP_BITS_PER_KEY as u128 {
            return None;
        }
        let range = range as u64;
        let mut words = vec![0u64; range.div_ceil(64) as usize];
        for (j, &k) in values.iter().enumerate() {
            if valid(j) {
                let b = (k - min) as u64;
                words[(b >> 6) as usize] |= 1 << (b & 63);
            }
        }
        Some(KeyBitmap { min, words })
    }

    #[inline(always)]
    pub(crate) fn contains(&self, k: i64) -> bool {
        let b = k.wrapping_sub(self.min) as u64;
        let word = self.words.get((b >> 6) as usize).copied().unwrap_or(0);
        (word >> (b & 63)) & 1 == 1
    }

    /// The rows of `values` whose key occurs, in order (NULL rows may be
    /// among them: their values are arbitrary).
    pub(crate) fn sift(&self, values: &[i64]) -> Vec<u32> {
        let mut rows = vec![0u32; values.len()];
        let mut found = 0;
        for (i, &k) in values.iter().enumerate() {
            // Written always, kept when found: no branch per row.
            rows[found] = i as u32;
            found += self.contains(k) as usize;
        }
        rows.truncate(found);
        rows
    }

    pub(crate) fn memory_size(&self) -> usize {
        self.words.len() * 8
    }
}

/// A single integer key with no per-row conversion needed.
pub(crate) fn int_key(keys: &[KeyColumn]) -> Option<(&[i64], Option<&arrow_buffer::NullBuffer>)> {
    match keys {
        [KeyColumn {
            values: KeyValues::Int(v),
            nulls,
            ..
        }] => Some((v.as_slice(), nulls.as_ref())),
        _ => None,
    }
}

/// How many integers `min ..= max` holds: 0 when `min > max` (no key), up
/// to 2^64 for the whole i64 range, which a u64 cannot count (a wrapped 0
/// once sized an empty direct table that was then indexed).
pub(crate) fn key_span(min: i64, max: i64) -> u128 {
    (max as i128 - min as i128 + 1).max(0) as u128
}
