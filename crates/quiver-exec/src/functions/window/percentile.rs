//! PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x), PERCENTILE_DISC(p) WITHIN
//! GROUP (ORDER BY x) and MEDIAN(x), over a window of whole partitions
//! (MariaDB 10.11 has them only as window functions, without ORDER BY or
//! frame in the OVER clause).
//!
//! The binder passes (x, p, descending): MEDIAN(x) is PERCENTILE_CONT(0.5)
//! WITHIN GROUP (ORDER BY x). NULL values of x are skipped; a partition
//! with none gives NULL. Over the n values in the WITHIN GROUP order:
//! - PERCENTILE_CONT: the row number r = 1 + p * (n - 1) between the
//!   values at floor(r) and ceil(r), interpolated linearly; a DOUBLE (x is
//!   read as DOUBLE: a date as its number YYYYMMDD, as in MariaDB).
//! - PERCENTILE_DISC: the first value whose cumulative distribution
//!   (position / n) reaches p; x's own type.
//!
//! p must be a numeric constant in [0, 1]: else errors 4102 (not constant),
//! 4104 (not a number, NULL) and 4103 (out of range), named as MariaDB
//! names them (MEDIAN as percentile_cont); a string x is 4101 for
//! PERCENTILE_CONT and MEDIAN. Strings order by their bytes (MariaDB by
//! their collation: the same for binary and `_bin` collations).

use std::sync::Arc;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, Float64Array, Int64Array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{DataType, SortOptions};
use quiver_common::types::is_string;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::window::{FrameUse, WindowFunction, WindowRows};

use super::gather;

pub struct Percentile {
    name: &'static str,
    /// PERCENTILE_CONT (and MEDIAN) rather than PERCENTILE_DISC.
    continuous: bool,
}

pub static PERCENTILE_CONT: Percentile = Percentile {
    name: "percentile_cont",
    continuous: true,
};

pub static PERCENTILE_DISC: Percentile = Percentile {
    name: "percentile_disc",
    continuous: false,
};

/// MEDIAN(x): the binder calls PERCENTILE_CONT(0.5); this name only lists
/// it (docs/FUNCTIONS.md).
pub static MEDIAN: Percentile = Percentile {
    name: "median",
    continuous: true,
};

impl Percentile {
    /// The name MariaDB's messages give (MEDIAN is PERCENTILE_CONT there).
    fn message_name(&self) -> &'static str {
        if self.continuous {
            "percentile_cont"
        } else {
            "percentile_disc"
        }
    }
}

