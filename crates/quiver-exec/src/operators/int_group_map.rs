//! Group ids for GROUP BY on one integer-like key (`KeyValues::Int`).
//!
//! Two indexes, both one memory access per row in the common case:
//! - direct: while the keys span a range not much wider than the number of
//!   groups (dense ids such as order or part keys, dates), `ids[key - base]`
//!   is the group. No hashing, and keys that arrive in order touch memory in
//!   order.
//! - hash: otherwise an open-addressing table with linear probing whose
//!   slots hold the key and its group id side by side. A batch is hashed
//!   first and the slots of rows a little ahead are prefetched while earlier
//!   rows are resolved.
//!
//! The map starts direct and switches to hashing when a batch would make the
//! range too wide; a hash index whose keys turn out dense after all (random
//! order: early batches spread wide) goes back to direct, checked each time
//! its number of keys doubles. NULL is a group of its own, kept
//! outside both indexes. Group ids are dense and in first-seen order.

use arrow_buffer::NullBuffer;

use crate::hash::{mix, prefetch};

/// Group id of a free slot or of a key without a group.
const EMPTY: u32 = u32::MAX;

/// How many rows ahead of the one being resolved the slot is prefetched.
const PREFETCH_AHEAD: usize = 16;

/// The direct index may always span this many keys (256 KiB of ids)...
const DIRECT_MIN_SPAN: i128 = 1 << 16;
/// ...or this many keys per group (64 bytes per group: a hash table takes
/// 26 to 51).
const DIRECT_SPAN_PER_GROUP: i128 = 16;

/// Direct indexes longer than this (1 MiB) prefetch.
const DIRECT_PREFETCH_FROM: usize = 1 << 18;

/// How many keys a direct index for `groups` groups may span.
fn direct_limit(groups: usize) -> i128 {
    DIRECT_MIN_SPAN.max(DIRECT_SPAN_PER_GROUP * groups as i128)
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: i64,
    id: u32,
}

const FREE: Slot = Slot { key: 0, id: EMPTY };

#[inline(always)]
fn hash(key: i64) -> u64 {
    mix(key as u64)
}

/// Appends the key of a new group and returns its id.
#[inline]
fn new_group(keys: &mut Vec<i64>, key: i64) -> u32 {
    let g = keys.len();
    assert!(g < EMPTY as usize, "too many groups");
    keys.push(key);
    g as u32
}

/// The id of the NULL group, created if needed.
#[inline]
fn null_group_id(keys: &mut Vec<i64>, null_group: &mut Option<u32>) -> u32 {
    match *null_group {
        Some(g) => g,
        None => {
            let g = new_group(keys, 0);
            *null_group = Some(g);
            g
        }
    }
}

