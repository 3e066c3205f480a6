//! Arithmetic with MySQL's rules: exact integer and decimal results, overflow
//! as error 1690, division by zero as NULL, `/` adding four digits of scale.

use std::sync::Arc;

use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, Decimal128Array, Decimal256Array, Float64Array,
    Int64Array, UInt64Array,
};
use arrow_buffer::{i256, BooleanBuffer, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;
use quiver_common::types::{
    decimal_shape, division_internal_scale, pow10, rescale, rescale256, DIV_PRECISION_INCREMENT,
    MAX_DECIMAL128_PRECISION, MAX_DECIMAL_SCALE,
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
            let a = match (a.data_type(), t) {
                _ if a.data_type() == t => a.clone(),
                // Decimals of one scale have the same values whatever their
                // precision: no copy to relabel DECIMAL(15,2) as (38,2).
                (DataType::Decimal128(_, s1), DataType::Decimal128(_, s2)) if s1 == s2 => a.clone(),
                _ => cast_array(a, t)?,
            };
            let p = a.as_primitive::<T>();
            Some(Operand::Values(p.values().clone(), p.nulls().cloned()))
        }
    })
}

fn out_of_range(t: &str) -> QuiverError {
    QuiverError::out_of_range_unnamed(t)
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

/// [`run`] for an operation with a value for every row (`+`, `-`, `*`):
/// one loop without a branch, which the compiler vectorizes, OR-ing the
/// overflow flags; only when one is set are the rows looked at again, since
/// an overflow in a NULL row does not count.
fn run_total<T: Copy + arrow_buffer::ArrowNativeType, O: arrow_buffer::ArrowNativeType>(
    l: &Operand<T>,
    r: &Operand<T>,
    rows: usize,
    f: impl Fn(T, T) -> (O, bool),
) -> (Vec<O>, Option<NullBuffer>, bool) {
    let nulls = NullBuffer::union(l.nulls(), r.nulls());
    let mut overflow = false;
    let mut step = |x: T, y: T| {
        let (v, o) = f(x, y);
        overflow |= o;
        v
    };
    let out: Vec<O> = match (l, r) {
        (Operand::Values(a, _), Operand::Values(b, _)) => a[..rows]
            .iter()
            .zip(&b[..rows])
            .map(|(&x, &y)| step(x, y))
            .collect(),
        (Operand::Values(a, _), Operand::Constant(c)) => {
            a[..rows].iter().map(|&x| step(x, *c)).collect()
        }
        (Operand::Constant(c), Operand::Values(b, _)) => {
            b[..rows].iter().map(|&y| step(*c, y)).collect()
        }
        (Operand::Constant(c), Operand::Constant(d)) => (0..rows).map(|_| step(*c, *d)).collect(),
    };
    if overflow {
        overflow = (0..rows)
            .any(|i| nulls.as_ref().is_none_or(|n| n.is_valid(i)) && f(l.get(i), r.get(i)).1);
    }
    (out, nulls, overflow)
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
                let out = fractional_int_div(&l, &r, rows)?;
                if let ColumnarValue::Array(a) = &out {
                    if a.null_count() > 0 {
                        warn_division_by_zero(&l, &r, a, 1);
                    }
                }
                return Ok(out);
            }
            let total = match op {
                BinaryOp::Add => Some(run_total(&a, &b, n, i64::overflowing_add)),
                BinaryOp::Sub => Some(run_total(&a, &b, n, i64::overflowing_sub)),
                BinaryOp::Mul => Some(run_total(&a, &b, n, i64::overflowing_mul)),
                _ => None,
            };
            let (v, nulls, of) = match total {
                Some(t) => t,
                None => run(&a, &b, n, |x: i64, y: i64, of: &mut bool| match op {
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
                            // i64::MIN DIV -1 does not fit: 1690, as MariaDB.
                            let (v, o) = x.overflowing_div(y);
                            *of |= o;
                            Some(v)
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
                }),
            };
            if of {
                return Err(out_of_range("BIGINT"));
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
                return Err(out_of_range("BIGINT UNSIGNED"));
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
                return Err(out_of_range("DOUBLE"));
            }
            Arc::new(Float64Array::new(v.into(), nulls))
        }
        DataType::Decimal128(p, s)
            if matches!(l.data_type(), DataType::Decimal256(..))
                || matches!(r.data_type(), DataType::Decimal256(..)) =>
        {
            // A narrow result of a wide operand (a small number divided by a
            // DECIMAL(50)): computed wide, then narrowed.
            let wide = wide_decimal_arith(op, &l, &r, 76, *s, n)?;
            cast_array(&wide, t)?
        }
        DataType::Decimal128(p, s) => decimal_arith(op, &l, &r, *p, *s, n)?,
        DataType::Decimal256(p, s) => wide_decimal_arith(op, &l, &r, *p, *s, n)?,
        other => {
            return Err(QuiverError::not_supported(format!(
                "arithmetic producing {other}"
            )))
        }
    };
    if matches!(op, BinaryOp::Div | BinaryOp::IntDiv | BinaryOp::Mod) && out.null_count() > 0 {
        // A constant quotient stands for every row of the batch.
        warn_division_by_zero(&l, &r, &out, if all_scalar { rows } else { 1 });
    }
    if all_scalar {
        Ok(ColumnarValue::Scalar(
            ScalarValue::from_array(&out, 0)?,
            t.clone(),
        ))
    } else {
        Ok(ColumnarValue::Array(out))
    }
}

