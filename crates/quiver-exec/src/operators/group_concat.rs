//! GROUP_CONCAT's state in the hash aggregation: the rows kept, in one
//! arena per accumulator (not per group), and the result strings built at
//! the end, each group's length computed first and all groups written into
//! one buffer.
//!
//! Rows are kept in the order they came, with the position of their batch
//! (see `aggregate.rs`: a scan's morsel, in its partition's class), so
//! partial states merged in any partition order give the order one scan
//! gives. Which rows show, and in what order, is MariaDB's:
//! - without DISTINCT or ORDER BY, in input order; once a group holds more
//!   than `group_concat_max_len` the rest cannot show and are not kept;
//! - ORDER BY sorts by its keys (MariaDB's tree puts a row before the rows
//!   it ties with: ties in reverse input order);
//! - DISTINCT keeps the first of equal rows (strings equal under their
//!   collation), and without ORDER BY the rows come in the order of their
//!   values (strings under their collation, numbers as numbers).
//!
//! ORDER BY and DISTINCT keys are kept as row-format bytes (strings as
//! their collation's normalized keys), compared and hashed as bytes. A
//! NULL ORDER BY key is its type's zero value (0, ''), as in MariaDB.

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Int64Array, RecordBatch, Scalar,
    StringArray, TimestampMicrosecondArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, SortOptions, TimeUnit};
use hashbrown::HashTable;
use quiver_collation::{Charset, Collation};
use quiver_common::{QuiverError, Result};

use super::sort::key_form::{string_sort_column, SortKey, StringKeyForm};
use super::sort::sort_keys::positive_zero;
use crate::bytes::byte_view;
use crate::expr::{cast_array, PhysicalExpr};
use crate::hash::{hash_bytes, mix};

/// GROUP_CONCAT compiled (see `quiver_plan::GroupConcat`).
#[derive(Debug, Clone)]
pub struct GroupConcatSpec {
    /// A row's values, written one after the other (strings).
    pub args: Vec<PhysicalExpr>,
    /// With DISTINCT: what rows are told apart by.
    pub distinct_keys: Vec<PhysicalExpr>,
    pub order_by: Vec<SortKey>,
    pub separator: Vec<u8>,
    /// `group_concat_max_len`, in bytes of the result's charset.
    pub max_len: usize,
    /// The result's collation (its charset says how `max_len` counts).
    pub collation: Collation,
    /// LIMIT: (offset, count) of the rows in their order.
    pub limit: Option<(usize, usize)>,
    /// Written before and after a result that is not NULL (JSON_ARRAYAGG).
    pub wrap: Option<(Vec<u8>, Vec<u8>)>,
}

impl GroupConcatSpec {
    fn distinct(&self) -> bool {
        !self.distinct_keys.is_empty()
    }
}

/// Which rows cannot show (see [`GroupConcatAcc::drop_rule`]).
#[derive(Debug, Clone, Copy)]
enum Drop {
    Never,
    /// Rows after a group's first n.
    PastRows(usize),
    /// Rows after a group's result passes n bytes.
    PastBytes(usize),
}

/// A removed row's group (a DISTINCT row replaced by an earlier equal one
/// of a merged state).
const DEAD: u32 = u32::MAX;

/// Items of one kind of bytes per row, one after the other: row `i` is
/// `bytes[ends[i]..ends[i + 1]]`.
#[derive(Debug)]
struct Arena {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Arena {
    fn new() -> Arena {
        Arena {
            bytes: vec![],
            ends: vec![0],
        }
    }

    fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.ends[i]..self.ends[i + 1]]
    }

    fn push(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
        self.ends.push(self.bytes.len());
    }

    fn held_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * std::mem::size_of::<usize>()
    }
}

