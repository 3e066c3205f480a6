//! JSON_ARRAY and JSON_OBJECT, as MariaDB 10.11 answers them: strings
//! quoted, numbers as they print, booleans as `true` / `false`, NULL as
//! `null`, a JSON function's result as a value; printed with MariaDB's
//! spacing (`[1, "a"]`, `{"k": 1}`). A NULL key is the empty key.

use std::ops::RangeInclusive;

use arrow_schema::DataType;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::tree::Node;
use super::{coerce_values, JsonArgs};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Array,
    Object,
}

pub struct JsonBuild(Op);

pub static JSON_ARRAY: JsonBuild = JsonBuild(Op::Array);
pub static JSON_OBJECT: JsonBuild = JsonBuild(Op::Object);

impl ScalarFunction for JsonBuild {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Array => "json_array",
            Op::Object => "json_object",
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        0..=usize::MAX
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        if self.0 == Op::Object && !args.len().is_multiple_of(2) {
            return Err(QuiverError::wrong_arguments("JSON_OBJECT"));
        }
        coerce_values(args)
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    fn nullable(&self, _any_arg_nullable: bool) -> bool {
        true
    }

    fn returns_json(&self) -> bool {
        true
    }

    fn max_chars(&self, _args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        // MariaDB's rule: 2, and each argument's length twice plus 4.
        let mut n = 2;
        for c in chars {
            n += c.unwrap_or(1) * 2 + 4;
        }
        Some(n)
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = JsonArgs::new(args, call)?;
        let n = a.cols.len();
        a.finish_text(call, |row, out| {
            let node = match self.0 {
                Op::Array => Node::Array((0..n).map(|i| a.node(i, row)).collect()),
                Op::Object => Node::Object(
                    (0..n)
                        .step_by(2)
                        .map(|i| {
                            let mut key = Vec::new();
                            let text: &[u8] = if a.is_null(i, row) {
                                b""
                            } else {
                                a.bytes(i, row)
                            };
                            super::value::quote(text, &mut key);
                            (key.into(), a.node(i + 1, row))
                        })
                        .collect(),
                ),
            };
            node.spaced(out);
            true
        })
    }
}
