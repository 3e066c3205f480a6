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

mod adaptive_filters;
mod morsels;
mod zone_maps;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_common::Result;
use quiver_plan::TableSource;

use crate::context::{ScanPosition, MORSEL_ROWS};
use crate::expr::PhysicalExpr;
use crate::operators::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::ExecContext;

use adaptive_filters::AdaptiveFilters;
use morsels::Morsels;
use zone_maps::{group_ruled_out, zone_predicates};

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
        let position = ctx.scan_position.clone();
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
                    if let Some(slot) = &position {
                        slot.set(ScanPosition {
                            scan: Arc::as_ptr(&morsels) as usize,
                            morsel: i as u64,
                        });
                    }
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
mod tests;
