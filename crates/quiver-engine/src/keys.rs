//! PRIMARY KEY and UNIQUE: the check that a write leaves no two rows with
//! equal keys (MariaDB's 1062 "Duplicate entry '...' for key '...'").
//!
//! A table's keys are kept in its schema metadata (`TableKey`, written to
//! the manifest with the rows). Quiver has no index structure on disk: every
//! write already rewrites the table as a new generation, so the check reads
//! the key columns of the rows the table holds, turns each row's key into
//! bytes (a string column's part is its collation's normalized key, so
//! `'a'` and `'A '` are one key under utf8mb4_general_ci's PAD SPACE; other
//! types are Arrow's order-preserving row format), puts them in a hash set
//! (hashbrown, the bytes borrowed from one buffer per key: no allocation per
//! row) and then probes it with the new rows in statement order. That is
//! O(rows of the table + rows written) time and about (key bytes + 16) per
//! row of memory for the statement, never quadratic: an INSERT of 1M rows
//! into an empty table builds one set of 1M keys, and a one-row INSERT into
//! a 1M-row table costs one pass over the key columns, the same order as the
//! rewrite of the table the INSERT does anyway. The set is built per
//! statement and dropped after it (keeping it between statements would pay
//! only once writes stop rewriting whole tables).
//!
//! A key with a NULL part is never a duplicate (UNIQUE allows any number of
//! NULLs; PRIMARY KEY columns are NOT NULL). Rows are checked one at a time,
//! every key of a row before the next row, as InnoDB does: the error names
//! the first row, and of its keys the first in the table's key order
//! (PRIMARY, then UNIQUE keys), that clashes. An UPDATE is checked the same
//! way row by row (a row's old key leaves the set as its new key enters), in
//! primary key order when there is one (InnoDB's clustered order) and in
//! stored order otherwise, so `UPDATE t SET id = id + 1` fails on the
//! second row as in MariaDB.

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use hashbrown::HashSet;
use quiver_collation::Collation;
use quiver_common::types::{TableKey, COLUMN_COLLATION_KEY, TABLE_KEYS_KEY};
use quiver_common::{QuiverError, Result};

/// One key's bytes for a run of rows: row r's key is
/// `bytes[ends[r-1]..ends[r]]`, or None when a part of it is NULL.
pub(crate) struct KeyBytes {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    null: Vec<bool>,
}

impl KeyBytes {
    pub(crate) fn get(&self, r: usize) -> Option<&[u8]> {
        if self.null[r] {
            return None;
        }
        let start = if r == 0 { 0 } else { self.ends[r - 1] };
        Some(&self.bytes[start..self.ends[r]])
    }

    fn len(&self) -> usize {
        self.ends.len()
    }
}

/// The bytes of `key` for the rows of `columns` (one array per table column).
pub(crate) fn key_bytes(schema: &Schema, key: &TableKey, columns: &[ArrayRef]) -> Result<KeyBytes> {
    let rows = columns.first().map_or(0, |c| c.len());
    enum Part {
        Text(StringArray, Collation),
        Rows(arrow_row::Rows, ArrayRef),
    }
    let mut parts = Vec::with_capacity(key.columns.len());
    for &c in &key.columns {
        let f = schema.field(c);
        let a = &columns[c];
        match (f.data_type(), collation_of(f)) {
            (DataType::Utf8, Some(coll)) => {
                let s = a
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .ok_or_else(|| QuiverError::internal("key column is not text"))?;
                parts.push(Part::Text(s.clone(), coll));
            }
            _ => {
                let conv = RowConverter::new(vec![SortField::new(a.data_type().clone())])?;
                let r = conv.convert_columns(std::slice::from_ref(a))?;
                parts.push(Part::Rows(r, a.clone()));
            }
        }
    }
    let mut out = KeyBytes {
        bytes: Vec::with_capacity(rows * 8 * key.columns.len()),
        ends: Vec::with_capacity(rows),
        null: Vec::with_capacity(rows),
    };
    for r in 0..rows {
        let mut null = false;
        for p in &parts {
            match p {
                Part::Text(s, coll) => {
                    if s.is_null(r) {
                        null = true;
                        continue;
                    }
                    // The normalized key of a PAD SPACE collation is never
                    // a prefix of another; a NO PAD one's gets its length.
                    let at = out.bytes.len();
                    coll.normalized_key(s.value(r).as_bytes(), &mut out.bytes);
                    if coll.pad() != quiver_collation::Pad::Space {
                        let n = (out.bytes.len() - at) as u32;
                        out.bytes.extend_from_slice(&n.to_be_bytes());
                    }
                }
                Part::Rows(rows, a) => {
                    if a.is_null(r) {
                        null = true;
                        continue;
                    }
                    out.bytes.extend_from_slice(rows.row(r).as_ref());
                }
            }
        }
        out.ends.push(out.bytes.len());
        out.null.push(null);
    }
    Ok(out)
}

