//! Arithmetic with MySQL's rules: exact integer and decimal results, overflow
//! as error 1690, division by zero as NULL, `/` adding four digits of scale.

use std::sync::Arc;

use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, Decimal128Array, Float64Array, Int64Array,
    UInt64Array,
};
use arrow_buffer::{i256, BooleanBuffer, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;
use quiver_common::types::{
    decimal_shape, division_internal_scale, rescale, DIV_PRECISION_INCREMENT, MAX_DECIMAL_PRECISION,
};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::BinaryOp;

use super::{cast_array, ColumnarValue};

/// One operand: a column of values with its nulls, or one value for every row.
enum Operand<T: arrow_buffer::ArrowNativeType> {
    Values(ScalarBuffer<T>, Option<NullBuffer>),
    Constant(T),
}

impl<T: Copy + arrow_buffer::ArrowNativeType> Operand<T> {
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        match self {
            Operand::Values(v, _) => v[i],
            Operand::Constant(c) => *c,
        }
    }

    fn nulls(&self) -> Option<&NullBuffer> {
        match self {
            Operand::Values(_, n) => n.as_ref(),
            Operand::Constant(_) => None,
        }
    }
}

/// Brings a value to `t` and splits it into an operand; None means a NULL constant.
fn operand<T: arrow_array::ArrowPrimitiveType>(
    v: &ColumnarValue,
    t: &DataType,
) -> Result<Option<Operand<T::Native>>> {
    Ok(match v {
        ColumnarValue::Scalar(ScalarValue::Null, _) => None,
        ColumnarValue::Scalar(s, st) => {
            let a = cast_array(&quiver_common::scalar::scalar_to_array(s, st, 1)?, t)?;
            if a.is_null(0) {
                None
            } else {
                Some(Operand::Constant(a.as_primitive::<T>().value(0)))
            }
        }
        ColumnarValue::Array(a) => {
            let a = if a.data_type() == t {
                a.clone()
            } else {
                cast_array(a, t)?
            };
            let p = a.as_primitive::<T>();
            Some(Operand::Values(p.values().clone(), p.nulls().cloned()))
        }
    })
}

fn out_of_range(t: &str, op: BinaryOp) -> QuiverError {
    QuiverError::out_of_range(t, &format!("a {} b", op.symbol()))
}

/// Runs `f` over all rows; `f` returns None for a NULL result (division by zero).
/// `overflow` is set by `f` when a result does not fit.
fn run<T: Copy + arrow_buffer::ArrowNativeType, O: arrow_buffer::ArrowNativeType + Default>(
    l: &Operand<T>,
    r: &Operand<T>,
    rows: usize,
    f: impl Fn(T, T, &mut bool) -> Option<O>,
) -> (Vec<O>, Option<NullBuffer>, bool) {
    let nulls_in = NullBuffer::union(l.nulls(), r.nulls());
    // Fast path: one tight loop writing values and an overflow flag; only a
    // NULL result (division by zero) sends us to the slower path below.
    let mut out = Vec::with_capacity(rows);
    let mut overflow = false;
    let mut produced_null = false;
    macro_rules! body {
        ($get_l:expr, $get_r:expr) => {
            for i in 0..rows {
                let mut of = false;
                let v = f($get_l(i), $get_r(i), &mut of);
                overflow |= of;
                produced_null |= v.is_none();
                out.push(v.unwrap_or_default());
            }
        };
    }
    match (l, r) {
        (Operand::Values(a, _), Operand::Values(b, _)) => body!(|i| a[i], |i| b[i]),
        (Operand::Values(a, _), Operand::Constant(c)) => body!(|i| a[i], |_| *c),
        (Operand::Constant(c), Operand::Values(b, _)) => body!(|_| *c, |i| b[i]),
        (Operand::Constant(c), Operand::Constant(d)) => body!(|_| *c, |_| *d),
    }
    if !overflow && !produced_null {
        return (out, nulls_in, false);
    }
    // Overflow in a NULL row does not count; NULL results join the null mask.
    let mut valid: Vec<bool> = (0..rows)
        .map(|i| nulls_in.as_ref().is_none_or(|n| n.is_valid(i)))
        .collect();
    overflow = false;
    for (i, ok) in valid.iter_mut().enumerate() {
        let mut of = false;
        let v = f(l.get(i), r.get(i), &mut of);
        if *ok {
            overflow |= of;
        }
        if v.is_none() {
            *ok = false;
        }
    }
    (
        out,
        Some(NullBuffer::new(BooleanBuffer::from(valid))),
        overflow,
    )
}

