//! JSON_TABLE: each input row followed by the rows its document makes
//! (`functions::json::table`), a batch of output per input batch.

use std::sync::Arc;

use arrow_array::{Array, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::SchemaRef;
use quiver_common::Result;

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::expr::PhysicalExpr;
use crate::functions::json::table::{JsonTableRows, JsonTableSpec};
use crate::ExecContext;

#[derive(Debug)]
pub struct JsonTableExec {
    input: Arc<dyn ExecutionPlan>,
    doc: PhysicalExpr,
    spec: Arc<JsonTableSpec>,
    text: String,
    schema: SchemaRef,
    metrics: Arc<Metrics>,
}

impl JsonTableExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        doc: PhysicalExpr,
        spec: JsonTableSpec,
        text: String,
        schema: SchemaRef,
    ) -> Self {
        JsonTableExec {
            input,
            doc,
            spec: Arc::new(spec),
            text,
            schema,
            metrics: Default::default(),
        }
    }
}

fn rows_of(
    b: &RecordBatch,
    doc: &PhysicalExpr,
    spec: &JsonTableSpec,
    schema: &SchemaRef,
) -> Result<RecordBatch> {
    let docs = doc.evaluate_array(b)?;
    let docs = crate::functions::string::bytes_of(&docs)?;
    let mut rows = JsonTableRows::new(spec);
    for i in 0..docs.len() {
        if docs.is_valid(i) {
            rows.add_document(docs.value(i), i as u32)?;
        }
    }
    let take = UInt32Array::from(std::mem::take(&mut rows.input_rows));
    let n = take.len();
    let mut columns = Vec::with_capacity(schema.fields().len());
    for c in b.columns() {
        columns.push(arrow_select::take::take(c.as_ref(), &take, None)?);
    }
    columns.extend(rows.finish()?);
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(n)),
    )?)
}

impl ExecutionPlan for JsonTableExec {
    fn describe(&self) -> String {
        format!("JsonTable {}", self.text)
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
        let doc = self.doc.clone();
        let spec = self.spec.clone();
        let schema = self.schema.clone();
        let stream =
            input.filter_map(
                move |b| match b.and_then(|b| rows_of(&b, &doc, &spec, &schema)) {
                    Ok(b) if b.num_rows() == 0 => None,
                    other => Some(other),
                },
            );
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
