//! Result types MySQL gives expressions: arithmetic (declared and internal),
//! comparisons, the common type of CASE / COALESCE / UNION branches, and
//! SUM / AVG.

use arrow_schema::DataType;

use super::datetime::{datetime_type, wider_datetime, MAX_FSP};
use super::decimal::{
    capped, decimal_shape, decimal_type, DIV_PRECISION_INCREMENT, MAX_DECIMAL_PRECISION,
    MAX_DECIMAL_SCALE, MAX_INTERNAL_PRECISION,
};
use super::family::{is_binary, is_decimal, is_numeric, is_string, is_temporal, is_unsigned};
use super::time::{is_time, time_type, wider_time};
use crate::{QuiverError, Result};

/// Arithmetic operators whose result type MySQL defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
}

/// MySQL computes a decimal quotient in whole 9-digit words and truncates
/// there: each operand's fraction is widened to whole words, and the
/// `div_precision_increment` digits left over after that widening are added
/// (`100.00 / 3` is 33.333333333 inside, shown as 33.333333).
pub fn division_internal_scale(s1: i8, s2: i8) -> i8 {
    let word = |s: i32| (s + 8) / 9 * 9;
    let (f1, f2) = (word(s1 as i32), word(s2 as i32));
    let increment = (DIV_PRECISION_INCREMENT as i32 - (f1 - s1 as i32) - (f2 - s2 as i32)).max(0);
    word(f1 + f2 + increment).min(i8::MAX as i32) as i8
}

/// Type a value of `l op r` is computed in. It equals the declared type
/// ([`declared_arithmetic_type`]) except for decimal division, which keeps
/// MySQL's extra internal digits; the binder rounds those to the declared
/// scale where the value leaves the expression.
pub fn arithmetic_result_type(op: ArithOp, l: &DataType, r: &DataType) -> Result<DataType> {
    let declared = declared_arithmetic_type(op, l, r)?;
    if let (ArithOp::Div, DataType::Decimal128(_, s) | DataType::Decimal256(_, s)) = (op, &declared)
    {
        let (p1, s1) = decimal_shape(l);
        let (_, s2) = decimal_shape(r);
        let integer_digits = p1 as i32 - s1 as i32 + s2 as i32;
        // Keep as many internal digits as fit next to the integer part: up
        // to 76 (Decimal256), as MySQL's intermediate words hold more than 65.
        let room = MAX_INTERNAL_PRECISION as i32 - integer_digits;
        let internal = (division_internal_scale(s1, s2) as i32)
            .min(room)
            .min(MAX_DECIMAL_SCALE as i32)
            .max(*s as i32) as i8;
        if integer_digits + internal as i32 <= MAX_DECIMAL_PRECISION as i32 {
            return Ok(capped(integer_digits + internal as i32, internal));
        }
        let p = (integer_digits + internal as i32).min(MAX_INTERNAL_PRECISION as i32) as u8;
        return Ok(decimal_type(p, internal));
    }
    Ok(declared)
}

/// Result type of `l op r` as MySQL declares it (what clients see).
pub fn declared_arithmetic_type(op: ArithOp, l: &DataType, r: &DataType) -> Result<DataType> {
    let l = if is_string(l) || matches!(l, DataType::Null) {
        &DataType::Float64
    } else {
        l
    };
    let r = if is_string(r) || matches!(r, DataType::Null) {
        &DataType::Float64
    } else {
        r
    };
    if !is_numeric(l) || !is_numeric(r) {
        return Err(QuiverError::not_supported(format!(
            "arithmetic on {l} and {r}"
        )));
    }
    if l.is_floating() || r.is_floating() {
        return Ok(if op == ArithOp::IntDiv {
            DataType::Int64
        } else {
            DataType::Float64
        });
    }
    let both_int = !is_decimal(l) && !is_decimal(r);
    if op == ArithOp::IntDiv {
        return Ok(if is_unsigned(l) || is_unsigned(r) {
            DataType::UInt64
        } else {
            DataType::Int64
        });
    }
    if both_int && op != ArithOp::Div {
        return Ok(if is_unsigned(l) || is_unsigned(r) {
            DataType::UInt64
        } else {
            DataType::Int64
        });
    }
    let (p1, s1) = decimal_shape(l);
    let (p2, s2) = decimal_shape(r);
    let (p1, p2) = (p1 as i32, p2 as i32);
    Ok(match op {
        ArithOp::Add | ArithOp::Sub => {
            let s = s1.max(s2);
            capped((p1 - s1 as i32).max(p2 - s2 as i32) + s as i32 + 1, s)
        }
        ArithOp::Mul => capped(p1 + p2, s1 + s2),
        ArithOp::Div => {
            let s = (s1 + DIV_PRECISION_INCREMENT).min(MAX_DECIMAL_SCALE);
            capped(p1 - s1 as i32 + s2 as i32 + s as i32, s)
        }
        ArithOp::Mod => {
            let s = s1.max(s2);
            capped((p1 - s1 as i32).max(p2 - s2 as i32) + s as i32, s)
        }
        ArithOp::IntDiv => unreachable!("handled above"),
    })
}

