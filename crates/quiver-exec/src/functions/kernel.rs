//! What kernels share: arguments as arrays (one row when every argument is
//! a constant, so a constant call is computed once per batch), the result
//! back as a scalar in that case.

use arrow_array::ArrayRef;
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};

/// The arguments as arrays: of the batch's rows, or of one row when all
/// are constants (then `scalar` is set).
pub(crate) struct Arrays {
    pub arrays: Vec<ArrayRef>,
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
        Ok(Arrays { arrays, scalar })
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