/// The rows of GROUP_CONCAT kept so far, for all groups of a table.
#[derive(Debug)]
pub(crate) struct GroupConcatAcc {
    spec: Arc<GroupConcatSpec>,
    /// Per row: its group (DEAD once replaced) and batch position.
    group: Vec<u32>,
    pos: Vec<u32>,
    /// Per row: its values, one after the other.
    values: Arena,
    /// Per row, with ORDER BY: its keys in the row format.
    order_keys: Arena,
    /// Per row, with DISTINCT: its distinct key in the row format, and the
    /// hash of (group, key).
    distinct_keys: Arena,
    hashes: Vec<u64>,
    /// With DISTINCT: rows by (group, distinct key).
    seen: HashTable<u32>,
    /// Per group, without DISTINCT or ORDER BY: bytes of its result (or
    /// rows, with LIMIT) so far, to drop rows that cannot show.
    shown: Vec<usize>,
    order_rows: Option<RowConverter>,
    distinct_rows: Option<RowConverter>,
}

impl GroupConcatAcc {
    pub(crate) fn new(spec: Arc<GroupConcatSpec>) -> GroupConcatAcc {
        GroupConcatAcc {
            spec,
            group: vec![],
            pos: vec![],
            values: Arena::new(),
            order_keys: Arena::new(),
            distinct_keys: Arena::new(),
            hashes: vec![],
            seen: HashTable::new(),
            shown: vec![],
            order_rows: None,
            distinct_rows: None,
        }
    }

    pub(crate) fn resize(&mut self, groups: usize) {
        self.shown.resize(groups, 0);
    }

    /// Puts the positions of a partial state in `class`.
    pub(crate) fn set_class(&mut self, class: u32) {
        for p in &mut self.pos {
            *p |= class;
        }
    }

    pub(crate) fn held_bytes(&self) -> usize {
        self.values.held_bytes()
            + self.order_keys.held_bytes()
            + self.distinct_keys.held_bytes()
            + (self.group.capacity() + self.pos.capacity()) * 4
            + self.hashes.capacity() * 8
            + self.seen.capacity() * 5
            + self.shown.capacity() * std::mem::size_of::<usize>()
    }

    /// Without DISTINCT or ORDER BY rows come in input order, and a group
    /// shows no rows past its LIMIT, nor past `max_len` (a character of the
    /// UTF-8 text takes at most 4 bytes, and counts at least one unit).
    fn drop_rule(&self) -> Drop {
        if !self.spec.order_by.is_empty() || self.spec.distinct() {
            return Drop::Never;
        }
        match self.spec.limit {
            // One row at least: a group with rows is '' under LIMIT 0, not NULL.
            Some((offset, count)) => Drop::PastRows(offset.saturating_add(count).max(1)),
            None => Drop::PastBytes(self.spec.max_len.saturating_mul(4)),
        }
    }