/// Warning 1365 for each row a division made NULL: a NULL the operands do
/// not explain (MySQL raises none for `NULL / 0`).
#[cold]
fn warn_division_by_zero(l: &ColumnarValue, r: &ColumnarValue, out: &ArrayRef, per_null: usize) {
    let null_constant = |v: &ColumnarValue| matches!(v, ColumnarValue::Scalar(s, _) if s.is_null());
    if null_constant(l) || null_constant(r) {
        return;
    }
    let nulls = |v: &ColumnarValue| match v {
        ColumnarValue::Array(a) => a.logical_nulls(),
        ColumnarValue::Scalar(..) => None,
    };
    let (ln, rn) = (nulls(l), nulls(r));
    let from_operands = NullBuffer::union(ln.as_ref(), rn.as_ref()).map_or(0, |n| n.null_count());
    let made = out.null_count().saturating_sub(from_operands);
    crate::warnings::division_by_zero((made * per_null) as u64);
}

fn is_fractional(v: &ColumnarValue) -> bool {
    matches!(
        v.data_type(),
        DataType::Decimal128(..) | DataType::Decimal256(..) | DataType::Float64 | DataType::Float32
    )
}

fn fractional_int_div(l: &ColumnarValue, r: &ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    let f = DataType::Float64;
    let (Some(a), Some(b)) = (
        operand::<Float64Type>(l, &f)?,
        operand::<Float64Type>(r, &f)?,
    ) else {
        return Ok(ColumnarValue::Scalar(ScalarValue::Null, DataType::Int64));
    };
    let (v, nulls, of) = run(&a, &b, rows, |x: f64, y: f64, of: &mut bool| {
        if y == 0.0 {
            None
        } else {
            // A quotient past BIGINT is 1690, not a saturated value.
            let q = (x / y).trunc();
            *of |= !(-(2f64.powi(63))..2f64.powi(63)).contains(&q);
            Some(q as i64)
        }
    });
    if of {
        return Err(out_of_range("BIGINT"));
    }
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
    let done = |v: Vec<i128>, nulls| -> Result<ArrayRef> {
        Ok(Arc::new(
            Decimal128Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
        ))
    };
    let (v, nulls, of) = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mod => {
            let t = DataType::Decimal128(38, s);
            let (Some(a), Some(b)) = (
                operand::<Decimal128Type>(l, &t)?,
                operand::<Decimal128Type>(r, &t)?,
            ) else {
                return null();
            };
            // Operands within i64 cannot overflow an i128 sum: one plain
            // loop per batch, without a check or a branch per row.
            if op != BinaryOp::Mod && fits_i64(&a) && fits_i64(&b) {
                let nulls = NullBuffer::union(a.nulls(), b.nulls());
                let v = if op == BinaryOp::Add {
                    zip_map(&a, &b, n, |x, y| x + y)
                } else {
                    zip_map(&a, &b, n, |x, y| x - y)
                };
                return done(v, nulls);
            }
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
            // Operands within i64 (money times a rate): each product is one
            // widening multiply that fits an i128; at the natural scale no
            // rescaling either, so the batch is one plain loop.
            if natural == s && fits_i64(&a) && fits_i64(&b) {
                let nulls = NullBuffer::union(a.nulls(), b.nulls());
                let v = zip_map(&a, &b, n, |x, y| (x as i64 as i128) * (y as i64 as i128));
                return done(v, nulls);
            }
            run(&a, &b, n, |x: i128, y: i128, of: &mut bool| {
                let v = match (i64::try_from(x), i64::try_from(y)) {
                    // The usual case (money times a rate): one widening
                    // multiply that cannot overflow, not i128's checked one.
                    (Ok(x), Ok(y)) => x as i128 * y as i128,
                    _ => {
                        let (v, o) = x.overflowing_mul(y);
                        *of = o;
                        v
                    }
                };
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
                    None => scaled_div(i256::from_i128(x), shift, i256::from_i128(y), round)
                        .and_then(|q| q.to_i128()),
                };
                // More than 38 digits: the binder gave a Decimal256 result
                // where the declared precision allows more.
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
        return Err(out_of_range("DECIMAL"));
    }
    done(v, nulls)
}

/// Whether every value of `v` (NULL rows' too) is within i64.
fn fits_i64(v: &Operand<i128>) -> bool {
    match v {
        // A fold, not `all`: no early exit, so the loop vectorizes.
        Operand::Values(v, _) => v.iter().fold(true, |ok, &x| ok & (x as i64 as i128 == x)),
        Operand::Constant(c) => *c as i64 as i128 == *c,
    }
}

/// `f` of the operands' values, row by row (NULL rows' values too: the
/// caller keeps the nulls).
#[inline(always)]
fn zip_map(
    a: &Operand<i128>,
    b: &Operand<i128>,
    rows: usize,
    f: impl Fn(i128, i128) -> i128,
) -> Vec<i128> {
    match (a, b) {
        (Operand::Values(x, _), Operand::Values(y, _)) => x[..rows]
            .iter()
            .zip(&y[..rows])
            .map(|(&x, &y)| f(x, y))
            .collect(),
        (Operand::Values(x, _), Operand::Constant(c)) => {
            x[..rows].iter().map(|&x| f(x, *c)).collect()
        }
        (Operand::Constant(c), Operand::Values(y, _)) => {
            y[..rows].iter().map(|&y| f(*c, y)).collect()
        }
        (Operand::Constant(c), Operand::Constant(d)) => vec![f(*c, *d); rows],
    }
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
    // The error replaces the warnings the division raised.
    let mark = crate::warnings::mark();
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
            crate::warnings::rollback(mark);
            return Err(QuiverError::new(1365, "22012", "Division by 0"));
        }
    }
    Ok(out)
}

