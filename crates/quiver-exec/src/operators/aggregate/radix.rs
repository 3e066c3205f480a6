//! Radix-partitioned aggregation, for GROUP BYs with many groups.
//!
//! Each partition's own table (see [`AggregateExec`](super::AggregateExec))
//! is the fastest way while the groups are few. With hundreds of thousands
//! of groups it is not: every partition builds a table as large as the
//! result, each probe misses the cache, and the partial tables are merged
//! on one thread. Here instead every partition evaluates its rows' keys and
//! arguments and scatters them, by the top bits of the keys' hash (under
//! their collations), into [`BUCKETS`] buckets; then the buckets are
//! aggregated on every thread, each into a table of its own that holds a
//! 64th of the groups. A group's rows are all in one bucket, so nothing is
//! merged, and a bucket's table is small enough to stay in cache.
//!
//! Which way a query goes is decided from its first rows (see
//! [`Decider`]): a partition aggregates its first rows (see
//! [`Partitioning::Sampled`]) into its own table, as before, and the rate at which the second half
//! of them still makes new groups says whether the groups are many. The
//! first partition to know decides for all, so they all go the same way;
//! a partition that went on to scatter hands its sampled rows to the
//! buckets and drops its table. Keys dense enough for a direct index
//! (order keys, dates) stay with their own tables: their probes touch
//! memory in order already.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, UInt32Array};
use arrow_schema::{Field, Schema, SchemaRef};
use arrow_select::concat::concat_batches;
use quiver_common::{QuiverError, Result};

use crate::context::OwnedReservation;
use crate::expr::PhysicalExpr;
use crate::hash::{hash_rows, KeyColumn};
use crate::operators::exec_plan::run_on_threads;
use crate::ExecContext;

use super::distinct::tuple_parts;
use super::first_seen::Position;
use super::group_table::GroupTable;
use super::spec::AggregateSpec;

/// Buckets a partition's rows are scattered into: enough that a bucket's
/// groups fit in cache at millions of groups, and that every thread finds
/// work; few enough that a bucket's share of a batch is not tiny.
const BUCKET_BITS: u32 = 6;
pub(super) const BUCKETS: usize = 1 << BUCKET_BITS;

/// Rows gathered in one piece of a bucket before they are copied together:
/// a bucket's table is updated a chunk at a time.
const CHUNK_ROWS: usize = 8 * 1024;

/// When an aggregate scatters its rows.
#[derive(Debug, Clone, Copy)]
pub enum Partitioning {
    /// Each partition into a table of its own.
    Never,
    /// Scattered from the first batch (for tests).
    Always,
    /// Decided from a sample of the first rows.
    Sampled {
        /// Rows a partition aggregates on its own before deciding; no
        /// partition with this many: own tables.
        sample_rows: usize,
        /// Fewest groups (and DISTINCT values kept) in a sample that
        /// scatters.
        min_groups: usize,
        /// Fewest new groups (and DISTINCT values) per row in the sample's
        /// second half that scatters.
        min_new_share: f64,
    },
}

impl Default for Partitioning {
    fn default() -> Self {
        Partitioning::Sampled {
            sample_rows: 64 * 1024,
            min_groups: 8 * 1024,
            min_new_share: 0.125,
        }
    }
}

/// How every partition of one aggregate runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Each partition into a table of its own, merged at the end.
    Own,
    /// Each partition scatters into buckets, aggregated after.
    Scattered,
}

/// The decision the partitions of one aggregate share: taken once, by the
/// first partition that knows.
#[derive(Debug, Default)]
pub(super) struct Decider(AtomicU8);

impl Decider {
    /// The mode, if decided.
    pub(super) fn decided(&self) -> Option<Mode> {
        match self.0.load(Ordering::Acquire) {
            1 => Some(Mode::Own),
            2 => Some(Mode::Scattered),
            _ => None,
        }
    }

