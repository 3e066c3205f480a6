//! What kernels share: arguments as arrays (one row when every argument is
//! a constant, so a constant call is computed once per batch), the result
//! back as a scalar in that case, and the loop of DOUBLE functions with
//! MariaDB's out-of-domain outcomes.

use std::sync::Arc;

use arrow_array::{cast::AsArray, types::Float64Type, Array, ArrayRef, Float64Array};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};

use crate::expr::cast_array;

/// The arguments as arrays: of the batch's rows, or of one row when all
/// are constants (then `scalar` is set).
pub(crate) struct Arrays {
    pub arrays: Vec<ArrayRef>,
    pub rows: usize,
    pub scalar: bool,
}

impl Arrays {
    pub fn new(args: &[ColumnarValue], rows: usize) -> Result<Arrays> {
        let scalar = args.iter().all(|a| matches!(a, ColumnarValue::Scalar(..)));
        let rows = if scalar { 1 } else { rows };
        let arrays = args
            .iter()
            .map(|a| a.clone().into_array(rows))
            .collect::<Result<_>>()?;
        Ok(Arrays {
            arrays,
            rows,
            scalar,
        })
    }

    /// Argument `i` (the binder checked the count).
    pub fn arg(&self, i: usize) -> Result<&ArrayRef> {
        self.arrays
            .get(i)
            .ok_or_else(|| QuiverError::internal(format!("missing argument {i}")))
    }

    /// The result `out`, of type `t`: a scalar for constant arguments.
    pub fn finish(&self, out: ArrayRef, t: &DataType) -> Result<ColumnarValue> {
        if self.scalar {
            Ok(ColumnarValue::Scalar(
                ScalarValue::from_array(&out, 0)?,
                t.clone(),
            ))
        } else {
            Ok(ColumnarValue::Array(out))
        }
    }
}

/// What a DOUBLE function gives for one value, as MariaDB's `val_real`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Real {
    Value(f64),
    /// NULL, silently (SQRT(-1), ACOS(2)).
    Null,
    /// NULL with warning 1365 "Division by 0" (LN(0), LOG(-1)).
    NullDivision,
}

impl Real {
    /// A finite result, else 1690 (MariaDB's `check_float_overflow`:
    /// EXP(710), POW(0, -1), a NaN from POW(-8, 1/3)).
    pub fn finite(v: f64) -> Result<Real> {
        if v.is_finite() {
            Ok(Real::Value(v))
        } else {
            Err(QuiverError::out_of_range_unnamed("DOUBLE"))
        }
    }
}

/// `f` over the rows of DOUBLE arguments `args` (None for NULL: the
/// function decides, as MariaDB's reads its arguments in order).
pub(crate) fn real_rows(
    args: &Arrays,
    f: impl Fn(&[Option<f64>]) -> Result<Real>,
) -> Result<ArrayRef> {
    let cols: Vec<ArrayRef> = args
        .arrays
        .iter()
        .map(|a| cast_array(a, &DataType::Float64))
        .collect::<Result<_>>()?;
    let cols: Vec<&Float64Array> = cols
        .iter()
        .map(|c| c.as_primitive::<Float64Type>())
        .collect();
    let mut values = Vec::with_capacity(args.rows);
    let mut valid = Vec::with_capacity(args.rows);
    let mut divisions = 0u64;
    let mut row = vec![None; cols.len()];
    for i in 0..args.rows {
        for (x, c) in row.iter_mut().zip(&cols) {
            *x = c.is_valid(i).then(|| c.value(i));
        }
        let (v, ok) = match f(&row)? {
            Real::Value(v) => (v, true),
            Real::Null => (0.0, false),
            Real::NullDivision => {
                divisions += 1;
                (0.0, false)
            }
        };
        // MariaDB prints -0 as 0 (SQRT(-0e0)).
        values.push(if v == 0.0 { 0.0 } else { v });
        valid.push(ok);
    }
    if divisions > 0 {
        crate::warnings::division_by_zero(divisions);
    }
    let nulls = NullBuffer::from(valid);
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    Ok(Arc::new(Float64Array::new(values.into(), nulls)))
}
