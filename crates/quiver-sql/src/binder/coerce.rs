//! MySQL's implicit conversions made explicit, and constant folding.
//!
//! Builders here take bound operands and return the typed expression with
//! casts inserted where the executor needs them. Operations on literals are
//! folded when the result is exact, so filters see `column op literal` with the
//! literal already in the column's type (`l_quantity < 24` on DECIMAL(15,2)
//! compares with the literal 24.00, not a cast of the column).

use std::cmp::Ordering;

use arrow_schema::DataType;
use quiver_collation::{text, Charset};
use quiver_common::types::{
    add_months, arithmetic_result_type, common_type, comparison_type, decimal_shape, decimal_type,
    declared_arithmetic_type, integer_digits, integer_literal_digits, is_binary, is_decimal,
    is_string, is_temporal, is_text, parse_date, parse_datetime, parse_f64_prefix, pow10,
    rescale256, to_decimal256, ArithOp, MAX_DECIMAL_PRECISION,
};
use quiver_common::types::{datetime_fsp, datetime_type, literal_fsp, truncate_fsp, MAX_FSP};
use quiver_common::types::{number_read, NumberRead};
use quiver_common::{i256, QuiverError, Result, ScalarValue};
use quiver_plan::{BinaryOp, DatePart, Expr, ScalarFunc, UnaryOp};

const DAY_MICROS: i64 = 86_400_000_000;

pub(crate) fn null_lit(t: DataType) -> Expr {
    Expr::Literal(ScalarValue::Null, t)
}

pub(crate) fn bool_lit(b: bool) -> Expr {
    Expr::Literal(ScalarValue::Boolean(b), DataType::Boolean)
}

fn is_null_lit(e: &Expr) -> bool {
    matches!(e, Expr::Literal(ScalarValue::Null, _))
}

fn literal_truth(e: &Expr) -> Option<Option<bool>> {
    match e {
        Expr::Literal(v, _) => Some(v.truth()),
        _ => None,
    }
}

fn fits_decimal(v: i256, p: u8) -> bool {
    v.checked_abs()
        .is_some_and(|a| pow10(p as u32).is_none_or(|limit| a < limit))
}

fn int_range(t: &DataType) -> Option<(i128, i128)> {
    Some(match t {
        DataType::Int8 => (i8::MIN as i128, i8::MAX as i128),
        DataType::Int16 => (i16::MIN as i128, i16::MAX as i128),
        DataType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        DataType::Int64 => (i64::MIN as i128, i64::MAX as i128),
        DataType::UInt8 => (0, u8::MAX as i128),
        DataType::UInt16 => (0, u16::MAX as i128),
        DataType::UInt32 => (0, u32::MAX as i128),
        DataType::UInt64 => (0, u64::MAX as i128),
        _ => return None,
    })
}

/// An integer scalar of type `t`, if `v` is in its range.
fn int_scalar(v: i128, t: &DataType) -> Option<ScalarValue> {
    let (lo, hi) = int_range(t)?;
    if v < lo || v > hi {
        return None;
    }
    Some(if t.is_unsigned_integer() {
        ScalarValue::UInt64(v as u64)
    } else {
        ScalarValue::Int64(v as i64)
    })
}

fn exact_int(v: &ScalarValue) -> Option<i128> {
    match v {
        ScalarValue::Int64(i) => Some(*i as i128),
        ScalarValue::UInt64(u) => Some(*u as i128),
        ScalarValue::Boolean(b) => Some(*b as i128),
        ScalarValue::Decimal(u, _, s) => {
            let (q, r) = u.checked_div_rem(pow10((*s).max(0) as u32)?)?;
            (r == i256::ZERO).then_some(q.to_i128()?)
        }
        ScalarValue::Float64(f) if f.fract() == 0.0 && f.abs() < 1e38 => Some(*f as i128),
        _ => None,
    }
}

/// `v` converted to type `to` as the executor's CAST would, when that is
/// known at bind time. None leaves the cast to run time.
pub(crate) fn cast_literal(v: &ScalarValue, to: &DataType) -> Option<ScalarValue> {
    use ScalarValue as S;
    if v.is_null() {
        return Some(S::Null);
    }
    match to {
        DataType::Null => None,
        DataType::Boolean => match v {
            S::Boolean(b) => Some(S::Boolean(*b)),
            S::Int64(_) | S::UInt64(_) | S::Decimal(..) | S::Float64(_) => {
                v.truth().map(S::Boolean)
            }
            _ => None,
        },
        t if t.is_integer() => {
            let i = match v {
                S::Boolean(b) => *b as i128,
                S::Int64(i) => *i as i128,
                S::UInt64(u) => *u as i128,
                S::Decimal(u, _, s) => rescale256(*u, *s, 0)?.to_i128()?,
                S::Float64(f) if f.is_finite() && f.abs() < 1e19 => f.round_ties_even() as i128,
                _ => return None,
            };
            int_scalar(i, t)
        }
        // A string that is not wholly a number converts when the statement
        // runs, which raises its warning (1292) as MySQL does.
        DataType::Float64 | DataType::Float32 => match v {
            S::Utf8(s) if number_read(s, false) != NumberRead::Whole => None,
            S::Utf8(s) => Some(S::Float64(parse_f64_prefix(s))),
            S::Date(_) | S::DateTime(..) => None,
            other => other.as_f64().map(S::Float64),
        },
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => match v {
            S::Date(_) | S::DateTime(..) => None,
            S::Float64(f) if !f.is_finite() => None,
            S::Utf8(s) if number_read(s, false) != NumberRead::Whole => None,
            other => {
                let u = to_decimal256(other, *s).ok()?;
                fits_decimal(u, *p).then_some(S::Decimal(u, *p, *s))
            }
        },
        DataType::Date32 => match v {
            S::Utf8(s) => parse_date(s).map(S::Date),
            S::Date(d) => Some(S::Date(*d)),
            S::DateTime(t, _) => Some(S::Date(t.div_euclid(DAY_MICROS) as i32)),
            _ => None,
        },
        // Into DATETIME(fsp): digits beyond fsp are cut, as MySQL stores.
        t @ DataType::Timestamp(..) => {
            let fsp = datetime_fsp(t).unwrap_or(0);
            let micros = match v {
                S::Utf8(s) => parse_datetime(s)?,
                S::Date(d) => *d as i64 * DAY_MICROS,
                S::DateTime(t, _) => *t,
                _ => return None,
            };
            Some(S::DateTime(truncate_fsp(micros, fsp), fsp))
        }
        t if is_binary(t) => match v {
            S::Binary(b) => Some(S::Binary(b.clone())),
            other => Some(S::Binary(other.to_string().into_bytes())),
        },
        t if is_string(t) => match v {
            // Bytes that are not UTF-8 become text at run time ('?').
            S::Binary(b) => String::from_utf8(b.clone()).ok().map(S::Utf8),
            other => Some(S::Utf8(other.to_string())),
        },
        _ => None,
    }
}

