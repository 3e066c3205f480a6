//! One partition's table of groups: keys to dense group ids in first-seen
//! order (an integer map, packed keys, a string map or hashed rows), and
//! the accumulators of each group.

use super::*;

/// Groups found so far and their accumulators. With exactly one key whose
/// values are integers (`KeyValues::Int`) the groups live in an
/// `IntGroupMap`, as do keys that pack into one integer (`PackedLayout`: a
/// short string, or a pair of integers and short strings); otherwise keys are
/// hashed row-wise into `map` and stored in `keys`. Either way group ids are
/// dense and in first-seen order.
pub(super) struct GroupTable {
    pub(super) types: Vec<DataType>,
    pub(super) keys: Option<GroupKeys>,
    pub(super) hashes: Vec<u64>,
    pub(super) map: HashTable<u32>,
    /// The integer-key path; set by the first batch whose one key column is
    /// `KeyValues::Int` (a key's shape follows from its type) or whose keys pack.
    pub(super) ints: Option<IntGroupMap>,
    /// How the keys in `ints` are packed, if they are.
    pub(super) packed: Option<PackedLayout>,
    /// One string key under the default collation that does not pack.
    pub(super) strs: Option<StrGroupMap>,
    pub(super) groups: usize,
    pub(super) accs: Vec<Acc>,
    /// Where groups were first seen, when kept (see [`AggregateExec::run`]).
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
            strs: None,
            groups,
            accs,
        }
    }

    pub(super) fn memory_size(&self) -> usize {
        self.keyed_size() + self.accs.iter().map(Acc::held_bytes).sum::<usize>()
    }

    pub(super) fn keyed_size(&self) -> usize {
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
    pub(super) fn group_ids(&mut self, keys: &[KeyColumn], rows: usize) -> Result<Vec<u32>> {
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
    pub(super) fn hashed_group_ids(&mut self, keys: &[KeyColumn], rows: usize) -> Vec<u32> {
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
    pub(super) fn general_group_ids(&mut self, keys: &[KeyColumn], rows: usize) -> Vec<u32> {
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
    pub(super) fn key_arrays(&self) -> Result<Option<Vec<ArrayRef>>> {
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
    pub(super) fn batch_position(&mut self, p: Option<ScanPosition>) -> Position {
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
    pub(super) fn merge(&mut self, other: GroupTable) -> Result<()> {
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
        _ => cast_array(
            &(Arc::new(arrow_array::Int64Array::new(v.to_vec().into(), nulls)) as ArrayRef),
            t,
        )?,
    })
}
