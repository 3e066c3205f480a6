//! Filter: keeps the rows where the predicate is true (not NULL).

use std::sync::Arc;

use arrow_schema::SchemaRef;
use quiver_common::Result;

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::expr::PhysicalExpr;
use crate::ExecContext;

#[derive(Debug)]
pub struct FilterExec {
    input: Arc<dyn ExecutionPlan>,
    predicate: PhysicalExpr,
    text: String,
    metrics: Arc<Metrics>,
}

impl FilterExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, predicate: PhysicalExpr, text: String) -> Self {
        FilterExec {
            input,
            predicate,
            text,
            metrics: Default::default(),
        }
    }
}

impl ExecutionPlan for FilterExec {
    fn describe(&self) -> String {
        format!("Filter {}", self.text)
    }
    fn schema(&self) -> SchemaRef {
        self.input.schema()
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
        let predicate = self.predicate.clone();
        let stream = input.filter_map(move |b| {
            let run = || -> Result<_> {
                let b = b?;
                let mask = predicate.evaluate_mask(&b)?;
                Ok(arrow_select::filter::filter_record_batch(&b, &mask)?)
            };
            match run() {
                Ok(b) if b.num_rows() == 0 => None,
                other => Some(other),
            }
        });
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
