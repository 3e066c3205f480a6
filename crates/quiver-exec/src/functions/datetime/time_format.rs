//! TIME_FORMAT(time, format): a TIME printed by DATE_FORMAT's specifiers
//! for the time of day (`%H %k %h %I %l %i %S %s %f %p %r %T`); a date
//! specifier makes the result NULL, as in MariaDB. A DATETIME or a text
//! with a date part is read as its time; hours are printed in full (`%H`
//! of 100:00:00 is 100) and a negative time starts with `-`.

use std::ops::RangeInclusive;

use arrow_array::Array;
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::date_format::{build_strings, format_arg_type, format_result_chars, Format, Formats};
use super::time_fns::{temporals, time_arg_type, Temporal};
use crate::expr::cast_array;
use crate::functions::kernel::Arrays;

const MICROS_PER_DAY: i64 = 86_400_000_000;

pub struct TimeFormat;

pub static TIME_FORMAT: TimeFormat = TimeFormat;

impl ScalarFunction for TimeFormat {
    fn name(&self) -> &'static str {
        "time_format"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![time_arg_type(&args[0])?, format_arg_type(&args[1])])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, DataType::Utf8));
        }
        Ok(Bound::Call(DataType::Utf8))
    }

    fn max_chars(&self, args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        format_result_chars(args.get(1)?)
    }

    fn string_result(&self) -> StringResult {
        StringResult::Coercible
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let format = cast_array(a.arg(1)?, &DataType::Utf8)?;
        let formats = Formats::new(&args[1], &format);
        let times: Vec<Option<i64>> = temporals(a.arg(0)?)?
            .into_iter()
            .map(|t| match t? {
                Temporal::Time(m) => Some(m),
                Temporal::DateTime(m) => Some(m.rem_euclid(MICROS_PER_DAY)),
            })
            .collect();
        let out = match &formats {
            Formats::Constant(None) => arrow_array::new_null_array(&DataType::Utf8, a.rows),
            Formats::Constant(Some(f)) => build_strings(a.rows, 16, |i, out| {
                times[i].is_some_and(|t| f.write_time(t, out))
            })?,
            Formats::Rows(texts) => build_strings(a.rows, 16, |i, out| {
                if texts.is_null(i) {
                    return false;
                }
                match (times[i], Format::parse(texts.value(i))) {
                    (Some(t), Some(f)) => f.write_time(t, out),
                    _ => false,
                }
            })?,
        };
        a.finish(out, call.data_type)
    }
}
