//! The build keys of a hash join as a bitmap ([`KeyBitmap`]) or a Bloom
//! filter ([`KeyBloom`]), and the filter that hands them to the scan of the
//! join's probe side ([`JoinKeyFilter`]), which drops rows without a match
//! before copying them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use arrow_array::BooleanArray;
use arrow_buffer::BooleanBuffer;
use quiver_common::Result;

use crate::hash::{int_key, key_span, mix, KeyColumn};

/// The keys of a hash join's build side, for the scan on its probe side: a
/// probe row whose key is not among them cannot match an inner or semi
/// join, so the scan drops it with its other filters, before it copies the
/// rows that pass (TPC-H Q7: 1.8 million lineitem rows in the date range,
/// of which the 8 % of two nations' suppliers go on). The probe side runs
/// after the build, so the keys are there by its first batch; until they
/// are, or when the build keys are not one integer or are dense, every row
/// may match.
///
/// A filter that lets nearly every row through only costs: the scan tests
/// the first [`SAMPLE_ROWS`] rows, and stops testing when more than
/// 7 in 8 of them passed (an unfiltered `orders` against `lineitem`).
#[derive(Debug, Default)]
pub struct JoinKeyFilter {
    keys: OnceLock<Option<BuildKeys>>,
    tested: AtomicU64,
    passed: AtomicU64,
}

/// Rows tested before the filter judges whether it pays.
const SAMPLE_ROWS: u64 = 1 << 16;

/// The build keys as the probe scan tests them: exactly, by a bitmap over
/// their range while that range is small; past it, by a Bloom filter sized
/// from how many keys there are, so that the filter keeps working however
/// wide the keys spread (TPC-H's order keys span 6 million per scale
/// factor: a bitmap cap let Q3's 9.7 million lineitem rows through at SF3).
#[derive(Debug, Clone)]
pub(crate) enum BuildKeys {
    Exact(Arc<KeyBitmap>),
    Approximate(Arc<KeyBloom>),
}

impl BuildKeys {
    /// The filter for `keys` (one integer key of `rows` build rows), when
    /// one pays: `exact` is the bitmap the join's index already holds.
    pub(crate) fn for_probe_scan(
        keys: &[KeyColumn],
        rows: usize,
        exact: Option<Arc<KeyBitmap>>,
    ) -> Option<BuildKeys> {
        if let Some(bits) = exact {
            return Some(BuildKeys::Exact(bits));
        }
        match KeyShape::of(keys, rows)? {
            KeyShape::Narrow { min, range } => {
                KeyBitmap::fill(keys, min, range).map(|b| BuildKeys::Exact(Arc::new(b)))
            }
            KeyShape::Wide { keys: n } => {
                KeyBloom::build(keys, n).map(|b| BuildKeys::Approximate(Arc::new(b)))
            }
        }
    }
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
        let Some(Some(build)) = self.keys.get() else {
            return Ok(all());
        };
        let tested = self.tested.load(Ordering::Relaxed);
        if tested >= SAMPLE_ROWS && self.passed.load(Ordering::Relaxed) * 8 > tested * 7 {
            return Ok(all());
        }
        let keys = [key()?];
        let Some((values, nulls)) = int_key(&keys) else {
            return Ok(all());
        };
        let values = &values[..rows];
        let mut found = match build {
            BuildKeys::Exact(b) => mask_of(values, |k| b.contains(k)),
            BuildKeys::Approximate(b) => mask_of(values, |k| b.may_contain(k)),
        };
        if let Some(n) = nulls {
            found = &found & n.inner();
        }
        if tested < SAMPLE_ROWS {
            self.tested.fetch_add(rows as u64, Ordering::Relaxed);
            self.passed
                .fetch_add(found.count_set_bits() as u64, Ordering::Relaxed);
        }
        Ok(BooleanArray::new(found, None))
    }

    /// Hands the probe side the build keys (None: no filter pays).
    pub(crate) fn publish(&self, keys: Option<BuildKeys>) {
        let _ = self.keys.set(keys);
    }
}

