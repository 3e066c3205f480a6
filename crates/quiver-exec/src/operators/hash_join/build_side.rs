//! The build side of a hash join: its rows drained into one batch and
//! indexed by key (a direct table or chained hash over integer keys, packed
//! key tuples, general keys; a bitmap of the keys that sifts probe rows).

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::BooleanBuffer;
use quiver_common::{QuiverError, Result};

use crate::context::OwnedReservation;
use crate::expr::PhysicalExpr;
use crate::hash::{any_null, hash_rows, int_key, key_span, mix, KeyColumn, KeyValues};
use crate::join_key_filter::KeyBitmap;
use crate::operators::exec_plan::{execute_partitions, ExecutionPlan};
use crate::ExecContext;

pub(super) const EMPTY: u32 = u32::MAX;
#[derive(Debug)]
pub(super) struct BuildSide {
    pub(super) batch: RecordBatch,
    /// Every key; rows with a NULL key are in no chain.
    pub(super) main: KeyIndex,
    /// For NOT IN and IN values: the rows that may equal a probe row through NULLs.
    pub(super) null_aware: Option<NullAwareIndex>,
    _memory: OwnedReservation,
}

/// Build rows indexed by some of their key columns.
#[derive(Debug)]
pub(super) struct KeyIndex {
    pub(super) keys: Vec<KeyColumn>,
    /// Several integer keys packed into one, when their ranges allow; the
    /// index is then over the packed key.
    pub(super) pack: Option<KeyPack>,
    pub(super) index: JoinIndex,
    /// The build keys as bits, when one integer key spans a small range
    /// sparsely: probe rows are sifted through it first.
    pub(super) present: Option<Arc<KeyBitmap>>,
}

/// The null-aware side of a NOT IN / IN-value join whose first `in_keys`
/// keys compare with NULLs making a pair "possibly equal", the other
/// (correlation) keys exactly. A probe row with no exact match needs the rows
/// of its correlation group that have a NULL in an IN key (or the whole group
/// when the probe row has one).
#[derive(Debug)]
pub(super) struct NullAwareIndex {
    pub(super) in_keys: usize,
    /// The correlation keys of every build row (none: one group of all rows).
    pub(super) group: KeyIndex,
    /// The same keys over only the rows with a NULL in some IN key; None when
    /// there is no such row.
    pub(super) with_null: Option<JoinIndex>,
}

/// How build rows are found from a probe key. Chains (`next`) link build rows
/// of one bucket in input order; `EMPTY` ends a chain.
#[derive(Debug)]
pub(super) enum JoinIndex {
    /// Any keys: buckets by row hash; candidates are checked by hash, then key.
    Hashed {
        hashes: Vec<u64>,
        first: Vec<u32>,
        next: Vec<u32>,
        mask: u64,
    },
    /// One integer key over a dense range (TPC-H's keys): bucket `k - min`
    /// holds exactly the rows with key `k`, so nothing is hashed or compared.
    Direct {
        min: i64,
        first: Vec<u32>,
        next: Vec<u32>,
    },
    /// One integer key, sparse: buckets by hashed key; the key sits next to
    /// its chain link so a candidate costs one cache line.
    Int {
        first: Vec<u32>,
        entries: Vec<(i64, u32)>,
        mask: u64,
    },
}

/// The probe side's keys in the shape the index wants.
pub(super) enum ProbeKeys<'a> {
    Hashed {
        keys: &'a [KeyColumn],
        hashes: Vec<u64>,
    },
    Int {
        values: &'a [i64],
        nulls: Option<&'a arrow_buffer::NullBuffer>,
    },
}

impl ProbeKeys<'_> {
    #[inline]
    pub(super) fn is_null(&self, i: usize) -> bool {
        match self {
            ProbeKeys::Hashed { keys, .. } => any_null(keys, i),
            ProbeKeys::Int { nulls, .. } => nulls.is_some_and(|n| n.is_null(i)),
        }
    }
}

