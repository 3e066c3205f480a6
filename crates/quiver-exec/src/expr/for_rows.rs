//! An evaluation over the whole batch whose warnings are those of only the
//! rows MySQL evaluates it on (CASE branches, COALESCE arguments, a scan's
//! filters after the first).

use arrow_array::{BooleanArray, RecordBatch};
use quiver_common::Result;

/// `eval` of the whole batch, raising the warnings MySQL would evaluating
/// it only on the rows `rows()` gives (None: all): when some were raised and
/// not every row is there, it runs again on just those rows for their
/// warnings (rare: nothing more is done when nothing went wrong).
pub(crate) fn evaluate_for<T>(
    batch: &RecordBatch,
    rows: impl FnOnce() -> Result<Option<BooleanArray>>,
    eval: impl Fn(&RecordBatch) -> Result<T>,
) -> Result<T> {
    let mark = crate::warnings::mark();
    let out = eval(batch)?;
    if crate::warnings::raised_since(mark) {
        if let Some(rows) = rows()? {
            if rows.true_count() < batch.num_rows() {
                crate::warnings::rollback(mark);
                let only = arrow_select::filter::filter_record_batch(batch, &rows)?;
                // Only its warnings are wanted; the rows' values are `out`'s.
                let _ = eval(&only);
            }
        }
    }
    Ok(out)
}
