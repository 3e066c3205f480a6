//! The JSON functions that reprint a document, as MariaDB 10.11 answers
//! them: JSON_NORMALIZE (keys sorted, numbers as doubles, no white
//! space), JSON_DETAILED (alias JSON_PRETTY: one value a line, indented by
//! the optional tab size, 4 by default, at most 8) and JSON_LOOSE
//! (MariaDB's spacing, `[1, 2]`).

use std::ops::RangeInclusive;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::Array;
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{ColumnarValue, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, DeclaredString, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::JsonArgs;
use crate::expr::cast_array;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Normalize,
    Detailed,
    Loose,
}

pub struct JsonFormat(Op);

pub static JSON_NORMALIZE: JsonFormat = JsonFormat(Op::Normalize);
pub static JSON_DETAILED: JsonFormat = JsonFormat(Op::Detailed);
pub static JSON_LOOSE: JsonFormat = JsonFormat(Op::Loose);

impl ScalarFunction for JsonFormat {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Normalize => "json_normalize",
            Op::Detailed => "json_detailed",
            Op::Loose => "json_loose",
        }
    }

    fn aliases(&self) -> &'static [&'static str] {
        match self.0 {
            Op::Detailed => &["json_pretty"],
            _ => &[],
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        match self.0 {
            Op::Detailed => 1..=2,
            _ => 1..=1,
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(args
            .iter()
            .enumerate()
            .map(|(i, t)| match t {
                DataType::Null => DataType::Null,
                _ if i == 1 => DataType::Int64,
                t if is_string(t) => t.clone(),
                _ => DataType::Utf8,
            })
            .collect())
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    fn returns_json(&self) -> bool {
        true
    }

    fn max_chars(&self, _args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        let doc = chars.first().copied().flatten()?;
        match self.0 {
            Op::Detailed => None,
            Op::Loose => Some(doc + 1),
            Op::Normalize => Some(doc + 4),
        }
    }

    fn declared_string(&self) -> Option<DeclaredString> {
        (self.0 == Op::Detailed).then_some(DeclaredString::Long)
    }

    fn string_result(&self) -> StringResult {
        StringResult::Operands
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let name = self.name();
        let a = JsonArgs::new(args, call)?;
        let tabs = match a.a.arrays.get(1) {
            Some(t) if *t.data_type() != DataType::Null => Some(cast_array(t, &DataType::Int64)?),
            _ => None,
        };
        let tabs = tabs.as_ref().map(|t| t.as_primitive::<Int64Type>().clone());
        a.finish_text(call, |row, out| {
            if a.is_null(0, row) {
                return false;
            }
            let Some(doc) = a.doc(0, row, name) else {
                return false;
            };
            match self.0 {
                Op::Normalize => doc.write_normalized(out),
                Op::Loose => doc.spaced(out),
                Op::Detailed => {
                    let tab = match &tabs {
                        Some(t) if !t.is_null(row) => t.value(row).clamp(0, 8) as usize,
                        _ => 4,
                    };
                    doc.write_detailed(tab, 0, out);
                }
            }
            true
        })
    }
}