/// Several integer keys as one: key `i` contributes `(v - min[i]) * mult[i]`,
/// so the packed key is unique per key tuple (TPC-H's partsupp key pairs
/// span 200,000 x 10,000). Integer indexes then serve multi-column joins.
#[derive(Debug)]
pub(super) struct KeyPack {
    min: Vec<i64>,
    max: Vec<i64>,
    mult: Vec<i64>,
}

/// Packed keys that fit below this stay clear of overflow.
pub(super) const PACKED_RANGE_LIMIT: u128 = 1 << 62;

impl KeyPack {
    /// A packing for the build side's keys: all integers, ranges multiplying
    /// to less than `PACKED_RANGE_LIMIT`.
    fn plan(keys: &[KeyColumn]) -> Option<KeyPack> {
        if keys.len() < 2 {
            return None;
        }
        let (mut min, mut max) = (Vec::new(), Vec::new());
        for k in keys {
            let KeyValues::Int(v) = &k.values else {
                return None;
            };
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for (j, &x) in v.iter().enumerate() {
                if k.nulls.as_ref().is_none_or(|n| n.is_valid(j)) {
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
            }
            if lo > hi {
                return None;
            }
            min.push(lo);
            max.push(hi);
        }
        let mut mult = vec![0i64; keys.len()];
        let mut span: u128 = 1;
        for i in (0..keys.len()).rev() {
            mult[i] = span as i64;
            span *= (max[i] as i128 - min[i] as i128 + 1) as u128;
            if span > PACKED_RANGE_LIMIT {
                return None;
            }
        }
        Some(KeyPack { min, max, mult })
    }

    /// One integer key column for `keys`; a row with a key outside the build
    /// side's range gets -1, which no packed build key equals.
    pub(super) fn pack(&self, keys: &[KeyColumn], rows: usize) -> KeyColumn {
        let mut packed = vec![0i64; rows];
        let mut nulls: Option<arrow_buffer::NullBuffer> = None;
        for (i, k) in keys.iter().enumerate() {
            let KeyValues::Int(v) = &k.values else {
                unreachable!("a packing is planned only for integer keys")
            };
            let (lo, hi, m) = (self.min[i], self.max[i], self.mult[i]);
            for (p, &x) in packed.iter_mut().zip(v) {
                *p = if *p < 0 || x < lo || x > hi {
                    -1
                } else {
                    *p + (x - lo) * m
                };
            }
            nulls = arrow_buffer::NullBuffer::union(nulls.as_ref(), k.nulls.as_ref());
        }
        KeyColumn {
            values: KeyValues::Int(packed),
            nulls,
            collation: None,
        }
    }
}

/// Largest key range given a direct table, relative to the build rows:
/// a few u32 per row is cheaper than hashing every probe.
pub(super) const DIRECT_RANGE_PER_ROW: u64 = 4;
pub(super) const DIRECT_RANGE_MIN: u64 = 1 << 16;

impl JoinIndex {
    /// An index over the rows `include` accepts (a row with a NULL key is
    /// in no chain).
    fn build(keys: &[KeyColumn], rows: usize, include: impl Fn(usize) -> bool) -> JoinIndex {
        if let Some((values, nulls)) = int_key(keys) {
            let not_null = |j: usize| nulls.is_none_or(|n| n.is_valid(j));
            let valid = |j: usize| include(j) && not_null(j);
            let (mut min, mut max) = (i64::MAX, i64::MIN);
            for (j, &k) in values.iter().enumerate() {
                if valid(j) {
                    min = min.min(k);
                    max = max.max(k);
                }
            }
            let range = key_span(min, max);
            let mut next = vec![EMPTY; rows];
            if range <= (rows as u128 * DIRECT_RANGE_PER_ROW as u128).max(DIRECT_RANGE_MIN as u128)
            {
                let mut first = vec![EMPTY; range as usize];
                // Insert in reverse so chains list rows in input order.
                for j in (0..rows).rev() {
                    if valid(j) {
                        let b = (values[j] - min) as usize;
                        next[j] = first[b];
                        first[b] = j as u32;
                    }
                }
                return JoinIndex::Direct {
                    min: if range == 0 { 0 } else { min },
                    first,
                    next,
                };
            }
            let buckets = (rows * 2).next_power_of_two().max(16);
            let mask = (buckets - 1) as u64;
            let mut first = vec![EMPTY; buckets];
            let mut entries = vec![(0i64, EMPTY); rows];
            for j in (0..rows).rev() {
                if valid(j) {
                    let b = (mix(values[j] as u64) & mask) as usize;
                    entries[j] = (values[j], first[b]);
                    first[b] = j as u32;
                }
            }
            return JoinIndex::Int {
                first,
                entries,
                mask,
            };
        }
        let hashes = hash_rows(keys, rows);
        let buckets = (rows * 2).next_power_of_two().max(16);
        let mut first = vec![EMPTY; buckets];
        let mut next = vec![EMPTY; rows];
        let mask = (buckets - 1) as u64;
        for j in (0..rows).rev() {
            if !include(j) {
                continue;
            }
            if any_null(keys, j) {
                continue;
            }
            let b = (hashes[j] & mask) as usize;
            next[j] = first[b];
            first[b] = j as u32;
        }
        JoinIndex::Hashed {
            hashes,
            first,
            next,
            mask,
        }
    }

