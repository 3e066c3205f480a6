//! The build keys of a hash join as a bitmap ([`KeyBitmap`]), and the
//! filter that hands them to the scan of the join's probe side
//! ([`JoinKeyFilter`]), which drops rows without a match before copying them.

use std::sync::{Arc, OnceLock};

use arrow_array::BooleanArray;
use arrow_buffer::BooleanBuffer;
use quiver_common::Result;

use crate::hash::{int_key, key_span, KeyColumn};

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
    /// Which of a batch's `rows` may find a match, by the probe key that
    /// `key` computes (called only once the build keys are known).
    pub(crate) fn may_match(
        &self,
        rows: usize,
        key: impl FnOnce() -> Result<KeyColumn>,
    ) -> Result<BooleanArray> {
        let all = || BooleanArray::new(BooleanBuffer::new_set(rows), None);
        let Some(Some(bits)) = self.bits.get() else {
            return Ok(all());
        };
        let keys = [key()?];
        let Some((values, nulls)) = int_key(&keys) else {
            return Ok(all());
        };
        let mut found = BooleanBuffer::collect_bool(rows, |i| bits.contains(values[i]));
        if let Some(n) = nulls {
            found = &found & n.inner();
        }
        Ok(BooleanArray::new(found, None))
    }

    /// Hands the probe side the build keys (None: they fit no bitmap).
    pub(crate) fn publish(&self, bits: Option<Arc<KeyBitmap>>) {
        let _ = self.bits.set(bits);
    }
}

/// Which integer keys occur on the build side: bit `k - min` of `words`,
/// whose last word is always zero: a key out of range reads it, so that a
/// test is a load and a shift, with no branch whose cost would depend on
/// how the compiler lays out the probe loop.
/// TPC-H's selective joins (204 parts of 200,000 in Q17) probe millions of
/// rows of which few match: a bit test without a branch sifts them, where a
/// hash probe per row mispredicts on every other bucket.
#[derive(Debug)]
pub(crate) struct KeyBitmap {
    min: i64,
    words: Vec<u64>,
}

/// At most this many bits (1 MiB: at most an L2 cache of these cores, and
/// still far fewer cache misses than a chained table of the same keys) ...
const BITMAP_MAX_BITS: u64 = 1 << 23;
/// ... and at least this many per build key: a dense key range (every
/// order of lineitem) gains nothing from sifting.
const BITMAP_BITS_PER_KEY: u64 = 4;

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
        let mut words = vec![0u64; range.div_ceil(64) as usize + 1];
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
        // Past the range (below `min` too: the subtraction wrapped), the
        // zero word; `words` is never empty.
        let i = ((b >> 6) as usize).min(self.words.len() - 1);
        let word = self.words[i];
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Int64Array};

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    fn int_keys(values: &[Option<i64>]) -> Vec<KeyColumn> {
        let a: ArrayRef = Arc::new(Int64Array::from(values.to_vec()));
        vec![KeyColumn::collated(&a, quiver_plan::default_collation()).unwrap()]
    }

    #[test]
    fn sifted_rows_are_those_a_scan_of_the_build_keys_finds() {
        let mut state = 7;
        for round in 0..50 {
            let span = 1 + lcg(&mut state) % 100_000;
            let base = (lcg(&mut state) % 1000) as i64 - 500;
            let build: Vec<Option<i64>> = (0..1 + round * 7)
                .map(|_| {
                    let k = base + (lcg(&mut state) % span) as i64;
                    (!lcg(&mut state).is_multiple_of(10)).then_some(k)
                })
                .collect();
            let probe: Vec<i64> = (0..3000)
                .map(|_| base - 50 + (lcg(&mut state) % (span + 100)) as i64)
                .chain([i64::MIN, i64::MAX, base - 1])
                .collect();
            let keys = int_keys(&build);
            let Some(bits) = KeyBitmap::build(&keys, build.len()) else {
                continue;
            };
            let want: Vec<u32> = probe
                .iter()
                .enumerate()
                .filter(|(_, k)| build.contains(&Some(**k)))
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(bits.sift(&probe), want, "round {round}");
        }
    }

    #[test]
    fn a_bitmap_only_for_a_sparse_small_range_of_one_integer_key() {
        let sparse: Vec<Option<i64>> = (0..100).map(|i| Some(i * 1000)).collect();
        assert!(KeyBitmap::build(&int_keys(&sparse), 100).is_some());
        let dense: Vec<Option<i64>> = (0..100).map(|i| Some(i * 2)).collect();
        assert!(KeyBitmap::build(&int_keys(&dense), 100).is_none());
        let wide = vec![Some(0), Some(1 << 40)];
        assert!(KeyBitmap::build(&int_keys(&wide), 2).is_none());
        let nulls = vec![None, None];
        assert!(KeyBitmap::build(&int_keys(&nulls), 2).is_none());
    }
}