    /// Adds the rows of `batch` (groups `ids`) at position `at`.
    pub(crate) fn update(&mut self, batch: &RecordBatch, ids: &[u32], at: u32) -> Result<()> {
        let mut parts = Vec::with_capacity(self.spec.args.len());
        for a in &self.spec.args {
            let v = a.evaluate_array(batch)?;
            if v.data_type() == &DataType::Null {
                // A NULL argument: no row shows.
                return Ok(());
            }
            parts.push(bytes_of(&v)?);
        }
        let order = match self.spec.order_by.is_empty() {
            true => None,
            false => {
                let keys: Vec<(&PhysicalExpr, SortOptions)> = self
                    .spec
                    .order_by
                    .iter()
                    .map(|k| {
                        let o = SortOptions {
                            descending: !k.asc,
                            nulls_first: k.nulls_first,
                        };
                        (&k.expr, o)
                    })
                    .collect();
                Some(key_rows(&keys, batch, &mut self.order_rows)?)
            }
        };
        let distinct = match self.spec.distinct() {
            false => None,
            true => {
                let keys: Vec<(&PhysicalExpr, SortOptions)> = self
                    .spec
                    .distinct_keys
                    .iter()
                    .map(|e| (e, SortOptions::default()))
                    .collect();
                Some(key_rows(&keys, batch, &mut self.distinct_rows)?)
            }
        };
        let drop = self.drop_rule();
        let sep = self.spec.separator.len();
        for (i, &g) in ids.iter().enumerate().take(batch.num_rows()) {
            if parts.iter().any(|p| p.is_null(i)) {
                continue;
            }
            let shown = &mut self.shown[g as usize];
            match drop {
                Drop::Never => {}
                Drop::PastRows(n) if *shown >= n => continue,
                Drop::PastRows(_) => *shown += 1,
                Drop::PastBytes(n) if *shown > n => continue,
                Drop::PastBytes(_) => {
                    *shown += parts.iter().map(|p| p.value(i).len()).sum::<usize>() + sep;
                }
            }
            let mut hash = 0;
            if let Some(d) = &distinct {
                let key = d.row(i);
                hash = key_hash(g, key.as_ref());
                if self.find(g, key.as_ref(), hash).is_some() {
                    continue;
                }
            }
            let row = self.group.len();
            self.group.push(g);
            self.pos.push(at);
            for p in &parts {
                self.values.bytes.extend_from_slice(p.value(i));
            }
            self.values.ends.push(self.values.bytes.len());
            if let Some(o) = &order {
                self.order_keys.push(o.row(i).as_ref());
            }
            if let Some(d) = &distinct {
                self.distinct_keys.push(d.row(i).as_ref());
                self.insert(row, hash);
            }
        }
        Ok(())
    }

    /// The kept row of group `g` with distinct key `key`.
    fn find(&self, g: u32, key: &[u8], hash: u64) -> Option<usize> {
        self.seen
            .find(hash, |&j| {
                self.group[j as usize] == g && self.distinct_keys.get(j as usize) == key
            })
            .map(|&j| j as usize)
    }

    /// Notes `row` (the last one pushed) as kept, its (group, key)
    /// hashing to `hash`.
    fn insert(&mut self, row: usize, hash: u64) {
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.seen
            .insert_unique(hash, row as u32, |&j| hashes[j as usize]);
    }

    /// Folds in the state of a later partition: its group `k` is our
    /// `ids[k]`, its positions in `class`.
    pub(crate) fn merge(&mut self, other: GroupConcatAcc, ids: &[u32], class: u32) -> Result<()> {
        let distinct = self.spec.distinct();
        let ordered = !self.spec.order_by.is_empty();
        for k in 0..other.group.len() {
            let og = other.group[k];
            if og == DEAD {
                continue;
            }
            let g = ids[og as usize];
            let p = other.pos[k] | class;
            let mut hash = 0;
            if distinct {
                let key = other.distinct_keys.get(k);
                hash = key_hash(g, key);
                if let Some(j) = self.find(g, key, hash) {
                    if self.pos[j] <= p {
                        continue;
                    }
                    // The other row came first: it is the one kept.
                    self.group[j] = DEAD;
                    let new = self.group.len() as u32;
                    if let Some(slot) = self.seen.find_mut(hash, |&x| x as usize == j) {
                        *slot = new;
                    }
                    self.push_from(&other, k, g, p, ordered);
                    self.distinct_keys.push(key);
                    self.hashes.push(hash);
                    continue;
                }
            }
            let row = self.group.len();
            self.push_from(&other, k, g, p, ordered);
            if distinct {
                self.distinct_keys.push(other.distinct_keys.get(k));
                self.insert(row, hash);
            }
        }
        Ok(())
    }

    /// Appends row `k` of `other` as a row of group `g` at position `p`
    /// (its values and ORDER BY keys; the caller adds a distinct key).
    fn push_from(&mut self, other: &GroupConcatAcc, k: usize, g: u32, p: u32, ordered: bool) {
        self.values.push(other.values.get(k));
        if ordered {
            self.order_keys.push(other.order_keys.get(k));
        }
        self.group.push(g);
        self.pos.push(p);
    }

