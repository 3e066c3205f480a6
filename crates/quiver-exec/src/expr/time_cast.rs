//! Conversions into TIME (CAST, comparisons, stored values) and out of it
//! into numbers: MySQL reads a text as `[-][D ]HH:MM:SS[.frac]` or HHMMSS,
//! a number as [-]HHMMSS[.frac], a datetime as its time of day; a TIME in a
//! numeric context is the number HHMMSS.ffffff.

use std::sync::Arc;

use arrow_array::{cast::AsArray, downcast_integer, types::*, Array, ArrayRef, Decimal64Array};
use arrow_schema::{DataType, TimeUnit};
use quiver_common::types::{
    self, parse_time, time_from_decimal, time_from_int, time_fsp, truncate_time, TimeRead,
};
use quiver_common::{QuiverError, Result, ScalarValue};

use crate::warnings::{self, Level};

const DAY_MICROS: i64 = 86_400_000_000;

/// What each value of `a` reads as, as a TIME (None for NULL).
pub fn time_reads(a: &ArrayRef) -> Result<Vec<Option<TimeRead>>> {
    let nulls = a.logical_nulls();
    let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
    macro_rules! ints {
        ($t:ty) => {
            a.as_primitive::<$t>()
                .values()
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    valid(i).then(|| match i64::try_from(*v as i128) {
                        Ok(v) => time_from_int(v),
                        Err(_) => TimeRead::Invalid,
                    })
                })
                .collect()
        };
    }
    Ok(downcast_integer! {
        a.data_type() => (ints),
        DataType::Utf8 => a.as_string::<i32>().iter().map(|s| s.map(parse_time)).collect(),
        DataType::Decimal64(..) => a
            .as_primitive::<Decimal64Type>()
            .iter()
            .map(|v| v.map(TimeRead::Exact))
            .collect(),
        DataType::Decimal128(_, s) => a
            .as_primitive::<Decimal128Type>()
            .iter()
            .map(|v| v.map(|v| time_from_decimal(v, *s)))
            .collect(),
        DataType::Float64 | DataType::Float32 => {
            let f: Vec<Option<f64>> = match a.data_type() {
                DataType::Float32 => a
                    .as_primitive::<Float32Type>()
                    .iter()
                    .map(|v| v.map(f64::from))
                    .collect(),
                _ => a.as_primitive::<Float64Type>().iter().collect(),
            };
            f.into_iter()
                .map(|v| {
                    v.map(|f| {
                        let u = (f * 1e6).round();
                        if u.is_finite() && u.abs() < 1e18 {
                            time_from_decimal(u as i128, 6)
                        } else {
                            TimeRead::Invalid
                        }
                    })
                })
                .collect()
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => a
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .map(|v| v.map(|t| TimeRead::Exact(t.rem_euclid(DAY_MICROS))))
            .collect(),
        DataType::Date32 => (0..a.len()).map(|i| valid(i).then_some(TimeRead::Exact(0))).collect(),
        DataType::Null => vec![None; a.len()],
        other => {
            return Err(QuiverError::not_supported(format!("cast of {other} to TIME")))
        }
    })
}

/// The text MySQL's messages show of row `i` of `a`.
pub fn value_text(a: &dyn Array, i: usize) -> String {
    ScalarValue::from_array(a, i)
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// CAST(a AS TIME(fsp)): NULL for what is no time, with MySQL's warning
/// 1292 for each value not read whole ("Truncated incorrect time value"
/// for one cut or clipped, "Incorrect time value" for one that is no time).
pub(crate) fn cast_to_time(a: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    let fsp = time_fsp(to).unwrap_or(0);
    let reads = time_reads(a)?;
    let strings = matches!(a.data_type(), DataType::Utf8);
    let mut out = Vec::with_capacity(reads.len());
    for (i, r) in reads.into_iter().enumerate() {
        let v = match r {
            None => None,
            Some(TimeRead::Exact(v)) => Some(v),
            Some(TimeRead::Trailing(v) | TimeRead::Clipped(v)) => {
                warnings::raise_with(Level::Warning, 1292, || {
                    format!(
                        "Truncated incorrect time value: '{}'",
                        value_text(a.as_ref(), i)
                    )
                });
                Some(v)
            }
            Some(TimeRead::Invalid) => {
                warnings::raise_with(Level::Warning, 1292, || {
                    format!("Incorrect time value: '{}'", value_text(a.as_ref(), i))
                });
                None
            }
        };
        // A text with more fraction digits than the TIME keeps: a note.
        if let (true, Some(_)) = (strings, v) {
            let s = a.as_string::<i32>().value(i);
            if types::time_literal_fsp(s) >= types::MAX_FSP
                && s.trim().rsplit_once('.').is_some_and(|(_, f)| {
                    f.bytes().take_while(u8::is_ascii_digit).count() > types::MAX_FSP as usize
                })
            {
                warnings::raise_with(Level::Note, 1292, || {
                    format!("Truncated incorrect time value: '{s}'")
                });
            }
        }
        out.push(v.map(|v| truncate_time(v, fsp)));
    }
    Ok(Arc::new(
        out.into_iter()
            .collect::<Decimal64Array>()
            .with_data_type(to.clone()),
    ))
}

/// A TIME array as MySQL's numbers HHMMSS.ffffff: unscaled at scale 6.
pub(crate) fn time_numbers(a: &dyn Array) -> Vec<i128> {
    a.as_primitive::<Decimal64Type>()
        .values()
        .iter()
        .map(|t| types::time_number(*t))
        .collect()
}