/// The type both sides of a comparison are converted to, as MySQL compares them.
pub fn comparison_type(l: &DataType, r: &DataType) -> DataType {
    use DataType::*;
    match (l, r) {
        (Null, other) | (other, Null) => other.clone(),
        (a, b) if a == b => a.clone(),
        // The binder has put both under one charset before; a binary side
        // is compared as bytes.
        (a, b) if (is_binary(a) || is_binary(b)) && is_string(a) && is_string(b) => Binary,
        (a, b) if is_string(a) && is_string(b) => Utf8,
        // TIMEs compare by value in the wider precision; a string or a
        // number compared with a TIME is read as a TIME, with all its digits.
        (a, b) if is_time(a) && is_time(b) => wider_time(a, b),
        (t, o) | (o, t) if is_time(t) && (is_string(o) || is_numeric(o)) => time_type(MAX_FSP),
        (Date32, Date32) => Date32,
        // Datetimes compare by value: in the wider precision, which holds
        // both exactly (a date is DATETIME(0)).
        (Date32, t @ Timestamp(..)) | (t @ Timestamp(..), Date32) => t.clone(),
        (a @ Timestamp(..), b @ Timestamp(..)) => wider_datetime(a, b),
        // A string compared with a date is read as a date, with all the
        // digits it has (`a = '2020-01-01 10:00:00.1234'` is 0 for a
        // DATETIME(3) holding .123).
        (Timestamp(..), s) | (s, Timestamp(..)) if is_string(s) => datetime_type(MAX_FSP),
        (t, s) | (s, t) if is_temporal(t) && is_string(s) => t.clone(),
        (a, b) if a.is_floating() || b.is_floating() => Float64,
        (a, b) if is_string(a) || is_string(b) => Float64,
        (a, b) if is_decimal(a) || is_decimal(b) => {
            let (p1, s1) = decimal_shape(a);
            let (p2, s2) = decimal_shape(b);
            let s = s1.max(s2);
            capped(
                (p1 as i32 - s1 as i32).max(p2 as i32 - s2 as i32) + s as i32,
                s,
            )
        }
        (a, b) if a.is_integer() && b.is_integer() => {
            if is_unsigned(a) && is_unsigned(b) {
                UInt64
            } else if is_unsigned(a) || is_unsigned(b) {
                // Mixed signedness: compare exactly in a wider decimal.
                Decimal128(20, 0)
            } else {
                Int64
            }
        }
        (Boolean, b) | (b, Boolean) if b.is_integer() => Int64,
        _ => Float64,
    }
}

/// The common type of the branches of CASE / COALESCE / UNION columns.
pub fn common_type(types: &[DataType]) -> DataType {
    let mut out = DataType::Null;
    for t in types {
        out = match (&out, t) {
            (DataType::Null, t) => t.clone(),
            (_, DataType::Null) => out.clone(),
            (a, b) if a == b => a.clone(),
            // Text meeting bytes is bytes, unless the binder's collation
            // rules said otherwise (it converts the operands first).
            (a, b) if is_binary(a) || is_binary(b) => DataType::Binary,
            (a, b) if is_string(a) || is_string(b) => DataType::Utf8,
            (a, b) if is_time(a) && is_time(b) => wider_time(a, b),
            (a, b) if is_time(a) || is_time(b) => DataType::Utf8,
            // The most fraction digits of the datetimes (MySQL: CASE,
            // COALESCE, UNION of DATETIME(0) and DATETIME(3) is DATETIME(3)).
            (DataType::Date32, t @ DataType::Timestamp(..))
            | (t @ DataType::Timestamp(..), DataType::Date32) => t.clone(),
            (a @ DataType::Timestamp(..), b @ DataType::Timestamp(..)) => wider_datetime(a, b),
            (a, b) if is_temporal(a) || is_temporal(b) => DataType::Utf8,
            (a, b) if a.is_floating() || b.is_floating() => DataType::Float64,
            (a, b) if is_decimal(a) || is_decimal(b) => {
                let (p1, s1) = decimal_shape(a);
                let (p2, s2) = decimal_shape(b);
                let s = s1.max(s2);
                capped(
                    (p1 as i32 - s1 as i32).max(p2 as i32 - s2 as i32) + s as i32,
                    s,
                )
            }
            (DataType::Boolean, b) | (b, DataType::Boolean) if b.is_integer() => DataType::Int64,
            (a, b) if a.is_integer() && b.is_integer() => {
                if is_unsigned(a) && is_unsigned(b) {
                    DataType::UInt64
                } else if is_unsigned(a) || is_unsigned(b) {
                    DataType::Decimal128(20, 0)
                } else {
                    DataType::Int64
                }
            }
            _ => DataType::Utf8,
        };
    }
    out
}