/// The bits of `test` over `values`, one output word per 64 keys: an
/// explicit loop per word, so the test inlines into a body without
/// branches whatever the surrounding code (the same source compiled through
/// `collect_bool` swung by 15 % between builds on TPC-H Q17's scan).
#[inline(always)]
fn mask_of(values: &[i64], test: impl Fn(i64) -> bool) -> BooleanBuffer {
    let (chunks, rest) = values.as_chunks::<64>();
    let mut words: Vec<u64> = Vec::with_capacity(values.len().div_ceil(64));
    for chunk in chunks {
        let mut w = 0u64;
        for (j, &k) in chunk.iter().enumerate() {
            w |= (test(k) as u64) << j;
        }
        words.push(w);
    }
    if !rest.is_empty() {
        let mut w = 0u64;
        for (j, &k) in rest.iter().enumerate() {
            w |= (test(k) as u64) << j;
        }
        words.push(w);
    }
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, values.len())
}

/// How one integer build key spreads: over a range small enough for a
/// bitmap, or wider; None when no filter pays (not one integer key, no key,
/// or keys dense in their range).
enum KeyShape {
    Narrow { min: i64, range: u64 },
    Wide { keys: usize },
}

impl KeyShape {
    fn of(keys: &[KeyColumn], rows: usize) -> Option<KeyShape> {
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
        if range < rows as u128 * BITMAP_BITS_PER_KEY as u128 {
            return None;
        }
        Some(if range <= BITMAP_MAX_BITS as u128 {
            KeyShape::Narrow {
                min,
                range: range as u64,
            }
        } else {
            KeyShape::Wide {
                keys: rows - nulls.map_or(0, |n| n.null_count()),
            }
        })
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
        match KeyShape::of(keys, rows)? {
            KeyShape::Narrow { min, range } => KeyBitmap::fill(keys, min, range),
            KeyShape::Wide { .. } => None,
        }
    }

