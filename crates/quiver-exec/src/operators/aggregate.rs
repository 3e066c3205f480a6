//! Hash aggregation in two phases: every input partition aggregates into a
//! table of its own (no sharing, no locks), then the partial tables are merged.
//! Accumulators keep their state in flat vectors indexed by group id and are
//! updated a batch at a time with typed loops.

use hashbrown::HashSet;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::{i256, NullBuffer};
use arrow_schema::{DataType, SchemaRef};
use hashbrown::HashTable;
use quiver_collation::{with_collator, Collation};
use quiver_common::types::{is_decimal, pow10, rescale, rescale256, trim_pad};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{AggFunc, ScalarFunc};

use super::exec_plan::{for_each_partition, metered, timed, BatchStream, ExecutionPlan, Metrics};
use super::group_concat::{GroupConcatAcc, GroupConcatSpec};
use super::int_group_map::IntGroupMap;
use super::min_max_str::min_max_strs;
use super::packed_keys::{str_key_array, PackedLayout};
use super::scan::{take_scan_position, ScanPosition};
use super::str_group_map::{splice, StrGroupMap};
use crate::bytes::{byte_view, is_binary};
use crate::context::OwnedReservation;
use crate::expr::{cast_array, scaled_div, PhysicalExpr};
use crate::hash::{hash_rows, GroupKeys, KeyColumn, KeyValues};
use crate::ExecContext;

#[derive(Debug, Clone)]
pub struct AggregateSpec {
    pub func: AggFunc,
    pub arg: Option<PhysicalExpr>,
    pub distinct: bool,
    pub output_type: DataType,
    pub text: String,
    /// GROUP_CONCAT's arguments and clauses (`arg` is None).
    pub concat: Option<Arc<GroupConcatSpec>>,
}

#[derive(Debug)]
pub struct AggregateExec {
    input: Arc<dyn ExecutionPlan>,
    group: Vec<PhysicalExpr>,
    group_types: Vec<DataType>,
    aggs: Vec<AggregateSpec>,
    schema: SchemaRef,
    text: String,
    output: OnceLock<Result<Arc<Vec<RecordBatch>>>>,
    metrics: Arc<Metrics>,
}

impl AggregateExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        group: Vec<PhysicalExpr>,
        group_types: Vec<DataType>,
        aggs: Vec<AggregateSpec>,
        schema: SchemaRef,
        text: String,
    ) -> Self {
        AggregateExec {
            input,
            group,
            group_types,
            aggs,
            schema,
            text,
            output: OnceLock::new(),
            metrics: Default::default(),
        }
    }

    fn run(&self, ctx: &Arc<ExecContext>) -> Result<Arc<Vec<RecordBatch>>> {
        // With several partitions a group's rows, and the spellings of its
        // key, are spread over partial tables: where equal keys can differ
        // in their bytes, each table notes where its groups were first seen
        // so that the merge keeps the spelling of the first row.
        let several = self.input.output_partitions() > 1;
        let keys = several && self.keys_can_differ();
        let values = several && self.values_can_differ();
        // GROUP_CONCAT shows rows in input order (or ties of its ORDER BY).
        let ordered = several && self.aggs.iter().any(|a| a.concat.is_some());
        let track = keys || values || ordered;
        let tables = for_each_partition(&self.input, ctx, |stream| {
            let mut table = GroupTable::tracking(&self.group_types, &self.aggs, keys, values);
            let mut memory = OwnedReservation::new(ctx);
            let mut reserved = 0;
            // Positions are those of batches pulled from here on.
            take_scan_position();
            for batch in stream {
                let batch = batch?;
                ctx.check_cancelled()?;
                let at = if track {
                    table.batch_position(take_scan_position())
                } else {
                    0
                };
                table.update_at(&batch, &self.group, &self.aggs, at)?;
                let size = table.memory_size();
                if size > reserved + (1 << 20) {
                    memory.grow(size - reserved)?;
                    reserved = size;
                }
            }
            Ok((table, memory))
        })?;
        let classes = order_classes(tables.iter().map(|(t, _)| t.seen.scan));
        let mut it = tables.into_iter().zip(classes);
        let ((mut total, _m), class) = it
            .next()
            .ok_or_else(|| QuiverError::internal("aggregate without input partitions"))?;
        total.set_class(class);
        let mut keep = vec![_m];
        let mut it = it.peekable();
        while let Some(((t, m), class)) = it.next() {
            total.merge_in(t, class, it.peek().is_none())?;
            keep.push(m);
        }
        let batch = total.finish(&self.schema, &self.aggs)?;
        Ok(Arc::new(vec![batch]))
    }

    /// Whether two rows of one group can show different keys: some key is
    /// a string under a collation where equal is not identical (case or
    /// accents fold, or trailing spaces pad).
    fn keys_can_differ(&self) -> bool {
        self.group
            .iter()
            .zip(&self.group_types)
            .any(|(g, t)| is_string_type(t) && !is_binary(t) && !is_exact(g.collation()))
    }

    /// Whether a string MIN or MAX can tie distinct values.
    fn values_can_differ(&self) -> bool {
        self.aggs.iter().any(|a| {
            !a.distinct
                && matches!(a.func, AggFunc::Min | AggFunc::Max)
                && a.output_type == DataType::Utf8
                && a.arg.as_ref().is_some_and(|e| !is_exact(e.collation()))
        })
    }
}

fn is_string_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
    )
}

/// Whether strings equal under `c` are the same bytes.
fn is_exact(c: Collation) -> bool {
    c.is_binary_eq() && !c.is_pad_space()
}

/// Which scan a partial table's positions are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum SeenIn {
    /// No batch yet.
    #[default]
    Nothing,
    /// Every batch came from this scan (`ScanPosition::scan`).
    Scan(usize),
    /// Some batch came from no known scan position, or from another scan:
    /// positions only order the table's own rows.
    Unknown,
}

/// Where the rows of each partial table (in partition order) are in the
/// input, as the high bits of their positions: the partitions of one scan
/// share the class of the first of them (their morsels order their rows),
/// any other partition is a class of its own, and classes go in partition
/// order (the inputs of a UNION ALL in turn).
fn order_classes(scans: impl Iterator<Item = SeenIn>) -> Vec<Position> {
    let scans: Vec<SeenIn> = scans.collect();
    (0..scans.len())
        .map(|p| {
            let first = match scans[p] {
                SeenIn::Scan(id) => scans
                    .iter()
                    .position(|s| *s == SeenIn::Scan(id))
                    .unwrap_or(p),
                _ => p,
            };
            (first.min(CLASS_MAX as usize) as Position) << CLASS_SHIFT
        })
        .collect()
}

/// A row's position as far as rows of different partial tables compare:
/// its table's class, then the morsel (or batch) it came in. The rows of
/// one morsel are all in one table, which keeps first-seen order itself.
pub(super) type Position = u32;
const CLASS_SHIFT: u32 = 24;
const CLASS_MAX: Position = (1 << (Position::BITS - CLASS_SHIFT)) - 1;
const MORSEL_MAX: u64 = (1 << CLASS_SHIFT) - 1;
/// The position of a group (or value) not seen.
const UNSEEN: Position = Position::MAX;
/// In [`FirstSeen::reps`]: the group shows its own key.
const OWN_KEY: u32 = u32::MAX;

impl FirstSeen {
    /// Notes the position of the groups a batch at `at` made (ids from
    /// `first.len()` up to `groups`).
    fn record(&mut self, groups: usize, at: Position) {
        if self.first.len() < groups {
            self.first.resize(groups, at);
        }
    }

    /// Groups shown with the key of a merged table: (group, source, row)
    /// by group, one for each (the last merged).
    fn final_reps(&self) -> Vec<(u32, u32, u32)> {
        let mut reps = self.reps.clone();
        // Stable: in merge order within a group.
        reps.sort_by_key(|r| r.0);
        let mut out: Vec<(u32, u32, u32)> = Vec::with_capacity(reps.len());
        for r in reps {
            match out.last_mut() {
                Some(l) if l.0 == r.0 => *l = r,
                _ => out.push(r),
            }
        }
        out
    }

    /// For string key column `c` whose group `g` shows `current(g)` (None:
    /// NULL), the groups to show another key, and that key (in group
    /// order): where the bytes differ (mostly they do not).
    fn patches<'a>(
        &'a self,
        reps: &[(u32, u32, u32)],
        c: usize,
        current: impl Fn(usize) -> Option<&'a [u8]>,
    ) -> Vec<(usize, &'a [u8])> {
        let mut patches = vec![];
        for &(g, src, k) in reps {
            let (g, k) = (g as usize, k as usize);
            if src == OWN_KEY {
                continue;
            }
            let Some(o) = self.sources[src as usize][c].as_string_opt::<i32>() else {
                continue;
            };
            if o.is_valid(k) {
                let v = o.value(k).as_bytes();
                if current(g).is_some_and(|cur| cur != v) {
                    patches.push((g, v));
                }
            }
        }
        patches
    }

    /// The key columns `keys` (one value per group) with the keys of
    /// groups first seen in a merged table taken from that table, where
    /// their bytes differ.
    fn representatives(&self, keys: Vec<ArrayRef>) -> Result<Vec<ArrayRef>> {
        if self.reps.is_empty() {
            return Ok(keys);
        }
        let reps = self.final_reps();
        keys.iter()
            .enumerate()
            .map(|(c, a)| {
                let Some(s) = a.as_string_opt::<i32>() else {
                    // Values of other types that group together are the same.
                    return Ok(a.clone());
                };
                let patches =
                    self.patches(&reps, c, |g| s.is_valid(g).then(|| s.value(g).as_bytes()));
                Ok(match patches.is_empty() {
                    true => a.clone(),
                    false => Arc::new(patch_strings(s, &patches)?) as ArrayRef,
                })
            })
            .collect()
    }
}

/// `a` with the values of rows `patches` (in row order) replaced.
fn patch_strings(
    a: &arrow_array::StringArray,
    patches: &[(usize, &[u8])],
) -> Result<arrow_array::StringArray> {
    let offsets = a.value_offsets();
    let (offsets, bytes) = splice(a.len(), |i| offsets[i] as usize, a.value_data(), patches)?;
    arrow_array::StringArray::try_new(
        arrow_buffer::OffsetBuffer::new(offsets.into()),
        bytes.into(),
        a.nulls().cloned(),
    )
    .map_err(|e| QuiverError::internal(format!("GROUP BY keys: {e}")))
}

/// First-seen bookkeeping of a partial table (see [`AggregateExec::run`]).
#[derive(Debug, Default)]
struct FirstSeen {
    /// Which scan the positions are in.
    scan: SeenIn,
    /// Batches so far: the position of a batch no scan position came with.
    batches: u64,
    /// Whether positions are kept at all.
    on: bool,
    /// Per group, the position of its first row.
    first: Vec<Position>,
    /// Groups whose first row is in a table merged in later, in merge
    /// order (a later entry for a group replaces an earlier one): group
    /// `.0` shows row `.2` of `sources[.1]` (its own key for `OWN_KEY`).
    reps: Vec<(u32, u32, u32)>,
    /// Key arrays of merged tables that hold some group's first row.
    sources: Vec<Vec<ArrayRef>>,
}

