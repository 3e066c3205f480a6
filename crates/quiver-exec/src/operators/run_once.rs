//! The output of a pipeline breaker with one output partition (sort, window,
//! aggregate): computed once, by the first `execute`, and replayed to every
//! call after it.

use std::sync::{Arc, OnceLock};

use arrow_array::RecordBatch;
use quiver_common::Result;

use super::exec_plan::{metered, timed, BatchStream, Metrics};

#[derive(Debug, Default)]
pub(crate) struct RunOnce {
    output: OnceLock<Result<Arc<Vec<RecordBatch>>>>,
}

impl RunOnce {
    /// The batches `run` makes (run on the first call only, its time counted
    /// in `metrics`), as a stream counted in `metrics`; with `skip_empty`,
    /// batches of no rows are left out.
    pub(crate) fn replay(
        &self,
        metrics: &Arc<Metrics>,
        skip_empty: bool,
        run: impl FnOnce() -> Result<Arc<Vec<RecordBatch>>>,
    ) -> Result<BatchStream> {
        let out = self.output.get_or_init(|| timed(metrics, run)).clone()?;
        let batches: Vec<Result<RecordBatch>> = out
            .iter()
            .filter(|b| !skip_empty || b.num_rows() > 0)
            .cloned()
            .map(Ok)
            .collect();
        Ok(metered(Box::new(batches.into_iter()), metrics))
    }
}
