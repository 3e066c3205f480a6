//! Table scan: morsel-driven. All partitions claim fixed-size slices of the
//! table from one shared cursor, so a slow partition never holds the others
//! back. Pushed-down filters run here, in the order that removes rows at
//! the least cost (learned as the scan goes), and the batch is compacted as
//! soon as a filter has removed most rows.
//!
//! Only the columns the scan outputs are asked of the table (a stored table
//! reads no others), and row groups whose zone maps (min/max per column)
//! show that a pushed-down `col <op> constant`, BETWEEN or IN cannot hold
//! for any row are skipped without being read.

use std::cell::Cell;
use std::cmp::Ordering as Cmp;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_collation::{Collation, RowHints, RowShape};
use quiver_common::{Result, ScalarValue};
use quiver_plan::{BinaryOp, ColumnZone, SpaceEnds, TableSource};

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::context::MORSEL_ROWS;
use crate::expr::PhysicalExpr;
use crate::ExecContext;

#[derive(Debug)]
pub struct ScanExec {
    table: Arc<dyn TableSource>,
    /// Table column indices read: the output columns in order, then those
    /// read only for the filters.
    projection: Vec<usize>,
    filters: Vec<PhysicalExpr>,
    filter_text: Vec<String>,
    /// The columns of `projection`, which filters see.
    read_schema: SchemaRef,
    /// The output columns: the first of `read_schema`.
    schema: SchemaRef,
    partitions: usize,
    morsels: OnceLock<Result<Arc<Morsels>>>,
    metrics: Arc<Metrics>,
}

thread_local! {
    /// The scan and morsel of the batch a scan last returned on this
    /// thread (see [`take_scan_position`]).
    static SCAN_POSITION: Cell<Option<ScanPosition>> = const { Cell::new(None) };
}

/// Where a batch comes from in a scan: which scan (an identity shared by
/// all partitions of one scan) and which of its morsels. Morsels are
/// numbered in table order and each is read by one partition, so two
/// batches of one scan are in table order by `morsel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPosition {
    pub scan: usize,
    pub morsel: u64,
}

/// The position of the batch a scan last returned on this thread, cleared.
/// An operator that pulls its input on its own thread through operators
/// that stream batch by batch (filters, projections, a hash join's probe
/// side) calls it after each batch to learn where that batch's rows are in
/// the scan; `None` when no scan returned a batch since the last call.
pub fn take_scan_position() -> Option<ScanPosition> {
    SCAN_POSITION.with(|p| p.take())
}

#[derive(Debug)]
struct Morsels {
    batches: Arc<Vec<RecordBatch>>,
    /// `[batch][output column]`: the row shape storage recorded for a text
    /// column of that row group, for the filters' equality kernels.
    shapes: Vec<Vec<Option<RowShape>>>,
    /// `[output column]`: which rows of a text column end in a space, when
    /// storage found out (empty when unknown).
    ends_in_space: Vec<Option<SpaceEnds>>,
    /// (batch index, offset, length)
    slices: Vec<(usize, usize, usize)>,
    next: AtomicUsize,
    /// Row groups (batches) skipped by zone maps, of all.
    skipped: usize,
    groups: usize,
}

impl ScanExec {
    /// A scan reading `projection` (whose columns are `read_schema`) and
    /// returning the first `schema.fields().len()` of them.
    pub fn new(
        table: Arc<dyn TableSource>,
        projection: Vec<usize>,
        filters: Vec<PhysicalExpr>,
        filter_text: Vec<String>,
        read_schema: SchemaRef,
        schema: SchemaRef,
        partitions: usize,
    ) -> Self {
        debug_assert!(read_schema.fields().len() == projection.len());
        debug_assert!(schema.fields().len() <= projection.len());
        // Without filter-only columns the batches read are the output: one
        // schema, so that `AdaptiveFilters::apply` need not rebuild them.
        let read_schema = if read_schema.fields().len() == schema.fields().len() {
            schema.clone()
        } else {
            read_schema
        };
        ScanExec {
            table,
            projection,
            filters,
            filter_text,
            read_schema,
            schema,
            partitions,
            morsels: OnceLock::new(),
            metrics: Default::default(),
        }
    }

