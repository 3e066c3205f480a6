//! DATEDIFF(a, b): days from date b to date a, times of day ignored;
//! INT(8). Two DATE columns subtract their day numbers directly.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::Date32Type, Array, ArrayRef, Int64Array};
use arrow_schema::DataType;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::{date_arg_type, Dates};
use crate::functions::kernel::Arrays;

pub struct DateDiff;

pub static DATEDIFF: DateDiff = DateDiff;

impl ScalarFunction for DateDiff {
    fn name(&self) -> &'static str {
        "datediff"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter().map(date_arg_type).collect()
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, DataType::Int64));
        }
        Ok(Bound::Call(DataType::Int64))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 8))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let (x, y) = (a.arg(0)?, a.arg(1)?);
        let out: ArrayRef = match (x.data_type(), y.data_type()) {
            (DataType::Date32, DataType::Date32) => {
                let (x, y) = (
                    x.as_primitive::<Date32Type>(),
                    y.as_primitive::<Date32Type>(),
                );
                let v: Vec<i64> = x
                    .values()
                    .iter()
                    .zip(y.values().iter())
                    .map(|(a, b)| *a as i64 - *b as i64)
                    .collect();
                let nulls = arrow_buffer::NullBuffer::union(x.nulls(), y.nulls());
                Arc::new(Int64Array::new(v.into(), nulls))
            }
            _ => {
                let (dx, dy) = (Dates::new(x)?, Dates::new(y)?);
                Arc::new(
                    (0..a.rows)
                        .map(|i| {
                            // Both read (and warned about) as MariaDB does.
                            let p = dx.get(i, false);
                            let q = dy.get(i, false);
                            Some(p?.daynr() - q?.daynr())
                        })
                        .collect::<Int64Array>(),
                )
            }
        };
        a.finish(out, call.data_type)
    }
}