/// `v` in type `to` when the conversion loses nothing, so comparing in `to`
/// is the same as comparing in the wider comparison type.
fn exact_literal(v: &ScalarValue, to: &DataType) -> Option<ScalarValue> {
    use ScalarValue as S;
    match to {
        t if t.is_integer() => int_scalar(exact_int(v)?, t),
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            let (u, from) = match v {
                S::Int64(i) => (i256::from(*i), 0),
                S::UInt64(u) => (i256::from_i128(*u as i128), 0),
                S::Decimal(u, _, s0) => (*u, *s0),
                _ => return None,
            };
            let scaled = if *s >= from {
                u.checked_mul(pow10((*s - from) as u32)?)?
            } else {
                let (q, r) = u.checked_div_rem(pow10((from - *s) as u32)?)?;
                if r != i256::ZERO {
                    return None;
                }
                q
            };
            fits_decimal(scaled, *p).then_some(S::Decimal(scaled, *p, *s))
        }
        DataType::Float64 => match v {
            S::Int64(_) | S::UInt64(_) | S::Decimal(..) | S::Float64(_) => {
                v.as_f64().map(S::Float64)
            }
            _ => None,
        },
        DataType::Date32 => match v {
            S::Utf8(_) | S::Date(_) => cast_literal(v, to),
            S::DateTime(t, _) if t.rem_euclid(DAY_MICROS) == 0 => cast_literal(v, to),
            _ => None,
        },
        // Only when no fraction digit is cut: `a = '10:00:00.1234'` over a
        // DATETIME(3) compares all four digits.
        DataType::Timestamp(..) => match v {
            S::Utf8(_) | S::Date(_) | S::DateTime(..) => {
                let full = cast_literal(v, &datetime_type(MAX_FSP))?;
                let cut = cast_literal(v, to)?;
                (full.compare(&cut) == Some(Ordering::Equal)).then_some(cut)
            }
            _ => None,
        },
        t if is_binary(t) => matches!(v, S::Binary(_)).then(|| v.clone()),
        t if is_string(t) => matches!(v, S::Utf8(_)).then(|| v.clone()),
        DataType::Boolean => matches!(v, S::Boolean(_)).then(|| v.clone()),
        _ => None,
    }
}

/// A `0x..` literal as written: a binary string that MySQL reads as an
/// unsigned integer in a numeric context (`0x41 + 0` is 65, where `X'41' + 0`
/// is 0). The binder marks it as the binary literal under an explicit
/// COERCIBLE `binary` node ([`hex_literal`]), which string contexts replace.
pub(crate) fn hex_number(e: &Expr) -> Option<u64> {
    match e {
        Expr::Collate {
            expr,
            collation,
            coercibility: quiver_plan::Coercibility::Coercible,
        } if *collation == quiver_collation::Collation::binary() => match expr.as_ref() {
            Expr::Literal(ScalarValue::Binary(b), _) => {
                // Beyond 8 bytes MySQL's value is all ones.
                Some(match b.len() {
                    0..=8 => b.iter().fold(0u64, |n, &d| n << 8 | d as u64),
                    _ => u64::MAX,
                })
            }
            _ => None,
        },
        _ => None,
    }
}

/// The expression of a `0x..` literal (see [`hex_number`]).
pub(crate) fn hex_literal(bytes: Vec<u8>) -> Expr {
    Expr::Collate {
        expr: Box::new(Expr::lit(ScalarValue::Binary(bytes))),
        collation: quiver_collation::Collation::binary(),
        coercibility: quiver_plan::Coercibility::Coercible,
    }
}

/// `e` converted to `to`; literals are converted now when possible.
pub(crate) fn cast(e: Expr, to: &DataType) -> Expr {
    let from = e.data_type();
    if &from == to {
        return e;
    }
    // An ENUM / SET read as a number is its code (MariaDB's val_int).
    if let (Some(codes), true) = (e.member_codes(), quiver_common::types::is_numeric(to)) {
        return cast(codes.clone(), to);
    }
    if let Some(n) = hex_number(&e).filter(|_| !is_string(to)) {
        return cast(Expr::lit(ScalarValue::UInt64(n)), to);
    }
    // Text and bytes convert by charset, not by Arrow's cast: text becomes
    // its bytes in its own charset, bytes read as utf8mb4 ('?' for what is
    // not a character).
    if is_string(to) && from != DataType::Null && is_binary(to) != is_binary(&from) {
        let e = if is_binary(to) && !is_text(&from) {
            cast(e, &DataType::Utf8)
        } else {
            e
        };
        let charset = if is_binary(to) {
            quiver_collation::Charset::Binary
        } else {
            quiver_collation::Charset::Utf8mb4
        };
        // A literal converts now (bytes to text only when they are UTF-8).
        if let Expr::Literal(v, _) = &e {
            if let Some(v) = cast_literal(v, to) {
                return Expr::Literal(v, to.clone());
            }
        }
        return to_charset(e, charset);
    }
    if let Expr::Literal(v, _) = &e {
        if let Some(v) = cast_literal(v, to) {
            return Expr::Literal(v, to.clone());
        }
    }
    Expr::Cast {
        expr: Box::new(e),
        to: to.clone(),
    }
}

