//! BIT_COUNT(n): the number of 1 bits of n as a 64-bit integer; INT(2).
//! MariaDB reads a non-integer argument as a DECIMAL rounded half away
//! from zero (a string with warning 1292 "Truncated incorrect DECIMAL
//! value", a DOUBLE by its shortest digits); beyond BIGINT's range it takes
//! the nearest end, BIGINT UNSIGNED's largest above, BIGINT's smallest
//! below, with warning 1916 naming the value as it was (`'1e27.00'` keeps
//! the DECIMAL's scale).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, Int64Array};
use arrow_schema::DataType;
use quiver_common::i256;
use quiver_common::types::IntKind;
use quiver_common::types::{format_decimal, format_decimal256, is_string, pow10};
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use crate::expr::cast_array;
use crate::warnings::{raise_with, Level};

pub struct BitCount;

pub static BIT_COUNT: BitCount = BitCount;

/// Strings are read as this DECIMAL (rounding to a whole number).
const WHOLE: DataType = DataType::Decimal128(38, 0);

impl ScalarFunction for BitCount {
    fn name(&self) -> &'static str {
        "bit_count"
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![match &args[0] {
            t if t.is_unsigned_integer() => DataType::UInt64,
            t if t.is_integer() => DataType::Int64,
            DataType::Boolean => DataType::Int64,
            DataType::Null => DataType::Null,
            t @ (DataType::Decimal128(..) | DataType::Decimal256(..) | DataType::Float64) => {
                t.clone()
            }
            t if t.is_numeric() => DataType::Float64,
            t if is_string(t) => WHOLE,
            other => return Err(QuiverError::not_supported(format!("BIT_COUNT of {other}"))),
        }])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Int64))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        any_arg_nullable
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 2))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = a.arg(0)?;
        let counts: Vec<i64> = match x.data_type() {
            DataType::UInt64 => bits(x.as_primitive::<UInt64Type>().values().iter().copied()),
            DataType::Decimal128(_, scale) => {
                let d = x.as_primitive::<Decimal128Type>();
                let unit = 10i128.pow(*scale as u32);
                words(d, |v| {
                    let (q, r) = (v / unit, v % unit);
                    let q = if r.abs() * 2 >= unit {
                        q + v.signum()
                    } else {
                        q
                    };
                    clamp_word(q, || format_decimal(v, *scale))
                })
            }
            DataType::Decimal256(_, scale) => {
                let d = x.as_primitive::<Decimal256Type>();
                let unit = pow10(*scale as u32).unwrap_or(i256::MAX);
                words(d, |v| {
                    let (q, r) = v.checked_div_rem(unit).unwrap_or((i256::ZERO, i256::ZERO));
                    let q = if r.wrapping_abs().wrapping_mul(i256::from_i128(2)) >= unit {
                        q.wrapping_add(i256::from_i128(v.signum().as_i128()))
                    } else {
                        q
                    };
                    let q = q.to_i128().unwrap_or(if v.is_negative() {
                        i128::MIN
                    } else {
                        i128::MAX
                    });
                    clamp_word(q, || format_decimal256(v, *scale))
                })
            }
            DataType::Float64 => {
                let d = x.as_primitive::<Float64Type>();
                words(d, |v| {
                    // f64::round is half away from zero.
                    let r = v.round();
                    let q = if r >= 1.8e19 {
                        i128::MAX
                    } else if r <= -9.3e18 {
                        i128::MIN
                    } else {
                        r as i128
                    };
                    clamp_word(q, || format!("{r}"))
                })
            }
            _ => {
                let x: ArrayRef = cast_array(x, &DataType::Int64)?;
                let x = x.as_primitive::<Int64Type>();
                bits(x.values().iter().map(|v| *v as u64))
            }
        };
        let out = Arc::new(Int64Array::new(counts.into(), x.logical_nulls()));
        a.finish(out, call.data_type)
    }
}

fn bits(words: impl Iterator<Item = u64>) -> Vec<i64> {
    words.map(|w| w.count_ones() as i64).collect()
}

/// The bit counts of `a`'s values made words by `word` (0 for NULL).
fn words<T: ArrowPrimitiveType>(
    a: &arrow_array::PrimitiveArray<T>,
    word: impl Fn(T::Native) -> u64,
) -> Vec<i64> {
    (0..a.len())
        .map(|i| {
            if a.is_null(i) {
                0
            } else {
                word(a.value(i)).count_ones() as i64
            }
        })
        .collect()
}

/// A whole number as the 64 bits MariaDB takes of it (see the module
/// comment), warning 1916 naming the value as `text` writes it where it
/// does not fit.
fn clamp_word(v: i128, text: impl FnOnce() -> String) -> u64 {
    if v > u64::MAX as i128 {
        raise_with(Level::Warning, 1916, || {
            format!(
                "Got overflow when converting '{}' to UNSIGNED INT. Value truncated",
                text()
            )
        });
        u64::MAX
    } else if v < i64::MIN as i128 {
        raise_with(Level::Warning, 1916, || {
            format!(
                "Got overflow when converting '{}' to INT. Value truncated",
                text()
            )
        });
        i64::MIN as u64
    } else {
        v as u64
    }
}
