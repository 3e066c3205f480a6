//! Hash aggregation in two phases: every input partition aggregates into a
//! table of its own (no sharing, no locks), then the partial tables are merged.
//! Accumulators keep their state in flat vectors indexed by group id and are
//! updated a batch at a time with typed loops.
//!
//! `mod.rs` holds the operator and its merge of partial tables with the
//! first-seen positions of groups; `group_table.rs` one partition's table
//! (keys to dense group ids); `accumulator.rs` the accumulators (`Acc`);
//! `min_max_str.rs` the MIN / MAX kernel of strings under a collation.

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

use crate::bytes::{byte_view, is_binary};
use crate::context::OwnedReservation;
use crate::expr::{cast_array, scaled_div, PhysicalExpr};
use crate::hash::{hash_rows, GroupKeys, KeyColumn, KeyValues};
use crate::operators::group_concat::{GroupConcatAcc, GroupConcatSpec};
use crate::operators::int_group_map::IntGroupMap;
use crate::operators::packed_keys::{str_key_array, PackedLayout};
use crate::operators::scan::{take_scan_position, ScanPosition};
use crate::operators::str_group_map::{splice, StrGroupMap};
use crate::operators::{for_each_partition, metered, timed, BatchStream, ExecutionPlan, Metrics};
use crate::ExecContext;

mod accumulator;
mod group_table;
mod min_max_str;
#[cfg(test)]
mod tests;

use accumulator::*;
use group_table::*;
use min_max_str::min_max_strs;

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
