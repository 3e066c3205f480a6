//! Group ids for GROUP BY on two to four integer-like keys without NULLs
//! (`KeyValues::Int` each): `session_id, client_ip`, `l_orderkey,
//! o_orderdate, o_shippriority`.
//!
//! Keys that pack into one `i64` go to `IntGroupMap`; wider ones used to be
//! hashed row-wise, where a probe reads a control byte, then the group's
//! hash, then its stored key: three cache misses per row on a large table.
//! Here an open-addressing table with linear probing keeps each slot's key
//! tuple beside its group id, so that a probe touches one slot, and a batch
//! is hashed first so that the slots of rows a little ahead are prefetched.
//! Group ids are dense and in first-seen order. A batch with a NULL key
//! does not come here (the caller moves the groups to its general table).

use crate::hash::{mix, prefetch, KeyColumn, KeyValues};

/// Group id of a free slot.
const EMPTY: u32 = u32::MAX;
/// How many rows ahead of the one being resolved the slot is prefetched.
const PREFETCH_AHEAD: usize = 16;
/// Smallest table: 1,024 slots.
const MIN_SLOTS: usize = 1 << 10;

#[derive(Debug, Clone, Copy)]
struct Slot<const N: usize> {
    key: [i64; N],
    id: u32,
}

/// The table for tuples of `N` keys.
#[derive(Debug)]
pub struct TupleMap<const N: usize> {
    slots: Vec<Slot<N>>,
    /// Group g's key tuple, in first-seen order.
    keys: Vec<[i64; N]>,
}

#[inline(always)]
fn hash<const N: usize>(key: &[i64; N]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64;
    for k in key {
        h = mix(h ^ *k as u64);
    }
    h
}

impl<const N: usize> TupleMap<N> {
    fn new() -> Self {
        TupleMap {
            slots: vec![
                Slot {
                    key: [0; N],
                    id: EMPTY
                };
                MIN_SLOTS
            ],
            keys: Vec::new(),
        }
    }

    /// Doubles the slots while the table would be more than half full
    /// with `more` new groups.
    fn reserve(&mut self, more: usize) {
        let need = (self.keys.len() + more) * 2;
        if need <= self.slots.len() {
            return;
        }
        let size = need.next_power_of_two();
        self.slots = vec![
            Slot {
                key: [0; N],
                id: EMPTY
            };
            size
        ];
        let mask = size - 1;
        for (g, key) in self.keys.iter().enumerate() {
            let mut s = hash(key) as usize & mask;
            while self.slots[s].id != EMPTY {
                s = (s + 1) & mask;
            }
            self.slots[s] = Slot {
                key: *key,
                id: g as u32,
            };
        }
    }

    fn group_ids(&mut self, cols: &[&[i64]], rows: usize, ids: &mut Vec<u32>) {
        let tuple = |i: usize| -> [i64; N] { std::array::from_fn(|c| cols[c][i]) };
        // Room for every row to be new: no growth inside the loop.
        self.reserve(rows);
        let mask = self.slots.len() - 1;
        let hashes: Vec<usize> = (0..rows).map(|i| hash(&tuple(i)) as usize & mask).collect();
        for i in 0..rows {
            if let Some(&ahead) = hashes.get(i + PREFETCH_AHEAD) {
                prefetch(&self.slots[ahead]);
            }
            let key = tuple(i);
            let mut s = hashes[i];
            let id = loop {
                let slot = &mut self.slots[s];
                if slot.id == EMPTY {
                    let g = self.keys.len();
                    assert!(g < EMPTY as usize, "too many groups");
                    self.keys.push(key);
                    *slot = Slot { key, id: g as u32 };
                    break g as u32;
                }
                if slot.key == key {
                    break slot.id;
                }
                s = (s + 1) & mask;
            };
            ids.push(id);
        }
    }

    fn column(&self, c: usize) -> Vec<i64> {
        self.keys.iter().map(|k| k[c]).collect()
    }

