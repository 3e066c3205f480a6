//! INSERT's answers to a new row whose PRIMARY KEY or UNIQUE key the table
//! already holds, or an earlier row of the statement does: INSERT IGNORE
//! skips the row with warning 1062, REPLACE deletes every row it clashes
//! with and stores it, and ON DUPLICATE KEY UPDATE updates the row it
//! clashes with (on the first key that clashes, PRIMARY first, as InnoDB
//! finds it) instead of storing it.
//!
//! Rows are decided one at a time in statement order, as MariaDB does, so
//! that a row sees what the rows before it did. The keys live in one hash
//! table per key, of *slots*: a slot is a row of the table being written
//! (an old row, a stored new row, or an updated row's new values), found
//! by its key bytes (`keys::KeyBytes`, the collation's normalized key) in
//! the buffer of the source that holds it. Deciding a row is a few hash
//! probes; nothing is copied per row.
//!
//! ON DUPLICATE KEY UPDATE evaluates its assignments as one query over the
//! rows it updates (`SELECT e1, e2, ... FROM t`, where `t` is a batch of
//! those rows' current values plus, as hidden columns, the new rows' values
//! that `VALUES(c)` reads). When the assignments set no key column, an
//! update cannot change which row a later row clashes with, so all updates
//! run after the decisions, in rounds: round j evaluates the j-th update of
//! each row at once (one query for the common case of one update per row).
//! When they set a key column, each update runs when its row is decided,
//! and its new key is checked at once (1062, the statement changes nothing).
//!
//! Affected rows are counted as MySQL does: 1 per stored row, 1 more per
//! row REPLACE deleted, 2 per row ON DUPLICATE KEY UPDATE changed and 0 per
//! row it left as it was.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{Field, Schema, SchemaRef};
use hashbrown::HashTable;
use quiver_common::types::{TableKey, TABLE_KEYS_KEY};
use quiver_common::{QuiverError, Result};
use quiver_exec::warnings::{Condition, Level};
use quiver_sql::sqlparser::ast::{Assignment, SetExpr, Statement};
use quiver_sql::sqlparser::dialect::MySqlDialect;
use quiver_sql::sqlparser::keywords::Keyword;
use quiver_sql::sqlparser::tokenizer::{Token, Tokenizer};

use crate::auto_increment::{values as int_values, Numberer};
use crate::catalog::Table;
use crate::information_schema::MemTable;
use crate::keys::{duplicate, key_bytes, KeyBytes};
use crate::query::Purpose;
use crate::store::{store_cast, Misfits};
use crate::Session;

/// What an INSERT does with a new row whose key is taken.
pub(crate) enum OnDuplicate<'a> {
    /// INSERT IGNORE: the row is not stored (warning 1062).
    Ignore,
    /// REPLACE: the rows it clashes with are deleted first.
    Replace,
    /// ON DUPLICATE KEY UPDATE: the row it clashes with is updated.
    Update(&'a [Assignment]),
}

/// An INSERT's rows, before they are decided.
pub(crate) struct NewRows<'a> {
    pub table: &'a Table,
    /// The table's name, as the statement gives it.
    pub name: &'a str,
    pub schema: &'a SchemaRef,
    pub old: &'a [RecordBatch],
    /// One array per table column; the AUTO_INCREMENT column as given.
    pub columns: Vec<ArrayRef>,
    /// The AUTO_INCREMENT column and its numbering.
    pub auto: Option<(usize, Numberer)>,
    /// The source of the rows is a query (INSERT ... SELECT).
    pub from_query: Option<&'a quiver_sql::sqlparser::ast::Query>,
    /// How error 1366 names the table.
    pub table_prefix: &'a str,
}

/// What the INSERT stores and reports.
pub(crate) struct Written {
    /// The table's batches after the statement, if it changed the table.
    pub batches: Option<Vec<RecordBatch>>,
    pub affected: u64,
    /// The first AUTO_INCREMENT value stored (LAST_INSERT_ID()).
    pub first_id: Option<u64>,
}

const OLD: u32 = 0;
const NEW: u32 = 1;