/// A value in string context (LIKE, CONCAT): non-strings are converted.
pub(crate) fn string_arg(e: Expr) -> Expr {
    let t = e.data_type();
    if is_string(&t) || t == DataType::Null {
        e
    } else {
        cast(e, &DataType::Utf8)
    }
}

/// `CONVERT(e USING charset)` of a string: the characters `charset` cannot
/// hold become `?` (no node for utf8mb4 text, which holds them all). To
/// `binary`, text becomes its bytes in its own charset; from binary, bytes
/// are read in `charset` (what is not a character there becomes `?`).
pub(crate) fn to_charset(e: Expr, charset: Charset) -> Expr {
    let from_binary = is_binary(&e.data_type());
    let data_type = match charset {
        Charset::Binary if from_binary => return e,
        Charset::Binary => DataType::Binary,
        _ if !from_binary && !text::restricts(charset) => return e,
        _ => DataType::Utf8,
    };
    Expr::Function {
        func: ScalarFunc::ToCharset(charset),
        args: vec![e],
        data_type,
    }
}

/// CAST(e AS to) / CONVERT(e, to) written in SQL. Where the operator's rules
/// differ from the conversion of a stored value (integers wrapping between
/// SIGNED and UNSIGNED, strings read as integers, DECIMAL clamping to its
/// range, numbers read as dates) and a literal does not settle it here, the
/// executor's SqlCast applies them.
pub(crate) fn sql_cast(e: Expr, to: &DataType) -> Expr {
    let from = e.data_type();
    if &from == to {
        return e;
    }
    if let (Some(codes), true) = (e.member_codes(), quiver_common::types::is_numeric(to)) {
        return sql_cast(codes.clone(), to);
    }
    if let Some(n) = hex_number(&e).filter(|_| !is_string(to)) {
        return sql_cast(Expr::lit(ScalarValue::UInt64(n)), to);
    }
    if let Expr::Literal(v, _) = &e {
        if let Some(v) = cast_literal(v, to) {
            return Expr::Literal(v, to.clone());
        }
    }
    let special = match to {
        DataType::Int64 => from == DataType::UInt64 || is_string(&from),
        DataType::UInt64 => {
            from.is_signed_integer() || from == DataType::Boolean || is_string(&from)
        }
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            let (p0, s0) = decimal_shape(&from);
            let room = *p as i32 - *s as i32;
            // Exact values whose integer digits always fit need no clamping.
            let fits = (is_decimal(&from) || from.is_integer()) && p0 as i32 - s0 as i32 <= room;
            !fits
        }
        DataType::Date32 | DataType::Timestamp(..) => {
            from.is_integer() || is_decimal(&from) || from == DataType::Float64
        }
        _ => false,
    };
    if !special {
        return cast(e, to);
    }
    Expr::Function {
        func: ScalarFunc::SqlCast,
        args: vec![e],
        data_type: to.clone(),
    }
}

/// `l op r` for a comparison operator, both sides brought to MySQL's comparison type.
pub(crate) fn compare(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    // Computed decimals are compared at their declared scale (MariaDB, a = 100.00:
    // `a / 3 = 33.333333` is true although a / 3 is 33.333333333 inside).
    let (lt, rt) = (l.data_type(), r.data_type());
    if is_null_lit(&l) || is_null_lit(&r) || lt == DataType::Null || rt == DataType::Null {
        return null_lit(DataType::Boolean);
    }
    match (&l, &r) {
        (Expr::Literal(..), Expr::Literal(..)) => {}
        (_, Expr::Literal(v, _)) => {
            if let Some(v) = exact_literal(v, &lt) {
                return Expr::binary(op, l, Expr::Literal(v, lt));
            }
        }
        (Expr::Literal(v, _), _) => {
            if let Some(v) = exact_literal(v, &rt) {
                return Expr::binary(op, Expr::Literal(v, rt), r);
            }
        }
        _ => {}
    }
    let t = comparison_type(&lt, &rt);
    let (l, r) = (cast(l, &t), cast(r, &t));
    if let (Expr::Literal(a, _), Expr::Literal(b, _)) = (&l, &r) {
        if let Some(o) = a.compare(b) {
            return bool_lit(test(op, o));
        }
    }
    Expr::binary(op, l, r)
}

fn test(op: BinaryOp, o: Ordering) -> bool {
    match op {
        BinaryOp::Eq => o == Ordering::Equal,
        BinaryOp::NotEq => o != Ordering::Equal,
        BinaryOp::Lt => o == Ordering::Less,
        BinaryOp::LtEq => o != Ordering::Greater,
        BinaryOp::Gt => o == Ordering::Greater,
        _ => o != Ordering::Less,
    }
}

/// Operands of arithmetic: strings are read as doubles, booleans as integers
/// and dates as their YYYYMMDD number, datetimes as YYYYMMDDhhmmss[.f], as
/// MySQL does.
fn numeric_operand(e: Expr) -> Result<Expr> {
    if let Some(codes) = e.member_codes() {
        return Ok(codes.clone());
    }
    let t = e.data_type();
    Ok(match t {
        t if is_string(&t) => cast(e, &DataType::Float64),
        DataType::Boolean | DataType::Date32 => cast(e, &DataType::Int64),
        DataType::Timestamp(..) => datetime_number(e, false),
        _ => e,
    })
}