    fn memory_size(&self) -> usize {
        match self {
            JoinIndex::Hashed {
                hashes,
                first,
                next,
                ..
            } => hashes.len() * 8 + (first.len() + next.len()) * 4,
            JoinIndex::Direct { first, next, .. } => (first.len() + next.len()) * 4,
            JoinIndex::Int { first, entries, .. } => first.len() * 4 + entries.len() * 16,
        }
    }
}

/// `exprs` evaluated over `batch` as hash keys, under their collations.
pub(super) fn key_columns(exprs: &[PhysicalExpr], batch: &RecordBatch) -> Result<Vec<KeyColumn>> {
    exprs
        .iter()
        .map(|k| KeyColumn::collated(&k.evaluate_array(batch)?, k.collation()))
        .collect()
}

impl KeyIndex {
    /// An index over `keys` of every row.
    fn build(keys: Vec<KeyColumn>, rows: usize) -> KeyIndex {
        let pack = KeyPack::plan(&keys);
        let (index, present) = match &pack {
            Some(p) => {
                let packed = [p.pack(&keys, rows)];
                (
                    JoinIndex::build(&packed, rows, |_| true),
                    KeyBitmap::build(&packed, rows).map(Arc::new),
                )
            }
            None => (
                JoinIndex::build(&keys, rows, |_| true),
                KeyBitmap::build(&keys, rows).map(Arc::new),
            ),
        };
        KeyIndex {
            keys,
            pack,
            index,
            present,
        }
    }

    /// The probe rows that may have a match, when the bitmap can tell
    /// (None: every row may).
    pub(super) fn sift(&self, probe: &ProbeKeys) -> Option<Vec<u32>> {
        match (&self.present, probe) {
            (Some(bits), ProbeKeys::Int { values, .. }) => Some(bits.sift(values)),
            _ => None,
        }
    }

    /// Whether each probe row (not NULL) has a match, when the bitmap tells
    /// exactly (it holds every build key).
    pub(super) fn matches_exactly(&self, probe: &ProbeKeys, rows: usize) -> Option<BooleanBuffer> {
        match (&self.present, probe) {
            (Some(bits), ProbeKeys::Int { values, .. }) => {
                Some(BooleanBuffer::collect_bool(rows, |i| {
                    bits.contains(values[i])
                }))
            }
            _ => None,
        }
    }

    /// Probe rows' key columns in the shape of this index (packed into one
    /// integer when the build keys are).
    pub(super) fn shape_probe_keys(&self, keys: Vec<KeyColumn>, rows: usize) -> Vec<KeyColumn> {
        match &self.pack {
            Some(p) => vec![p.pack(&keys, rows)],
            None => keys,
        }
    }