/// The rows of the table being written and the hash tables of their keys.
struct Rows<'a> {
    schema: &'a SchemaRef,
    keys: Vec<TableKey>,
    /// Per source (old rows, new rows, then one per round of updates): one
    /// array per table column.
    sources: Vec<Vec<ArrayRef>>,
    slots: Slots,
    /// Per key: its slots, found by their key bytes.
    maps: Vec<HashTable<u32>>,
    hasher: hashbrown::DefaultHashBuilder,
}

/// Where each slot's row is and its key bytes; apart from the hash tables
/// so that they can read keys while one of them changes.
struct Slots {
    /// Where each slot's row is: (source, row); None once deleted.
    at: Vec<Option<(u32, u32)>>,
    /// Per key, per source: the key bytes of its rows.
    bytes: Vec<Vec<KeyBytes>>,
    /// Per key: the bytes of new rows whose AUTO_INCREMENT value differs
    /// from the one their `bytes` were made with.
    renumbered: Vec<HashMap<u32, Vec<u8>>>,
}

impl Slots {
    fn key_of(&self, k: usize, slot: u32) -> Option<&[u8]> {
        let (src, row) = self.at[slot as usize]?;
        if src == NEW {
            if let Some(b) = self.renumbered[k].get(&row) {
                return Some(b);
            }
        }
        self.bytes[k][src as usize].get(row as usize)
    }
}

impl Rows<'_> {
    fn key_of(&self, k: usize, slot: u32) -> Option<&[u8]> {
        self.slots.key_of(k, slot)
    }

    /// The slot whose key `k` is `b`.
    fn find(&self, k: usize, b: &[u8]) -> Option<u32> {
        let h = self.hasher.hash_one(b);
        self.maps[k]
            .find(h, |&s| self.key_of(k, s) == Some(b))
            .copied()
    }

    /// Enters `slot`'s key `k` (its key must be free).
    fn enter(&mut self, k: usize, slot: u32) {
        let Some(b) = self.key_of(k, slot) else {
            return;
        };
        let h = self.hasher.hash_one(b);
        let (slots, hasher) = (&self.slots, &self.hasher);
        self.maps[k].insert_unique(h, slot, |&s| {
            hasher.hash_one(slots.key_of(k, s).unwrap_or(&[]))
        });
    }

    /// Takes `slot`'s key `k` out (before its row goes or changes).
    fn leave(&mut self, k: usize, slot: u32) {
        let Some(b) = self.key_of(k, slot) else {
            return;
        };
        let h = self.hasher.hash_one(b);
        if let Ok(e) = self.maps[k].find_entry(h, |&s| s == slot) {
            e.remove();
        }
    }

    /// A new slot for `row` of `source`, its keys entered.
    fn store(&mut self, source: u32, row: u32) -> u32 {
        let slot = self.slots.at.len() as u32;
        self.slots.at.push(Some((source, row)));
        for k in 0..self.keys.len() {
            self.enter(k, slot);
        }
        slot
    }

    /// Deletes `slot`'s row.
    fn delete(&mut self, slot: u32) {
        for k in 0..self.keys.len() {
            self.leave(k, slot);
        }
        self.slots.at[slot as usize] = None;
    }

    /// The current values of `slots`' rows, one array per table column.
    fn values_of(&self, slots: &[u32]) -> Result<Vec<ArrayRef>> {
        let at: Vec<(usize, usize)> = slots
            .iter()
            .map(|&s| {
                let (src, row) = self.slots.at[s as usize].expect("a live slot");
                (src as usize, row as usize)
            })
            .collect();
        (0..self.schema.fields().len())
            .map(|c| {
                let arrays: Vec<&dyn Array> = self.sources.iter().map(|s| s[c].as_ref()).collect();
                Ok(arrow_select::interleave::interleave(&arrays, &at)?)
            })
            .collect()
    }

    /// Adds a source of rows (an update's new values) and its key bytes.
    fn add_source(&mut self, columns: Vec<ArrayRef>) -> Result<u32> {
        for (k, key) in self.keys.iter().enumerate() {
            let b = key_bytes(self.schema, key, &columns)?;
            self.slots.bytes[k].push(b);
        }
        self.sources.push(columns);
        Ok(self.sources.len() as u32 - 1)
    }
}

