//! COUNT(DISTINCT x) of an integer-like `x` for all groups of a table at
//! once: one open-addressing set of (group, value) pairs, each pair inline
//! in its slot, and a running count per group.
//!
//! The general DISTINCT state keeps a hash set per group, of boxed values:
//! a group's set is a separate allocation, grows on its own, and a probe
//! reads its control bytes, then its value. With thousands of groups that
//! is a cache miss or two per row and a reallocation per growing group; here
//! a row is one probe into one flat table, with the slots of rows a little
//! ahead prefetched, as `IntTupleGroupMap` does for group keys. The pairs
//! are split into parts by value (see `PARTS`).

use crate::hash::{mix, prefetch};

/// Group of a free slot.
const EMPTY: u32 = u32::MAX;
/// How many rows ahead the slot is prefetched.
const PREFETCH_AHEAD: usize = 16;

#[derive(Debug, Clone, Copy)]
struct Slot {
    group: u32,
    value: i64,
}

const FREE: Slot = Slot {
    group: EMPTY,
    value: 0,
};

/// Parts the pairs are split into by their value's hash: a part's table
/// grows (and is rehashed) in cache, and the tables of two partitions merge
/// part by part, as a value stays in its part whatever its group's id.
const PART_BITS: u32 = 6;
const PARTS: usize = 1 << PART_BITS;

/// A part's slot of the pair of `group` and a value hashed to `h`.
#[inline(always)]
fn slot_hash(h: u64, group: u32) -> usize {
    mix(h ^ group as u64) as usize
}

#[inline(always)]
fn part_of(h: u64) -> usize {
    (h >> (64 - PART_BITS)) as usize
}

/// One part: open addressing, linear probing, at most half full.
#[derive(Debug)]
struct Part {
    slots: Vec<Slot>,
    pairs: usize,
}

impl Default for Part {
    fn default() -> Self {
        Part {
            slots: vec![FREE; 16],
            pairs: 0,
        }
    }
}

impl Part {
    fn reserve(&mut self, more: usize) {
        let need = (self.pairs + more) * 2;
        if need <= self.slots.len() {
            return;
        }
        let size = need.next_power_of_two();
        let old = std::mem::replace(&mut self.slots, vec![FREE; size]);
        let mask = size - 1;
        for s in old.into_iter().filter(|s| s.group != EMPTY) {
            let mut i = slot_hash(mix(s.value as u64), s.group) & mask;
            while self.slots[i].group != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// Adds the pair; whether it is new.
    #[inline(always)]
    fn insert(&mut self, at: usize, group: u32, value: i64) -> bool {
        let mask = self.slots.len() - 1;
        let mut s = at & mask;
        loop {
            let slot = &mut self.slots[s];
            if slot.group == EMPTY {
                *slot = Slot { group, value };
                self.pairs += 1;
                return true;
            }
            if slot.group == group && slot.value == value {
                return false;
            }
            s = (s + 1) & mask;
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct DistinctPairs {
    parts: Vec<Part>,
    /// Distinct values per group.
    pub(super) counts: Vec<i64>,
}

impl DistinctPairs {
    pub(super) fn resize(&mut self, groups: usize) {
        self.counts.resize(groups, 0);
    }

    /// Distinct pairs held.
    pub(super) fn pairs(&self) -> usize {
        self.parts.iter().map(|p| p.pairs).sum()
    }

    pub(super) fn memory_size(&self) -> usize {
        self.parts
            .iter()
            .map(|p| p.slots.capacity() * std::mem::size_of::<Slot>())
            .sum::<usize>()
            + self.counts.capacity() * 8
    }

    /// Adds the pairs (`groups[i]`, `values[i]`) of the rows `keep` says.
    pub(super) fn insert(&mut self, groups: &[u32], values: &[i64], keep: impl Fn(usize) -> bool) {
        if self.parts.is_empty() {
            self.parts.resize_with(PARTS, Part::default);
        }
        let hashes: Vec<u64> = values.iter().map(|v| mix(*v as u64)).collect();
        // Room in each part for every row to be new: no growth below.
        let mut rows = [0usize; PARTS];
        for h in &hashes {
            rows[part_of(*h)] += 1;
        }
        for (p, n) in self.parts.iter_mut().zip(rows) {
            p.reserve(n);
        }
        let at = |i: usize| slot_hash(hashes[i], groups[i]);
        for i in 0..groups.len() {
            if let Some(&h) = hashes.get(i + PREFETCH_AHEAD) {
                let part = &self.parts[part_of(h)];
                let s = at(i + PREFETCH_AHEAD) & (part.slots.len() - 1);
                prefetch(&part.slots[s]);
            }
            if keep(i) && self.parts[part_of(hashes[i])].insert(at(i), groups[i], values[i]) {
                self.counts[groups[i] as usize] += 1;
            }
        }
    }

    /// Adds `other`'s pairs, its group k being our `ids[k]`: part by part,
    /// each in cache.
    pub(super) fn merge(&mut self, other: DistinctPairs, ids: &[u32]) {
        if self.parts.is_empty() {
            self.parts.resize_with(PARTS, Part::default);
        }
        for (mine, theirs) in self.parts.iter_mut().zip(other.parts) {
            mine.reserve(theirs.pairs);
            for s in theirs.slots.into_iter().filter(|s| s.group != EMPTY) {
                let g = ids[s.group as usize];
                if mine.insert(slot_hash(mix(s.value as u64), g), g, s.value) {
                    self.counts[g as usize] += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Counts match a set of pairs, over batches, a merge and growth.
    #[test]
    fn counts_match_a_set_of_pairs() {
        let mut seed = 11u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) % n
        };
        let mut want: HashSet<(u32, i64)> = HashSet::new();
        let mut a = DistinctPairs::default();
        let mut b = DistinctPairs::default();
        let mut b_pairs = vec![];
        for round in 0..6 {
            let groups: Vec<u32> = (0..3000).map(|_| next(50) as u32).collect();
            let values: Vec<i64> = (0..3000)
                .map(|_| next(400) as i64 - 200 + i64::MIN * (next(9) == 0) as i64)
                .collect();
            let keep = |i: usize| i % 7 != 3;
            let t = if round % 2 == 0 { &mut a } else { &mut b };
            t.resize(50);
            t.insert(&groups, &values, keep);
            for i in (0..3000).filter(|i| keep(*i)) {
                if round % 2 == 0 {
                    want.insert((groups[i], values[i]));
                } else {
                    b_pairs.push((groups[i], values[i]));
                }
            }
        }
        // b's group g is a's group 49 - g.
        let ids: Vec<u32> = (0..50).rev().collect();
        a.merge(b, &ids);
        for (g, v) in b_pairs {
            want.insert((49 - g, v));
        }
        for g in 0..50u32 {
            let n = want.iter().filter(|p| p.0 == g).count() as i64;
            assert_eq!(a.counts[g as usize], n, "group {g}");
        }
    }
}
