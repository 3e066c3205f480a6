//! `value IN (list)` into a packed selection mask.
//!
//! Short lists are scanned linearly: one SIMD equality per list entry, OR-ed
//! together while a 64-value block sits in registers, so the column is read
//! once whatever the list length. Past [`Isa::linear_in_list_max`] entries
//! the per-value cost of a hash probe is lower than that of `len` compares,
//! and a hash set takes over.
//!
//! The hash set is a small open-addressing table of 64-bit keys written
//! here: std's `HashSet` would hash each probe with SipHash, which costs
//! several times more than the multiplicative hash below.

use arrow_buffer::BooleanBuffer;

use crate::bitmask::{into_boolean_buffer, word_count, WORD_BITS};
use crate::compare::portable::{self, pack_bytes};
use crate::compare::CmpNative;
use crate::isa::Isa;

#[cfg(target_arch = "x86_64")]
use crate::compare::avx2;

/// Most list entries [`InListStrategy::Linear`] accepts.
pub const LINEAR_IN_LIST_LIMIT: usize = 32;

/// How [`Isa::in_list_with`] evaluates the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InListStrategy {
    /// One equality pass per entry, OR-ed (at most [`LINEAR_IN_LIST_LIMIT`] entries).
    Linear,
    /// One hash-set probe per value (ISA-independent).
    Hashed,
}

impl InListStrategy {
    /// The strategy [`Isa::in_list`] picks for a list of `len` `T`s.
    pub fn for_list<T: CmpNative>(isa: Isa, len: usize) -> InListStrategy {
        if len <= isa.linear_in_list_max::<T>() {
            InListStrategy::Linear
        } else {
            InListStrategy::Hashed
        }
    }
}

impl Isa {
    /// Longest list of `T`s that [`in_list`] scans linearly on this ISA;
    /// longer lists are hashed.
    ///
    /// Measured with `examples/filter_bench.rs` on 16M values (AMD EPYC):
    /// a hash probe costs ~2-2.5 ns/value whatever the list length or type.
    /// The AVX2 scan stays under that through the 32-entry limit (i32 ~0.8,
    /// i64 ~1.7 ns/value at 32). The portable scan adds ~0.13 ns per entry
    /// for 4-byte values (crossing at ~12-16 entries) but ~0.5 ns for 8-byte
    /// ones, as baseline x86_64 (SSE2) has no 64-bit vector compare.
    pub fn linear_in_list_max<T: CmpNative>(self) -> usize {
        match self {
            Isa::Avx2 => LINEAR_IN_LIST_LIMIT,
            Isa::Portable if std::mem::size_of::<T>() >= 8 => 4,
            Isa::Portable => 12,
        }
    }
}

/// `values[i] IN list` for every `i` (SQL `IN` without NULLs in the list),
/// using the active ISA. An empty list matches nothing; NaN matches nothing.
pub fn in_list<T: CmpNative>(values: &[T], list: &[T]) -> BooleanBuffer {
    Isa::active().in_list(values, list)
}

impl Isa {
    /// [`in_list`] on this ISA's code path.
    ///
    /// # Panics
    /// If this CPU does not support `self`.
    pub fn in_list<T: CmpNative>(self, values: &[T], list: &[T]) -> BooleanBuffer {
        self.in_list_with(
            values,
            list,
            InListStrategy::for_list::<T>(self, list.len()),
        )
    }

    /// [`in_list`] with an explicit strategy (for benchmarks and tests).
    ///
    /// # Panics
    /// If this CPU does not support `self`, or if `strategy` is
    /// [`InListStrategy::Linear`] and the list is longer than
    /// [`LINEAR_IN_LIST_LIMIT`].
    pub fn in_list_with<T: CmpNative>(
        self,
        values: &[T],
        list: &[T],
        strategy: InListStrategy,
    ) -> BooleanBuffer {
        self.assert_supported();
        let mut words = vec![0u64; word_count(values.len())];
        match strategy {
            InListStrategy::Linear => {
                assert!(
                    list.len() <= LINEAR_IN_LIST_LIMIT,
                    "linear IN list takes at most {LINEAR_IN_LIST_LIMIT} entries, got {}",
                    list.len()
                );
                match self {
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 => {
                        const _: () = assert!(LINEAR_IN_LIST_LIMIT <= avx2::MAX_LINEAR_NEEDLES);
                        // SAFETY: `assert_supported` checked for AVX2 and the
                        // list length was checked against the kernel's limit.
                        unsafe { avx2::in_list_linear(values, list, &mut words) }
                    }
                    _ => portable::in_list_linear(values, list, &mut words),
                }
            }
            InListStrategy::Hashed => in_list_hashed(values, list, &mut words),
        }
        into_boolean_buffer(words, values.len())
    }
}

