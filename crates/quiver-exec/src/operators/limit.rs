//! LIMIT / OFFSET over the input's partitions read in order; stops pulling
//! once enough rows are out.

use std::sync::Arc;

use arrow_schema::SchemaRef;
use quiver_common::Result;

use super::exec_plan::{metered, BatchStream, ExecutionPlan, Metrics};
use crate::ExecContext;

#[derive(Debug)]
pub struct LimitExec {
    input: Arc<dyn ExecutionPlan>,
    skip: usize,
    fetch: Option<usize>,
    metrics: Arc<Metrics>,
}

impl LimitExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, skip: usize, fetch: Option<usize>) -> Self {
        LimitExec {
            input,
            skip,
            fetch,
            metrics: Default::default(),
        }
    }
}

impl ExecutionPlan for LimitExec {
    fn describe(&self) -> String {
        format!(
            "Limit skip={} fetch={}",
            self.skip,
            self.fetch
                .map(|f| f.to_string())
                .unwrap_or_else(|| "all".into())
        )
    }
    fn schema(&self) -> SchemaRef {
        self.input.schema()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.input.clone()]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let mut skip = self.skip;
        let mut left = self.fetch.unwrap_or(usize::MAX);
        let input = self.input.clone();
        let ctx = ctx.clone();
        let mut part = 0;
        let mut current: Option<BatchStream> = None;
        let stream = std::iter::from_fn(move || loop {
            if left == 0 {
                return None;
            }
            if current.is_none() {
                if part >= input.output_partitions() {
                    return None;
                }
                current = match input.execute(part, &ctx) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        left = 0;
                        return Some(Err(e));
                    }
                };
                part += 1;
            }
            match current.as_mut().and_then(|s| s.next()) {
                None => current = None,
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(b)) => {
                    let n = b.num_rows();
                    if skip >= n {
                        skip -= n;
                        continue;
                    }
                    let take = (n - skip).min(left);
                    let out = b.slice(skip, take);
                    skip = 0;
                    left -= take;
                    return Some(Ok(out));
                }
            }
        });
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
