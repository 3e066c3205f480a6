//! A scan's filters, evaluated one after another on the rows the earlier
//! ones kept, in an order learned from how selective and costly each is.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_collation::RowHints;
use quiver_common::Result;

use crate::expr::PhysicalExpr;

/// The scan's conjuncts, run in the order that removes rows at the least
/// cost, as learned while the scan runs (each partition for itself): a
/// conjunct's rank is its time per row over the share of rows it removes,
/// and the lowest rank goes first. A cheap, selective date range then runs
/// before a string IN-list (TPC-H Q12), which sees only the rows left.
pub(super) struct AdaptiveFilters {
    filters: Vec<PhysicalExpr>,
    pub(super) order: Vec<usize>,
    stats: Vec<FilterStats>,
}

#[derive(Default, Clone, Copy)]
pub(super) struct FilterStats {
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
    pub(super) fn new(filters: Vec<PhysicalExpr>) -> Self {
        AdaptiveFilters {
            order: (0..filters.len()).collect(),
            stats: vec![FilterStats::default(); filters.len()],
            filters,
        }
    }

    /// Filters `batch`, of whose text columns storage knows what `hints`
    /// say (empty when nothing), and returns its rows that pass with the
    /// columns of `output` (the first of `batch`'s).
    pub(super) fn apply(
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
