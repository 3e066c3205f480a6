//! The JSON functions that read a document (or quote a string), as
//! MariaDB 10.11 answers them: JSON_VALID, JSON_EXTRACT, JSON_UNQUOTE,
//! JSON_VALUE, JSON_QUERY, JSON_TYPE, JSON_LENGTH, JSON_DEPTH, JSON_KEYS,
//! JSON_EXISTS, JSON_CONTAINS_PATH, JSON_QUOTE and JSON_COMPACT.
//!
//! A constant path is parsed once per batch, not per row. JSON_EXTRACT
//! prints what it finds MariaDB's way (`[1, 2]`, `{"k": v}`, scalars as
//! written), wrapped in an array when there are several paths or a
//! wildcard; JSON_QUERY gives an object or array as written.

use std::borrow::Cow;
use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, BinaryArray, Int64Array};
use arrow_schema::DataType;
use quiver_common::types::{is_string, IntKind};
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::super::string::bytes_of;
use super::path::{parse_path, Path, PathError};
use super::value::{self, Kind, Value};
use super::{warn_json, warn_path, warn_wild};
use crate::warnings::{raise_with, Level};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Valid,
    Extract,
    Unquote,
    Value,
    Query,
    Type,
    Length,
    Depth,
    Keys,
    Exists,
    ContainsPath,
    Quote,
    Compact,
}

pub struct JsonRead(Op);

pub static JSON_VALID: JsonRead = JsonRead(Op::Valid);
pub static JSON_EXTRACT: JsonRead = JsonRead(Op::Extract);
pub static JSON_UNQUOTE: JsonRead = JsonRead(Op::Unquote);
pub static JSON_VALUE: JsonRead = JsonRead(Op::Value);
pub static JSON_QUERY: JsonRead = JsonRead(Op::Query);
pub static JSON_TYPE: JsonRead = JsonRead(Op::Type);
pub static JSON_LENGTH: JsonRead = JsonRead(Op::Length);
pub static JSON_DEPTH: JsonRead = JsonRead(Op::Depth);
pub static JSON_KEYS: JsonRead = JsonRead(Op::Keys);
pub static JSON_EXISTS: JsonRead = JsonRead(Op::Exists);
pub static JSON_CONTAINS_PATH: JsonRead = JsonRead(Op::ContainsPath);
pub static JSON_QUOTE: JsonRead = JsonRead(Op::Quote);
pub static JSON_COMPACT: JsonRead = JsonRead(Op::Compact);

impl JsonRead {
    fn is_int(&self) -> bool {
        matches!(
            self.0,
            Op::Valid | Op::Length | Op::Depth | Op::Exists | Op::ContainsPath
        )
    }
}