    /// Decides `mine` unless another partition decided first; the mode.
    pub(super) fn decide(&self, mine: Mode) -> Mode {
        let code = match mine {
            Mode::Own => 1,
            Mode::Scattered => 2,
        };
        match self
            .0
            .compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => mine,
            Err(_) => self.decided().unwrap_or(mine),
        }
    }
}

/// What a partition's sample says: rows seen, and groups made, at the half
/// mark and since.
#[derive(Debug, Default)]
pub(super) struct Sample {
    rows: usize,
    half: Option<(usize, usize)>,
    /// The sampled batches and their positions, for the buckets if the
    /// rows scatter.
    pub(super) batches: Vec<(RecordBatch, Position)>,
}

impl Sample {
    /// Notes a batch aggregated into `table`; the mode this partition would
    /// choose once the sample is complete.
    pub(super) fn note(
        &mut self,
        batch: &RecordBatch,
        at: Position,
        table: &GroupTable,
        p: &Partitioning,
    ) -> Option<Mode> {
        self.batches.push((batch.clone(), at));
        self.rows += batch.num_rows();
        let (sample_rows, min_groups, min_new_share) = match *p {
            Partitioning::Never => return Some(Mode::Own),
            Partitioning::Always => return Some(Mode::Scattered),
            Partitioning::Sampled {
                sample_rows,
                min_groups,
                min_new_share,
            } => (sample_rows, min_groups, min_new_share),
        };
        // What grows with the groups: the groups, and the values DISTINCT
        // aggregates keep for them.
        let distinct = table.distinct_entries();
        let entries = table.groups() + distinct;
        if self.half.is_none() && self.rows >= sample_rows / 2 {
            self.half = Some((self.rows, entries));
        }
        if self.rows < sample_rows {
            return None;
        }
        let (rows_at_half, entries_at_half) = self.half.unwrap_or((0, 0));
        let new = entries.saturating_sub(entries_at_half) as f64;
        let rows = (self.rows - rows_at_half).max(1) as f64;
        // Keys indexed directly are found in memory order however many:
        // only DISTINCT values make such a table worth scattering.
        let direct_only = table.has_direct_index() && distinct == 0;
        let many = entries >= min_groups && new >= min_new_share * rows && !direct_only;
        Some(if many { Mode::Scattered } else { Mode::Own })
    }
}

/// The expressions the buckets are aggregated with: each group key and
/// aggregate argument a column of the scattered rows, in that order, under
/// the collation it had.
pub(super) fn bucket_exprs(
    group: &[PhysicalExpr],
    aggs: &[AggregateSpec],
) -> (Vec<PhysicalExpr>, Vec<AggregateSpec>) {
    let column = |e: &PhysicalExpr, i: usize| match e {
        PhysicalExpr::Collate(_, c) => PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(i)), *c),
        _ => PhysicalExpr::Column(i),
    };
    let keys: Vec<PhysicalExpr> = group
        .iter()
        .enumerate()
        .map(|(i, g)| column(g, i))
        .collect();
    let mut next = group.len();
    let specs = aggs
        .iter()
        .map(|a| {
            let mut s = a.clone();
            s.arg = a.arg.as_ref().map(|e| {
                next += 1;
                column(e, next - 1)
            });
            s
        })
        .collect();
    (keys, specs)
}

/// Whether the aggregates can take their arguments scattered: each reads
/// one argument column (not GROUP_CONCAT, not a COUNT(DISTINCT) of several,
/// whose parts are compared each under its own collation).
pub(super) fn scatterable(aggs: &[AggregateSpec]) -> bool {
    aggs.iter().all(|a| {
        a.concat.is_none() && !(a.distinct && a.arg.as_ref().and_then(tuple_parts).is_some())
    })
}

/// One partition's rows, keys and arguments evaluated, by bucket.
#[derive(Default)]
pub(super) struct Scatter {
    buckets: Vec<Bucket>,
    schema: Option<SchemaRef>,
    bytes: usize,
}