fn collation_of(f: &Field) -> Option<Collation> {
    f.metadata()
        .get(COLUMN_COLLATION_KEY)
        .and_then(|n| Collation::from_name(n))
        .or(Some(quiver_plan::default_collation()))
}

/// MariaDB's 1062 for row `r` of `columns` clashing on `key`: the row's
/// key values as text joined by `-`.
pub(crate) fn duplicate(
    schema: &SchemaRef,
    key: &TableKey,
    columns: &[ArrayRef],
    r: usize,
) -> QuiverError {
    let fields: Vec<Field> = key
        .columns
        .iter()
        .map(|&c| schema.field(c).clone().with_nullable(true))
        .collect();
    let arrays: Vec<ArrayRef> = key
        .columns
        .iter()
        .map(|&c| columns[c].slice(r, 1))
        .collect();
    let text = RecordBatch::try_new(std::sync::Arc::new(Schema::new(fields)), arrays)
        .ok()
        .and_then(|b| crate::format::rows_as_text(&[b]).ok())
        .and_then(|rows| rows.into_iter().next())
        .map(|row| {
            row.into_iter()
                .map(|v| v.unwrap_or_else(|| "NULL".into()))
                .collect::<Vec<_>>()
                .join("-")
        })
        .unwrap_or_default();
    QuiverError::new(
        1062,
        "23000",
        format!("Duplicate entry '{text}' for key '{}'", key.name),
    )
}

