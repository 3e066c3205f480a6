//! Hash join. The right child is the build side (the optimizer puts the
//! smaller input there): all its partitions are drained in parallel into one
//! chained hash table, shared by every probe partition of the left child.
//! One operator covers inner, left outer, semi, anti, NULL-aware anti (NOT IN),
//! mark (IN / EXISTS as a value) and single (scalar subquery) joins; extra
//! non-equi conditions are checked on candidate pairs. An inner or semi join
//! whose build keys fit a bitmap hands it to the scan of its probe side
//! ([`JoinKeyFilter`]), which drops rows without a match before copying them.

use std::sync::{Arc, OnceLock};

use arrow_array::{ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_buffer::BooleanBuffer;
use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};
use quiver_plan::JoinKind;

use super::exec_plan::{
    execute_partitions, for_each_partition, metered, timed, BatchStream, ExecutionPlan, Metrics,
};
use crate::context::OwnedReservation;
use crate::expr::PhysicalExpr;
use crate::hash::{any_null, hash_rows, int_key, key_span, mix, KeyColumn, KeyValues};
use crate::join_key_filter::{JoinKeyFilter, KeyBitmap};
use crate::ExecContext;

const EMPTY: u32 = u32::MAX;
/// Candidate pairs gathered before a batch is emitted.
const PAIRS_PER_BATCH: usize = 64 * 1024;

#[derive(Debug)]
pub struct HashJoinExec {
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    kind: JoinKind,
    left_keys: Vec<PhysicalExpr>,
    right_keys: Vec<PhysicalExpr>,
    /// Evaluated over left columns followed by right columns.
    filter: Option<PhysicalExpr>,
    schema: SchemaRef,
    text: String,
    build: OnceLock<Result<Arc<BuildSide>>>,
    /// Semi / anti / left outer join built on the left side (see `with_left_build`).
    build_left: bool,
    left_result: OnceLock<Result<Arc<LeftBuildResult>>>,
    /// Told the build keys once they are known (see `with_key_filter`).
    key_filter: Option<Arc<JoinKeyFilter>>,
    metrics: Arc<Metrics>,
}

/// The output of a join built on the left, per output partition (semi and
/// anti: all in partition 0, small by construction).
#[derive(Debug)]
struct LeftBuildResult {
    partitions: Vec<Vec<RecordBatch>>,
    /// What the pairs held take from the memory limit, while they are held.
    _memory: Option<Vec<OwnedReservation>>,
}

#[derive(Debug)]
struct BuildSide {
    batch: RecordBatch,
    /// Every key; rows with a NULL key are in no chain.
    main: KeyIndex,
    /// For NOT IN and IN values: the rows that may equal a probe row through NULLs.
    null_aware: Option<NullAwareIndex>,
    _memory: OwnedReservation,
}

/// Build rows indexed by some of their key columns.
#[derive(Debug)]
struct KeyIndex {
    keys: Vec<KeyColumn>,
    /// Several integer keys packed into one, when their ranges allow; the
    /// index is then over the packed key.
    pack: Option<KeyPack>,
    index: JoinIndex,
    /// The build keys as bits, when one integer key spans a small range
    /// sparsely: probe rows are sifted through it first.
    present: Option<Arc<KeyBitmap>>,
}

/// The null-aware side of a NOT IN / IN-value join whose first `in_keys`
/// keys compare with NULLs making a pair "possibly equal", the other
/// (correlation) keys exactly. A probe row with no exact match needs the rows
/// of its correlation group that have a NULL in an IN key (or the whole group
/// when the probe row has one).
#[derive(Debug)]
struct NullAwareIndex {
    in_keys: usize,
    /// The correlation keys of every build row (none: one group of all rows).
    group: KeyIndex,
    /// The same keys over only the rows with a NULL in some IN key; None when
    /// there is no such row.
    with_null: Option<JoinIndex>,
}

