//! The group table of one partition: finds each row's group (integer,
//! packed, string or general hashed keys), updates the accumulators, merges
//! partial tables and builds the output batch.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, SchemaRef};
use hashbrown::HashTable;
use quiver_collation::Collation;
use quiver_common::{QuiverError, Result};

use crate::bytes::is_binary;
use crate::context::ScanPosition;
use crate::expr::{cast_array, PhysicalExpr};
use crate::hash::{hash_rows, GroupKeys, KeyColumn, KeyValues};
use crate::operators::int_group_map::IntGroupMap;
use crate::operators::int_tuple_group_map::IntTupleGroupMap;
use crate::operators::packed_keys::{str_key_array, PackedLayout};
use crate::operators::str_group_map::StrGroupMap;

use super::acc::Acc;
use super::distinct::update_tuples;
use super::first_seen::{FirstSeen, Position, OWN_KEY, UNSEEN};
use super::spec::AggregateSpec;

/// Groups found so far and their accumulators. With exactly one key whose
/// values are integers (`KeyValues::Int`) the groups live in an
/// `IntGroupMap`, as do keys that pack into one integer (`PackedLayout`: a
/// short string, or a pair of integers and short strings); two to four
/// integer keys that do not pack, while none is NULL, live in an
/// `IntTupleGroupMap`; otherwise keys are hashed row-wise into `map` and
/// stored in `keys`. Either way group ids are dense and in first-seen order.
pub(super) struct GroupTable {
    types: Vec<DataType>,
    keys: Option<GroupKeys>,
    hashes: Vec<u64>,
    map: HashTable<u32>,
    /// The integer-key path; set by the first batch whose one key column is
    /// `KeyValues::Int` (a key's shape follows from its type) or whose keys pack.
    ints: Option<IntGroupMap>,
    /// How the keys in `ints` are packed, if they are.
    packed: Option<PackedLayout>,
    /// The collations of the packed keys: unpacked keys (a merge, a move
    /// to the general table) must hash and compare as the table's other
    /// keys do, or one group splits in two.
    packed_collations: Vec<Option<Collation>>,
    /// One string key under the default collation that does not pack.
    strs: Option<StrGroupMap>,
    /// Two to four integer keys that do not pack, while none is NULL.
    tuples: Option<IntTupleGroupMap>,
    groups: usize,
    pub(super) accs: Vec<Acc>,
    /// Where groups were first seen, when kept (see
    /// [`AggregateExec::run`](super::AggregateExec::run)).
    pub(super) seen: FirstSeen,
}

impl GroupTable {
    /// A table that keeps no positions (one partition, or keys and values
    /// where equal is identical).
    #[cfg(test)]
    pub(super) fn new(types: &[DataType], aggs: &[AggregateSpec]) -> GroupTable {
        GroupTable::tracking(types, aggs, false, false)
    }