impl Session {
    /// Stores `new` rows into their table, deciding each row whose key is
    /// taken by `on` (module comment).
    pub(crate) fn insert_deciding(
        &self,
        new: NewRows<'_>,
        on: OnDuplicate<'_>,
        misfits: &mut Misfits,
    ) -> Result<Written> {
        let NewRows {
            table,
            name,
            schema,
            old,
            columns,
            auto,
            from_query,
            table_prefix,
        } = new;
        let keys = TableKey::of_schema(schema.metadata().get(TABLE_KEYS_KEY));
        let update = match &on {
            OnDuplicate::Update(a) => Some(Assignments::read(self, name, schema, a, from_query)?),
            _ => None,
        };
        let rows = columns.first().map_or(0, |c| c.len());
        let old_columns = arrow_select::concat::concat_batches(schema, old)?
            .columns()
            .to_vec();
        // The AUTO_INCREMENT values as they would be were every row stored:
        // the key bytes of new rows are made with them, and a row whose
        // value ends up otherwise gets its own.
        let (auto_column, mut numberer) = match auto {
            Some((c, n)) => (Some(c), Some(n)),
            None => (None, None),
        };
        let given = match auto_column {
            Some(c) => int_values(&columns[c])?,
            None => vec![],
        };
        let mut new_columns = columns;
        let tentative: Vec<Option<i128>> = match (auto_column, &numberer) {
            (Some(c), Some(_)) => {
                let mut trial = Numberer::new(
                    table,
                    old,
                    c,
                    schema.field(c),
                    self.sql_mode_has("NO_AUTO_VALUE_ON_ZERO"),
                    from_query.is_none().then_some(rows),
                )?;
                let mut out = Vec::with_capacity(rows);
                let mut all = true;
                for (r, v) in given.iter().enumerate() {
                    match trial.row(r, *v) {
                        Ok(v) => out.push(Some(v)),
                        Err(_) => {
                            all = false;
                            break;
                        }
                    }
                }
                if all {
                    new_columns[c] = int_column(&out, schema.field(c))?;
                    out
                } else {
                    given.clone()
                }
            }
            _ => vec![],
        };
        let old_rows = old_columns.first().map_or(0, |c| c.len());
        let mut state = Rows {
            schema,
            slots: Slots {
                at: Vec::with_capacity(old_rows + rows),
                bytes: keys
                    .iter()
                    .map(|k| {
                        Ok(vec![
                            key_bytes(schema, k, &old_columns)?,
                            key_bytes(schema, k, &new_columns)?,
                        ])
                    })
                    .collect::<Result<_>>()?,
                renumbered: vec![HashMap::new(); keys.len()],
            },
            maps: (0..keys.len())
                .map(|_| HashTable::with_capacity(old_rows + rows))
                .collect(),
            keys,
            sources: vec![old_columns, new_columns],
            hasher: Default::default(),
        };
        for r in 0..old_rows {
            state.store(OLD, r as u32);
        }
        let auto_keys: Vec<bool> = state
            .keys
            .iter()
            .map(|k| auto_column.is_some_and(|c| k.columns.contains(&c)))
            .collect();
        // The numbered value of each new row (stored or not: VALUES(id) reads it).
        let mut numbered: Vec<Option<i128>> = given.clone();
        let mut affected = 0u64;
        let mut stored_new = Vec::with_capacity(rows);
        // Updates waiting for their round: (slot, new row).
        let mut hits: Vec<(u32, u32)> = Vec::new();
        for r in 0..rows {
            if let (Some(n), Some(c)) = (numberer.as_mut(), auto_column) {
                let v = n.row(r, given[r]).inspect_err(|_| n.settle(table))?;
                numbered[r] = Some(v);
                if tentative.get(r).copied().flatten() != Some(v) {
                    let one = row_with_auto(&state.sources[NEW as usize], r, c, v, schema)?;
                    for (k, key) in state.keys.iter().enumerate() {
                        if auto_keys[k] {
                            let b = key_bytes(schema, key, &one)?;
                            if let Some(b) = b.get(0) {
                                state.slots.renumbered[k].insert(r as u32, b.to_vec());
                            }
                        }
                    }
                }
            }
            let probe = |k: usize| -> Option<&[u8]> {
                match state.slots.renumbered[k].get(&(r as u32)) {
                    Some(b) => Some(b),
                    None => state.slots.bytes[k][NEW as usize].get(r),
                }
            };
            let clashes: Vec<(usize, u32)> = (0..state.keys.len())
                .filter_map(|k| Some((k, state.find(k, probe(k)?)?)))
                .collect();
            if let Some(&(k, slot)) = clashes.first() {
                match &on {
                    OnDuplicate::Ignore => {
                        let one = self_row(&state, auto_column, &numbered, r, schema)?;
                        let e = duplicate(schema, &state.keys[k], &one, 0);
                        misfits.warn(r, Condition::new(Level::Warning, e.code, e.message));
                        if let Some(n) = numberer.as_mut() {
                            n.unstored();
                        }
                        continue;
                    }
                    OnDuplicate::Replace => {
                        let mut gone: Vec<u32> = clashes.iter().map(|c| c.1).collect();
                        gone.sort_unstable();
                        gone.dedup();
                        for s in gone {
                            state.delete(s);
                            affected += 1;
                        }
                    }
                    OnDuplicate::Update(_) => {
                        if let Some(n) = numberer.as_mut() {
                            n.unstored();
                        }
                        let u = update.as_ref().expect("read above");
                        if u.sets_key {
                            self.fix_auto(&mut state, auto_column, &numbered)?;
                            affected += u.run_round(
                                self,
                                &mut state,
                                &[(slot, r as u32)],
                                misfits,
                                table_prefix,
                            )?;
                        } else {
                            hits.push((slot, r as u32));
                        }
                        continue;
                    }
                }
            }
            state.store(NEW, r as u32);
            stored_new.push(r);
            affected += 1;
        }
        if let Some(u) = &update {
            self.fix_auto(&mut state, auto_column, &numbered)?;
            // Round j: the j-th update of each row.
            let mut seen: HashMap<u32, usize> = HashMap::new();
            let mut rounds: Vec<Vec<(u32, u32)>> = Vec::new();
            for &(slot, r) in &hits {
                let j = seen.entry(slot).or_insert(0);
                if rounds.len() <= *j {
                    rounds.push(Vec::new());
                }
                rounds[*j].push((slot, r));
                *j += 1;
            }
            for round in rounds {
                affected += u.run_round(self, &mut state, &round, misfits, table_prefix)?;
            }
        }
        let first_id = match numberer {
            Some(n) => {
                let out: Vec<i128> = numbered.iter().map(|v| v.unwrap_or(0)).collect();
                let done = n.finish(&out)?;
                done.keep(table, None);
                done.first
            }
            None => None,
        };
        self.fix_auto(&mut state, auto_column, &numbered)?;
        // The table as it is now: its old batches and the stored rows when
        // no old row changed (the common case of a load that skips
        // duplicates), else every live row in slot order.
        let untouched = state
            .slots
            .at
            .iter()
            .all(|at| matches!(at, Some((OLD | NEW, _))));
        let changed = !stored_new.is_empty() || !untouched;
        let batches = match (changed, untouched) {
            (false, _) => None,
            (true, true) => {
                let picks = arrow_array::UInt32Array::from(
                    stored_new.iter().map(|&r| r as u32).collect::<Vec<_>>(),
                );
                let columns = state.sources[NEW as usize]
                    .iter()
                    .map(|c| Ok(arrow_select::take::take(c.as_ref(), &picks, None)?))
                    .collect::<Result<Vec<_>>>()?;
                let mut all = old.to_vec();
                all.push(batch(schema, columns, stored_new.len())?);
                Some(all)
            }
            (true, false) => {
                let live: Vec<u32> = (0..state.slots.at.len() as u32)
                    .filter(|&s| state.slots.at[s as usize].is_some())
                    .collect();
                let columns = state.values_of(&live)?;
                Some(vec![batch(schema, columns, live.len())?])
            }
        };
        Ok(Written {
            batches,
            affected,
            first_id,
        })
    }

