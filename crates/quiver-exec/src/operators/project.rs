//! Projection: computes the output columns of each batch.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_common::Result;

use super::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::expr::{cast_array, PhysicalExpr};
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
    let cols = exprs
        .iter()
        .zip(schema.fields())
        .map(|(e, f)| {
            let a = e.evaluate_array(b)?;
            if a.data_type() != f.data_type() {
                cast_array(&a, f.data_type())
            } else {
                Ok(a)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        cols,
        &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
    )?)
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