/// How build rows are found from a probe key. Chains (`next`) link build rows
/// of one bucket in input order; `EMPTY` ends a chain.
#[derive(Debug)]
enum JoinIndex {
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
enum ProbeKeys<'a> {
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
    fn is_null(&self, i: usize) -> bool {
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
struct KeyPack {
    min: Vec<i64>,
    max: Vec<i64>,
    mult: Vec<i64>,
}

/// Packed keys that fit below this stay clear of overflow.
const PACKED_RANGE_LIMIT: u128 = 1 << 62;

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
    fn pack(&self, keys: &[KeyColumn], rows: usize) -> KeyColumn {
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
const DIRECT_RANGE_PER_ROW: u64 = 4;
const DIRECT_RANGE_MIN: u64 = 1 << 16;

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
fn key_columns(exprs: &[PhysicalExpr], batch: &RecordBatch) -> Result<Vec<KeyColumn>> {
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
    fn sift(&self, probe: &ProbeKeys) -> Option<Vec<u32>> {
        match (&self.present, probe) {
            (Some(bits), ProbeKeys::Int { values, .. }) => Some(bits.sift(values)),
            _ => None,
        }
    }

    /// Whether each probe row (not NULL) has a match, when the bitmap tells
    /// exactly (it holds every build key).
    fn matches_exactly(&self, probe: &ProbeKeys, rows: usize) -> Option<BooleanBuffer> {
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
    fn shape_probe_keys(&self, keys: Vec<KeyColumn>, rows: usize) -> Vec<KeyColumn> {
        match &self.pack {
            Some(p) => vec![p.pack(&keys, rows)],
            None => keys,
        }
    }

    /// The keys of probe rows in the shape of this index.
    fn probe_key_columns(
        &self,
        exprs: &[PhysicalExpr],
        batch: &RecordBatch,
    ) -> Result<Vec<KeyColumn>> {
        Ok(self.shape_probe_keys(key_columns(exprs, batch)?, batch.num_rows()))
    }

    fn probe_keys<'a>(&self, keys: &'a [KeyColumn], rows: usize) -> ProbeKeys<'a> {
        self.index.probe_keys(keys, rows)
    }

    #[inline]
    fn for_each_match(&self, probe: &ProbeKeys, i: usize, f: impl FnMut(usize) -> bool) {
        self.index.for_each_match(&self.keys, probe, i, f)
    }

    #[inline]
    fn has_match(&self, probe: &ProbeKeys, i: usize) -> bool {
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
    fn for_each_match(
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

impl HashJoinExec {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        left: Arc<dyn ExecutionPlan>,
        right: Arc<dyn ExecutionPlan>,
        kind: JoinKind,
        left_keys: Vec<PhysicalExpr>,
        right_keys: Vec<PhysicalExpr>,
        filter: Option<PhysicalExpr>,
        schema: SchemaRef,
        text: String,
    ) -> Self {
        HashJoinExec {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            filter,
            schema,
            text,
            build: OnceLock::new(),
            build_left: false,
            left_result: OnceLock::new(),
            key_filter: None,
            metrics: Default::default(),
        }
    }

    /// Tells `filter` the build's first keys once the table is built (an
    /// inner or semi join built on the right): the planner gives the same
    /// filter to the scan on the probe side, which tests the first probe key.
    pub fn with_key_filter(mut self, filter: Arc<JoinKeyFilter>) -> Self {
        debug_assert!(matches!(self.kind, JoinKind::Inner | JoinKind::Semi));
        debug_assert!(!self.left_keys.is_empty());
        self.key_filter = Some(filter);
        self
    }

    /// Builds on the left side instead of the right: for a semi, anti or
    /// left outer join whose preserved (left) side is much smaller than the
    /// other (TPC-H Q21: 76,000 candidate rows against all of lineitem; Q13:
    /// 150,000 customers against 1.5 million orders), a table over the left
    /// rows is probed by the right rows, which mark the left rows they match;
    /// then the marked (semi) or unmarked (anti) left rows are the result,
    /// or (left outer) the matching pairs followed by the unmarked left rows
    /// with NULLs.
    pub fn with_left_build(mut self) -> Self {
        debug_assert!(matches!(
            self.kind,
            JoinKind::Semi | JoinKind::Anti | JoinKind::Left
        ));
        self.build_left = true;
        self
    }

    fn build_side(&self, ctx: &Arc<ExecContext>) -> Result<Arc<BuildSide>> {
        self.build
            .get_or_init(|| {
                timed(&self.metrics, || {
                    let built = build_table(
                        &self.right,
                        &self.right_keys,
                        null_aware_keys(self.kind),
                        ctx,
                    )
                    .map(Arc::new);
                    if let (Some(f), Ok(b)) = (&self.key_filter, &built) {
                        // The probe scan filters by the first key alone: the
                        // index's own bitmap when that is all it holds
                        // (packed keys are not the first key's values).
                        let main = &b.main;
                        let bits = match (&main.pack, main.keys.len()) {
                            (None, 1) => main.present.clone(),
                            _ => {
                                KeyBitmap::build(&main.keys[..1], b.batch.num_rows()).map(Arc::new)
                            }
                        };
                        f.publish(bits);
                    }
                    built
                })
            })
            .clone()
    }

    /// The whole result when building on the left (see `with_left_build`).
    fn left_build_result(&self, ctx: &Arc<ExecContext>) -> Result<Arc<LeftBuildResult>> {
        self.left_result
            .get_or_init(|| {
                timed(&self.metrics, || {
                    if self.kind == JoinKind::Left {
                        self.run_left_build_outer(ctx).map(Arc::new)
                    } else {
                        let batches = self.run_left_build(ctx)?;
                        Ok(Arc::new(LeftBuildResult {
                            partitions: vec![batches],
                            _memory: None,
                        }))
                    }
                })
            })
            .clone()
    }

    /// A left outer join built on the left: each right partition probes the
    /// left rows' table and keeps its matching pairs (after the filter) and
    /// which left rows they matched; the left rows no partition matched
    /// follow with NULL right columns. The pairs stay in the partitions that
    /// made them, so the operators above go on in parallel.
    fn run_left_build_outer(&self, ctx: &Arc<ExecContext>) -> Result<LeftBuildResult> {
        let build = build_table(&self.left, &self.left_keys, 0, ctx)?;
        let rows = build.batch.num_rows();
        let pair_schema = self.pair_schema();
        let parts = for_each_partition(&self.right, ctx, |stream| {
            let mut matched = vec![false; rows];
            let mut out: Vec<RecordBatch> = Vec::new();
            let mut memory = OwnedReservation::new(ctx);
            let mut li: Vec<u32> = Vec::new();
            let mut ri: Vec<Option<u32>> = Vec::new();
            for batch in stream {
                let right = batch?;
                let n = right.num_rows();
                let keys = build.main.probe_key_columns(&self.right_keys, &right)?;
                let probe = build.main.probe_keys(&keys, n);
                let mut flush = |li: &mut Vec<u32>,
                                 ri: &mut Vec<Option<u32>>,
                                 matched: &mut [bool],
                                 out: &mut Vec<RecordBatch>|
                 -> Result<()> {
                    if li.is_empty() {
                        return Ok(());
                    }
                    ctx.check_cancelled()?;
                    let pairs = check_pairs(
                        &pair_schema,
                        &build.batch,
                        li,
                        &right,
                        ri,
                        self.filter.as_ref(),
                        true,
                        |j| matched[j as usize] = true,
                    )?
                    .expect("kept pairs");
                    if pairs.num_rows() > 0 {
                        memory.grow(pairs.get_array_memory_size())?;
                        out.push(pairs);
                    }
                    li.clear();
                    ri.clear();
                    Ok(())
                };
                for i in 0..n {
                    if probe.is_null(i) {
                        continue;
                    }
                    build.main.for_each_match(&probe, i, |j| {
                        li.push(j as u32);
                        ri.push(Some(i as u32));
                        true
                    });
                    if li.len() >= PAIRS_PER_BATCH {
                        flush(&mut li, &mut ri, &mut matched, &mut out)?;
                    }
                }
                flush(&mut li, &mut ri, &mut matched, &mut out)?;
            }
            Ok((matched, out, memory))
        })?;
        let lonely: Vec<u32> = (0..rows as u32)
            .filter(|&j| !parts.iter().any(|(m, _, _)| m[j as usize]))
            .collect();
        let mut memory = Vec::with_capacity(parts.len());
        let mut partitions: Vec<Vec<RecordBatch>> = Vec::with_capacity(parts.len());
        for (_, out, m) in parts {
            memory.push(m);
            partitions.push(out);
        }
        if !lonely.is_empty() {
            let none = vec![None; lonely.len()];
            let no_right = RecordBatch::new_empty(self.right.schema());
            let rest = pair_batch(&pair_schema, &build.batch, &lonely, &no_right, &none)?;
            partitions[0].push(rest);
        }
        // As many partitions as this operator promises, the batches dealt
        // out in turn.
        let n = self.output_partitions().max(1);
        let mut dealt: Vec<Vec<RecordBatch>> = vec![Vec::new(); n];
        for (k, b) in partitions.into_iter().flatten().enumerate() {
            dealt[k % n].push(RecordBatch::try_new_with_options(
                self.schema.clone(),
                b.columns().to_vec(),
                &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
            )?);
        }
        Ok(LeftBuildResult {
            partitions: dealt,
            _memory: Some(memory),
        })
    }

    fn run_left_build(&self, ctx: &Arc<ExecContext>) -> Result<Vec<RecordBatch>> {
        let build = build_table(&self.left, &self.left_keys, 0, ctx)?;
        let rows = build.batch.num_rows();
        let pair_schema = self.pair_schema();
        // Each right partition marks the left rows it matches in its own
        // vector; they are OR-ed at the end.
        // Marks the left rows of candidate pairs that pass the filter.
        let mark_filtered = |li: &mut Vec<u32>,
                             ri: &mut Vec<Option<u32>>,
                             right: &RecordBatch,
                             matched: &mut [bool]|
         -> Result<()> {
            let Some(f) = &self.filter else {
                return Ok(());
            };
            if li.is_empty() {
                return Ok(());
            }
            ctx.check_cancelled()?;
            let mark = |j: u32| matched[j as usize] = true;
            check_pairs(
                &pair_schema,
                &build.batch,
                li,
                right,
                ri,
                Some(f),
                false,
                mark,
            )?;
            li.clear();
            ri.clear();
            Ok(())
        };
        let marks = for_each_partition(&self.right, ctx, |stream| {
            let mut matched = vec![false; rows];
            for batch in stream {
                let right = batch?;
                let n = right.num_rows();
                let keys = build.main.probe_key_columns(&self.right_keys, &right)?;
                let probe = build.main.probe_keys(&keys, n);
                let mut li: Vec<u32> = Vec::new();
                let mut ri: Vec<Option<u32>> = Vec::new();
                let mut visit = |i: usize| -> Result<()> {
                    if probe.is_null(i) {
                        return Ok(());
                    }
                    build.main.for_each_match(&probe, i, |j| {
                        // A left row already matched needs no more pairs.
                        if !matched[j] {
                            if self.filter.is_some() {
                                li.push(j as u32);
                                ri.push(Some(i as u32));
                            } else {
                                matched[j] = true;
                            }
                        }
                        true
                    });
                    if li.len() >= PAIRS_PER_BATCH {
                        mark_filtered(&mut li, &mut ri, &right, &mut matched)?;
                    }
                    Ok(())
                };
                // Q21: 6M lineitem rows against 75k indexed orders.
                match build.main.sift(&probe) {
                    Some(rows) => rows.iter().try_for_each(|&i| visit(i as usize))?,
                    None => (0..n).try_for_each(&mut visit)?,
                }
                mark_filtered(&mut li, &mut ri, &right, &mut matched)?;
            }
            Ok(matched)
        })?;
        let want = self.kind == JoinKind::Semi;
        let keep = BooleanBuffer::collect_bool(rows, |j| marks.iter().any(|m| m[j]) == want);
        let out = arrow_select::filter::filter_record_batch(
            &build.batch,
            &BooleanArray::new(keep, None),
        )?;
        Ok(vec![RecordBatch::try_new_with_options(
            self.schema.clone(),
            out.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(out.num_rows())),
        )?])
    }

    /// Left columns followed by right ones (nullable), as filters see them.
    fn pair_schema(&self) -> SchemaRef {
        let mut fields: Vec<_> = self.left.schema().fields().iter().cloned().collect();
        fields.extend(
            self.right
                .schema()
                .fields()
                .iter()
                .map(|f| Arc::new(f.as_ref().clone().with_nullable(true))),
        );
        Arc::new(arrow_schema::Schema::new(fields))
    }
}

/// How many leading join keys compare null-aware (IN keys).
fn null_aware_keys(kind: JoinKind) -> usize {
    match kind {
        JoinKind::NullAwareAnti { null_aware } | JoinKind::Mark { null_aware, .. } => null_aware,
        _ => 0,
    }
}

/// Drains all partitions of `plan` into one batch and indexes it by
/// `key_exprs`, the first `in_keys` of them null-aware.
fn build_table(
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

/// Columns of `left` rows `li` next to `right` rows `ri` (None = NULLs).
/// Candidate pairs (row `li[k]` of `left` with row `ri[k]` of `right`, or
/// NULLs) through the join's non-equi `filter`: calls `passed(li[k])` for
/// each pair that passes (all of them without a filter) and, when `keep`,
/// returns the passing pairs as one batch of `schema`.
#[allow(clippy::too_many_arguments)]
fn check_pairs(
    schema: &SchemaRef,
    left: &RecordBatch,
    li: &[u32],
    right: &RecordBatch,
    ri: &[Option<u32>],
    filter: Option<&PhysicalExpr>,
    keep: bool,
    mut passed: impl FnMut(u32),
) -> Result<Option<RecordBatch>> {
    if filter.is_none() && !keep {
        li.iter().for_each(|&i| passed(i));
        return Ok(None);
    }
    let pairs = pair_batch(schema, left, li, right, ri)?;
    let mask = filter.map(|f| f.evaluate_mask(&pairs)).transpose()?;
    for (k, &i) in li.iter().enumerate() {
        if mask.as_ref().is_none_or(|m| m.value(k)) {
            passed(i);
        }
    }
    Ok(match (keep, mask) {
        (false, _) => None,
        (true, Some(m)) => Some(arrow_select::filter::filter_record_batch(&pairs, &m)?),
        (true, None) => Some(pairs),
    })
}

fn pair_batch(
    schema: &SchemaRef,
    left: &RecordBatch,
    li: &[u32],
    right: &RecordBatch,
    ri: &[Option<u32>],
) -> Result<RecordBatch> {
    let li = UInt32Array::from(li.to_vec());
    let ri = UInt32Array::from(ri.to_vec());
    let mut cols: Vec<ArrayRef> = Vec::with_capacity(left.num_columns() + right.num_columns());
    for c in left.columns() {
        cols.push(arrow_select::take::take(c, &li, None)?);
    }
    for c in right.columns() {
        cols.push(arrow_select::take::take(c, &ri, None)?);
    }
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        cols,
        &RecordBatchOptions::new().with_row_count(Some(li.len())),
    )?)
}

struct Prober {
    kind: JoinKind,
    left_keys: Vec<PhysicalExpr>,
    filter: Option<PhysicalExpr>,
    /// Left ++ right columns, for evaluating the filter and for inner/outer output.
    pair_schema: SchemaRef,
    out_schema: SchemaRef,
    build: Arc<BuildSide>,
    cancel: crate::context::CancelToken,
}

/// About how many rows a probe yields at a time: a probe batch whose rows
/// find many matches each (a cross join, a key shared by many build rows)
/// is probed a slice at a time, so that what is in flight stays bounded.
const OUTPUT_ROWS: usize = 64 * 1024;

/// The probe side's batches, probed lazily a slice at a time; the slice
/// follows the matches per row seen so far.
struct ProbeStream {
    input: BatchStream,
    prober: Prober,
    pending: std::collections::VecDeque<RecordBatch>,
    /// The probe batch being worked through, and where its next slice starts.
    current: Option<(RecordBatch, usize)>,
    slice_rows: usize,
}

impl Iterator for ProbeStream {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if let Some(b) = self.pending.pop_front() {
                return Some(Ok(b));
            }
            let (batch, at) = match self.current.take() {
                Some(c) => c,
                None => match self.input.next()? {
                    Ok(b) => (b, 0),
                    Err(e) => return Some(Err(e)),
                },
            };
            let len = self.slice_rows.min(batch.num_rows() - at);
            let slice = if at == 0 && len == batch.num_rows() {
                batch.clone()
            } else {
                batch.slice(at, len)
            };
            match self.prober.probe(slice) {
                Ok((out, used)) => {
                    // The probe may stop early: what it left is next.
                    if at + used < batch.num_rows() {
                        self.current = Some((batch, at + used));
                    }
                    let rows: usize = out.iter().map(|b| b.num_rows()).sum();
                    // Size the next slice to yield about OUTPUT_ROWS rows.
                    let per_row = rows.div_ceil(used.max(1)).max(1);
                    self.slice_rows = (OUTPUT_ROWS / per_row).max(1);
                    self.pending
                        .extend(out.into_iter().filter(|b| b.num_rows() > 0));
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// What a probe row found on the build side, for NOT IN and mark joins.
const NO_MATCH: u8 = 0;
/// A row of its subquery equals it but for NULLs: IN is NULL.
const POSSIBLE_MATCH: u8 = 1;
const MATCH: u8 = 2;

impl Prober {
    /// The output for a prefix of `left`'s rows, and how many rows that
    /// is: all of them, unless their pairs passed [`OUTPUT_ROWS`] first
    /// (then the rows up to the one that did).
    fn probe(&self, left: RecordBatch) -> Result<(Vec<RecordBatch>, usize)> {
        if matches!(
            self.kind,
            JoinKind::NullAwareAnti { .. } | JoinKind::Mark { .. }
        ) {
            let n = left.num_rows();
            return Ok((self.probe_null_aware(left)?, n));
        }
        let n = left.num_rows();
        let build = &self.build;
        let keys = build.main.probe_key_columns(&self.left_keys, &left)?;
        let probe = build.main.probe_keys(&keys, n);
        let probe = &probe;
        let null_key = |i: usize| probe.is_null(i);
        let mut out = Vec::new();
        match (self.kind, &self.filter) {
            (JoinKind::Semi | JoinKind::Anti, None) => {
                let want = self.kind == JoinKind::Semi;
                if let Some(found) = build.main.matches_exactly(probe, n) {
                    // A NULL key matches nothing: semi drops it, anti keeps it.
                    let found = match keys[0].nulls.as_ref() {
                        Some(valid) => &found & valid.inner(),
                        None => found,
                    };
                    let keep = if want { found } else { !&found };
                    let mask = BooleanArray::new(keep, None);
                    out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
                    return Ok((self.with_out_schema(out)?, n));
                }
                let mask: BooleanArray = (0..n)
                    .map(|i| {
                        Some(
                            !null_key(i) && build.main.has_match(probe, i) == want
                                || (!want && null_key(i)),
                        )
                    })
                    .collect();
                out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
            }
            _ => {
                // Gather candidate pairs, check the filter, then shape the output by kind.
                let mut matched = vec![0u32; n];
                let mut li: Vec<u32> = Vec::new();
                let mut ri: Vec<Option<u32>> = Vec::new();
                let flush = |li: &mut Vec<u32>,
                             ri: &mut Vec<Option<u32>>,
                             matched: &mut [u32],
                             out: &mut Vec<RecordBatch>|
                 -> Result<()> {
                    if li.is_empty() {
                        return Ok(());
                    }
                    self.cancel.check()?;
                    // Only these kinds output the pairs; the others count matches.
                    let keep = matches!(
                        self.kind,
                        JoinKind::Inner | JoinKind::Left | JoinKind::Single
                    );
                    let pairs = check_pairs(
                        &self.pair_schema,
                        &left,
                        li,
                        &build.batch,
                        ri,
                        self.filter.as_ref(),
                        keep,
                        |i| matched[i as usize] += 1,
                    )?;
                    if let Some(pairs) = pairs.filter(|p| p.num_rows() > 0) {
                        out.push(pairs);
                    }
                    li.clear();
                    ri.clear();
                    Ok(())
                };
                // Pairs made so far; past OUTPUT_ROWS the rest of the rows
                // wait for the next call.
                let mut paired = 0usize;
                let mut used = n;
                let mut visit = |i: usize| -> Result<bool> {
                    if null_key(i) {
                        return Ok(true);
                    }
                    let before = li.len();
                    build.main.for_each_match(probe, i, |j| {
                        li.push(i as u32);
                        ri.push(Some(j as u32));
                        true
                    });
                    paired += li.len() - before;
                    if li.len() >= PAIRS_PER_BATCH {
                        flush(&mut li, &mut ri, &mut matched, &mut out)?;
                    }
                    Ok(paired < OUTPUT_ROWS)
                };
                let sifted = build.main.sift(probe);
                let rows: Box<dyn Iterator<Item = usize>> = match &sifted {
                    Some(rows) => Box::new(rows.iter().map(|&i| i as usize)),
                    None => Box::new(0..n),
                };
                for i in rows {
                    if !visit(i)? {
                        used = i + 1;
                        break;
                    }
                }
                flush(&mut li, &mut ri, &mut matched, &mut out)?;
                let left = if used < n { left.slice(0, used) } else { left };
                let matched = &matched[..used];
                let n = used;
                match self.kind {
                    JoinKind::Inner => {}
                    JoinKind::Left | JoinKind::Single => {
                        if self.kind == JoinKind::Single && matched.iter().any(|m| *m > 1) {
                            return Err(QuiverError::subquery_rows());
                        }
                        let lonely: Vec<u32> = (0..n as u32)
                            .filter(|i| matched[*i as usize] == 0)
                            .collect();
                        if !lonely.is_empty() {
                            let none = vec![None; lonely.len()];
                            out.push(pair_batch(
                                &self.pair_schema,
                                &left,
                                &lonely,
                                &build.batch,
                                &none,
                            )?);
                        }
                    }
                    JoinKind::Semi => {
                        let mask: BooleanArray = matched.iter().map(|m| Some(*m > 0)).collect();
                        out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
                    }
                    JoinKind::Anti => {
                        let mask: BooleanArray = matched.iter().map(|m| Some(*m == 0)).collect();
                        out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
                    }
                    JoinKind::NullAwareAnti { .. } | JoinKind::Mark { .. } => {
                        unreachable!("probed by probe_null_aware")
                    }
                }
                return Ok((self.with_out_schema(out)?, n));
            }
        }
        Ok((self.with_out_schema(out)?, n))
    }

    /// NOT IN keeps the rows with no match, possible or exact; a mark join
    /// appends TRUE / NULL / FALSE for match / possible match / none.
    fn probe_null_aware(&self, left: RecordBatch) -> Result<Vec<RecordBatch>> {
        let state = self.match_states(&left)?;
        let out = match self.kind {
            JoinKind::Mark { .. } => {
                let mark: BooleanArray = state
                    .iter()
                    .map(|s| match *s {
                        MATCH => Some(true),
                        POSSIBLE_MATCH => None,
                        _ => Some(false),
                    })
                    .collect();
                let mut cols = left.columns().to_vec();
                cols.push(Arc::new(mark));
                vec![RecordBatch::try_new_with_options(
                    self.out_schema.clone(),
                    cols,
                    &RecordBatchOptions::new().with_row_count(Some(left.num_rows())),
                )?]
            }
            _ => {
                let keep: BooleanArray = state.iter().map(|s| Some(*s == NO_MATCH)).collect();
                vec![arrow_select::filter::filter_record_batch(&left, &keep)?]
            }
        };
        self.with_out_schema(out)
    }

    /// For each probe row: MATCH if a build row equals it on every key (none
    /// NULL) and passes the filter; else POSSIBLE_MATCH if a build row of its
    /// correlation group (strict keys equal, filter true) is, on each IN key,
    /// NULL on either side or equal; else NO_MATCH.
    fn match_states(&self, left: &RecordBatch) -> Result<Vec<u8>> {
        let n = left.num_rows();
        let build = &self.build;
        let mut state = vec![NO_MATCH; n];
        if build.batch.num_rows() == 0 {
            return Ok(state);
        }
        let all_keys = key_columns(&self.left_keys, left)?;
        let mut pairs = PairMarks::default();
        {
            let packed;
            let keys: &[KeyColumn] = match &build.main.pack {
                Some(p) => {
                    packed = [p.pack(&all_keys, n)];
                    &packed
                }
                None => &all_keys,
            };
            let probe = build.main.probe_keys(keys, n);
            for i in 0..n {
                if probe.is_null(i) {
                    continue;
                }
                if self.filter.is_none() {
                    if build.main.has_match(&probe, i) {
                        state[i] = MATCH;
                    }
                    continue;
                }
                build.main.for_each_match(&probe, i, |j| {
                    pairs.push(i, j);
                    true
                });
                if pairs.len() >= PAIRS_PER_BATCH {
                    self.flush_marks(left, &mut pairs, &mut state, MATCH)?;
                }
            }
            self.flush_marks(left, &mut pairs, &mut state, MATCH)?;
        }
        let Some(na) = &build.null_aware else {
            return Ok(state);
        };
        let (probe_in, probe_group) = all_keys.split_at(na.in_keys);
        let probe_has_null = probe_in
            .iter()
            .any(|k| k.nulls.as_ref().is_some_and(|b| b.null_count() > 0));
        // Without NULLs in the IN keys on either side, exact is all there is.
        if na.with_null.is_none() && !probe_has_null {
            return Ok(state);
        }
        let build_in = &build.main.keys[..na.in_keys];
        let group_keys = na.group.shape_probe_keys(probe_group.to_vec(), n);
        let group = na.group.probe_keys(&group_keys, n);
        for i in 0..n {
            // No correlation group (a NULL correlation key): the subquery is empty.
            if state[i] != NO_MATCH || group.is_null(i) {
                continue;
            }
            let index = if any_null(probe_in, i) {
                &na.group.index
            } else {
                match &na.with_null {
                    Some(index) => index,
                    None => continue,
                }
            };
            let mut found = false;
            index.for_each_match(&na.group.keys, &group, i, |j| {
                let possible = probe_in
                    .iter()
                    .zip(build_in)
                    .all(|(p, b)| p.is_null(i) || b.is_null(j) || p.eq(i, b, j));
                if possible {
                    if self.filter.is_none() {
                        found = true;
                        return false;
                    }
                    pairs.push(i, j);
                }
                true
            });
            if found {
                state[i] = POSSIBLE_MATCH;
            }
            if pairs.len() >= PAIRS_PER_BATCH {
                self.flush_marks(left, &mut pairs, &mut state, POSSIBLE_MATCH)?;
            }
        }
        self.flush_marks(left, &mut pairs, &mut state, POSSIBLE_MATCH)?;
        Ok(state)
    }

    /// Sets `state` of the probe rows of `pairs` that pass the filter to `to`
    /// (unless already set), then empties `pairs`.
    fn flush_marks(
        &self,
        left: &RecordBatch,
        pairs: &mut PairMarks,
        state: &mut [u8],
        to: u8,
    ) -> Result<()> {
        if pairs.li.is_empty() {
            return Ok(());
        }
        self.cancel.check()?;
        check_pairs(
            &self.pair_schema,
            left,
            &pairs.li,
            &self.build.batch,
            &pairs.ri,
            self.filter.as_ref(),
            false,
            |i| {
                let s = &mut state[i as usize];
                *s = (*s).max(to);
            },
        )?;
        pairs.li.clear();
        pairs.ri.clear();
        Ok(())
    }

    fn with_out_schema(&self, out: Vec<RecordBatch>) -> Result<Vec<RecordBatch>> {
        // Output columns are exactly the pair columns or the left columns.
        out.into_iter()
            .filter(|b| b.num_rows() > 0)
            .map(|b| {
                Ok(RecordBatch::try_new_with_options(
                    self.out_schema.clone(),
                    b.columns().to_vec(),
                    &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
                )?)
            })
            .collect()
    }
}

/// Candidate (probe row, build row) pairs waiting for the filter.
#[derive(Default)]
struct PairMarks {
    li: Vec<u32>,
    ri: Vec<Option<u32>>,
}

impl PairMarks {
    fn push(&mut self, i: usize, j: usize) {
        self.li.push(i as u32);
        self.ri.push(Some(j as u32));
    }

    fn len(&self) -> usize {
        self.li.len()
    }
}

impl ExecutionPlan for HashJoinExec {
    fn describe(&self) -> String {
        let side = if self.build_left { " (build left)" } else { "" };
        format!("HashJoin {:?}{side} {}", self.kind, self.text)
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.left.clone(), self.right.clone()]
    }
    fn output_partitions(&self) -> usize {
        self.left.output_partitions()
    }
    fn execute(&self, partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        if self.build_left {
            let result = self.left_build_result(ctx)?;
            let batches: Vec<Result<RecordBatch>> = result
                .partitions
                .get(partition)
                .map(|p| p.iter().cloned().map(Ok).collect())
                .unwrap_or_default();
            return Ok(metered(Box::new(batches.into_iter()), &self.metrics));
        }
        let build = self.build_side(ctx)?;
        let left = self.left.execute(partition, ctx)?;
        let prober = Prober {
            kind: self.kind,
            left_keys: self.left_keys.clone(),
            filter: self.filter.clone(),
            pair_schema: self.pair_schema(),
            out_schema: self.schema.clone(),
            build,
            cancel: ctx.cancel.clone(),
        };
        // Without keys every probe row meets every build row.
        let fanout = if self.left_keys.is_empty() {
            prober.build.batch.num_rows().max(1)
        } else {
            1
        };
        let stream = ProbeStream {
            input: left,
            prober,
            pending: Default::default(),
            current: None,
            slice_rows: (OUTPUT_ROWS / fanout).max(1),
        };
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int64Array;

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
        filter.publish(index.present.clone());
        let mask = may_match(&filter, &key, &batch).unwrap();
        for (i, p) in probe.iter().enumerate() {
            let want = p.is_some_and(|p| build.contains(&Some(p)));
            assert_eq!(mask.value(i), want, "row {i}: {p:?}");
        }
        // Dense build keys: no bitmap, every row may match.
        let dense: Vec<Option<i64>> = (0..5000).map(Some).collect();
        let index = KeyIndex::build(int_keys(&dense), dense.len());
        let filter = JoinKeyFilter::default();
        filter.publish(index.present.clone());
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
