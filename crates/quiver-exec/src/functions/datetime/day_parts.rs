//! One number or name of a date: DAYOFWEEK, WEEKDAY, DAYOFYEAR, TO_DAYS,
//! TO_SECONDS, DAYNAME, MONTHNAME and LAST_DAY. A date with a zero month
//! or day is NULL with warning 1292, except for MONTHNAME and LAST_DAY,
//! which read the fields as written (NULL for month 0).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{types::Int64Type, Array, ArrayRef, Date32Array, Int64Array};
use arrow_schema::DataType;
use quiver_common::types::{civil_from_days, days_from_civil, IntKind};
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth, StringResult};
use quiver_plan::ScalarFunction;

use super::date_format::build_strings;
use super::{
    calc_daynr, calc_weekday, date_arg_type, days_in_month, Dates, Tm, DAY_NAMES, EPOCH_DAYNR,
    MONTH_NAMES,
};
use crate::functions::kernel::Arrays;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    DayOfWeek,
    Weekday,
    DayOfYear,
    ToDays,
    ToSeconds,
    DayName,
    MonthName,
    LastDay,
}

pub struct DayPart {
    name: &'static str,
    part: Part,
}

pub static DAYOFWEEK: DayPart = DayPart {
    name: "dayofweek",
    part: Part::DayOfWeek,
};
pub static WEEKDAY: DayPart = DayPart {
    name: "weekday",
    part: Part::Weekday,
};
pub static DAYOFYEAR: DayPart = DayPart {
    name: "dayofyear",
    part: Part::DayOfYear,
};
pub static TO_DAYS: DayPart = DayPart {
    name: "to_days",
    part: Part::ToDays,
};
pub static TO_SECONDS: DayPart = DayPart {
    name: "to_seconds",
    part: Part::ToSeconds,
};
pub static DAYNAME: DayPart = DayPart {
    name: "dayname",
    part: Part::DayName,
};
pub static MONTHNAME: DayPart = DayPart {
    name: "monthname",
    part: Part::MonthName,
};
pub static LAST_DAY: DayPart = DayPart {
    name: "last_day",
    part: Part::LastDay,
};

impl DayPart {
    fn result(&self) -> DataType {
        match self.part {
            Part::DayName | Part::MonthName => DataType::Utf8,
            Part::LastDay => DataType::Date32,
            _ => DataType::Int64,
        }
    }

    fn number(&self, tm: &Tm) -> i64 {
        let daynr = tm.daynr();
        match self.part {
            Part::DayOfWeek => calc_weekday(daynr, true) as i64 + 1,
            Part::Weekday => calc_weekday(daynr, false) as i64,
            Part::DayOfYear => daynr - calc_daynr(tm.year, 1, 1) + 1,
            Part::ToDays => daynr,
            _ => daynr * 86_400 + tm.seconds_of_day(),
        }
    }
}

/// `part` of the DATE `days` after 1970-01-01 (a date of year 1 or later:
/// MariaDB's day number is `days + 719528`).
#[inline]
fn date_number(part: Part, days: i32) -> i64 {
    let daynr = days as i64 + EPOCH_DAYNR;
    match part {
        Part::DayOfWeek => calc_weekday(daynr, true) as i64 + 1,
        Part::Weekday => calc_weekday(daynr, false) as i64,
        Part::DayOfYear => {
            let (y, _, _) = civil_from_days(days);
            (days - days_from_civil(y, 1, 1)) as i64 + 1
        }
        Part::ToDays => daynr,
        _ => daynr * 86_400,
    }
}

impl ScalarFunction for DayPart {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![date_arg_type(&args[0])?])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        if args[0].is_null() {
            return Ok(Bound::Constant(ScalarValue::Null, self.result()));
        }
        Ok(Bound::Call(self.result()))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(match self.part {
            Part::DayOfWeek | Part::Weekday => IntWidth::Fixed(IntKind::Long, 1),
            Part::DayOfYear => IntWidth::Fixed(IntKind::Long, 4),
            Part::ToDays => IntWidth::Fixed(IntKind::Long, 7),
            _ => IntWidth::Fixed(IntKind::LongLong, 12),
        })
    }

    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        Some(9)
    }

    fn string_result(&self) -> StringResult {
        StringResult::Coercible
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let dates = Dates::new(a.arg(0)?)?;
        let out: ArrayRef = match self.part {
            Part::DayName if matches!(dates, Dates::Days(_)) => {
                let Dates::Days(d) = &dates else {
                    unreachable!()
                };
                build_strings(a.rows, 8, |i, out| {
                    if d.is_null(i) {
                        return false;
                    }
                    // 1970-01-01 was a Thursday (3, Monday first).
                    let name = DAY_NAMES[(d.value(i) as i64 + 3).rem_euclid(7) as usize];
                    out.extend_from_slice(name.as_bytes());
                    true
                })?
            }
            Part::DayName => build_strings(a.rows, 8, |i, out| match dates.get(i, false) {
                Some(tm) => {
                    let name = DAY_NAMES[calc_weekday(tm.daynr(), false) as usize];
                    out.extend_from_slice(name.as_bytes());
                    true
                }
                None => false,
            })?,
            Part::MonthName => build_strings(a.rows, 8, |i, out| match dates.get(i, true) {
                Some(tm) if tm.month != 0 => {
                    out.extend_from_slice(MONTH_NAMES[tm.month as usize - 1].as_bytes());
                    true
                }
                _ => false,
            })?,
            Part::LastDay if matches!(dates, Dates::Days(_)) => {
                let Dates::Days(d) = &dates else {
                    unreachable!()
                };
                let mut cache = super::DayCache::new();
                let last: Vec<i32> = d
                    .values()
                    .iter()
                    .map(|v| {
                        cache.get(*v, |v| {
                            let (y, m, _) = civil_from_days(v);
                            days_from_civil(y, m, quiver_common::types::days_in_month(y, m)) as i64
                        }) as i32
                    })
                    .collect();
                Arc::new(Date32Array::new(last.into(), d.nulls().cloned()))
            }
            Part::LastDay => Arc::new(
                (0..a.rows)
                    .map(|i| {
                        let tm = dates.get(i, true).filter(|t| t.month != 0)?;
                        let last = calc_daynr(tm.year, tm.month, days_in_month(tm.year, tm.month));
                        Some((last - EPOCH_DAYNR) as i32)
                    })
                    .collect::<Date32Array>(),
            ),
            _ => match &dates {
                // A DATE's number without the general row reader.
                Dates::Days(d) => {
                    let part = self.part;
                    Arc::new(d.unary::<_, Int64Type>(|v| date_number(part, v)))
                }
                _ => Arc::new(
                    (0..a.rows)
                        .map(|i| dates.get(i, false).map(|tm| self.number(&tm)))
                        .collect::<Int64Array>(),
                ),
            },
        };
        a.finish(out, call.data_type)
    }
}