impl ScalarFunction for JsonRead {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Valid => "json_valid",
            Op::Extract => "json_extract",
            Op::Unquote => "json_unquote",
            Op::Value => "json_value",
            Op::Query => "json_query",
            Op::Type => "json_type",
            Op::Length => "json_length",
            Op::Depth => "json_depth",
            Op::Keys => "json_keys",
            Op::Exists => "json_exists",
            Op::ContainsPath => "json_contains_path",
            Op::Quote => "json_quote",
            Op::Compact => "json_compact",
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        match self.0 {
            Op::Valid | Op::Unquote | Op::Type | Op::Depth | Op::Quote | Op::Compact => 1..=1,
            Op::Extract => 2..=usize::MAX,
            Op::Value | Op::Query | Op::Exists => 2..=2,
            Op::Length | Op::Keys => 1..=2,
            Op::ContainsPath => 3..=usize::MAX,
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter()
            .map(|t| match t {
                t if is_string(t) => Ok(t.clone()),
                DataType::Null => Ok(DataType::Null),
                // JSON_QUOTE of a number is NULL: keep it a number to say so.
                t if self.0 == Op::Quote => Ok(t.clone()),
                t if t.is_numeric() || *t == DataType::Boolean => Ok(DataType::Utf8),
                other => Err(QuiverError::not_supported(format!(
                    "{} of {other}",
                    self.name().to_uppercase()
                ))),
            })
            .collect()
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(if self.is_int() {
            DataType::Int64
        } else {
            DataType::Utf8
        }))
    }

    fn returns_json(&self) -> bool {
        matches!(self.0, Op::Extract | Op::Query | Op::Compact)
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        match self.0 {
            Op::Depth => any_arg_nullable,
            _ => true,
        }
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(match self.0 {
            Op::Length | Op::Depth => IntWidth::Fixed(IntKind::Long, 10),
            _ => IntWidth::Fixed(IntKind::Long, 1),
        })
    }

    fn max_chars(&self, _args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        let doc = chars.first().copied().flatten()?;
        Some(match self.0 {
            Op::Extract if chars.len() == 2 => doc * 2,
            Op::Extract => (chars.len() as u64 - 1) * (doc * 2 + 2),
            Op::Type => 12,
            Op::Quote => doc * 12 + 2,
            _ => doc,
        })
    }

    fn string_result(&self) -> StringResult {
        match self.0 {
            Op::Type => StringResult::Coercible,
            _ => StringResult::Operands,
        }
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let name = self.name();
        // Paths given as constants are parsed once.
        let first_path = match self.0 {
            Op::ContainsPath => 2,
            _ => 1,
        };
        let constant_paths: Vec<Option<std::result::Result<Path, PathError>>> = args
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                ColumnarValue::Scalar(quiver_common::ScalarValue::Utf8(s), _)
                    if i >= first_path =>
                {
                    Some(parse_path(s.as_bytes()))
                }
                ColumnarValue::Scalar(quiver_common::ScalarValue::Binary(b), _)
                    if i >= first_path =>
                {
                    Some(parse_path(b))
                }
                _ => None,
            })
            .collect();
        let a = Arrays::new(args, call.rows)?;
        if self.0 == Op::Quote
            && !is_string(a.arg(0)?.data_type())
            && *a.arg(0)?.data_type() != DataType::Null
        {
            let out: ArrayRef = Arc::new(arrow_array::new_null_array(&DataType::Utf8, a.rows));
            return a.finish(out, call.data_type);
        }
        let cols: Vec<BinaryArray> = a.arrays.iter().map(bytes_of).collect::<Result<_>>()?;
        let mut ints: Vec<Option<i64>> = Vec::new();
        let mut text = StringBuilder::new();
        let mut buf = Vec::new();
        for row in 0..a.rows {
            buf.clear();
            let got = self.row(row, &cols, &constant_paths, first_path, name, &mut buf);
            if self.is_int() {
                ints.push(got.map(|n| n.unwrap_or(0)));
            } else {
                match got {
                    Some(_) => text.append_value(String::from_utf8_lossy(&buf)),
                    None => text.append_null(),
                }
            }
        }
        let out: ArrayRef = if self.is_int() {
            Arc::new(Int64Array::from(ints))
        } else {
            Arc::new(text.finish())
        };
        a.finish(out, call.data_type)
    }
}

