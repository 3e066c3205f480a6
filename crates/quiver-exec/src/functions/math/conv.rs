//! CONV(n, from_base, to_base): n's digits in base `from_base` written in
//! base `to_base`, as MariaDB's `Item_func_conv`: n is read as a string
//! (a number as it prints) by `strntoull` (leading spaces and a sign
//! allowed, reading stops at the first character that is no digit of the
//! base, overflow gives 2^64-1) or, for a negative `from_base`, by the
//! signed `strntoll` (overflow gives BIGINT's end); a negative `to_base`
//! writes a signed number. NULL for an empty n or a base outside 2..36.
//! The digits are in the connection's collation, COERCIBLE (of utf8mb4's
//! repertoire, as MariaDB: CONCAT with a latin1 column is 1267).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{cast::AsArray, types::Int64Type, Array};
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use crate::expr::cast_array;

pub struct Conv;

pub static CONV: Conv = Conv;

impl ScalarFunction for Conv {
    fn name(&self) -> &'static str {
        "conv"
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        3..=3
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let n = match &args[0] {
            t if is_string(t) => t.clone(),
            DataType::Null => DataType::Null,
            t if t.is_numeric() || *t == DataType::Boolean => DataType::Utf8,
            other => return Err(QuiverError::not_supported(format!("CONV of {other}"))),
        };
        Ok(vec![n, DataType::Int64, DataType::Int64])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    // 64 binary digits and a sign.
    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        Some(65)
    }

    // Digits in the connection's charset, coercible as a literal.
    fn string_result(&self) -> StringResult {
        StringResult::Coercible
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let n = a.arg(0)?;
        // Bytes are read as they are; text as its UTF-8 (digits are ASCII).
        let n = match n.data_type() {
            DataType::Binary => n.clone(),
            _ => cast_array(&cast_array(n, &DataType::Utf8)?, &DataType::Binary)?,
        };
        let n = n.as_binary::<i32>();
        let from = cast_array(a.arg(1)?, &DataType::Int64)?;
        let to = cast_array(a.arg(2)?, &DataType::Int64)?;
        let (from, to) = (
            from.as_primitive::<Int64Type>(),
            to.as_primitive::<Int64Type>(),
        );
        let mut b = StringBuilder::with_capacity(a.rows, a.rows * 8);
        for i in 0..a.rows {
            if n.is_null(i) || from.is_null(i) || to.is_null(i) {
                b.append_null();
                continue;
            }
            // The bases are C ints in MariaDB.
            match conv(n.value(i), from.value(i) as i32, to.value(i) as i32) {
                Some(s) => b.append_value(s),
                None => b.append_null(),
            }
        }
        a.finish(Arc::new(b.finish()), call.data_type)
    }
}

/// BIN(n) and OCT(n): CONV(n, 10, 2) and CONV(n, 10, 8), as MariaDB
/// rewrites them.
pub struct Digits {
    name: &'static str,
    base: i32,
}

pub static BIN: Digits = Digits {
    name: "bin",
    base: 2,
};
pub static OCT: Digits = Digits {
    name: "oct",
    base: 8,
};

impl ScalarFunction for Digits {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(CONV.coerce_types(&[args[0].clone(), DataType::Int64, DataType::Int64])?[..1].to_vec())
    }

    // BIN and OCT are CONV to base 2 and 8: its result, as it types it.
    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        CONV.return_type(args)
    }

    fn max_chars(&self, args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        CONV.max_chars(args, chars)
    }

    fn string_result(&self) -> StringResult {
        CONV.string_result()
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let base = |b: i32| {
            ColumnarValue::Scalar(quiver_common::ScalarValue::Int64(b as i64), DataType::Int64)
        };
        CONV.invoke(&[args[0].clone(), base(10), base(self.base)], call)
    }
}

fn valid_base(b: i32) -> bool {
    b != i32::MIN && (2..=36).contains(&b.abs())
}