fn in_list_hashed<T: CmpNative>(values: &[T], list: &[T], out: &mut [u64]) {
    let set = KeySet::new(list.iter().filter_map(|v| v.eq_key()), list.len());
    for (word, chunk) in out.iter_mut().zip(values.chunks(WORD_BITS)) {
        // Independent per-value probes into a byte array, packed afterwards,
        // rather than a serial chain of `word |= hit << i`.
        let mut hits = [0u8; WORD_BITS];
        for (hit, &v) in hits.iter_mut().zip(chunk) {
            *hit = u8::from(v.eq_key().is_some_and(|key| set.contains(key)));
        }
        *word = pack_bytes(&hits);
    }
}

/// Insert-only hash set of `u64` keys for IN lists: linear probing without
/// wrap-around, kept at most a quarter full.
///
/// Lookups never stop early: every lookup compares the same `probe_len`
/// slots from the key's home slot, `probe_len` being the longest probe any
/// insert needed (usually 1-3). That makes the probe loop's trip count the
/// same for every value, so its branch always predicts, where an
/// early-exit probe mispredicts on a good fraction of lookups.
struct KeySet {
    /// `0` marks an empty slot; the key `0` itself lives in `has_zero`.
    /// Holds `capacity + probe_len - 1` slots so windows never wrap.
    slots: Vec<u64>,
    /// `64 - log2(capacity)`: the hash keeps the product's top bits, which
    /// mix all input bits (Fibonacci hashing).
    shift: u32,
    probe_len: usize,
    has_zero: bool,
}

impl KeySet {
    /// 2^64 / golden ratio: spreads sequential keys evenly over the table.
    const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

    fn new(keys: impl Iterator<Item = u64>, expected: usize) -> KeySet {
        let capacity = (4 * expected).next_power_of_two().max(16);
        let mut set = KeySet {
            slots: vec![0; capacity],
            shift: 64 - capacity.trailing_zeros(),
            probe_len: 1,
            has_zero: false,
        };
        keys.for_each(|key| set.insert(key));
        // Pad so that every home slot has a full window after it.
        set.slots.resize(capacity + set.probe_len - 1, 0);
        set
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(Self::MULTIPLIER) >> self.shift) as usize
    }

    fn insert(&mut self, key: u64) {
        if key == 0 {
            self.has_zero = true;
            return;
        }
        let home = self.home(key);
        let mut i = home;
        loop {
            match self.slots.get(i).copied() {
                Some(k) if k == key => return,
                Some(0) => {
                    self.slots[i] = key;
                    break;
                }
                Some(_) => i += 1,
                // Ran off the end: grow instead of wrapping around.
                None => {
                    self.slots.push(key);
                    break;
                }
            }
        }
        self.probe_len = self.probe_len.max(i - home + 1);
    }

    #[inline]
    fn contains(&self, key: u64) -> bool {
        let home = self.home(key);
        let window = &self.slots[home..home + self.probe_len];
        let found = window
            .iter()
            .fold(false, |found, &slot| found | (slot == key));
        // Empty slots hold 0, so for key 0 only the flag is meaningful.
        if key == 0 {
            self.has_zero
        } else {
            found
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeySet;

    #[test]
    fn key_set_handles_zero_collisions_and_duplicates() {
        let keys = [0u64, 1, 2, 1, u64::MAX, 1 << 63, 17, 17];
        let set = KeySet::new(keys.iter().copied(), keys.len());
        for key in keys {
            assert!(set.contains(key), "{key}");
        }
        for key in [3u64, 4, 1 << 62, u64::MAX - 1] {
            assert!(!set.contains(key), "{key}");
        }
        let empty = KeySet::new(std::iter::empty(), 0);
        assert!(!empty.contains(0) && !empty.contains(5));
    }
}
