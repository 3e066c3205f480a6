//! Window functions (`quiver_plan::WindowFunction`): ranks and
//! distributions (`ranking.rs`), rows at an offset (`offset.rs`) and values
//! of the frame (`value.rs`). Each evaluates a run of whole partitions in
//! window order; `take` gathers a value function's rows.

/// The three methods of a function giving MariaDB's BIGINT(21) NOT NULL
/// (counts and ranks): written once for ROW_NUMBER, RANK and NTILE.
macro_rules! bigint_not_null {
    () => {
        fn return_type(&self, _: &[DataType]) -> DataType {
            DataType::Int64
        }
        fn declared_type(&self) -> Option<&'static str> {
            Some("bigint(21)")
        }
        fn nullable(&self) -> bool {
            false
        }
    };
}

pub mod offset;
pub mod percentile;
pub mod ranking;
pub mod value;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, UInt32Array};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use quiver_common::{QuiverError, Result};
use quiver_plan::window::WindowRows;

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

/// Types of a value function's (value, BIGINT n) arguments, shared by
/// LAG/LEAD and FIRST/LAST/NTH_VALUE: the second becomes a BIGINT.
pub(crate) fn value_then_int(args: &[DataType]) -> Vec<DataType> {
    let mut to = args.to_vec();
    if let Some(n) = to.get_mut(1) {
        *n = DataType::Int64;
    }
    to
}

/// The first argument (the value), which `name` cannot lack.
pub(crate) fn value_arg<'a>(rows: &WindowRows<'a>, name: &str) -> Result<&'a ArrayRef> {
    rows.args
        .first()
        .ok_or_else(|| QuiverError::internal(format!("{name} without argument")))
}

#[cfg(test)]
pub(crate) mod test_rows {
    //! Sorted (partition, order key) rows and their breaks, for the property
    //! tests of ranking.rs and operators/window/kernels.rs.
    use proptest::prelude::*;
    use quiver_plan::window::{NEW_PARTITION, NEW_PEERS, SAME};

    /// Breaks from (partition, order key) pairs already sorted.
    pub(crate) fn breaks_of(rows: &[(u8, u8)]) -> Vec<u8> {
        (0..rows.len())
            .map(|i| {
                if i == 0 || rows[i].0 != rows[i - 1].0 {
                    NEW_PARTITION
                } else if rows[i].1 != rows[i - 1].1 {
                    NEW_PEERS
                } else {
                    SAME
                }
            })
            .collect()
    }

    pub(crate) fn sorted_rows() -> impl Strategy<Value = Vec<(u8, u8)>> {
        proptest::collection::vec((0u8..4, 0u8..5), 0..60).prop_map(|mut v| {
            v.sort();
            v
        })
    }
}
