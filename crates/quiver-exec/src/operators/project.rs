//! Projection: computes the output columns of each batch.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_common::Result;

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::expr::{cast_array, PhysicalExpr};
use crate::warnings;
use crate::ExecContext;

#[derive(Debug)]
pub struct ProjectExec {
    input: Arc<dyn ExecutionPlan>,
    exprs: Vec<PhysicalExpr>,
    text: Vec<String>,
    schema: SchemaRef,
    metrics: Arc<Metrics>,
}

impl ProjectExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        exprs: Vec<PhysicalExpr>,
        text: Vec<String>,
        schema: SchemaRef,
    ) -> Self {
        ProjectExec {
            input,
            exprs,
            text,
            schema,
            metrics: Default::default(),
        }
    }
}

pub(crate) fn project_batch(
    b: &RecordBatch,
    exprs: &[PhysicalExpr],
    schema: &SchemaRef,
) -> Result<RecordBatch> {
    let start = warnings::mark();
    let mut raising = 0;
    let cols = exprs
        .iter()
        .zip(schema.fields())
        .map(|(e, f)| {
            let m = warnings::mark();
            let a = e.evaluate_array(b)?;
            raising += usize::from(warnings::raised_since(m));
            if a.data_type() != f.data_type() {
                cast_array(&a, f.data_type())
            } else {
                Ok(a)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    if raising > 1 {
        // MySQL computes a row's items before the next row's: their
        // warnings come row by row (rare: only when two items raised).
        warnings::reorder_since(start, || raise_by_rows(b, 0..b.num_rows(), exprs));
    }
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        cols,
        &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
    )?)
}

/// Raises the warnings of `exprs` over the rows `rows` of `b` row by row:
/// halves that raise nothing are passed over whole, so only the rows that
/// raise are evaluated alone; stops once the list keeps no more.
fn raise_by_rows(b: &RecordBatch, rows: std::ops::Range<usize>, exprs: &[PhysicalExpr]) {
    if rows.is_empty() || warnings::full() {
        return;
    }
    let slice = b.slice(rows.start, rows.len());
    let m = warnings::mark();
    for e in exprs {
        let _ = e.evaluate(&slice);
    }
    if rows.len() == 1 || !warnings::raised_since(m) {
        return;
    }
    warnings::rollback(m);
    let mid = rows.start + rows.len() / 2;
    raise_by_rows(b, rows.start..mid, exprs);
    raise_by_rows(b, mid..rows.end, exprs);
}

impl ExecutionPlan for ProjectExec {
    fn describe(&self) -> String {
        format!("Project {}", self.text.join(", "))
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.input.clone()]
    }
    fn output_partitions(&self) -> usize {
        self.input.output_partitions()
    }
    fn useful_partitions(&self) -> usize {
        self.input.useful_partitions()
    }
    fn execute(&self, partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let input = self.input.execute(partition, ctx)?;
        let exprs = self.exprs.clone();
        let schema = self.schema.clone();
        let stream = input.map(move |b| project_batch(&b?, &exprs, &schema));
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
