//! FIRST_VALUE, LAST_VALUE and NTH_VALUE: the argument's value at the
//! first, last or n-th row of the current row's frame (NULLs are values:
//! not skipped), NULL when the frame is empty or shorter than n. As in
//! MariaDB, n may vary by row; a non-positive n gives NULL and a NULL n
//! counts as 1.

use arrow_array::ArrayRef;
use arrow_schema::DataType;
use quiver_common::Result;
use quiver_plan::window::{FrameUse, WindowFunction, WindowRows};

use super::{gather, int_arg, value_arg, value_then_int};

#[derive(Clone, Copy)]
enum Which {
    First,
    Last,
    Nth,
}

pub struct FrameValue {
    name: &'static str,
    which: Which,
}
pub static FIRST_VALUE: FrameValue = FrameValue {
    name: "first_value",
    which: Which::First,
};
pub static LAST_VALUE: FrameValue = FrameValue {
    name: "last_value",
    which: Which::Last,
};
pub static NTH_VALUE: FrameValue = FrameValue {
    name: "nth_value",
    which: Which::Nth,
};

impl WindowFunction for FrameValue {
    fn name(&self) -> &'static str {
        self.name
    }
    fn arity(&self) -> std::ops::RangeInclusive<usize> {
        match self.which {
            Which::Nth => 2..=2,
            _ => 1..=1,
        }
    }
    fn frame_use(&self) -> FrameUse {
        FrameUse::Read
    }
    fn coerce_types(&self, args: &[DataType]) -> Vec<DataType> {
        value_then_int(args)
    }
    fn return_type(&self, args: &[DataType]) -> DataType {
        args[0].clone()
    }
    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef> {
        let values = value_arg(rows, "FIRST_VALUE")?;
        let nth = int_arg(rows.args, 1, 1, rows.len());
        let mut at = Vec::with_capacity(rows.len());
        for (r, n) in nth.iter().enumerate() {
            let f = rows.frame(r)?;
            let pick = match self.which {
                _ if f.is_empty() => None,
                Which::First => Some(f.start),
                Which::Last => Some(f.end - 1),
                Which::Nth => Some(n.unwrap_or(1))
                    .filter(|n| *n >= 1 && *n <= f.len() as i64)
                    .map(|n| f.start + n as usize - 1),
            };
            at.push(pick.map(|i| i as u32));
        }
        gather(values, at)
    }
}
