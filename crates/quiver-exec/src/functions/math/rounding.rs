//! ABS, ROUND, TRUNCATE, FLOOR and CEILING: one kernel over integers,
//! DECIMAL (i128 and i256) and DOUBLE, and MySQL's result types: an
//! integer stays an integer, a DECIMAL keeps its kind (ROUND and TRUNCATE
//! to a constant scale take that scale), strings are read as DOUBLE.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, Float64Array};
use arrow_schema::DataType;
use quiver_common::types::{
    decimal_shape, decimal_type, is_string, rescale, MAX_DECIMAL128_PRECISION,
    MAX_DECIMAL_PRECISION,
};
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use crate::expr::cast_array;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Abs,
    Round,
    Truncate,
    Floor,
    Ceil,
}

/// One of the five; each is its own registered object.
pub struct Rounding {
    op: Op,
    name: &'static str,
    aliases: &'static [&'static str],
    arity: RangeInclusive<usize>,
}

pub static ABS: Rounding = Rounding {
    op: Op::Abs,
    name: "abs",
    aliases: &[],
    arity: 1..=1,
};

pub static ROUND: Rounding = Rounding {
    op: Op::Round,
    name: "round",
    aliases: &[],
    arity: 1..=2,
};

pub static TRUNCATE: Rounding = Rounding {
    op: Op::Truncate,
    name: "truncate",
    aliases: &[],
    arity: 2..=2,
};

pub static FLOOR: Rounding = Rounding {
    op: Op::Floor,
    name: "floor",
    aliases: &[],
    arity: 1..=1,
};

pub static CEILING: Rounding = Rounding {
    op: Op::Ceil,
    name: "ceiling",
    aliases: &["ceil"],
    arity: 1..=1,
};