    /// The result of each of `groups` groups, of type `t` (text or binary).
    pub(crate) fn finish(self, t: &DataType, groups: usize) -> Result<ArrayRef> {
        // The rows of each group (in the order kept), by counting.
        let mut starts = vec![0usize; groups + 1];
        for &g in &self.group {
            if g != DEAD {
                starts[g as usize + 1] += 1;
            }
        }
        for g in 0..groups {
            starts[g + 1] += starts[g];
        }
        let mut rows = vec![0u32; starts[groups]];
        let mut next = starts.clone();
        for (i, &g) in self.group.iter().enumerate() {
            if g != DEAD {
                rows[next[g as usize]] = i as u32;
                next[g as usize] += 1;
            }
        }
        for g in 0..groups {
            self.sort_rows(&mut rows[starts[g]..starts[g + 1]]);
        }
        // The rows each group shows (a group with rows is not NULL, even
        // where LIMIT shows none of them).
        let shown = |g: usize| {
            let r = &rows[starts[g]..starts[g + 1]];
            match self.spec.limit {
                None => r,
                Some((offset, count)) => {
                    let r = &r[offset.min(r.len())..];
                    &r[..count.min(r.len())]
                }
            }
        };
        // Each group's length, then one buffer for all.
        let unit = Unit::of(self.spec.collation);
        let sep = &self.spec.separator[..];
        let pieces = |r| pieces(&self.values, sep, r);
        let mut lens = Vec::with_capacity(groups);
        let mut total = 0usize;
        let (before, after) = match &self.spec.wrap {
            Some((b, a)) => (&b[..], &a[..]),
            None => (&[][..], &[][..]),
        };
        let wrap_len = before.len() + after.len();
        for g in 0..groups {
            let r = shown(g);
            let full: usize = r
                .iter()
                .map(|&i| self.values.get(i as usize).len())
                .sum::<usize>()
                + sep.len() * r.len().saturating_sub(1);
            let len = match full > self.spec.max_len {
                true => cut_len(pieces(r), self.spec.max_len, unit),
                false => full,
            };
            lens.push(len);
            total += len + wrap_len;
        }
        if total > i32::MAX as usize {
            return Err(QuiverError::new(
                1041,
                "HY000",
                "Out of memory: GROUP_CONCAT results over 2 GiB",
            ));
        }
        let mut out = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(groups + 1);
        offsets.push(0i32);
        for (g, &len) in lens.iter().enumerate() {
            let has_rows = starts[g + 1] > starts[g];
            if has_rows {
                out.extend_from_slice(before);
            }
            let mut left = len;
            for p in pieces(shown(g)) {
                if left == 0 {
                    break;
                }
                let n = p.len().min(left);
                out.extend_from_slice(&p[..n]);
                left -= n;
            }
            if has_rows {
                out.extend_from_slice(after);
            }
            offsets.push(out.len() as i32);
        }
        let nulls = NullBuffer::from(
            (0..groups)
                .map(|g| starts[g + 1] > starts[g])
                .collect::<Vec<_>>(),
        );
        let offsets = OffsetBuffer::new(offsets.into());
        let built: ArrayRef = match t {
            DataType::Binary => Arc::new(BinaryArray::try_new(offsets, out.into(), Some(nulls))?),
            _ => Arc::new(StringArray::try_new(offsets, out.into(), Some(nulls))?),
        };
        match built.data_type() == t {
            true => Ok(built),
            false => cast_array(&built, t),
        }
    }

    /// Puts one group's rows (in the order kept) in the order they show.
    fn sort_rows(&self, r: &mut [u32]) {
        if r.len() < 2 {
            return;
        }
        let input = |i: u32| (self.pos[i as usize], i);
        if !self.spec.order_by.is_empty() {
            let key = |i: u32| self.order_keys.get(i as usize);
            r.sort_unstable_by(|&a, &b| key(a).cmp(key(b)).then(input(b).cmp(&input(a))));
        } else if self.spec.distinct() {
            let key = |i: u32| self.distinct_keys.get(i as usize);
            r.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
        } else if !r.is_sorted_by_key(|&i| input(i)) {
            r.sort_unstable_by_key(|&i| input(i));
        }
    }
}

