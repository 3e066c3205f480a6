//! WEEK(date [, mode]), YEARWEEK(date [, mode]) and WEEKOFYEAR(date), by
//! MariaDB's week rules (`calc_week`; the mode's 3 bits as `week_mode`
//! reads them). Without a mode WEEK and YEARWEEK use mode 0 (Quiver has
//! no @@default_week_format; it is 0 in MariaDB unless set).

use std::ops::RangeInclusive;

use arrow_array::{cast::AsArray, types::Int64Type, Array, Int64Array};
use arrow_schema::DataType;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::{calc_week, date_arg_type, int_column, week_mode, Dates, WEEK_YEAR};
use crate::functions::kernel::Arrays;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Week,
    YearWeek,
    WeekOfYear,
}

pub struct Week {
    name: &'static str,
    kind: Kind,
}

pub static WEEK: Week = Week {
    name: "week",
    kind: Kind::Week,
};

pub static YEARWEEK: Week = Week {
    name: "yearweek",
    kind: Kind::YearWeek,
};

pub static WEEKOFYEAR: Week = Week {
    name: "weekofyear",
    kind: Kind::WeekOfYear,
};

impl ScalarFunction for Week {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        match self.kind {
            Kind::WeekOfYear => 1..=1,
            _ => 1..=2,
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let mut out = vec![date_arg_type(&args[0])?];
        if args.len() == 2 {
            out.push(DataType::Int64);
        }
        Ok(out)
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        if args[0].is_null() {
            return Ok(Bound::Constant(ScalarValue::Null, DataType::Int64));
        }
        Ok(Bound::Call(DataType::Int64))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(
            IntKind::Long,
            if self.kind == Kind::YearWeek { 6 } else { 3 },
        ))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let dates = Dates::new(a.arg(0)?)?;
        let modes = match a.arrays.get(1) {
            Some(m) => Some(int_column(m)?),
            None => None,
        };
        let modes = modes.as_ref().map(|m| m.as_primitive::<Int64Type>());
        // A NULL mode reads as 0, as MariaDB's val_int() of NULL.
        let mode_at = |i: usize| match modes {
            Some(m) if m.is_valid(i) => m.value(i),
            _ if self.kind == Kind::WeekOfYear => 3,
            _ => 0,
        };
        // A DATE column under a constant mode: no row reader, no NULL
        // tests beyond the column's own.
        if let (Dates::Days(d), false) = (&dates, a.scalar) {
            let constant_mode = match args.get(1) {
                None => Some(mode_at(0)),
                Some(ColumnarValue::Scalar(..)) => Some(mode_at(0)),
                Some(_) => None,
            };
            if let Some(mode) = constant_mode {
                let mode = week_mode(mode);
                let kind = self.kind;
                let mut cache = super::DayCache::new();
                let values: Vec<i64> = d
                    .values()
                    .iter()
                    .map(|v| {
                        cache.get(*v, |v| {
                            let tm = super::Tm::from_days(v);
                            if kind == Kind::YearWeek {
                                let (w, y) = calc_week(&tm, mode | WEEK_YEAR);
                                y as i64 * 100 + w as i64
                            } else {
                                calc_week(&tm, mode).0 as i64
                            }
                        })
                    })
                    .collect();
                let out = Int64Array::new(values.into(), d.nulls().cloned());
                return a.finish(std::sync::Arc::new(out), call.data_type);
            }
        }
        let out: Int64Array = (0..a.rows)
            .map(|i| {
                let tm = dates.get(i, false)?;
                let mode = week_mode(mode_at(i));
                Some(match self.kind {
                    Kind::YearWeek => {
                        let (w, y) = calc_week(&tm, mode | WEEK_YEAR);
                        y as i64 * 100 + w as i64
                    }
                    _ => calc_week(&tm, mode).0 as i64,
                })
            })
            .collect();
        a.finish(std::sync::Arc::new(out), call.data_type)
    }
}
