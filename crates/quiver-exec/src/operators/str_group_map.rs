//! Groups of one string key: a hash table of group ids over the keys kept in
//! one byte arena.
//!
//! Against the general table this saves the per-row dispatch over key
//! columns and shapes. Under the default collation (utf8mb4_bin, PAD SPACE)
//! the row hash is computed straight from the value's bytes without trailing
//! spaces, and a probe compares bytes with the stored key; under any other
//! collation the loop is monomorphized per collation, hashing and comparing
//! with the collation's own `hash` and `eq` (for the `_ci` collations an
//! ASCII key is hashed as its uppercased words). A group keeps the spelling
//! it was first seen with (`'a '` after `'a'` joins `'a'`, `'A'` after `'a'`
//! under `_ci`), as the general table does. Binary strings are keys under
//! the `binary` collation (bytes, no padding) and come out as binary.

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, StringArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use hashbrown::HashTable;
use quiver_collation::{with_collator, Collation, Collator};
use quiver_common::types::trim_pad;
use quiver_common::{QuiverError, Result};

use crate::hash::hash_bytes;

#[derive(Debug, Default)]
pub struct StrGroupMap {
    table: HashTable<u32>,
    /// Hash of each group's key (trailing spaces removed), by group id.
    hashes: Vec<u64>,
    /// Keys as first seen, by group id: `bytes[offsets[g]..offsets[g + 1]]`.
    bytes: Vec<u8>,
    offsets: Vec<usize>,
    null_group: Option<u32>,
    /// The keys' collation when it is not the default.
    collation: Option<Collation>,
    /// Under an ASCII `_ci` collation: uppercased short ASCII keys (bytes,
    /// length) to their group (see `group_ids_collated`).
    short: hashbrown::HashMap<(u64, u8), u32>,
    /// A direct-mapped front of `short` (empty until used): slot by a
    /// multiplicative hash of the key, holding (bytes, length, group);
    /// length 0xFF marks an empty slot. A hit is one compare that predicts
    /// well, where the map's probe mispredicts on keys in random order.
    short_front: Vec<(u64, u8, u32)>,
}

const SHORT_FRONT_SLOTS: usize = 256;