/// A DATETIME(fsp) in numeric context (`a + 0`, SUM, CAST AS DECIMAL):
/// MySQL's number YYYYMMDDhhmmss with fsp fraction digits, DECIMAL(14 +
/// fsp, fsp); for DATETIME(0) in arithmetic an integer (MariaDB: `b + 0` is
/// a BIGINT), with `decimal` a DECIMAL(14, 0) (SUM(b) is DECIMAL(36, 0)).
pub(crate) fn datetime_number(e: Expr, decimal: bool) -> Expr {
    let fsp = datetime_fsp(&e.data_type()).unwrap_or(0);
    if fsp == 0 && !decimal {
        cast(e, &DataType::Int64)
    } else {
        cast(e, &decimal_type(14 + fsp, fsp as i8))
    }
}

/// `l op r` for an arithmetic operator, with MySQL's result type.
///
/// Operands are converted so the executor sees one numeric kind without the
/// result type changing: doubles and BIGINTs to the result type; for DECIMAL
/// results each integer operand becomes the decimal of its own digits (casting
/// both to the result's precision would make `Expr::data_type` grow it).
/// Unsigned results are left to the executor, which widens them itself.
pub(crate) fn arith(op: BinaryOp, l: Expr, r: Expr) -> Result<Expr> {
    let aop = op
        .arith()
        .ok_or_else(|| QuiverError::internal("not an arithmetic operator"))?;
    if is_null_lit(&l) || is_null_lit(&r) {
        let t = declared_arithmetic_type(aop, &l.data_type(), &r.data_type())?;
        return Ok(null_lit(t));
    }
    // Computed values carry MySQL's internal digits: arithmetic works on those
    // and rounds to the declared scale (from the declared operand types) at the end.
    let (l, l_declared) = declared_parts(l);
    let (r, r_declared) = declared_parts(r);
    let (mut l, mut r) = (numeric_operand(l)?, numeric_operand(r)?);
    let declared_type = |l: &Expr, r: &Expr| {
        declared_arithmetic_type(
            aop,
            l_declared.as_ref().unwrap_or(&l.data_type()),
            r_declared.as_ref().unwrap_or(&r.data_type()),
        )
    };
    let mut declared = declared_type(&l, &r)?;
    if is_decimal(&declared) {
        // Where the result is a decimal, an integer literal counts only its
        // own digits (MySQL): `a * 2` is DECIMAL(p + 1, s), not p + 19;
        // integer arithmetic likewise counts its operands' digits.
        (l, r) = (integer_as_decimal(l), integer_as_decimal(r));
        declared = declared_type(&l, &r)?;
    }
    let t = arithmetic_result_type(aop, &l.data_type(), &r.data_type())?;
    let e = arith_internal(op, aop, l, r, t)?;
    Ok(with_declared_scale(e, &declared))
}

/// An integer expression as the DECIMAL of its MySQL precision
/// ([`integer_decimal_type`]); any other expression unchanged.
pub(crate) fn integer_as_decimal(e: Expr) -> Expr {
    match integer_decimal_type(&e) {
        Some(t) => cast(e, &t),
        None => e,
    }
}

/// DECIMAL(p, 0) of an integer literal or integer arithmetic whose MySQL
/// precision p is not its Arrow type's: `2` is DECIMAL(1,0), `-12345`
/// DECIMAL(5,0), `int_col * 2` DECIMAL(11,0) (BIGINT's 19 digits otherwise).
pub(crate) fn integer_decimal_type(e: &Expr) -> Option<DataType> {
    let p = integer_precision(e)?;
    (matches!(e, Expr::Literal(..)) || p != integer_digits(&e.data_type()))
        .then(|| decimal_type(p, 0))
}

/// The digits MySQL counts for an integer-valued expression (MariaDB's
/// `decimal_precision`): a literal its own, a column its type's, `x + y`
/// one more than the wider, `x * y` both added. Values never need more.
fn integer_precision(e: &Expr) -> Option<u8> {
    let t = e.data_type();
    if !t.is_integer() {
        return None;
    }
    let p = match e {
        Expr::Literal(v, _) => integer_literal_digits(v)?,
        Expr::Cast { expr, .. } if expr.data_type().is_integer() => {
            integer_precision(expr)?.min(integer_digits(&t))
        }
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } => integer_precision(expr)?,
        Expr::Function {
            func: ScalarFunc::Registered(f),
            args,
            ..
        } if f.keeps_integer_digits() && !args.is_empty() => integer_precision(&args[0])?,
        Expr::Binary { op, left, right } => {
            let (l, r) = (integer_precision(left)?, integer_precision(right)?);
            match op {
                BinaryOp::Add | BinaryOp::Sub => l.max(r) + 1,
                BinaryOp::Mul => l + r,
                BinaryOp::Mod => l.max(r),
                _ => integer_digits(&t),
            }
        }
        _ => integer_digits(&t),
    };
    Some(p.min(MAX_DECIMAL_PRECISION))
}

/// The common type of CASE / COALESCE / UNION branches whose types are
/// `types`; where it is a decimal, the integer literals and integer
/// arithmetic among them count their MySQL precision (their
/// [`integer_decimal_type`]s in `literals`).
pub(crate) fn branches_common_type(types: &[DataType], literals: &[Option<DataType>]) -> DataType {
    let t = common_type(types);
    if !is_decimal(&t) || literals.iter().all(Option::is_none) {
        return t;
    }
    let shaped: Vec<DataType> = types
        .iter()
        .zip(literals)
        .map(|(t, l)| l.clone().unwrap_or_else(|| t.clone()))
        .collect();
    common_type(&shaped)
}

/// An expression and, when it is a rounding to a declared decimal scale, the
/// unrounded value inside it and the declared type.
pub(crate) fn declared_parts(e: Expr) -> (Expr, Option<DataType>) {
    match e {
        Expr::Function {
            func: ScalarFunc::DeclaredScale,
            mut args,
            data_type,
        } if args.len() == 1 => (args.pop().expect("one"), Some(data_type)),
        other => (other, None),
    }
}

