//! SIGN(x): -1, 0 or 1 by the sign of x read as DOUBLE (MariaDB's
//! `Item_func_sign` reads `val_real`, so SIGN(1e-300) is 1 and a string
//! is read by its numeric prefix with warning 1292); INT(2).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::Float64Type, Array, Int64Array};
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use crate::expr::cast_array;

pub struct Sign;

pub static SIGN: Sign = Sign;

impl ScalarFunction for Sign {
    fn name(&self) -> &'static str {
        "sign"
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        match &args[0] {
            t if t.is_numeric() || is_string(t) => Ok(vec![DataType::Float64]),
            DataType::Boolean | DataType::Null => Ok(vec![DataType::Float64]),
            other => Err(QuiverError::not_supported(format!("SIGN of {other}"))),
        }
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Int64))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        any_arg_nullable
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 2))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = cast_array(a.arg(0)?, &DataType::Float64)?;
        let x = x.as_primitive::<Float64Type>();
        let v: Vec<i64> = x
            .values()
            .iter()
            .map(|v| {
                if *v > 0.0 {
                    1
                } else if *v < 0.0 {
                    -1
                } else {
                    0
                }
            })
            .collect();
        let out = Arc::new(Int64Array::new(v.into(), x.logical_nulls()));
        a.finish(out, call.data_type)
    }
}
