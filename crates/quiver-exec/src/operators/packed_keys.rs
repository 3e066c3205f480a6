//! GROUP BY keys packed into one `i64`, so that short strings and key pairs
//! group through `IntGroupMap` (a direct array or open addressing with the key
//! inline) instead of hashing and comparing rows.
//!
//! A packed key must identify its group exactly and unpack to the value the
//! group shows. Strings pack as their bytes and length, so packed keys group
//! bytes. Under PAD SPACE `'a'` and `'a '` are one group, and byte equality
//! of strings without trailing spaces is exactly PAD SPACE equality: a table
//! of padding keys stays packed while no group has a trailing space, which is
//! checked once per new group ([`PackedLayout::spaced`]) rather than once per
//! row. A binary string (NO PAD: `'a'` and `'a '` differ) keeps its trailing
//! spaces, the length telling them apart. A batch that does not pack, or that
//! makes a spaced group, moves the table to the general path (the caller
//! handles that).

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, StringArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::DataType;

use quiver_common::{QuiverError, Result};

use crate::hash::{KeyColumn, KeyValues};

/// What one 32-bit half of a packed pair holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    /// An integer: in `[0, 2^31)` as the high half, `[0, 2^32)` as the low half.
    Int,
    /// A string of at most 3 bytes: its length in bits 24.., its bytes below.
    Str,
}

/// How the keys of one GROUP BY pack; fixed by the key types of the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackedLayout {
    /// One string key of at most 7 bytes (NULL allowed): the length in the
    /// top byte, the bytes below, little-endian.
    ShortStr,
    /// Two non-NULL keys, `high << 32 | low`.
    Pair(Half, Half),
}

const SHORT_STR_MAX: usize = 7;
const HALF_STR_MAX: usize = 3;

impl PackedLayout {
    /// The layout for keys of these types and shapes, if any.
    pub fn of(keys: &[KeyColumn], types: &[DataType]) -> Option<PackedLayout> {
        let half = |k: &KeyColumn, t: &DataType| match (&k.values, t) {
            (KeyValues::Int(_), _) => Some(Half::Int),
            (KeyValues::Str(_), DataType::Utf8 | DataType::Binary) => Some(Half::Str),
            _ => None,
        };
        match (keys, types) {
            // Packed keys compare bytes: only for collations that do (`*_bin`).
            _ if keys
                .iter()
                .any(|k| k.collation.is_some_and(|c| !c.is_binary_eq())) =>
            {
                None
            }
            ([k], [DataType::Utf8 | DataType::Binary]) if matches!(k.values, KeyValues::Str(_)) => {
                Some(PackedLayout::ShortStr)
            }
            ([a, b], [ta, tb]) => {
                let pair = (half(a, ta)?, half(b, tb)?);
                // Two integers are `IntGroupMap`'s own pair case, also packed here.
                Some(PackedLayout::Pair(pair.0, pair.1))
            }
            _ => None,
        }
    }

    /// The packed keys of the first `rows` rows, or `None` if some row does
    /// not fit this layout. For `ShortStr` NULL rows pack as 0 (the caller
    /// passes the NULLs on).
    pub fn pack(self, keys: &[KeyColumn], rows: usize) -> Option<Vec<i64>> {
        match (self, keys) {
            (PackedLayout::ShortStr, [k]) => {
                let KeyValues::Str(s) = &k.values else {
                    return None;
                };
                let mut out = vec![0i64; rows];
                pack_strs(s, k.nulls.as_ref(), rows, SHORT_STR_MAX, |i, x| {
                    out[i] = x as i64
                })?;
                Some(out)
            }
            (PackedLayout::Pair(ha, hb), [a, b]) => {
                if a.nulls.is_some() || b.nulls.is_some() {
                    return None;
                }
                let mut out = vec![0i64; rows];
                pack_half(a, ha, rows, 32, &mut out)?;
                pack_half(b, hb, rows, 0, &mut out)?;
                Some(out)
            }
            _ => None,
        }
    }