fn conv(n: &[u8], from: i32, to: i32) -> Option<String> {
    if !valid_base(from) || !valid_base(to) || n.is_empty() {
        return None;
    }
    let v = if from < 0 {
        strntoll(n, from.unsigned_abs())
    } else {
        strntoull(n, from as u32) as i64
    };
    Some(ll2str(v, to))
}

/// The digits after leading white space and a sign: (negative, value,
/// overflowed).
fn digits(s: &[u8], base: u32) -> (bool, u64, bool) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r') {
        i += 1;
    }
    let mut negative = false;
    if i < s.len() && (s[i] == b'-' || s[i] == b'+') {
        negative = s[i] == b'-';
        i += 1;
    }
    let base = base as u64;
    let (cutoff, cutlim) = (u64::MAX / base, u64::MAX % base);
    let (mut v, mut overflow) = (0u64, false);
    for &c in &s[i..] {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'A'..=b'Z' => c - b'A' + 10,
            b'a'..=b'z' => c - b'a' + 10,
            _ => break,
        } as u64;
        if d >= base {
            break;
        }
        if v > cutoff || (v == cutoff && d > cutlim) {
            overflow = true;
        } else {
            v = v * base + d;
        }
    }
    (negative, v, overflow)
}

/// MariaDB's `my_strntoull_8bit`.
fn strntoull(s: &[u8], base: u32) -> u64 {
    match digits(s, base) {
        (_, _, true) => u64::MAX,
        (true, v, _) => v.wrapping_neg(),
        (false, v, _) => v,
    }
}

/// MariaDB's `my_strntoll_8bit`.
fn strntoll(s: &[u8], base: u32) -> i64 {
    let (negative, v, overflow) = digits(s, base);
    if negative {
        if overflow || v > i64::MIN.unsigned_abs() {
            i64::MIN
        } else {
            (v as i64).wrapping_neg()
        }
    } else if overflow || v > i64::MAX as u64 {
        i64::MAX
    } else {
        v as i64
    }
}

/// MariaDB's `ll2str` with upper-case digits: a negative radix writes a
/// signed number.
fn ll2str(v: i64, radix: i32) -> String {
    let mut u = v as u64;
    let mut out = String::new();
    if radix < 0 && v < 0 {
        out.push('-');
        u = v.unsigned_abs();
    }
    let r = radix.unsigned_abs() as u64;
    let mut digits = Vec::new();
    loop {
        let d = (u % r) as u8;
        digits.push(if d < 10 { b'0' + d } else { b'A' + d - 10 });
        u /= r;
        if u == 0 {
            break;
        }
    }
    out.extend(digits.iter().rev().map(|d| *d as char));
    out
}

#[cfg(test)]
mod tests {
    use super::conv;

    /// Answers MariaDB 10.11 gave.
    #[test]
    fn conv_as_mariadb() {
        let c = |n: &str, f, t| conv(n.as_bytes(), f, t);
        assert_eq!(c("ff", 16, 10).as_deref(), Some("255"));
        assert_eq!(c("-1", 10, 16).as_deref(), Some("FFFFFFFFFFFFFFFF"));
        assert_eq!(c("-ff", 16, -10).as_deref(), Some("-255"));
        assert_eq!(c("zz", 36, 10).as_deref(), Some("1295"));
        assert_eq!(c("12", 1, 10), None);
        assert_eq!(c("12", 10, 37), None);
        assert_eq!(c("  42", 10, 10).as_deref(), Some("42"));
        assert_eq!(
            c("99999999999999999999", 10, 16).as_deref(),
            Some("FFFFFFFFFFFFFFFF")
        );
        assert_eq!(
            c("-99999999999999999999", -10, 10).as_deref(),
            Some("9223372036854775808")
        );
        assert_eq!(c("", 10, 2), None);
        assert_eq!(c("g", 16, 10).as_deref(), Some("0"));
    }
}