impl ExecutionPlan for AggregateExec {
    fn describe(&self) -> String {
        format!("HashAggregate {}", self.text)
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.input.clone()]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let out = self
            .output
            .get_or_init(|| timed(&self.metrics, || self.run(ctx)))
            .clone()?;
        let batches: Vec<Result<RecordBatch>> = out
            .iter()
            .filter(|b| b.num_rows() > 0)
            .cloned()
            .map(Ok)
            .collect();
        Ok(metered(Box::new(batches.into_iter()), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// Groups found so far and their accumulators. With exactly one key whose
/// values are integers (`KeyValues::Int`) the groups live in an
/// `IntGroupMap`, as do keys that pack into one integer (`PackedLayout`: a
/// short string, or a pair of integers and short strings); otherwise keys are
/// hashed row-wise into `map` and stored in `keys`. Either way group ids are
/// dense and in first-seen order.
struct GroupTable {
    types: Vec<DataType>,
    keys: Option<GroupKeys>,
    hashes: Vec<u64>,
    map: HashTable<u32>,
    /// The integer-key path; set by the first batch whose one key column is
    /// `KeyValues::Int` (a key's shape follows from its type) or whose keys pack.
    ints: Option<IntGroupMap>,
    /// How the keys in `ints` are packed, if they are.
    packed: Option<PackedLayout>,
    /// One string key under the default collation that does not pack.
    strs: Option<StrGroupMap>,
    groups: usize,
    accs: Vec<Acc>,
    /// Where groups were first seen, when kept (see [`AggregateExec::run`]).
    seen: FirstSeen,
}

impl GroupTable {
    /// A table that keeps no positions (one partition, or keys and values
    /// where equal is identical).
    #[cfg(test)]
    fn new(types: &[DataType], aggs: &[AggregateSpec]) -> GroupTable {
        GroupTable::tracking(types, aggs, false, false)
    }

    /// A table that notes where each group was first seen (with `keys`)
    /// and where each string MIN/MAX of a collation that ties distinct
    /// values was (with `values`).
    fn tracking(
        types: &[DataType],
        aggs: &[AggregateSpec],
        keys: bool,
        values: bool,
    ) -> GroupTable {
        let groups = if types.is_empty() { 1 } else { 0 };
        let mut accs: Vec<Acc> = aggs.iter().map(|a| Acc::new(a, values)).collect();
        for a in &mut accs {
            a.resize(groups);
        }
        GroupTable {
            seen: FirstSeen {
                on: keys && !types.is_empty(),
                ..Default::default()
            },
            types: types.to_vec(),
            keys: None,
            hashes: vec![],
            map: HashTable::new(),
            ints: None,
            packed: None,
            strs: None,
            groups,
            accs,
        }
    }

    fn memory_size(&self) -> usize {
        self.keyed_size() + self.accs.iter().map(Acc::held_bytes).sum::<usize>()
    }

    fn keyed_size(&self) -> usize {
        if let Some(m) = &self.strs {
            return m.memory_size() + self.groups * 16 * self.accs.len();
        }
        match &self.ints {
            Some(m) => m.memory_size() + self.groups * 16 * self.accs.len(),
            None => {
                self.keys.as_ref().map(|k| k.memory_size()).unwrap_or(0)
                    + self.groups * (12 + 16 * self.accs.len())
            }
        }
    }

    /// Group ids of the rows of `keys`, creating groups as needed.
    fn group_ids(&mut self, keys: &[KeyColumn], rows: usize) -> Result<Vec<u32>> {
        if self.types.is_empty() {
            return Ok(vec![0; rows]);
        }
        if self.keys.is_none() {
            if let [KeyColumn {
                values: KeyValues::Int(values),
                nulls,
                ..
            }] = keys
            {
                let m = self.ints.get_or_insert_with(IntGroupMap::new);
                let mut ids = Vec::with_capacity(rows);
                m.group_ids(&values[..rows], nulls.as_ref(), &mut ids);
                self.groups = m.len();
                return Ok(ids);
            }
            let layout = match (self.packed, &self.ints) {
                (Some(l), _) => Some(l),
                (None, None) if self.strs.is_none() => PackedLayout::of(keys, &self.types),
                (None, None) => None,
                (None, Some(_)) => None,
            };
            if let Some((layout, packed)) = layout.and_then(|l| Some((l, l.pack(keys, rows)?))) {
                self.packed = Some(layout);
                let nulls = match keys {
                    [k] => k.nulls.as_ref(),
                    _ => None,
                };
                let m = self.ints.get_or_insert_with(IntGroupMap::new);
                let before = m.len();
                let mut ids = Vec::with_capacity(rows);
                m.group_ids(&packed, nulls, &mut ids);
                if !layout.spaced(keys, &m.keys()[before..]) {
                    self.groups = m.len();
                    return Ok(ids);
                }
                // A new group with a trailing space: the groups before this
                // batch move to the general table, which takes the batch.
                self.groups = before;
            }
        }
        if let Some(layout) = self.packed.take() {
            // Keys that do not pack: move the groups so far (`self.groups`
            // of them) to the general table, in id order so that every
            // group keeps its id.
            let m = self.ints.take().expect("packed groups");
            let kept = std::mem::take(&mut self.groups);
            let mut old = layout.unpack(&m.keys()[..kept], Some(&m.validity()[..kept]))?;
            // The same key expressions as `keys`: the same collations.
            for (o, k) in old.iter_mut().zip(keys) {
                o.collation = k.collation;
            }
            let ids = self.hashed_group_ids(&old, kept);
            debug_assert!(ids.iter().enumerate().all(|(i, g)| i == *g as usize));
        }
        if self.ints.is_some() {
            return Err(QuiverError::internal(
                "GROUP BY key changed its physical shape between batches",
            ));
        }
        Ok(self.hashed_group_ids(keys, rows))
    }

    /// Keys that do not go to `ints`: one string key into `strs` (under
    /// its collation), anything else into the general table.
    fn hashed_group_ids(&mut self, keys: &[KeyColumn], rows: usize) -> Vec<u32> {
        if let (
            None,
            [KeyColumn {
                values: KeyValues::Str(s),
                nulls,
                collation,
            }],
        ) = (&self.keys, keys)
        {
            let m = self
                .strs
                .get_or_insert_with(|| StrGroupMap::with_collation(*collation));
            let mut ids = Vec::with_capacity(rows);
            m.group_ids(s, nulls.as_ref(), rows, &mut ids);
            self.groups = m.len();
            return ids;
        }
        self.general_group_ids(keys, rows)
    }

    /// Any keys: row hashes into `map`, keys kept in `keys`.
    fn general_group_ids(&mut self, keys: &[KeyColumn], rows: usize) -> Vec<u32> {
        let hashes = hash_rows(keys, rows);
        let store = self
            .keys
            .get_or_insert_with(|| GroupKeys::new(keys, self.types.clone()));
        let mut ids = Vec::with_capacity(rows);
        for (i, &h) in hashes.iter().enumerate() {
            let found = self.map.find(h, |&g| {
                self.hashes[g as usize] == h && store.eq(g as usize, keys, i)
            });
            let g = match found {
                Some(&g) => g,
                None => {
                    let g = self.groups as u32;
                    store.push(keys, i);
                    self.hashes.push(h);
                    let hs = &self.hashes;
                    self.map.insert_unique(h, g, |&x| hs[x as usize]);
                    self.groups += 1;
                    g
                }
            };
            ids.push(g);
        }
        ids
    }

    /// The keys the groups show: [`GroupTable::key_arrays`] with the
    /// spelling of each group's first row (see [`FirstSeen`]).
    fn shown_keys(&self) -> Result<Option<Vec<ArrayRef>>> {
        if self.seen.reps.is_empty() {
            return self.key_arrays();
        }
        if let (Some(m), Some(DataType::Utf8)) = (&self.strs, self.types.first()) {
            // Patched as the keys are copied out of the map.
            let reps = self.seen.final_reps();
            let patches = self.seen.patches(&reps, 0, |g| m.key_bytes(g));
            return Ok(Some(vec![m.keys_patched(&patches)?]));
        }
        self.key_arrays()?
            .map(|k| self.seen.representatives(k))
            .transpose()
    }

    /// The group keys as arrays of the GROUP BY types, in group id order.
    fn key_arrays(&self) -> Result<Option<Vec<ArrayRef>>> {
        // Keys hashed as their text (wide decimals) go back to their type.
        let typed = |a: ArrayRef, t: Option<&DataType>| match t {
            Some(t) if a.data_type() != t => cast_array(&a, t),
            _ => Ok(a),
        };
        if let Some(m) = &self.strs {
            return Ok(Some(vec![typed(m.keys()?, self.types.first())?]));
        }
        if let (Some(layout), Some(m)) = (self.packed, &self.ints) {
            let arrays = layout
                .unpack(m.keys(), Some(&m.validity()))?
                .into_iter()
                .zip(&self.types)
                .map(|(k, t)| match k.values {
                    KeyValues::Int(v) => int_values_array(v, k.nulls, t),
                    _ => typed(
                        str_key_array(&k, t)?.ok_or_else(|| {
                            QuiverError::internal("packed GROUP BY key of an unexpected shape")
                        })?,
                        Some(t),
                    ),
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(Some(arrays));
        }
        if let Some(m) = &self.ints {
            let t = self
                .types
                .first()
                .ok_or_else(|| QuiverError::internal("integer group map without a group key"))?;
            return Ok(Some(vec![int_key_array(m, t)?]));
        }
        self.keys.as_ref().map(|k| k.to_arrays()).transpose()
    }

    /// The position of the first row of the next batch (its class bits
    /// 0), from where its scan says it is.
    fn batch_position(&mut self, p: Option<ScanPosition>) -> Position {
        let f = &mut self.seen;
        f.batches += 1;
        let at = match (p, f.scan) {
            (Some(p), SeenIn::Nothing) => {
                f.scan = SeenIn::Scan(p.scan);
                p.morsel
            }
            (Some(p), SeenIn::Scan(id)) if p.scan == id => p.morsel,
            _ => {
                f.scan = SeenIn::Unknown;
                f.batches
            }
        };
        at.min(MORSEL_MAX) as Position
    }

    /// Puts the table's positions in `class` (see [`order_classes`]).
    fn set_class(&mut self, class: Position) {
        for p in &mut self.seen.first {
            *p |= class;
        }
        for a in &mut self.accs {
            a.set_class(class);
        }
    }

    #[cfg(test)]
    fn update(
        &mut self,
        batch: &RecordBatch,
        group: &[PhysicalExpr],
        aggs: &[AggregateSpec],
    ) -> Result<()> {
        self.update_at(batch, group, aggs, 0)
    }

    /// Adds a batch whose first row is at position `at`.
    fn update_at(
        &mut self,
        batch: &RecordBatch,
        group: &[PhysicalExpr],
        aggs: &[AggregateSpec],
        at: Position,
    ) -> Result<()> {
        let keys = group
            .iter()
            .map(|g| KeyColumn::collated(&g.evaluate_array(batch)?, g.collation()))
            .collect::<Result<Vec<_>>>()?;
        let ids = self.group_ids(&keys, batch.num_rows())?;
        if self.seen.on {
            self.seen.record(self.groups, at);
        }
        for (acc, spec) in self.accs.iter_mut().zip(aggs) {
            acc.resize(self.groups);
            if let Acc::Distinct {
                tuple: Some(parts),
                sets,
                bytes,
                ..
            } = acc
            {
                update_tuples(parts, batch, &ids, sets, bytes)?;
                continue;
            }
            if let Acc::GroupConcat(c) = acc {
                c.update(batch, &ids, at)?;
                continue;
            }
            let arg = spec
                .arg
                .as_ref()
                .map(|a| a.evaluate_array(batch))
                .transpose()?;
            acc.update(&ids, arg.as_ref(), at)?;
        }
        Ok(())
    }

    #[cfg(test)]
    fn merge(&mut self, other: GroupTable) -> Result<()> {
        self.merge_in(other, 0, false)
    }

    /// Folds in the table of a later partition, its positions in `class`
    /// (`last`: no table is merged after it). Where both saw a group, the
    /// key it shows is the one of the earlier first row.
    fn merge_in(&mut self, other: GroupTable, class: Position, last: bool) -> Result<()> {
        let before = self.groups;
        // The other table's keys as arrays, where the merge makes them.
        let mut arrays = None;
        // Per group of the other table, whether its key has other bytes
        // than ours, where known.
        let mut spelled: Option<Vec<bool>> = None;
        let ids: Vec<u32> = match (&other.ints, &other.keys) {
            (Some(m), _) if other.packed.is_some() => {
                let layout = other.packed.expect("checked");
                let mut keys = layout.unpack(m.keys(), Some(&m.validity()))?;
                for (k, t) in keys.iter_mut().zip(&other.types) {
                    // Binary keys compare as bytes, trailing spaces too.
                    if is_binary(t) {
                        k.collation = Some(Collation::binary());
                    }
                }
                self.group_ids(&keys, other.groups)?
            }
            (Some(m), _) => {
                // Its keys in their physical shape already: no round trip
                // through arrays.
                let nulls = m.null_group().map(|_| NullBuffer::from(m.validity()));
                let keys = [KeyColumn {
                    values: KeyValues::Int(m.keys().to_vec()),
                    nulls,
                    collation: None,
                }];
                self.group_ids(&keys, other.groups)?
            }
            (None, None) if other.strs.is_some() => {
                let m = other.strs.as_ref().expect("checked");
                let keys = m.keys()?;
                let key = match m.collation() {
                    Some(c) => KeyColumn::collated(&keys, c)?,
                    None => KeyColumn::new(&keys)?,
                };
                arrays = Some(vec![keys]);
                match (&mut self.strs, &key.values) {
                    // What `group_ids` does with one string key once the
                    // table holds strings, noting spellings.
                    (Some(own), KeyValues::Str(s)) if self.seen.on && self.keys.is_none() => {
                        let mut ids = Vec::with_capacity(other.groups);
                        let mut differs = Vec::with_capacity(other.groups);
                        own.group_ids_spelled(
                            s,
                            key.nulls.as_ref(),
                            other.groups,
                            &mut ids,
                            &mut differs,
                        );
                        self.groups = own.len();
                        spelled = Some(differs);
                        ids
                    }
                    _ => self.group_ids(&[key], other.groups)?,
                }
            }
            (None, None) if self.types.is_empty() => vec![0],
            (None, None) => vec![],
            (None, Some(k)) => {
                let a = k.to_arrays()?;
                let keys = a
                    .iter()
                    .enumerate()
                    .map(|(i, a)| match k.collation(i) {
                        Some(c) => KeyColumn::collated(a, c),
                        None => KeyColumn::new(a),
                    })
                    .collect::<Result<Vec<_>>>()?;
                arrays = Some(a);
                self.group_ids(&keys, other.groups)?
            }
        };
        if self.seen.on {
            let f = &mut self.seen;
            let source = f.sources.len() as u32;
            let mut replaced = false;
            // In the last merge, before any group shows another table's
            // key, a group the other table spells as we do keeps our key
            // (where it was first seen matters no more).
            let skip_same = last && f.reps.is_empty();
            let position = |k: usize| other.seen.first.get(k).map_or(UNSEEN, |p| p | class);
            for (k, &g) in ids.iter().enumerate() {
                let g = g as usize;
                let differs = spelled.as_ref().is_none_or(|d| d[k]);
                if g >= before {
                    // A group new to us: its key is the other table's.
                    if !last {
                        if f.first.len() <= g {
                            f.first.resize(g + 1, UNSEEN);
                        }
                        f.first[g] = position(k);
                    }
                    continue;
                }
                if !differs && skip_same {
                    continue;
                }
                let p = position(k);
                if p < f.first[g] {
                    f.first[g] = p;
                    if differs {
                        f.reps.push((g as u32, source, k as u32));
                        replaced = true;
                    } else if !f.reps.is_empty() {
                        // Our own key again, over any other shown before.
                        f.reps.push((g as u32, OWN_KEY, 0));
                    }
                }
            }
            if replaced {
                let keys = match arrays {
                    Some(a) => a,
                    None => other
                        .key_arrays()?
                        .ok_or_else(|| QuiverError::internal("merged groups without keys"))?,
                };
                self.seen.sources.push(keys);
            }
        }
        for (a, b) in self.accs.iter_mut().zip(other.accs) {
            a.resize(self.groups);
            a.merge(b, &ids, class)?;
        }
        Ok(())
    }

    fn finish(self, schema: &SchemaRef, aggs: &[AggregateSpec]) -> Result<RecordBatch> {
        let mut cols: Vec<ArrayRef> = match self.shown_keys()? {
            Some(k) => k,
            None => self
                .types
                .iter()
                .map(|t| arrow_array::new_null_array(t, 0))
                .collect(),
        };
        for (acc, spec) in self.accs.into_iter().zip(aggs) {
            cols.push(acc.finish(&spec.output_type, self.groups)?);
        }
        Ok(RecordBatch::try_new_with_options(
            schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(self.groups)),
        )?)
    }
}

/// The keys of an `IntGroupMap` as an array of GROUP BY type `t`, built the
/// way `GroupKeys::to_arrays` builds an integer key column.
fn int_key_array(m: &IntGroupMap, t: &DataType) -> Result<ArrayRef> {
    int_values_array(m.keys().to_vec(), Some(NullBuffer::from(m.validity())), t)
}

fn int_values_array(v: Vec<i64>, nulls: Option<NullBuffer>, t: &DataType) -> Result<ArrayRef> {
    Ok(match t {
        DataType::Date32 => Arc::new(arrow_array::Date32Array::new(
            v.iter().map(|x| *x as i32).collect::<Vec<_>>().into(),
            nulls,
        )),
        DataType::Timestamp(_, fsp) => Arc::new(
            arrow_array::TimestampMicrosecondArray::new(v.to_vec().into(), nulls)
                .with_timezone_opt(fsp.clone()),
        ),
        _ => cast_array(
            &(Arc::new(arrow_array::Int64Array::new(v.to_vec().into(), nulls)) as ArrayRef),
            t,
        )?,
    })
}

/// `x` replaces the current MIN (`min`) or MAX string under `collation`
/// (ties keep the value seen first).
fn beats(x: &[u8], current: Option<&[u8]>, min: bool, collation: Collation) -> bool {
    match current {
        None => true,
        Some(cur) => {
            let o = collation.compare(x, cur);
            if min {
                o.is_lt()
            } else {
                o.is_gt()
            }
        }
    }
}

/// Merges another partial MIN (`min`) or MAX state (`ov`, `os`: value and
/// whether seen, per row of the other side) into the slots of groups `ids`.
fn merge_min_max<T: PartialOrd + Copy>(
    ids: &[u32],
    vals: &mut [T],
    seen: &mut [bool],
    ov: &[T],
    os: &[bool],
    min: bool,
) {
    fold_min_max(ids, vals, seen, min, |k| os[k].then(|| ov[k]));
}

/// Folds `value(k)` (None: NULL) into the MIN or MAX of group `ids[k]`.
#[inline(always)]
fn fold_min_max<T: PartialOrd + Copy>(
    ids: &[u32],
    vals: &mut [T],
    seen: &mut [bool],
    min: bool,
    value: impl Fn(usize) -> Option<T>,
) {
    for (k, g) in ids.iter().enumerate() {
        let g = *g as usize;
        if let Some(x) = value(k) {
            if !seen[g] || (min && x < vals[g]) || (!min && x > vals[g]) {
                vals[g] = x;
                seen[g] = true;
            }
        }
    }
}

/// Whether AVG of values at `scale` computed at `out_scale` rounds: MySQL
/// truncates the quotient at its internal digits (the binder rounds that to
/// the declared scale later) and rounds where only the declared scale is kept.
fn avg_rounds(scale: i8, out_scale: i8) -> bool {
    out_scale < quiver_common::types::division_internal_scale(scale, 0)
}

/// Adds `x` to group `g`'s exact sum; what would overflow the i128 sum
/// moves to the group's i256 part.
#[inline(always)]
fn add_exact(sums: &mut [i128], wide: &mut Vec<i256>, g: usize, x: i128) {
    match sums[g].checked_add(x) {
        Some(v) => sums[g] = v,
        None => spill(sums, wide, g, x),
    }
}

/// Calls `add(group, row)` for each row `is_valid` accepts, and marks its
/// group seen and counted (for AVG).
#[inline(always)]
fn for_valid_rows(
    ids: &[u32],
    is_valid: impl Fn(usize) -> bool,
    seen: &mut [bool],
    avg: &mut Option<Vec<i64>>,
    mut add: impl FnMut(usize, usize),
) {
    for (i, g) in ids.iter().enumerate() {
        if is_valid(i) {
            let g = *g as usize;
            add(g, i);
            seen[g] = true;
            if let Some(c) = avg {
                c[g] += 1;
            }
        }
    }
}

/// At most this many groups take [`sum_few_groups`].
const FEW_GROUPS: usize = 64;

/// Adds `v[i]` to the sum of group `ids[i]` for every row (none NULL) when
/// the groups are few (Q1's four): consecutive rows then often add to one
/// sum, and each add would wait for the previous one's store. Four banks of
/// sums, taken in turn, make four independent chains; they are added up at
/// the end. Sums may wrap: the caller's bound says they do not.
fn sum_few_groups(
    ids: &[u32],
    v: &[i128],
    sums: &mut [i128],
    seen: &mut [bool],
    avg: Option<&mut [i64]>,
) {
    let groups = sums.len();
    let mut banks = [[0i128; FEW_GROUPS]; 4];
    let mut counts = [[0i64; FEW_GROUPS]; 4];
    let (id_quads, id_rest) = ids.as_chunks::<4>();
    let (v_quads, v_rest) = v[..ids.len()].as_chunks::<4>();
    for (g4, x4) in id_quads.iter().zip(v_quads) {
        for lane in 0..4 {
            let g = g4[lane] as usize % FEW_GROUPS;
            banks[lane][g] = banks[lane][g].wrapping_add(x4[lane]);
            counts[lane][g] += 1;
        }
    }
    for (g, x) in id_rest.iter().zip(v_rest) {
        let g = *g as usize % FEW_GROUPS;
        banks[0][g] = banks[0][g].wrapping_add(*x);
        counts[0][g] += 1;
    }
    let mut avg = avg;
    for g in 0..groups {
        let n: i64 = counts.iter().map(|c| c[g]).sum();
        if n == 0 {
            continue;
        }
        let total = banks.iter().fold(0i128, |t, b| t.wrapping_add(b[g]));
        sums[g] = sums[g].wrapping_add(total);
        seen[g] = true;
        if let Some(c) = avg.as_deref_mut() {
            c[g] += n;
        }
    }
}

#[cold]
fn spill(sums: &mut [i128], wide: &mut Vec<i256>, g: usize, x: i128) {
    wide.resize(sums.len(), i256::ZERO);
    wide[g] = wide[g].wrapping_add(i256::from_i128(sums[g]));
    sums[g] = x;
}

/// Exact totals at scale `from` as an array of `t` (a decimal of a scale at
/// least `from`, or another type they are cast to).
fn wide_decimal_out(v: Vec<i256>, seen: Vec<bool>, from: i8, t: &DataType) -> Result<ArrayRef> {
    let nulls = Some(NullBuffer::from(seen));
    let (p, s) = match t {
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => (*p, *s),
        _ => (76, from),
    };
    let limit = pow10(p as u32).unwrap_or(i256::MAX);
    let v = v
        .into_iter()
        .map(|x| {
            rescale256(x, from, s)
                .filter(|x| x.checked_abs().is_some_and(|a| a < limit))
                .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "SUM"))
        })
        .collect::<Result<Vec<_>>>()?;
    if let DataType::Decimal128(..) = t {
        let v: Vec<i128> = v.into_iter().map(|x| x.as_i128()).collect();
        return Ok(Arc::new(
            arrow_array::Decimal128Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
        ));
    }
    let a: ArrayRef = Arc::new(
        arrow_array::Decimal256Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
    );
    if matches!(t, DataType::Decimal256(..)) {
        Ok(a)
    } else {
        cast_array(&a, t)
    }
}

/// A value kept by DISTINCT aggregates.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum DistinctValue {
    Int(i128),
    /// A Decimal256 value.
    Wide(i256),
    Float(u64),
    Bytes(Vec<u8>),
}

#[derive(Debug)]
enum Acc {
    Count {
        counts: Vec<i64>,
        star: bool,
    },
    /// Exact sums of integers and decimals at the input's scale.
    SumExact {
        sums: Vec<i128>,
        /// Added to `sums` where a group's i128 sum would overflow, and the
        /// sums of Decimal256 inputs; empty until first needed.
        wide: Vec<i256>,
        /// A bound on every |sum| from the input types' digits and the rows
        /// added: while it is below i128::MAX, adds need no overflow check.
        bound: u128,
        seen: Vec<bool>,
        scale: i8,
        avg: Option<Vec<i64>>,
    },
    SumFloat {
        sums: Vec<f64>,
        seen: Vec<bool>,
        avg: Option<Vec<i64>>,
    },
    /// MIN/MAX over anything with an exact i128 view (ints, decimals, dates).
    MinMaxExact {
        vals: Vec<i128>,
        seen: Vec<bool>,
        min: bool,
        input: Option<DataType>,
    },
    MinMaxFloat {
        vals: Vec<f64>,
        seen: Vec<bool>,
        min: bool,
    },
    /// MIN/MAX of Decimal256 values (`t` is their type).
    MinMaxWide {
        vals: Vec<i256>,
        seen: Vec<bool>,
        min: bool,
        t: DataType,
    },
    MinMaxStr {
        /// Bytes of text (UTF-8) or of binary strings, as the output type.
        vals: Vec<Option<Vec<u8>>>,
        min: bool,
        collation: Collation,
        /// Under a collation where distinct strings tie, with several
        /// partitions: the position of each group's value (see
        /// [`AggregateExec::run`]), so that the merge keeps the first of
        /// tied values, as one scan does.
        first: Option<Vec<Position>>,
    },
    Distinct {
        func: AggFunc,
        sets: Vec<HashSet<DistinctValue>>,
        input: Option<DataType>,
        /// COUNT(DISTINCT) of strings under a non-default collation keeps
        /// normalized keys.
        collation: Option<Collation>,
        /// COUNT(DISTINCT a, b, ..): the parts, each compared under its own
        /// collation (see [`tuple_parts`]).
        tuple: Option<Vec<PhysicalExpr>>,
        /// Bytes the sets hold: entries (with the table's spare room) and
        /// string bytes.
        bytes: usize,
    },
    GroupConcat(Box<GroupConcatAcc>),
}

/// The parts of COUNT(DISTINCT a, b, ..) from the one argument the binder
/// makes of them: `CASE WHEN <a part is NULL> THEN NULL ELSE CONCAT(
/// CHAR_LENGTH(a), ':', a, CHAR_LENGTH(b), ':', b, .., z) END` (each part a
/// string: a string expression under its collation, anything else cast).
/// That string is one value per tuple, but compared as one string it
/// ignores the parts' collations (`'a'` and `'A'` under `_ci`, trailing
/// spaces under PAD SPACE); the parts let each be compared under its own.
fn tuple_parts(e: &PhysicalExpr) -> Option<Vec<PhysicalExpr>> {
    let e = match e {
        PhysicalExpr::Collate(inner, _) => inner.as_ref(),
        e => e,
    };
    let PhysicalExpr::Case {
        branches,
        else_expr: Some(key),
        ..
    } = e
    else {
        return None;
    };
    let [(_, PhysicalExpr::Literal(ScalarValue::Null, _))] = branches.as_slice() else {
        return None;
    };
    let PhysicalExpr::Function {
        func: ScalarFunc::Concat,
        args,
        ..
    } = key.as_ref()
    else {
        return None;
    };
    let same = |a: &PhysicalExpr, b: &PhysicalExpr| format!("{a:?}") == format!("{b:?}");
    let mut parts = vec![];
    let mut rest = args.as_slice();
    loop {
        match rest {
            [last] => {
                parts.push(last.clone());
                break;
            }
            [PhysicalExpr::Cast {
                expr: len,
                to: DataType::Utf8,
            }, PhysicalExpr::Literal(ScalarValue::Utf8(sep), _), part, tail @ ..]
                if sep == ":"
                    && matches!(len.as_ref(), PhysicalExpr::Function {
                        func: ScalarFunc::CharLength,
                        args,
                        ..
                    } if args.len() == 1 && same(&args[0], part)) =>
            {
                parts.push(part.clone());
                rest = tail;
            }
            _ => return None,
        }
    }
    (parts.len() > 1).then_some(parts)
}

/// Adds the tuples of `parts` (rows with no NULL part) to the sets of
/// groups `ids`: each part as its collation's normalized key (trailing
/// spaces removed under the default collation), each preceded by its
/// length so that distinct tuples make distinct values.
fn update_tuples(
    parts: &[PhysicalExpr],
    batch: &RecordBatch,
    ids: &[u32],
    sets: &mut [HashSet<DistinctValue>],
    bytes: &mut usize,
) -> Result<()> {
    let arrays = parts
        .iter()
        .map(|p| p.evaluate_array(batch))
        .collect::<Result<Vec<_>>>()?;
    let strings: Vec<arrow_array::BinaryArray> =
        arrays.iter().map(string_bytes).collect::<Result<_>>()?;
    // A binary part is its bytes (the binary collation's key).
    let collations: Vec<Option<Collation>> = parts
        .iter()
        .zip(&arrays)
        .map(|(p, a)| match is_binary(a.data_type()) {
            true => Some(Collation::binary()),
            false => Some(p.collation()).filter(|c| *c != quiver_plan::default_collation()),
        })
        .collect();
    let mut key = Vec::new();
    for (i, g) in ids.iter().enumerate() {
        if strings.iter().any(|s| s.is_null(i)) {
            continue;
        }
        key.clear();
        for (s, c) in strings.iter().zip(&collations) {
            let at = key.len();
            key.extend_from_slice(&[0; 4]);
            let x = s.value(i);
            match c {
                Some(c) => c.normalized_key(x, &mut key),
                None => key.extend_from_slice(trim_pad(x)),
            }
            let len = (key.len() - at - 4) as u32;
            key[at..at + 4].copy_from_slice(&len.to_le_bytes());
        }
        let v = DistinctValue::Bytes(key.clone());
        let size = distinct_value_bytes(&v);
        if sets[*g as usize].insert(v) {
            *bytes += size;
        }
    }
    Ok(())
}

/// String values as bytes: text and binary strings as they are, anything
/// else as its text.
fn string_bytes(a: &ArrayRef) -> Result<arrow_array::BinaryArray> {
    let a = match a.data_type() {
        DataType::Utf8 | DataType::Binary => a.clone(),
        _ => cast_array(a, &DataType::Utf8)?,
    };
    Ok(byte_view(a.as_ref()).expect("a string array"))
}

/// Bytes of one distinct value in a set: the slot, its control byte and
/// the table's spare room (load factor 7/8), plus a string's own bytes.
fn distinct_value_bytes(v: &DistinctValue) -> usize {
    let slot = (std::mem::size_of::<DistinctValue>() + 1) * 8 / 7;
    match v {
        DistinctValue::Bytes(b) => slot + b.capacity(),
        _ => slot,
    }
}

/// The values of an exact column as i128 at its scale: Decimal128's own
/// buffer, other types widened.
fn exact_values(a: &ArrayRef) -> Option<(Cow<'_, [i128]>, i8)> {
    macro_rules! v {
        ($t:ty) => {
            Cow::Owned(
                a.as_primitive::<$t>()
                    .values()
                    .iter()
                    .map(|x| *x as i128)
                    .collect(),
            )
        };
    }
    Some(match a.data_type() {
        DataType::Int8 => (v!(Int8Type), 0),
        DataType::Int16 => (v!(Int16Type), 0),
        DataType::Int32 => (v!(Int32Type), 0),
        DataType::Int64 => (v!(Int64Type), 0),
        DataType::UInt8 => (v!(UInt8Type), 0),
        DataType::UInt16 => (v!(UInt16Type), 0),
        DataType::UInt32 => (v!(UInt32Type), 0),
        DataType::UInt64 => (v!(UInt64Type), 0),
        DataType::Date32 => (v!(Date32Type), 0),
        DataType::Timestamp(..) => (v!(TimestampMicrosecondType), 0),
        DataType::Boolean => (
            Cow::Owned(a.as_boolean().values().iter().map(|b| b as i128).collect()),
            0,
        ),
        DataType::Decimal128(_, s) => (
            Cow::Borrowed(&a.as_primitive::<Decimal128Type>().values()[..]),
            *s,
        ),
        _ => return None,
    })
}

fn valid(a: &ArrayRef) -> Option<NullBuffer> {
    a.logical_nulls().filter(|n| n.null_count() > 0)
}

impl Acc {
    /// The state of `spec`; with `track`, string MIN/MAX note positions.
    fn new(spec: &AggregateSpec, track: bool) -> Acc {
        if let Some(c) = &spec.concat {
            return Acc::GroupConcat(Box::new(GroupConcatAcc::new(c.clone())));
        }
        let input = spec.arg.as_ref().map(|_| spec.output_type.clone());
        let collation = spec
            .arg
            .as_ref()
            .map(|a| a.collation())
            .filter(|c| *c != quiver_plan::default_collation());
        if spec.distinct && spec.func != AggFunc::Min && spec.func != AggFunc::Max {
            let count = spec.func == AggFunc::Count;
            return Acc::Distinct {
                func: spec.func,
                sets: vec![],
                input: None,
                collation: collation.filter(|_| count),
                tuple: spec.arg.as_ref().filter(|_| count).and_then(tuple_parts),
                bytes: 0,
            };
        }
        let exact_out = is_decimal(&spec.output_type);
        match spec.func {
            AggFunc::CountStar => Acc::Count {
                counts: vec![],
                star: true,
            },
            AggFunc::Count => Acc::Count {
                counts: vec![],
                star: false,
            },
            AggFunc::Sum | AggFunc::Avg => {
                let avg = (spec.func == AggFunc::Avg).then(Vec::new);
                if exact_out {
                    Acc::SumExact {
                        sums: vec![],
                        wide: vec![],
                        bound: 0,
                        seen: vec![],
                        scale: 0,
                        avg,
                    }
                } else {
                    Acc::SumFloat {
                        sums: vec![],
                        seen: vec![],
                        avg,
                    }
                }
            }
            AggFunc::Min | AggFunc::Max => {
                let min = spec.func == AggFunc::Min;
                match &spec.output_type {
                    // Binary strings: bytes in plain order.
                    DataType::Binary => Acc::MinMaxStr {
                        vals: vec![],
                        min,
                        collation: Collation::binary(),
                        first: None,
                    },
                    DataType::Utf8 => {
                        let collation = collation.unwrap_or_else(quiver_plan::default_collation);
                        Acc::MinMaxStr {
                            vals: vec![],
                            min,
                            collation,
                            first: (track && !is_exact(collation)).then(Vec::new),
                        }
                    }
                    DataType::Float64 | DataType::Float32 => Acc::MinMaxFloat {
                        vals: vec![],
                        seen: vec![],
                        min,
                    },
                    DataType::Decimal256(..) => Acc::MinMaxWide {
                        vals: vec![],
                        seen: vec![],
                        min,
                        t: spec.output_type.clone(),
                    },
                    _ => Acc::MinMaxExact {
                        vals: vec![],
                        seen: vec![],
                        min,
                        input,
                    },
                }
            }
            // (The planner always gives the clauses: else MySQL's defaults.)
            AggFunc::GroupConcat => {
                Acc::GroupConcat(Box::new(GroupConcatAcc::new(Arc::new(GroupConcatSpec {
                    args: spec.arg.iter().cloned().collect(),
                    distinct_keys: vec![],
                    order_by: vec![],
                    separator: b",".to_vec(),
                    max_len: 1 << 20,
                    collation: quiver_plan::default_collation(),
                    limit: None,
                }))))
            }
        }
    }

