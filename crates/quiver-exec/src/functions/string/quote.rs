//! QUOTE(s): `s` between single quotes with `\`, `'`, NUL and Ctrl-Z
//! escaped (`\\`, `\'`, `\0`, `\Z`), so that it reads back as the same
//! string literal; QUOTE(NULL) is the four bytes `NULL`, without quotes
//! (MariaDB's `Item_func_quote`, whose result for NULL is binary).

use std::ops::RangeInclusive;

use arrow_array::builder::BinaryBuilder;
use arrow_array::Array;
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::{bytes_of, finish_bytes, string_arg};

pub struct Quote;

pub static QUOTE: Quote = Quote;

impl ScalarFunction for Quote {
    fn name(&self) -> &'static str {
        "quote"
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![string_arg("QUOTE", &args[0])?])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        Ok(if args[0].is_null() {
            Bound::Constant(ScalarValue::Binary(b"NULL".to_vec()), DataType::Binary)
        } else {
            Bound::Call(args[0].data_type.clone())
        })
    }

    fn max_chars(&self, args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        if args[0].is_null() {
            return Some(4);
        }
        Some(chars[0]? * 2 + 2)
    }

    fn string_result(&self) -> StringResult {
        StringResult::Operands
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let s = bytes_of(a.arg(0)?)?;
        let escapes = |v: &[u8]| v.iter().filter(|c| escape(**c).is_some()).count();
        let total: usize = (0..s.len())
            .map(|i| {
                if s.is_null(i) {
                    4
                } else {
                    s.value(i).len() + escapes(s.value(i)) + 2
                }
            })
            .sum();
        let mut b = BinaryBuilder::with_capacity(s.len(), total);
        let mut row = Vec::new();
        for i in 0..s.len() {
            if s.is_null(i) {
                b.append_value(b"NULL");
                continue;
            }
            let v = s.value(i);
            row.clear();
            row.reserve(v.len() + escapes(v) + 2);
            row.push(b'\'');
            for c in v {
                match escape(*c) {
                    Some(e) => row.extend_from_slice(&[b'\\', e]),
                    None => row.push(*c),
                }
            }
            row.push(b'\'');
            b.append_value(&row);
        }
        a.finish(finish_bytes(b.finish(), call.data_type)?, call.data_type)
    }
}

/// The letter after `\` for a byte QUOTE escapes.
fn escape(c: u8) -> Option<u8> {
    match c {
        b'\\' | b'\'' => Some(c),
        0 => Some(b'0'),
        0x1A => Some(b'Z'),
        _ => None,
    }
}