/// What a group of rows `r` shows, piece by piece: the values with the
/// separator between them.
fn pieces<'a>(values: &'a Arena, sep: &'a [u8], r: &'a [u32]) -> impl Iterator<Item = &'a [u8]> {
    r.iter().enumerate().flat_map(move |(n, &i)| {
        let s: &[u8] = if n == 0 { &[] } else { sep };
        [s, values.get(i as usize)]
    })
}

/// A text or binary array as bytes; anything else as its text.
fn bytes_of(a: &ArrayRef) -> Result<BinaryArray> {
    if let Some(b) = byte_view(a.as_ref()) {
        return Ok(b);
    }
    let text = cast_array(a, &DataType::Utf8)?;
    byte_view(text.as_ref()).ok_or_else(|| QuiverError::internal("GROUP_CONCAT argument"))
}

/// `keys` of `batch` in the row format, strings as their collation's
/// normalized keys; the converter is made by the first batch.
fn key_rows(
    keys: &[(&PhysicalExpr, SortOptions)],
    batch: &RecordBatch,
    converter: &mut Option<RowConverter>,
) -> Result<Rows> {
    let cols = keys
        .iter()
        .map(|(e, _)| {
            let a = positive_zero(nulls_as_zero(e.evaluate_array(batch)?)?);
            string_sort_column(a, e.collation(), StringKeyForm::Normalized)
        })
        .collect::<Result<Vec<_>>>()?;
    if converter.is_none() {
        let fields = keys
            .iter()
            .zip(&cols)
            .map(|((_, o), c)| SortField::new_with_options(c.data_type().clone(), *o))
            .collect();
        *converter = Some(RowConverter::new(fields)?);
    }
    let c = converter.as_ref().expect("made above");
    Ok(c.convert_columns(&cols)?)
}

/// `a` with its NULLs made its type's zero value (0, '', a date before
/// any): MariaDB's GROUP_CONCAT compares a NULL ORDER BY key so, as the
/// value its temporary field holds.
fn nulls_as_zero(a: ArrayRef) -> Result<ArrayRef> {
    let Some(nulls) = a.logical_nulls().filter(|n| n.null_count() > 0) else {
        return Ok(a);
    };
    let zero: ArrayRef = match a.data_type() {
        DataType::Null => return Ok(a),
        DataType::Utf8 => Arc::new(StringArray::from(vec![""])),
        DataType::Binary => Arc::new(BinaryArray::from(vec![&b""[..]])),
        DataType::Date32 => Arc::new(Date32Array::from(vec![i32::MIN])),
        t @ DataType::Decimal64(..) => {
            Arc::new(arrow_array::Decimal64Array::from(vec![0]).with_data_type(t.clone()))
        }
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            Arc::new(TimestampMicrosecondArray::from(vec![i64::MIN]).with_timezone_opt(tz.clone()))
        }
        t => cast_array(&(Arc::new(Int64Array::from(vec![0])) as ArrayRef), t)?,
    };
    let valid = BooleanArray::new(nulls.into_inner(), None);
    Ok(arrow_select::zip::zip(&valid, &a, &Scalar::new(zero))?)
}