    fn morsels(&self) -> Result<Arc<Morsels>> {
        self.morsels
            .get_or_init(|| {
                let scan = self.table.scan_batches(&self.projection)?;
                let (batches, zones, ends_in_space) =
                    (scan.batches, scan.zone_maps, scan.ends_in_space);
                let predicates = match &zones {
                    Some(z) if z.groups.len() == batches.len() => {
                        zone_predicates(&self.filters, &self.projection)
                    }
                    // Zone maps that do not line up with the batches are not used.
                    _ => vec![],
                };
                let mut slices = Vec::new();
                let mut skipped = 0;
                for (i, b) in batches.iter().enumerate() {
                    if let (Some(z), false) = (&zones, predicates.is_empty()) {
                        if group_ruled_out(&predicates, &z.groups[i]) {
                            skipped += 1;
                            continue;
                        }
                    }
                    let mut off = 0;
                    while off < b.num_rows() {
                        let len = MORSEL_ROWS.min(b.num_rows() - off);
                        slices.push((i, off, len));
                        off += len;
                    }
                }
                let shapes = match &zones {
                    Some(z) if z.groups.len() == batches.len() => z
                        .groups
                        .iter()
                        .map(|g| {
                            self.projection
                                .iter()
                                .map(|&c| g.get(c).and_then(|z| z.shape))
                                .collect()
                        })
                        .collect(),
                    _ => vec![Vec::new(); batches.len()],
                };
                Ok(Arc::new(Morsels {
                    groups: batches.len(),
                    shapes,
                    ends_in_space,
                    batches,
                    slices,
                    next: AtomicUsize::new(0),
                    skipped,
                }))
            })
            .clone()
    }

    /// Row groups skipped by zone maps and all row groups, once the scan has run.
    pub fn row_groups_skipped(&self) -> Option<(usize, usize)> {
        match self.morsels.get() {
            Some(Ok(m)) => Some((m.skipped, m.groups)),
            _ => None,
        }
    }
}

/// A pushed-down conjunct that zone maps can decide: a table column against
/// constants.
#[derive(Debug)]
enum ZonePredicate {
    Compare {
        column: usize,
        op: BinaryOp,
        value: ScalarValue,
        /// `value`'s [`zone_key`].
        key: Option<Vec<u8>>,
        collation: Collation,
    },
    In {
        column: usize,
        values: Vec<ScalarValue>,
        keys: Vec<Option<Vec<u8>>>,
        collation: Collation,
    },
}

fn column_of(e: &PhysicalExpr) -> Option<usize> {
    e.column_index()
}

/// A non-NULL constant (NULL decides nothing in a zone map).
fn literal_of(e: &PhysicalExpr) -> Option<&ScalarValue> {
    e.literal().filter(|v| !v.is_null())
}

fn flip(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::LtEq => BinaryOp::GtEq,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::GtEq => BinaryOp::LtEq,
        other => other,
    }
}