    /// The keys of probe rows in the shape of this index.
    pub(super) fn probe_key_columns(
        &self,
        exprs: &[PhysicalExpr],
        batch: &RecordBatch,
    ) -> Result<Vec<KeyColumn>> {
        Ok(self.shape_probe_keys(key_columns(exprs, batch)?, batch.num_rows()))
    }

    pub(super) fn probe_keys<'a>(&self, keys: &'a [KeyColumn], rows: usize) -> ProbeKeys<'a> {
        self.index.probe_keys(keys, rows)
    }

    #[inline]
    pub(super) fn for_each_match(&self, probe: &ProbeKeys, i: usize, f: impl FnMut(usize) -> bool) {
        self.index.for_each_match(&self.keys, probe, i, f)
    }

    #[inline]
    pub(super) fn has_match(&self, probe: &ProbeKeys, i: usize) -> bool {
        let mut found = false;
        self.for_each_match(probe, i, |_| {
            found = true;
            false
        });
        found
    }

    fn memory_size(&self) -> usize {
        self.index.memory_size() + self.present.as_ref().map_or(0, |b| b.memory_size())
    }
}

impl JoinIndex {
    fn probe_keys<'a>(&self, keys: &'a [KeyColumn], rows: usize) -> ProbeKeys<'a> {
        match (self, int_key(keys)) {
            (JoinIndex::Direct { .. } | JoinIndex::Int { .. }, Some((values, nulls))) => {
                ProbeKeys::Int { values, nulls }
            }
            _ => ProbeKeys::Hashed {
                keys,
                hashes: hash_rows(keys, rows),
            },
        }
    }

    /// Calls `f` with each build row whose key (`build_keys`, unpacked)
    /// equals probe row `i` (not NULL), in build input order; stops early
    /// when `f` returns false.
    #[inline]
    pub(super) fn for_each_match(
        &self,
        build_keys: &[KeyColumn],
        probe: &ProbeKeys,
        i: usize,
        mut f: impl FnMut(usize) -> bool,
    ) {
        match (self, probe) {
            (JoinIndex::Direct { min, first, next }, ProbeKeys::Int { values, .. }) => {
                let b = values[i].wrapping_sub(*min) as u64;
                if b < first.len() as u64 {
                    let mut at = first[b as usize];
                    while at != EMPTY && f(at as usize) {
                        at = next[at as usize];
                    }
                }
            }
            (
                JoinIndex::Int {
                    first,
                    entries,
                    mask,
                },
                ProbeKeys::Int { values, .. },
            ) => {
                let k = values[i];
                let mut at = first[(mix(k as u64) & mask) as usize];
                while at != EMPTY {
                    let (key, link) = entries[at as usize];
                    if key == k && !f(at as usize) {
                        return;
                    }
                    at = link;
                }
            }
            (
                JoinIndex::Hashed {
                    hashes,
                    first,
                    next,
                    mask,
                },
                ProbeKeys::Hashed {
                    keys,
                    hashes: probe_hashes,
                },
            ) => {
                let h = probe_hashes[i];
                let mut at = first[(h & mask) as usize];
                while at != EMPTY {
                    let j = at as usize;
                    at = next[j];
                    if hashes[j] == h
                        && keys.iter().zip(build_keys).all(|(k, b)| k.eq(i, b, j))
                        && !f(j)
                    {
                        return;
                    }
                }
            }
            _ => unreachable!("probe keys are shaped for their index"),
        }
    }
}

