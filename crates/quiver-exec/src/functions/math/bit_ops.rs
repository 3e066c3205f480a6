//! The bit operators `|`, `&`, `^`, `<<`, `>>` and `~` as registry
//! objects (DuckDB registers its operators as functions too), as
//! MariaDB's `Item_func_bit_*`: each operand is read as a 64-bit integer
//! (an integer as it is, a negative one in two's complement; a DECIMAL,
//! DOUBLE or string rounded half away from zero, as MariaDB reads them
//! through DECIMAL; past the 64-bit range it saturates with warning
//! 1916), and the result is BIGINT UNSIGNED. A shift by 64 or more (or
//! by a negative count, read as unsigned) is 0. NULL in, NULL out.
//!
//! The kernels run over `u64` slices with Arrow's null-buffer union, so
//! the loops vectorize.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, UInt64Array};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::DataType;
use quiver_common::types::{is_string, IntKind};
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use crate::expr::cast_array;
use crate::warnings::{raise_with, Level};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Or,
    And,
    Xor,
    ShiftLeft,
    ShiftRight,
    Not,
}

pub struct BitOperator(Op);

pub static BIT_OR_OP: BitOperator = BitOperator(Op::Or);
pub static BIT_AND_OP: BitOperator = BitOperator(Op::And);
pub static BIT_XOR_OP: BitOperator = BitOperator(Op::Xor);
pub static SHIFT_LEFT: BitOperator = BitOperator(Op::ShiftLeft);
pub static SHIFT_RIGHT: BitOperator = BitOperator(Op::ShiftRight);
pub static BIT_NOT: BitOperator = BitOperator(Op::Not);

/// Strings are read through DECIMAL with room for 64-bit integers and
/// enough fraction digits to round once.
const STRING_READ: DataType = DataType::Decimal128(38, 18);

impl ScalarFunction for BitOperator {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Or => "|",
            Op::And => "&",
            Op::Xor => "^",
            Op::ShiftLeft => "<<",
            Op::ShiftRight => ">>",
            Op::Not => "~",
        }
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        if self.0 == Op::Not {
            1..=1
        } else {
            2..=2
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter()
            .map(|t| {
                Ok(match t {
                    DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
                        DataType::UInt64
                    }
                    t if t.is_integer() || *t == DataType::Boolean => DataType::Int64,
                    DataType::Decimal128(..) | DataType::Decimal256(..) => t.clone(),
                    DataType::Float32 | DataType::Float64 => DataType::Float64,
                    DataType::Null => DataType::Null,
                    DataType::Date32 | DataType::Timestamp(..) => DataType::Int64,
                    t if is_string(t) => STRING_READ,
                    other => {
                        return Err(QuiverError::not_supported(format!(
                            "operator {} of {other}",
                            self.name()
                        )))
                    }
                })
            })
            .collect()
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::UInt64))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        any_arg_nullable
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::LongLong, 21))
    }

    fn operator_precedence(&self) -> Option<u8> {
        // MySQL: | below & below << >> (all above comparisons, below + -);
        // ^ above * /; ~ with unary minus.
        Some(match self.0 {
            Op::Or => 50,
            Op::And => 52,
            Op::ShiftLeft | Op::ShiftRight => 54,
            Op::Xor => 75,
            Op::Not => 80,
        })
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = bits(a.arg(0)?)?;
        let out = if self.0 == Op::Not {
            UInt64Array::new(x.values().iter().map(|v| !v).collect(), x.nulls().cloned())
        } else {
            let y = bits(a.arg(1)?)?;
            let nulls = NullBuffer::union(x.nulls(), y.nulls());
            let (x, y) = (x.values(), y.values());
            let values: ScalarBuffer<u64> = match self.0 {
                Op::Or => x.iter().zip(y.iter()).map(|(a, b)| a | b).collect(),
                Op::And => x.iter().zip(y.iter()).map(|(a, b)| a & b).collect(),
                Op::Xor => x.iter().zip(y.iter()).map(|(a, b)| a ^ b).collect(),
                Op::ShiftLeft => x
                    .iter()
                    .zip(y.iter())
                    .map(|(a, b)| a.checked_shl(u32::try_from(*b).unwrap_or(64)).unwrap_or(0))
                    .collect(),
                _ => x
                    .iter()
                    .zip(y.iter())
                    .map(|(a, b)| a.checked_shr(u32::try_from(*b).unwrap_or(64)).unwrap_or(0))
                    .collect(),
            };
            UInt64Array::new(values, nulls)
        };
        a.finish(Arc::new(out), call.data_type)
    }
}

/// An operand as 64 bits, as MariaDB reads it.
fn bits(a: &ArrayRef) -> Result<UInt64Array> {
    Ok(match a.data_type() {
        DataType::UInt64 => a.as_primitive::<UInt64Type>().clone(),
        DataType::Int64 => {
            let v = a.as_primitive::<Int64Type>();
            UInt64Array::new(
                v.values().iter().map(|x| *x as u64).collect(),
                v.nulls().cloned(),
            )
        }
        DataType::Null => UInt64Array::new_null(a.len()),
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>();
            let values = v.iter().map(|x| x.map_or(0, double_bits)).collect();
            UInt64Array::new(values, v.nulls().cloned())
        }
        DataType::Decimal128(_, s) => {
            let scale = *s;
            let v = a.as_primitive::<Decimal128Type>();
            let values = v
                .iter()
                .map(|x| x.map_or(0, |x| decimal_bits(x, scale)))
                .collect();
            UInt64Array::new(values, v.nulls().cloned())
        }
        DataType::Decimal256(..) => {
            // Wider than any 64-bit value: read through DOUBLE's range
            // checks after rounding as DECIMAL(38, 18) would lose digits.
            return bits(&cast_array(a, &DataType::Float64)?);
        }
        other => return Err(QuiverError::internal(format!("bit operand {other}"))),
    })
}

/// A rounded value in -2^63 .. 2^64 as bits; else saturated, with the
/// warning naming the value as `text` prints it.
fn rounded_bits(negative: bool, fits: Option<u64>, text: impl FnOnce() -> String) -> u64 {
    match fits {
        Some(v) => v,
        None => {
            let target = if negative { "INT" } else { "UNSIGNED INT" };
            raise_with(Level::Warning, 1916, || {
                format!(
                    "Got overflow when converting '{}' to {target}. Value truncated",
                    text()
                )
            });
            if negative {
                i64::MIN as u64
            } else {
                u64::MAX
            }
        }
    }
}

fn double_bits(x: f64) -> u64 {
    let r = x.round();
    let fits = if r < 0.0 {
        (r >= i64::MIN as f64).then_some(r as i64 as u64)
    } else {
        (r < 18446744073709551616.0).then_some(r as u64)
    };
    rounded_bits(r < 0.0, fits, || format!("{x}"))
}

fn decimal_bits(x: i128, scale: i8) -> u64 {
    let unit = 10i128.pow(scale.max(0) as u32);
    let (q, r) = (x / unit, x % unit);
    // Half away from zero.
    let r = if unit > 1 && r.abs() * 2 >= unit {
        q + r.signum()
    } else {
        q
    };
    let fits = if r < 0 {
        i64::try_from(r).ok().map(|v| v as u64)
    } else {
        u64::try_from(r).ok()
    };
    rounded_bits(r < 0, fits, || r.to_string())
}
