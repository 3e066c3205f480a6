//! JSON functions of the registry. MariaDB's JSON is text (`JSON` is
//! `LONGTEXT` checked by JSON_VALID), so these are string functions over
//! JSON text: `value.rs` parses it into byte ranges of the source and
//! prints values as MariaDB does, `path.rs` reads and applies JSON paths,
//! `read.rs` has the functions that read a document.
//!
//! Bad input is MariaDB's warning and NULL, never an error: 4038 / 4037 /
//! 4040 for text that is not JSON, 4042 / 4041 for a path that is not one,
//! 4044 for a wildcard where one value is needed, naming the argument and
//! the function as MariaDB does.

pub mod build;
pub mod compare;
pub mod format;
pub mod merge;
pub mod modify;
pub(crate) mod path;
pub mod read;
pub(crate) mod scan;
pub(crate) mod table;
pub(crate) mod tree;
pub(crate) mod value;

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, BinaryArray, BooleanArray, Int64Array};
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};
use quiver_plan::function::Call;

use super::kernel::Arrays;
use super::string::bytes_of;
use crate::expr::cast_array;
use crate::warnings::{raise_with, Level};
use path::{parse_path, Path, PathError};
use tree::Node;
use value::JsonError;

/// What an argument is, for the builders: JSON (a JSON function's result)
/// goes in as a value, text is quoted, numbers as printed, booleans as
/// `true` / `false`, NULL as `null`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ArgKind {
    Text,
    Json,
    Number,
    Bool,
    Null,
}

/// The arguments of a call as bytes (numbers as their text), one row when
/// all are constants.
pub(crate) struct JsonArgs {
    pub a: Arrays,
    pub cols: Vec<BinaryArray>,
    pub kinds: Vec<ArgKind>,
    bools: Vec<Option<BooleanArray>>,
}

impl JsonArgs {
    pub fn new(args: &[ColumnarValue], call: &Call) -> Result<JsonArgs> {
        let a = Arrays::new(args, call.rows)?;
        let mut cols = Vec::with_capacity(a.arrays.len());
        let mut kinds = Vec::with_capacity(a.arrays.len());
        let mut bools = Vec::with_capacity(a.arrays.len());
        for (i, arr) in a.arrays.iter().enumerate() {
            let t = arr.data_type();
            let kind = if *t == DataType::Null {
                ArgKind::Null
            } else if *t == DataType::Boolean {
                ArgKind::Bool
            } else if is_string(t) {
                if i < 64 && call.json_args & (1 << i) != 0 {
                    ArgKind::Json
                } else {
                    ArgKind::Text
                }
            } else if t.is_numeric() {
                ArgKind::Number
            } else {
                ArgKind::Text
            };
            let text: ArrayRef = if is_string(t) || *t == DataType::Binary {
                arr.clone()
            } else {
                cast_array(arr, &DataType::Utf8)?
            };
            cols.push(bytes_of(&text)?);
            kinds.push(kind);
            bools.push(match kind {
                ArgKind::Bool => Some(
                    arr.as_any()
                        .downcast_ref::<BooleanArray>()
                        .cloned()
                        .ok_or_else(|| QuiverError::internal("a boolean argument"))?,
                ),
                _ => None,
            });
        }
        Ok(JsonArgs {
            a,
            cols,
            kinds,
            bools,
        })
    }

    pub fn rows(&self) -> usize {
        self.a.rows
    }

    pub fn is_null(&self, i: usize, row: usize) -> bool {
        self.kinds[i] == ArgKind::Null || self.cols[i].is_null(row)
    }

    pub fn bytes(&self, i: usize, row: usize) -> &[u8] {
        self.cols[i].value(row)
    }

    /// Argument `i` of `row` as a JSON value to insert (NULL as `null`).
    pub fn node(&self, i: usize, row: usize) -> Node<'_> {
        if self.is_null(i, row) {
            return Node::Scalar(b"null".as_slice().into());
        }
        let b = self.cols[i].value(row);
        match self.kinds[i] {
            ArgKind::Json => match value::parse(b) {
                Ok(v) => Node::from_value(b, &v),
                Err(_) => quoted(b),
            },
            ArgKind::Number => Node::Scalar(b.into()),
            ArgKind::Bool => {
                let yes = self.bools[i].as_ref().is_some_and(|x| x.value(row));
                Node::Scalar(
                    if yes {
                        b"true".as_slice()
                    } else {
                        b"false".as_slice()
                    }
                    .into(),
                )
            }
            ArgKind::Text | ArgKind::Null => quoted(b),
        }
    }

    /// Argument `i` of `row` as a document: None (with MariaDB's warning
    /// naming argument `i + 1` of `function`) when it is not JSON.
    pub fn doc(&self, i: usize, row: usize, function: &str) -> Option<Node<'_>> {
        let b = self.cols[i].value(row);
        match value::parse(b) {
            Ok(v) => Some(Node::from_value(b, &v)),
            Err(e) => {
                warn_json(e, i + 1, function);
                None
            }
        }
    }

    /// The text results, one per row (None for NULL), as the call's result.
    pub fn finish_text(
        &self,
        call: &Call,
        mut row: impl FnMut(usize, &mut Vec<u8>) -> bool,
    ) -> Result<ColumnarValue> {
        let mut text = StringBuilder::new();
        let mut buf = Vec::new();
        for r in 0..self.rows() {
            buf.clear();
            if row(r, &mut buf) {
                match std::str::from_utf8(&buf) {
                    Ok(s) => text.append_value(s),
                    Err(_) => text.append_value(String::from_utf8_lossy(&buf)),
                }
            } else {
                text.append_null();
            }
        }
        let out: ArrayRef = Arc::new(text.finish());
        self.a.finish(out, call.data_type)
    }

    /// The integer results, one per row (None for NULL).
    pub fn finish_int(
        &self,
        call: &Call,
        row: impl FnMut(usize) -> Option<i64>,
    ) -> Result<ColumnarValue> {
        let out: ArrayRef = Arc::new((0..self.rows()).map(row).collect::<Int64Array>());
        self.a.finish(out, call.data_type)
    }
}