impl JsonRead {
    /// One row: None for NULL; Some(n) for an integer result, Some(None)
    /// when the text went to `out`.
    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        row: usize,
        cols: &[BinaryArray],
        constant_paths: &[Option<std::result::Result<Path, PathError>>],
        first_path: usize,
        name: &str,
        out: &mut Vec<u8>,
    ) -> Option<Option<i64>> {
        if cols.iter().any(|c| c.is_null(row)) {
            return None;
        }
        let doc = cols[0].value(row);
        if self.0 == Op::Quote {
            value::quote(doc, out);
            return Some(None);
        }
        if self.0 == Op::Unquote {
            return Some(unquote(doc, out, name));
        }
        // The paths of this row: constants borrowed (parsed once), the
        // others parsed here.
        let mut paths: Vec<Cow<Path>> = Vec::with_capacity(cols.len() - first_path);
        for (i, c) in cols.iter().enumerate().skip(first_path) {
            let parsed = match &constant_paths[i] {
                Some(Ok(p)) => Ok(Cow::Borrowed(p)),
                Some(Err(e)) => Err(*e),
                None => parse_path(c.value(row)).map(Cow::Owned),
            };
            match parsed {
                Ok(p) => paths.push(p),
                Err(e) => {
                    warn_path(e, i + 1, name);
                    return None;
                }
            }
        }
        if matches!(self.0, Op::Value | Op::Length | Op::Keys)
            && paths.first().is_some_and(|p| p.is_wild())
        {
            warn_wild(2, name);
            return None;
        }
        // One plain path: scanned for, no tree built.
        if matches!(self.0, Op::Extract | Op::Value | Op::Query)
            && paths.len() == 1
            && !paths[0].is_wild()
        {
            return self.scanned(doc, &paths[0], name, out);
        }
        let v = match value::parse(doc) {
            Ok(v) => v,
            Err(e) => {
                if self.0 == Op::Valid {
                    note_invalid(e, name);
                    return Some(Some(0));
                }
                // JSON_VALUE and JSON_QUERY give NULL silently, as MariaDB's.
                if !matches!(self.0, Op::Value | Op::Query) {
                    warn_json(e, 1, name);
                }
                return None;
            }
        };
        let target = |paths: &[Cow<Path>]| -> Option<&Value> {
            match paths.first() {
                None => Some(&v),
                Some(p) => {
                    let mut found = Vec::new();
                    p.matches(doc, &v, &mut found);
                    found.first().copied()
                }
            }
        };
        match self.0 {
            Op::Valid => Some(Some(1)),
            Op::Extract => {
                let mut found = Vec::new();
                for p in paths.iter() {
                    p.matches(doc, &v, &mut found);
                }
                if found.is_empty() {
                    return None;
                }
                let wrap = paths.len() > 1 || paths[0].is_wild();
                if wrap {
                    out.push(b'[');
                }
                for (i, f) in found.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    value::write_spaced(doc, f, out);
                }
                if wrap {
                    out.push(b']');
                }
                Some(None)
            }
            Op::Value => {
                let t = target(&paths)?;
                match &t.kind {
                    Kind::String => value::unescape(&doc[t.range.start + 1..t.range.end - 1], out),
                    Kind::Number { .. } => out.extend_from_slice(&doc[t.range.clone()]),
                    Kind::True => out.push(b'1'),
                    Kind::False => out.push(b'0'),
                    _ => return None,
                }
                Some(None)
            }
            Op::Query => {
                let t = target(&paths)?;
                match &t.kind {
                    Kind::Array(_) | Kind::Object(_) => {
                        out.extend_from_slice(&doc[t.range.clone()])
                    }
                    _ => return None,
                }
                Some(None)
            }
            Op::Type => {
                out.extend_from_slice(match &v.kind {
                    Kind::Object(_) => b"OBJECT",
                    Kind::Array(_) => b"ARRAY",
                    Kind::String => b"STRING",
                    Kind::Number { fraction: true } => b"DOUBLE",
                    Kind::Number { fraction: false } => b"INTEGER",
                    Kind::True | Kind::False => b"BOOLEAN",
                    Kind::Null => b"NULL",
                });
                Some(None)
            }
            Op::Length => {
                let t = target(&paths)?;
                Some(Some(match &t.kind {
                    Kind::Array(items) => items.len() as i64,
                    Kind::Object(members) => members.len() as i64,
                    _ => 1,
                }))
            }
            Op::Depth => Some(Some(value::depth(&v) as i64)),
            Op::Keys => {
                let t = target(&paths)?;
                let Kind::Object(members) = &t.kind else {
                    return None;
                };
                out.push(b'[');
                for (i, (k, _)) in members.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    out.extend_from_slice(&doc[k.clone()]);
                }
                out.push(b']');
                Some(None)
            }
            Op::Exists => Some(Some(paths[0].exists(doc, &v) as i64)),
            Op::ContainsPath => {
                let mode = cols[1].value(row);
                let all = if mode.eq_ignore_ascii_case(b"all") {
                    true
                } else if mode.eq_ignore_ascii_case(b"one") {
                    false
                } else {
                    raise_with(Level::Warning, 4046, || {
                        format!("Argument 2 to function '{name}' must be \"one\" or \"all\".")
                    });
                    return None;
                };
                let mut hits = paths.iter().map(|p| p.exists(doc, &v));
                Some(Some(if all {
                    hits.all(|h| h)
                } else {
                    hits.any(|h| h)
                } as i64))
            }
            Op::Compact => {
                value::write_compact(doc, &v, out);
                Some(None)
            }
            Op::Unquote | Op::Quote => unreachable!("handled above"),
        }
    }
}

