//! LAG and LEAD: the argument's value at a row `offset` rows before or
//! after the current one in its partition (1 by default), NULL past the
//! partition's edges. As in MariaDB the offset may vary by row, a negative
//! offset looks the other way, a NULL offset means the row itself, and the
//! frame clause is accepted and ignored; there is no default argument.

use arrow_array::ArrayRef;
use arrow_schema::DataType;
use quiver_common::Result;
use quiver_plan::window::{FrameUse, WindowFunction, WindowRows};

use super::{gather, int_arg, value_arg, value_then_int};

pub struct Offset {
    name: &'static str,
    /// LAG looks back (-1), LEAD forward (1).
    direction: i64,
}
pub static LAG: Offset = Offset {
    name: "lag",
    direction: -1,
};
pub static LEAD: Offset = Offset {
    name: "lead",
    direction: 1,
};

impl WindowFunction for Offset {
    fn name(&self) -> &'static str {
        self.name
    }
    fn arity(&self) -> std::ops::RangeInclusive<usize> {
        1..=2
    }
    fn requires_order(&self) -> bool {
        true
    }
    fn frame_use(&self) -> FrameUse {
        FrameUse::Ignored
    }
    fn coerce_types(&self, args: &[DataType]) -> Vec<DataType> {
        value_then_int(args)
    }
    fn return_type(&self, args: &[DataType]) -> DataType {
        args[0].clone()
    }
    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef> {
        let values = value_arg(rows, "LAG")?;
        let offsets = int_arg(rows.args, 1, 1, rows.len());
        let mut at = vec![None; rows.len()];
        for p in rows.partitions() {
            for r in p.clone() {
                let step = offsets[r].unwrap_or(0);
                let target = step
                    .checked_mul(self.direction)
                    .and_then(|d| (r as i64).checked_add(d));
                if let Some(t) = target.filter(|t| *t >= p.start as i64 && *t < p.end as i64) {
                    at[r] = Some(t as u32);
                }
            }
        }
        gather(values, at)
    }
}