#[derive(Default)]
struct Bucket {
    /// Slices of batches not copied together yet, with their positions
    /// and their rows' key hashes.
    pieces: Vec<(RecordBatch, Position, Vec<u64>)>,
    rows: usize,
    chunks: Vec<Chunk>,
}

/// Rows of one bucket from one partition, in the partition's order, and
/// where they were: (first row, position) for each run of rows of one
/// position (see [`FirstSeen`](super::first_seen::FirstSeen)).
struct Chunk {
    rows: RecordBatch,
    runs: Vec<(u32, Position)>,
    /// The rows' `hash_rows` of their keys: not computed again.
    hashes: Vec<u64>,
}

impl Scatter {
    /// Bytes of the rows held.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Evaluates the keys and arguments of `batch`, whose rows are at
    /// position `at`, and adds its rows to their buckets.
    pub(super) fn push(
        &mut self,
        batch: &RecordBatch,
        at: Position,
        group: &[PhysicalExpr],
        aggs: &[AggregateSpec],
    ) -> Result<()> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(group.len() + aggs.len());
        let mut keys = Vec::with_capacity(group.len());
        for g in group {
            let a = g.evaluate_array(batch)?;
            keys.push(KeyColumn::collated(&a, g.collation())?);
            columns.push(a);
        }
        for a in aggs {
            if let Some(e) = &a.arg {
                columns.push(e.evaluate_array(batch)?);
            }
        }
        let schema = self
            .schema
            .get_or_insert_with(|| {
                Arc::new(Schema::new(
                    columns
                        .iter()
                        .enumerate()
                        .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
                        .collect::<Vec<_>>(),
                ))
            })
            .clone();
        let hashes = hash_rows(&keys, rows);
        // A counting sort by bucket: one `take` puts each bucket's rows
        // together, and each bucket gets a slice.
        let bucket = |h: u64| (h >> (64 - BUCKET_BITS)) as usize;
        let mut starts = [0u32; BUCKETS + 1];
        for &h in &hashes {
            starts[bucket(h) + 1] += 1;
        }
        for b in 0..BUCKETS {
            starts[b + 1] += starts[b];
        }
        let mut fill = starts;
        let mut order = vec![0u32; rows];
        for (i, &h) in hashes.iter().enumerate() {
            let b = bucket(h);
            order[fill[b] as usize] = i as u32;
            fill[b] += 1;
        }
        let order = UInt32Array::from(order);
        let sorted = columns
            .iter()
            .map(|c| arrow_select::take::take(c.as_ref(), &order, None))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(QuiverError::from)?;
        let sorted = RecordBatch::try_new(schema, sorted).map_err(QuiverError::from)?;
        if self.buckets.is_empty() {
            self.buckets.resize_with(BUCKETS, Bucket::default);
        }
        for (b, bucket) in self.buckets.iter_mut().enumerate() {
            let (from, to) = (starts[b] as usize, starts[b + 1] as usize);
            if from == to {
                continue;
            }
            let hashes = order.values()[from..to]
                .iter()
                .map(|&i| hashes[i as usize])
                .collect();
            bucket
                .pieces
                .push((sorted.slice(from, to - from), at, hashes));
            bucket.rows += to - from;
            if bucket.rows >= CHUNK_ROWS {
                self.bytes += bucket.flush()?;
            }
        }
        Ok(())
    }

    /// Copies the pieces still apart into chunks.
    pub(super) fn finish(&mut self) -> Result<()> {
        for b in &mut self.buckets {
            self.bytes += b.flush()?;
        }
        Ok(())
    }
}

