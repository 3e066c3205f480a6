//! FIND_IN_SET(s, list): the 1-based position of `s` among the
//! comma-separated elements of `list`, else 0; 0 when `s` holds a comma
//! (MariaDB's `Item_func_find_in_set`). Elements compare under the
//! arguments' collation without PAD SPACE: MariaDB uses `strnncoll`, so
//! `FIND_IN_SET('b ', 'a,b')` is 0 while `FIND_IN_SET('ä', 'a')` is 1
//! under `utf8mb4_general_ci`. INT(3), NULL only from a NULL argument.
//!
//! A constant `s` is checked for its comma once; the list is walked with
//! `memchr` for the separators and the collation's equality per element.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{Array, Int64Array};
use arrow_schema::DataType;
use quiver_collation::Collation;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::{bytes_of, string_arg};

pub struct FindInSet;

pub static FIND_IN_SET: FindInSet = FindInSet;

impl ScalarFunction for FindInSet {
    fn name(&self) -> &'static str {
        "find_in_set"
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter().map(|t| string_arg("FIND_IN_SET", t)).collect()
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Int64))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        any_arg_nullable
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 3))
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let (s, list) = (a.arg(0)?, a.arg(1)?);
        let collation = if crate::bytes::is_binary(s.data_type())
            || crate::bytes::is_binary(list.data_type())
        {
            Collation::binary()
        } else {
            call.collation.over_utf8()
        };
        let (s, list) = (bytes_of(s)?, bytes_of(list)?);
        let mut values = Vec::with_capacity(a.rows);
        for i in 0..a.rows {
            values.push(if s.is_null(i) || list.is_null(i) {
                0
            } else {
                position(collation, s.value(i), list.value(i))
            });
        }
        let nulls = arrow_buffer::NullBuffer::union(s.nulls(), list.nulls());
        a.finish(
            Arc::new(Int64Array::new(values.into(), nulls)),
            call.data_type,
        )
    }
}

fn position(collation: Collation, s: &[u8], list: &[u8]) -> i64 {
    if list.is_empty() || s.contains(&b',') {
        return 0;
    }
    for (n, element) in list.split(|b| *b == b',').enumerate() {
        if equal_no_pad(collation, s, element) {
            return n as i64 + 1;
        }
    }
    0
}

/// Equality without PAD SPACE: equal under the collation, with as many
/// trailing spaces each.
fn equal_no_pad(collation: Collation, a: &[u8], b: &[u8]) -> bool {
    let spaces = |x: &[u8]| x.iter().rev().take_while(|c| **c == b' ').count();
    spaces(a) == spaces(b) && collation.eq(a, b)
}