/// The columns of a table's batches, one array per column.
fn table_columns(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<Vec<ArrayRef>> {
    let all = arrow_select::concat::concat_batches(schema, batches)?;
    Ok(all.columns().to_vec())
}

/// INSERT: the first row of `new` (one array per table column) whose key
/// the table's rows (`old`) or an earlier new row hold, with its 1062.
pub(crate) fn first_duplicate(
    schema: &SchemaRef,
    old: &[RecordBatch],
    new: &[ArrayRef],
) -> Result<Option<(usize, QuiverError)>> {
    let keys = TableKey::of_schema(schema.metadata().get(TABLE_KEYS_KEY));
    if keys.is_empty() {
        return Ok(None);
    }
    let old = table_columns(schema, old)?;
    let old_bytes: Vec<KeyBytes> = keys
        .iter()
        .map(|k| key_bytes(schema, k, &old))
        .collect::<Result<_>>()?;
    let new_bytes: Vec<KeyBytes> = keys
        .iter()
        .map(|k| key_bytes(schema, k, new))
        .collect::<Result<_>>()?;
    let mut sets: Vec<HashSet<&[u8]>> = old_bytes
        .iter()
        .zip(&new_bytes)
        .map(|(o, n)| {
            let mut s = HashSet::with_capacity(o.len() + n.len());
            s.extend((0..o.len()).filter_map(|r| o.get(r)));
            s
        })
        .collect();
    let rows = new.first().map_or(0, |c| c.len());
    for r in 0..rows {
        for (k, (set, b)) in sets.iter_mut().zip(&new_bytes).enumerate() {
            if let Some(v) = b.get(r) {
                if !set.insert(v) {
                    return Ok(Some((r, duplicate(schema, &keys[k], new, r))));
                }
            }
        }
    }
    Ok(None)
}

/// UPDATE: the table's columns before (`old`) and after (`new`), and which
/// rows it changed; checked row by row (module comment).
pub(crate) fn check_update(
    schema: &SchemaRef,
    old: &[ArrayRef],
    new: &[ArrayRef],
    changed: &[bool],
) -> Result<()> {
    let keys = TableKey::of_schema(schema.metadata().get(TABLE_KEYS_KEY));
    if keys.is_empty() || !changed.iter().any(|c| *c) {
        return Ok(());
    }
    let old_bytes: Vec<KeyBytes> = keys
        .iter()
        .map(|k| key_bytes(schema, k, old))
        .collect::<Result<_>>()?;
    let new_bytes: Vec<KeyBytes> = keys
        .iter()
        .map(|k| key_bytes(schema, k, new))
        .collect::<Result<_>>()?;
    let mut order: Vec<usize> = (0..changed.len()).filter(|&r| changed[r]).collect();
    if let Some(p) = keys.iter().position(|k| k.primary) {
        order.sort_by(|&a, &b| old_bytes[p].get(a).cmp(&old_bytes[p].get(b)));
    }
    let mut sets: Vec<HashSet<&[u8]>> = old_bytes
        .iter()
        .map(|o| (0..o.len()).filter_map(|r| o.get(r)).collect())
        .collect();
    for r in order {
        for (k, set) in sets.iter_mut().enumerate() {
            let (before, after) = (old_bytes[k].get(r), new_bytes[k].get(r));
            if before == after {
                continue;
            }
            if let Some(b) = before {
                set.remove(b);
            }
            if let Some(a) = after {
                if !set.insert(a) {
                    return Err(duplicate(schema, &keys[k], new, r));
                }
            }
        }
    }
    Ok(())
}

/// What SHOW COLUMNS / DESCRIBE and information_schema.COLUMNS say of each
/// column of a table: `Key` (PRI for the primary key's columns — without
/// one, the first UNIQUE key of NOT NULL columns, as MariaDB promotes it —,
/// UNI for the column of a one-column UNIQUE key, MUL for the first column
/// of a longer one) and `Extra` (auto_increment).
pub(crate) fn column_key_texts(schema: &Schema) -> Vec<(&'static str, &'static str)> {
    let n = schema.fields().len();
    let keys = TableKey::of_schema(schema.metadata().get(TABLE_KEYS_KEY));
    let primary = keys.iter().position(|k| k.primary).or_else(|| {
        keys.iter()
            .position(|k| k.columns.iter().all(|&c| !schema.field(c).is_nullable()))
    });
    let (mut pri, mut uni, mut mul) = (vec![false; n], vec![false; n], vec![false; n]);
    for (i, k) in keys.iter().enumerate() {
        if Some(i) == primary {
            k.columns.iter().for_each(|&c| pri[c] = true);
        } else if k.columns.len() == 1 {
            uni[k.columns[0]] = true;
        } else {
            mul[k.columns[0]] = true;
        }
    }
    let auto = quiver_common::types::auto_increment_column(
        schema
            .metadata()
            .get(quiver_common::types::TABLE_AUTO_INCREMENT_KEY),
    );
    (0..n)
        .map(|c| {
            let key = match (pri[c], uni[c], mul[c]) {
                (true, _, _) => "PRI",
                (_, true, _) => "UNI",
                (_, _, true) => "MUL",
                _ => "",
            };
            (
                key,
                if auto == Some(c) {
                    "auto_increment"
                } else {
                    ""
                },
            )
        })
        .collect()
}