fn quoted(b: &[u8]) -> Node<'static> {
    let mut q = Vec::with_capacity(b.len() + 2);
    value::quote(b, &mut q);
    Node::Scalar(q.into())
}

/// Paths given as constants, parsed once per batch (index by argument).
pub(crate) fn constant_paths(
    args: &[ColumnarValue],
    is_path: impl Fn(usize) -> bool,
) -> Vec<Option<std::result::Result<Path, PathError>>> {
    args.iter()
        .enumerate()
        .map(|(i, a)| match a {
            ColumnarValue::Scalar(ScalarValue::Utf8(s), _) if is_path(i) => {
                Some(parse_path(s.as_bytes()))
            }
            ColumnarValue::Scalar(ScalarValue::Binary(b), _) if is_path(i) => Some(parse_path(b)),
            _ => None,
        })
        .collect()
}

/// Path argument `i` of `row`: the constant parsed once, or parsed here;
/// None with MariaDB's warning when it is not a path.
pub(crate) fn path_at<'p>(
    constants: &'p [Option<std::result::Result<Path, PathError>>],
    args: &JsonArgs,
    i: usize,
    row: usize,
    function: &str,
) -> Option<std::borrow::Cow<'p, Path>> {
    let parsed = match &constants[i] {
        Some(Ok(p)) => Ok(std::borrow::Cow::Borrowed(p)),
        Some(Err(e)) => Err(*e),
        None => parse_path(args.bytes(i, row)).map(std::borrow::Cow::Owned),
    };
    match parsed {
        Ok(p) => Some(p),
        Err(e) => {
            warn_path(e, i + 1, function);
            None
        }
    }
}

/// The argument types the builders take: strings and numbers as they are
/// (a number prints as itself), anything else as its text.
pub(crate) fn coerce_values(args: &[DataType]) -> Result<Vec<DataType>> {
    Ok(args
        .iter()
        .map(|t| match t {
            t if is_string(t) || t.is_numeric() => t.clone(),
            DataType::Null | DataType::Boolean | DataType::Binary => t.clone(),
            _ => DataType::Utf8,
        })
        .collect())
}

/// Warns that argument `arg` (1-based) of `function` is not JSON.
pub(crate) fn warn_json(e: JsonError, arg: usize, function: &str) {
    match e {
        JsonError::Syntax(at) => raise_with(Level::Warning, 4038, || {
            format!("Syntax error in JSON text in argument {arg} to function '{function}' at position {at}")
        }),
        JsonError::End => raise_with(Level::Warning, 4037, || {
            format!("Unexpected end of JSON text in argument {arg} to function '{function}'")
        }),
        JsonError::Depth(at) => raise_with(Level::Warning, 4040, || {
            format!(
                "Limit of {} on JSON nested structures depth is reached in argument {arg} to function '{function}' at position {at}",
                value::DEPTH_LIMIT
            )
        }),
    }
}

/// Warns that argument `arg` of `function` is not a JSON path.
pub(crate) fn warn_path(e: PathError, arg: usize, function: &str) {
    match e {
        PathError::Syntax(at) => raise_with(Level::Warning, 4042, || {
            format!("Syntax error in JSON path in argument {arg} to function '{function}' at position {at}")
        }),
        PathError::End => raise_with(Level::Warning, 4041, || {
            format!("Unexpected end of JSON path in argument {arg} to function '{function}'")
        }),
    }
}

/// Warns that argument `arg` of `function` has a wildcard or range.
pub(crate) fn warn_wild(arg: usize, function: &str) {
    raise_with(Level::Warning, 4044, || {
        format!("Wildcards or range in JSON path not allowed in argument {arg} to function '{function}'")
    });
}
