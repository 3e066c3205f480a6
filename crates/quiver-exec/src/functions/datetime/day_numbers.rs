//! Dates made from numbers: FROM_DAYS(n), MAKEDATE(year, day_of_year),
//! and the YYYYMM period arithmetic PERIOD_ADD(p, n) and PERIOD_DIFF(p, q).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::Int64Type, Array, ArrayRef, Date32Array, Int64Array};
use arrow_schema::DataType;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::{calc_daynr, int_column, non_null_as, EPOCH_DAYNR};
use crate::functions::kernel::Arrays;

/// MariaDB's day number of 9999-12-31, its last date.
const MAX_DAYNR: i64 = 3_652_424;
/// Day numbers before 0001-01-01 are MariaDB's zero date, which a Quiver
/// DATE cannot hold: NULL here.
const MIN_DAYNR: i64 = 366;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    FromDays,
    MakeDate,
    PeriodAdd,
    PeriodDiff,
}

pub struct DayNumber {
    name: &'static str,
    kind: Kind,
}

pub static FROM_DAYS: DayNumber = DayNumber {
    name: "from_days",
    kind: Kind::FromDays,
};
pub static MAKEDATE: DayNumber = DayNumber {
    name: "makedate",
    kind: Kind::MakeDate,
};
pub static PERIOD_ADD: DayNumber = DayNumber {
    name: "period_add",
    kind: Kind::PeriodAdd,
};
pub static PERIOD_DIFF: DayNumber = DayNumber {
    name: "period_diff",
    kind: Kind::PeriodDiff,
};

/// MariaDB's `convert_period_to_month`: YYMM or YYYYMM as months.
fn period_to_month(p: i64) -> i64 {
    if p == 0 {
        return 0;
    }
    let mut year = p / 100;
    if year < 100 {
        year += if year < 70 { 2000 } else { 1900 };
    }
    year * 12 + p % 100 - 1
}

/// MariaDB's `convert_month_to_period`.
fn month_to_period(m: i64) -> i64 {
    if m == 0 {
        return 0;
    }
    let mut year = m / 12;
    if year < 100 {
        year += if year < 70 { 2000 } else { 1900 };
    }
    year * 100 + m % 12 + 1
}

fn day_to_date(daynr: i64) -> Option<i32> {
    (MIN_DAYNR..=MAX_DAYNR)
        .contains(&daynr)
        .then(|| (daynr - EPOCH_DAYNR) as i32)
}

impl ScalarFunction for DayNumber {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        match self.kind {
            Kind::FromDays => 1..=1,
            _ => 2..=2,
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(non_null_as(args, DataType::Int64))
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = match self.kind {
            Kind::FromDays | Kind::MakeDate => DataType::Date32,
            _ => DataType::Int64,
        };
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        match self.kind {
            Kind::PeriodAdd | Kind::PeriodDiff => any_arg_nullable,
            _ => true,
        }
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 6))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let cols: Vec<ArrayRef> = a.arrays.iter().map(int_column).collect::<Result<_>>()?;
        let cols: Vec<_> = cols.iter().map(|c| c.as_primitive::<Int64Type>()).collect();
        let at = |c: usize, i: usize| cols[c].is_valid(i).then(|| cols[c].value(i));
        let out: ArrayRef = match self.kind {
            Kind::FromDays => Arc::new(
                (0..a.rows)
                    .map(|i| day_to_date(at(0, i)?))
                    .collect::<Date32Array>(),
            ),
            Kind::MakeDate => Arc::new(
                (0..a.rows)
                    .map(|i| {
                        let (mut year, day) = (at(0, i)?, at(1, i)?);
                        if !(0..=9999).contains(&year) || day <= 0 {
                            return None;
                        }
                        if year < 100 {
                            year += if year < 70 { 2000 } else { 1900 };
                        }
                        let daynr = calc_daynr(year as u32, 1, 1).checked_add(day - 1)?;
                        (daynr <= MAX_DAYNR).then(|| (daynr - EPOCH_DAYNR) as i32)
                    })
                    .collect::<Date32Array>(),
            ),
            Kind::PeriodAdd => Arc::new(
                (0..a.rows)
                    .map(|i| {
                        let (p, n) = (at(0, i)?, at(1, i)?);
                        Some(month_to_period(period_to_month(p).wrapping_add(n)))
                    })
                    .collect::<Int64Array>(),
            ),
            Kind::PeriodDiff => Arc::new(
                (0..a.rows)
                    .map(|i| Some(period_to_month(at(0, i)?) - period_to_month(at(1, i)?)))
                    .collect::<Int64Array>(),
            ),
        };
        a.finish(out, call.data_type)
    }
}