impl ScalarFunction for Rounding {
    fn name(&self) -> &'static str {
        self.name
    }

    fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        self.arity.clone()
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let x = match &args[0] {
            t if is_string(t) => DataType::Float64,
            DataType::Boolean => DataType::Int64,
            DataType::Null => DataType::Null,
            // MariaDB rounds a TIME as a TIME: not built yet.
            t if quiver_common::types::is_time(t) => {
                return Err(QuiverError::not_supported(format!(
                    "{} of TIME",
                    self.name.to_uppercase()
                )))
            }
            t if t.is_numeric() => t.clone(),
            other => {
                return Err(QuiverError::not_supported(format!(
                    "{} of {other}",
                    self.name.to_uppercase()
                )))
            }
        };
        let mut out = vec![x];
        // The digits of ROUND and TRUNCATE: an integer.
        out.extend(args[1..].iter().map(|_| DataType::Int64));
        Ok(out)
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = &args[0].data_type;
        if *t == DataType::Null {
            return Ok(Bound::Constant(ScalarValue::Null, DataType::Null));
        }
        let digits = args.get(1);
        let constant_digits = match digits {
            None => Some(0),
            Some(d) => d.int_literal(),
        };
        let op = self.op;
        Ok(Bound::Call(match (t, op) {
            (t, Op::Abs) if t.is_unsigned_integer() => DataType::UInt64,
            (t, _) if t.is_integer() => DataType::Int64,
            (DataType::Decimal128(..) | DataType::Decimal256(..), Op::Abs) => t.clone(),
            (DataType::Decimal128(p, s) | DataType::Decimal256(p, s), Op::Round | Op::Truncate) => {
                match constant_digits {
                    Some(d) => {
                        let d = d.clamp(0, 30) as i8;
                        let p = (*p as i32 - *s as i32 + d as i32 + 1)
                            .clamp(d.max(1) as i32, MAX_DECIMAL_PRECISION as i32);
                        decimal_type(p as u8, d)
                    }
                    None => t.clone(),
                }
            }
            (DataType::Decimal128(..) | DataType::Decimal256(..), _) => {
                let (p, s) = decimal_shape(t);
                let p = (p as i32 - s as i32 + 1).clamp(1, MAX_DECIMAL_PRECISION as i32);
                decimal_type(p as u8, 0)
            }
            // MySQL prints ROUND(double, d) with d decimals: a decimal of
            // that scale shows the same. From 31 decimals (NOT_FIXED_DEC)
            // on it prints the double's shortest form.
            (_, Op::Round | Op::Truncate) => match constant_digits {
                Some(d) if digits.is_some() && (0..31).contains(&d) => {
                    DataType::Decimal128(MAX_DECIMAL128_PRECISION, d as i8)
                }
                _ => DataType::Float64,
            },
            _ => DataType::Float64,
        }))
    }

    // Both round a quotient's (or AVG's) full internal value, as MySQL
    // does: ROUND(1/3, 6) is 0.333333, not 0.3333 padded.
    fn reads_internal_digits(&self) -> bool {
        matches!(self.op, Op::Round | Op::Truncate)
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        match self.op {
            Op::Abs | Op::Floor | Op::Ceil => any_arg_nullable,
            Op::Round | Op::Truncate => true,
        }
    }

    fn int_width(&self, args: &[ArgInfo]) -> Option<IntWidth> {
        Some(match self.op {
            Op::Abs => IntWidth::OperandPlus(0),
            _ => match args.get(1).map(ArgInfo::int_literal) {
                None => IntWidth::Operand,
                Some(Some(d)) if d >= 0 => IntWidth::Operand,
                // Rounding to tens may carry into one more digit.
                _ => IntWidth::OperandPlus(1),
            },
        })
    }

    // MariaDB's grammar has TRUNCATE(x, d) only: another count is 1064.
    fn arity_error(&self, name: &str) -> QuiverError {
        match self.op {
            Op::Truncate => QuiverError::syntax_msg(format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{}'",
                name.to_uppercase()
            )),
            _ => QuiverError::wrong_arguments(&name.to_uppercase()),
        }
    }

    fn keeps_integer_digits(&self) -> bool {
        self.op == Op::Abs
    }

    fn can_overflow(&self) -> bool {
        // |-2^63| is no BIGINT.
        self.op == Op::Abs
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let out = numeric_fn(self.op, a.arg(0)?, a.arrays.get(1), call.data_type)?;
        a.finish(out, call.data_type)
    }
}

/// ABS / ROUND / TRUNCATE / FLOOR / CEIL of Decimal256 values at scale `s`
/// (`d`: the digits of ROUND and TRUNCATE), into `t`.
fn wide_numeric_fn(op: Op, a: &ArrayRef, s: i8, d: i64, t: &DataType) -> Result<ArrayRef> {
    use quiver_common::i256;
    use quiver_common::types::{pow10, rescale256};
    let d = d.clamp(-38, 38) as i8;
    let st = match t {
        DataType::Decimal128(_, st) | DataType::Decimal256(_, st) => *st,
        _ => s,
    };
    let unit = |k: i8| pow10(k.max(0) as u32).unwrap_or(i256::MAX);
    let v: Vec<i256> = a
        .as_primitive::<Decimal256Type>()
        .values()
        .iter()
        .map(|x| {
            let r = match op {
                Op::Abs => rescale256(x.wrapping_abs(), s, st),
                Op::Round => rescale256(*x, s, d).and_then(|r| rescale256(r, d, st)),
                Op::Truncate => {
                    // Integer division truncates toward zero, as TRUNCATE does.
                    let r = if d < s {
                        x.checked_div(unit(s - d))
                    } else {
                        rescale256(*x, s, d)
                    };
                    r.and_then(|r| rescale256(r, d, st))
                }
                _ => {
                    let u = unit(s);
                    let (q, rem) = x.checked_div_rem(u).unwrap_or((i256::ZERO, i256::ZERO));
                    let q = if rem != i256::ZERO && (op == Op::Ceil) != x.is_negative() {
                        q.wrapping_add(x.signum())
                    } else {
                        q
                    };
                    rescale256(q, 0, st)
                }
            };
            r.unwrap_or(i256::ZERO)
        })
        .collect();
    let w: ArrayRef = Arc::new(
        arrow_array::Decimal256Array::new(v.into(), a.logical_nulls())
            .with_precision_and_scale(76, st)?,
    );
    cast_array(&w, t)
}