pub fn arithmetic(
    op: BinaryOp,
    l: ColumnarValue,
    r: ColumnarValue,
    t: &DataType,
    rows: usize,
) -> Result<ColumnarValue> {
    let all_scalar = matches!(
        (&l, &r),
        (ColumnarValue::Scalar(..), ColumnarValue::Scalar(..))
    );
    let n = if all_scalar { 1 } else { rows };
    let out: ArrayRef = match t {
        DataType::Int64 => {
            let (Some(a), Some(b)) = (operand::<Int64Type>(&l, t)?, operand::<Int64Type>(&r, t)?)
            else {
                return Ok(ColumnarValue::Scalar(ScalarValue::Null, t.clone()));
            };
            if op == BinaryOp::IntDiv && (is_fractional(&l) || is_fractional(&r)) {
                return fractional_int_div(l, r, rows);
            }
            let (v, nulls, of) = run(&a, &b, n, |x: i64, y: i64, of: &mut bool| match op {
                BinaryOp::Add => {
                    let (v, o) = x.overflowing_add(y);
                    *of = o;
                    Some(v)
                }
                BinaryOp::Sub => {
                    let (v, o) = x.overflowing_sub(y);
                    *of = o;
                    Some(v)
                }
                BinaryOp::Mul => {
                    let (v, o) = x.overflowing_mul(y);
                    *of = o;
                    Some(v)
                }
                BinaryOp::IntDiv => {
                    if y == 0 {
                        None
                    } else {
                        Some(x.wrapping_div(y))
                    }
                }
                BinaryOp::Mod => {
                    if y == 0 {
                        None
                    } else {
                        Some(x.wrapping_rem(y))
                    }
                }
                _ => None,
            });
            if of {
                return Err(out_of_range("BIGINT", op));
            }
            Arc::new(Int64Array::new(v.into(), nulls))
        }
        DataType::UInt64 => {
            let wide = DataType::Decimal128(38, 0);
            let (Some(a), Some(b)) = (
                operand::<Decimal128Type>(&l, &wide)?,
                operand::<Decimal128Type>(&r, &wide)?,
            ) else {
                return Ok(ColumnarValue::Scalar(ScalarValue::Null, t.clone()));
            };
            let (v, nulls, of) = run(&a, &b, n, |x: i128, y: i128, of: &mut bool| {
                let v = match op {
                    BinaryOp::Add => x + y,
                    BinaryOp::Sub => x - y,
                    BinaryOp::Mul => x.checked_mul(y).unwrap_or(-1),
                    BinaryOp::IntDiv => {
                        if y == 0 {
                            return None;
                        } else {
                            x / y
                        }
                    }
                    BinaryOp::Mod => {
                        if y == 0 {
                            return None;
                        } else {
                            x % y
                        }
                    }
                    _ => return None,
                };
                *of = !(0..=u64::MAX as i128).contains(&v);
                Some(v as u64)
            });
            if of {
                return Err(out_of_range("BIGINT UNSIGNED", op));
            }
            Arc::new(UInt64Array::new(v.into(), nulls))
        }
        DataType::Float64 => {
            let (Some(a), Some(b)) = (
                operand::<Float64Type>(&l, t)?,
                operand::<Float64Type>(&r, t)?,
            ) else {
                return Ok(ColumnarValue::Scalar(ScalarValue::Null, t.clone()));
            };
            let (v, nulls, of) = run(&a, &b, n, |x: f64, y: f64, of: &mut bool| {
                let v = match op {
                    BinaryOp::Add => x + y,
                    BinaryOp::Sub => x - y,
                    BinaryOp::Mul => x * y,
                    BinaryOp::Div => {
                        if y == 0.0 {
                            return None;
                        } else {
                            x / y
                        }
                    }
                    BinaryOp::Mod => {
                        if y == 0.0 {
                            return None;
                        } else {
                            x % y
                        }
                    }
                    _ => return None,
                };
                *of = !v.is_finite();
                Some(v)
            });
            if of {
                return Err(out_of_range("DOUBLE", op));
            }
            Arc::new(Float64Array::new(v.into(), nulls))
        }
        DataType::Decimal128(p, s) => decimal_arith(op, &l, &r, *p, *s, n)?,
        other => {
            return Err(QuiverError::not_supported(format!(
                "arithmetic producing {other}"
            )))
        }
    };
    if all_scalar {
        Ok(ColumnarValue::Scalar(
            ScalarValue::from_array(&out, 0)?,
            t.clone(),
        ))
    } else {
        Ok(ColumnarValue::Array(out))
    }
}

