//! REGEXP_INSTR(subject, pattern): the position of the first match, in
//! characters (bytes for a binary subject) from 1, 0 when there is none;
//! INT(11). REGEXP_SUBSTR(subject, pattern): the first match's text, the
//! empty string when there is none (not NULL); the subject's type. Both
//! NULL when an argument is.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, Int64Array, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth, StringResult};
use quiver_plan::ScalarFunction;

use super::pattern::{row_pattern, Compiled, Found};
use super::{coerce_strings, finish, null_or_call, subject_type, Setup};

/// What the function gives of the first match.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Position,
    Text,
}

pub struct Search {
    name: &'static str,
    part: Part,
}

pub static REGEXP_INSTR: Search = Search {
    name: "regexp_instr",
    part: Part::Position,
};

pub static REGEXP_SUBSTR: Search = Search {
    name: "regexp_substr",
    part: Part::Text,
};

impl ScalarFunction for Search {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(coerce_strings(args))
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = match self.part {
            Part::Position => DataType::Int64,
            Part::Text => subject_type(args),
        };
        Ok(null_or_call(args, t))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        self.part == Part::Text || any_arg_nullable
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 11))
    }

    // REGEXP_SUBSTR is as long as its subject.
    fn max_chars(&self, _args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        (self.part == Part::Text).then(|| chars.first().copied().flatten())?
    }

    fn string_result(&self) -> StringResult {
        StringResult::Operands
    }

    fn collates_operands(&self) -> bool {
        true
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let Setup {
            rows,
            scalar,
            subject,
            pattern,
            mode,
            constant,
        } = Setup::new(args, call)?;
        // The first match of each row: None for NULL.
        let mut found: Vec<Option<(usize, usize)>> = Vec::with_capacity(rows);
        for i in 0..rows {
            let (Some(s), Some(p)) = (subject.get(i), pattern.get(i)) else {
                found.push(None);
                continue;
            };
            let per_row;
            let c: &Compiled = match &constant {
                Some(c) => c,
                None => match row_pattern(p, mode) {
                    Some(c) => {
                        per_row = c;
                        &per_row
                    }
                    None => {
                        found.push(None);
                        continue;
                    }
                },
            };
            let at = match c.prefilter.as_ref().is_none_or(|f| f.may_match(s)) {
                true => c.find_at(s, 0),
                false => Found::None,
            };
            found.push(Some(match at {
                Found::At(b, e) => (b, e),
                // No match: position 0, the empty string.
                Found::None => (usize::MAX, usize::MAX),
            }));
        }
        let nulls = NullBuffer::from(found.iter().map(Option::is_some).collect::<Vec<_>>());
        let nulls = (nulls.null_count() > 0).then_some(nulls);
        let value = |i: usize| subject.get(i).unwrap_or_default();
        let out: ArrayRef = match self.part {
            Part::Position => {
                let v: Vec<i64> = found
                    .iter()
                    .enumerate()
                    .map(|(i, f)| match f {
                        Some((b, _)) if *b != usize::MAX => {
                            let before = &value(i)[..*b];
                            1 + if mode.utf {
                                char_count(before)
                            } else {
                                before.len()
                            } as i64
                        }
                        _ => 0,
                    })
                    .collect();
                Arc::new(Int64Array::new(v.into(), nulls))
            }
            Part::Text => {
                // Size first: the offsets, then one buffer of that size.
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0i32);
                let mut total = 0usize;
                for f in &found {
                    if let Some((b, e)) = f.filter(|(b, _)| *b != usize::MAX) {
                        total += e - b;
                    }
                    offsets.push(i32::try_from(total).map_err(|_| too_long())?);
                }
                let mut data = Vec::with_capacity(total);
                for (i, f) in found.iter().enumerate() {
                    if let Some((b, e)) = f.filter(|(b, _)| *b != usize::MAX) {
                        data.extend_from_slice(&value(i)[b..e]);
                    }
                }
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                let data = Buffer::from_vec(data);
                if *call.data_type == DataType::Utf8 {
                    // Matches in UTF mode start and end on characters.
                    Arc::new(StringArray::try_new(offsets, data, nulls)?)
                } else {
                    Arc::new(BinaryArray::try_new(offsets, data, nulls)?)
                }
            }
        };
        finish(out, scalar, call.data_type)
    }
}

fn too_long() -> quiver_common::QuiverError {
    quiver_common::QuiverError::internal("a string column over 2 GiB")
}

/// The characters of UTF-8 text: its bytes that do not continue one.
pub(crate) fn char_count(s: &[u8]) -> usize {
    s.iter().filter(|&&b| (b as i8) >= -0x40).count()
}