/// Smallest and largest non-NULL value, if any.
fn value_range(values: &[i64], nulls: Option<&NullBuffer>) -> Option<(i64, i64)> {
    match nulls {
        None => {
            let lo = values.iter().copied().min()?;
            let hi = values.iter().copied().max()?;
            Some((lo, hi))
        }
        Some(b) => {
            let mut valid = values
                .iter()
                .enumerate()
                .filter(|(i, _)| b.is_valid(*i))
                .map(|(_, v)| *v);
            let first = valid.next()?;
            Some(valid.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
        }
    }
}

#[derive(Debug)]
enum Index {
    /// `ids[key - base]` is the group of `key`, for keys in
    /// `base .. base + ids.len()`.
    Direct {
        base: i64,
        ids: Vec<u32>,
    },
    Hash(HashIndex),
}

#[derive(Debug)]
struct HashIndex {
    slots: Vec<Slot>,
    mask: usize,
    /// Keys in the table that trigger growth.
    grow_at: usize,
    /// Keys in the table.
    len: usize,
    /// Smallest and largest key in the table.
    lo: i64,
    hi: i64,
    /// Keys in the table at which to check whether a direct index would do.
    recheck_at: usize,
}

impl HashIndex {
    fn with_capacity(keys: usize) -> HashIndex {
        let mut cap = 256;
        while Self::limit(cap) <= keys {
            cap *= 2;
        }
        HashIndex {
            slots: vec![FREE; cap],
            mask: cap - 1,
            grow_at: Self::limit(cap),
            len: 0,
            lo: i64::MAX,
            hi: i64::MIN,
            recheck_at: 2 * keys.max(1 << 10),
        }
    }

    /// Grow past 5/8 full: linear probing stays short (about 1.4 probes for
    /// a hit and 3.3 for a miss at that load).
    fn limit(cap: usize) -> usize {
        cap / 2 + cap / 8
    }

    #[inline(always)]
    fn prefetch(&self, h: u64) {
        prefetch(&self.slots[h as usize & self.mask]);
    }

    /// The group of `key` (whose hash is `h`), created if needed.
    #[inline(always)]
    fn find_or_insert(&mut self, key: i64, h: u64, keys: &mut Vec<i64>) -> u32 {
        let mut i = h as usize & self.mask;
        loop {
            let s = self.slots[i];
            if s.id == EMPTY {
                return self.insert_at(i, key, h, keys);
            }
            if s.key == key {
                return s.id;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Inserts `key`, known to be absent, whose probe ended at free slot `i`.
    #[inline(never)]
    fn insert_at(&mut self, mut i: usize, key: i64, h: u64, keys: &mut Vec<i64>) -> u32 {
        if self.len >= self.grow_at {
            self.grow();
            i = self.free_slot(h);
        }
        let g = new_group(keys, key);
        self.slots[i] = Slot { key, id: g };
        self.len += 1;
        self.lo = self.lo.min(key);
        self.hi = self.hi.max(key);
        g
    }

    /// Adds a key known to be absent with group `id`.
    fn insert_new(&mut self, key: i64, id: u32) {
        if self.len >= self.grow_at {
            self.grow();
        }
        let i = self.free_slot(hash(key));
        self.slots[i] = Slot { key, id };
        self.len += 1;
        self.lo = self.lo.min(key);
        self.hi = self.hi.max(key);
    }

    /// The first free slot on the probe path of hash `h`.
    #[inline]
    fn free_slot(&self, h: u64) -> usize {
        let mut i = h as usize & self.mask;
        while self.slots[i].id != EMPTY {
            i = (i + 1) & self.mask;
        }
        i
    }

    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![FREE; cap]);
        self.mask = cap - 1;
        self.grow_at = Self::limit(cap);
        for s in old.into_iter().filter(|s| s.id != EMPTY) {
            let i = self.free_slot(hash(s.key));
            self.slots[i] = s;
        }
    }
}

#[derive(Debug)]
pub(crate) struct IntGroupMap {
    index: Index,
    /// The key of every group by id; 0 for the NULL group.
    keys: Vec<i64>,
    null_group: Option<u32>,
    /// Scratch: hashes of the batch being resolved.
    hashes: Vec<u64>,
}

impl Default for IntGroupMap {
    fn default() -> Self {
        Self::new()
    }
}

impl IntGroupMap {
    pub(crate) fn new() -> IntGroupMap {
        IntGroupMap {
            index: Index::Direct {
                base: 0,
                ids: vec![],
            },
            keys: vec![],
            null_group: None,
            hashes: vec![],
        }
    }

    /// Number of groups, the NULL group included.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The key of every group by group id (0 for the NULL group).
    pub(crate) fn keys(&self) -> &[i64] {
        &self.keys
    }

    pub(crate) fn null_group(&self) -> Option<u32> {
        self.null_group
    }

    /// Validity of the keys by group id: everything but the NULL group.
    pub(crate) fn validity(&self) -> Vec<bool> {
        let mut v = vec![true; self.keys.len()];
        if let Some(g) = self.null_group {
            v[g as usize] = false;
        }
        v
    }

    pub(crate) fn memory_size(&self) -> usize {
        let index = match &self.index {
            Index::Direct { ids, .. } => ids.len() * 4,
            Index::Hash(h) => h.slots.len() * std::mem::size_of::<Slot>(),
        };
        index + self.keys.capacity() * 8
    }

    /// Whether groups are found by indexing with the key (dense keys).
    pub fn is_direct(&self) -> bool {
        matches!(self.index, Index::Direct { .. })
    }

    /// Groups in the index (all but the NULL group).
    fn indexed(&self) -> usize {
        self.keys.len() - self.null_group.is_some() as usize
    }

    /// Makes the direct index cover `lo ..= hi` if that keeps it narrow
    /// enough for `groups` groups; false if not.
    fn widen_direct(&mut self, lo: i64, hi: i64, groups: usize) -> bool {
        let Index::Direct { base, ids } = &mut self.index else {
            return false;
        };
        let len = ids.len() as i128;
        let (old_lo, old_hi) = (*base as i128, *base as i128 + len - 1);
        let (lo, hi) = (lo as i128, hi as i128);
        if len > 0 && old_lo <= lo && hi <= old_hi {
            return true;
        }
        let (new_lo, new_hi) = if len == 0 {
            (lo, hi)
        } else {
            (lo.min(old_lo), hi.max(old_hi))
        };
        let span = new_hi - new_lo + 1;
        // Grow by half at least, so that keys creeping upwards or downwards
        // batch after batch copy the index O(1) times per entry; the slack
        // goes to the side that grew.
        let want = span.max(len + len / 2);
        if want > direct_limit(groups) {
            return false;
        }
        let slack = want - span;
        let (down, up) = (len > 0 && new_lo < old_lo, len == 0 || new_hi > old_hi);
        let below = match (down, up) {
            (true, false) => slack,
            (true, true) => slack / 2,
            _ => 0,
        };
        let start = (new_lo - below)
            .max(i64::MIN as i128)
            .min(i64::MAX as i128 - want + 1);
        debug_assert!(start <= new_lo && new_hi < start + want);
        let mut next = vec![EMPTY; want as usize];
        if len > 0 {
            let at = (old_lo - start) as usize;
            next[at..at + ids.len()].copy_from_slice(ids);
        }
        *ids = next;
        *base = start as i64;
        true
    }

    /// Moves every group into a direct index if their keys, `lo ..= hi`,
    /// are dense enough.
    fn try_direct(&mut self, lo: i64, hi: i64) {
        let span = hi as i128 - lo as i128 + 1;
        if span > direct_limit(self.indexed()) {
            return;
        }
        let mut ids = vec![EMPTY; span as usize];
        for (g, k) in self.keys.iter().enumerate() {
            if Some(g as u32) != self.null_group {
                ids[k.wrapping_sub(lo) as u64 as usize] = g as u32;
            }
        }
        self.index = Index::Direct { base: lo, ids };
    }

    /// Moves every group into a hash index.
    fn switch_to_hash(&mut self, more: usize) {
        let mut h = HashIndex::with_capacity(self.indexed() + more.min(1 << 16));
        for (g, k) in self.keys.iter().enumerate() {
            if Some(g as u32) != self.null_group {
                h.insert_new(*k, g as u32);
            }
        }
        h.recheck_at = 2 * h.len.max(1 << 10);
        self.index = Index::Hash(h);
    }

    /// Appends to `out` the group ids of `values` (NULL where `nulls` says
    /// so), creating groups as needed.
    pub(crate) fn group_ids(
        &mut self,
        values: &[i64],
        nulls: Option<&NullBuffer>,
        out: &mut Vec<u32>,
    ) {
        let nulls = nulls.filter(|b| b.null_count() > 0);
        out.reserve(values.len());
        if let Index::Hash(t) = &mut self.index {
            if t.len >= t.recheck_at {
                t.recheck_at = 2 * t.len;
                let (lo, hi) = (t.lo, t.hi);
                self.try_direct(lo, hi);
            }
        }
        if matches!(self.index, Index::Direct { .. }) {
            if let Some((lo, hi)) = value_range(values, nulls) {
                if !self.widen_direct(lo, hi, self.indexed() + values.len()) {
                    self.switch_to_hash(values.len());
                }
            }
        }
        let IntGroupMap {
            index,
            keys,
            null_group,
            hashes,
        } = self;
        match index {
            Index::Direct { base, ids } => {
                let base = *base;
                // Every non-NULL value is in range: `widen_direct` saw them.
                #[inline(always)]
                fn resolve(ids: &mut [u32], base: i64, keys: &mut Vec<i64>, v: i64) -> u32 {
                    let slot = &mut ids[v.wrapping_sub(base) as u64 as usize];
                    if *slot == EMPTY {
                        *slot = new_group(keys, v);
                    }
                    *slot
                }
                // Beyond the L2 cache, keys out of order miss: prefetch ahead
                // (NULL rows may hold any value, hence `get`).
                let far = ids.len() > DIRECT_PREFETCH_FROM;
                let ahead = |ids: &[u32], i: usize| {
                    if let Some(v) = values.get(i + PREFETCH_AHEAD) {
                        if let Some(p) = ids.get(v.wrapping_sub(base) as u64 as usize) {
                            prefetch(p);
                        }
                    }
                };
                match nulls {
                    None if !far => {
                        for &v in values {
                            out.push(resolve(ids, base, keys, v));
                        }
                    }
                    None => {
                        for (i, &v) in values.iter().enumerate() {
                            ahead(ids, i);
                            out.push(resolve(ids, base, keys, v));
                        }
                    }
                    Some(b) => {
                        for (i, &v) in values.iter().enumerate() {
                            if far {
                                ahead(ids, i);
                            }
                            let g = if b.is_null(i) {
                                null_group_id(keys, null_group)
                            } else {
                                resolve(ids, base, keys, v)
                            };
                            out.push(g);
                        }
                    }
                }
            }
            Index::Hash(table) => {
                let n = values.len();
                hashes.clear();
                hashes.extend(values.iter().map(|k| hash(*k)));
                for &h in &hashes[..n.min(PREFETCH_AHEAD)] {
                    table.prefetch(h);
                }
                match nulls {
                    None => {
                        for i in 0..n {
                            if let Some(&h) = hashes.get(i + PREFETCH_AHEAD) {
                                table.prefetch(h);
                            }
                            out.push(table.find_or_insert(values[i], hashes[i], keys));
                        }
                    }
                    Some(b) => {
                        for i in 0..n {
                            if let Some(&h) = hashes.get(i + PREFETCH_AHEAD) {
                                table.prefetch(h);
                            }
                            let g = if b.is_null(i) {
                                null_group_id(keys, null_group)
                            } else {
                                table.find_or_insert(values[i], hashes[i], keys)
                            };
                            out.push(g);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// A fixed-seed xorshift generator: deterministic, no dependencies.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// The reference: a std HashMap handing out ids in first-seen order.
    #[derive(Default)]
    struct Model {
        ids: HashMap<Option<i64>, u32>,
        keys: Vec<Option<i64>>,
    }

    impl Model {
        fn id(&mut self, k: Option<i64>) -> u32 {
            let next = self.keys.len() as u32;
            *self.ids.entry(k).or_insert_with(|| {
                self.keys.push(k);
                next
            })
        }
    }

    /// Draws keys for one round of batches: a random distribution, around a
    /// random offset, sometimes with extreme values mixed in.
    struct Keys {
        mode: u64,
        domain: u64,
        offset: i64,
        extremes: bool,
        next: i64,
    }

    impl Keys {
        fn new(rng: &mut Rng, round: u64) -> Keys {
            let offsets = [0, -5000, i64::MIN, i64::MAX - 70_000, 1 << 40];
            Keys {
                mode: rng.below(4),
                domain: 1 + rng.below(1 << (4 + round % 18)),
                offset: offsets[rng.below(offsets.len() as u64) as usize],
                extremes: rng.below(3) == 0,
                next: 0,
            }
        }

        fn draw(&mut self, rng: &mut Rng) -> i64 {
            const SPECIAL: [i64; 7] = [i64::MIN, i64::MAX, 0, -1, 1, i64::MIN + 1, i64::MAX - 1];
            if self.extremes && rng.below(50) == 0 {
                return SPECIAL[rng.below(7) as usize];
            }
            let d = match self.mode {
                // Uniform over the domain.
                0 => rng.below(self.domain) as i64,
                // Increasing in runs, like a table sorted on its key.
                1 => {
                    self.next += rng.below(3) as i64;
                    self.next
                }
                // Sparse: a wide range, few keys.
                2 => (rng.below(self.domain) as i64) << 20,
                // Anything at all.
                _ => return rng.next() as i64,
            };
            self.offset.wrapping_add(d)
        }

        fn batch(&mut self, rng: &mut Rng, rows: usize) -> (Vec<i64>, Vec<bool>) {
            let values = (0..rows).map(|_| self.draw(rng)).collect();
            let valid = (0..rows).map(|_| rng.below(13) != 0).collect();
            (values, valid)
        }
    }

    #[test]
    fn matches_a_hashmap_model_across_many_batches() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut direct, mut hashed) = (0, 0);
        for round in 0..120 {
            let mut map = IntGroupMap::new();
            let mut model = Model::default();
            let mut keys = Keys::new(&mut rng, round);
            for _ in 0..25 {
                let rows = rng.below(3000) as usize;
                let (values, valid) = keys.batch(&mut rng, rows);
                let with_nulls = rng.below(2) == 0;
                let nulls = with_nulls.then(|| NullBuffer::from(valid.clone()));
                let mut got = vec![];
                map.group_ids(&values, nulls.as_ref(), &mut got);
                let want: Vec<u32> = values
                    .iter()
                    .zip(&valid)
                    .map(|(v, ok)| model.id((!with_nulls || *ok).then_some(*v)))
                    .collect();
                assert_eq!(got, want, "round {round}");
                assert_eq!(map.len(), model.keys.len());
            }
            let keys: Vec<Option<i64>> = map
                .keys()
                .iter()
                .zip(map.validity())
                .map(|(k, ok)| ok.then_some(*k))
                .collect();
            assert_eq!(keys, model.keys);
            assert_eq!(map.null_group(), model.ids.get(&None).copied());
            if map.is_direct() {
                direct += 1;
            } else {
                hashed += 1;
            }
        }
        assert!(
            direct > 20 && hashed > 20,
            "{direct} direct, {hashed} hashed"
        );
    }

    #[test]
    fn batch_boundaries_do_not_matter() {
        // The same keys in big batches (prefetching, index switches mid-way)
        // and one row at a time get the same ids.
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..12 {
            let mut keys = Keys::new(&mut rng, round * 3);
            let mut batched = IntGroupMap::new();
            let mut single = IntGroupMap::new();
            for _ in 0..8 {
                let rows = rng.below(20_000) as usize;
                let (values, valid) = keys.batch(&mut rng, rows);
                let nulls = NullBuffer::from(valid.clone());
                let mut got = vec![];
                batched.group_ids(&values, Some(&nulls), &mut got);
                let mut want = vec![];
                for (v, ok) in values.iter().zip(&valid) {
                    let one = NullBuffer::from(vec![*ok]);
                    single.group_ids(&[*v], Some(&one), &mut want);
                }
                assert_eq!(got, want);
            }
            assert_eq!(batched.keys(), single.keys());
        }
    }

    #[test]
    fn sorted_dense_keys_stay_direct_and_random_wide_keys_hash() {
        let mut map = IntGroupMap::new();
        let mut out = vec![];
        for b in 0..100i64 {
            // Every 8th key (TPC-H order keys are every 4th; a partition sees
            // about half of them), four rows each, in batches of 4096.
            let values: Vec<i64> = (0..4096).map(|i| (b * 4096 + i) / 4 * 8).collect();
            map.group_ids(&values, None, &mut out);
        }
        assert!(map.is_direct());
        assert_eq!(map.len(), 100 * 1024);
        let mut rng = Rng(7);
        let values: Vec<i64> = (0..4096).map(|_| rng.next() as i64).collect();
        map.group_ids(&values, None, &mut out);
        assert!(!map.is_direct());
        assert_eq!(map.len(), 100 * 1024 + 4096);
    }

    #[test]
    fn dense_keys_in_random_order_go_back_to_direct() {
        // The first batch spreads over a range too wide for its few groups;
        // once most keys have been seen the index is direct again.
        let mut rng = Rng(11);
        let mut map = IntGroupMap::new();
        let mut model = Model::default();
        let mut out = vec![];
        map.group_ids(&[0, 3_000_000], None, &mut out);
        model.id(Some(0));
        model.id(Some(3_000_000));
        assert!(!map.is_direct());
        for _ in 0..100 {
            let values: Vec<i64> = (0..16_384).map(|_| rng.below(3_000_000) as i64).collect();
            out.clear();
            map.group_ids(&values, None, &mut out);
            let want: Vec<u32> = values.iter().map(|v| model.id(Some(*v))).collect();
            assert!(out == want);
        }
        assert!(map.is_direct());
        assert_eq!(map.len(), model.keys.len());
    }

    #[test]
    fn creeping_sparse_keys_grow_the_direct_index_geometrically() {
        // Keys 15 apart, each batch above the last: the direct index keeps
        // growing until it is too sparse, never by copying it per batch.
        let mut map = IntGroupMap::new();
        let mut out = vec![];
        let mut copies = 0;
        let mut last = 0;
        for b in 0..400i64 {
            let values: Vec<i64> = (0..1000).map(|i| (b * 1000 + i) * 15).collect();
            map.group_ids(&values, None, &mut out);
            if let Index::Direct { ids, .. } = &map.index {
                copies += (ids.len() != last) as usize;
                last = ids.len();
            }
            assert!(map.memory_size() <= 16 * 4 * map.len() + (1 << 20));
        }
        assert_eq!(map.len(), 400_000);
        assert!(copies < 20, "{copies} resizes");
    }

    #[test]
    fn extremes_and_empty_batches() {
        let mut map = IntGroupMap::new();
        let mut out = vec![];
        map.group_ids(&[], None, &mut out);
        assert!(out.is_empty());
        let nulls = NullBuffer::from(vec![false, false]);
        map.group_ids(&[i64::MIN, 5], Some(&nulls), &mut out);
        assert_eq!(out, [0, 0]);
        assert!(map.is_direct());
        out.clear();
        map.group_ids(&[i64::MAX, i64::MAX - 3, i64::MAX], None, &mut out);
        assert_eq!(out, [1, 2, 1]);
        assert!(map.is_direct());
        out.clear();
        let values = [i64::MIN, i64::MAX, 0, i64::MIN, -1, 0, i64::MAX];
        map.group_ids(&values, None, &mut out);
        assert_eq!(out, [3, 1, 4, 3, 5, 4, 1]);
        assert!(!map.is_direct());
        out.clear();
        let nulls = NullBuffer::from(vec![false, true, false]);
        map.group_ids(&[i64::MIN, i64::MIN, 0], Some(&nulls), &mut out);
        assert_eq!(out, [0, 3, 0]);
        assert_eq!(map.null_group(), Some(0));
        assert_eq!(map.keys(), [0, i64::MAX, i64::MAX - 3, i64::MIN, 0, -1]);
        assert_eq!(map.validity(), [false, true, true, true, true, true]);
    }
}
