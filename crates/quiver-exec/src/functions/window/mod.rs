//! Window functions (`quiver_plan::WindowFunction`): ranks and
//! distributions (`ranking.rs`), rows at an offset (`offset.rs`) and values
//! of the frame (`value.rs`). Each evaluates a run of whole partitions in
//! window order; `take` gathers a value function's rows.

pub mod offset;
pub mod ranking;
pub mod value;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, UInt32Array};
use arrow_buffer::NullBuffer;
use quiver_common::Result;

/// `values` at `at` (NULL where `at` is None).
pub(crate) fn gather(values: &ArrayRef, at: Vec<Option<u32>>) -> Result<ArrayRef> {
    let valid: Vec<bool> = at.iter().map(Option::is_some).collect();
    let idx: Vec<u32> = at.into_iter().map(|i| i.unwrap_or(0)).collect();
    let idx = UInt32Array::new(idx.into(), Some(NullBuffer::from(valid)));
    Ok(arrow_select::take::take(values.as_ref(), &idx, None)?)
}

/// Argument `i` as a BIGINT per row (the binder converted it), None for
/// NULL; `default` when the call has no such argument.
pub(crate) fn int_arg(args: &[ArrayRef], i: usize, default: i64, n: usize) -> Vec<Option<i64>> {
    match args.get(i) {
        None => vec![Some(default); n],
        Some(a) => match a.as_any().downcast_ref::<Int64Array>() {
            Some(a) => a.iter().collect(),
            None => vec![None; n],
        },
    }
}

pub(crate) fn int64(values: Vec<i64>) -> ArrayRef {
    Arc::new(Int64Array::from(values))
}