fn numeric_fn(op: Op, a: &ArrayRef, digits: Option<&ArrayRef>, t: &DataType) -> Result<ArrayRef> {
    let out = numeric_values(op, a, digits, t)?;
    // ROUND(x, NULL) is NULL.
    match digits.and_then(|d| d.logical_nulls()) {
        Some(dn) if dn.null_count() > 0 => {
            let nulls = arrow_buffer::NullBuffer::union(out.logical_nulls().as_ref(), Some(&dn));
            let data = out.to_data().into_builder().nulls(nulls).build()?;
            Ok(arrow_array::make_array(data))
        }
        _ => Ok(out),
    }
}

/// [`numeric_fn`] but for the NULLs of `digits`.
fn numeric_values(
    op: Op,
    a: &ArrayRef,
    digits: Option<&ArrayRef>,
    t: &DataType,
) -> Result<ArrayRef> {
    let d = match digits {
        Some(d) => {
            let di = cast_array(d, &DataType::Int64)?;
            let di = di.as_primitive::<Int64Type>();
            let mut valid = (0..di.len())
                .filter(|&i| di.is_valid(i))
                .map(|i| di.value(i));
            let first = valid.next().unwrap_or(0);
            if valid.any(|v| v != first) {
                // Digits that vary by row (ROUND(x, col)): each row with
                // its own (a NULL row's digits make a NULL the caller sets).
                let rows = (0..a.len())
                    .map(|i| numeric_fn(op, &a.slice(i, 1), Some(&d.slice(i, 1)), t))
                    .collect::<Result<Vec<_>>>()?;
                let refs: Vec<&dyn Array> = rows.iter().map(|r| r.as_ref()).collect();
                return Ok(arrow_select::concat::concat(&refs)?);
            }
            first
        }
        None => 0,
    };
    match a.data_type() {
        DataType::Decimal256(_, s) => wide_numeric_fn(op, a, *s, d, t),
        DataType::Decimal128(_, s) if matches!(t, DataType::Decimal256(..)) => {
            let w = cast_array(a, &DataType::Decimal256(76, *s))?;
            wide_numeric_fn(op, &w, *s, d, t)
        }
        DataType::Decimal128(_, s) => {
            let s = *s;
            let DataType::Decimal128(pt, st) = t.clone() else {
                let f = cast_array(a, &DataType::Float64)?;
                return numeric_fn(op, &f, digits, t);
            };
            let v: Vec<i128> = a
                .as_primitive::<Decimal128Type>()
                .values()
                .iter()
                .map(|x| match op {
                    Op::Abs => rescale(x.abs(), s, st).unwrap_or(0),
                    Op::Round => {
                        let r = rescale(*x, s, d.clamp(-30, 30) as i8).unwrap_or(0);
                        rescale(r, d.clamp(-30, 30) as i8, st).unwrap_or(0)
                    }
                    Op::Truncate => {
                        let d = d.clamp(-30, 30) as i8;
                        // Integer division truncates toward zero, as TRUNCATE does.
                        let r = if d < s {
                            x / 10i128.pow((s - d) as u32)
                        } else {
                            rescale(*x, s, d).unwrap_or(0)
                        };
                        rescale(r, d, st).unwrap_or(0)
                    }
                    _ => {
                        let unit = 10i128.pow(s as u32);
                        let q = x.div_euclid(unit);
                        let q = if op == Op::Ceil && x.rem_euclid(unit) != 0 {
                            q + 1
                        } else {
                            q
                        };
                        rescale(q, 0, st).unwrap_or(0)
                    }
                })
                .collect();
            Ok(Arc::new(
                arrow_array::Decimal128Array::new(v.into(), a.logical_nulls())
                    .with_precision_and_scale(pt, st)?,
            ))
        }
        dt if dt.is_integer() => cast_array(
            &match op {
                // Unsigned values are their own absolute value.
                Op::Abs if dt.is_unsigned_integer() => a.clone(),
                Op::Abs => {
                    let i = cast_array(a, &DataType::Int64)?;
                    // |-2^63| is no BIGINT: 1690, as MySQL.
                    Arc::new(
                        i.as_primitive::<Int64Type>()
                            .try_unary::<_, Int64Type, _>(|v| {
                                v.checked_abs()
                                    .ok_or_else(|| QuiverError::out_of_range_unnamed("BIGINT"))
                            })?,
                    ) as ArrayRef
                }
                // Negative digits round or cut to tens, hundreds, ...
                Op::Round | Op::Truncate if d < 0 => {
                    let unit = 10i128.checked_pow((-d) as u32).unwrap_or(i128::MAX);
                    let i = cast_array(a, &DataType::Decimal128(38, 0))?;
                    let v: Vec<i128> = i
                        .as_primitive::<Decimal128Type>()
                        .values()
                        .iter()
                        .map(|x| {
                            let q = x / unit;
                            let r = x % unit;
                            let q = if op == Op::Round && r.abs() * 2 >= unit {
                                q + x.signum()
                            } else {
                                q
                            };
                            q.saturating_mul(unit)
                        })
                        .collect();
                    Arc::new(
                        arrow_array::Decimal128Array::new(v.into(), a.logical_nulls())
                            .with_precision_and_scale(38, 0)?,
                    ) as ArrayRef
                }
                _ => a.clone(),
            },
            t,
        ),
        _ => {
            let f = cast_array(a, &DataType::Float64)?;
            let out: Float64Array = f.as_primitive::<Float64Type>().unary(|x| match op {
                Op::Abs => x.abs(),
                Op::Round => double_round(x, d, false),
                Op::Truncate => double_round(x, d, true),
                Op::Floor => x.floor(),
                _ => x.ceil(),
            });
            cast_array(&(Arc::new(out) as ArrayRef), t)
        }
    }
}