    /// Puts the numbered AUTO_INCREMENT values into the new rows' source.
    fn fix_auto(
        &self,
        state: &mut Rows<'_>,
        auto_column: Option<usize>,
        numbered: &[Option<i128>],
    ) -> Result<()> {
        if let Some(c) = auto_column {
            let f = state.schema.field(c);
            state.sources[NEW as usize][c] = int_column(numbered, f)?;
        }
        Ok(())
    }
}

fn batch(schema: &SchemaRef, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?)
}

/// An integer column of `f`'s type from numbered values.
fn int_column(values: &[Option<i128>], f: &Field) -> Result<ArrayRef> {
    let a: ArrayRef = Arc::new(
        arrow_array::Decimal128Array::from(values.to_vec()).with_precision_and_scale(38, 0)?,
    );
    quiver_exec::expr::cast_array(&a, f.data_type())
}

/// Row `r` of `columns` (one array per column) with `v` in column `c`.
fn row_with_auto(
    columns: &[ArrayRef],
    r: usize,
    c: usize,
    v: i128,
    schema: &SchemaRef,
) -> Result<Vec<ArrayRef>> {
    columns
        .iter()
        .enumerate()
        .map(|(i, a)| match i == c {
            true => int_column(&[Some(v)], schema.field(c)),
            false => Ok(a.slice(r, 1)),
        })
        .collect()
}

