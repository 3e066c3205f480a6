//! MIN and MAX of strings under a collation.
//!
//! With no GROUP BY the whole batch feeds one slot, and the kernel is a scan
//! for the batch's best row. Where the collation has prefix keys
//! ([`Collator::prefix_key_of_head`]) the scan goes by blocks of rows: each
//! row's first byte is ranked by a table (the top byte of its prefix key)
//! without a branch and tested against the best row's, and only rows whose
//! rank could beat or tie the best's are tested on their whole prefix key
//! and, on a tie, compared in full. Most rows cost one byte load and a
//! table lookup, the same under PAD SPACE and NO PAD.

use arrow_array::{Array, BinaryArray};
use arrow_buffer::NullBuffer;
use quiver_collation::Collator;

use super::first_seen::Position;

/// Rows whose prefix keys are tested together (one bit each in a word).
const BLOCK: usize = 64;

/// MIN (`min`) or MAX of the strings of `s` into the slots of their groups
/// `ids`, with the compare monomorphized per collation. A group's best
/// value so far is only copied when a row beats it (ties keep the value
/// seen first, as MariaDB). With `first` (positions by group, and the
/// batch's position) the position of each value kept is noted.
pub(super) fn min_max_strs<C: Collator>(
    k: C,
    s: &BinaryArray,
    ids: &[u32],
    nulls: Option<&NullBuffer>,
    vals: &mut [Option<Vec<u8>>],
    min: bool,
    mut first: Option<(&mut [Position], Position)>,
) {
    let beats = |x: &[u8], cur: &[u8]| {
        let o = k.compare(x, cur);
        if min {
            o.is_lt()
        } else {
            o.is_gt()
        }
    };
    let valid = |i: usize| nulls.is_none_or(|n| n.is_valid(i));
    // Whether `x` was stored.
    let store = |slot: &mut Option<Vec<u8>>, x: &[u8]| match slot {
        Some(cur) => {
            let b = beats(x, cur);
            if b {
                cur.clear();
                cur.extend_from_slice(x);
            }
            b
        }
        None => {
            *slot = Some(x.to_vec());
            true
        }
    };
    if vals.len() == 1 && !ids.is_empty() {
        // One group over the batch (every id is 0, the only slot): find
        // the batch's best row, then compare it with the slot once.
        let best = if min {
            best_row::<C, true>(k, s, nulls)
        } else {
            best_row::<C, false>(k, s, nulls)
        };
        if let Some(b) = best {
            if store(&mut vals[0], s.value(b)) {
                if let Some((f, at)) = first {
                    f[0] = at;
                }
            }
        }
        return;
    }
    match &mut first {
        None => {
            for (i, g) in ids.iter().enumerate() {
                if valid(i) {
                    store(&mut vals[*g as usize], s.value(i));
                }
            }
        }
        Some((f, at)) => {
            for (i, g) in ids.iter().enumerate() {
                if valid(i) && store(&mut vals[*g as usize], s.value(i)) {
                    f[*g as usize] = *at;
                }
            }
        }
    }
}

/// The row of `s` holding its smallest (`MIN`) or largest value under the
/// collation, the first such row where several are equal; None when every
/// row is NULL.
pub(super) fn best_row<C: Collator, const MIN: bool>(
    k: C,
    s: &BinaryArray,
    nulls: Option<&NullBuffer>,
) -> Option<usize> {
    let n = s.len();
    let offsets = s.value_offsets();
    let data = s.value_data();
    let mut best = Best::<C, MIN> {
        k,
        s,
        row: None,
        key: None,
        bytes: None,
    };
    let valid = |i: usize| nulls.is_none_or(|v| v.is_valid(i));
    let ranks = FirstRanks::of(k);
    // Whether a value starting with each byte may beat the best, and an
    // empty value, for the best's first rank `sieve_rank`: remade only when
    // the best's first rank changes, which is rare after the first rows.
    let mut sieve = [false; 256];
    let mut sieve_empty = false;
    let mut sieve_rank: Option<i16> = None;
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        match (&ranks, best.key) {
            (Some(ranks), Some((bk, _))) => {
                // The best's first rank is its key's top byte.
                let br = (bk >> 56) as i16;
                if sieve_rank != Some(br) {
                    // A rank on the losing side of the best's loses whatever
                    // follows; a byte without a rank (-1) is compared.
                    let may_beat = |r: i16| (r < 0) | if MIN { r <= br } else { r >= br };
                    for (m, &r) in sieve.iter_mut().zip(&ranks.byte) {
                        *m = may_beat(r);
                    }
                    sieve_empty = may_beat(ranks.empty);
                    sieve_rank = Some(br);
                }
                let mut candidates = 0u64;
                for (j, w) in offsets[start..=end].windows(2).enumerate() {
                    let (at, next) = (w[0] as usize, w[1] as usize);
                    let first = data.get(at).map_or(0, |b| *b);
                    let candidate = if at == next {
                        sieve_empty
                    } else {
                        sieve[first as usize]
                    };
                    candidates |= u64::from(candidate) << j;
                }
                while candidates != 0 {
                    let i = start + candidates.trailing_zeros() as usize;
                    candidates &= candidates - 1;
                    // Most candidates repeat the best value itself: a byte
                    // test, the same under every collation, passes them over.
                    if valid(i) && !best.repeated_at(i) {
                        best.offer(i);
                    }
                }
            }
            _ => {
                for i in start..end {
                    if valid(i) && !best.repeated_at(i) {
                        best.offer(i);
                    }
                }
            }
        }
        start = end;
    }
    best.row
}