    /// Whether one of these packed keys (of key columns `keys`) has a string
    /// with a trailing space under a collation that pads: such a group would
    /// split what PAD SPACE joins (`'a'`, `'a '`), so the table cannot stay
    /// packed. Checked on new groups only: they are few next to the rows.
    pub fn spaced(self, keys: &[KeyColumn], packed: &[i64]) -> bool {
        let spaced = |x: u64, max: usize| {
            let len = ((x >> (8 * max)) & 0xff) as usize;
            len > 0 && (x >> (8 * (len - 1))) as u8 == b' '
        };
        match (self, keys) {
            (PackedLayout::ShortStr, [k]) if pads(k) => {
                packed.iter().any(|&x| spaced(x as u64, SHORT_STR_MAX))
            }
            (PackedLayout::Pair(ha, hb), [a, b]) => {
                let high = ha == Half::Str && pads(a);
                let low = hb == Half::Str && pads(b);
                packed.iter().any(|&x| {
                    let x = x as u64;
                    (high && spaced(x >> 32, HALF_STR_MAX))
                        || (low && spaced(x & 0xffff_ffff, HALF_STR_MAX))
                })
            }
            _ => false,
        }
    }

    /// The key columns of packed keys, in the same order. `validity` (one
    /// flag per key) marks NULL keys of `ShortStr`.
    pub fn unpack(self, packed: &[i64], validity: Option<&[bool]>) -> Result<Vec<KeyColumn>> {
        Ok(match self {
            PackedLayout::ShortStr => {
                let nulls = validity
                    .filter(|v| v.iter().any(|ok| !ok))
                    .map(|v| NullBuffer::from(v.to_vec()));
                let s = unpack_strs(packed.iter().map(|&k| k as u64), SHORT_STR_MAX)?;
                vec![KeyColumn {
                    values: KeyValues::Str(s),
                    nulls,
                    collation: None,
                }]
            }
            PackedLayout::Pair(ha, hb) => {
                let high = packed.iter().map(|&k| (k as u64) >> 32);
                let low = packed.iter().map(|&k| (k as u64) & 0xffff_ffff);
                vec![unpack_half(high, ha)?, unpack_half(low, hb)?]
            }
        })
    }
}

/// [`pack_str`] of rows `0..rows` of `s` (NULL rows, per `nulls`, give 0),
/// handed to `put(row, packed)`; `None` as soon as one does not pack. A row
/// is read as one 8-byte word where the buffer has 8 bytes from its start.
#[inline]
fn pack_strs(
    s: &BinaryArray,
    nulls: Option<&NullBuffer>,
    rows: usize,
    max: usize,
    mut put: impl FnMut(usize, u64),
) -> Option<()> {
    debug_assert!(max < 8);
    let data = s.value_data();
    for (i, w) in s.value_offsets()[..=rows].windows(2).enumerate() {
        if nulls.is_some_and(|n| n.is_null(i)) {
            put(i, 0);
            continue;
        }
        let (start, end) = (w[0] as usize, w[1] as usize);
        let len = end.checked_sub(start)?;
        if len > max {
            return None;
        }
        // len <= 7: the mask keeps the row's bytes of the word.
        let x = match data.get(start..start + 8) {
            Some(word) => u64::from_le_bytes(word.try_into().ok()?) & ((1u64 << (8 * len)) - 1),
            None => pack_str(data.get(start..end)?, max)? & ((1u64 << (8 * max)) - 1),
        };
        put(i, (len as u64) << (8 * max) | x);
    }
    Some(())
}

/// Whether trailing spaces keep the string keys of `k` from staying packed:
/// those of PAD SPACE collations (no collation is the default, which pads).
/// Under NO PAD (`binary`, `utf8mb4_0900_bin`) the length keeps `'a'` and
/// `'a '` apart, as the collation does.
fn pads(k: &KeyColumn) -> bool {
    k.collation.is_none_or(|c| c.is_pad_space())
}

/// `b` as `len << (8 * max) | bytes`, if it has at most `max` bytes.
#[inline]
fn pack_str(b: &[u8], max: usize) -> Option<u64> {
    if b.len() > max {
        return None;
    }
    let mut x = 0u64;
    for (k, byte) in b.iter().enumerate() {
        x |= (*byte as u64) << (8 * k);
    }
    Some((b.len() as u64) << (8 * max) | x)
}

fn pack_half(k: &KeyColumn, half: Half, rows: usize, shift: u32, out: &mut [i64]) -> Option<()> {
    match (&k.values, half) {
        (KeyValues::Int(v), Half::Int) => {
            let limit = if shift == 32 { 1i64 << 31 } else { 1i64 << 32 };
            if !v[..rows].iter().all(|x| (0..limit).contains(x)) {
                return None;
            }
            for (o, x) in out.iter_mut().zip(&v[..rows]) {
                *o |= x << shift;
            }
        }
        (KeyValues::Str(s), Half::Str) => {
            pack_strs(s, None, rows, HALF_STR_MAX, |i, x| {
                out[i] |= (x as i64) << shift
            })?;
        }
        _ => return None,
    }
    Some(())
}