impl WindowFunction for Percentile {
    fn name(&self) -> &'static str {
        self.name
    }

    fn arity(&self) -> std::ops::RangeInclusive<usize> {
        3..=3
    }

    fn frame_use(&self) -> FrameUse {
        FrameUse::Refused
    }

    fn coerce_types(&self, args: &[DataType]) -> Vec<DataType> {
        let value = match &args[0] {
            t if self.continuous && !is_string(t) && t != &DataType::Null => DataType::Float64,
            t => t.clone(),
        };
        // A numeric p becomes a DOUBLE; anything else stays as it is, for
        // check_args to refuse.
        let p = match &args[1] {
            t if t.is_numeric() => DataType::Float64,
            t => t.clone(),
        };
        vec![value, p, DataType::Int64]
    }

    fn check_args(&self, constants: &[Option<ScalarValue>]) -> Result<()> {
        let name = self.message_name();
        match constants.get(1) {
            Some(None) => Err(QuiverError::new(
                4102,
                "HY000",
                format!("Argument to the {name} function is not a constant for a partition"),
            )),
            Some(Some(ScalarValue::Float64(p))) if (0.0..=1.0).contains(p) => Ok(()),
            Some(Some(ScalarValue::Float64(_))) => Err(QuiverError::new(
                4103,
                "HY000",
                format!("Argument to the {name} function does not belong to the range [0,1]"),
            )),
            _ => Err(QuiverError::new(
                4104,
                "HY000",
                format!("{name} function only accepts arguments that can be converted to numerical types"),
            )),
        }
    }

    fn return_type(&self, args: &[DataType]) -> DataType {
        if self.continuous {
            DataType::Float64
        } else {
            args[0].clone()
        }
    }

    fn declared_type(&self) -> Option<&'static str> {
        self.continuous.then_some("double")
    }

    /// MariaDB shows PERCENTILE_CONT with 10 decimals (`double(18,10)`).
    fn decimals(&self) -> Option<u8> {
        self.continuous.then_some(10)
    }

    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef> {
        let values = &rows.args[0];
        if self.continuous && is_string(values.data_type()) {
            return Err(QuiverError::new(
                4101,
                "HY000",
                "Numeric datatype is required for percentile_cont function",
            ));
        }
        let p = match rows.args[1].as_any().downcast_ref::<Float64Array>() {
            Some(a) if !a.is_empty() && a.is_valid(0) => a.value(0),
            _ => 0.5,
        };
        let descending = rows.args[2]
            .as_any()
            .downcast_ref::<Int64Array>()
            .is_some_and(|a| !a.is_empty() && a.value(0) != 0);
        if values.data_type() == &DataType::Null {
            return Ok(arrow_array::new_null_array(
                &self.return_type(&[DataType::Null]),
                rows.len(),
            ));
        }
        let parts: Vec<_> = rows.partitions().collect();
        let order = sorted_positions(values, descending, &parts)?;
        let mut start = 0;
        if self.continuous {
            let v = values.as_primitive::<Float64Type>();
            let mut out: Vec<Option<f64>> = Vec::with_capacity(rows.len());
            for part in &parts {
                let sorted = &order[start..start + count_in(&order[start..], part)];
                start += sorted.len();
                let at = |k: usize| v.value(sorted[k] as usize);
                let r = match sorted.len() {
                    0 => None,
                    n => {
                        let rn = p * (n - 1) as f64;
                        let (lo, hi) = (rn.floor() as usize, rn.ceil() as usize);
                        Some(if lo == hi {
                            at(lo)
                        } else {
                            at(lo) + (rn - lo as f64) * (at(hi) - at(lo))
                        })
                    }
                };
                out.extend(std::iter::repeat_n(r, part.len()));
            }
            Ok(Arc::new(Float64Array::from(out)))
        } else {
            let mut at = Vec::with_capacity(rows.len());
            for part in &parts {
                let sorted = &order[start..start + count_in(&order[start..], part)];
                start += sorted.len();
                let n = sorted.len();
                let pick = (0..n)
                    .find(|k| (k + 1) as f64 / n as f64 >= p)
                    .map(|k| sorted[k]);
                at.extend(std::iter::repeat_n(pick, part.len()));
            }
            gather(values, at)
        }
    }
}

/// How many of `order`'s first positions fall in `part`.
fn count_in(order: &[u32], part: &std::ops::Range<usize>) -> usize {
    order
        .iter()
        .take_while(|i| part.contains(&(**i as usize)))
        .count()
}

/// The positions of `values`' non-NULL rows, partition by partition, each
/// partition's in its WITHIN GROUP order.
fn sorted_positions(
    values: &ArrayRef,
    descending: bool,
    parts: &[std::ops::Range<usize>],
) -> Result<Vec<u32>> {
    let converter = RowConverter::new(vec![SortField::new_with_options(
        values.data_type().clone(),
        SortOptions {
            descending,
            nulls_first: false,
        },
    )])?;
    let keys = converter.convert_columns(std::slice::from_ref(values))?;
    let mut order = Vec::with_capacity(values.len());
    for part in parts {
        let from = order.len();
        order.extend((part.start as u32..part.end as u32).filter(|i| values.is_valid(*i as usize)));
        order[from..].sort_by(|a, b| keys.row(*a as usize).cmp(&keys.row(*b as usize)));
    }
    Ok(order)
}
