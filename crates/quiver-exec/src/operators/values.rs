//! Literal rows (VALUES, and the one empty row of a SELECT without FROM).

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};
use quiver_common::Result;

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::expr::{cast_array, PhysicalExpr};
use crate::ExecContext;

#[derive(Debug)]
pub struct ValuesExec {
    rows: Vec<Vec<PhysicalExpr>>,
    schema: SchemaRef,
    metrics: Arc<Metrics>,
}

impl ValuesExec {
    pub fn new(rows: Vec<Vec<PhysicalExpr>>, schema: SchemaRef) -> Self {
        ValuesExec {
            rows,
            schema,
            metrics: Default::default(),
        }
    }

    fn build(&self) -> Result<RecordBatch> {
        let one = RecordBatch::try_new_with_options(
            Arc::new(Schema::empty()),
            vec![],
            &RecordBatchOptions::new().with_row_count(Some(1)),
        )?;
        let mut columns = Vec::with_capacity(self.schema.fields().len());
        for (c, field) in self.schema.fields().iter().enumerate() {
            let parts = self
                .rows
                .iter()
                .map(|r| cast_array(&r[c].evaluate_array(&one)?, field.data_type()))
                .collect::<Result<Vec<_>>>()?;
            let refs: Vec<&dyn arrow_array::Array> = parts.iter().map(|a| a.as_ref()).collect();
            columns.push(if refs.is_empty() {
                arrow_array::new_empty_array(field.data_type())
            } else {
                arrow_select::concat::concat(&refs)?
            });
        }
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(self.rows.len())),
        )?)
    }
}

impl ExecutionPlan for ValuesExec {
    fn describe(&self) -> String {
        format!("Values rows={}", self.rows.len())
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, _ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let b = self.build();
        Ok(metered(Box::new(std::iter::once(b)), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