    fn memory_size(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<N>>()
            + self.keys.capacity() * std::mem::size_of::<[i64; N]>()
    }
}

/// The map for one GROUP BY of 2, 3 or 4 integer keys.
#[derive(Debug)]
pub enum IntTupleGroupMap {
    Two(TupleMap<2>),
    Three(TupleMap<3>),
    Four(TupleMap<4>),
}

macro_rules! each {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            IntTupleGroupMap::Two($m) => $e,
            IntTupleGroupMap::Three($m) => $e,
            IntTupleGroupMap::Four($m) => $e,
        }
    };
}

impl IntTupleGroupMap {
    /// A map for `width` keys, if it takes that many.
    pub fn new(width: usize) -> Option<IntTupleGroupMap> {
        Some(match width {
            2 => IntTupleGroupMap::Two(TupleMap::new()),
            3 => IntTupleGroupMap::Three(TupleMap::new()),
            4 => IntTupleGroupMap::Four(TupleMap::new()),
            _ => return None,
        })
    }

    /// Appends the group id of each of the `rows` rows of `cols` (one slice
    /// per key, as many as the map's width) to `ids`.
    pub fn group_ids(&mut self, cols: &[&[i64]], rows: usize, ids: &mut Vec<u32>) {
        each!(self, m => m.group_ids(cols, rows, ids))
    }

    /// How many groups there are.
    pub fn groups(&self) -> usize {
        each!(self, m => m.keys.len())
    }

    /// Key `c` of every group, in group id order.
    pub fn column(&self, c: usize) -> Vec<i64> {
        each!(self, m => m.column(c))
    }

    pub fn memory_size(&self) -> usize {
        each!(self, m => m.memory_size())
    }

    /// The groups' keys as key columns (no NULLs, no collation), in group
    /// id order: what the general table takes them back as.
    pub fn key_columns(&self) -> Vec<KeyColumn> {
        let width = match self {
            IntTupleGroupMap::Two(_) => 2,
            IntTupleGroupMap::Three(_) => 3,
            IntTupleGroupMap::Four(_) => 4,
        };
        (0..width)
            .map(|c| KeyColumn {
                values: KeyValues::Int(self.column(c)),
                nulls: None,
                collation: None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The map against a plain HashMap over random tuples with many
    /// repeats, across batches and table growth.
    #[test]
    fn ids_are_dense_first_seen_and_consistent() {
        for width in 2..=4 {
            let mut m = IntTupleGroupMap::new(width).unwrap();
            let mut reference: HashMap<Vec<i64>, u32> = HashMap::new();
            let mut x = 12345u64;
            for batch in 0..20 {
                let rows = 3000 + batch * 17;
                let cols: Vec<Vec<i64>> = (0..width)
                    .map(|c| {
                        (0..rows)
                            .map(|_| {
                                x = mix(x.wrapping_add(c as u64 + 1));
                                // Few values per column: many repeated tuples,
                                // and negative values and extremes.
                                match x % 7 {
                                    0 => i64::MIN,
                                    1 => i64::MAX,
                                    _ => (x % 40) as i64 - 20,
                                }
                            })
                            .collect()
                    })
                    .collect();
                let slices: Vec<&[i64]> = cols.iter().map(|c| c.as_slice()).collect();
                let mut ids = Vec::new();
                m.group_ids(&slices, rows, &mut ids);
                for (i, id) in ids.iter().enumerate() {
                    let key: Vec<i64> = cols.iter().map(|c| c[i]).collect();
                    let next = reference.len() as u32;
                    assert_eq!(*reference.entry(key).or_insert(next), *id);
                }
            }
            assert_eq!(m.groups(), reference.len());
            for (key, id) in &reference {
                for (c, k) in key.iter().enumerate() {
                    assert_eq!(m.column(c)[*id as usize], *k);
                }
            }
        }
        assert!(IntTupleGroupMap::new(5).is_none());
    }
}
