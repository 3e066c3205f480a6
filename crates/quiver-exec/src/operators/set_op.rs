//! EXCEPT / INTERSECT over counted rows: the input (an aggregate grouping
//! both sides' rows, under their collations, NULLs as one value) has each
//! distinct row once with its count on the left and on the right; this
//! keeps a row as many times as the operator says, without the counts.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, Int64Array, RecordBatch, UInt32Array};
use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};
use quiver_plan::SetOpKind;

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::ExecContext;

#[derive(Debug)]
pub struct SetOpExec {
    input: Arc<dyn ExecutionPlan>,
    kind: SetOpKind,
    schema: SchemaRef,
    metrics: Arc<Metrics>,
}

impl SetOpExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, kind: SetOpKind, schema: SchemaRef) -> Self {
        SetOpExec {
            input,
            kind,
            schema,
            metrics: Default::default(),
        }
    }
}

impl ExecutionPlan for SetOpExec {
    fn describe(&self) -> String {
        self.kind.to_string()
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
        let (kind, schema) = (self.kind, self.schema.clone());
        let stream = input.filter_map(move |b| match b.and_then(|b| keep(&b, kind, &schema)) {
            Ok(b) if b.num_rows() == 0 => None,
            other => Some(other),
        });
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// The rows of `batch` (columns, left count, right count) the operator keeps.
fn keep(batch: &RecordBatch, kind: SetOpKind, schema: &SchemaRef) -> Result<RecordBatch> {
    let width = schema.fields().len();
    let count = |i: usize| {
        batch
            .column(i)
            .as_any()
            .downcast_ref::<Int64Array>()
            .ok_or_else(|| QuiverError::internal("set operation counts are not BIGINT"))
    };
    let (left, right) = (count(width)?, count(width + 1)?);
    let columns: Vec<ArrayRef> = batch.columns()[..width].to_vec();
    let copies = |i: usize| kind.copies(left.value(i) as u64, right.value(i) as u64);
    let columns = match kind {
        SetOpKind::Except { all: false } | SetOpKind::Intersect { all: false } => {
            let mask: BooleanArray = (0..batch.num_rows()).map(|i| Some(copies(i) > 0)).collect();
            columns
                .iter()
                .map(|c| arrow_select::filter::filter(c, &mask))
                .collect::<std::result::Result<Vec<_>, _>>()?
        }
        _ => {
            // Each kept row's index, as many times as it is kept.
            let mut indices = Vec::new();
            for i in 0..batch.num_rows() {
                let n = copies(i);
                if indices.len() as u64 + n > u32::MAX as u64 {
                    return Err(QuiverError::internal(
                        "too many rows in one batch of EXCEPT ALL / INTERSECT ALL",
                    ));
                }
                indices.extend(std::iter::repeat_n(i as u32, n as usize));
            }
            let indices = UInt32Array::from(indices);
            columns
                .iter()
                .map(|c| arrow_select::take::take(c.as_ref(), &indices, None))
                .collect::<std::result::Result<Vec<_>, _>>()?
        }
    };
    let rows = columns.first().map_or_else(
        || (0..batch.num_rows()).map(copies).sum::<u64>() as usize,
        |c| c.len(),
    );
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )?)
}