/// MySQL: SUM of an exact type is DECIMAL(p + 22, s); of a float, DOUBLE.
pub fn sum_type(t: &DataType) -> DataType {
    if t.is_floating() || is_string(t) {
        return DataType::Float64;
    }
    let (p, s) = decimal_shape(t);
    capped(p as i32 + 22, s)
}

/// MySQL: AVG of an exact type is DECIMAL(p + 4, s + 4); of a float, DOUBLE.
pub fn avg_type(t: &DataType) -> DataType {
    if t.is_floating() || is_string(t) {
        return DataType::Float64;
    }
    let (p, s) = decimal_shape(t);
    capped(p as i32 + 4, s + DIV_PRECISION_INCREMENT)
}

/// The type AVG of an exact type is computed in: SUM / COUNT with the
/// internal digits of a decimal division ([`division_internal_scale`]).
pub fn avg_internal_type(t: &DataType) -> DataType {
    if t.is_floating() || is_string(t) {
        return DataType::Float64;
    }
    let (p, s) = decimal_shape(t);
    let internal = division_internal_scale(s, 0).min(MAX_DECIMAL_SCALE);
    // At least AVG's declared precision (which it keeps when the scales agree).
    let p = (p as i32 - s as i32 + internal as i32)
        .max((p as i32 + 4).min(MAX_DECIMAL_PRECISION as i32))
        .min(MAX_INTERNAL_PRECISION as i32);
    decimal_type(p.max(internal.max(1) as i32) as u8, internal)
}

#[cfg(test)]
mod tests {
    use crate::types::*;
    use arrow_schema::{DataType, TimeUnit};

    #[test]
    fn division_keeps_whole_words_of_fraction() {
        // MariaDB 10.11: 100.00/3 = 33.333333333 inside, 2.00000/3 = 0.666666666,
        // 1/0.123456789 keeps 18 digits (x 1e9 = 8100000073.7100).
        assert_eq!(division_internal_scale(2, 0), 9);
        assert_eq!(division_internal_scale(5, 0), 9);
        assert_eq!(division_internal_scale(9, 0), 18);
        assert_eq!(division_internal_scale(0, 9), 18);
        assert_eq!(division_internal_scale(0, 0), 9);
    }

    #[test]
    fn mysql_decimal_rules() {
        let d = DataType::Decimal128(15, 2);
        assert_eq!(
            arithmetic_result_type(ArithOp::Mul, &d, &d).unwrap(),
            DataType::Decimal128(30, 4)
        );
        assert_eq!(
            declared_arithmetic_type(ArithOp::Div, &DataType::Int64, &DataType::Int64).unwrap(),
            DataType::Decimal128(23, 4)
        );
        // Computed with whole 9-digit words of fraction (MariaDB: 2/3*1000000000 = 666666666.0000).
        assert_eq!(
            arithmetic_result_type(ArithOp::Div, &DataType::Int64, &DataType::Int64).unwrap(),
            DataType::Decimal128(28, 9)
        );
        assert_eq!(sum_type(&d), DataType::Decimal128(37, 2));
        assert_eq!(avg_type(&d), DataType::Decimal128(19, 6));
        assert_eq!(avg_internal_type(&d), DataType::Decimal128(22, 9));
    }

    #[test]
    fn datetime_precision_is_part_of_the_type() {
        // DATETIME(0) is the untagged Timestamp manifests have always held.
        assert_eq!(
            datetime_type(0),
            DataType::Timestamp(TimeUnit::Microsecond, None)
        );
        for fsp in 0..=MAX_FSP {
            assert_eq!(datetime_fsp(&datetime_type(fsp)), Some(fsp));
        }
        assert_eq!(datetime_fsp(&DataType::Date32), None);
        assert_eq!(mysql_type_name(&datetime_type(0)), "datetime");
        assert_eq!(mysql_type_name(&datetime_type(3)), "datetime(3)");
        // Comparisons and CASE / UNION take the larger precision.
        let (d0, d3) = (datetime_type(0), datetime_type(3));
        assert_eq!(comparison_type(&d0, &d3), d3);
        assert_eq!(common_type(&[d3.clone(), d0.clone()]), d3);
        assert_eq!(common_type(&[DataType::Date32, d3.clone()]), d3);
        // A string compared with a datetime keeps all its digits.
        assert_eq!(comparison_type(&d0, &DataType::Utf8), datetime_type(6));
    }
}