impl JsonRead {
    /// JSON_EXTRACT, JSON_VALUE or JSON_QUERY of one path without
    /// wildcards, by the streaming scan (the same answers as the tree's).
    fn scanned(
        &self,
        doc: &[u8],
        path: &Path,
        name: &str,
        out: &mut Vec<u8>,
    ) -> Option<Option<i64>> {
        let found = match super::scan::locate(doc, path.steps()) {
            Ok(f) => f?,
            Err(e) => {
                // JSON_VALUE and JSON_QUERY give NULL silently, as MariaDB's.
                if self.0 == Op::Extract {
                    warn_json(e, 1, name);
                }
                return None;
            }
        };
        let t = &doc[found];
        match (self.0, t[0]) {
            (Op::Extract, b'{' | b'[') => {
                let v = value::parse(t).ok()?;
                value::write_spaced(t, &v, out);
            }
            (Op::Extract, _) => out.extend_from_slice(t),
            (Op::Value, b'"') => value::unescape(&t[1..t.len() - 1], out),
            (Op::Value, b'-' | b'0'..=b'9') => out.extend_from_slice(t),
            (Op::Value, b't') => out.push(b'1'),
            (Op::Value, b'f') => out.push(b'0'),
            (Op::Query, b'{' | b'[') => out.extend_from_slice(t),
            _ => return None,
        }
        Some(None)
    }
}

/// JSON_UNQUOTE: a JSON string's text; anything else as it is (with a
/// warning when it starts like a string but is not one).
fn unquote(doc: &[u8], out: &mut Vec<u8>, name: &str) -> Option<i64> {
    let trimmed = doc.trim_ascii();
    if trimmed.first() != Some(&b'"') {
        out.extend_from_slice(doc);
        return None;
    }
    match value::parse(doc) {
        Ok(Value {
            kind: Kind::String,
            range,
        }) => value::unescape(&doc[range.start + 1..range.end - 1], out),
        Ok(_) => out.extend_from_slice(doc),
        Err(e) => {
            warn_json(e, 1, name);
            out.extend_from_slice(doc);
        }
    }
    None
}

/// JSON_VALID says why text is not JSON as a note, not a warning.
fn note_invalid(e: value::JsonError, name: &str) {
    let (code, message) = match e {
        value::JsonError::Syntax(at) => (
            4038,
            format!("Syntax error in JSON text in argument 1 to function '{name}' at position {at}"),
        ),
        value::JsonError::End => (
            4037,
            format!("Unexpected end of JSON text in argument 1 to function '{name}'"),
        ),
        value::JsonError::Depth(at) => (
            4040,
            format!(
                "Limit of {} on JSON nested structures depth is reached in argument 1 to function '{name}' at position {at}",
                value::DEPTH_LIMIT
            ),
        ),
    };
    raise_with(Level::Note, code, || message);
}
