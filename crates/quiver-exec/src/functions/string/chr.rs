//! CHR(n) and LENGTHB(s), MariaDB's Oracle-mode names that work in every
//! mode.
//!
//! CHR(n): the bytes of n's integer value (taken modulo 2^32, as MariaDB's
//! `(uint32) val_int()`), most significant first, without its leading zero
//! bytes (CHR(0x4142) is 'AB', CHR(0) one NUL byte), as a string of the
//! default charset; bytes that are not valid UTF-8 give NULL with warning
//! 1300 naming (in hex, at most 3 bytes) where the invalid part starts.
//! VARCHAR(1) whatever it holds, as MariaDB declares it.
//!
//! LENGTHB(s): the length of s in bytes of its charset, as LENGTH; INT(10).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{cast::AsArray, types::*, Array, Int64Array};
use arrow_schema::DataType;
use quiver_collation::Charset;
use quiver_common::types::{is_string, IntKind};
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::bytes_of;
use crate::expr::cast_array;
use crate::warnings::{raise_with, Level};

pub struct Chr;

pub static CHR: Chr = Chr;

impl ScalarFunction for Chr {
    fn name(&self) -> &'static str {
        "chr"
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![match &args[0] {
            t if t.is_unsigned_integer() => DataType::UInt64,
            t if t.is_integer() => DataType::Int64,
            DataType::Null => DataType::Null,
            DataType::Boolean => DataType::Int64,
            // Read as val_int: a string as an integer (warning 1292
            // "INTEGER"), a number rounded to a whole one.
            t if is_string(t) => DataType::Utf8,
            t if t.is_numeric() => DataType::Decimal128(38, 0),
            other => return Err(QuiverError::not_supported(format!("CHR of {other}"))),
        }])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        Some(1)
    }

    fn string_result(&self) -> StringResult {
        StringResult::Coercible
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let codes = codes_of(a.arg(0)?)?;
        let mut b = StringBuilder::with_capacity(a.rows, a.rows * 4);
        for code in codes {
            let Some(code) = code else {
                b.append_null();
                continue;
            };
            let bytes = code.to_be_bytes();
            let skip = bytes.iter().take(3).take_while(|x| **x == 0).count();
            let bytes = &bytes[skip..];
            match std::str::from_utf8(bytes) {
                Ok(s) => b.append_value(s),
                Err(e) => {
                    let bad = &bytes[e.valid_up_to()..];
                    let bad = &bad[..bad.len().min(3)];
                    raise_with(Level::Warning, 1300, || {
                        let hex: String = bad.iter().map(|x| format!("{x:02X}")).collect();
                        format!("Invalid utf8mb4 character string: '{hex}'")
                    });
                    b.append_null();
                }
            }
        }
        a.finish(Arc::new(b.finish()), call.data_type)
    }
}

/// Each row's value as MariaDB's `(uint32) val_int()`, None for NULL.
fn codes_of(x: &arrow_array::ArrayRef) -> Result<Vec<Option<u32>>> {
    let n = x.len();
    Ok(match x.data_type() {
        DataType::UInt64 => {
            let v = x.as_primitive::<UInt64Type>();
            (0..n)
                .map(|i| v.is_valid(i).then(|| v.value(i) as u32))
                .collect()
        }
        DataType::Decimal128(..) => {
            let v = x.as_primitive::<Decimal128Type>();
            (0..n)
                .map(|i| v.is_valid(i).then(|| v.value(i) as u32))
                .collect()
        }
        DataType::Null => vec![None; n],
        DataType::Utf8 => {
            let v = x.as_string::<i32>();
            (0..n)
                .map(|i| {
                    v.is_valid(i)
                        .then(|| crate::functions::math::rand::string_int(v.value(i)) as u32)
                })
                .collect()
        }
        _ => {
            let c = cast_array(x, &DataType::Int64)?;
            let v = c.as_primitive::<Int64Type>();
            (0..n)
                .map(|i| v.is_valid(i).then(|| v.value(i) as u32))
                .collect()
        }
    })
}

pub struct LengthB;

pub static LENGTHB: LengthB = LengthB;

impl ScalarFunction for LengthB {
    fn name(&self) -> &'static str {
        "lengthb"
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![super::string_arg("LENGTHB", &args[0])?])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Int64))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        any_arg_nullable
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 10))
    }

    fn charset_bytes(&self) -> bool {
        true
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let s = a.arg(0)?;
        // A single-byte charset's text is held as UTF-8: its length in the
        // charset is its count of characters.
        let single_byte = s.data_type() == &DataType::Utf8
            && matches!(call.collation.charset(), Charset::Latin1 | Charset::Ascii);
        let b = bytes_of(s)?;
        let out: Int64Array = if single_byte {
            let t = s.as_string::<i32>();
            (0..t.len())
                .map(|i| t.is_valid(i).then(|| t.value(i).chars().count() as i64))
                .collect()
        } else {
            let o = b.value_offsets();
            let v: Vec<i64> = o.windows(2).map(|w| (w[1] - w[0]) as i64).collect();
            Int64Array::new(v.into(), b.nulls().cloned())
        };
        a.finish(Arc::new(out), call.data_type)
    }
}
