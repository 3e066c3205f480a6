//! Table scan: morsel-driven. All partitions claim fixed-size slices of the
//! table from one shared cursor, so a slow partition never holds the others
//! back. Pushed-down filters run here, cheapest first, and the batch is
//! compacted as soon as a filter has removed most rows.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_common::Result;
use quiver_plan::TableSource;

use super::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::context::MORSEL_ROWS;
use crate::expr::PhysicalExpr;
use crate::ExecContext;

#[derive(Debug)]
pub struct ScanExec {
    table: Arc<dyn TableSource>,
    /// Table column indices read, in output order.
    projection: Vec<usize>,
    filters: Vec<PhysicalExpr>,
    filter_text: Vec<String>,
    schema: SchemaRef,
    partitions: usize,
    morsels: OnceLock<Result<Arc<Morsels>>>,
    metrics: Arc<Metrics>,
}

#[derive(Debug)]
struct Morsels {
    batches: Arc<Vec<RecordBatch>>,
    /// (batch index, offset, length)
    slices: Vec<(usize, usize, usize)>,
    next: AtomicUsize,
}

impl ScanExec {
    pub fn new(
        table: Arc<dyn TableSource>,
        projection: Vec<usize>,
        filters: Vec<PhysicalExpr>,
        filter_text: Vec<String>,
        schema: SchemaRef,
        partitions: usize,
    ) -> Self {
        ScanExec {
            table,
            projection,
            filters,
            filter_text,
            schema,
            partitions,
            morsels: OnceLock::new(),
            metrics: Default::default(),
        }
    }

    fn morsels(&self) -> Result<Arc<Morsels>> {
        self.morsels
            .get_or_init(|| {
                let batches = self.table.batches()?;
                let mut slices = Vec::new();
                for (i, b) in batches.iter().enumerate() {
                    let mut off = 0;
                    while off < b.num_rows() {
                        let len = MORSEL_ROWS.min(b.num_rows() - off);
                        slices.push((i, off, len));
                        off += len;
                    }
                }
                Ok(Arc::new(Morsels {
                    batches,
                    slices,
                    next: AtomicUsize::new(0),
                }))
            })
            .clone()
    }
}

fn apply_filters(mut batch: RecordBatch, filters: &[PhysicalExpr]) -> Result<RecordBatch> {
    let mut pending: Option<arrow_array::BooleanArray> = None;
    for f in filters {
        let mask = f.evaluate_mask(&batch)?;
        let mask = match pending.take() {
            Some(p) => arrow_array::BooleanArray::new(p.values() & mask.values(), None),
            None => mask,
        };
        let kept = mask.true_count();
        if kept == 0 {
            return Ok(batch.slice(0, 0));
        }
        // Compact early when most rows are gone: later filters then run on less.
        if kept * 4 < batch.num_rows() {
            batch = arrow_select::filter::filter_record_batch(&batch, &mask)?;
        } else {
            pending = Some(mask);
        }
    }
    match pending {
        Some(m) if m.true_count() < batch.num_rows() => {
            Ok(arrow_select::filter::filter_record_batch(&batch, &m)?)
        }
        _ => Ok(batch),
    }
}

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

    fn execute(&self, _partition: usize, _ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let morsels = self.morsels()?;
        let projection = self.projection.clone();
        let filters = self.filters.clone();
        let schema = self.schema.clone();
        let stream = std::iter::from_fn(move || loop {
            let i = morsels.next.fetch_add(1, Ordering::Relaxed);
            let &(b, off, len) = morsels.slices.get(i)?;
            let src = &morsels.batches[b];
            let columns = projection
                .iter()
                .map(|c| src.column(*c).slice(off, len))
                .collect();
            let batch = match RecordBatch::try_new_with_options(
                schema.clone(),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(len)),
            ) {
                Ok(b) => b,
                Err(e) => return Some(Err(e.into())),
            };
            match apply_filters(batch, &filters) {
                Ok(b) if b.num_rows() == 0 => continue,
                other => return Some(other),
            }
        });
        Ok(metered(Box::new(stream), &self.metrics))
    }

    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