/// New row `r` as it was numbered, one 1-row array per column.
fn self_row(
    state: &Rows<'_>,
    auto_column: Option<usize>,
    numbered: &[Option<i128>],
    r: usize,
    schema: &SchemaRef,
) -> Result<Vec<ArrayRef>> {
    let new = &state.sources[NEW as usize];
    match (auto_column, numbered.get(r).copied().flatten()) {
        (Some(c), Some(v)) => row_with_auto(new, r, c, v, schema),
        _ => Ok(new.iter().map(|a| a.slice(r, 1)).collect()),
    }
}

/// ON DUPLICATE KEY UPDATE's assignments, ready to run.
struct Assignments {
    /// The column each sets, in order.
    targets: Vec<usize>,
    /// `SELECT e1, e2, ... FROM t`, `VALUES(c)` read from hidden columns.
    query: quiver_sql::sqlparser::ast::Query,
    /// Whether a target is a column of some key.
    sets_key: bool,
    /// The table's name, which the query reads the rows as.
    table_name: String,
}

/// The hidden column `VALUES(c)` reads: a name no column of a table has
/// (a backquoted name may not end in a space).
fn values_column(name: &str) -> String {
    format!("VALUES({name}) ")
}

impl Assignments {
    fn read(
        session: &Session,
        table_name: &str,
        schema: &SchemaRef,
        assignments: &[Assignment],
        from_query: Option<&quiver_sql::sqlparser::ast::Query>,
    ) -> Result<Assignments> {
        let targets = crate::assignments::assignment_targets(schema, assignments, "UPDATE")?;
        let keys = TableKey::of_schema(schema.metadata().get(TABLE_KEYS_KEY));
        let sets_key = targets
            .iter()
            .any(|t| keys.iter().any(|k| k.columns.contains(t)));
        let mut values = Vec::with_capacity(assignments.len());
        let mut names = Vec::new();
        for a in assignments {
            let (text, unqualified) = rewrite_values(&a.value.to_string())?;
            names.extend(unqualified);
            values.push(text);
        }
        // In INSERT ... SELECT, MariaDB resolves a name the SELECT's tables
        // also have as theirs (or as ambiguous, 1052); Quiver reads only
        // the table's rows and VALUES(), so it refuses such a name.
        if let Some(q) = from_query {
            for n in &names {
                if select_sees(session, q, n) {
                    return Err(QuiverError::not_supported(format!(
                        "ON DUPLICATE KEY UPDATE naming '{n}', a column of the SELECT's tables"
                    )));
                }
            }
        }
        let sql = format!(
            "SELECT {} FROM `{}`",
            values.join(", "),
            table_name.replace('`', "``")
        );
        let Some(Statement::Query(query)) = quiver_sql::parse_sql(&sql)?.pop() else {
            return Err(QuiverError::internal(
                "ON DUPLICATE KEY UPDATE did not parse",
            ));
        };
        let a = Assignments {
            targets,
            query: *query,
            sets_key,
            table_name: table_name.to_string(),
        };
        // Bound now, so that a name it does not know is an error whether
        // or not some row clashes (as in MariaDB).
        let empty: Vec<ArrayRef> = schema
            .fields()
            .iter()
            .map(|f| arrow_array::new_empty_array(f.data_type()))
            .collect();
        session.prepare(
            &a.query,
            None,
            Purpose::Show(a.input(schema, empty.clone(), &empty, 0)?),
        )?;
        Ok(a)
    }