    fn resize(&mut self, n: usize) {
        match self {
            Acc::Count { counts, .. } => counts.resize(n, 0),
            Acc::SumExact {
                sums,
                wide,
                seen,
                avg,
                ..
            } => {
                sums.resize(n, 0);
                if !wide.is_empty() {
                    wide.resize(n, i256::ZERO);
                }
                seen.resize(n, false);
                if let Some(c) = avg {
                    c.resize(n, 0)
                }
            }
            Acc::SumFloat { sums, seen, avg } => {
                sums.resize(n, 0.0);
                seen.resize(n, false);
                if let Some(c) = avg {
                    c.resize(n, 0)
                }
            }
            Acc::MinMaxExact { vals, seen, .. } => {
                vals.resize(n, 0);
                seen.resize(n, false);
            }
            Acc::MinMaxFloat { vals, seen, .. } => {
                vals.resize(n, 0.0);
                seen.resize(n, false);
            }
            Acc::MinMaxWide { vals, seen, .. } => {
                vals.resize(n, i256::ZERO);
                seen.resize(n, false);
            }
            Acc::MinMaxStr { vals, first, .. } => {
                vals.resize(n, None);
                if let Some(f) = first {
                    f.resize(n, UNSEEN);
                }
            }
            Acc::Distinct { sets, .. } => sets.resize_with(n, HashSet::new),
            Acc::GroupConcat(c) => c.resize(n),
        }
    }

