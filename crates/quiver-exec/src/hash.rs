//! Key columns for hash joins and hash aggregation: values normalized to a
//! few physical shapes (64-bit ints, 128-bit decimals, float bits, strings),
//! hashed a column at a time and compared row against row without dispatch
//! per value. Strings hash and compare under their collation: the default
//! utf8mb4_bin without trailing spaces (PAD SPACE) on byte loops here, any
//! other with a loop monomorphized per collation. Binary strings are keys
//! under the `binary` collation: their bytes, no padding.

use std::sync::Arc;

use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, BinaryArray, Date32Array, Decimal128Array,
    Float64Array, Int64Array, StringArray, TimestampMicrosecondArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, TimeUnit};
use quiver_collation::{with_collator, Collation, Collator};
use quiver_common::types::trim_pad;
use quiver_common::Result;
use quiver_plan::default_collation;

use crate::bytes::{byte_view, is_binary};
use crate::expr::cast::cast_array;

#[inline(always)]
pub fn mix(h: u64) -> u64 {
    // A 64-bit finalizer (murmur3's fmix64): cheap and spreads low bits.
    let mut h = h;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ceb9fe1a85ec53);
    h ^ (h >> 33)
}

#[inline]
pub fn hash_bytes(b: &[u8]) -> u64 {
    let mut h: u64 = 0x9e3779b97f4a7c15 ^ (b.len() as u64);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        h = (h ^ u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .wrapping_mul(0x100000001b3)
            .rotate_left(29);
    }
    let mut tail = 0u64;
    for (i, x) in chunks.remainder().iter().enumerate() {
        tail |= (*x as u64) << (8 * i);
    }
    mix(h ^ tail)
}

/// One key column in its physical shape.
#[derive(Debug, Clone)]
pub enum KeyValues {
    Int(Vec<i64>),
    Wide(Vec<i128>),
    Float(Vec<u64>),
    /// Text or binary strings, as bytes (the same buffers).
    Str(BinaryArray),
}

#[derive(Debug, Clone)]
pub struct KeyColumn {
    pub values: KeyValues,
    pub nulls: Option<NullBuffer>,
    /// The collation of string keys when it is not the default (always
    /// `binary` for binary strings).
    pub collation: Option<Collation>,
}

impl KeyColumn {
    /// Key values of `a`; strings under `collation`.
    pub fn collated(a: &ArrayRef, collation: Collation) -> Result<KeyColumn> {
        let mut k = KeyColumn::new(a)?;
        if matches!(k.values, KeyValues::Str(_))
            && collation != default_collation()
            && k.collation.is_none()
        {
            k.collation = Some(collation);
        }
        Ok(k)
    }

    /// Key values of `a`; strings under the default collation.
    pub fn new(a: &ArrayRef) -> Result<KeyColumn> {
        let nulls = a.logical_nulls().filter(|n| n.null_count() > 0);
        let values = match a.data_type() {
            DataType::Int64 => KeyValues::Int(a.as_primitive::<Int64Type>().values().to_vec()),
            DataType::Int32 => KeyValues::Int(
                a.as_primitive::<Int32Type>()
                    .values()
                    .iter()
                    .map(|v| *v as i64)
                    .collect(),
            ),
            DataType::Date32 => KeyValues::Int(
                a.as_primitive::<Date32Type>()
                    .values()
                    .iter()
                    .map(|v| *v as i64)
                    .collect(),
            ),
            DataType::Timestamp(TimeUnit::Microsecond, _) => KeyValues::Int(
                a.as_primitive::<TimestampMicrosecondType>()
                    .values()
                    .to_vec(),
            ),
            DataType::Decimal64(..) => {
                KeyValues::Int(a.as_primitive::<Decimal64Type>().values().to_vec())
            }
            DataType::Decimal128(..) => {
                KeyValues::Wide(a.as_primitive::<Decimal128Type>().values().to_vec())
            }
            DataType::UInt64 => KeyValues::Wide(
                a.as_primitive::<UInt64Type>()
                    .values()
                    .iter()
                    .map(|v| *v as i128)
                    .collect(),
            ),
            DataType::Float64 | DataType::Float32 => {
                let f = cast_array(a, &DataType::Float64)?;
                // -0.0 and 0.0 are equal in SQL: hash them alike.
                KeyValues::Float(
                    f.as_primitive::<Float64Type>()
                        .values()
                        .iter()
                        .map(|v| (v + 0.0).to_bits())
                        .collect(),
                )
            }
            DataType::Utf8 | DataType::Binary => {
                KeyValues::Str(byte_view(a.as_ref()).expect("a string array"))
            }
            DataType::Null => KeyValues::Int(vec![0; a.len()]),
            t if t.is_integer() || t == &DataType::Boolean => {
                let i = cast_array(a, &DataType::Int64)?;
                KeyValues::Int(i.as_primitive::<Int64Type>().values().to_vec())
            }
            _ => {
                let s = cast_array(a, &DataType::Utf8)?;
                KeyValues::Str(byte_view(s.as_ref()).expect("a string array"))
            }
        };
        let nulls = if a.data_type() == &DataType::Null {
            Some(NullBuffer::new_null(a.len()))
        } else {
            nulls
        };
        Ok(KeyColumn {
            values,
            nulls,
            collation: is_binary(a.data_type()).then(Collation::binary),
        })
    }

