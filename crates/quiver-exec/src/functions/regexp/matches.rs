//! `expr REGEXP pat` / `expr RLIKE pat`: whether the pattern matches
//! anywhere in the value (1 / 0, NULL when either is). The binder binds the
//! operators to this function (and `NOT REGEXP` to its negation); called
//! as a function, REGEXP(...) is a syntax error, as in MariaDB.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{Array, BinaryArray, BooleanArray};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::pattern::{row_pattern, Compiled, Found};
use super::{coerce_strings, finish, null_or_call, Arg, Setup};

pub struct Regexp;

pub static REGEXP: Regexp = Regexp;

impl ScalarFunction for Regexp {
    fn name(&self) -> &'static str {
        "regexp"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["rlike"]
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
        Ok(null_or_call(args, DataType::Boolean))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        any_arg_nullable
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
        let out = match (&subject, &constant) {
            (Arg::Column(s), Some(c)) => matches_column(s, c),
            _ => {
                let mut out = Vec::with_capacity(rows);
                for i in 0..rows {
                    out.push(match (subject.get(i), pattern.get(i)) {
                        (Some(s), Some(p)) => match &constant {
                            Some(c) => Some(is_match(c, s)),
                            None => row_pattern(p, mode).map(|c| is_match(&c, s)),
                        },
                        _ => None,
                    });
                }
                BooleanArray::from(out)
            }
        };
        finish(Arc::new(out), scalar, &DataType::Boolean)
    }
}

/// Whether `c` matches in `subject`.
pub(crate) fn is_match(c: &Compiled, subject: &[u8]) -> bool {
    c.prefilter.as_ref().is_none_or(|f| f.may_match(subject))
        && matches!(c.find_at(subject, 0), Found::At(..))
}

/// A constant pattern over a column: the prefilter marks the candidate
/// rows in one pass over the values, PCRE2 runs on those only.
fn matches_column(s: &BinaryArray, c: &Compiled) -> BooleanArray {
    let n = s.len();
    let words = n.div_ceil(64);
    let mut candidates = vec![u64::MAX; words];
    if let Some(f) = &c.prefilter {
        f.candidates(s.value_offsets(), s.value_data(), &mut candidates);
    }
    if let Some(nulls) = s.nulls() {
        for (w, v) in candidates
            .iter_mut()
            .zip(nulls.inner().bit_chunks().iter_padded())
        {
            *w &= v;
        }
    }
    let mut bits = vec![0u64; words];
    for (w, &cand) in candidates.iter().enumerate() {
        let mut m = cand;
        while m != 0 {
            let i = w * 64 + m.trailing_zeros() as usize;
            m &= m - 1;
            if i < n && matches!(c.find_at(s.value(i), 0), Found::At(..)) {
                bits[w] |= 1 << (i % 64);
            }
        }
    }
    let nulls: Option<NullBuffer> = s.nulls().cloned();
    BooleanArray::new(BooleanBuffer::new(Buffer::from_vec(bits), 0, n), nulls)
}
