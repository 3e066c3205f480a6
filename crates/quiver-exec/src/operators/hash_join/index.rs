//! Build rows indexed by their join keys: a direct table over a dense
//! integer range, a hashed table of one integer key, hashed rows of any
//! keys, integer keys packed into one, and the null-aware side of NOT IN.

use super::*;

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
    pub(super) min: Vec<i64>,
    pub(super) max: Vec<i64>,
    pub(super) mult: Vec<i64>,
}

/// Packed keys that fit below this stay clear of overflow.
pub(super) const PACKED_RANGE_LIMIT: u128 = 1 << 62;

impl KeyPack {
    /// A packing for the build side's keys: all integers, ranges multiplying
    /// to less than `PACKED_RANGE_LIMIT`.
    pub(super) fn plan(keys: &[KeyColumn]) -> Option<KeyPack> {
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
    pub(super) fn build(
        keys: &[KeyColumn],
        rows: usize,
        include: impl Fn(usize) -> bool,
    ) -> JoinIndex {
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

    pub(super) fn memory_size(&self) -> usize {
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
    pub(super) fn build(keys: Vec<KeyColumn>, rows: usize) -> KeyIndex {
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

    pub(super) fn memory_size(&self) -> usize {
        self.index.memory_size() + self.present.as_ref().map_or(0, |b| b.memory_size())
    }
}

impl JoinIndex {
    pub(super) fn probe_keys<'a>(&self, keys: &'a [KeyColumn], rows: usize) -> ProbeKeys<'a> {
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