fn is_fractional(v: &ColumnarValue) -> bool {
    matches!(
        v.data_type(),
        DataType::Decimal128(..) | DataType::Float64 | DataType::Float32
    )
}

fn fractional_int_div(l: ColumnarValue, r: ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    let f = DataType::Float64;
    let (Some(a), Some(b)) = (
        operand::<Float64Type>(&l, &f)?,
        operand::<Float64Type>(&r, &f)?,
    ) else {
        return Ok(ColumnarValue::Scalar(ScalarValue::Null, DataType::Int64));
    };
    let (v, nulls, _) = run(&a, &b, rows, |x: f64, y: f64, _| {
        if y == 0.0 {
            None
        } else {
            Some((x / y).trunc() as i64)
        }
    });
    Ok(ColumnarValue::Array(Arc::new(Int64Array::new(
        v.into(),
        nulls,
    ))))
}

fn decimal_arith(
    op: BinaryOp,
    l: &ColumnarValue,
    r: &ColumnarValue,
    p: u8,
    s: i8,
    n: usize,
) -> Result<ArrayRef> {
    let shape = |v: &ColumnarValue| {
        let (p, s) = decimal_shape(&v.data_type());
        DataType::Decimal128(p.max(s as u8).max(1), s)
    };
    let null = || Ok(arrow_array::new_null_array(&DataType::Decimal128(p, s), n));
    let (v, nulls, of) = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mod => {
            let t = DataType::Decimal128(38, s);
            let (Some(a), Some(b)) = (
                operand::<Decimal128Type>(l, &t)?,
                operand::<Decimal128Type>(r, &t)?,
            ) else {
                return null();
            };
            run(&a, &b, n, |x: i128, y: i128, of: &mut bool| match op {
                BinaryOp::Add => {
                    let (v, o) = x.overflowing_add(y);
                    *of = o;
                    Some(v)
                }
                BinaryOp::Sub => {
                    let (v, o) = x.overflowing_sub(y);
                    *of = o;
                    Some(v)
                }
                _ => {
                    if y == 0 {
                        None
                    } else {
                        Some(x % y)
                    }
                }
            })
        }
        BinaryOp::Mul => {
            let (tl, tr) = (shape(l), shape(r));
            let (DataType::Decimal128(_, s1), DataType::Decimal128(_, s2)) = (&tl, &tr) else {
                unreachable!()
            };
            let natural = s1 + s2;
            let (Some(a), Some(b)) = (
                operand::<Decimal128Type>(l, &tl)?,
                operand::<Decimal128Type>(r, &tr)?,
            ) else {
                return null();
            };
            run(&a, &b, n, |x: i128, y: i128, of: &mut bool| {
                let (v, o) = x.overflowing_mul(y);
                *of = o;
                if natural == s {
                    Some(v)
                } else {
                    rescale(v, natural, s)
                }
            })
        }
        BinaryOp::Div => {
            let (tl, tr) = (shape(l), shape(r));
            let (DataType::Decimal128(_, s1), DataType::Decimal128(_, s2)) = (&tl, &tr) else {
                unreachable!()
            };
            // a / b at scale s: a * 10^(s - s1 + s2) / b. MySQL truncates the
            // quotient at its internal digits and rounds that to the declared
            // scale when shown. The binder gives s = those internal digits
            // (truncate here) or, where they do not fit in 38, the declared
            // scale s1 + 4: then rounding the exact quotient half away from
            // zero gives what MySQL's truncated digits round to.
            let round = s < division_internal_scale(*s1, *s2)
                && s == (*s1 + DIV_PRECISION_INCREMENT).min(MAX_DECIMAL_SCALE);
            let shift = (s - s1 + s2) as u32;
            let factor = 10i128.checked_pow(shift);
            let (Some(a), Some(b)) = (
                operand::<Decimal128Type>(l, &tl)?,
                operand::<Decimal128Type>(r, &tr)?,
            ) else {
                return null();
            };
            run(&a, &b, n, |x: i128, y: i128, of: &mut bool| {
                if y == 0 {
                    return None;
                }
                let q = match factor.and_then(|f| x.checked_mul(f)) {
                    Some(num) => Some(divide(num, y, round)),
                    None => wide_divide(x, shift, y, round),
                };
                // More than 38 digits: MySQL has room for 65, we do not.
                match q {
                    Some(q) if q.unsigned_abs() < DECIMAL_LIMIT => Some(q),
                    _ => {
                        *of = true;
                        Some(0)
                    }
                }
            })
        }
        _ => {
            return Err(QuiverError::internal(
                "integer division produces an integer",
            ))
        }
    };
    if of {
        return Err(out_of_range("DECIMAL", op));
    }
    Ok(Arc::new(
        Decimal128Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
    ))
}