/// Each first byte's rank under a collation with prefix keys: the top byte
/// of the key of a value starting with it, which is a function of that
/// byte alone (ASCII, case-folded under `_ci`). Where two values' first
/// ranks differ they compare as their ranks, whatever follows (these
/// collations weigh character by character, and the first character
/// differs), so one byte load rules most rows out. -1: no rank (a byte
/// that starts a multibyte or invalid character).
struct FirstRanks {
    byte: [i16; 256],
    /// The empty string's: the padding's under PAD SPACE, else the least.
    empty: i16,
}

impl FirstRanks {
    fn of<C: Collator>(k: C) -> Option<FirstRanks> {
        if !C::PREFIX_KEYS {
            return None;
        }
        let rank = |head: u64, len: usize| {
            k.prefix_key_of_head(head, len)
                .map_or(-1, |key| (key >> 56) as i16)
        };
        let mut byte = [-1; 256];
        for (b, r) in byte.iter_mut().enumerate() {
            *r = rank(b as u64, 1);
        }
        Some(FirstRanks {
            byte,
            empty: rank(0, 0),
        })
    }
}

/// The best row so far of [`best_row`], with its prefix key and length,
/// and its bytes when they fit a word.
struct Best<'a, C, const MIN: bool> {
    k: C,
    s: &'a BinaryArray,
    row: Option<usize>,
    key: Option<(u64, usize)>,
    bytes: Option<(u64, usize)>,
}

impl<C: Collator, const MIN: bool> Best<'_, C, MIN> {
    /// Whether row `i` holds exactly the best's bytes, so cannot beat it
    /// (ties keep the first); false when that is not cheap to tell.
    #[inline(always)]
    fn repeated_at(&self, i: usize) -> bool {
        self.bytes.is_some() && short_bytes_at(self.s, i) == self.bytes
    }

    fn take(&mut self, i: usize, key: Option<(u64, usize)>) {
        self.row = Some(i);
        self.key = key;
        self.bytes = short_bytes_at(self.s, i);
    }

    /// Takes row `i` (not NULL) when it beats the best so far.
    #[inline]
    fn offer(&mut self, i: usize) {
        let xk = if C::PREFIX_KEYS {
            prefix_key_at(self.k, self.s, i)
        } else {
            None
        };
        let Some(b) = self.row else {
            self.take(i, xk);
            return;
        };
        if let (Some((bk, blen)), Some((xk, xlen))) = (self.key, xk) {
            if xk != bk {
                // Keys that differ decide.
                if (xk < bk) == MIN {
                    self.take(i, Some((xk, xlen)));
                }
                return;
            }
            if xlen == blen && xlen <= 8 {
                // The same value: the first stays.
                return;
            }
        }
        let o = self.k.compare(self.s.value(i), self.s.value(b));
        if if MIN { o.is_lt() } else { o.is_gt() } {
            self.take(i, xk);
        }
    }
}

/// Row `i`'s bytes as a little-endian word (zero above its length) and
/// its length, when it has at most 8 bytes and 8 can be loaded from where
/// it starts; None otherwise.
#[inline(always)]
fn short_bytes_at(s: &BinaryArray, i: usize) -> Option<(u64, usize)> {
    let offsets = s.value_offsets();
    let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
    let len = end.wrapping_sub(start);
    if len > 8 {
        return None;
    }
    let w = s.value_data().get(start..start + 8)?;
    let mask = if len == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * len)) - 1
    };
    Some((u64::from_le_bytes(w.try_into().ok()?) & mask, len))
}