/// ROUND / TRUNCATE of a DOUBLE to `d` digits, as MariaDB's
/// `my_double_round`: to negative digits the value is divided by 10^-d
/// (exact for the powers a double holds, where multiplying by 10^d is not),
/// a power too large for a double gives 0 (negative digits) or the value
/// itself (positive digits), and rounding is half to even (the C library's
/// `rint`).
pub(crate) fn double_round(x: f64, d: i64, truncate: bool) -> f64 {
    let p = 10f64.powf(d.unsigned_abs() as f64);
    let (scaled, back): (f64, fn(f64, f64) -> f64) = if d < 0 {
        if p.is_infinite() {
            return 0.0;
        }
        (x / p, |v, p| v * p)
    } else {
        let m = x * p;
        // Too many digits to change anything (also 0 times an infinite
        // power, which MariaDB answers as 0).
        if !m.is_finite() {
            return x;
        }
        (m, |v, p| v / p)
    };
    let r = if truncate {
        scaled.trunc()
    } else {
        scaled.round_ties_even()
    };
    back(r, p)
}

#[cfg(test)]
mod double_round_tests {
    use super::double_round;

    #[test]
    fn huge_digit_counts_give_zero_or_the_value() {
        assert_eq!(double_round(-0.5, -2147483648, true), 0.0);
        assert_eq!(double_round(-0.5, -400, false), 0.0);
        assert_eq!(double_round(1.25, 400, false), 1.25);
        assert_eq!(double_round(1e300, 100, true), 1e300);
        assert_eq!(double_round(0.0, 100_000_000, false), 0.0);
        assert_eq!(double_round(1234.5678, -2, false), 1200.0);
        assert_eq!(double_round(1234.5678, 2, true), 1234.56);
        assert_eq!(double_round(2.5, 0, false), 2.0);
    }
}