/// Rounds a decimal to `declared` when its computed scale is larger.
pub(crate) fn with_declared_scale(e: Expr, declared: &DataType) -> Expr {
    match (e.data_type(), declared) {
        (
            DataType::Decimal128(_, s) | DataType::Decimal256(_, s),
            DataType::Decimal128(_, ds) | DataType::Decimal256(_, ds),
        ) if s > *ds => {
            if let Expr::Literal(v, _) = &e {
                if let Some(v) = cast_literal(v, declared) {
                    return Expr::Literal(v, declared.clone());
                }
            }
            Expr::Function {
                func: ScalarFunc::DeclaredScale,
                args: vec![e],
                data_type: declared.clone(),
            }
        }
        _ => e,
    }
}

fn arith_internal(op: BinaryOp, aop: ArithOp, l: Expr, r: Expr, t: DataType) -> Result<Expr> {
    let (l, r) = match (&t, aop) {
        (_, ArithOp::IntDiv) => (l, r),
        (DataType::Float64, _) | (DataType::Int64, _) => (cast(l, &t), cast(r, &t)),
        (DataType::Decimal128(..) | DataType::Decimal256(..), _) => {
            (to_decimal_shape(l), to_decimal_shape(r))
        }
        _ => (l, r),
    };
    if let (Expr::Literal(a, _), Expr::Literal(b, _)) = (&l, &r) {
        if let Some(v) = fold_arith(aop, a, b, &t) {
            return Ok(Expr::Literal(v, t));
        }
    }
    Ok(Expr::binary(op, l, r))
}

fn to_decimal_shape(e: Expr) -> Expr {
    let t = e.data_type();
    if t.is_integer() {
        let (p, s) = decimal_shape(&t);
        cast(e, &decimal_type(p, s))
    } else {
        e
    }
}

fn fold_arith(op: ArithOp, a: &ScalarValue, b: &ScalarValue, t: &DataType) -> Option<ScalarValue> {
    use ScalarValue as S;
    match t {
        DataType::Int64 => {
            let (x, y) = (a.as_i64()?, b.as_i64()?);
            if !matches!(a, S::Int64(_)) || !matches!(b, S::Int64(_)) {
                return None;
            }
            let v = match op {
                ArithOp::Add => x.checked_add(y)?,
                ArithOp::Sub => x.checked_sub(y)?,
                ArithOp::Mul => x.checked_mul(y)?,
                ArithOp::IntDiv if y != 0 => x.checked_div(y)?,
                ArithOp::Mod if y != 0 => x.checked_rem(y)?,
                _ => return None,
            };
            Some(S::Int64(v))
        }
        DataType::Float64 => {
            let (S::Float64(x), S::Float64(y)) = (a, b) else {
                return None;
            };
            let v = match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                _ => return None,
            };
            v.is_finite().then_some(S::Float64(v))
        }
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            let (S::Decimal(x, _, sx), S::Decimal(y, _, sy)) = (a, b) else {
                return None;
            };
            let v = match op {
                ArithOp::Add | ArithOp::Sub => {
                    let (x, y) = (rescale256(*x, *sx, *s)?, rescale256(*y, *sy, *s)?);
                    if op == ArithOp::Add {
                        x.checked_add(y)?
                    } else {
                        x.checked_sub(y)?
                    }
                }
                ArithOp::Mul => rescale256(x.checked_mul(*y)?, sx + sy, *s)?,
                // Division and modulo keep MySQL's intermediate precision rules in the executor.
                _ => return None,
            };
            fits_decimal(v, *p).then_some(S::Decimal(v, *p, *s))
        }
        _ => None,
    }
}

/// Unary minus.
pub(crate) fn negate(e: Expr) -> Result<Expr> {
    use ScalarValue as S;
    if let Expr::Literal(v, t) = &e {
        let folded = match v {
            S::Null => Some(null_lit(t.clone())),
            S::Int64(i) => Some(match i.checked_neg() {
                Some(n) => Expr::lit(S::Int64(n)),
                None => Expr::Literal(
                    S::decimal(-(*i as i128), 20, 0),
                    DataType::Decimal128(20, 0),
                ),
            }),
            S::UInt64(u) => Some(if *u <= i64::MAX as u64 + 1 {
                Expr::lit(S::Int64((-(*u as i128)) as i64))
            } else {
                Expr::Literal(
                    S::decimal(-(*u as i128), 20, 0),
                    DataType::Decimal128(20, 0),
                )
            }),
            S::Decimal(u, p, s) => Some(Expr::Literal(
                S::Decimal(u.wrapping_neg(), *p, *s),
                t.clone(),
            )),
            S::Float64(f) => Some(Expr::lit(S::Float64(-f))),
            _ => None,
        };
        if let Some(f) = folded {
            return Ok(f);
        }
    }
    let e = numeric_operand(e)?;
    if e.data_type() == DataType::Null {
        return Ok(null_lit(DataType::Null));
    }
    Ok(Expr::Unary {
        op: UnaryOp::Neg,
        expr: Box::new(e),
    })
}

/// A value in boolean context: numbers are true when non-zero (MySQL), so
/// `WHERE n` becomes `n <> 0`.
pub(crate) fn to_bool(e: Expr) -> Expr {
    match e.data_type() {
        DataType::Boolean => e,
        DataType::Null => null_lit(DataType::Boolean),
        _ => match &e {
            // A string that is not wholly a number is read when the
            // statement runs, which raises its warning (1292).
            x if x
                .as_str_literal()
                .is_some_and(|s| number_read(s, false) != NumberRead::Whole) =>
            {
                compare(BinaryOp::NotEq, e, Expr::lit(ScalarValue::Int64(0)))
            }
            Expr::Literal(v, _) => match v.truth() {
                Some(b) => bool_lit(b),
                None => null_lit(DataType::Boolean),
            },
            _ => compare(BinaryOp::NotEq, e, Expr::lit(ScalarValue::Int64(0))),
        },
    }
}