fn unpack_half(values: impl Iterator<Item = u64>, half: Half) -> Result<KeyColumn> {
    let values = match half {
        Half::Int => KeyValues::Int(values.map(|x| x as i64).collect()),
        Half::Str => KeyValues::Str(unpack_strs(values, HALF_STR_MAX)?),
    };
    Ok(KeyColumn {
        values,
        nulls: None,
        collation: None,
    })
}

fn unpack_strs(packed: impl Iterator<Item = u64>, max: usize) -> Result<BinaryArray> {
    let mut bytes = Vec::new();
    let mut offsets = vec![0i32];
    for k in packed {
        let len = ((k >> (8 * max)) as usize).min(max);
        bytes.extend((0..len).map(|i| (k >> (8 * i)) as u8));
        offsets.push(bytes.len() as i32);
    }
    BinaryArray::try_new(OffsetBuffer::new(offsets.into()), bytes.into(), None)
        .map_err(|e| QuiverError::internal(format!("unpacking GROUP BY strings: {e}")))
}

/// A string key column as an array of the GROUP BY type `t` (`Utf8` or
/// `Binary` here).
pub fn str_key_array(k: &KeyColumn, t: &DataType) -> Result<Option<ArrayRef>> {
    let KeyValues::Str(s) = &k.values else {
        return Ok(None);
    };
    let (offsets, values, nulls) = (s.offsets().clone(), s.values().clone(), k.nulls.clone());
    Ok(Some(if t == &DataType::Binary {
        Arc::new(BinaryArray::new(offsets, values, nulls))
    } else {
        // Packed text came from whole UTF-8 values: checking cannot fail.
        Arc::new(
            StringArray::try_new(offsets, values, nulls)
                .map_err(|e| QuiverError::internal(format!("GROUP BY strings: {e}")))?,
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    fn strs(v: &[Option<&str>]) -> KeyColumn {
        KeyColumn::new(&(Arc::new(StringArray::from(v.to_vec())) as ArrayRef)).unwrap()
    }

    proptest::proptest! {
        /// The word loads of `pack_strs` against `pack_str` byte by byte,
        /// on a sliced array (rows near the buffer's end take the bytes).
        #[test]
        fn word_packing_is_byte_packing(
            v in proptest::collection::vec(
                proptest::option::weighted(0.9, proptest::collection::vec(
                    proptest::sample::select(vec![b'a', b' ', 0u8, 0xff, b'Z']), 0..9)),
                1..40),
            skip in 0usize..3,
        ) {
            let all = BinaryArray::from(v.iter().map(|x| x.as_deref()).collect::<Vec<_>>());
            let skip = skip.min(v.len() - 1);
            let s = all.slice(skip, v.len() - skip);
            let rows = s.len();
            for max in [HALF_STR_MAX, SHORT_STR_MAX] {
                let want: Option<Vec<u64>> = (0..rows)
                    .map(|i| if s.is_null(i) { Some(0) } else { pack_str(s.value(i), max) })
                    .collect();
                let mut got = vec![0u64; rows];
                let ok = pack_strs(&s, s.nulls(), rows, max, |i, x| got[i] = x);
                proptest::prop_assert_eq!(ok.map(|()| got), want);
            }
        }

        /// `spaced` finds a trailing space exactly where a string key that
        /// pads has one, in either half of a pair, and never for binary keys.
        #[test]
        fn spaced_is_a_trailing_space(
            v in proptest::collection::vec(
                (proptest::sample::select(vec!["", "a", "a ", " ", "ab", "b \t", "\0 "]),
                 proptest::sample::select(vec!["", "x", "x ", " x"])),
                1..6),
        ) {
            let (a, b): (Vec<&str>, Vec<&str>) = v.iter().copied().unzip();
            let (ka, kb) = (strs(&a.iter().map(|x| Some(*x)).collect::<Vec<_>>()),
                            strs(&b.iter().map(|x| Some(*x)).collect::<Vec<_>>()));
            let ends = |v: &[&str]| v.iter().any(|x| x.ends_with(' '));
            let short = PackedLayout::ShortStr.pack(std::slice::from_ref(&ka), a.len()).unwrap();
            proptest::prop_assert_eq!(PackedLayout::ShortStr.spaced(std::slice::from_ref(&ka), &short), ends(&a));
            let pair = PackedLayout::Pair(Half::Str, Half::Str);
            let keys = [ka.clone(), kb.clone()];
            let packed = pair.pack(&keys, a.len()).unwrap();
            proptest::prop_assert_eq!(pair.spaced(&keys, &packed), ends(&a) || ends(&b));
            let binary = |k: &KeyColumn| KeyColumn { collation: Some(quiver_collation::Collation::binary()), ..k.clone() };
            let keys = [binary(&ka), binary(&kb)];
            proptest::prop_assert!(!pair.spaced(&keys, &packed));
        }
    }

    #[test]
    fn short_strings_round_trip_and_stay_distinct() {
        let vals = [
            Some(""),
            Some("a"),
            Some("a\0"),
            Some("\0"),
            Some("MAIL"),
            Some("REG AIR"),
            None,
            Some("é"),
        ];
        let k = strs(&vals);
        let packed = PackedLayout::ShortStr.pack(&[k], vals.len()).unwrap();
        let mut distinct = packed.clone();
        distinct.sort();
        distinct.dedup();
        // All non-NULL values differ, and NULL packs as 0 next to "" (also 0 with length 0).
        assert_eq!(distinct.len(), vals.len() - 1);
        let validity: Vec<bool> = vals.iter().map(|v| v.is_some()).collect();
        let out = PackedLayout::ShortStr
            .unpack(&packed, Some(&validity))
            .unwrap();
        let a = str_key_array(&out[0], &DataType::Utf8).unwrap().unwrap();
        assert_eq!(a.as_ref(), &StringArray::from(vals.to_vec()) as &dyn Array);
    }

    #[test]
    fn trailing_spaces_are_spaced_and_long_strings_do_not_pack() {
        for spaced in ["a ", " "] {
            let k = [strs(&[Some("x"), Some(spaced)])];
            let packed = PackedLayout::ShortStr.pack(&k, 2).unwrap();
            assert!(PackedLayout::ShortStr.spaced(&k, &packed), "{spaced:?}");
            assert!(!PackedLayout::ShortStr.spaced(&k, &packed[..1]));
        }
        let k = strs(&[Some("x"), Some("12345678")]);
        assert_eq!(PackedLayout::ShortStr.pack(&[k], 2), None);
        let pair = PackedLayout::Pair(Half::Str, Half::Str);
        let ok = [
            strs(&[Some("R"), Some("ABC")]),
            strs(&[Some("F"), Some("")]),
        ];
        let packed = pair.pack(&ok, 2).unwrap();
        let back = pair.unpack(&packed, None).unwrap();
        assert_eq!(
            str_key_array(&back[0], &DataType::Utf8)
                .unwrap()
                .unwrap()
                .as_ref(),
            &StringArray::from(vec!["R", "ABC"]) as &dyn Array
        );
        assert_eq!(
            str_key_array(&back[1], &DataType::Utf8)
                .unwrap()
                .unwrap()
                .as_ref(),
            &StringArray::from(vec!["F", ""]) as &dyn Array
        );
        let long = [strs(&[Some("ABCD")]), strs(&[Some("F")])];
        assert_eq!(pair.pack(&long, 1), None);
        let null = [strs(&[None]), strs(&[Some("F")])];
        assert_eq!(pair.pack(&null, 1), None);
    }

    /// Binary keys pack with trailing spaces (NO PAD) and any bytes, stay
    /// distinct, and unpack to a binary array of the same values.
    #[test]
    fn binary_keys_pack_with_their_trailing_spaces() {
        let vals: Vec<Option<&[u8]>> = vec![
            Some(b"a"),
            Some(b"a "),
            Some(b"a\0"),
            Some(b" "),
            Some(b""),
            None,
            Some(b"\xFF\xFE"),
            Some(b"1234567"),
        ];
        let a: ArrayRef = Arc::new(BinaryArray::from(vals.clone()));
        let k = KeyColumn::new(&a).unwrap();
        assert_eq!(
            PackedLayout::of(&[k.clone()], &[DataType::Binary]),
            Some(PackedLayout::ShortStr)
        );
        let packed = PackedLayout::ShortStr.pack(&[k], vals.len()).unwrap();
        let mut distinct = packed.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), vals.len() - 1);
        let validity: Vec<bool> = vals.iter().map(|v| v.is_some()).collect();
        let out = PackedLayout::ShortStr
            .unpack(&packed, Some(&validity))
            .unwrap();
        let back = str_key_array(&out[0], &DataType::Binary).unwrap().unwrap();
        assert_eq!(back.as_ref(), a.as_ref());
        let long: ArrayRef = Arc::new(BinaryArray::from(vec![&b"12345678"[..]]));
        assert_eq!(
            PackedLayout::ShortStr.pack(&[KeyColumn::new(&long).unwrap()], 1),
            None
        );
    }
}