/// Row `i`'s [`Collator::prefix_key_of_head`] and length, its first bytes
/// loaded as one word from the values buffer (bytes past the value are
/// ignored by the key).
#[inline(always)]
fn prefix_key_at<C: Collator>(k: C, s: &BinaryArray, i: usize) -> Option<(u64, usize)> {
    let offsets = s.value_offsets();
    let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
    let len = end.saturating_sub(start);
    let key = match s.value_data().get(start..start + 8) {
        Some(w) => k.prefix_key_of_head(u64::from_le_bytes(w.try_into().ok()?), len),
        // The last few bytes of the buffer.
        None => k.prefix_key(s.value(i)),
    };
    key.map(|key| (key, len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use quiver_collation::{with_collator, Collation};

    /// The plain definition: the first row that no later row beats.
    fn reference<C: Collator>(k: C, v: &[Option<Vec<u8>>], min: bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, x) in v.iter().enumerate() {
            let Some(x) = x else { continue };
            let better = match best {
                None => true,
                Some(b) => {
                    let o = k.compare(x, v[b].as_deref().unwrap());
                    if min {
                        o.is_lt()
                    } else {
                        o.is_gt()
                    }
                }
            };
            if better {
                best = Some(i);
            }
        }
        best
    }

    fn coll(name: &str) -> Collation {
        Collation::from_name(name).unwrap()
    }

    fn check(coll: Collation, v: &[Option<Vec<u8>>]) {
        let s = BinaryArray::from(v.iter().map(|x| x.as_deref()).collect::<Vec<_>>());
        let nulls = s.nulls().cloned();
        with_collator!(coll, |k| {
            for min in [true, false] {
                let want = reference(k, v, min);
                let got = if min {
                    best_row::<_, true>(k, &s, nulls.as_ref())
                } else {
                    best_row::<_, false>(k, &s, nulls.as_ref())
                };
                assert_eq!(got, want, "{coll:?} min={min} {v:?}");
            }
        });
    }

    /// Values near each other in every way that matters to prefix keys:
    /// shared 8-byte heads with tails that decide, trailing spaces and
    /// tabs, case, NUL bytes, empty strings, NULLs, and now and then a
    /// multibyte or invalid UTF-8 value (which has no key).
    fn value() -> impl Strategy<Value = Option<Vec<u8>>> {
        let head = prop::sample::select(vec![
            &b""[..],
            b"a",
            b"A",
            b"zzzzzzzz",
            b"ZZZZZZZZ",
            b"abcdefg",
        ]);
        let piece =
            prop::sample::select(vec![&b"a"[..], b"A", b"b", b" ", b"  ", b"\t", b"\0", b"z"]);
        let odd = prop::sample::select(vec![
            "é".as_bytes(),
            "ß".as_bytes(),
            b"\xff",
            "Z\u{301}".as_bytes(),
        ]);
        let tail = prop::collection::vec(piece, 0..4).prop_map(|p| p.concat());
        let ascii = (head, tail).prop_map(|(h, t)| [h, &t[..]].concat());
        let other = (ascii.clone(), odd).prop_map(|(a, o)| [&a[..], o].concat());
        prop::option::weighted(0.9, prop_oneof![20 => ascii, 1 => other])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn best_row_is_the_plain_fold(v in prop::collection::vec(value(), 0..300)) {
            for name in [
                "utf8mb4_bin",
                "utf8mb4_nopad_bin",
                "utf8mb4_general_ci",
                "utf8mb4_general_nopad_ci",
                "utf8mb4_unicode_ci",
                "latin1_swedish_ci",
                "binary",
            ] {
                check(coll(name), &v);
            }
        }
    }

    #[test]
    fn blocks_after_a_long_run_of_losers() {
        // Many blocks of values that lose on their keys, then a late winner
        // equal to the best only under PAD SPACE, then a real winner.
        let mut v: Vec<Option<Vec<u8>>> = (0..1000)
            .map(|i| Some(format!("m{:07}", i % 97).into_bytes()))
            .collect();
        v[3] = Some(b"zz".to_vec());
        v[500] = Some(b"zz  ".to_vec());
        v[700] = Some(b"zz\t".to_vec());
        v[900] = Some(b"a".to_vec());
        for name in ["utf8mb4_bin", "utf8mb4_nopad_bin", "utf8mb4_general_ci"] {
            check(coll(name), &v);
        }
    }
}