    /// The rows a round reads: the current values of the rows it updates
    /// (`current`) and, as hidden columns, the new rows' (`values`).
    fn input(
        &self,
        schema: &SchemaRef,
        mut columns: Vec<ArrayRef>,
        values: &[ArrayRef],
        rows: usize,
    ) -> Result<Arc<MemTable>> {
        let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        for (f, c) in schema.fields().iter().zip(values) {
            fields.push(
                f.as_ref()
                    .clone()
                    .with_name(values_column(f.name()))
                    .with_nullable(true),
            );
            columns.push(c.clone());
        }
        let input = RecordBatch::try_new_with_options(
            Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        Ok(MemTable::of_batch(&self.table_name, input))
    }

    /// Updates the rows of `round` ((slot, new row) pairs, each slot once),
    /// returning the affected-row count (2 per changed row).
    fn run_round(
        &self,
        session: &Session,
        state: &mut Rows<'_>,
        round: &[(u32, u32)],
        misfits: &mut Misfits,
        table_prefix: &str,
    ) -> Result<u64> {
        let schema = state.schema.clone();
        let slots: Vec<u32> = round.iter().map(|h| h.0).collect();
        let current = state.values_of(&slots)?;
        let picks = arrow_array::UInt32Array::from(round.iter().map(|h| h.1).collect::<Vec<_>>());
        let values = state.sources[NEW as usize]
            .iter()
            .map(|c| Ok(arrow_select::take::take(c.as_ref(), &picks, None)?))
            .collect::<Result<Vec<_>>>()?;
        let rows = self.input(&schema, current.clone(), &values, round.len())?;
        let (out_schema, out) = session
            .prepare(&self.query, None, Purpose::Show(rows))?
            .in_one_partition()
            .collect()?;
        let out = arrow_select::concat::concat_batches(&out_schema, &out)?;
        let mut updated = current.clone();
        for (j, &t) in self.targets.iter().enumerate() {
            let f = schema.field(t);
            misfits.at_column(t);
            let v = store_cast(out.column(j), f, round[0].1 as usize, table_prefix, misfits)?;
            if !f.is_nullable() && v.null_count() > 0 {
                return Err(QuiverError::new(
                    1048,
                    "23000",
                    format!("Column '{}' cannot be null", f.name()),
                ));
            }
            updated[t] = v;
        }
        // Which rows changed (MySQL counts 2 for those, 0 for the others).
        let mut changed = vec![false; round.len()];
        for &t in &self.targets {
            let conv =
                RowConverter::new(vec![SortField::new(schema.field(t).data_type().clone())])?;
            let before = conv.convert_columns(std::slice::from_ref(&current[t]))?;
            let after = conv.convert_columns(std::slice::from_ref(&updated[t]))?;
            for (i, c) in changed.iter_mut().enumerate() {
                *c |= before.row(i) != after.row(i);
            }
        }
        let source = state.add_source(updated)?;
        let mut affected = 0;
        for (i, &(slot, _)) in round.iter().enumerate() {
            if !changed[i] {
                continue;
            }
            affected += 2;
            for k in 0..state.keys.len() {
                state.leave(k, slot);
            }
            state.slots.at[slot as usize] = Some((source, i as u32));
            for k in 0..state.keys.len() {
                if let Some(b) = state.key_of(k, slot) {
                    let b = b.to_vec();
                    if state.find(k, &b).is_some() {
                        return Err(duplicate(
                            &schema,
                            &state.keys[k],
                            &state.sources[source as usize],
                            i,
                        ));
                    }
                }
                state.enter(k, slot);
            }
        }
        Ok(affected)
    }
}

/// The text of an assignment's value with each `VALUES(c)` (or `VALUE(c)`)
/// read from its hidden column, and the unqualified column names it reads
/// elsewhere. A subquery is refused: MariaDB's would read the table as the
/// statement changes it.
fn rewrite_values(text: &str) -> Result<(String, Vec<String>)> {
    let tokens = Tokenizer::new(&MySqlDialect {}, text)
        .tokenize()
        .map_err(|e| QuiverError::syntax_msg(e.to_string()))?;
    let solid: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i], Token::Whitespace(_)))
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut names = Vec::new();
    let mut skip_to = 0;
    for (p, &i) in solid.iter().enumerate() {
        let at = |d: usize| solid.get(p + d).map(|&j| &tokens[j]);
        if i < skip_to {
            continue;
        }
        // Whitespace between solid tokens is kept as one space.
        if !out.is_empty() {
            out.push(' ');
        }
        match &tokens[i] {
            Token::Word(w) if w.keyword == Keyword::SELECT => {
                return Err(QuiverError::not_supported(
                    "a subquery in ON DUPLICATE KEY UPDATE",
                ));
            }
            Token::Word(w)
                if w.quote_style.is_none()
                    && matches!(w.keyword, Keyword::VALUES | Keyword::VALUE)
                    && at(1) == Some(&Token::LParen) =>
            {
                let (Some(Token::Word(c)), Some(Token::RParen)) = (at(2), at(3)) else {
                    return Err(QuiverError::syntax_msg(format!(
                        "VALUES() takes one column name, near '{text}'"
                    )));
                };
                out.push_str(&format!("`{}`", values_column(&c.value)));
                skip_to = solid.get(p + 4).copied().unwrap_or(tokens.len());
            }
            Token::Word(w) => {
                let qualified = p > 0 && matches!(at_back(&tokens, &solid, p), Some(Token::Period));
                let qualifier = at(1) == Some(&Token::Period);
                let call = at(1) == Some(&Token::LParen);
                if !qualified
                    && !qualifier
                    && !call
                    && (w.keyword == Keyword::NoKeyword || w.quote_style.is_some())
                {
                    names.push(w.value.clone());
                }
                out.push_str(&tokens[i].to_string());
            }
            t => out.push_str(&t.to_string()),
        }
    }
    Ok((out, names))
}

fn at_back<'t>(tokens: &'t [Token], solid: &[usize], p: usize) -> Option<&'t Token> {
    solid.get(p.checked_sub(1)?).map(|&j| &tokens[j])
}

/// Whether column `name` is in scope in the FROM of query `q` (a SELECT).
fn select_sees(session: &Session, q: &quiver_sql::sqlparser::ast::Query, name: &str) -> bool {
    let SetExpr::Select(select) = q.body.as_ref() else {
        // A UNION's names are its own columns'; MariaDB sees none.
        return false;
    };
    if select.from.is_empty() {
        return false;
    }
    let Ok(Some(Statement::Query(mut probe))) =
        quiver_sql::parse_sql(&format!("SELECT `{}` FROM t", name.replace('`', "``")))
            .map(|mut s| s.pop())
    else {
        return false;
    };
    let SetExpr::Select(p) = probe.body.as_mut() else {
        return false;
    };
    p.from = select.from.clone();
    session.prepare(&probe, None, Purpose::Plan).is_ok()
}