/// 10^38: the first value a Decimal128 of precision 38 cannot hold.
const DECIMAL_LIMIT: u128 = 10u128.pow(MAX_DECIMAL128_PRECISION as u32);

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

/// x * 10^shift / y, truncated or rounded half away from zero, for
/// dividends beyond i128 and Decimal256 quotients. The dividend may need more
/// than 76 digits (a DECIMAL(65,30) over itself shifts by 34): long division
/// in steps of up to 10 digits keeps every intermediate below |y| * 10^10.
/// None when the quotient does not fit an i256 (or |y| >= 10^66).
pub(crate) fn scaled_div(x: i256, shift: u32, y: i256, round: bool) -> Option<i256> {
    let negative = x.is_negative() != y.is_negative();
    let (xa, ya) = (x.checked_abs()?, y.checked_abs()?);
    let (mut q, mut r) = xa.checked_div_rem(ya)?;
    let mut left = shift;
    while left > 0 {
        let k = left.min(10);
        let m = pow10(k)?;
        let (dq, dr) = r.checked_mul(m)?.checked_div_rem(ya)?;
        q = q.checked_mul(m)?.checked_add(dq)?;
        r = dr;
        left -= k;
    }
    // Remainder at least half of the divisor: away from zero.
    if round && r >= ya.wrapping_sub(r) {
        q = q.checked_add(i256::ONE)?;
    }
    Some(if negative { q.wrapping_neg() } else { q })
}