impl Bucket {
    /// The pieces as one chunk; its bytes.
    fn flush(&mut self) -> Result<usize> {
        if self.pieces.is_empty() {
            return Ok(0);
        }
        let mut runs: Vec<(u32, Position)> = vec![];
        let mut row = 0u32;
        let mut hashes = Vec::with_capacity(self.rows);
        for (p, at, h) in &self.pieces {
            if runs.last().is_none_or(|r| r.1 != *at) {
                runs.push((row, *at));
            }
            row += p.num_rows() as u32;
            hashes.extend_from_slice(h);
        }
        let rows = concat_batches(&self.pieces[0].0.schema(), self.pieces.iter().map(|p| &p.0))
            .map_err(QuiverError::from)?;
        self.pieces.clear();
        self.rows = 0;
        let bytes = rows.get_array_memory_size() + hashes.len() * 8;
        self.chunks.push(Chunk { rows, runs, hashes });
        Ok(bytes)
    }
}

/// Aggregates every bucket over the partitions' scatters (in partition
/// order), buckets on all of the query's threads; the output batches, in
/// bucket order. With `classes` (per partition, see
/// [`order_classes`](super::first_seen::order_classes)) the groups show the
/// key of their first row: a bucket's rows of each partition go to a table
/// of their own, and the bucket's tables are merged as partitions' are.
pub(super) fn aggregate_buckets(
    scatters: Vec<Scatter>,
    classes: Option<&[Position]>,
    types: &[arrow_schema::DataType],
    group: &[PhysicalExpr],
    aggs: &[AggregateSpec],
    schema: &SchemaRef,
    ctx: &Arc<ExecContext>,
) -> Result<Vec<RecordBatch>> {
    // By bucket: each partition's chunks, in partition order.
    let mut buckets: Vec<Vec<(usize, Vec<Chunk>)>> = (0..BUCKETS).map(|_| vec![]).collect();
    for (p, s) in scatters.into_iter().enumerate() {
        for (b, bucket) in s.buckets.into_iter().enumerate() {
            if !bucket.chunks.is_empty() {
                buckets[b].push((p, bucket.chunks));
            }
        }
    }
    let aggregate = |parts: &[(usize, Vec<Chunk>)]| -> Result<Option<RecordBatch>> {
        let mut total: Option<GroupTable> = None;
        match classes {
            None => {
                let mut table = GroupTable::tracking(types, aggs, false, false);
                for chunk in parts.iter().flat_map(|p| &p.1) {
                    table.update_scattered(&chunk.rows, group, aggs, None, &chunk.hashes)?;
                }
                total = Some(table);
            }
            Some(classes) => {
                for (i, (p, chunks)) in parts.iter().enumerate() {
                    let mut table = GroupTable::tracking(types, aggs, true, false);
                    for chunk in chunks {
                        table.update_scattered(
                            &chunk.rows,
                            group,
                            aggs,
                            Some(&chunk.runs),
                            &chunk.hashes,
                        )?;
                    }
                    let class = classes[*p];
                    match &mut total {
                        None => {
                            table.set_class(class);
                            total = Some(table);
                        }
                        Some(t) => t.merge_in(table, class, i + 1 == parts.len())?,
                    }
                }
            }
        }
        let Some(table) = total else {
            return Ok(None);
        };
        let mut memory = OwnedReservation::new(ctx);
        memory.grow(table.memory_size())?;
        Ok(Some(table.finish(schema, aggs)?))
    };
    // Threads take the next bucket until none is left.
    let next = AtomicUsize::new(0);
    let work = |_| -> Result<Vec<(usize, RecordBatch)>> {
        let mut done = vec![];
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= BUCKETS {
                return Ok(done);
            }
            if buckets[b].is_empty() {
                continue;
            }
            ctx.check_cancelled()?;
            done.extend(aggregate(&buckets[b])?.map(|out| (b, out)));
        }
    };
    let mut outputs = vec![];
    for worker in run_on_threads(ctx, ctx.threads.clamp(1, BUCKETS), work) {
        outputs.extend(worker?);
    }
    outputs.sort_unstable_by_key(|(b, _)| *b);
    Ok(outputs
        .into_iter()
        .map(|(_, out)| out)
        .filter(|out| out.num_rows() > 0)
        .collect())
}