pub(crate) fn and(l: Expr, r: Expr) -> Expr {
    let (l, r) = (to_bool(l), to_bool(r));
    match (literal_truth(&l), literal_truth(&r)) {
        (Some(Some(false)), _) | (_, Some(Some(false))) => bool_lit(false),
        (Some(Some(true)), _) => r,
        (_, Some(Some(true))) => l,
        (Some(None), Some(None)) => null_lit(DataType::Boolean),
        _ => Expr::binary(BinaryOp::And, l, r),
    }
}

pub(crate) fn or(l: Expr, r: Expr) -> Expr {
    let (l, r) = (to_bool(l), to_bool(r));
    match (literal_truth(&l), literal_truth(&r)) {
        (Some(Some(true)), _) | (_, Some(Some(true))) => bool_lit(true),
        (Some(Some(false)), _) => r,
        (_, Some(Some(false))) => l,
        (Some(None), Some(None)) => null_lit(DataType::Boolean),
        _ => Expr::binary(BinaryOp::Or, l, r),
    }
}

pub(crate) fn not(e: Expr) -> Expr {
    let e = to_bool(e);
    match e {
        Expr::Literal(v, _) => match v.truth() {
            Some(b) => bool_lit(!b),
            None => null_lit(DataType::Boolean),
        },
        // NOT of a comparison is the opposite comparison (same NULL behaviour),
        // which filter kernels handle directly.
        Expr::Binary { op, left, right } if op.is_comparison() => {
            let op = match op {
                BinaryOp::Eq => BinaryOp::NotEq,
                BinaryOp::NotEq => BinaryOp::Eq,
                BinaryOp::Lt => BinaryOp::GtEq,
                BinaryOp::LtEq => BinaryOp::Gt,
                BinaryOp::Gt => BinaryOp::LtEq,
                _ => BinaryOp::Lt,
            };
            Expr::Binary { op, left, right }
        }
        Expr::Unary {
            op: UnaryOp::IsNull,
            expr,
        } => Expr::Unary {
            op: UnaryOp::IsNotNull,
            expr,
        },
        Expr::Unary {
            op: UnaryOp::IsNotNull,
            expr,
        } => Expr::Unary {
            op: UnaryOp::IsNull,
            expr,
        },
        Expr::Unary {
            op: UnaryOp::Not,
            expr,
        } => *expr,
        Expr::Like {
            negated,
            expr,
            pattern,
            escape,
        } => Expr::Like {
            negated: !negated,
            expr,
            pattern,
            escape,
        },
        Expr::InList {
            negated,
            expr,
            list,
        } => Expr::InList {
            negated: !negated,
            expr,
            list,
        },
        other => other.not(),
    }
}

pub(crate) fn is_null(e: Expr, negated: bool) -> Expr {
    if let Expr::Literal(v, _) = &e {
        return bool_lit(v.is_null() != negated);
    }
    Expr::Unary {
        op: if negated {
            UnaryOp::IsNotNull
        } else {
            UnaryOp::IsNull
        },
        expr: Box::new(e),
    }
}

/// `x IN (list)`: one comparison type for all; literal items are converted at
/// bind time, into `x`'s own type when they fit exactly.
pub(crate) fn in_list(x: Expr, list: Vec<Expr>, negated: bool) -> Expr {
    if list.len() == 1 {
        let item = list.into_iter().next().expect("one item");
        return compare(
            if negated {
                BinaryOp::NotEq
            } else {
                BinaryOp::Eq
            },
            x,
            item,
        );
    }
    let xt = x.data_type();
    if xt == DataType::Null || is_null_lit(&x) {
        return null_lit(DataType::Boolean);
    }
    let exact: Option<Vec<Expr>> = list
        .iter()
        .map(|e| match e {
            Expr::Literal(ScalarValue::Null, _) => Some(null_lit(xt.clone())),
            Expr::Literal(v, _) => exact_literal(v, &xt).map(|v| Expr::Literal(v, xt.clone())),
            _ => None,
        })
        .collect();
    let (x, list) = match exact {
        Some(list) => (x, list),
        None => {
            let t = list.iter().fold(xt.clone(), |t, e| match e.data_type() {
                DataType::Null => t,
                et => comparison_type(&t, &et),
            });
            (cast(x, &t), list.into_iter().map(|e| cast(e, &t)).collect())
        }
    };
    if let Expr::Literal(v, _) = &x {
        // A constant probe: decide now when every item is a literal.
        let lits: Option<Vec<&ScalarValue>> = list
            .iter()
            .map(|e| {
                if let Expr::Literal(v, _) = e {
                    Some(v)
                } else {
                    None
                }
            })
            .collect();
        if let Some(lits) = lits {
            let hit = lits.iter().any(|l| v.compare(l) == Some(Ordering::Equal));
            let has_null = lits.iter().any(|l| l.is_null());
            return match (hit, has_null) {
                (true, _) => bool_lit(!negated),
                (false, true) => null_lit(DataType::Boolean),
                (false, false) => bool_lit(negated),
            };
        }
    }
    Expr::InList {
        negated,
        expr: Box::new(x),
        list,
    }
}

