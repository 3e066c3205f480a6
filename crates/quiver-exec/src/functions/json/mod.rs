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

pub(crate) mod path;
pub mod read;
pub(crate) mod value;

use crate::warnings::{raise_with, Level};
use path::PathError;
use value::JsonError;

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