/// `l op r` for `/`, DIV and `%` where division by zero is error 1365
/// (strict mode with ERROR_FOR_DIVISION_BY_ZERO) instead of NULL: a NULL
/// result from two non-NULL operands.
pub fn strict_division(
    op: BinaryOp,
    l: ArrayRef,
    r: ArrayRef,
    t: &DataType,
    rows: usize,
) -> Result<ArrayRef> {
    let out = arithmetic(
        op,
        ColumnarValue::Array(l.clone()),
        ColumnarValue::Array(r.clone()),
        t,
        rows,
    )?
    .into_array(rows)?;
    if out.null_count() > 0 {
        let zero_division = (0..rows).any(|i| out.is_null(i) && l.is_valid(i) && r.is_valid(i));
        if zero_division {
            return Err(QuiverError::new(1365, "22012", "Division by 0"));
        }
    }
    Ok(out)
}

/// 10^38: the first value a Decimal128 of precision 38 cannot hold.
const DECIMAL_LIMIT: u128 = 10u128.pow(MAX_DECIMAL_PRECISION as u32);
/// MySQL's largest DECIMAL scale (the binder caps result scales there).
const MAX_DECIMAL_SCALE: i8 = 30;

/// num / y, truncated or rounded half away from zero.
#[inline(always)]
fn divide(num: i128, y: i128, round: bool) -> i128 {
    let q = num / y;
    if round && (num % y).unsigned_abs() >= y.unsigned_abs() - (num % y).unsigned_abs() {
        // Remainder at least half of the divisor: away from zero.
        if (num < 0) != (y < 0) {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

/// x * 10^shift / y when x * 10^shift does not fit in i128; None when the
/// quotient does not either.
#[cold]
fn wide_divide(x: i128, shift: u32, y: i128, round: bool) -> Option<i128> {
    let ten = i256::from_i128(10);
    let num = i256::from_i128(x).checked_mul(ten.checked_pow(shift)?)?;
    let y = i256::from_i128(y);
    let mut q = num.checked_div(y)?;
    if round {
        let r = num.checked_rem(y)?.wrapping_abs();
        if r >= y.wrapping_abs().wrapping_sub(r) {
            q = if num.is_negative() != y.is_negative() {
                q.wrapping_sub(i256::ONE)
            } else {
                q.wrapping_add(i256::ONE)
            };
        }
    }
    q.to_i128()
}

pub fn negate(v: ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    let t = match v.data_type() {
        t if t.is_unsigned_integer() || t.is_integer() || t == DataType::Boolean => DataType::Int64,
        DataType::Null => return Ok(v),
        DataType::Decimal128(p, s) => DataType::Decimal128(p, s),
        _ => DataType::Float64,
    };
    if v.data_type() == DataType::UInt64 {
        return negate_unsigned(v, rows);
    }
    let zero = ColumnarValue::Scalar(ScalarValue::Int64(0), DataType::Int64);
    arithmetic(BinaryOp::Sub, zero, v, &t, rows)
}

/// -x of a BIGINT UNSIGNED is a BIGINT: MySQL's error 1690 above 2^63
/// (the cast to BIGINT would clamp it into a wrong value).
fn negate_unsigned(v: ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    let a = v.into_array(rows)?;
    let u = a.as_primitive::<UInt64Type>();
    let mut of = false;
    let out: Vec<i64> = u
        .values()
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let n = -(*x as i128);
            if n < i64::MIN as i128 {
                of |= u.is_valid(i);
                0
            } else {
                n as i64
            }
        })
        .collect();
    if of {
        return Err(QuiverError::out_of_range("BIGINT", "-x"));
    }
    Ok(ColumnarValue::Array(Arc::new(Int64Array::new(
        out.into(),
        u.nulls().cloned(),
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: Vec<i128>, p: u8, s: i8) -> ColumnarValue {
        ColumnarValue::Array(Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(p, s)
                .unwrap(),
        ))
    }

    #[test]
    fn decimal_division_truncates_at_internal_digits_rounds_at_declared_scale() {
        // 2.00000 / 3: MySQL's 9 internal digits are the declared scale, truncated.
        let out = arithmetic(
            BinaryOp::Div,
            dec(vec![200_000, -200_000], 15, 5),
            dec(vec![3, 3], 1, 0),
            &DataType::Decimal128(19, 9),
            2,
        )
        .unwrap()
        .into_array(2)
        .unwrap();
        let d = out.as_primitive::<Decimal128Type>();
        assert_eq!(d.values().to_vec(), vec![666_666_666, -666_666_666]);
        // 1.00 / 3.00 at the declared scale 6 (MySQL: 18 digits inside, then
        // rounded): 0.333333, 0.666667, -0.666667.
        let out = arithmetic(
            BinaryOp::Div,
            dec(vec![100, 200, -200], 15, 2),
            dec(vec![300, 300, 300], 15, 2),
            &DataType::Decimal128(23, 6),
            3,
        )
        .unwrap()
        .into_array(3)
        .unwrap();
        let d = out.as_primitive::<Decimal128Type>();
        assert_eq!(d.values().to_vec(), vec![333_333, 666_667, -666_667]);
    }

    #[test]
    fn decimal_division_beyond_i128_inside() {
        // 10^37 / 3 at scale 4: the dividend needs 41 digits at that scale.
        let big = 10i128.pow(37);
        let out = arithmetic(
            BinaryOp::Div,
            dec(vec![big, 2 * big], 38, 0),
            dec(vec![big, 3], 38, 0),
            &DataType::Decimal128(38, 4),
            2,
        );
        // 2 * 10^37 / 3 = 6.7e36 at scale 4 needs 41 digits: error 1690.
        assert_eq!(out.unwrap_err().code, 1690);
        let out = arithmetic(
            BinaryOp::Div,
            dec(vec![big], 38, 0),
            dec(vec![3 * big], 38, 0),
            &DataType::Decimal128(38, 4),
            1,
        )
        .unwrap()
        .into_array(1)
        .unwrap();
        assert_eq!(out.as_primitive::<Decimal128Type>().value(0), 3333);
    }

    #[test]
    fn bigint_overflow_is_error_1690() {
        let a = ColumnarValue::Array(Arc::new(Int64Array::from(vec![i64::MAX])));
        let b = ColumnarValue::Scalar(ScalarValue::Int64(1), DataType::Int64);
        let e = arithmetic(BinaryOp::Add, a, b, &DataType::Int64, 1).unwrap_err();
        assert_eq!(e.code, 1690);
    }

    #[test]
    fn division_by_zero_is_null() {
        let a = ColumnarValue::Array(Arc::new(Int64Array::from(vec![1, 2])));
        let b = ColumnarValue::Array(Arc::new(Int64Array::from(vec![0, 2])));
        let out = arithmetic(BinaryOp::Div, a, b, &DataType::Decimal128(23, 4), 2)
            .unwrap()
            .into_array(2)
            .unwrap();
        assert!(out.is_null(0));
        assert_eq!(out.as_primitive::<Decimal128Type>().value(1), 10000);
    }
}