/// CASE with branch values brought to their common type.
pub(crate) fn case(branches: Vec<(Expr, Expr)>, else_expr: Option<Expr>) -> Expr {
    let values: Vec<&Expr> = branches
        .iter()
        .map(|(_, v)| v)
        .chain(else_expr.as_ref())
        .collect();
    let types: Vec<DataType> = values.iter().map(|v| v.data_type()).collect();
    let literals: Vec<Option<DataType>> = values.iter().map(|v| integer_decimal_type(v)).collect();
    let t = branches_common_type(&types, &literals);
    let all_values: Vec<Expr> = values.into_iter().cloned().collect();
    let folded = |v: Expr| super::derivation::folded_case_value(v, &all_values);
    let mut kept = Vec::new();
    for (w, v) in branches {
        let w = to_bool(w);
        match literal_truth(&w) {
            // A constant false (or NULL) condition never fires.
            Some(Some(false)) | Some(None) => continue,
            // A constant true condition ends the CASE.
            Some(Some(true)) if kept.is_empty() => return folded(cast(v, &t)),
            Some(Some(true)) => {
                return Expr::Case {
                    branches: kept,
                    else_expr: Some(Box::new(cast(v, &t))),
                    data_type: t,
                };
            }
            None => kept.push((w, cast(v, &t))),
        }
    }
    let else_expr = else_expr.map(|e| cast(e, &t)).filter(|e| !is_null_lit(e));
    if kept.is_empty() {
        return else_expr.map(folded).unwrap_or_else(|| null_lit(t));
    }
    Expr::Case {
        branches: kept,
        else_expr: else_expr.map(Box::new),
        data_type: t,
    }
}

/// `x IS [NOT] TRUE` / `IS [NOT] FALSE`: never NULL.
pub(crate) fn is_truth(e: Expr, truth: bool, negated: bool) -> Expr {
    let b = to_bool(e);
    let test = if truth { b.clone() } else { not(b.clone()) };
    let r = and(is_null(b, true), test);
    if negated {
        not(r)
    } else {
        r
    }
}

/// `a <=> b`: equality where NULL equals NULL; never NULL.
pub(crate) fn null_safe_eq(l: Expr, r: Expr) -> Expr {
    let eq = compare(BinaryOp::Eq, l.clone(), r.clone());
    let both_null = and(is_null(l.clone(), false), is_null(r.clone(), false));
    let any_null = or(is_null(l, false), is_null(r, false));
    case(
        vec![(both_null, bool_lit(true)), (any_null, bool_lit(false))],
        Some(eq),
    )
}

/// `d + INTERVAL n part` (n negated for minus), folded when both are literals.
pub(crate) fn date_add(date: Expr, n: Expr, part: DatePart) -> Result<Expr> {
    let interval_fsp = if part == DatePart::Microsecond {
        MAX_FSP
    } else {
        0
    };
    date_add_fsp(date, n, part, interval_fsp)
}

/// [`date_add`] whose interval has `interval_fsp` fraction digits (MySQL:
/// `INTERVAL 1.5 SECOND` has 1, a unit of microseconds 6); a datetime
/// result has the more digits of the date's and the interval's.
pub(crate) fn date_add_fsp(date: Expr, n: Expr, part: DatePart, interval_fsp: u8) -> Result<Expr> {
    let date_units = matches!(
        part,
        DatePart::Day | DatePart::Week | DatePart::Month | DatePart::Quarter | DatePart::Year
    );
    let date = match date.data_type() {
        DataType::Date32 | DataType::Timestamp(..) => date,
        DataType::Null => return Ok(null_lit(DataType::Date32)),
        t if is_string(&t) => match date.as_str_literal() {
            // A string in date context: a date, or a datetime if it has a
            // time part, with the fraction digits a literal writes (all six
            // for a string that is not a constant, as MariaDB).
            Some(s) if !s.trim().contains([' ', 'T']) => cast(date, &DataType::Date32),
            Some(s) => {
                let fsp = literal_fsp(s);
                cast(date, &datetime_type(fsp))
            }
            None => cast(date, &datetime_type(MAX_FSP)),
        },
        other => {
            return Err(QuiverError::not_supported(format!(
                "date arithmetic on {other}"
            )))
        }
    };
    let result = if date.data_type() == DataType::Date32 && date_units {
        DataType::Date32
    } else {
        let date_fsp = datetime_fsp(&date.data_type()).unwrap_or(0);
        datetime_type(date_fsp.max(interval_fsp))
    };
    let n = cast(n, &DataType::Int64);
    if let (Expr::Literal(d, _), Expr::Literal(k, _)) = (&date, &n) {
        if d.is_null() || k.is_null() {
            return Ok(null_lit(result));
        }
        if let Some(v) = fold_date_add(d, k.as_i64().unwrap_or(0), part, &result) {
            return Ok(Expr::Literal(v, result));
        }
    }
    Ok(Expr::Function {
        func: ScalarFunc::DateAdd(part),
        args: vec![date, n],
        data_type: result,
    })
}

fn fold_date_add(
    d: &ScalarValue,
    k: i64,
    part: DatePart,
    result: &DataType,
) -> Option<ScalarValue> {
    let (days, micros) = match d {
        ScalarValue::Date(d) => (*d, 0),
        ScalarValue::DateTime(t, _) => (t.div_euclid(DAY_MICROS) as i32, t.rem_euclid(DAY_MICROS)),
        _ => return None,
    };
    let months = |m: i64| add_months(days, m).map(|d| (d as i64, micros));
    let (days, micros) = match part {
        DatePart::Day => ((days as i64).checked_add(k)?, micros),
        DatePart::Week => ((days as i64).checked_add(k.checked_mul(7)?)?, micros),
        DatePart::Month => months(k)?,
        DatePart::Quarter => months(k.checked_mul(3)?)?,
        DatePart::Year => months(k.checked_mul(12)?)?,
        _ => {
            let unit = match part {
                DatePart::Hour => 3_600_000_000i64,
                DatePart::Minute => 60_000_000,
                DatePart::Second => 1_000_000,
                _ => 1,
            };
            let total = (days as i64 * DAY_MICROS + micros).checked_add(k.checked_mul(unit)?)?;
            (total.div_euclid(DAY_MICROS), total.rem_euclid(DAY_MICROS))
        }
    };
    // MySQL's date range: 0000-01-01 ..= 9999-12-31, but counting days or
    // time reaches no date before 0001-01-01 (left to the executor: NULL).
    let first = match part {
        DatePart::Month | DatePart::Quarter | DatePart::Year => -719_528,
        _ => -719_162,
    };
    if !(first..=2_932_896).contains(&days) {
        return None;
    }
    Some(match result {
        DataType::Date32 => ScalarValue::Date(days as i32),
        t => ScalarValue::DateTime(days * DAY_MICROS + micros, datetime_fsp(t).unwrap_or(0)),
    })
}