/// The conjuncts of `filters` that zone maps can decide (AND is split; the
/// binder writes BETWEEN as `x >= lo AND x <= hi`). Column positions are
/// mapped to table columns through `projection`.
fn zone_predicates(filters: &[PhysicalExpr], projection: &[usize]) -> Vec<ZonePredicate> {
    fn walk(e: &PhysicalExpr, projection: &[usize], out: &mut Vec<ZonePredicate>) {
        match e {
            PhysicalExpr::Binary {
                op: BinaryOp::And,
                left,
                right,
                ..
            } => {
                walk(left, projection, out);
                walk(right, projection, out);
            }
            PhysicalExpr::Binary {
                op,
                left,
                right,
                collation,
                ..
            } if op.is_comparison() => {
                let (column, op, value) = match (column_of(left), literal_of(right)) {
                    (Some(c), Some(v)) => (c, *op, v),
                    _ => match (literal_of(left), column_of(right)) {
                        (Some(v), Some(c)) => (c, flip(*op), v),
                        _ => return,
                    },
                };
                if let Some(&column) = projection.get(column) {
                    out.push(ZonePredicate::Compare {
                        column,
                        op,
                        value: value.clone(),
                        key: zone_key(value, *collation),
                        collation: *collation,
                    });
                }
            }
            PhysicalExpr::InList {
                negated: false,
                expr,
                list,
                collation,
                ..
            } => {
                let values: Option<Vec<ScalarValue>> =
                    list.iter().map(|e| literal_of(e).cloned()).collect();
                if let (Some(c), Some(values)) = (column_of(expr), values) {
                    if let Some(&column) = projection.get(c) {
                        out.push(ZonePredicate::In {
                            column,
                            keys: values.iter().map(|v| zone_key(v, *collation)).collect(),
                            values,
                            collation: *collation,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for f in filters {
        walk(f, projection, &mut out);
    }
    out
}

/// An exact decimal view of an integer or decimal value.
fn as_decimal(v: &ScalarValue) -> Option<(i128, i8)> {
    match v {
        ScalarValue::Int64(x) => Some((*x as i128, 0)),
        ScalarValue::UInt64(x) => Some((*x as i128, 0)),
        ScalarValue::Decimal(x, _, s) => Some((x.to_i128()?, *s)),
        _ => None,
    }
}

/// Order of a zone bound and a constant, when it is certain; strings only
/// under collations whose order is byte order (the bounds are in byte order).
fn compare_values(a: &ScalarValue, b: &ScalarValue, collation: Collation) -> Option<Cmp> {
    use ScalarValue as S;
    match (a, b) {
        (S::Date(x), S::Date(y)) => Some(x.cmp(y)),
        (S::DateTime(x, _), S::DateTime(y, _)) => Some(x.cmp(y)),
        (S::Utf8(x), S::Utf8(y)) if collation.is_binary_eq() => {
            Some(collation.compare(x.as_bytes(), y.as_bytes()))
        }
        // Binary strings (should their pages keep bounds): plain bytes.
        (S::Binary(x), S::Binary(y)) => Some(x.cmp(y)),
        (S::Binary(x), S::Utf8(y)) => Some(x.as_slice().cmp(y.as_bytes())),
        _ => {
            let ((x, sx), (y, sy)) = (as_decimal(a)?, as_decimal(b)?);
            let scale = sx.max(sy);
            let up = |v: i128, s: i8| v.checked_mul(10i128.checked_pow((scale - s) as u32)?);
            Some(up(x, sx)?.cmp(&up(y, sy)?))
        }
    }
}

/// Every value of the zone is below `c` (strictly), as far as the bounds show.
fn all_below(z: &ColumnZone, c: &ScalarValue, collation: Collation) -> bool {
    let Some(max) = &z.max else { return false };
    if z.max_is_prefix {
        // Every value's first bytes are at most the prefix `p`; if `p` is
        // below the same number of bytes of `c`, every value is below `c`
        // (docs/STORAGE.md, zone maps).
        return match (max, c) {
            (ScalarValue::Utf8(p), ScalarValue::Utf8(c)) if collation.is_binary_eq() => {
                let c = c.as_bytes();
                p.as_bytes() < &c[..c.len().min(p.len())]
            }
            (ScalarValue::Binary(p), ScalarValue::Binary(c)) => {
                p.as_slice() < &c[..c.len().min(p.len())]
            }
            _ => false,
        };
    }
    compare_values(max, c, collation) == Some(Cmp::Less)
}

fn at_most(z: &ColumnZone, c: &ScalarValue, collation: Collation) -> bool {
    if z.max_is_prefix {
        return all_below(z, c, collation);
    }
    z.max
        .as_ref()
        .is_some_and(|m| compare_values(m, c, collation).is_some_and(|o| o != Cmp::Greater))
}

fn min_cmp(z: &ColumnZone, c: &ScalarValue, collation: Collation) -> Option<Cmp> {
    compare_values(z.min.as_ref()?, c, collation)
}

/// Whether no row of the zone can satisfy `column <op> c` for a string `c`
/// under a collation that does not order by bytes: decided by the zone's
/// bounds under that same collation (normalized keys, compared as bytes),
/// if it has them.
/// `key` is the constant's normalized key under `collation`.
fn collated_ruled_out(z: &ColumnZone, op: BinaryOp, key: &[u8], collation: Collation) -> bool {
    let Some(b) = z.collated.as_ref().filter(|b| b.collation == collation) else {
        return false;
    };
    let min = b.min.as_slice();
    // Every key is below `key`: a whole max below it, or a cut max below
    // as many bytes of it.
    let all_below = if b.max_is_prefix {
        b.max.as_slice() < &key[..key.len().min(b.max.len())]
    } else {
        b.max.as_slice() < key
    };
    let at_most = if b.max_is_prefix {
        all_below
    } else {
        b.max.as_slice() <= key
    };
    match op {
        BinaryOp::Eq => key < min || all_below,
        BinaryOp::Lt => min >= key,
        BinaryOp::LtEq => min > key,
        BinaryOp::Gt => at_most,
        BinaryOp::GtEq => all_below,
        // Every key equal to `key`: the whole max is, and the min (maybe
        // cut, so at most the smallest key) too.
        BinaryOp::NotEq => !b.max_is_prefix && min == key && b.max.as_slice() == key,
        _ => false,
    }
}

/// The normalized key zone maps compare a string constant by under a
/// collation that does not order by bytes (made once per scan, not once
/// per row group).
fn zone_key(c: &ScalarValue, collation: Collation) -> Option<Vec<u8>> {
    match c {
        ScalarValue::Utf8(s) if !collation.is_binary_eq() => {
            let mut key = Vec::new();
            collation.normalized_key(s.as_bytes(), &mut key);
            Some(key)
        }
        _ => None,
    }
}

/// Whether no row of the zone can satisfy `column <op> c`.
#[cfg(test)]
fn compare_ruled_out(z: &ColumnZone, op: BinaryOp, c: &ScalarValue, collation: Collation) -> bool {
    compare_ruled_out_keyed(z, op, c, zone_key(c, collation).as_deref(), collation)
}

/// [`compare_ruled_out`] with the constant's [`zone_key`].
fn compare_ruled_out_keyed(
    z: &ColumnZone,
    op: BinaryOp,
    c: &ScalarValue,
    key: Option<&[u8]>,
    collation: Collation,
) -> bool {
    if let Some(key) = key {
        return collated_ruled_out(z, op, key, collation);
    }
    match op {
        BinaryOp::Eq => {
            min_cmp(z, c, collation) == Some(Cmp::Greater) || all_below(z, c, collation)
        }
        BinaryOp::Lt => min_cmp(z, c, collation).is_some_and(|o| o != Cmp::Less),
        BinaryOp::LtEq => min_cmp(z, c, collation) == Some(Cmp::Greater),
        BinaryOp::Gt => at_most(z, c, collation),
        BinaryOp::GtEq => all_below(z, c, collation),
        BinaryOp::NotEq => {
            !z.max_is_prefix
                && min_cmp(z, c, collation) == Some(Cmp::Equal)
                && z.max
                    .as_ref()
                    .is_some_and(|m| compare_values(m, c, collation) == Some(Cmp::Equal))
        }
        _ => false,
    }
}

/// Whether the zone maps of one row group show that no row passes all
/// predicates. A comparison is never true for NULL, so an all-NULL column
/// rules out any predicate on it.
fn group_ruled_out(predicates: &[ZonePredicate], zones: &[ColumnZone]) -> bool {
    predicates.iter().any(|p| {
        let (column, ruled_out): (usize, &dyn Fn(&ColumnZone) -> bool) = match p {
            ZonePredicate::Compare {
                column,
                op,
                value,
                key,
                collation,
            } => (*column, &move |z| {
                compare_ruled_out_keyed(z, *op, value, key.as_deref(), *collation)
            }),
            ZonePredicate::In {
                column,
                values,
                keys,
                collation,
            } => (*column, &move |z| {
                values.iter().zip(keys).all(|(v, k)| {
                    compare_ruled_out_keyed(z, BinaryOp::Eq, v, k.as_deref(), *collation)
                })
            }),
        };
        match zones.get(column) {
            Some(z) if z.rows > 0 && z.null_count == z.rows => true,
            Some(z) => ruled_out(z),
            None => false,
        }
    })
}

/// The scan's conjuncts, run in the order that removes rows at the least
/// cost, as learned while the scan runs (each partition for itself): a
/// conjunct's rank is its time per row over the share of rows it removes,
/// and the lowest rank goes first. A cheap, selective date range then runs
/// before a string IN-list (TPC-H Q12), which sees only the rows left.
struct AdaptiveFilters {
    filters: Vec<PhysicalExpr>,
    order: Vec<usize>,
    stats: Vec<FilterStats>,
}

#[derive(Default, Clone, Copy)]
struct FilterStats {
    nanos: f64,
    rows_in: f64,
    rows_kept: f64,
}

impl FilterStats {
    /// Cost of removing a row this way; unmeasured conjuncts go first, to
    /// be measured.
    fn rank(&self) -> f64 {
        if self.rows_in == 0.0 {
            return 0.0;
        }
        let per_row = self.nanos / self.rows_in;
        let removed = 1.0 - self.rows_kept / self.rows_in;
        per_row / removed.max(1e-3)
    }
}

impl AdaptiveFilters {
    fn new(filters: Vec<PhysicalExpr>) -> Self {
        AdaptiveFilters {
            order: (0..filters.len()).collect(),
            stats: vec![FilterStats::default(); filters.len()],
            filters,
        }
    }

    /// Filters `batch`, of whose text columns storage knows what `hints`
    /// say (empty when nothing), and returns its rows that pass with the
    /// columns of `output` (the first of `batch`'s).
    fn apply(
        &mut self,
        mut batch: RecordBatch,
        mut hints: Vec<Option<RowHints<'_>>>,
        output: &SchemaRef,
    ) -> Result<RecordBatch> {
        let mut pending: Option<arrow_array::BooleanArray> = None;
        let mut result = None;
        for (position, &k) in self.order.iter().enumerate() {
            let start = std::time::Instant::now();
            // Rows earlier filters dropped raise no warnings (MySQL stops
            // at the first false conjunct).
            let filter = &self.filters[k];
            let n = batch.num_rows();
            let mask = crate::expr::evaluate_for(
                &batch,
                || Ok(pending.clone()),
                |b| match b.num_rows() == n {
                    true => filter.evaluate_mask_shaped(b, &hints),
                    false => filter.evaluate_mask(b),
                },
            )?;
            let st = &mut self.stats[k];
            st.nanos += start.elapsed().as_nanos() as f64;
            st.rows_in += batch.num_rows() as f64;
            st.rows_kept += mask.true_count() as f64;
            let mask = match pending.take() {
                Some(p) => arrow_array::BooleanArray::new(p.values() & mask.values(), None),
                None => mask,
            };
            let kept = mask.true_count();
            if kept == 0 {
                result = Some(RecordBatch::new_empty(output.clone()));
                break;
            }
            // Compact early when most rows are gone and more filters follow:
            // they then run on less. (The last compaction drops the
            // filter-only columns first.)
            if kept * 4 < batch.num_rows() && position + 1 < self.order.len() {
                batch = arrow_select::filter::filter_record_batch(&batch, &mask)?;
                // The shapes hold for any of the rows; the per-row bitmaps
                // no longer line up.
                for h in hints.iter_mut().flatten() {
                    h.ends_in_space = None;
                }
            } else {
                pending = Some(mask);
            }
        }
        let stats = &self.stats;
        self.order
            .sort_by(|a, b| stats[*a].rank().total_cmp(&stats[*b].rank()));
        if let Some(r) = result {
            return Ok(r);
        }
        // Drop the filter-only columns before the last compaction copies them.
        let rows = batch.num_rows();
        if !Arc::ptr_eq(batch.schema_ref(), output) {
            let columns = batch.columns()[..output.fields().len()].to_vec();
            batch = RecordBatch::try_new_with_options(
                output.clone(),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )?;
        }
        match pending {
            Some(m) if m.true_count() < rows => {
                Ok(arrow_select::filter::filter_record_batch(&batch, &m)?)
            }
            _ => Ok(batch),
        }
    }
}

impl Morsels {
    /// What storage knows of the text columns of the `off..` rows of batch
    /// `b`, for the filters' equality kernels (empty when nothing).
    fn hints(&self, b: usize, off: usize) -> Vec<Option<RowHints<'_>>> {
        let Some(shapes) = self.shapes.get(b) else {
            return Vec::new();
        };
        shapes
            .iter()
            .enumerate()
            .map(|(c, shape)| {
                let shape = (*shape)?;
                // A bitmap word covers 64 rows: usable from a morsel that
                // starts on one.
                let ends_in_space = match off % 64 {
                    0 => self
                        .ends_in_space
                        .get(c)
                        .and_then(|e| e.as_ref()?.get(b)?.as_deref()?.get(off / 64..)),
                    _ => None,
                };
                Some(RowHints {
                    shape,
                    ends_in_space,
                })
            })
            .collect()
    }
}

/// Rows left after zone maps that are worth a thread of their own: about
/// what one thread scans in the time it takes to start one (a query over
/// one row group is faster on one thread).
const ROWS_PER_THREAD: usize = 64 * 1024;

impl ExecutionPlan for ScanExec {
    fn describe(&self) -> String {
        let cols: Vec<&str> = self
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        let mut s = format!("Scan {} [{}]", self.table.name(), cols.join(", "));
        if !self.filter_text.is_empty() {
            s += &format!(" filters=[{}]", self.filter_text.join(" AND "));
        }
        let filter_only: Vec<&str> = self.read_schema.fields()[cols.len()..]
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        if !filter_only.is_empty() {
            s += &format!(" filter_columns=[{}]", filter_only.join(", "));
        }
        if let Some((skipped, groups)) = self.row_groups_skipped() {
            if skipped > 0 {
                s += &format!(" row_groups_skipped={skipped}/{groups}");
            }
        }
        s
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn output_partitions(&self) -> usize {
        self.partitions
    }

    fn useful_partitions(&self) -> usize {
        match self.morsels() {
            Ok(m) => {
                let rows: usize = m.slices.iter().map(|s| s.2).sum();
                rows.div_ceil(ROWS_PER_THREAD).clamp(1, self.partitions)
            }
            // The error comes again from `execute`.
            Err(_) => self.partitions,
        }
    }

    fn execute(&self, _partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let cancel = ctx.cancel.clone();
        let morsels = self.morsels()?;
        let width = self.projection.len();
        let mut filters = AdaptiveFilters::new(self.filters.clone());
        let read_schema = self.read_schema.clone();
        let schema = self.schema.clone();
        let stream = std::iter::from_fn(move || loop {
            if let Err(e) = cancel.check() {
                return Some(Err(e));
            }
            let i = morsels.next.fetch_add(1, Ordering::Relaxed);
            let &(b, off, len) = morsels.slices.get(i)?;
            let src = &morsels.batches[b];
            // The batches hold exactly the projected columns, in order.
            let columns = (0..width).map(|c| src.column(c).slice(off, len)).collect();
            let batch = match RecordBatch::try_new_with_options(
                read_schema.clone(),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(len)),
            ) {
                Ok(b) => b,
                Err(e) => return Some(Err(e.into())),
            };
            let hints = morsels.hints(b, off);
            match filters.apply(batch, hints, &schema) {
                Ok(b) if b.num_rows() == 0 => continue,
                other => {
                    SCAN_POSITION.with(|p| {
                        p.set(Some(ScanPosition {
                            scan: Arc::as_ptr(&morsels) as usize,
                            morsel: i as u64,
                        }))
                    });
                    return Some(other);
                }
            }
        });
        Ok(metered(Box::new(stream), &self.metrics))
    }

    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Layout;
    use arrow_array::{cast::AsArray, types::Int64Type, Array, ArrayRef, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use quiver_plan::{ColumnId, Expr, ZoneMaps};

    /// A table of row groups with zone maps computed from the data (strings
    /// in byte order, as storage keeps them).
    #[derive(Debug)]
    struct ZonedTable {
        schema: SchemaRef,
        batches: Arc<Vec<RecordBatch>>,
        zones: Option<Arc<ZoneMaps>>,
    }

    impl TableSource for ZonedTable {
        fn name(&self) -> &str {
            "t"
        }
        fn schema(&self) -> SchemaRef {
            self.schema.clone()
        }
        fn row_count(&self) -> usize {
            self.batches.iter().map(|b| b.num_rows()).sum()
        }
        fn distinct_estimate(&self, _: usize) -> Option<usize> {
            None
        }
        fn batches(&self) -> Result<Arc<Vec<RecordBatch>>> {
            Ok(self.batches.clone())
        }
        fn scan_batches(&self, columns: &[usize]) -> Result<quiver_plan::ScanBatches> {
            let batches = self
                .batches
                .iter()
                .map(|b| b.project(columns))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            Ok(quiver_plan::ScanBatches {
                batches: Arc::new(batches),
                zone_maps: self.zones.clone(),
                ends_in_space: Vec::new(),
            })
        }
    }

    fn zone(a: &ArrayRef) -> ColumnZone {
        let nulls = a.null_count();
        let (min, max) = match a.data_type() {
            DataType::Int64 => {
                let v: Vec<i64> = a.as_primitive::<Int64Type>().iter().flatten().collect();
                (
                    v.iter().min().map(|x| ScalarValue::Int64(*x)),
                    v.iter().max().map(|x| ScalarValue::Int64(*x)),
                )
            }
            _ => {
                let v: Vec<&str> = a.as_string::<i32>().iter().flatten().collect();
                (
                    v.iter().min().map(|x| ScalarValue::Utf8(x.to_string())),
                    v.iter().max().map(|x| ScalarValue::Utf8(x.to_string())),
                )
            }
        };
        ColumnZone {
            rows: a.len(),
            null_count: nulls,
            min,
            max,
            max_is_prefix: false,
            collated: None,
            shape: None,
        }
    }

    fn table(with_zones: bool) -> Arc<ZonedTable> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ]));
        // Row groups of 1000 rows: k ascending (so zones are tight), s in
        // groups "g<n>" with trailing spaces on some rows, and a NULL-only group.
        let batches: Vec<RecordBatch> = (0..8)
            .map(|g| {
                let k: ArrayRef = Arc::new(Int64Array::from_iter(
                    (0..1000).map(|i| (g != 5).then_some(g * 1000 + i)),
                ));
                let s: ArrayRef = Arc::new(StringArray::from_iter((0..1000).map(|i| {
                    Some(if i % 3 == 0 {
                        format!("g{g} ")
                    } else {
                        format!("g{g}")
                    })
                })));
                RecordBatch::try_new(schema.clone(), vec![k, s]).unwrap()
            })
            .collect();
        let zones = with_zones.then(|| {
            Arc::new(ZoneMaps {
                groups: batches
                    .iter()
                    .map(|b| b.columns().iter().map(zone).collect())
                    .collect(),
            })
        });
        Arc::new(ZonedTable {
            schema,
            batches: Arc::new(batches),
            zones,
        })
    }

    /// Rows (sorted) and (row groups skipped, row groups) of a scan.
    type ScanResult = (Vec<(Option<i64>, String)>, Option<(usize, usize)>);

    fn run(t: Arc<ZonedTable>, filter: &Expr) -> ScanResult {
        let mut layout = Layout::default();
        layout.insert(ColumnId(0), 0);
        layout.insert(ColumnId(1), 1);
        let f = PhysicalExpr::compile(filter, &layout).unwrap();
        let schema = t.schema.clone();
        let scan = Arc::new(ScanExec::new(
            t,
            vec![0, 1],
            vec![f],
            vec![],
            schema.clone(),
            schema,
            2,
        ));
        let ctx = Arc::new(ExecContext::new(2, usize::MAX));
        let plan: Arc<dyn ExecutionPlan> = scan.clone();
        let mut rows = Vec::new();
        for b in crate::collect(&plan, &ctx).unwrap() {
            let k = b.column(0).as_primitive::<Int64Type>();
            let s = b.column(1).as_string::<i32>();
            for i in 0..b.num_rows() {
                rows.push((k.is_valid(i).then(|| k.value(i)), s.value(i).to_string()));
            }
        }
        rows.sort();
        (rows, scan.row_groups_skipped())
    }

    fn col(i: u32, t: DataType) -> Box<Expr> {
        Box::new(Expr::Column(ColumnId(i), t))
    }

    fn cmp(op: BinaryOp, i: u32, v: ScalarValue) -> Expr {
        let t = if i == 0 {
            DataType::Int64
        } else {
            DataType::Utf8
        };
        let lit = Box::new(Expr::Literal(v, t.clone()));
        Expr::Binary {
            op,
            left: col(i, t),
            right: lit,
        }
    }

    #[test]
    fn filter_only_columns_are_not_output() {
        let t = table(true);
        // s = 'g3' (PAD SPACE: also 'g3 '): output k, reading s for the
        // filter only; then read s alone and output no column at all.
        let filter = cmp(BinaryOp::Eq, 1, ScalarValue::Utf8("g3".into()));
        for (projection, outputs) in [(vec![0usize, 1], 1usize), (vec![1], 0)] {
            let mut layout = Layout::default();
            for (i, &c) in projection.iter().enumerate() {
                layout.insert(ColumnId(c as u32), i);
            }
            let f = PhysicalExpr::compile(&filter, &layout).unwrap();
            let read = Arc::new(t.schema.project(&projection).unwrap());
            let schema = Arc::new(t.schema.project(&projection[..outputs]).unwrap());
            let scan = Arc::new(ScanExec::new(
                t.clone(),
                projection.clone(),
                vec![f],
                vec![],
                read,
                schema.clone(),
                2,
            ));
            let ctx = Arc::new(ExecContext::new(2, usize::MAX));
            let plan: Arc<dyn ExecutionPlan> = scan.clone();
            let batches = crate::collect(&plan, &ctx).unwrap();
            assert!(batches.iter().all(|b| b.schema() == schema));
            assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 1000);
            if outputs == 1 {
                let mut k: Vec<i64> = batches
                    .iter()
                    .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
                    .collect();
                k.sort();
                assert_eq!(k, (3000..4000).collect::<Vec<i64>>());
            }
            assert!(
                plan.describe().contains("filter_columns=[s]"),
                "{}",
                plan.describe()
            );
        }
    }

    #[test]
    fn zone_maps_skip_row_groups_and_keep_results() {
        use BinaryOp::*;
        let int = ScalarValue::Int64;
        let s = |x: &str| ScalarValue::Utf8(x.to_string());
        let between = Expr::Binary {
            op: And,
            left: Box::new(cmp(GtEq, 0, int(2500))),
            right: Box::new(cmp(LtEq, 0, int(3100))),
        };
        let in_list = Expr::InList {
            negated: false,
            expr: col(1, DataType::Utf8),
            list: vec![
                Expr::Literal(s("g2"), DataType::Utf8),
                Expr::Literal(s("zz"), DataType::Utf8),
            ],
        };
        // (filter, row groups that must be skipped)
        let cases = [
            (cmp(Lt, 0, int(1000)), 7),
            (cmp(LtEq, 0, int(1000)), 6),
            (cmp(Gt, 0, int(6999)), 7),
            (cmp(GtEq, 0, int(6999)), 6),
            (cmp(Eq, 0, int(4321)), 7),
            (cmp(NotEq, 0, int(4321)), 1),
            (between, 6),
            (cmp(Eq, 1, s("g3")), 7),
            // PAD SPACE: 'g3  ' equals 'g3' and 'g3 ' under utf8mb4_bin.
            (cmp(Eq, 1, s("g3  ")), 7),
            (cmp(Lt, 1, s("g3")), 5),
            (cmp(Gt, 1, s("g6 ")), 7),
            (in_list, 7),
        ];
        for (filter, expect_skipped) in cases {
            let (with, skipped) = run(table(true), &filter);
            let (without, none) = run(table(false), &filter);
            assert_eq!(with, without, "{filter}");
            assert_eq!(none, Some((0, 8)), "{filter}");
            assert_eq!(skipped, Some((expect_skipped, 8)), "{filter}");
            assert!(!with.is_empty(), "{filter}");
        }
    }

    #[test]
    fn truncated_string_maxima_only_rule_out_what_the_prefix_proves() {
        let z = ColumnZone {
            rows: 10,
            null_count: 0,
            min: Some(ScalarValue::Utf8("abc".into())),
            max: Some(ScalarValue::Utf8("abd".into())),
            max_is_prefix: true,
            collated: None,
            shape: None,
        };
        let c = Collation::utf8mb4_bin();
        let s = |x: &str| ScalarValue::Utf8(x.to_string());
        // Values may be "abdzzz...": only a constant above the prefix itself
        // rules out `>` and `=`.
        assert!(!compare_ruled_out(&z, BinaryOp::Gt, &s("abdzzzz"), c));
        assert!(!compare_ruled_out(&z, BinaryOp::Eq, &s("abd"), c));
        assert!(compare_ruled_out(&z, BinaryOp::Gt, &s("abe"), c));
        assert!(compare_ruled_out(&z, BinaryOp::Eq, &s("abe"), c));
        assert!(!compare_ruled_out(&z, BinaryOp::NotEq, &s("abd"), c));
        // Not under a collation whose order is not byte order.
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        assert!(!compare_ruled_out(&z, BinaryOp::Gt, &s("abe"), ci));
        assert!(!compare_ruled_out(&z, BinaryOp::Lt, &s("ABC"), ci));
    }

    /// Bounds under a collation (normalized keys, cut to `cut` bytes as
    /// storage cuts them) never rule out a row group holding a row that
    /// passes: every comparison, over groups and constants of characters
    /// that case, accents, trailing spaces and tabs make equal or close.
    #[test]
    fn collated_bounds_rule_out_only_groups_without_a_match() {
        const CHARS: [&str; 9] = ["a", "A", "b", "é", "E", " ", "\t", "ß", "s"];
        let strings: Vec<String> = (0..CHARS.len().pow(3))
            .flat_map(|n| {
                let s3: String = [n % 9, n / 9 % 9, n / 81]
                    .iter()
                    .map(|&i| CHARS[i])
                    .collect();
                [s3[..CHARS[n % 9].len()].to_string(), s3]
            })
            .collect();
        let ops = [
            BinaryOp::Eq,
            BinaryOp::NotEq,
            BinaryOp::Lt,
            BinaryOp::LtEq,
            BinaryOp::Gt,
            BinaryOp::GtEq,
        ];
        let holds = |op: BinaryOp, o: Cmp| match op {
            BinaryOp::Eq => o.is_eq(),
            BinaryOp::NotEq => o.is_ne(),
            BinaryOp::Lt => o.is_lt(),
            BinaryOp::LtEq => o.is_le(),
            BinaryOp::Gt => o.is_gt(),
            _ => o.is_ge(),
        };
        let mut ruled_out = 0;
        for name in [
            "utf8mb4_general_ci",
            "utf8mb4_unicode_ci",
            "latin1_swedish_ci",
        ] {
            let coll = Collation::from_name(name).unwrap();
            for (g, group) in strings.chunks(37).enumerate() {
                let keys: Vec<Vec<u8>> = group
                    .iter()
                    .map(|v| {
                        let mut k = Vec::new();
                        coll.normalized_key(v.as_bytes(), &mut k);
                        k
                    })
                    .collect();
                let cut = [2, 3, 5, 48][g % 4];
                let (min, max) = (keys.iter().min().unwrap(), keys.iter().max().unwrap());
                let z = ColumnZone {
                    rows: group.len(),
                    null_count: 0,
                    min: None,
                    max: None,
                    max_is_prefix: false,
                    collated: Some(quiver_plan::CollatedBounds {
                        collation: coll,
                        min: min[..min.len().min(cut)].to_vec(),
                        max: max[..max.len().min(cut)].to_vec(),
                        max_is_prefix: max.len() > cut,
                    }),
                    shape: None,
                };
                for c in strings.iter().step_by(7) {
                    let cv = ScalarValue::Utf8(c.clone());
                    for op in ops {
                        if compare_ruled_out(&z, op, &cv, coll) {
                            ruled_out += 1;
                            for v in group {
                                let o = coll.compare(v.as_bytes(), c.as_bytes());
                                assert!(
                                    !holds(op, o),
                                    "{name}: {v:?} {op:?} {c:?} in a ruled-out group"
                                );
                            }
                        }
                    }
                    // Another collation's bounds decide nothing.
                    let other = Collation::from_name("utf8mb4_general_nopad_ci").unwrap();
                    assert!(!compare_ruled_out(&z, BinaryOp::Eq, &cv, other));
                }
            }
        }
        assert!(
            ruled_out > 1000,
            "the bounds should rule out many groups: {ruled_out}"
        );
    }

    /// Conjuncts in any learned order keep exactly the rows of their AND;
    /// after a few batches the cheap, selective one runs first.
    #[test]
    fn adaptive_filters_keep_the_conjunction_and_learn_the_order() {
        use arrow_array::BooleanArray;
        use BinaryOp::*;
        let int = ScalarValue::Int64;
        let s = |x: &str| ScalarValue::Utf8(x.to_string());
        let t = table(false);
        let mut layout = Layout::default();
        layout.insert(ColumnId(0), 0);
        layout.insert(ColumnId(1), 1);
        // Given worst first: a string IN-list keeping most rows, then an
        // integer range keeping few.
        let keep_most = Expr::InList {
            negated: true,
            expr: col(1, DataType::Utf8),
            list: vec![
                Expr::Literal(s("g0"), DataType::Utf8),
                Expr::Literal(s("zz"), DataType::Utf8),
            ],
        };
        let keep_few = Expr::Binary {
            op: And,
            left: Box::new(cmp(GtEq, 0, int(2990))),
            right: Box::new(cmp(Lt, 0, int(3020))),
        };
        let conjuncts = [keep_most, keep_few, cmp(NotEq, 0, int(3000))];
        let compiled: Vec<PhysicalExpr> = conjuncts
            .iter()
            .map(|e| PhysicalExpr::compile(e, &layout).unwrap())
            .collect();
        let mut filters = AdaptiveFilters::new(compiled.clone());
        let mut kept = 0;
        for round in 0..3 {
            for b in t.batches.iter() {
                let out = filters.apply(b.clone(), Vec::new(), &b.schema()).unwrap();
                let mut expect = BooleanArray::from(vec![true; b.num_rows()]);
                for f in &compiled {
                    let m = f.evaluate_mask(b).unwrap();
                    expect = BooleanArray::new(expect.values() & m.values(), None);
                }
                let expect = arrow_select::filter::filter_record_batch(b, &expect).unwrap();
                assert_eq!(out, expect, "round {round}");
                kept += out.num_rows();
            }
        }
        assert_eq!(kept, 3 * 29);
        assert_eq!(
            filters.order[0], 1,
            "the range removes the most per unit of time"
        );
    }
}