fn key_hash(g: u32, key: &[u8]) -> u64 {
    mix(hash_bytes(key) ^ (g as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// What `group_concat_max_len` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// Bytes (binary strings).
    Bytes,
    /// Bytes of UTF-8 text, cut at a character's end.
    Utf8,
    /// Characters of a one-byte charset (latin1, ascii) held as UTF-8.
    Chars,
}

impl Unit {
    fn of(c: Collation) -> Unit {
        match c.charset() {
            Charset::Binary => Unit::Bytes,
            cs if cs.max_char_len() == 1 => Unit::Chars,
            _ => Unit::Utf8,
        }
    }
}

/// The bytes of `pieces` (written one after the other) that fit in `max`
/// units, as MariaDB cuts a GROUP_CONCAT result: whole characters only.
fn cut_len<'a>(pieces: impl Iterator<Item = &'a [u8]>, max: usize, unit: Unit) -> usize {
    let mut len = 0;
    let mut used = 0;
    for p in pieces {
        let units = match unit {
            Unit::Chars => char_starts(p).count(),
            _ => p.len(),
        };
        if used + units <= max {
            used += units;
            len += p.len();
            continue;
        }
        let room = max - used;
        let cut = match unit {
            Unit::Bytes => room,
            Unit::Utf8 => {
                let mut c = room;
                while c > 0 && is_continuation(p[c]) {
                    c -= 1;
                }
                c
            }
            Unit::Chars => char_starts(p).nth(room).unwrap_or(p.len()),
        };
        return len + cut;
    }
    len
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Byte offsets where the characters of UTF-8 text `p` start.
fn char_starts(p: &[u8]) -> impl Iterator<Item = usize> + '_ {
    p.iter()
        .enumerate()
        .filter(|(_, b)| !is_continuation(**b))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int32Array;
    use arrow_schema::{Field, Schema};

    /// Rows (key, text): one batch.
    fn batch(rows: &[(Option<i32>, Option<&str>)]) -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("k", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ]);
        let k: Int32Array = rows.iter().map(|r| r.0).collect();
        let s: StringArray = rows.iter().map(|r| r.1).collect();
        RecordBatch::try_new(Arc::new(schema), vec![Arc::new(k), Arc::new(s)]).unwrap()
    }

    fn spec(distinct: bool, order: Option<bool>, collation: Collation) -> Arc<GroupConcatSpec> {
        let s = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), collation);
        Arc::new(GroupConcatSpec {
            args: vec![PhysicalExpr::Column(1)],
            distinct_keys: if distinct { vec![s] } else { vec![] },
            order_by: order
                .map(|asc| SortKey {
                    expr: PhysicalExpr::Column(0),
                    asc,
                    nulls_first: asc,
                })
                .into_iter()
                .collect(),
            separator: b",".to_vec(),
            max_len: 1 << 20,
            collation,
            limit: None,
            wrap: None,
        })
    }

    /// The result of one group fed morsels `m` (position, batch) into the
    /// states `parts` say (per morsel: which state), merged in `merge`
    /// order; all positions in one scan's class.
    fn run(
        spec: &Arc<GroupConcatSpec>,
        morsels: &[RecordBatch],
        parts: &[usize],
        merge: &[usize],
    ) -> Option<String> {
        let n = parts.iter().max().unwrap() + 1;
        let mut states: Vec<Option<GroupConcatAcc>> = (0..n)
            .map(|_| {
                let mut a = GroupConcatAcc::new(spec.clone());
                a.resize(1);
                Some(a)
            })
            .collect();
        for (m, (b, &p)) in morsels.iter().zip(parts).enumerate() {
            let ids = vec![0u32; b.num_rows()];
            states[p]
                .as_mut()
                .unwrap()
                .update(b, &ids, m as u32)
                .unwrap();
        }
        let mut total = states[merge[0]].take().unwrap();
        total.set_class(0);
        for &p in &merge[1..] {
            total.merge(states[p].take().unwrap(), &[0], 0).unwrap();
        }
        let out = total.finish(&DataType::Utf8, 1).unwrap();
        let s = out.as_any().downcast_ref::<StringArray>().unwrap();
        s.is_valid(0).then(|| s.value(0).to_string())
    }

    #[test]
    fn partial_states_merged_in_any_order_give_one_scans_result() {
        let morsels = vec![
            batch(&[
                (Some(1), Some("b")),
                (Some(2), Some("A")),
                (None, Some("x")),
            ]),
            batch(&[(Some(1), Some("a")), (Some(1), None), (Some(0), Some("B "))]),
            batch(&[(Some(2), Some("c")), (Some(1), Some("b"))]),
            batch(&[(Some(0), Some("a")), (None, Some("C"))]),
            batch(&[(Some(2), Some("A")), (Some(1), Some("d"))]),
        ];
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let bin = Collation::utf8mb4_bin();
        let limited = |distinct, order, offset, count| {
            let mut s = (*spec(distinct, order, if distinct { ci } else { bin })).clone();
            s.limit = Some((offset, count));
            Arc::new(s)
        };
        let specs = [
            limited(false, None, 2, 3),
            limited(false, Some(false), 1, 4),
            limited(true, None, 1, 2),
            limited(false, None, 0, 0),
            spec(false, None, bin),
            spec(false, Some(true), bin),
            spec(false, Some(false), bin),
            spec(true, None, ci),
            spec(true, Some(true), ci),
            spec(true, Some(false), ci),
            spec(true, None, bin),
        ];
        let splits: [(&[usize], &[usize]); 4] = [
            (&[0, 1, 0, 1, 0], &[0, 1]),
            (&[0, 1, 0, 1, 0], &[1, 0]),
            (&[2, 0, 1, 1, 2], &[0, 1, 2]),
            (&[2, 0, 1, 1, 2], &[2, 1, 0]),
        ];
        let mut one = vec![];
        for s in &specs {
            let whole = run(s, &morsels, &[0; 5], &[0]);
            for (parts, merge) in splits {
                assert_eq!(run(s, &morsels, parts, merge), whole, "{parts:?} {merge:?}");
            }
            one.push(whole.unwrap());
        }
        assert_eq!(
            one,
            [
                // LIMIT 2, 3 of input order, of ORDER BY k DESC, of DISTINCT.
                "x,a,B ",
                "c,A,d,b",
                "b,c",
                // LIMIT 0: no row shows, yet there are rows.
                "",
                // Input order, the NULL value skipped.
                "b,A,x,a,B ,c,b,a,C,A,d",
                // ORDER BY k (a NULL key as 0): ties in reverse input order.
                "C,a,B ,x,d,b,a,b,A,c,A",
                "A,c,A,d,b,a,b,C,a,B ,x",
                // DISTINCT under general_ci ('B ' is 'b'): the first of equal
                // values, in value order ...
                "A,b,c,d,x",
                // ... or placed by the ORDER BY key of that first row.
                "x,d,b,c,A",
                "c,A,d,b,x",
                "A,B ,C,a,b,c,d,x",
            ]
        );
    }

    #[test]
    fn results_are_cut_at_max_len_on_character_ends() {
        let pieces: [&[u8]; 3] = ["aé".as_bytes(), b",", "€b".as_bytes()];
        let utf8: Vec<usize> = (0..=9)
            .map(|m| cut_len(pieces.iter().copied(), m, Unit::Utf8))
            .collect();
        assert_eq!(utf8, [0, 1, 1, 3, 4, 4, 4, 7, 8, 8]);
        let chars: Vec<usize> = (0..=6)
            .map(|m| cut_len(pieces.iter().copied(), m, Unit::Chars))
            .collect();
        assert_eq!(chars, [0, 1, 3, 4, 7, 8, 8]);
        assert_eq!(cut_len(pieces.iter().copied(), 2, Unit::Bytes), 2);
    }

    #[test]
    fn rows_past_the_limit_are_not_kept() {
        let mut s = (*spec(false, None, Collation::utf8mb4_bin())).clone();
        s.max_len = 4;
        let mut a = GroupConcatAcc::new(Arc::new(s));
        a.resize(1);
        let rows: Vec<(Option<i32>, Option<&str>)> =
            (0..100).map(|_| (Some(1), Some("abc"))).collect();
        a.update(&batch(&rows), &[0; 100], 0).unwrap();
        assert!(a.group.len() < 10, "{}", a.group.len());
        let out = a.finish(&DataType::Utf8, 1).unwrap();
        let out = out.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(out.value(0), "abc,");
    }
}