/// The `short_front` slot of a short key.
#[inline(always)]
fn front_slot(key: (u64, u8)) -> usize {
    ((key.0 ^ u64::from(key.1)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize
}

/// Uppercases the ASCII letters of a word of ASCII bytes (every byte < 0x80).
#[inline(always)]
fn ascii_upper_word(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Per byte, bit 7 of (b + 0x80 - 'a') is set iff b >= 'a', and of
    // (b + 0x80 - 'z' - 1) iff b > 'z'; bytes are < 0x80, so no carries.
    let ge_a = w + ONES * (0x80 - u64::from(b'a'));
    let gt_z = w + ONES * (0x80 - u64::from(b'z') - 1);
    w - ((ge_a & !gt_z & (ONES * 0x80)) >> 2)
}

impl StrGroupMap {
    /// A map of keys under `collation` (`None`: the default collation).
    pub fn with_collation(collation: Option<Collation>) -> StrGroupMap {
        StrGroupMap {
            offsets: vec![0],
            collation,
            ..Default::default()
        }
    }

    /// The keys' collation, `None` for the default one.
    pub fn collation(&self) -> Option<Collation> {
        self.collation
    }

    /// The group of NULL keys, made on first use.
    fn null_group(&mut self) -> u32 {
        match self.null_group {
            Some(g) => g,
            None => {
                let g = self.push(b"", 0);
                self.null_group = Some(g);
                g
            }
        }
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn memory_size(&self) -> usize {
        self.bytes.capacity()
            + self.offsets.capacity() * 8
            + self.hashes.capacity() * 8
            + self.table.capacity() * 4
    }

    fn key(&self, g: u32) -> &[u8] {
        let g = g as usize;
        &self.bytes[self.offsets[g]..self.offsets[g + 1]]
    }

    fn push(&mut self, value: &[u8], hash: u64) -> u32 {
        let g = self.len() as u32;
        self.bytes.extend_from_slice(value);
        self.offsets.push(self.bytes.len());
        self.hashes.push(hash);
        g
    }

    /// Group ids of the first `rows` values of `s` (NULLs per `nulls`),
    /// appended to `out`; new groups are made as needed.
    pub fn group_ids(
        &mut self,
        s: &BinaryArray,
        nulls: Option<&NullBuffer>,
        rows: usize,
        out: &mut Vec<u32>,
    ) {
        self.group_ids_noting::<false>(s, nulls, rows, out, &mut vec![])
    }

    /// [`StrGroupMap::group_ids`], also noting in `spelled` per row whether
    /// it joined a group whose key has other bytes (another spelling under
    /// the collation).
    pub fn group_ids_spelled(
        &mut self,
        s: &BinaryArray,
        nulls: Option<&NullBuffer>,
        rows: usize,
        out: &mut Vec<u32>,
        spelled: &mut Vec<bool>,
    ) {
        self.group_ids_noting::<true>(s, nulls, rows, out, spelled)
    }

    fn group_ids_noting<const NOTE: bool>(
        &mut self,
        s: &BinaryArray,
        nulls: Option<&NullBuffer>,
        rows: usize,
        out: &mut Vec<u32>,
        spelled: &mut Vec<bool>,
    ) {
        if let Some(c) = self.collation {
            return with_collator!(c, |k| self
                .group_ids_collated::<_, NOTE>(k, s, nulls, rows, out, spelled));
        }
        let offsets = s.value_offsets();
        let data = s.value_data();
        out.reserve(rows);
        for i in 0..rows {
            if nulls.is_some_and(|n| n.is_null(i)) {
                let g = self.null_group();
                out.push(g);
                if NOTE {
                    spelled.push(false);
                }
                continue;
            }
            let value = &data[offsets[i] as usize..offsets[i + 1] as usize];
            let key = trim_pad(value);
            let h = hash_bytes(key);
            let found = self.table.find(h, |&g| {
                self.hashes[g as usize] == h && trim_pad(self.key(g)) == key
            });
            if NOTE {
                spelled.push(found.is_some_and(|&g| self.key(g) != value));
            }
            let g = match found {
                Some(&g) => g,
                None => {
                    let g = self.push(value, h);
                    let hashes = &self.hashes;
                    self.table.insert_unique(h, g, |&x| hashes[x as usize]);
                    g
                }
            };
            out.push(g);
        }
    }

    /// The group of a short ASCII key under an ASCII `_ci` collation, from
    /// `short` (see [`StrGroupMap::group_ids_collated`]); `None` when the
    /// value is not such a key or not seen yet. `value` starts at `at` in
    /// `data`.
    #[inline(always)]
    fn short_ascii_key<C: Collator>(data: &[u8], at: usize, value: &[u8]) -> Option<(u64, u8)> {
        if !C::ASCII_CI {
            return None;
        }
        let mut n = value.len();
        if C::PAD_SPACE {
            while n > 0 && value[n - 1] == b' ' {
                n -= 1;
            }
        }
        if n > 8 {
            return None;
        }
        // Eight bytes from the value's start when the buffer has them (the
        // bytes past the key masked off), else a copy.
        let word = match data.get(at..at + 8) {
            Some(w) if n > 0 => {
                let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
                w & (u64::MAX >> (64 - 8 * n))
            }
            _ => {
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(&value[..n]);
                u64::from_le_bytes(w)
            }
        };
        (word & 0x8080_8080_8080_8080 == 0).then(|| (ascii_upper_word(word), n as u8))
    }

    /// [`StrGroupMap::group_ids`] under collator `k`. Under the ASCII `_ci`
    /// collations (one character per ASCII byte, weighing as its upper
    /// case; only the space pads) an ASCII key of at most 8 bytes without
    /// trailing spaces is equal to exactly the keys with the same uppercased
    /// bytes, so `short` maps those bytes to the group the collation's own
    /// hash and eq found for them the first time: repeated short keys (ship
    /// modes, flags) skip hashing and comparing.
    fn group_ids_collated<C: Collator, const NOTE: bool>(
        &mut self,
        k: C,
        s: &BinaryArray,
        nulls: Option<&NullBuffer>,
        rows: usize,
        out: &mut Vec<u32>,
        spelled: &mut Vec<bool>,
    ) {
        let offsets = s.value_offsets();
        let data = s.value_data();
        out.reserve(rows);
        if C::ASCII_CI && self.short_front.is_empty() {
            self.short_front = vec![(0, 0xFF, 0); SHORT_FRONT_SLOTS];
        }
        for i in 0..rows {
            if nulls.is_some_and(|n| n.is_null(i)) {
                let g = self.null_group();
                out.push(g);
                if NOTE {
                    spelled.push(false);
                }
                continue;
            }
            let at = offsets[i] as usize;
            let value = &data[at..offsets[i + 1] as usize];
            let short = Self::short_ascii_key::<C>(data, at, value);
            if let Some(key) = short {
                let slot = front_slot(key);
                let (bytes, len, front) = self.short_front[slot];
                let g = if (bytes, len) == key {
                    Some(front)
                } else {
                    let g = self.short.get(&key).copied();
                    if let Some(g) = g {
                        self.short_front[slot] = (key.0, key.1, g);
                    }
                    g
                };
                if let Some(g) = g {
                    if NOTE {
                        spelled.push(self.key(g) != value);
                    }
                    out.push(g);
                    continue;
                }
            }
            let h = k.hash(value, 0);
            let found = self.table.find(h, |&g| {
                self.hashes[g as usize] == h
                    && Some(g) != self.null_group
                    && k.eq(self.key(g), value)
            });
            if NOTE {
                spelled.push(found.is_some_and(|&g| self.key(g) != value));
            }
            let g = match found {
                Some(&g) => g,
                None => {
                    let g = self.push(value, h);
                    let hashes = &self.hashes;
                    self.table.insert_unique(h, g, |&x| hashes[x as usize]);
                    g
                }
            };
            if let Some(key) = short {
                self.short.insert(key, g);
                self.short_front[front_slot(key)] = (key.0, key.1, g);
            }
            out.push(g);
        }
    }

    /// The key of group `g` as first seen; `None` for the NULL group.
    pub fn key_bytes(&self, g: usize) -> Option<&[u8]> {
        (self.null_group != Some(g as u32)).then(|| self.key(g as u32))
    }

    /// The keys by group id, NULL for the NULL group.
    pub fn keys(&self) -> Result<ArrayRef> {
        self.keys_patched(&[])
    }

    /// [`StrGroupMap::keys`] with the keys of groups `patches` (in group
    /// order) replaced by other bytes (equal under the collation: another
    /// spelling of the group).
    pub fn keys_patched(&self, patches: &[(usize, &[u8])]) -> Result<ArrayRef> {
        let (offsets, bytes) = splice(self.len(), |i| self.offsets[i], &self.bytes, patches)?;
        let nulls = self.null_group.map(|n| {
            let mut valid = vec![true; self.len()];
            valid[n as usize] = false;
            NullBuffer::from(valid)
        });
        let offsets = OffsetBuffer::new(offsets.into());
        if self.collation == Some(Collation::binary()) {
            return Ok(Arc::new(BinaryArray::new(offsets, bytes.into(), nulls)));
        }
        // Keys of text are whole UTF-8 values (checked).
        let a = StringArray::try_new(offsets, bytes.into(), nulls)
            .map_err(|e| QuiverError::internal(format!("string group keys: {e}")))?;
        Ok(Arc::new(a))
    }
}

/// Values `0..n` of a string column (value `i` is
/// `data[offset(i)..offset(i + 1)]`) with values `patches` (in row order)
/// replaced: the offsets (from 0) and bytes of an `i32` string array. Rows between patches are copied in
/// one piece.
pub(super) fn splice(
    n: usize,
    offset: impl Fn(usize) -> usize,
    data: &[u8],
    patches: &[(usize, &[u8])],
) -> Result<(Vec<i32>, Vec<u8>)> {
    let grow: usize = patches.iter().map(|(_, v)| v.len()).sum();
    let start = offset(0);
    let mut bytes: Vec<u8> = Vec::with_capacity(offset(n) - start + grow);
    let mut out: Vec<i32> = Vec::with_capacity(n + 1);
    out.push(0);
    let too_long = || QuiverError::internal("string keys of more than 2 GiB");
    // Rows `from..to` as they are.
    let run = |bytes: &mut Vec<u8>, out: &mut Vec<i32>, from: usize, to: usize| {
        if from >= to {
            return Ok(());
        }
        let (a, b) = (offset(from), offset(to));
        let shift = bytes.len() as i64 - a as i64;
        bytes.extend_from_slice(&data[a..b]);
        if bytes.len() > i32::MAX as usize {
            return Err(too_long());
        }
        out.extend((from + 1..=to).map(|i| (offset(i) as i64 + shift) as i32));
        Ok(())
    };
    let mut from = 0;
    for &(g, v) in patches {
        run(&mut bytes, &mut out, from, g)?;
        bytes.extend_from_slice(v);
        out.push(i32::try_from(bytes.len()).map_err(|_| too_long())?);
        from = g + 1;
    }
    run(&mut bytes, &mut out, from, n)?;
    Ok((out, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    fn bytes(s: &StringArray) -> BinaryArray {
        crate::bytes::byte_view(s).unwrap()
    }

    /// Binary keys group by their bytes (no padding, no case) and come out
    /// as binary, against a plain first-seen reference.
    #[test]
    fn binary_keys_group_by_bytes() {
        let words: [&[u8]; 7] = [b"a", b"a ", b"A", b"a\0", b"\xFF", b"", b"  "];
        let vals: Vec<Option<&[u8]>> = (0..200)
            .map(|i| (i % 11 != 3).then(|| words[(i * 5 + i / 9) % words.len()]))
            .collect();
        let s = BinaryArray::from(vals.clone());
        let mut m = StrGroupMap::with_collation(Some(Collation::binary()));
        let mut ids = vec![];
        m.group_ids(&s, s.nulls(), s.len(), &mut ids);
        let mut seen: Vec<Option<&[u8]>> = vec![];
        let want: Vec<u32> = vals
            .iter()
            .map(|v| match seen.iter().position(|x| x == v) {
                Some(g) => g as u32,
                None => {
                    seen.push(*v);
                    (seen.len() - 1) as u32
                }
            })
            .collect();
        assert_eq!(ids, want);
        let keys = m.keys().unwrap();
        assert_eq!(keys.as_ref(), &BinaryArray::from(seen) as &dyn Array);
    }

    #[test]
    fn pad_space_equal_keys_share_a_group_and_keep_the_first_spelling() {
        let s = StringArray::from(vec![
            Some("a"),
            Some("a "),
            None,
            Some(""),
            Some("a\t"),
            Some("  "),
            None,
            Some("b"),
        ]);
        let mut m = StrGroupMap::with_collation(None);
        let mut ids = vec![];
        let s = bytes(&s);
        m.group_ids(&s, s.nulls(), s.len(), &mut ids);
        assert_eq!(ids, vec![0, 0, 1, 2, 3, 2, 1, 4]);
        let keys = m.keys().unwrap();
        let want = StringArray::from(vec![Some("a"), None, Some(""), Some("a\t"), Some("b")]);
        assert_eq!(keys.as_ref(), &want as &dyn Array);
    }

    #[test]
    fn collated_keys_share_groups_under_their_collation() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let s = StringArray::from(vec![
            Some("Mail"),
            Some("MAIL "),
            None,
            Some("mail"),
            Some("ship"),
            Some("Éa"),
            Some("ea"),
            Some("mai\t"),
            Some(""),
        ]);
        let mut m = StrGroupMap::with_collation(Some(ci));
        let mut ids = vec![];
        let s = bytes(&s);
        m.group_ids(&s, s.nulls(), s.len(), &mut ids);
        assert_eq!(ids, vec![0, 0, 1, 0, 2, 3, 3, 4, 5]);
        // A second batch: short keys found through the uppercased-bytes map
        // join the groups of the first.
        let s2 = bytes(&StringArray::from(vec![
            "mAIL", "SHIP  ", "mai\t", "eA", "Mails",
        ]));
        let mut ids = vec![];
        m.group_ids(&s2, None, s2.len(), &mut ids);
        assert_eq!(ids, vec![0, 2, 4, 3, 6]);
        let mut ids = vec![];
        m.group_ids(&s2, None, s2.len(), &mut ids);
        assert_eq!(ids, vec![0, 2, 4, 3, 6]);
        let keys = m.keys().unwrap();
        let want = StringArray::from(vec![
            Some("Mail"),
            None,
            Some("ship"),
            Some("Éa"),
            Some("mai\t"),
            Some(""),
            Some("Mails"),
        ]);
        assert_eq!(keys.as_ref(), &want as &dyn Array);
    }
}