    /// The bitmap of `keys`, which lie in `min .. min + range`.
    fn fill(keys: &[KeyColumn], min: i64, range: u64) -> Option<KeyBitmap> {
        let (values, nulls) = int_key(keys)?;
        let valid = |j: usize| nulls.is_none_or(|n| n.is_valid(j));
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

/// The build keys as a Bloom filter of one 64-bit word per key's block
/// (a blocked Bloom filter, after Putze, Sanders and Singler): a test loads
/// one word, at most one cache miss, and checks four bits of it. Sized at
/// [`BLOOM_BITS_PER_KEY`] bits per build key, its false positives stay near
/// half a percent however many keys there are, and it grows with the build
/// side's key count, not its key range: 2 bytes a key, an eighth of what
/// the join's index holds per row, so it rides on the index's reservation.
#[derive(Debug)]
pub(crate) struct KeyBloom {
    words: Vec<u64>,
}

/// Bits per build key: a false-positive rate near 0.5 % with four bits set
/// per key in one word (measured by the test below).
const BLOOM_BITS_PER_KEY: usize = 16;

impl KeyBloom {
    /// The filter of `keys` (one integer key of which `count` are not NULL).
    pub(crate) fn build(keys: &[KeyColumn], count: usize) -> Option<KeyBloom> {
        let (values, nulls) = int_key(keys)?;
        let n_words = (count * BLOOM_BITS_PER_KEY).div_ceil(64).max(1);
        let mut bloom = KeyBloom {
            words: vec![0u64; n_words],
        };
        for (j, &k) in values.iter().enumerate() {
            if nulls.is_none_or(|n| n.is_valid(j)) {
                let (word, bits) = bloom.position(k);
                bloom.words[word] |= bits;
            }
        }
        Some(bloom)
    }

    /// The word of `k` (by the hash's high half, scaled to the word count
    /// without a division) and its four bits (by four 6-bit fields of the
    /// low half).
    #[inline(always)]
    fn position(&self, k: i64) -> (usize, u64) {
        let h = mix(k as u64);
        let word = (((h >> 32) * self.words.len() as u64) >> 32) as usize;
        let bits = (1u64 << (h & 63))
            | (1u64 << ((h >> 6) & 63))
            | (1u64 << ((h >> 12) & 63))
            | (1u64 << ((h >> 18) & 63));
        (word, bits)
    }

    /// False when `k` is surely not a build key.
    #[inline(always)]
    pub(crate) fn may_contain(&self, k: i64) -> bool {
        let (word, bits) = self.position(k);
        self.words[word] & bits == bits
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

    /// Every build key passes the Bloom filter (no false negatives), and
    /// of keys not among them about half a percent do, at every size.
    #[test]
    fn bloom_keeps_every_build_key_and_few_others() {
        let mut state = 5;
        for n in [1usize, 10, 1000, 100_000] {
            let build: Vec<Option<i64>> = (0..n)
                .map(|i| (i % 50 != 7).then(|| (lcg(&mut state) << 20) as i64 | 1))
                .collect();
            let count = build.iter().flatten().count();
            let bloom = KeyBloom::build(&int_keys(&build), count).unwrap();
            assert!(build.iter().flatten().all(|&k| bloom.may_contain(k)));
            // Even keys: never a build key.
            let probes = 200_000;
            let false_positives = (0..probes)
                .filter(|_| bloom.may_contain((lcg(&mut state) as i64) << 1))
                .count();
            assert!(
                false_positives * 100 < probes,
                "{n} keys: {false_positives} of {probes} false positives"
            );
        }
    }

    /// Past the bitmap's range cap the probe scan gets a Bloom filter sized
    /// by the key count; dense keys get none.
    #[test]
    fn wide_sparse_keys_get_a_bloom_filter() {
        let wide: Vec<Option<i64>> = (0..10_000).map(|i| Some(i * 10_000)).collect();
        let keys = int_keys(&wide);
        assert!(KeyBitmap::build(&keys, wide.len()).is_none());
        assert!(matches!(
            BuildKeys::for_probe_scan(&keys, wide.len(), None),
            Some(BuildKeys::Approximate(_))
        ));
        let narrow: Vec<Option<i64>> = (0..100).map(|i| Some(i * 1000)).collect();
        assert!(matches!(
            BuildKeys::for_probe_scan(&int_keys(&narrow), 100, None),
            Some(BuildKeys::Exact(_))
        ));
        let dense: Vec<Option<i64>> = (0..100_000).map(|i| Some(i * 2)).collect();
        assert!(BuildKeys::for_probe_scan(&int_keys(&dense), 100_000, None).is_none());
    }

    /// A filter that passes more than 7 rows in 8 of its sample stops
    /// testing: afterwards every row passes, matching or not.
    #[test]
    fn a_filter_that_drops_almost_nothing_switches_itself_off() {
        let build: Vec<Option<i64>> = (0..100).map(|i| Some(i * 1000)).collect();
        let filter = JoinKeyFilter::default();
        filter.publish(BuildKeys::for_probe_scan(&int_keys(&build), 100, None));
        let batch = |keys: Vec<Option<i64>>| {
            let n = keys.len();
            filter
                .may_match(n, || Ok(int_keys(&keys).remove(0)))
                .unwrap()
        };
        let misses = batch(vec![Some(1), Some(2000)]);
        assert_eq!(misses.true_count(), 1, "a miss is dropped while sampling");
        let mut sampled = 0;
        while sampled < SAMPLE_ROWS as usize {
            let hits: Vec<Option<i64>> = (0..4096).map(|i| Some(i % 100 * 1000)).collect();
            assert_eq!(batch(hits).true_count(), 4096);
            sampled += 4096;
        }
        assert_eq!(batch(vec![Some(1), Some(2000)]).true_count(), 2);
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