    pub fn len(&self) -> usize {
        match &self.values {
            KeyValues::Int(v) => v.len(),
            KeyValues::Wide(v) => v.len(),
            KeyValues::Float(v) => v.len(),
            KeyValues::Str(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        self.nulls.as_ref().is_some_and(|n| n.is_null(i))
    }

    /// Folds this column into the running row hashes.
    pub fn hash_into(&self, hashes: &mut [u64]) {
        // A NULL row's hash must not depend on the value under it (anything,
        // after a join or a CASE): its hash before this key is kept aside
        // and mixed with the NULL seed alone once the values are in.
        let null_rows: Vec<(usize, u64)> = match &self.nulls {
            Some(n) if n.null_count() > 0 => (0..hashes.len())
                .filter(|&i| n.is_null(i))
                .map(|i| (i, hashes[i]))
                .collect(),
            _ => Vec::new(),
        };
        match &self.values {
            KeyValues::Int(v) => {
                for (h, x) in hashes.iter_mut().zip(v) {
                    *h = mix(*h ^ (*x as u64));
                }
            }
            KeyValues::Wide(v) => {
                for (h, x) in hashes.iter_mut().zip(v) {
                    *h = mix(*h ^ (*x as u64) ^ mix((*x >> 64) as u64));
                }
            }
            KeyValues::Float(v) => {
                for (h, x) in hashes.iter_mut().zip(v) {
                    *h = mix(*h ^ x);
                }
            }
            KeyValues::Str(s) => match self.collation {
                None => {
                    for (i, h) in hashes.iter_mut().enumerate() {
                        *h = mix(*h ^ hash_bytes(trim_pad(s.value(i))));
                    }
                }
                Some(c) => with_collator!(c, |k| {
                    for (i, h) in hashes.iter_mut().enumerate() {
                        *h = mix(*h ^ k.hash(s.value(i), 0));
                    }
                }),
            },
        }
        for (i, before) in null_rows {
            hashes[i] = mix(before ^ 0x5bd1e995);
        }
    }

    /// Row `i` of self equals row `j` of `other` (same shape; NULLs equal each other).
    #[inline]
    pub fn eq(&self, i: usize, other: &KeyColumn, j: usize) -> bool {
        let (a, b) = (self.is_null(i), other.is_null(j));
        if a || b {
            return a && b;
        }
        match (&self.values, &other.values) {
            (KeyValues::Int(x), KeyValues::Int(y)) => x[i] == y[j],
            (KeyValues::Wide(x), KeyValues::Wide(y)) => x[i] == y[j],
            (KeyValues::Float(x), KeyValues::Float(y)) => x[i] == y[j],
            (KeyValues::Str(x), KeyValues::Str(y)) => {
                let (p, q) = (x.value(i), y.value(j));
                match self.collation {
                    None => p == q || trim_pad(p) == trim_pad(q),
                    Some(c) => c.eq(p, q),
                }
            }
            _ => false,
        }
    }
}

/// Hints the CPU to bring the cache line of `p` in: the hash tables'
/// probes ask for the slot of a row a little ahead while resolving this one.
#[inline(always)]
pub(crate) fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86_64 baseline, so the target feature
        // `_mm_prefetch` needs is always present; a prefetch only hints the
        // cache, never faults, and `p` comes from a live reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const T as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

pub fn hash_rows(keys: &[KeyColumn], rows: usize) -> Vec<u64> {
    let mut h = vec![0u64; rows];
    for k in keys {
        k.hash_into(&mut h);
    }
    h
}

pub fn any_null(keys: &[KeyColumn], i: usize) -> bool {
    keys.iter().any(|k| k.is_null(i))
}

/// Group keys stored column by column as groups are found.
#[derive(Debug)]
pub struct GroupKeys {
    types: Vec<DataType>,
    cols: Vec<KeyStore>,
    /// Collations of the string keys (None: the default).
    collations: Vec<Option<Collation>>,
}

#[derive(Debug)]
enum KeyStore {
    Int(Vec<i64>, Vec<bool>),
    Wide(Vec<i128>, Vec<bool>),
    Float(Vec<u64>, Vec<bool>),
    Str(Vec<u8>, Vec<usize>, Vec<bool>),
}

impl GroupKeys {
    pub fn new(sample: &[KeyColumn], types: Vec<DataType>) -> GroupKeys {
        let cols = sample
            .iter()
            .map(|k| match k.values {
                KeyValues::Int(_) => KeyStore::Int(vec![], vec![]),
                KeyValues::Wide(_) => KeyStore::Wide(vec![], vec![]),
                KeyValues::Float(_) => KeyStore::Float(vec![], vec![]),
                KeyValues::Str(_) => KeyStore::Str(vec![], vec![0], vec![]),
            })
            .collect();
        let collations = sample.iter().map(|k| k.collation).collect();
        GroupKeys {
            types,
            cols,
            collations,
        }
    }

    /// The collation of key column `i` (None: the default).
    pub fn collation(&self, i: usize) -> Option<Collation> {
        self.collations.get(i).copied().flatten()
    }

    pub fn push(&mut self, keys: &[KeyColumn], i: usize) {
        for (store, k) in self.cols.iter_mut().zip(keys) {
            let valid = !k.is_null(i);
            match (store, &k.values) {
                (KeyStore::Int(v, n), KeyValues::Int(x)) => {
                    v.push(x[i]);
                    n.push(valid)
                }
                (KeyStore::Wide(v, n), KeyValues::Wide(x)) => {
                    v.push(x[i]);
                    n.push(valid)
                }
                (KeyStore::Float(v, n), KeyValues::Float(x)) => {
                    v.push(x[i]);
                    n.push(valid)
                }
                (KeyStore::Str(b, o, n), KeyValues::Str(s)) => {
                    b.extend_from_slice(s.value(i));
                    o.push(b.len());
                    n.push(valid);
                }
                _ => {}
            }
        }
    }

    /// Stored group `g` equals row `i` of `keys`.
    #[inline]
    pub fn eq(&self, g: usize, keys: &[KeyColumn], i: usize) -> bool {
        self.cols.iter().zip(keys).all(|(store, k)| {
            let kn = k.is_null(i);
            let collation = k.collation;
            match (store, &k.values) {
                (KeyStore::Int(v, n), KeyValues::Int(x)) => {
                    if !n[g] || kn {
                        !n[g] && kn
                    } else {
                        v[g] == x[i]
                    }
                }
                (KeyStore::Wide(v, n), KeyValues::Wide(x)) => {
                    if !n[g] || kn {
                        !n[g] && kn
                    } else {
                        v[g] == x[i]
                    }
                }
                (KeyStore::Float(v, n), KeyValues::Float(x)) => {
                    if !n[g] || kn {
                        !n[g] && kn
                    } else {
                        v[g] == x[i]
                    }
                }
                (KeyStore::Str(b, o, n), KeyValues::Str(s)) => {
                    if !n[g] || kn {
                        return !n[g] && kn;
                    }
                    let p = &b[o[g]..o[g + 1]];
                    let q = s.value(i);
                    match collation {
                        None => p == q || trim_pad(p) == trim_pad(q),
                        Some(c) => c.eq(p, q),
                    }
                }
                _ => false,
            }
        })
    }

    pub fn to_arrays(&self) -> Result<Vec<ArrayRef>> {
        self.cols
            .iter()
            .zip(&self.types)
            .map(|(store, t)| -> Result<ArrayRef> {
                Ok(match store {
                    KeyStore::Int(v, n) => {
                        let nulls = Some(NullBuffer::from(n.clone()));
                        match t {
                            DataType::Date32 => Arc::new(Date32Array::new(
                                v.iter().map(|x| *x as i32).collect::<Vec<_>>().into(),
                                nulls,
                            )),
                            DataType::Timestamp(_, fsp) => Arc::new(
                                TimestampMicrosecondArray::new(v.clone().into(), nulls)
                                    .with_timezone_opt(fsp.clone()),
                            ),
                            DataType::Decimal64(..) => Arc::new(
                                arrow_array::Decimal64Array::new(v.clone().into(), nulls)
                                    .with_data_type(t.clone()),
                            ),
                            _ => cast_array(
                                &(Arc::new(Int64Array::new(v.clone().into(), nulls)) as ArrayRef),
                                t,
                            )?,
                        }
                    }
                    KeyStore::Wide(v, n) => {
                        let nulls = Some(NullBuffer::from(n.clone()));
                        match t {
                            DataType::Decimal128(p, s) => Arc::new(
                                Decimal128Array::new(v.clone().into(), nulls)
                                    .with_precision_and_scale(*p, *s)?,
                            ),
                            _ => {
                                let d: ArrayRef = Arc::new(
                                    Decimal128Array::new(v.clone().into(), nulls)
                                        .with_precision_and_scale(38, 0)?,
                                );
                                cast_array(&d, t)?
                            }
                        }
                    }
                    KeyStore::Float(v, n) => {
                        let f: ArrayRef = Arc::new(Float64Array::new(
                            v.iter()
                                .map(|b| f64::from_bits(*b))
                                .collect::<Vec<_>>()
                                .into(),
                            Some(NullBuffer::from(n.clone())),
                        ));
                        cast_array(&f, t)?
                    }
                    KeyStore::Str(b, o, n) => {
                        let offsets = arrow_buffer::OffsetBuffer::new(
                            o.iter().map(|x| *x as i32).collect::<Vec<i32>>().into(),
                        );
                        let nulls = Some(NullBuffer::from(n.clone()));
                        if t == &DataType::Binary {
                            Arc::new(BinaryArray::try_new(offsets, b.clone().into(), nulls)?)
                        } else {
                            // Keys of text are whole UTF-8 values (checked).
                            let s: ArrayRef =
                                Arc::new(StringArray::try_new(offsets, b.clone().into(), nulls)?);
                            cast_array(&s, t)?
                        }
                    }
                })
            })
            .collect()
    }

    pub fn memory_size(&self) -> usize {
        self.cols
            .iter()
            .map(|c| match c {
                KeyStore::Int(v, _) => v.len() * 9,
                KeyStore::Wide(v, _) => v.len() * 17,
                KeyStore::Float(v, _) => v.len() * 9,
                KeyStore::Str(b, o, _) => b.len() + o.len() * 9,
            })
            .sum()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Binary keys (as joins and the general GROUP BY table use them) are
    /// equal exactly when their bytes are, hash alike then, and keep their
    /// type through the general table; text keys still pad.
    #[test]
    fn binary_keys_are_their_bytes() {
        let words: Vec<Option<&[u8]>> = vec![
            Some(b"a"),
            Some(b"a "),
            Some(b"a\0"),
            Some(b"A"),
            Some(b""),
            None,
            Some(b"\xFF"),
            Some(b"a"),
        ];
        let a: ArrayRef = Arc::new(BinaryArray::from(words.clone()));
        // Whatever collation the expression carries, bytes decide.
        let k = KeyColumn::collated(&a, Collation::utf8mb4_general_ci()).unwrap();
        assert_eq!(k.collation, Some(Collation::binary()));
        let h = hash_rows(std::slice::from_ref(&k), words.len());
        for i in 0..words.len() {
            for j in 0..words.len() {
                assert_eq!(k.eq(i, &k, j), words[i] == words[j], "{i} {j}");
                if words[i] == words[j] {
                    assert_eq!(h[i], h[j]);
                }
            }
        }
        let mut store = GroupKeys::new(std::slice::from_ref(&k), vec![DataType::Binary]);
        for i in [0, 1, 5, 6] {
            store.push(std::slice::from_ref(&k), i);
        }
        assert!(store.eq(0, std::slice::from_ref(&k), 7));
        assert!(!store.eq(1, std::slice::from_ref(&k), 0));
        let back = store.to_arrays().unwrap();
        let want = BinaryArray::from(vec![Some(&b"a"[..]), Some(b"a "), None, Some(b"\xFF")]);
        assert_eq!(back[0].as_ref(), &want as &dyn Array);
        // Text keys under the default collation: 'a' = 'a '.
        let t: ArrayRef = Arc::new(StringArray::from(vec!["a", "a "]));
        let t = KeyColumn::new(&t).unwrap();
        assert!(t.eq(0, &t, 1));
    }
}
