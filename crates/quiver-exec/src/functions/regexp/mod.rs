//! Regular expressions as MariaDB 10.11 has them: the operators `REGEXP` /
//! `RLIKE` (and their `NOT` forms), `REGEXP_REPLACE`, `REGEXP_INSTR` and
//! `REGEXP_SUBSTR` (MariaDB has no `REGEXP_LIKE`: 1305, as unknown names).
//!
//! # Engine and options
//! MariaDB runs PCRE2; so does Quiver, through the `pcre2` crate (PCRE2's C
//! source, built by `cc`). The options follow MariaDB's
//! `Regexp_processor_pcre::init` (`mode.rs`): text of any charset is
//! matched as UTF-8 with Unicode properties (PCRE2_UTF | PCRE2_UCP; MariaDB
//! converts latin1 and the others to utf8mb4 first, Quiver already holds
//! them as UTF-8), caselessly unless the comparison collation is `_bin`,
//! `_cs` or `binary`; binary strings are matched byte by byte. The
//! operands are put under one collation first, as for `=` (the binder's
//! `collates_operands`), so `'A' REGEXP 'a' COLLATE utf8mb4_general_ci`
//! is caseless and a binary operand makes the match bytes. An invalid
//! pattern is error 1139 with PCRE2's message and offset; a match that
//! fails (PCRE2's match limit, 10,000,000 as MariaDB's library default)
//! is no match with warning 1139, as MariaDB's `pcre_exec_with_warn`.
//!
//! A pattern that varies by row and does not compile makes that row NULL
//! without a warning, as in MariaDB (only a constant pattern raises 1139).
//!
//! Known differences: the `pcre2` crate builds PCRE2 10.46, MariaDB 10.11
//! on Debian 12 links 10.42, so a few messages and offsets differ
//! (`[[:foo:]]` is at offset 8 here, 3 there; variable-length lookbehind
//! compiles here); JIT matching counts the match limit its own way, so a
//! pattern near the limit may match here where MariaDB warns; a row the
//! prefilter drops never reaches PCRE2, so it cannot raise the limit's
//! warning; `@@default_regex_flags` is not a variable here (1193 on SET).
//!
//! # Compiled once
//! A pattern is compiled (and JIT-compiled) through a process-wide cache
//! keyed by (pattern bytes, options) (`pattern.rs`). The registry's
//! functions are stateless `&'static` objects and a plan has no slot for
//! per-query state, so a cache is the place that serves every call site
//! alike: a constant pattern costs one hash lookup per batch (a column of
//! patterns one per row) and one compilation per process, however many
//! partitions or queries use it. The cache holds at most 512 patterns and
//! starts over when full.
//!
//! # Prefilter
//! A literal every match contains (`prefilter.rs`) is searched with the
//! SIMD substring kernels first: over a column, one search of the whole
//! values buffer marks the rows worth giving to PCRE2.
//!
//! # Files
//! `matches.rs` REGEXP / RLIKE, `search.rs` REGEXP_INSTR and REGEXP_SUBSTR,
//! `replace.rs` REGEXP_REPLACE.

pub mod matches;
mod mode;
pub(crate) mod pattern;
pub(crate) mod prefilter;
pub mod replace;
pub mod search;

use arrow_array::{Array, ArrayRef, BinaryArray};
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call};
use std::sync::Arc;

use crate::bytes::byte_view;
use crate::expr::cast_array;
use mode::Mode;
use pattern::{compile, Compiled};

/// The argument types: strings as they are (all binary when one is, since
/// a binary operand makes the comparison bytes), anything else as text.
fn coerce_strings(args: &[DataType]) -> Vec<DataType> {
    let binary = args.contains(&DataType::Binary);
    args.iter()
        .map(|t| match t {
            DataType::Null => DataType::Null,
            _ if binary => DataType::Binary,
            t if is_string(t) => t.clone(),
            _ => DataType::Utf8,
        })
        .collect()
}

/// Whether a call's result is NULL whatever the rows (a NULL literal).
fn any_null(args: &[ArgInfo]) -> bool {
    args.iter().any(ArgInfo::is_null)
}

/// The bound call of type `t`, the NULL constant when an argument is a NULL
/// literal: shared by every REGEXP function.
fn null_or_call(args: &[ArgInfo], t: DataType) -> Bound {
    if any_null(args) {
        Bound::Constant(quiver_common::ScalarValue::Null, t)
    } else {
        Bound::Call(t)
    }
}

/// What every REGEXP function starts its call with: the rows, the subject
/// and pattern, the matching mode and the pattern compiled once when it is
/// a constant.
struct Setup {
    rows: usize,
    scalar: bool,
    subject: Arg,
    pattern: Arg,
    mode: Mode,
    constant: Option<Arc<Compiled>>,
}

impl Setup {
    fn new(args: &[ColumnarValue], call: &Call) -> Result<Setup> {
        let (rows, scalar) = rows_of(args, call.rows);
        let subject = Arg::new(&args[0])?;
        let pattern = Arg::new(&args[1])?;
        let mode = Mode::of(&args[0].data_type(), call.collation);
        let constant = match &pattern {
            Arg::Constant(Some(p)) => Some(compile(p, mode)?),
            _ => None,
        };
        Ok(Setup {
            rows,
            scalar,
            subject,
            pattern,
            mode,
            constant,
        })
    }
}

/// The type of the subject (the first argument) as the result holds it.
fn subject_type(args: &[ArgInfo]) -> DataType {
    match args.first().map(|a| &a.data_type) {
        Some(DataType::Binary) => DataType::Binary,
        _ => DataType::Utf8,
    }
}

/// An argument: one value for every row, or a column.
enum Arg {
    Constant(Option<Vec<u8>>),
    Column(BinaryArray),
}

impl Arg {
    fn new(v: &ColumnarValue) -> Result<Arg> {
        Ok(match v {
            ColumnarValue::Scalar(..) => {
                let a = bytes_of(&v.clone().into_array(1)?)?;
                Arg::Constant(a.is_valid(0).then(|| a.value(0).to_vec()))
            }
            ColumnarValue::Array(a) => Arg::Column(bytes_of(a)?),
        })
    }

    /// Row `i`'s value.
    fn get(&self, i: usize) -> Option<&[u8]> {
        match self {
            Arg::Constant(v) => v.as_deref(),
            Arg::Column(a) => a.is_valid(i).then(|| a.value(i)),
        }
    }
}

/// A string (or NULL) array as bytes; anything else as its text.
fn bytes_of(a: &ArrayRef) -> Result<BinaryArray> {
    let a = match a.data_type() {
        DataType::Utf8 | DataType::Binary => a.clone(),
        DataType::Null => arrow_array::new_null_array(&DataType::Binary, a.len()),
        _ => cast_array(a, &DataType::Utf8)?,
    };
    byte_view(a.as_ref()).ok_or_else(|| QuiverError::internal("a regular expression argument"))
}

/// The number of rows of a call (1 when every argument is a constant).
fn rows_of(args: &[ColumnarValue], rows: usize) -> (usize, bool) {
    let scalar = args.iter().all(|a| matches!(a, ColumnarValue::Scalar(..)));
    (if scalar { 1 } else { rows }, scalar)
}

/// The result `out` as the call's value: a scalar when every argument was.
fn finish(out: ArrayRef, scalar: bool, t: &DataType) -> Result<ColumnarValue> {
    if scalar {
        Ok(ColumnarValue::Scalar(
            quiver_common::ScalarValue::from_array(&out, 0)?,
            t.clone(),
        ))
    } else {
        Ok(ColumnarValue::Array(out))
    }
}
