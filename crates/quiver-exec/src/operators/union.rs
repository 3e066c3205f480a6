//! UNION ALL: the partitions of all inputs side by side.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_common::Result;

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::expr::cast_array;
use crate::ExecContext;

#[derive(Debug)]
pub struct UnionExec {
    inputs: Vec<Arc<dyn ExecutionPlan>>,
    schema: SchemaRef,
    metrics: Arc<Metrics>,
}

impl UnionExec {
    pub fn new(inputs: Vec<Arc<dyn ExecutionPlan>>, schema: SchemaRef) -> Self {
        UnionExec {
            inputs,
            schema,
            metrics: Default::default(),
        }
    }
}

impl ExecutionPlan for UnionExec {
    fn describe(&self) -> String {
        "UnionAll".into()
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        self.inputs.clone()
    }
    fn output_partitions(&self) -> usize {
        self.inputs.iter().map(|i| i.output_partitions()).sum()
    }
    fn execute(&self, mut partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        for input in &self.inputs {
            let n = input.output_partitions();
            if partition < n {
                let schema = self.schema.clone();
                let stream = input.execute(partition, ctx)?.map(move |b| {
                    let b = b?;
                    let cols = b
                        .columns()
                        .iter()
                        .zip(schema.fields())
                        .map(|(c, f)| cast_array(c, f.data_type()))
                        .collect::<Result<Vec<_>>>()?;
                    Ok(RecordBatch::try_new_with_options(
                        schema.clone(),
                        cols,
                        &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
                    )?)
                });
                return Ok(metered(Box::new(stream), &self.metrics));
            }
            partition -= n;
        }
        Ok(Box::new(std::iter::empty()))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
