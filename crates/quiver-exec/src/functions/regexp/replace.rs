//! REGEXP_REPLACE(subject, pattern, replacement): every match replaced, as
//! MariaDB's `Item_func_regexp_replace`: matches are taken left to right
//! from the end of the previous one, and the first empty match ends the
//! replacing (the rest is copied: `REGEXP_REPLACE('abc', 'x*', '-')` is
//! `abc`). In the replacement `\0`..`\9` insert a group (nothing for one
//! that did not take part), a backslash before any other character is
//! dropped. NULL when an argument is; LONGTEXT (LONGBLOB for bytes).
//!
//! The output is built size first: the pieces of every row (ranges of the
//! subject and of the replacement) are listed while matching, their total
//! sizes the one values buffer, then they are copied into it.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, DeclaredString, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::pattern::{row_pattern, Compiled, Found};
use super::{coerce_strings, finish, null_or_call, subject_type, Arg, Setup};

pub struct RegexpReplace;

pub static REGEXP_REPLACE: RegexpReplace = RegexpReplace;

impl ScalarFunction for RegexpReplace {
    fn name(&self) -> &'static str {
        "regexp_replace"
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        3..=3
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(coerce_strings(args))
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        Ok(null_or_call(args, subject_type(args)))
    }

    fn declared_string(&self) -> Option<DeclaredString> {
        Some(DeclaredString::Long)
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
        let replacement = Arg::new(&args[2])?;
        let constant_pieces = match &replacement {
            Arg::Constant(Some(r)) => Some(pieces(r)),
            _ => None,
        };
        let mut ops: Vec<Op> = Vec::with_capacity(rows);
        let mut ends: Vec<usize> = Vec::with_capacity(rows);
        let mut valid: Vec<bool> = Vec::with_capacity(rows);
        let mut locs = constant.as_ref().map(|c| c.capture_locations());
        for i in 0..rows {
            let (Some(s), Some(p), Some(r)) = (subject.get(i), pattern.get(i), replacement.get(i))
            else {
                valid.push(false);
                ends.push(ops.len());
                continue;
            };
            let per_row;
            let c: &Compiled = match &constant {
                Some(c) => c,
                None => match row_pattern(p, mode) {
                    Some(c) => {
                        per_row = c;
                        locs = Some(per_row.capture_locations());
                        &per_row
                    }
                    None => {
                        valid.push(false);
                        ends.push(ops.len());
                        continue;
                    }
                },
            };
            let row_pieces;
            let rp = match &constant_pieces {
                Some(x) => x,
                None => {
                    row_pieces = pieces(r);
                    &row_pieces
                }
            };
            let locs = locs
                .as_mut()
                .ok_or_else(|| QuiverError::internal("capture locations"))?;
            replace_row(c, s, rp, locs, &mut ops);
            valid.push(true);
            ends.push(ops.len());
        }
        // Size first: each row's length from its pieces.
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0i32);
        let mut total = 0usize;
        let mut start = 0;
        for &end in &ends {
            total += ops[start..end].iter().map(|o| o.len()).sum::<usize>();
            offsets.push(
                i32::try_from(total)
                    .map_err(|_| QuiverError::internal("a string column over 2 GiB"))?,
            );
            start = end;
        }
        let mut data = Vec::with_capacity(total);
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            if valid[i] {
                let s = subject.get(i).unwrap_or_default();
                let r = replacement.get(i).unwrap_or_default();
                for o in &ops[start..end] {
                    match *o {
                        Op::Subject(a, b) => data.extend_from_slice(&s[a..b]),
                        Op::Replacement(a, b) => data.extend_from_slice(&r[a..b]),
                    }
                }
            }
            start = end;
        }
        let nulls = NullBuffer::from(valid);
        let nulls = (nulls.null_count() > 0).then_some(nulls);
        let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
        let data = Buffer::from_vec(data);
        let out: ArrayRef = if *call.data_type == DataType::Utf8 {
            Arc::new(StringArray::try_new(offsets, data, nulls)?)
        } else {
            Arc::new(BinaryArray::try_new(offsets, data, nulls)?)
        };
        finish(out, scalar, call.data_type)
    }
}

/// A piece of a result: a byte range of the subject or of the replacement.
#[derive(Clone, Copy)]
enum Op {
    Subject(usize, usize),
    Replacement(usize, usize),
}

impl Op {
    fn len(&self) -> usize {
        match *self {
            Op::Subject(a, b) | Op::Replacement(a, b) => b - a,
        }
    }
}

/// A replacement read once: literal ranges of it and group references.
#[derive(Debug, PartialEq)]
enum Piece {
    Literal(usize, usize),
    Group(usize),
}

/// The pieces of replacement `r` (MariaDB's `append_replacement`).
fn pieces(r: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut lit_start = 0;
    let mut i = 0;
    while i < r.len() {
        if r[i] != b'\\' {
            i += 1;
            continue;
        }
        if lit_start < i {
            out.push(Piece::Literal(lit_start, i));
        }
        match r.get(i + 1) {
            None => {
                // A backslash at the end is dropped.
                lit_start = r.len();
                break;
            }
            Some(d) if d.is_ascii_digit() => {
                out.push(Piece::Group((d - b'0') as usize));
                i += 2;
                lit_start = i;
            }
            // Any other character after a backslash stands for itself.
            Some(_) => {
                lit_start = i + 1;
                i += 2;
            }
        }
    }
    if lit_start < r.len() {
        out.push(Piece::Literal(lit_start, r.len()));
    }
    out
}

/// The pieces of one row's result.
fn replace_row(
    c: &Compiled,
    s: &[u8],
    rp: &[Piece],
    locs: &mut pcre2::bytes::CaptureLocations,
    ops: &mut Vec<Op>,
) {
    if !c.prefilter.as_ref().is_none_or(|f| f.may_match(s)) {
        ops.push(Op::Subject(0, s.len()));
        return;
    }
    let mut start = 0;
    loop {
        match c.captures_at(Some(locs), s, start) {
            Found::At(b, e) if b != e => {
                if start < b {
                    ops.push(Op::Subject(start, b));
                }
                for p in rp {
                    match *p {
                        Piece::Literal(x, y) => ops.push(Op::Replacement(x, y)),
                        Piece::Group(n) => {
                            if let Some((x, y)) = locs.get(n) {
                                ops.push(Op::Subject(x, y));
                            }
                        }
                    }
                }
                start = e;
            }
            // No match or an empty one: the rest as it is.
            _ => {
                if start < s.len() {
                    ops.push(Op::Subject(start, s.len()));
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacement_pieces() {
        use Piece::*;
        assert_eq!(
            pieces(b"[\\1]"),
            vec![Literal(0, 1), Group(1), Literal(3, 4)]
        );
        assert_eq!(pieces(b"a\\xb\\"), vec![Literal(0, 1), Literal(2, 4)]);
        assert_eq!(pieces(b"\\\\"), vec![Literal(1, 2)]);
    }
}