/// Constant-folds an expression bottom-up where every operand is a literal.
pub(crate) fn fold(e: Expr) -> Expr {
    e.transform(&mut |e| match e {
        Expr::Binary { op, left, right }
            if matches!(*left, Expr::Literal(..)) && matches!(*right, Expr::Literal(..)) =>
        {
            match op {
                BinaryOp::And => and(*left, *right),
                BinaryOp::Or => or(*left, *right),
                op if op.is_comparison() => compare(op, *left, *right),
                op => arith(op, (*left).clone(), (*right).clone()).unwrap_or(Expr::Binary {
                    op,
                    left,
                    right,
                }),
            }
        }
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => and(*left, *right),
        Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => or(*left, *right),
        Expr::Unary {
            op: UnaryOp::Not,
            expr,
        } if matches!(*expr, Expr::Literal(..)) => not(*expr),
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } if matches!(*expr, Expr::Literal(..)) => negate(*expr.clone()).unwrap_or(Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        }),
        Expr::Unary {
            op: op @ (UnaryOp::IsNull | UnaryOp::IsNotNull),
            expr,
        } if matches!(*expr, Expr::Literal(..)) => is_null(*expr, op == UnaryOp::IsNotNull),
        Expr::Cast { expr, to } if matches!(*expr, Expr::Literal(..)) => cast(*expr, &to),
        Expr::Case {
            branches,
            else_expr,
            data_type,
        } => {
            let folded = case(branches.clone(), else_expr.clone().map(|e| *e));
            if folded.data_type() == data_type {
                folded
            } else {
                Expr::Case {
                    branches,
                    else_expr,
                    data_type,
                }
            }
        }
        Expr::Function {
            func: ScalarFunc::Coalesce,
            args,
            data_type,
        } => {
            let args: Vec<Expr> = args.into_iter().filter(|a| !is_null_lit(a)).collect();
            match args.first() {
                None => null_lit(data_type),
                Some(Expr::Literal(..)) => cast(args[0].clone(), &data_type),
                _ => Expr::Function {
                    func: ScalarFunc::Coalesce,
                    args,
                    data_type,
                },
            }
        }
        other => other,
    })
}

/// Whether a temporal or string type can take part in date arithmetic.
pub(crate) fn is_date_like(t: &DataType) -> bool {
    is_temporal(t) || is_string(t) || *t == DataType::Null
}

#[cfg(test)]
mod tests {
    use super::*;
    use quiver_plan::ColumnId;

    fn col(t: DataType) -> Expr {
        Expr::Column(ColumnId(1), t)
    }

    #[test]
    fn literal_takes_the_column_type_when_exact() {
        let q = compare(
            BinaryOp::Lt,
            col(DataType::Decimal128(15, 2)),
            Expr::lit(ScalarValue::Int64(24)),
        );
        assert_eq!(
            q,
            Expr::binary(
                BinaryOp::Lt,
                col(DataType::Decimal128(15, 2)),
                Expr::Literal(
                    ScalarValue::decimal(2400, 15, 2),
                    DataType::Decimal128(15, 2)
                )
            )
        );
        // 4.5 is not an integer: the column is cast to the comparison type instead.
        let q = compare(
            BinaryOp::Eq,
            col(DataType::Int32),
            Expr::Literal(ScalarValue::decimal(45, 2, 1), DataType::Decimal128(2, 1)),
        );
        assert!(
            matches!(q, Expr::Binary { ref left, .. } if matches!(**left, Expr::Cast { .. })),
            "{q:?}"
        );
        let d = compare(
            BinaryOp::GtEq,
            col(DataType::Date32),
            Expr::lit(ScalarValue::Utf8("1994-01-01".into())),
        );
        assert_eq!(
            d,
            Expr::binary(
                BinaryOp::GtEq,
                col(DataType::Date32),
                Expr::lit(ScalarValue::Date(parse_date("1994-01-01").unwrap()))
            )
        );
    }

    #[test]
    fn folding() {
        let dec =
            |v, p, s| Expr::Literal(ScalarValue::decimal(v, p, s), DataType::Decimal128(p, s));
        assert_eq!(
            arith(BinaryOp::Sub, dec(6, 3, 2), dec(1, 3, 2)).unwrap(),
            dec(5, 4, 2)
        );
        assert_eq!(
            arith(
                BinaryOp::Add,
                Expr::lit(ScalarValue::Int64(1)),
                Expr::lit(ScalarValue::Int64(1))
            )
            .unwrap(),
            Expr::lit(ScalarValue::Int64(2))
        );
        // Overflow is left to the executor, which reports error 1690.
        let big = arith(
            BinaryOp::Mul,
            Expr::lit(ScalarValue::Int64(i64::MAX)),
            Expr::lit(ScalarValue::Int64(2)),
        )
        .unwrap();
        assert!(matches!(big, Expr::Binary { .. }));
        assert_eq!(not(Expr::lit(ScalarValue::Int64(5))), bool_lit(false));
        assert_eq!(
            and(null_lit(DataType::Boolean), bool_lit(false)),
            bool_lit(false)
        );
        let day = parse_date("1998-12-01").unwrap();
        let e = date_add(
            Expr::lit(ScalarValue::Date(day)),
            Expr::lit(ScalarValue::Int64(-90)),
            DatePart::Day,
        )
        .unwrap();
        assert_eq!(e, Expr::lit(ScalarValue::Date(day - 90)));
    }
}