/// Drains all partitions of `plan` into one batch and indexes it by
/// `key_exprs`, the first `in_keys` of them null-aware.
pub(super) fn build_table(
    plan: &Arc<dyn ExecutionPlan>,
    key_exprs: &[PhysicalExpr],
    in_keys: usize,
    ctx: &Arc<ExecContext>,
) -> Result<BuildSide> {
    let parts = execute_partitions(plan, ctx)?;
    let batches: Vec<RecordBatch> = parts.into_iter().flatten().collect();
    let batch = arrow_select::concat::concat_batches(&plan.schema(), &batches)?;
    drop(batches);
    let rows = batch.num_rows();
    let mut memory = OwnedReservation::new(ctx);
    memory.grow(batch.get_array_memory_size())?;
    if rows >= EMPTY as usize {
        return Err(QuiverError::not_supported(
            "a join build side of more than 4 billion rows",
        ));
    }
    let keys = key_columns(key_exprs, &batch)?;
    let null_aware = if in_keys > 0 {
        let group = keys[in_keys..].to_vec();
        let in_cols = &keys[..in_keys];
        let group = KeyIndex::build(group, rows);
        let has_null_in = |j: usize| any_null(in_cols, j);
        let with_null = (0..rows).any(has_null_in).then(|| match &group.pack {
            Some(p) => JoinIndex::build(&[p.pack(&group.keys, rows)], rows, has_null_in),
            None => JoinIndex::build(&group.keys, rows, has_null_in),
        });
        memory.grow(group.memory_size() + with_null.as_ref().map_or(0, JoinIndex::memory_size))?;
        Some(NullAwareIndex {
            in_keys,
            group,
            with_null,
        })
    } else {
        None
    };
    let main = KeyIndex::build(keys, rows);
    memory.grow(main.memory_size())?;
    Ok(BuildSide {
        batch,
        main,
        null_aware,
        _memory: memory,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join_key_filter::{BuildKeys, JoinKeyFilter};
    use arrow_array::{ArrayRef, BooleanArray, Int64Array};

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    /// The scan's join-key filter keeps exactly the rows whose key the
    /// build side holds (NULL keys never), everything before the build and
    /// when the build keys have no bitmap.
    #[test]
    fn join_key_filter_keeps_exactly_the_build_keys() {
        let mut st = 3u64;
        // Sparse build keys over a small range: a bitmap.
        let build: Vec<Option<i64>> = (0..50)
            .map(|_| Some(1000 + lcg(&mut st) as i64 % 4000))
            .collect();
        let probe: Vec<Option<i64>> = (0..3000)
            .map(|i| (i % 17 != 0).then(|| 900 + lcg(&mut st) as i64 % 4300))
            .collect();
        let batch = RecordBatch::try_from_iter([(
            "k",
            Arc::new(Int64Array::from(probe.clone())) as ArrayRef,
        )])
        .unwrap();
        let key = PhysicalExpr::Column(0);
        let filter = JoinKeyFilter::default();
        assert_eq!(may_match(&filter, &key, &batch).unwrap().true_count(), 3000);
        let index = KeyIndex::build(int_keys(&build), build.len());
        assert!(index.present.is_some() && index.pack.is_none());
        filter.publish(index.present.clone().map(BuildKeys::Exact));
        let mask = may_match(&filter, &key, &batch).unwrap();
        for (i, p) in probe.iter().enumerate() {
            let want = p.is_some_and(|p| build.contains(&Some(p)));
            assert_eq!(mask.value(i), want, "row {i}: {p:?}");
        }
        // Dense build keys: no bitmap, every row may match.
        let dense: Vec<Option<i64>> = (0..5000).map(Some).collect();
        let index = KeyIndex::build(int_keys(&dense), dense.len());
        let filter = JoinKeyFilter::default();
        filter.publish(index.present.clone().map(BuildKeys::Exact));
        assert_eq!(may_match(&filter, &key, &batch).unwrap().true_count(), 3000);
    }

    /// The scan's view of the filter: which rows of `batch` may match.
    fn may_match(
        filter: &JoinKeyFilter,
        key: &PhysicalExpr,
        batch: &RecordBatch,
    ) -> Result<BooleanArray> {
        filter.may_match(batch.num_rows(), || {
            Ok(key_columns(std::slice::from_ref(key), batch)?.remove(0))
        })
    }

    fn int_keys(values: &[Option<i64>]) -> Vec<KeyColumn> {
        let a: ArrayRef = Arc::new(Int64Array::from(values.to_vec()));
        vec![KeyColumn::collated(&a, quiver_plan::default_collation()).unwrap()]
    }
}