    /// Puts the positions of a partial state in `class` (see [`order_classes`]).
    fn set_class(&mut self, class: Position) {
        if let Acc::MinMaxStr { first: Some(f), .. } = self {
            for p in f.iter_mut().filter(|p| **p != UNSEEN) {
                *p |= class;
            }
        }
        if let Acc::GroupConcat(c) = self {
            c.set_class(class);
        }
    }

    /// Adds the rows of a batch at position `at` (of groups `ids`).
    fn update(&mut self, ids: &[u32], arg: Option<&ArrayRef>, at: Position) -> Result<()> {
        let nulls = arg.and_then(valid);
        let is_valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
        match self {
            Acc::GroupConcat(_) => {
                return Err(QuiverError::internal("GROUP_CONCAT reads its batch"))
            }
            Acc::Count { counts, star } => {
                if *star || nulls.is_none() {
                    for g in ids {
                        counts[*g as usize] += 1;
                    }
                } else {
                    for (i, g) in ids.iter().enumerate() {
                        counts[*g as usize] += is_valid(i) as i64;
                    }
                }
            }
            Acc::SumExact {
                sums,
                wide,
                bound,
                seen,
                scale,
                avg,
            } => {
                let a = arg.ok_or_else(|| QuiverError::internal("SUM without argument"))?;
                if let DataType::Decimal256(_, s) = a.data_type() {
                    *scale = *s;
                    wide.resize(sums.len(), i256::ZERO);
                    let v = a.as_primitive::<Decimal256Type>().values();
                    for_valid_rows(ids, is_valid, seen, avg, |g, i| {
                        wide[g] = wide[g].wrapping_add(v[i])
                    });
                    return Ok(());
                }
                let cast;
                let (v, s) = match exact_values(a) {
                    Some(x) => x,
                    None => {
                        cast = cast_array(a, &DataType::Decimal128(38, 6))?;
                        exact_values(&cast).expect("decimal")
                    }
                };
                *scale = s;
                // Values of p digits over n rows move a sum by less than n * 10^p.
                let digits = match a.data_type() {
                    DataType::Decimal128(p, _) => *p as u32,
                    _ => 20,
                };
                let grown = bound.saturating_add(
                    10u128
                        .saturating_pow(digits)
                        .saturating_mul(ids.len() as u128),
                );
                if grown <= i128::MAX as u128 {
                    *bound = grown;
                    if sums.len() <= FEW_GROUPS && nulls.is_none() {
                        sum_few_groups(ids, &v, sums, seen, avg.as_deref_mut());
                        return Ok(());
                    }
                    for_valid_rows(ids, is_valid, seen, avg, |g, i| {
                        sums[g] = sums[g].wrapping_add(v[i])
                    });
                } else {
                    *bound = u128::MAX;
                    for_valid_rows(ids, is_valid, seen, avg, |g, i| {
                        add_exact(sums, wide, g, v[i])
                    });
                }
            }
            Acc::SumFloat { sums, seen, avg } => {
                let a = arg.ok_or_else(|| QuiverError::internal("SUM without argument"))?;
                let f = cast_array(a, &DataType::Float64)?;
                let v = f.as_primitive::<Float64Type>().values();
                for (i, g) in ids.iter().enumerate() {
                    if is_valid(i) {
                        let g = *g as usize;
                        sums[g] += v[i];
                        seen[g] = true;
                        if let Some(c) = avg {
                            c[g] += 1;
                        }
                    }
                }
            }
            Acc::MinMaxExact {
                vals,
                seen,
                min,
                input,
            } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                *input = Some(a.data_type().clone());
                let (v, _) = exact_values(a)
                    .ok_or_else(|| QuiverError::internal("MIN over an unexpected type"))?;
                fold_min_max(ids, vals, seen, *min, |i| is_valid(i).then(|| v[i]));
            }
            Acc::MinMaxWide { vals, seen, min, t } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                let a = cast_array(a, t)?;
                let v = a.as_primitive::<Decimal256Type>().values();
                fold_min_max(ids, vals, seen, *min, |i| is_valid(i).then(|| v[i]));
            }
            Acc::MinMaxFloat { vals, seen, min } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                let f = cast_array(a, &DataType::Float64)?;
                let v = f.as_primitive::<Float64Type>().values();
                fold_min_max(ids, vals, seen, *min, |i| is_valid(i).then(|| v[i]));
            }
            Acc::MinMaxStr {
                vals,
                min,
                collation,
                first,
            } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                let s = string_bytes(a)?;
                let s = &s;
                let min = *min;
                let first = first.as_deref_mut().map(|f| (f, at));
                with_collator!(*collation, |k| min_max_strs(
                    k,
                    s,
                    ids,
                    nulls.as_ref(),
                    vals,
                    min,
                    first
                ));
            }
            Acc::Distinct {
                sets,
                input,
                collation,
                bytes,
                ..
            } => {
                let a = arg
                    .ok_or_else(|| QuiverError::internal("DISTINCT aggregate without argument"))?;
                *input = Some(a.data_type().clone());
                let vals: Vec<DistinctValue> = if let Some((v, _)) = exact_values(a) {
                    v.iter().map(|x| DistinctValue::Int(*x)).collect()
                } else if let DataType::Decimal256(..) = a.data_type() {
                    a.as_primitive::<Decimal256Type>()
                        .values()
                        .iter()
                        .map(|x| DistinctValue::Wide(*x))
                        .collect()
                } else if a.data_type().is_floating() {
                    let f = cast_array(a, &DataType::Float64)?;
                    f.as_primitive::<Float64Type>()
                        .values()
                        .iter()
                        .map(|x| DistinctValue::Float((x + 0.0).to_bits()))
                        .collect()
                } else if is_binary(a.data_type()) {
                    // Binary strings: distinct bytes (no padding).
                    string_bytes(a)?
                        .iter()
                        .map(|x| DistinctValue::Bytes(x.unwrap_or(b"").to_vec()))
                        .collect()
                } else if let Some(c) = collation {
                    string_bytes(a)?
                        .iter()
                        .map(|x| {
                            let mut k = Vec::new();
                            c.normalized_key(x.unwrap_or(b""), &mut k);
                            DistinctValue::Bytes(k)
                        })
                        .collect()
                } else {
                    string_bytes(a)?
                        .iter()
                        .map(|x| DistinctValue::Bytes(trim_pad(x.unwrap_or(b"")).to_vec()))
                        .collect()
                };
                for (i, (g, v)) in ids.iter().zip(vals).enumerate() {
                    if is_valid(i) {
                        let size = distinct_value_bytes(&v);
                        if sets[*g as usize].insert(v) {
                            *bytes += size;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Folds `other`'s groups into ours; `ids[k]` is our id of its group k,
    /// `class` the class of its positions (it is of a later partition).
    fn merge(&mut self, other: Acc, ids: &[u32], class: Position) -> Result<()> {
        match (self, other) {
            (Acc::GroupConcat(c), Acc::GroupConcat(o)) => c.merge(*o, ids, class)?,
            (Acc::Count { counts, .. }, Acc::Count { counts: o, .. }) => {
                for (k, g) in ids.iter().enumerate() {
                    counts[*g as usize] += o[k];
                }
            }
            (
                Acc::SumExact {
                    sums,
                    wide,
                    bound,
                    seen,
                    scale,
                    avg,
                },
                Acc::SumExact {
                    sums: os,
                    wide: owide,
                    bound: obound,
                    seen: oseen,
                    scale: oscale,
                    avg: oavg,
                },
            ) => {
                *bound = bound.saturating_add(obound);
                if oseen.iter().any(|s| *s) {
                    *scale = oscale;
                }
                if !owide.is_empty() {
                    wide.resize(sums.len(), i256::ZERO);
                    for (k, g) in ids.iter().enumerate() {
                        let g = *g as usize;
                        wide[g] = wide[g].wrapping_add(owide[k]);
                    }
                }
                for (k, g) in ids.iter().enumerate() {
                    let g = *g as usize;
                    add_exact(sums, wide, g, os[k]);
                    seen[g] |= oseen[k];
                    if let (Some(c), Some(oc)) = (avg.as_mut(), oavg.as_ref()) {
                        c[g] += oc[k];
                    }
                }
            }
            (
                Acc::SumFloat { sums, seen, avg },
                Acc::SumFloat {
                    sums: os,
                    seen: oseen,
                    avg: oavg,
                },
            ) => {
                for (k, g) in ids.iter().enumerate() {
                    let g = *g as usize;
                    sums[g] += os[k];
                    seen[g] |= oseen[k];
                    if let (Some(c), Some(oc)) = (avg.as_mut(), oavg.as_ref()) {
                        c[g] += oc[k];
                    }
                }
            }
            (
                Acc::MinMaxExact {
                    vals,
                    seen,
                    min,
                    input,
                },
                Acc::MinMaxExact {
                    vals: ov,
                    seen: os,
                    input: oi,
                    ..
                },
            ) => {
                if input.is_none() {
                    *input = oi;
                }
                merge_min_max(ids, vals, seen, &ov, &os, *min);
            }
            (
                Acc::MinMaxWide {
                    vals, seen, min, ..
                },
                Acc::MinMaxWide {
                    vals: ov, seen: os, ..
                },
            ) => {
                merge_min_max(ids, vals, seen, &ov, &os, *min);
            }
            (
                Acc::MinMaxFloat { vals, seen, min },
                Acc::MinMaxFloat {
                    vals: ov, seen: os, ..
                },
            ) => {
                merge_min_max(ids, vals, seen, &ov, &os, *min);
            }
            (
                Acc::MinMaxStr {
                    vals,
                    min,
                    collation,
                    first,
                },
                Acc::MinMaxStr {
                    vals: ov,
                    first: of,
                    ..
                },
            ) => {
                for (k, v) in ov.into_iter().enumerate() {
                    let Some(x) = v else { continue };
                    let g = ids[k] as usize;
                    let slot = &mut vals[g];
                    match (first.as_deref_mut(), of.as_deref()) {
                        // Of tied values the one seen first.
                        (Some(f), Some(of)) => {
                            let p = of[k] | class;
                            let take = match slot.as_deref() {
                                None => true,
                                Some(cur) => {
                                    let o = collation.compare(&x, cur);
                                    (if *min { o.is_lt() } else { o.is_gt() })
                                        || (o.is_eq() && p < f[g])
                                }
                            };
                            if take {
                                *slot = Some(x);
                                f[g] = p;
                            }
                        }
                        _ => {
                            if beats(&x, slot.as_deref(), *min, *collation) {
                                *slot = Some(x);
                            }
                        }
                    }
                }
            }
            (
                Acc::Distinct {
                    sets, input, bytes, ..
                },
                Acc::Distinct {
                    sets: os,
                    input: oi,
                    bytes: ob,
                    ..
                },
            ) => {
                // At most the sum: values in both sets are counted twice.
                *bytes += ob;
                if input.is_none() {
                    *input = oi;
                }
                for (k, set) in os.into_iter().enumerate() {
                    sets[ids[k] as usize].extend(set);
                }
            }
            _ => return Err(QuiverError::internal("mismatched aggregate states")),
        }
        Ok(())
    }

    /// Bytes held beyond the fixed per-group slots (DISTINCT sets).
    fn held_bytes(&self) -> usize {
        match self {
            Acc::Distinct { sets, bytes, .. } => {
                bytes + sets.len() * std::mem::size_of::<HashSet<DistinctValue>>()
            }
            Acc::GroupConcat(c) => c.held_bytes(),
            _ => 0,
        }
    }

    fn finish(self, t: &DataType, groups: usize) -> Result<ArrayRef> {
        let decimal = |v: Vec<i128>, seen: Vec<bool>, from: i8| -> Result<ArrayRef> {
            let (p, s) = match t {
                DataType::Decimal128(p, s) => (*p, *s),
                _ => (38, from),
            };
            let v: Vec<i128> = v
                .into_iter()
                .map(|x| rescale(x, from, s).unwrap_or(0))
                .collect();
            let a: ArrayRef = Arc::new(
                arrow_array::Decimal128Array::new(v.into(), Some(NullBuffer::from(seen)))
                    .with_precision_and_scale(p, s)?,
            );
            if matches!(t, DataType::Decimal128(..)) {
                Ok(a)
            } else {
                cast_array(&a, t)
            }
        };
        Ok(match self {
            Acc::GroupConcat(c) => c.finish(t, groups)?,
            Acc::Count { mut counts, .. } => {
                counts.resize(groups, 0);
                Arc::new(arrow_array::Int64Array::from(counts))
            }
            Acc::SumExact {
                sums,
                wide,
                seen,
                scale,
                avg,
                ..
            } if !wide.is_empty() || matches!(t, DataType::Decimal256(..)) => {
                let mut totals: Vec<i256> = sums.iter().map(|x| i256::from_i128(*x)).collect();
                for (t, w) in totals.iter_mut().zip(&wide) {
                    *t = t.wrapping_add(*w);
                }
                match avg {
                    None => wide_decimal_out(totals, seen, scale, t)?,
                    Some(counts) => {
                        // AVG = SUM / COUNT at the output scale, rounded half away from zero.
                        let out_scale = match t {
                            DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => *s,
                            _ => scale,
                        };
                        let shift = (out_scale - scale).max(0) as u32;
                        let round = avg_rounds(scale, out_scale);
                        let v = totals
                            .iter()
                            .zip(&counts)
                            .map(|(x, c)| {
                                if *c == 0 {
                                    return Ok(i256::ZERO);
                                }
                                scaled_div(*x, shift, i256::from(*c), round)
                                    .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "AVG"))
                            })
                            .collect::<Result<Vec<_>>>()?;
                        wide_decimal_out(v, seen, out_scale.max(scale), t)?
                    }
                }
            }
            Acc::SumExact {
                sums,
                seen,
                scale,
                avg: None,
                ..
            } => decimal(sums, seen, scale)?,
            Acc::SumExact {
                sums,
                seen,
                scale,
                avg: Some(counts),
                ..
            } => {
                // AVG = SUM / COUNT at the output scale (see avg_rounds).
                let out_scale = match t {
                    DataType::Decimal128(_, s) => *s,
                    _ => scale,
                };
                let round = avg_rounds(scale, out_scale);
                let shift = (out_scale - scale).max(0) as u32;
                let f = 10i128.pow(shift);
                let v: Vec<i128> = sums
                    .iter()
                    .zip(&counts)
                    .map(|(s, c)| {
                        if *c == 0 {
                            return Ok(0);
                        }
                        let c = *c as i128;
                        let Some(num) = s.checked_mul(f) else {
                            return scaled_div(
                                i256::from_i128(*s),
                                shift,
                                i256::from_i128(c),
                                round,
                            )
                            .and_then(|q| q.to_i128())
                            .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "AVG"));
                        };
                        let q = num / c;
                        Ok(if round && (num % c).abs() * 2 >= c {
                            q + num.signum()
                        } else {
                            q
                        })
                    })
                    .collect::<Result<_>>()?;
                decimal(v, seen, out_scale)?
            }
            Acc::SumFloat { sums, seen, avg } => {
                let v: Vec<f64> = match avg {
                    None => sums,
                    Some(c) => sums
                        .iter()
                        .zip(&c)
                        .map(|(s, c)| s / (*c).max(1) as f64)
                        .collect(),
                };
                let a: ArrayRef = Arc::new(arrow_array::Float64Array::new(
                    v.into(),
                    Some(NullBuffer::from(seen)),
                ));
                cast_array(&a, t)?
            }
            Acc::MinMaxExact {
                vals, seen, input, ..
            } => {
                let input = input.unwrap_or_else(|| t.clone());
                let nulls = Some(NullBuffer::from(seen));
                let a: ArrayRef = match &input {
                    DataType::Decimal128(p, s) => Arc::new(
                        arrow_array::Decimal128Array::new(vals.into(), nulls)
                            .with_precision_and_scale(*p, *s)?,
                    ),
                    DataType::Date32 => Arc::new(arrow_array::Date32Array::new(
                        vals.iter().map(|x| *x as i32).collect::<Vec<_>>().into(),
                        nulls,
                    )),
                    DataType::Timestamp(_, fsp) => Arc::new(
                        arrow_array::TimestampMicrosecondArray::new(
                            vals.iter().map(|x| *x as i64).collect::<Vec<_>>().into(),
                            nulls,
                        )
                        .with_timezone_opt(fsp.clone()),
                    ),
                    DataType::UInt64 => Arc::new(arrow_array::UInt64Array::new(
                        vals.iter().map(|x| *x as u64).collect::<Vec<_>>().into(),
                        nulls,
                    )),
                    _ => Arc::new(arrow_array::Int64Array::new(
                        vals.iter().map(|x| *x as i64).collect::<Vec<_>>().into(),
                        nulls,
                    )),
                };
                cast_array(&a, t)?
            }
            Acc::MinMaxWide { vals, seen, t, .. } => {
                let DataType::Decimal256(p, s) = t else {
                    return Err(QuiverError::internal("MIN of a wide decimal"));
                };
                Arc::new(
                    arrow_array::Decimal256Array::new(vals.into(), Some(NullBuffer::from(seen)))
                        .with_precision_and_scale(p, s)?,
                )
            }
            Acc::MinMaxFloat { vals, seen, .. } => {
                let a: ArrayRef = Arc::new(arrow_array::Float64Array::new(
                    vals.into(),
                    Some(NullBuffer::from(seen)),
                ));
                cast_array(&a, t)?
            }
            Acc::MinMaxStr { vals, .. } if t == &DataType::Binary => {
                Arc::new(arrow_array::BinaryArray::from_iter(vals))
            }
            Acc::MinMaxStr { vals, .. } => {
                // Values of text are whole UTF-8 values (checked).
                let vals = vals
                    .into_iter()
                    .map(|v| v.map(String::from_utf8).transpose())
                    .collect::<std::result::Result<Vec<Option<String>>, _>>()
                    .map_err(|e| QuiverError::internal(format!("MIN/MAX of text: {e}")))?;
                let a: ArrayRef = Arc::new(arrow_array::StringArray::from(vals));
                cast_array(&a, t)?
            }
            Acc::Distinct {
                func, sets, input, ..
            } => {
                let mut sets = sets;
                sets.resize_with(groups, HashSet::new);
                match func {
                    AggFunc::Count | AggFunc::CountStar => Arc::new(arrow_array::Int64Array::from(
                        sets.iter().map(|s| s.len() as i64).collect::<Vec<_>>(),
                    )),
                    _ => {
                        let scale = match &input {
                            Some(DataType::Decimal128(_, s) | DataType::Decimal256(_, s)) => *s,
                            _ => 0,
                        };
                        let avg = func == AggFunc::Avg;
                        if sets
                            .iter()
                            .flatten()
                            .any(|v| matches!(v, DistinctValue::Float(_)))
                        {
                            let mut sums = vec![];
                            let mut seen = vec![];
                            for s in &sets {
                                let vals: Vec<f64> = s
                                    .iter()
                                    .map(|v| match v {
                                        DistinctValue::Float(b) => f64::from_bits(*b),
                                        DistinctValue::Int(i) => *i as f64,
                                        _ => 0.0,
                                    })
                                    .collect();
                                let total: f64 = vals.iter().sum();
                                sums.push(if avg {
                                    total / vals.len().max(1) as f64
                                } else {
                                    total
                                });
                                seen.push(!vals.is_empty());
                            }
                            let a: ArrayRef = Arc::new(arrow_array::Float64Array::new(
                                sums.into(),
                                Some(NullBuffer::from(seen)),
                            ));
                            cast_array(&a, t)?
                        } else {
                            let mut acc = Acc::SumExact {
                                sums: vec![],
                                wide: vec![],
                                bound: u128::MAX,
                                seen: vec![],
                                scale,
                                avg: avg.then(Vec::new),
                            };
                            acc.resize(groups);
                            if let Acc::SumExact {
                                sums,
                                wide,
                                seen,
                                avg,
                                ..
                            } = &mut acc
                            {
                                for (g, s) in sets.iter().enumerate() {
                                    for v in s {
                                        match v {
                                            DistinctValue::Int(i) => add_exact(sums, wide, g, *i),
                                            DistinctValue::Wide(w) => {
                                                wide.resize(sums.len(), i256::ZERO);
                                                wide[g] = wide[g].wrapping_add(*w);
                                            }
                                            _ => continue,
                                        }
                                        seen[g] = true;
                                        if let Some(c) = avg.as_mut() {
                                            c[g] += 1;
                                        }
                                    }
                                }
                            }
                            acc.finish(t, groups)?
                        }
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod few_group_tests {
    use super::*;

    #[test]
    fn banked_sums_equal_a_plain_loop() {
        let mut state = 11u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 17
        };
        for round in 0..40 {
            let groups = 1 + (next() % FEW_GROUPS as u64) as usize;
            let rows = (next() % 1000) as usize + round;
            let ids: Vec<u32> = (0..rows).map(|_| (next() % groups as u64) as u32).collect();
            let v: Vec<i128> = (0..rows)
                .map(|_| (next() as i128 - (1 << 46)) * (next() as i128))
                .collect();
            let mut want = (vec![7i128; groups], vec![false; groups], vec![3i64; groups]);
            for (g, x) in ids.iter().zip(&v) {
                let g = *g as usize;
                want.0[g] = want.0[g].wrapping_add(*x);
                want.1[g] = true;
                want.2[g] += 1;
            }
            let mut got = (vec![7i128; groups], vec![false; groups], vec![3i64; groups]);
            sum_few_groups(&ids, &v, &mut got.0, &mut got.1, Some(&mut got.2));
            assert_eq!(got, want, "round {round}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{Field, Schema, TimeUnit};

    /// A fixed-seed xorshift generator: deterministic, no dependencies.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x % n
        }
    }

    fn specs() -> Vec<AggregateSpec> {
        let spec = |func, arg: Option<PhysicalExpr>, t: DataType| AggregateSpec {
            func,
            arg,
            distinct: false,
            output_type: t,
            text: String::new(),
            concat: None,
        };
        vec![
            spec(AggFunc::CountStar, None, DataType::Int64),
            spec(
                AggFunc::Sum,
                Some(PhysicalExpr::Column(1)),
                DataType::Decimal128(38, 0),
            ),
            spec(AggFunc::Max, Some(PhysicalExpr::Column(1)), DataType::Int64),
        ]
    }

    /// Aggregates `parts` (one table per partition, then merged), on the
    /// integer-key path or, with `general`, on the row-hashing path.
    fn aggregate(t: &DataType, parts: &[Vec<RecordBatch>], general: bool) -> RecordBatch {
        let aggs = specs();
        let group = vec![PhysicalExpr::Column(0)];
        let mut tables = parts.iter().map(|batches| {
            let mut table = GroupTable::new(std::slice::from_ref(t), &aggs);
            if general {
                let sample = KeyColumn::new(batches[0].column(0)).unwrap();
                assert!(matches!(sample.values, KeyValues::Int(_)));
                table.keys = Some(GroupKeys::new(&[sample], vec![t.clone()]));
            }
            for b in batches {
                table.update(b, &group, &aggs).unwrap();
            }
            assert_eq!(table.ints.is_some(), !general);
            table
        });
        let mut total = tables.next().unwrap();
        for t in tables {
            total.merge(t).unwrap();
        }
        let mut fields = vec![Field::new("k", t.clone(), true)];
        for (i, a) in aggs.iter().enumerate() {
            fields.push(Field::new(format!("a{i}"), a.output_type.clone(), true));
        }
        total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap()
    }

    /// `keys` as an array of type `t`, values wrapped to its range.
    fn key_array(t: &DataType, keys: Vec<Option<i64>>) -> ArrayRef {
        use arrow_array::*;
        let it = keys.into_iter();
        match t {
            DataType::Int8 => Arc::new(it.map(|k| k.map(|v| v as i8)).collect::<Int8Array>()),
            DataType::Int16 => Arc::new(it.map(|k| k.map(|v| v as i16)).collect::<Int16Array>()),
            DataType::Int32 => Arc::new(it.map(|k| k.map(|v| v as i32)).collect::<Int32Array>()),
            DataType::Int64 => Arc::new(it.collect::<Int64Array>()),
            DataType::UInt8 => Arc::new(it.map(|k| k.map(|v| v as u8)).collect::<UInt8Array>()),
            DataType::UInt32 => Arc::new(it.map(|k| k.map(|v| v as u32)).collect::<UInt32Array>()),
            DataType::Date32 => Arc::new(it.map(|k| k.map(|v| v as i32)).collect::<Date32Array>()),
            DataType::Timestamp(..) => Arc::new(it.collect::<TimestampMicrosecondArray>()),
            DataType::Boolean => {
                Arc::new(it.map(|k| k.map(|v| v & 1 == 1)).collect::<BooleanArray>())
            }
            _ => unreachable!("{t}"),
        }
    }

    #[test]
    fn exact_sums_spill_past_i128_into_i256() {
        // Group 0 sums values near i128::MAX (overflowing several times),
        // group 1 small ones: the totals match an i256 reference.
        let (mut sums, mut wide) = (vec![0i128; 2], vec![]);
        let mut want = [i256::ZERO; 2];
        for k in 0..100i128 {
            let x = i128::MAX / 3 - k;
            let y = if k % 2 == 0 { -k } else { k * 7 };
            add_exact(&mut sums, &mut wide, 0, x);
            add_exact(&mut sums, &mut wide, 1, y);
            want[0] = want[0].wrapping_add(i256::from_i128(x));
            want[1] = want[1].wrapping_add(i256::from_i128(y));
        }
        assert!(!wide.is_empty());
        for g in 0..2 {
            assert_eq!(wide[g].wrapping_add(i256::from_i128(sums[g])), want[g]);
        }
        let out = wide_decimal_out(
            vec![want[0], want[1]],
            vec![true, true],
            0,
            &DataType::Decimal256(60, 2),
        )
        .unwrap();
        let d = out.as_primitive::<Decimal256Type>();
        assert_eq!(d.value(1), want[1].wrapping_mul(i256::from_i128(100)));
        assert_eq!(d.value(0), want[0].wrapping_mul(i256::from_i128(100)));
    }

    #[test]
    fn integer_key_path_matches_the_general_path() {
        let types = [
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::UInt8,
            DataType::UInt32,
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Boolean,
        ];
        let mut rng = Rng(0x853c_49e6_748f_ea9b);
        for t in &types {
            let parts: Vec<Vec<RecordBatch>> = (0..3)
                .map(|_| {
                    (0..4)
                        .map(|_| {
                            let rows = 1 + rng.below(5000) as usize;
                            let domain = 1 + rng.below(3000);
                            let keys: Vec<Option<i64>> = (0..rows)
                                .map(|_| {
                                    let v = match rng.below(20) {
                                        0 => i64::MIN,
                                        1 => i64::MAX,
                                        _ => rng.below(domain) as i64 - domain as i64 / 2,
                                    };
                                    (rng.below(10) != 0).then_some(v)
                                })
                                .collect();
                            let k = key_array(t, keys);
                            let v: ArrayRef = Arc::new(arrow_array::Int64Array::from_iter_values(
                                (0..rows).map(|_| rng.below(1000) as i64),
                            ));
                            RecordBatch::try_from_iter([("k", k), ("v", v)]).unwrap()
                        })
                        .collect()
                })
                .collect();
            let fast = aggregate(t, &parts, false);
            let slow = aggregate(t, &parts, true);
            assert_eq!(fast.column(0).data_type(), t);
            assert_eq!(fast, slow, "GROUP BY key of type {t}");
            let rows: usize = parts.iter().flatten().map(|b| b.num_rows()).sum();
            let counted: i64 = fast
                .column(1)
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .sum();
            assert_eq!(counted as usize, rows);
        }
    }

    fn p_index(batches: &[RecordBatch], parts: &[Vec<RecordBatch>]) -> usize {
        parts
            .iter()
            .position(|p| std::ptr::eq(p.as_slice(), batches))
            .unwrap()
    }

    /// Two integer keys: the packed path (and its move to the general table
    /// when a batch does not pack) gives what the general path gives.
    #[test]
    fn packed_key_pairs_match_the_general_path() {
        let aggs = specs();
        let group = vec![PhysicalExpr::Column(0), PhysicalExpr::Column(1)];
        let types = [DataType::Int64, DataType::Int32];
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Int32, true),
            Field::new("v", DataType::Int64, true),
        ]));
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for round in 0..40 {
            // Some rounds end with a batch that cannot pack (NULL, negative, huge).
            let spoil = round % 4;
            let parts: Vec<Vec<RecordBatch>> = (0..3)
                .map(|p| {
                    (0..3)
                        .map(|b| {
                            let rows = 1 + rng.below(3000) as usize;
                            let mut a: Vec<Option<i64>> =
                                (0..rows).map(|_| Some(rng.below(500) as i64)).collect();
                            let bs: Vec<Option<i32>> =
                                (0..rows).map(|_| Some(rng.below(50) as i32)).collect();
                            if b == 2 && p == 1 {
                                match spoil {
                                    1 => a[0] = None,
                                    2 => a[0] = Some(-7),
                                    3 => a[0] = Some(1 << 40),
                                    _ => {}
                                }
                            }
                            let v: Vec<i64> = (0..rows).map(|_| rng.below(1000) as i64).collect();
                            RecordBatch::try_new(
                                schema.clone(),
                                vec![
                                    Arc::new(arrow_array::Int64Array::from(a)),
                                    Arc::new(arrow_array::Int32Array::from(bs)),
                                    Arc::new(arrow_array::Int64Array::from(v)),
                                ],
                            )
                            .unwrap()
                        })
                        .collect()
                })
                .collect();
            let run = |general: bool| {
                let aggs = specs()
                    .into_iter()
                    .map(|mut a| {
                        a.arg = a.arg.map(|_| PhysicalExpr::Column(2));
                        a
                    })
                    .collect::<Vec<_>>();
                let mut tables = parts.iter().map(|batches| {
                    let mut table = GroupTable::new(&types, &aggs);
                    if general {
                        let sample: Vec<KeyColumn> = (0..2)
                            .map(|c| KeyColumn::new(batches[0].column(c)).unwrap())
                            .collect();
                        table.keys = Some(GroupKeys::new(&sample, types.to_vec()));
                    }
                    for b in batches {
                        table.update(b, &group, &aggs).unwrap();
                    }
                    // Clean pairs stay packed; a spoiled partition moved to the general table.
                    assert_eq!(
                        table.packed.is_some(),
                        !general && (spoil == 0 || p_index(batches, &parts) != 1)
                    );
                    table
                });
                let mut total = tables.next().unwrap();
                for t in tables {
                    total.merge(t).unwrap();
                }
                let mut fields = vec![
                    Field::new("a", DataType::Int64, true),
                    Field::new("b", DataType::Int32, true),
                ];
                for (i, a) in aggs.iter().enumerate() {
                    fields.push(Field::new(format!("x{i}"), a.output_type.clone(), true));
                }
                let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
                // Group order may differ between paths: compare as sorted rows.
                let mut rows: Vec<String> = (0..out.num_rows())
                    .map(|r| {
                        out.columns()
                            .iter()
                            .map(|c| {
                                quiver_common::ScalarValue::from_array(c, r)
                                    .unwrap()
                                    .to_string()
                            })
                            .collect::<Vec<_>>()
                            .join("|")
                    })
                    .collect();
                rows.sort();
                rows
            };
            assert_eq!(run(false), run(true), "round {round}");
        }
        let _ = aggs;
    }

    /// Rows of `out` as sorted text: group order may differ between paths.
    fn sorted_rows(out: &RecordBatch) -> Vec<String> {
        let mut rows: Vec<String> = (0..out.num_rows())
            .map(|r| {
                out.columns()
                    .iter()
                    .map(|c| {
                        let v = quiver_common::ScalarValue::from_array(c, r).unwrap();
                        format!("{v:?}")
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        rows.sort();
        rows
    }

    /// String keys (alone, in pairs, with an integer): the packed path, and
    /// its move to the general table when a batch holds a value that does
    /// not pack (too long, a trailing space, NULL in a pair), give what the
    /// general path gives, including the first-seen spelling of PAD SPACE
    /// equal keys.
    #[test]
    fn packed_string_keys_match_the_general_path() {
        let words = ["A", "R", "N", "MAIL", "SHIP", "REG AIR", "", "é", "FOB"];
        let shapes: [&[DataType]; 3] = [
            &[DataType::Utf8],
            &[DataType::Utf8, DataType::Utf8],
            &[DataType::Int32, DataType::Utf8],
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (shape, types) in shapes.iter().enumerate() {
            for round in 0..24 {
                let spoil = round % 4;
                let short = shape > 0;
                let parts: Vec<Vec<RecordBatch>> = (0..3)
                    .map(|p| {
                        (0..3)
                            .map(|b| {
                                let rows = 1 + rng.below(2000) as usize;
                                let mut cols: Vec<ArrayRef> = types
                                    .iter()
                                    .map(|t| -> ArrayRef {
                                        if t == &DataType::Int32 {
                                            Arc::new(arrow_array::Int32Array::from_iter_values(
                                                (0..rows).map(|_| rng.below(40) as i32),
                                            ))
                                        } else {
                                            let mut v: Vec<Option<String>> = (0..rows)
                                                .map(|_| {
                                                    let w = words
                                                        [rng.below(words.len() as u64) as usize];
                                                    let w: String = if short {
                                                        w.chars().take(1).collect()
                                                    } else {
                                                        w.to_string()
                                                    };
                                                    (shape > 0 || rng.below(30) != 0).then_some(w)
                                                })
                                                .collect();
                                            // A trailing space spoils a batch after the
                                            // first (partition 1) or the first (partition 2).
                                            if (b == 2 && p == 1)
                                                || (b == 0 && p == 2 && spoil == 1)
                                            {
                                                match spoil {
                                                    1 if short => v[0] = Some("A ".into()),
                                                    1 => v[0] = Some("MAIL ".into()),
                                                    2 => v[0] = Some("TRUCKING".into()),
                                                    3 => v[0] = None,
                                                    _ => {}
                                                }
                                            }
                                            Arc::new(arrow_array::StringArray::from(v))
                                        }
                                    })
                                    .collect();
                                cols.push(Arc::new(arrow_array::Int64Array::from_iter_values(
                                    (0..rows).map(|_| rng.below(1000) as i64),
                                )));
                                let names = ["a", "b", "c"];
                                RecordBatch::try_from_iter(
                                    cols.into_iter().enumerate().map(|(i, c)| (names[i], c)),
                                )
                                .unwrap()
                            })
                            .collect()
                    })
                    .collect();
                let n = types.len();
                let group: Vec<PhysicalExpr> = (0..n).map(PhysicalExpr::Column).collect();
                let aggs = specs()
                    .into_iter()
                    .map(|mut a| {
                        a.arg = a.arg.map(|_| PhysicalExpr::Column(n));
                        a
                    })
                    .collect::<Vec<_>>();
                let run = |general: bool| {
                    let mut packs = vec![];
                    let mut tables = parts
                        .iter()
                        .map(|batches| {
                            let mut table = GroupTable::new(types, &aggs);
                            if general {
                                let sample: Vec<KeyColumn> = (0..n)
                                    .map(|c| KeyColumn::new(batches[0].column(c)).unwrap())
                                    .collect();
                                table.keys = Some(GroupKeys::new(&sample, types.to_vec()));
                            }
                            for b in batches {
                                table.update(b, &group, &aggs).unwrap();
                            }
                            packs.push(table.packed.is_some());
                            table
                        })
                        .collect::<Vec<_>>()
                        .into_iter();
                    let mut total = tables.next().unwrap();
                    for t in tables {
                        total.merge(t).unwrap();
                    }
                    let mut fields: Vec<Field> = types
                        .iter()
                        .enumerate()
                        .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                        .collect();
                    for (i, a) in aggs.iter().enumerate() {
                        fields.push(Field::new(format!("x{i}"), a.output_type.clone(), true));
                    }
                    let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
                    (sorted_rows(&out), packs)
                };
                let (fast, packs) = run(false);
                let (slow, _) = run(true);
                assert_eq!(fast, slow, "shape {shape} round {round}");
                // A NULL string alone still packs; everything else spoils partition 1,
                // and a trailing space partition 2 too.
                let spoiled = spoil == 1 || spoil == 2 || (spoil == 3 && shape > 0);
                assert_eq!(
                    packs,
                    vec![true, !spoiled, spoil != 1],
                    "shape {shape} round {round}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tuple_tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{Field, Schema};

    /// COUNT(DISTINCT a, b) as the binder builds it: each part compared
    /// under its own collation, NULL parts skipped.
    #[test]
    fn count_distinct_tuples_compare_parts_under_their_collations() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let a = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let b = PhysicalExpr::Column(2);
        let len = |p: &PhysicalExpr| PhysicalExpr::Cast {
            expr: Box::new(PhysicalExpr::Function {
                func: ScalarFunc::CharLength,
                args: vec![p.clone()],
                data_type: DataType::Int64,
            }),
            to: DataType::Utf8,
        };
        let is_null = |p: &PhysicalExpr| PhysicalExpr::Unary {
            op: quiver_plan::UnaryOp::IsNull,
            expr: Box::new(p.clone()),
        };
        let key = PhysicalExpr::Case {
            branches: vec![(
                PhysicalExpr::Binary {
                    op: quiver_plan::BinaryOp::Or,
                    left: Box::new(is_null(&a)),
                    right: Box::new(is_null(&b)),
                    data_type: DataType::Boolean,
                    collation: quiver_plan::default_collation(),
                },
                PhysicalExpr::Literal(ScalarValue::Null, DataType::Utf8),
            )],
            else_expr: Some(Box::new(PhysicalExpr::Function {
                func: ScalarFunc::Concat,
                args: vec![
                    len(&a),
                    PhysicalExpr::Literal(ScalarValue::Utf8(":".into()), DataType::Utf8),
                    a.clone(),
                    b.clone(),
                ],
                data_type: DataType::Utf8,
            })),
            data_type: DataType::Utf8,
        };
        assert_eq!(tuple_parts(&key).map(|p| p.len()), Some(2));
        let spec = AggregateSpec {
            func: AggFunc::Count,
            arg: Some(key),
            distinct: true,
            output_type: DataType::Int64,
            text: String::new(),
            concat: None,
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("a", DataType::Utf8, true),
            Field::new("b", DataType::Utf8, true),
        ]));
        let rows = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![0; 8])),
                Arc::new(StringArray::from(vec![
                    Some("a"),
                    Some("A"),
                    Some("a "),
                    Some("é"),
                    Some("a"),
                    None,
                    Some("ab"),
                    Some("a"),
                ])),
                Arc::new(StringArray::from(vec![
                    Some("x"),
                    Some("x"),
                    Some("x  "),
                    Some("x"),
                    Some("X"),
                    Some("x"),
                    Some("c"),
                    Some("bc"),
                ])),
            ],
        )
        .unwrap();
        let aggs = vec![spec];
        let mut t = GroupTable::new(&[], &aggs);
        t.update(&rows, &[], &aggs).unwrap();
        let out = t.accs.pop().unwrap().finish(&DataType::Int64, 1).unwrap();
        // (a, x) thrice, (é, x), (a, X), (ab, c), (a, bc); NULL skipped.
        assert_eq!(out.as_primitive::<Int64Type>().value(0), 5);
    }
}

#[cfg(test)]
mod first_seen_tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{Field, Schema};

    fn batch(ids: &[i64], strs: &[&str]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(ids.to_vec())),
                Arc::new(StringArray::from(strs.to_vec())),
            ],
        )
        .unwrap()
    }

    fn strings(a: &ArrayRef) -> Vec<String> {
        a.as_string::<i32>()
            .iter()
            .map(|s| s.unwrap_or("NULL").to_string())
            .collect()
    }

    /// Two partitions of one scan that took its morsels out of order: the
    /// first partition morsel 1, the second morsel 0. Keys and tied MINs
    /// show the spelling of morsel 0's rows.
    #[test]
    fn merge_keeps_the_spelling_of_the_earliest_row() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let s = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let min = AggregateSpec {
            func: AggFunc::Min,
            arg: Some(s.clone()),
            distinct: false,
            output_type: DataType::Utf8,
            text: String::new(),
            concat: None,
        };
        // One string key (StrGroupMap), a string and an integer (the
        // general table), a default-collation key whose spellings differ in
        // trailing spaces (packed keys that stop packing).
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>)> = vec![
            (vec![s.clone()], vec![DataType::Utf8]),
            (
                vec![s.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Utf8, DataType::Int64],
            ),
            (vec![PhysicalExpr::Column(1)], vec![DataType::Utf8]),
        ];
        for (shape, (group, types)) in shapes.into_iter().enumerate() {
            let aggs = vec![min.clone()];
            let (early, late) = if shape == 2 {
                (
                    batch(&[0, 0, 0], &["ab", "cd ", "x"]),
                    batch(&[0, 0, 0, 0], &["x", "ab  ", "cd", "e"]),
                )
            } else {
                (
                    batch(&[0, 0, 0], &["ab", "Cd ", "x"]),
                    batch(&[0, 0, 0, 0], &["x", "AB ", "cd", "e"]),
                )
            };
            let run = |parts: Vec<(u64, &RecordBatch)>| {
                let mut tables = vec![];
                for (p, (morsel, b)) in parts.into_iter().enumerate() {
                    let mut t = GroupTable::tracking(&types, &aggs, true, true);
                    let at = t.batch_position(Some(ScanPosition { scan: 7, morsel }));
                    t.update_at(b, &group, &aggs, at).unwrap();
                    tables.push((p, t));
                }
                let classes = order_classes(tables.iter().map(|(_, t)| t.seen.scan));
                let mut it = tables.into_iter().zip(classes);
                let ((_, mut total), class) = it.next().unwrap();
                total.set_class(class);
                for ((_, t), class) in it {
                    total.merge_in(t, class, true).unwrap();
                }
                let mut fields: Vec<Field> = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                    .collect();
                fields.push(Field::new("m", DataType::Utf8, true));
                let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
                let keys = strings(out.column(0));
                let mins = strings(out.column(out.num_columns() - 1));
                let mut rows: Vec<(String, String)> = keys.into_iter().zip(mins).collect();
                rows.sort();
                rows
            };
            let in_order = run(vec![(0, &early), (1, &late)]);
            let swapped = run(vec![(1, &late), (0, &early)]);
            assert_eq!(in_order, swapped, "shape {shape}");
            let want: Vec<(String, String)> = if shape == 2 {
                vec![("ab", "ab"), ("cd ", "cd "), ("e", "e"), ("x", "x")]
            } else {
                vec![("Cd ", "Cd "), ("ab", "ab"), ("e", "e"), ("x", "x")]
            }
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
            assert_eq!(in_order, want, "shape {shape}");
        }
    }

    /// Three partitions: the key a group shows is that of the earliest of
    /// the three, also when a later merge brings back our own spelling.
    #[test]
    fn three_partitions_show_the_earliest_spelling() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let s = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>)> = vec![
            (vec![s.clone()], vec![DataType::Utf8]),
            (
                vec![s.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Utf8, DataType::Int64],
            ),
        ];
        // (morsel, spelling) of each partition; the earliest wins.
        let cases: Vec<(Vec<(u64, &str)>, &str)> = vec![
            (vec![(5, "a"), (2, "A"), (1, "a")], "a"),
            (vec![(5, "a"), (2, "A"), (1, "a ")], "a "),
            (vec![(5, "a"), (2, "A"), (3, "a ")], "A"),
            (vec![(1, "a"), (2, "A"), (3, "a ")], "a"),
            (vec![(3, "a"), (2, "a"), (1, "A")], "A"),
        ];
        for (shape, (group, types)) in shapes.iter().enumerate() {
            for (parts, want) in &cases {
                let aggs: Vec<AggregateSpec> = vec![];
                let mut tables = vec![];
                for (morsel, v) in parts {
                    let mut t = GroupTable::tracking(types, &aggs, true, false);
                    let at = t.batch_position(Some(ScanPosition {
                        scan: 7,
                        morsel: *morsel,
                    }));
                    t.update_at(&batch(&[0, 0], &[v, "b"]), group, &aggs, at)
                        .unwrap();
                    tables.push(t);
                }
                let classes = order_classes(tables.iter().map(|t| t.seen.scan));
                let n = tables.len();
                let mut it = tables.into_iter().zip(classes).enumerate();
                let (_, (mut total, class)) = it.next().unwrap();
                total.set_class(class);
                for (i, (t, class)) in it {
                    total.merge_in(t, class, i + 1 == n).unwrap();
                }
                let keys = total.shown_keys().unwrap().unwrap();
                assert_eq!(
                    strings(&keys[0]),
                    vec![want.to_string(), "b".to_string()],
                    "shape {shape} {parts:?}"
                );
            }
        }
    }

    #[test]
    fn patched_strings_keep_the_other_rows() {
        let a = StringArray::from(vec![
            Some("zz"),
            Some("ab"),
            None,
            Some(""),
            Some("cd "),
            Some("e"),
        ]);
        let a = a.slice(1, 5);
        let out = patch_strings(&a, &[(0, b"AB  ".as_slice()), (3, b"CD"), (4, b"")]).unwrap();
        let got: Vec<Option<&str>> = out.iter().collect();
        assert_eq!(
            got,
            vec![Some("AB  "), None, Some(""), Some("CD"), Some("")]
        );
        let out = patch_strings(&a, &[(2, b"x".as_slice())]).unwrap();
        let got: Vec<Option<&str>> = out.iter().collect();
        assert_eq!(
            got,
            vec![Some("ab"), None, Some("x"), Some("cd "), Some("e")]
        );
    }

    #[test]
    fn partitions_of_one_scan_share_a_class() {
        let scans = [
            SeenIn::Scan(7),
            SeenIn::Scan(7),
            SeenIn::Scan(9),
            SeenIn::Unknown,
            SeenIn::Scan(9),
            SeenIn::Nothing,
        ];
        let classes: Vec<Position> = order_classes(scans.into_iter())
            .into_iter()
            .map(|c| c >> CLASS_SHIFT)
            .collect();
        assert_eq!(classes, vec![0, 0, 2, 3, 2, 5]);
    }
}