#[cold]
fn wide_product(
    x: i128,
    y: i128,
    finish: &impl Fn(Option<i256>, &mut bool) -> Option<i256>,
    of: &mut bool,
) -> Option<i256> {
    finish(i256::from_i128(x).checked_mul(i256::from_i128(y)), of)
}

/// `l op r` for a Decimal256 result DECIMAL(p, s) (p up to 65, or 76 for a
/// wide intermediate). Products of two Decimal128 operands multiply in i128
/// and widen only on overflow; a result of more than p digits is error 1690.
fn wide_decimal_arith(
    op: BinaryOp,
    l: &ColumnarValue,
    r: &ColumnarValue,
    p: u8,
    s: i8,
    n: usize,
) -> Result<ArrayRef> {
    let out_type = DataType::Decimal256(p, s);
    let null = || Ok(arrow_array::new_null_array(&out_type, n));
    let limit = pow10(p as u32).unwrap_or(i256::MAX);
    let fits = move |v: i256| v.checked_abs().is_some_and(|a| a < limit);
    // An operand at its own scale: Decimal128 stays narrow (the fast product).
    let own = |v: &ColumnarValue| {
        let t = v.data_type();
        let (p0, s0) = decimal_shape(&t);
        let narrow = !matches!(t, DataType::Decimal256(..)) && p0 <= MAX_DECIMAL128_PRECISION;
        (narrow, s0)
    };
    let (v, nulls, of) = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mod => {
            let t = DataType::Decimal256(76, s);
            let (Some(a), Some(b)) = (
                operand::<Decimal256Type>(l, &t)?,
                operand::<Decimal256Type>(r, &t)?,
            ) else {
                return null();
            };
            run(&a, &b, n, |x: i256, y: i256, of: &mut bool| {
                // MySQL keeps a sum of two 65-digit values (66 digits); only
                // products and quotients beyond the precision are 1690.
                let v = match op {
                    BinaryOp::Add => x.checked_add(y),
                    BinaryOp::Sub => x.checked_sub(y),
                    _ if y == i256::ZERO => return None,
                    _ => x.checked_rem(y),
                };
                match v {
                    Some(v) => Some(v),
                    _ => {
                        *of = true;
                        Some(i256::ZERO)
                    }
                }
            })
        }
        BinaryOp::Mul => {
            let ((nl, s1), (nr, s2)) = (own(l), own(r));
            let natural = s1 + s2;
            let finish = move |v: Option<i256>, of: &mut bool| {
                let v = v.and_then(|v| {
                    if natural == s {
                        Some(v)
                    } else {
                        rescale256(v, natural, s)
                    }
                });
                match v {
                    Some(v) if fits(v) => Some(v),
                    _ => {
                        *of = true;
                        Some(i256::ZERO)
                    }
                }
            };
            if nl && nr {
                let (tl, tr) = (DataType::Decimal128(38, s1), DataType::Decimal128(38, s2));
                let (Some(a), Some(b)) = (
                    operand::<Decimal128Type>(l, &tl)?,
                    operand::<Decimal128Type>(r, &tr)?,
                ) else {
                    return null();
                };
                if natural == s {
                    // An i128 product is below 2^127 < 10^39 <= 10^p: it fits,
                    // and only the rare wider product takes the checked path.
                    run(&a, &b, n, |x: i128, y: i128, of: &mut bool| {
                        match x.checked_mul(y) {
                            Some(v) => Some(i256::from_i128(v)),
                            None => wide_product(x, y, &finish, of),
                        }
                    })
                } else {
                    run(&a, &b, n, |x: i128, y: i128, of: &mut bool| {
                        let v = match x.checked_mul(y) {
                            Some(v) => Some(i256::from_i128(v)),
                            None => i256::from_i128(x).checked_mul(i256::from_i128(y)),
                        };
                        finish(v, of)
                    })
                }
            } else {
                let (tl, tr) = (DataType::Decimal256(76, s1), DataType::Decimal256(76, s2));
                let (Some(a), Some(b)) = (
                    operand::<Decimal256Type>(l, &tl)?,
                    operand::<Decimal256Type>(r, &tr)?,
                ) else {
                    return null();
                };
                run(&a, &b, n, |x: i256, y: i256, of: &mut bool| {
                    finish(x.checked_mul(y), of)
                })
            }
        }
        BinaryOp::Div => {
            let ((_, s1), (_, s2)) = (own(l), own(r));
            // As in the Decimal128 path: truncated at MySQL's internal digits,
            // rounded where only the declared scale is kept.
            let round = s < division_internal_scale(s1, s2)
                && s == (s1 + DIV_PRECISION_INCREMENT).min(MAX_DECIMAL_SCALE);
            let shift = (s - s1 + s2).max(0) as u32;
            let (tl, tr) = (DataType::Decimal256(76, s1), DataType::Decimal256(76, s2));
            let (Some(a), Some(b)) = (
                operand::<Decimal256Type>(l, &tl)?,
                operand::<Decimal256Type>(r, &tr)?,
            ) else {
                return null();
            };
            run(&a, &b, n, |x: i256, y: i256, of: &mut bool| {
                if y == i256::ZERO {
                    return None;
                }
                match scaled_div(x, shift, y, round) {
                    Some(q) if fits(q) => Some(q),
                    _ => {
                        *of = true;
                        Some(i256::ZERO)
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
        return Err(out_of_range("DECIMAL"));
    }
    Ok(Arc::new(
        Decimal256Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
    ))
}

pub fn negate(v: ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    let t = match v.data_type() {
        t if t.is_unsigned_integer() || t.is_integer() || t == DataType::Boolean => DataType::Int64,
        DataType::Null => return Ok(v),
        DataType::Decimal128(p, s) => DataType::Decimal128(p, s),
        DataType::Decimal256(p, s) => DataType::Decimal256(p, s),
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
        return Err(QuiverError::out_of_range_unnamed("BIGINT"));
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

    /// `+`, `-` and `*` over BIGINT (the branch-free loop) give the values
    /// and NULLs of checked arithmetic row by row, and 1690 exactly when a
    /// row that is not NULL overflows.
    #[test]
    fn bigint_add_sub_mul_match_checked_arithmetic() {
        let mut state = 9u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        };
        let checked = |op: BinaryOp, x: i64, y: i64| match op {
            BinaryOp::Add => x.checked_add(y),
            BinaryOp::Sub => x.checked_sub(y),
            _ => x.checked_mul(y),
        };
        for round in 0..300 {
            let rows = 1 + (next() % 200) as usize;
            let big = round % 3 == 0;
            let value = |x: u64| {
                if big {
                    x as i64
                } else {
                    (x % 2_000_001) as i64 - 1_000_000
                }
            };
            let l: Vec<Option<i64>> = (0..rows)
                .map(|_| {
                    let x = next();
                    (x % 5 != 0).then(|| value(x >> 3))
                })
                .collect();
            let r: Vec<Option<i64>> = (0..rows)
                .map(|_| {
                    let x = next();
                    (x % 5 != 0).then(|| value(x >> 3))
                })
                .collect();
            for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul] {
                let got = arithmetic(
                    op,
                    ColumnarValue::Array(Arc::new(Int64Array::from(l.clone()))),
                    ColumnarValue::Array(Arc::new(Int64Array::from(r.clone()))),
                    &DataType::Int64,
                    rows,
                );
                let want: Option<Vec<Option<i64>>> = l
                    .iter()
                    .zip(&r)
                    .map(|(x, y)| match (x, y) {
                        (Some(x), Some(y)) => checked(op, *x, *y).map(Some),
                        _ => Some(None),
                    })
                    .collect();
                match (got, want) {
                    (Ok(ColumnarValue::Array(a)), Some(want)) => {
                        let a = a.as_primitive::<Int64Type>();
                        let got: Vec<Option<i64>> = a.iter().collect();
                        assert_eq!(got, want, "round {round} {op:?}");
                    }
                    (Err(e), None) => assert_eq!(e.code, 1690),
                    (got, want) => panic!("round {round} {op:?}: {got:?} vs {want:?}"),
                }
            }
        }
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

    /// A small deterministic generator for the reference tests.
    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 11
    }

    #[test]
    fn scaled_div_matches_a_direct_division() {
        // Where x * 10^shift fits an i256, the long division must give the
        // direct quotient, truncated or rounded half away from zero.
        let mut st = 7u64;
        for _ in 0..2000 {
            let x = i256::from_i128(lcg(&mut st) as i128 * lcg(&mut st) as i128)
                .wrapping_mul(i256::from_i128((lcg(&mut st) % 1000) as i128 - 500));
            let y = i256::from_i128((lcg(&mut st) % 1_000_000_007) as i128 + 1).wrapping_mul(
                i256::from_i128(if lcg(&mut st).is_multiple_of(2) {
                    1
                } else {
                    -1
                }),
            );
            let shift = (lcg(&mut st) % 30) as u32;
            let num = x.wrapping_mul(pow10(shift).unwrap());
            let (q, r) = num.checked_div_rem(y).unwrap();
            assert_eq!(scaled_div(x, shift, y, false), Some(q));
            let away = if num.is_negative() != y.is_negative() {
                q.wrapping_sub(i256::ONE)
            } else {
                q.wrapping_add(i256::ONE)
            };
            let half = r.wrapping_abs().wrapping_mul(i256::from_i128(2)) >= y.wrapping_abs();
            assert_eq!(
                scaled_div(x, shift, y, true),
                Some(if half { away } else { q })
            );
        }
    }

    #[test]
    fn scaled_div_beyond_76_digits_inside() {
        // x = y * k with 70 digits, shifted by 34: the dividend has 104 digits.
        let y = pow10(60).unwrap().wrapping_add(i256::from_i128(7));
        let k = i256::from_i128(123_456_789);
        let x = y.wrapping_mul(k);
        let want = k.wrapping_mul(pow10(34).unwrap());
        assert_eq!(scaled_div(x, 34, y, false), Some(want));
        assert_eq!(
            scaled_div(x.wrapping_neg(), 34, y, true),
            Some(want.wrapping_neg())
        );
        // A quotient beyond i256 is None (error 1690 for the caller).
        assert_eq!(scaled_div(x, 76, i256::ONE, false), None);
    }

    fn dec256(v: Vec<i256>, p: u8, s: i8) -> ColumnarValue {
        ColumnarValue::Array(Arc::new(
            Decimal256Array::from(v)
                .with_precision_and_scale(p, s)
                .unwrap(),
        ))
    }

    #[test]
    fn decimal_add_sub_mul_match_i128_arithmetic_within_and_beyond_i64() {
        // Batches within i64 take the plain loops; one value beyond i64 sends
        // the batch to the checked loop. Both give exact i128 results, NULLs
        // stay NULL, and a constant operand works on either side.
        let mut st = 5u64;
        for beyond in [false, true] {
            let mut xs: Vec<i128> = (0..300)
                .map(|_| (lcg(&mut st) as i64 >> 8) as i128)
                .collect();
            let ys: Vec<i128> = (0..300)
                .map(|_| (lcg(&mut st) as i64 >> 40) as i128)
                .collect();
            if beyond {
                xs[7] = 10i128.pow(30);
            }
            let nulls = |v: &[i128]| -> ColumnarValue {
                let a: Decimal128Array = v
                    .iter()
                    .enumerate()
                    .map(|(i, x)| (i % 13 != 0).then_some(*x))
                    .collect();
                ColumnarValue::Array(Arc::new(a.with_precision_and_scale(38, 2).unwrap()))
            };
            for (op, f) in [
                (
                    BinaryOp::Add,
                    (|x: i128, y: i128| x + y) as fn(i128, i128) -> i128,
                ),
                (BinaryOp::Sub, |x, y| x - y),
                (BinaryOp::Mul, |x, y| x * y),
            ] {
                let scale = if op == BinaryOp::Mul { 4 } else { 2 };
                let t = DataType::Decimal128(38, scale);
                let out = arithmetic(op, nulls(&xs), dec(ys.clone(), 38, 2), &t, 300)
                    .unwrap()
                    .into_array(300)
                    .unwrap();
                let out = out.as_primitive::<Decimal128Type>();
                for i in 0..300 {
                    assert_eq!(out.is_null(i), i % 13 == 0, "{op:?} row {i}");
                    if i % 13 != 0 {
                        assert_eq!(
                            out.value(i),
                            f(xs[i], ys[i]),
                            "{op:?} row {i} beyond {beyond}"
                        );
                    }
                }
                let c = ColumnarValue::Scalar(
                    ScalarValue::decimal(250, 38, 2),
                    DataType::Decimal128(38, 2),
                );
                let out = arithmetic(op, c, dec(ys.clone(), 38, 2), &t, 300)
                    .unwrap()
                    .into_array(300)
                    .unwrap();
                let out = out.as_primitive::<Decimal128Type>();
                for i in 0..300 {
                    assert_eq!(out.value(i), f(250, ys[i]), "{op:?} constant row {i}");
                }
            }
        }
    }

    #[test]
    fn wide_products_of_narrow_operands_match_i256_products() {
        // DECIMAL(38,2) * DECIMAL(20,3) is DECIMAL(58,5): the i128 fast path
        // and its i256 fallback against products of i256 operands.
        let mut st = 11u64;
        let (mut xs, mut ys) = (vec![], vec![]);
        for i in 0..500 {
            let big = (lcg(&mut st) as i128) * (lcg(&mut st) as i128) * 1000;
            xs.push(if i % 2 == 0 { big } else { -(big % 1_000_000) });
            ys.push((lcg(&mut st) as i128 % 10i128.pow(20)) - 10i128.pow(19));
        }
        let t = DataType::Decimal256(58, 5);
        let out = arithmetic(
            BinaryOp::Mul,
            dec(xs.clone(), 38, 2),
            dec(ys.clone(), 20, 3),
            &t,
            500,
        )
        .unwrap()
        .into_array(500)
        .unwrap();
        let wide = arithmetic(
            BinaryOp::Mul,
            dec256(xs.iter().map(|x| i256::from_i128(*x)).collect(), 38, 2),
            dec256(ys.iter().map(|y| i256::from_i128(*y)).collect(), 20, 3),
            &t,
            500,
        )
        .unwrap()
        .into_array(500)
        .unwrap();
        let got = out.as_primitive::<Decimal256Type>();
        assert_eq!(got, wide.as_primitive::<Decimal256Type>());
        for i in 0..500 {
            let want = i256::from_i128(xs[i]).wrapping_mul(i256::from_i128(ys[i]));
            assert_eq!(got.value(i), want);
        }
    }

    #[test]
    fn wide_results_beyond_their_precision_are_error_1690() {
        let nines = pow10(65).unwrap().wrapping_sub(i256::ONE);
        let e = arithmetic(
            BinaryOp::Mul,
            dec256(vec![nines], 65, 0),
            dec256(vec![nines], 65, 0),
            &DataType::Decimal256(65, 0),
            1,
        )
        .unwrap_err();
        assert_eq!(e.code, 1690);
        // 1 / 3 of a DECIMAL(65,30): 34 digits of scale, truncated inside.
        let one = pow10(30).unwrap();
        let out = arithmetic(
            BinaryOp::Div,
            dec256(vec![one], 65, 30),
            ColumnarValue::Scalar(ScalarValue::Int64(3), DataType::Int64),
            &DataType::Decimal256(71, 36),
            1,
        )
        .unwrap()
        .into_array(1)
        .unwrap();
        let third = pow10(36).unwrap().wrapping_div(i256::from_i128(3));
        assert_eq!(out.as_primitive::<Decimal256Type>().value(0), third);
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
