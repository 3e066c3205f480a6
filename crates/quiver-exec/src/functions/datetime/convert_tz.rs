//! CONVERT_TZ(datetime, from_zone, to_zone): the local time of one zone
//! read in another (`tz.rs`), NULL for a zone that is none. As MariaDB, a
//! time outside TIMESTAMP's range (UTC 1970-01-01 00:00:01 ..=
//! 2038-01-19 03:14:07) is returned unchanged. Constant zones are looked
//! up once per batch.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampMicrosecondType;
use arrow_array::{Array, ArrayRef, TimestampMicrosecondArray};
use arrow_schema::DataType;
use quiver_common::types::datetime_type;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::tz::{zone, Zone};
use super::{arg_fsp, date_arg_type};
use crate::expr::cast_array;
use crate::functions::kernel::Arrays;

const MICROS: i64 = 1_000_000;

pub struct ConvertTz;

pub static CONVERT_TZ: ConvertTz = ConvertTz;

/// One row's conversion of `micros` (local time of `from`).
fn convert(micros: i64, from: &Zone, to: &Zone) -> i64 {
    let (secs, frac) = (micros.div_euclid(MICROS), micros.rem_euclid(MICROS));
    let utc = from.utc_of_local(secs);
    if !(1..=i32::MAX as i64).contains(&utc) {
        return micros;
    }
    to.local_of_utc(utc) * MICROS + frac
}

impl ScalarFunction for ConvertTz {
    fn name(&self) -> &'static str {
        "convert_tz"
    }

    fn family(&self) -> Family {
        Family::DateTime
    }

    fn arity(&self) -> RangeInclusive<usize> {
        3..=3
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let zone_type = |t: &DataType| {
            if *t == DataType::Null {
                DataType::Null
            } else {
                DataType::Utf8
            }
        };
        Ok(vec![
            // Text stays text here (a literal's fraction digits decide the
            // result's); the kernel reads it as a DATETIME.
            date_arg_type(&args[0])?,
            zone_type(&args[1]),
            zone_type(&args[2]),
        ])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let fsp = arg_fsp(&args[0].data_type, args[0].literal.as_ref());
        let t = datetime_type(fsp);
        if args.iter().any(ArgInfo::is_null) {
            return Ok(Bound::Constant(ScalarValue::Null, t));
        }
        Ok(Bound::Call(t))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let dt = cast_array(a.arg(0)?, &datetime_type(6))?;
        let dt = dt.as_primitive::<TimestampMicrosecondType>();
        let from = cast_array(a.arg(1)?, &DataType::Utf8)?;
        let to = cast_array(a.arg(2)?, &DataType::Utf8)?;
        let (from, to) = (from.as_string::<i32>(), to.as_string::<i32>());
        // Constant zones (the usual call) are looked up once.
        let constant = |s: &arrow_array::StringArray, i: usize| {
            matches!(args[i], ColumnarValue::Scalar(..)).then(|| {
                (!s.is_empty() && s.is_valid(0))
                    .then(|| zone(s.value(0)))
                    .flatten()
            })
        };
        let (cf, ct) = (constant(from, 1), constant(to, 2));
        let lookup = |s: &arrow_array::StringArray, c: &Option<Option<Arc<Zone>>>, i: usize| match c
        {
            Some(z) => z.clone(),
            None => s.is_valid(i).then(|| zone(s.value(i))).flatten(),
        };
        let out: TimestampMicrosecondArray = (0..a.rows)
            .map(|i| {
                if dt.is_null(i) {
                    return None;
                }
                let f = lookup(from, &cf, i)?;
                let t = lookup(to, &ct, i)?;
                Some(convert(dt.value(i), &f, &t))
            })
            .collect();
        let fsp = quiver_common::types::datetime_fsp(call.data_type).unwrap_or(6);
        let out = if fsp < 6 {
            let unit = 10i64.pow(6 - fsp as u32);
            out.unary(|v: i64| v - v.rem_euclid(unit))
        } else {
            out
        };
        let out: ArrayRef = Arc::new(out.with_data_type(call.data_type.clone()));
        a.finish(out, call.data_type)
    }
}