    /// A table that notes where each group was first seen (with `keys`)
    /// and where each string MIN/MAX of a collation that ties distinct
    /// values was (with `values`).
    pub(super) fn tracking(
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
            packed_collations: vec![],
            strs: None,
            tuples: None,
            groups,
            accs,
        }
    }

    /// A table without groups that goes on numbering batches where this
    /// one was (see [`FirstSeen::batch_position`]).
    pub(super) fn emptied(&self, types: &[DataType], aggs: &[AggregateSpec]) -> GroupTable {
        let mut t = GroupTable::tracking(types, aggs, self.seen.on, false);
        t.seen.scan = self.seen.scan;
        t.seen.batches = self.seen.batches;
        t
    }

    /// Groups so far.
    pub(super) fn groups(&self) -> usize {
        self.groups
    }

    /// Values the DISTINCT aggregates keep, over all groups.
    pub(super) fn distinct_entries(&self) -> usize {
        self.accs.iter().map(Acc::distinct_entries).sum()
    }

    /// Whether the key indexes the groups directly (see `IntGroupMap`):
    /// in-order probes, whatever the number of groups.
    pub(super) fn has_direct_index(&self) -> bool {
        self.ints.as_ref().is_some_and(IntGroupMap::is_direct)
    }

    pub(super) fn memory_size(&self) -> usize {
        self.keyed_size() + self.accs.iter().map(Acc::held_bytes).sum::<usize>()
    }

    fn keyed_size(&self) -> usize {
        if let Some(m) = &self.tuples {
            return m.memory_size() + self.groups * 16 * self.accs.len();
        }
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
        self.group_ids_hashed(keys, rows, None)
    }

    /// [`GroupTable::group_ids`], given the rows' `hash_rows` of `keys`
    /// where already known (rows scattered by it).
    fn group_ids_hashed(
        &mut self,
        keys: &[KeyColumn],
        rows: usize,
        hashes: Option<&[u64]>,
    ) -> Result<Vec<u32>> {
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
                // Once groups are in the tuple map, later batches stay there.
                (None, None) if self.strs.is_none() && self.tuples.is_none() => {
                    PackedLayout::of(keys, &self.types)
                }
                (None, None) => None,
                (None, Some(_)) => None,
            };
            if let Some((layout, packed)) = layout.and_then(|l| Some((l, l.pack(keys, rows)?))) {
                if self.packed.is_none() {
                    self.packed_collations = keys.iter().map(|k| k.collation).collect();
                }
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
        if self.keys.is_none() && self.ints.is_none() && self.strs.is_none() {
            if let Some(cols) = tuple_columns(keys, rows) {
                if self.tuples.is_none() {
                    self.tuples = IntTupleGroupMap::new(cols.len());
                }
                if let Some(m) = &mut self.tuples {
                    let mut ids = Vec::with_capacity(rows);
                    m.group_ids(&cols, rows, &mut ids);
                    self.groups = m.groups();
                    return Ok(ids);
                }
            }
            if let Some(m) = self.tuples.take() {
                // A NULL key: the groups so far move to the general table,
                // in id order so that every group keeps its id.
                let kept = std::mem::take(&mut self.groups);
                let ids = self.hashed_group_ids(&m.key_columns(), kept, None);
                debug_assert!(ids.iter().enumerate().all(|(i, g)| i == *g as usize));
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
            let ids = self.hashed_group_ids(&old, kept, None);
            debug_assert!(ids.iter().enumerate().all(|(i, g)| i == *g as usize));
        }
        if self.ints.is_some() {
            return Err(QuiverError::internal(
                "GROUP BY key changed its physical shape between batches",
            ));
        }
        Ok(self.hashed_group_ids(keys, rows, hashes))
    }

    /// Keys that do not go to `ints`: one string key into `strs` (under
    /// its collation), anything else into the general table.
    fn hashed_group_ids(
        &mut self,
        keys: &[KeyColumn],
        rows: usize,
        hashes: Option<&[u64]>,
    ) -> Vec<u32> {
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
        self.general_group_ids(keys, rows, hashes)
    }

    /// Any keys: row hashes into `map`, keys kept in `keys`.
    fn general_group_ids(
        &mut self,
        keys: &[KeyColumn],
        rows: usize,
        known: Option<&[u64]>,
    ) -> Vec<u32> {
        let computed;
        let hashes = match known {
            Some(h) if h.len() == rows => h,
            _ => {
                computed = hash_rows(keys, rows);
                &computed[..]
            }
        };
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
    pub(super) fn shown_keys(&self) -> Result<Option<Vec<ArrayRef>>> {
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
        if let Some(m) = &self.tuples {
            let arrays = self
                .types
                .iter()
                .enumerate()
                .map(|(c, t)| int_values_array(m.column(c), None, t))
                .collect::<Result<Vec<_>>>()?;
            return Ok(Some(arrays));
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

    /// The position of the first row of the next batch (see
    /// [`FirstSeen::batch_position`]).
    pub(super) fn batch_position(&mut self, p: Option<ScanPosition>) -> Position {
        self.seen.batch_position(p)
    }

    /// Puts the table's positions in `class` (see
    /// [`order_classes`](super::first_seen::order_classes)).
    pub(super) fn set_class(&mut self, class: Position) {
        for p in &mut self.seen.first {
            *p |= class;
        }
        for a in &mut self.accs {
            a.set_class(class);
        }
    }

    #[cfg(test)]
    pub(super) fn update(
        &mut self,
        batch: &RecordBatch,
        group: &[PhysicalExpr],
        aggs: &[AggregateSpec],
    ) -> Result<()> {
        self.update_at(batch, group, aggs, 0)
    }

    /// Adds a batch whose first row is at position `at`.
    pub(super) fn update_at(
        &mut self,
        batch: &RecordBatch,
        group: &[PhysicalExpr],
        aggs: &[AggregateSpec],
        at: Position,
    ) -> Result<()> {
        self.update_with(batch, group, aggs, at, None, None)
    }

    /// Adds rows scattered into a bucket, `hashes` their keys' `hash_rows`;
    /// with `runs`, at the positions of `runs` ((first row, position) in row
    /// order, positions not decreasing). Accumulators take no positions here.
    pub(super) fn update_scattered(
        &mut self,
        batch: &RecordBatch,
        group: &[PhysicalExpr],
        aggs: &[AggregateSpec],
        runs: Option<&[(u32, Position)]>,
        hashes: &[u64],
    ) -> Result<()> {
        self.update_with(batch, group, aggs, 0, runs, Some(hashes))
    }

    fn update_with(
        &mut self,
        batch: &RecordBatch,
        group: &[PhysicalExpr],
        aggs: &[AggregateSpec],
        at: Position,
        runs: Option<&[(u32, Position)]>,
        hashes: Option<&[u64]>,
    ) -> Result<()> {
        let keys = group
            .iter()
            .map(|g| KeyColumn::collated(&g.evaluate_array(batch)?, g.collation()))
            .collect::<Result<Vec<_>>>()?;
        let ids = self.group_ids_hashed(&keys, batch.num_rows(), hashes)?;
        if self.seen.on {
            match runs {
                Some(runs) => self.seen.record_rows(&ids, runs),
                None => self.seen.record(self.groups, at),
            }
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
    pub(super) fn merge_in(
        &mut self,
        other: GroupTable,
        class: Position,
        last: bool,
    ) -> Result<()> {
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
                for ((k, t), c) in keys
                    .iter_mut()
                    .zip(&other.types)
                    .zip(&other.packed_collations)
                {
                    k.collation = *c;
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
            (None, None) if other.tuples.is_some() => {
                let keys = other.tuples.as_ref().expect("checked").key_columns();
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

    pub(super) fn finish(self, schema: &SchemaRef, aggs: &[AggregateSpec]) -> Result<RecordBatch> {
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
pub(super) fn int_key_array(m: &IntGroupMap, t: &DataType) -> Result<ArrayRef> {
    int_values_array(m.keys().to_vec(), Some(NullBuffer::from(m.validity())), t)
}

/// The keys as integer slices, for an `IntTupleGroupMap`: two to four
/// integer keys, none NULL in these rows.
fn tuple_columns(keys: &[KeyColumn], rows: usize) -> Option<Vec<&[i64]>> {
    if !(2..=4).contains(&keys.len()) {
        return None;
    }
    keys.iter()
        .map(|k| match (&k.values, &k.nulls) {
            (KeyValues::Int(v), None) => v.get(..rows),
            (KeyValues::Int(v), Some(n)) if n.null_count() == 0 => v.get(..rows),
            _ => None,
        })
        .collect()
}

pub(super) fn int_values_array(
    v: Vec<i64>,
    nulls: Option<NullBuffer>,
    t: &DataType,
) -> Result<ArrayRef> {
    Ok(match t {
        DataType::Date32 => Arc::new(arrow_array::Date32Array::new(
            v.iter().map(|x| *x as i32).collect::<Vec<_>>().into(),
            nulls,
        )),
        DataType::Timestamp(_, fsp) => Arc::new(
            arrow_array::TimestampMicrosecondArray::new(v.to_vec().into(), nulls)
                .with_timezone_opt(fsp.clone()),
        ),
        DataType::Decimal64(..) => Arc::new(
            arrow_array::Decimal64Array::new(v.to_vec().into(), nulls).with_data_type(t.clone()),
        ),
        _ => cast_array(
            &(Arc::new(arrow_array::Int64Array::new(v.to_vec().into(), nulls)) as ArrayRef),
            t,
        )?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::kernels::{add_exact, wide_decimal_out};
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal256Type, Int64Type};
    use arrow_buffer::i256;
    use arrow_schema::{Field, Schema, TimeUnit};
    use quiver_plan::AggFunc;

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

    /// Two integer keys: the tuple map (moving to the general table when
    /// a later batch has a NULL key), merged across partitions, gives the
    /// rows of the row-hashing path.
    #[test]
    fn int_tuple_keys_match_the_general_path() {
        use arrow_array::{Int32Array, Int64Array};
        let mut rng = Rng(0x5EED);
        let batch = |rng: &mut Rng, nulls: bool| {
            let a: Int64Array = (0..5000)
                .map(|_| Some(rng.below(300) as i64 * 7_000_000_007 - 1_000_000_000_000))
                .collect();
            let b: Int32Array = (0..5000)
                .map(|i| (!(nulls && i % 97 == 0)).then(|| rng.below(50) as i32 - 25))
                .collect();
            let schema = Arc::new(Schema::new(vec![
                Field::new("a", DataType::Int64, true),
                Field::new("b", DataType::Int32, true),
            ]));
            RecordBatch::try_new(schema, vec![Arc::new(a), Arc::new(b)]).unwrap()
        };
        let parts: Vec<Vec<RecordBatch>> = vec![
            vec![batch(&mut rng, false), batch(&mut rng, false)],
            vec![
                batch(&mut rng, false),
                batch(&mut rng, true),
                batch(&mut rng, false),
            ],
            vec![batch(&mut rng, false)],
        ];
        let types = [DataType::Int64, DataType::Int32];
        let aggs = specs();
        let group = vec![PhysicalExpr::Column(0), PhysicalExpr::Column(1)];
        let run = |general: bool| {
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
                // The partition with a NULL key moved to the general table.
                assert_eq!(table.tuples.is_some(), !general && batches.len() != 3);
                table
            });
            let mut total = tables.next().unwrap();
            for t in tables {
                total.merge(t).unwrap();
            }
            let mut fields: Vec<Field> = vec![
                Field::new("a", DataType::Int64, true),
                Field::new("b", DataType::Int32, true),
            ];
            for (i, a) in aggs.iter().enumerate() {
                fields.push(Field::new(format!("a{i}"), a.output_type.clone(), true));
            }
            let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
            let mut rows: Vec<String> = (0..out.num_rows())
                .map(|r| {
                    out.columns()
                        .iter()
                        .map(|c| format!("{:?}", c.slice(r, 1)))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            rows.sort();
            rows
        };
        let tuples = run(false);
        assert!(tuples.len() > 1000, "{} groups", tuples.len());
        assert!(
            tuples.iter().any(|r| r.contains("null")),
            "a NULL key group"
        );
        assert_eq!(tuples, run(true));
    }

    /// Keys that would pack arriving after groups went to the tuple map
    /// (a negative key first) join those groups, not a second map.
    #[test]
    fn packable_batches_after_the_tuple_map_stay_in_it() {
        use arrow_array::Int64Array;
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Int64, true),
        ]));
        let batch = |a: Vec<i64>, b: Vec<i64>| {
            RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(Int64Array::from(a)), Arc::new(Int64Array::from(b))],
            )
            .unwrap()
        };
        let types = [DataType::Int64, DataType::Int64];
        let aggs = specs();
        let group = vec![PhysicalExpr::Column(0), PhysicalExpr::Column(1)];
        let mut table = GroupTable::new(&types, &aggs);
        table
            .update(&batch(vec![-3], vec![0]), &group, &aggs)
            .unwrap();
        table
            .update(&batch(vec![3, -3, 3], vec![0, 0, 1]), &group, &aggs)
            .unwrap();
        assert!(table.tuples.is_some() && table.ints.is_none());
        assert_eq!(table.groups, 3);
        let Acc::Count { counts, .. } = &table.accs[0] else {
            panic!("COUNT(*) state");
        };
        assert_eq!(counts[..3], [2, 1, 1]);
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
