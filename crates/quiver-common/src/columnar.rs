//! The value of an expression over a batch ([`ColumnarValue`]): shared by
//! the executor's expressions and the kernels of the function registry
//! (`quiver_plan::function`), which the binder's crate sees too.

use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use crate::scalar::scalar_to_array;
use crate::{Result, ScalarValue};

/// A value produced by an expression: a whole column, or one value for all rows.
#[derive(Debug, Clone)]
pub enum ColumnarValue {
    Array(ArrayRef),
    Scalar(ScalarValue, DataType),
}

impl ColumnarValue {
    pub fn into_array(self, rows: usize) -> Result<ArrayRef> {
        match self {
            ColumnarValue::Array(a) => Ok(a),
            ColumnarValue::Scalar(v, t) => scalar_to_array(&v, &t, rows),
        }
    }

    pub fn data_type(&self) -> DataType {
        match self {
            ColumnarValue::Array(a) => a.data_type().clone(),
            ColumnarValue::Scalar(_, t) => t.clone(),
        }
    }
}