#[cfg(test)]
mod binary_tests {
    use super::*;
    use arrow_array::{BinaryArray, Int64Array};
    use arrow_schema::{Field, Schema};
    use std::collections::{BTreeMap, BTreeSet};

    type Row = (i64, Option<Vec<u8>>);

    fn batch(rows: &[Row]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("b", DataType::Binary, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
                Arc::new(BinaryArray::from_iter(rows.iter().map(|r| r.1.clone()))),
            ],
        )
        .unwrap()
    }

    /// GROUP BY a binary key (packed while short, then the string map or
    /// the general table; alone, with an integer), merged over partitions,
    /// with MIN / MAX / COUNT(DISTINCT) of binary values: bytes decide, no
    /// padding ('a' and 'a ' are two groups), plain byte order. Checked
    /// against a reference over `Vec<u8>`.
    #[test]
    fn binary_keys_and_min_max_distinct_are_bytes() {
        let words: [&[u8]; 9] = [
            b"a",
            b"a ",
            b"a\0",
            b"A",
            b"",
            b" ",
            b"\xFF",
            b"\xC3\xA9",
            b"ab",
        ];
        let long = b"a long binary key \xFF".to_vec();
        let row = |k: usize| -> Row {
            let b = match k % 10 {
                9 => None,
                w => Some(words[(w + k / 10) % words.len()].to_vec()),
            };
            ((k % 3) as i64, b)
        };
        let early: Vec<Row> = (0..60).map(row).collect();
        let mut late: Vec<Row> = (60..130).map(row).collect();
        late.push((1, Some(long.clone())));
        let b = PhysicalExpr::Column(1);
        let spec = |func, distinct, t: DataType| AggregateSpec {
            func,
            arg: Some(b.clone()),
            distinct,
            output_type: t,
            text: String::new(),
            concat: None,
        };
        let aggs = vec![
            spec(AggFunc::Min, false, DataType::Binary),
            spec(AggFunc::Max, false, DataType::Binary),
            spec(AggFunc::Count, true, DataType::Int64),
        ];
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>, &[Row])> = vec![
            (vec![b.clone()], vec![DataType::Binary], &early[..]),
            (vec![b.clone()], vec![DataType::Binary], &late[..]),
            (
                vec![b.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Binary, DataType::Int64],
                &early[..],
            ),
            (
                vec![PhysicalExpr::Column(0), b.clone()],
                vec![DataType::Int64, DataType::Binary],
                &late[..],
            ),
        ];
        for (shape, (group, types, second)) in shapes.into_iter().enumerate() {
            let parts = [batch(&early), batch(second)];
            let mut tables = parts.iter().map(|p| {
                let mut t = GroupTable::tracking(&types, &aggs, true, true);
                t.update_at(p, &group, &aggs, 0).unwrap();
                t
            });
            let mut total = tables.next().unwrap();
            for t in tables {
                total.merge_in(t, 1 << CLASS_SHIFT, true).unwrap();
            }
            let mut fields: Vec<Field> = types
                .iter()
                .enumerate()
                .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                .collect();
            fields.push(Field::new("min", DataType::Binary, true));
            fields.push(Field::new("max", DataType::Binary, true));
            fields.push(Field::new("n", DataType::Int64, true));
            let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
            let k = types.len();
            let bytes = |c: usize, r: usize| -> Option<Vec<u8>> {
                let a = out.column(c).as_binary::<i32>();
                a.is_valid(r).then(|| a.value(r).to_vec())
            };
            type Key = (Option<i64>, Option<Vec<u8>>);
            let key_of = |r: &Row| -> Key {
                match shape {
                    0 | 1 => (None, r.1.clone()),
                    _ => (Some(r.0), r.1.clone()),
                }
            };
            let mut got: BTreeMap<Key, (Option<Vec<u8>>, Option<Vec<u8>>, i64)> = BTreeMap::new();
            for r in 0..out.num_rows() {
                let int = |c: usize| out.column(c).as_primitive::<Int64Type>().value(r);
                let key = match shape {
                    0 | 1 => (None, bytes(0, r)),
                    2 => (Some(int(1)), bytes(0, r)),
                    _ => (Some(int(0)), bytes(1, r)),
                };
                let n = out.column(k + 2).as_primitive::<Int64Type>().value(r);
                assert!(got.insert(key, (bytes(k, r), bytes(k + 1, r), n)).is_none());
            }
            let mut want: BTreeMap<Key, BTreeSet<Vec<u8>>> = BTreeMap::new();
            for r in early.iter().chain(second) {
                let set = want.entry(key_of(r)).or_default();
                if let Some(v) = &r.1 {
                    set.insert(v.clone());
                }
            }
            let want: BTreeMap<Key, (Option<Vec<u8>>, Option<Vec<u8>>, i64)> = want
                .into_iter()
                .map(|(k, s)| {
                    let n = s.len() as i64;
                    (k, (s.first().cloned(), s.last().cloned(), n))
                })
                .collect();
            assert_eq!(got, want, "shape {shape}");
        }
    }
}
