//! JSON_TABLE's rows: one pass over each document (parsed once into byte
//! ranges), the row path's matches made into rows of the column tree, each
//! value converted into its column's builder as the row is made (MariaDB
//! stores a row's fields in order, so its warnings come row by row).
//!
//! MariaDB's rules, checked against the server: a path finding nothing is
//! ON EMPTY; an array or object for a scalar column, or several matches,
//! is ON ERROR (NULL unless said otherwise; ERROR is 4176 / 4178 / 4179);
//! a value that does not convert is stored as a field stores it (0 with
//! warning 1366, cut with 1265, clamped with 1264), not ON ERROR; JSON
//! `null` is NULL (a JSON column keeps `null`); a JSON column holds the
//! value's source text. NESTED PATH rows are outer-joined to the row
//! around them, sibling NESTED clauses one after the other.

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, StringBuilder};
use arrow_array::{new_null_array, Array, ArrayRef, Decimal128Array, PrimitiveArray};
use arrow_schema::{DataType, Field};
use quiver_common::types::number_prefix;
use quiver_common::types::CharLength;
use quiver_common::{QuiverError, Result};
use quiver_plan::{JsonTableColumn, JsonTableDef, JsonTableOn};

use super::path::{parse_path, Path, PathError};
use super::value::{self, unescape, JsonError, Kind, Value};
use crate::expr::cast_array;
use crate::warnings::{raise_with, Level};

/// A column of the definition with its path parsed.
#[derive(Debug)]
enum Col {
    Ordinality {
        out: usize,
    },
    Path {
        out: usize,
        name: String,
        path: Path,
        exists: bool,
        json: bool,
        on_empty: JsonTableOn,
        on_error: JsonTableOn,
    },
    Nested {
        path: Path,
        columns: Vec<Col>,
        /// The output columns it fills: `first..end`.
        first: usize,
        end: usize,
    },
}

/// A JSON_TABLE ready to run: paths parsed, output types known.
#[derive(Debug)]
pub struct JsonTableSpec {
    alias: String,
    path: Path,
    columns: Vec<Col>,
    fields: Vec<Field>,
    /// Each output column's declared type (`varchar(10)`), if any.
    declared: Vec<Option<Arc<str>>>,
}

fn path_error(e: PathError) -> QuiverError {
    match e {
        PathError::Syntax(at) => QuiverError::new(
            4042,
            "HY000",
            format!(
                "Syntax error in JSON path in argument 2 to function 'JSON_TABLE' at position {at}"
            ),
        ),
        PathError::End => QuiverError::new(
            4041,
            "HY000",
            "Unexpected end of JSON path in argument 2 to function 'JSON_TABLE'",
        ),
    }
}

fn json_error(e: JsonError) -> QuiverError {
    match e {
        JsonError::Syntax(at) => QuiverError::new(
            4038,
            "HY000",
            format!("Syntax error in JSON text in argument 1 to function 'JSON_TABLE' at position {at}"),
        ),
        JsonError::End => QuiverError::new(
            4037,
            "HY000",
            "Unexpected end of JSON text in argument 1 to function 'JSON_TABLE'",
        ),
        JsonError::Depth(at) => QuiverError::new(
            4040,
            "HY000",
            format!(
                "Limit of {} on JSON nested structures depth is reached in argument 1 to function 'JSON_TABLE' at position {at}",
                value::DEPTH_LIMIT
            ),
        ),
    }
}

fn parse(p: &str) -> Result<Path> {
    parse_path(p.as_bytes()).map_err(path_error)
}

fn compile(cols: &[JsonTableColumn], next: &mut usize) -> Result<Vec<Col>> {
    let mut out = Vec::with_capacity(cols.len());
    for c in cols {
        out.push(match c {
            JsonTableColumn::Ordinality { .. } => {
                *next += 1;
                Col::Ordinality { out: *next - 1 }
            }
            JsonTableColumn::Path {
                name,
                path,
                exists,
                json,
                on_empty,
                on_error,
            } => {
                *next += 1;
                Col::Path {
                    out: *next - 1,
                    name: name.clone(),
                    path: parse(path)?,
                    exists: *exists,
                    json: *json,
                    on_empty: on_empty.clone(),
                    on_error: on_error.clone(),
                }
            }
            JsonTableColumn::Nested { path, columns } => {
                let path = parse(path)?;
                let first = *next;
                let columns = compile(columns, next)?;
                Col::Nested {
                    path,
                    columns,
                    first,
                    end: *next,
                }
            }
        });
    }
    Ok(out)
}

impl JsonTableSpec {
    /// Parses the definition's paths (MariaDB's 4042 / 4041, every path
    /// counted as argument 2); `fields` and `declared` are the output
    /// columns' types.
    pub fn new(
        def: &JsonTableDef,
        fields: Vec<Field>,
        declared: Vec<Option<Arc<str>>>,
    ) -> Result<JsonTableSpec> {
        let path = parse(&def.path)?;
        let mut next = 0;
        let columns = compile(&def.columns, &mut next)?;
        if next != fields.len() {
            return Err(QuiverError::internal(
                "JSON_TABLE columns and fields differ",
            ));
        }
        Ok(JsonTableSpec {
            alias: def.alias.clone(),
            path,
            columns,
            fields,
            declared,
        })
    }

    pub fn width(&self) -> usize {
        self.fields.len()
    }
}

/// A value found for a column, before conversion.
#[derive(Clone, Copy)]
enum Cell<'a> {
    Null,
    /// Text to store (a string's unescaped body is made on conversion).
    Text(&'a [u8]),
    /// A JSON string's escaped body.
    Escaped(&'a [u8]),
    Int(i64),
    Bool(bool),
}

/// The rows of the documents of one input batch, column by column.
pub struct JsonTableRows<'s> {
    spec: &'s JsonTableSpec,
    sinks: Vec<Sink>,
    /// The input row of each output row.
    pub input_rows: Vec<u32>,
    scratch: Vec<u8>,
}

impl<'s> JsonTableRows<'s> {
    pub fn new(spec: &'s JsonTableSpec) -> Self {
        let sinks = spec
            .fields
            .iter()
            .zip(&spec.declared)
            .map(|(f, d)| Sink::new(f, d.as_deref()))
            .collect();
        JsonTableRows {
            spec,
            sinks,
            input_rows: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Adds the rows of `doc`, the document of input row `input_row`.
    pub fn add_document(&mut self, doc: &[u8], input_row: u32) -> Result<()> {
        let v = value::parse(doc).map_err(json_error)?;
        let mut matches = Vec::new();
        self.spec.path.matches_strict(doc, &v, &mut matches);
        let mut rows: Vec<Vec<Cell>> = Vec::new();
        let spec = self.spec;
        for (i, m) in matches.iter().enumerate() {
            let mut row = vec![Cell::Null; spec.width()];
            level(spec, doc, &spec.columns, m, i + 1, &mut row, &mut rows)?;
        }
        for (k, r) in rows.iter().enumerate() {
            self.input_rows.push(input_row);
            for (sink, cell) in self.sinks.iter_mut().zip(r) {
                sink.push(*cell, k + 1, &mut self.scratch);
            }
        }
        Ok(())
    }

    /// The output columns, in the definition's order.
    pub fn finish(self) -> Result<Vec<ArrayRef>> {
        self.sinks.into_iter().map(Sink::finish).collect()
    }
}

/// The rows of `cols` at value `v` (ordinality `ord`), on top of `row`
/// (the values of the levels around it), appended to `rows`.
#[allow(clippy::too_many_arguments)]
fn level<'d>(
    spec: &'d JsonTableSpec,
    src: &'d [u8],
    cols: &'d [Col],
    v: &Value,
    ord: usize,
    row: &mut [Cell<'d>],
    rows: &mut Vec<Vec<Cell<'d>>>,
) -> Result<()> {
    for c in cols {
        match c {
            Col::Ordinality { out } => row[*out] = Cell::Int(ord as i64),
            Col::Path {
                out,
                name,
                path,
                exists,
                json,
                on_empty,
                on_error,
            } => {
                let mut found = Vec::new();
                path.matches_strict(src, v, &mut found);
                row[*out] = if *exists {
                    Cell::Int(i64::from(!found.is_empty()))
                } else {
                    let fallback = |on: &'d JsonTableOn, code: u16| -> Result<Cell<'d>> {
                        match on {
                            JsonTableOn::Null => Ok(Cell::Null),
                            JsonTableOn::Default(d) => Ok(Cell::Text(d.as_bytes())),
                            JsonTableOn::Error => Err(spec.error(code, name)),
                        }
                    };
                    match found.as_slice() {
                        [] => fallback(on_empty, 4176)?,
                        [one] => match &one.kind {
                            _ if *json => Cell::Text(&src[one.range.clone()]),
                            Kind::Null => Cell::Null,
                            Kind::True => Cell::Bool(true),
                            Kind::False => Cell::Bool(false),
                            Kind::Number { .. } => Cell::Text(&src[one.range.clone()]),
                            Kind::String => {
                                Cell::Escaped(&src[one.range.start + 1..one.range.end - 1])
                            }
                            Kind::Array(_) | Kind::Object(_) => fallback(on_error, 4178)?,
                        },
                        _ => fallback(on_error, 4179)?,
                    }
                };
            }
            Col::Nested { .. } => {}
        }
    }
    let mut made = false;
    for c in cols {
        let Col::Nested {
            path,
            columns,
            first,
            end,
        } = c
        else {
            continue;
        };
        let mut found = Vec::new();
        path.matches_strict(src, v, &mut found);
        for (i, m) in found.iter().enumerate() {
            let mut inner = row.to_vec();
            for cell in &mut inner[*first..*end] {
                *cell = Cell::Null;
            }
            level(spec, src, columns, m, i + 1, &mut inner, rows)?;
            made = true;
        }
    }
    if !made {
        rows.push(row.to_vec());
    }
    Ok(())
}

impl JsonTableSpec {
    fn error(&self, code: u16, name: &str) -> QuiverError {
        let alias = &self.alias;
        let message = match code {
            4176 => format!("Field '{name}' can't be set for JSON_TABLE '{alias}'."),
            4178 => format!(
                "Can't store an array or an object in the scalar column '{name}' of JSON_TABLE '{alias}'."
            ),
            _ => format!(
                "Can't store multiple matches of the path in the column '{name}' of JSON_TABLE '{alias}'."
            ),
        };
        QuiverError::new(code, "HY000", message)
    }
}

/// How a column stores a value: MariaDB's field store rules for integer,
/// DOUBLE, DECIMAL and text columns; other types through a cast of the text.
enum Sink {
    Int {
        name: String,
        min: i128,
        max: i128,
        values: Vec<i128>,
        valid: Vec<bool>,
        data_type: DataType,
    },
    Double {
        name: String,
        out: Float64Builder,
    },
    Decimal {
        name: String,
        precision: u8,
        scale: i8,
        values: Vec<i128>,
        valid: Vec<bool>,
    },
    Text {
        name: String,
        max_chars: Option<usize>,
        char_pad: bool,
        out: StringBuilder,
    },
    Cast {
        data_type: DataType,
        out: StringBuilder,
    },
}

fn int_range(t: &DataType, declared: Option<&str>) -> Option<(i128, i128)> {
    let medium = declared.is_some_and(|d| d.starts_with("mediumint"));
    Some(match t {
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 if medium => (-8_388_608, 8_388_607),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 if medium => (0, 16_777_215),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// What storing text in a numeric field found.
enum Stored {
    Ok,
    /// No number at all: 1366, value 0.
    Incorrect,
    /// Characters after the number: 1265 (a Note when only spaces).
    Truncated {
        spaces: bool,
    },
}

fn read_number(b: &[u8]) -> (Stored, usize) {
    let (digits, end) = number_prefix(b, false, is_space);
    if digits == 0 {
        return (Stored::Incorrect, end);
    }
    let rest = &b[end..];
    if rest.is_empty() {
        (Stored::Ok, end)
    } else {
        (
            Stored::Truncated {
                spaces: rest.iter().all(|c| is_space(*c)),
            },
            end,
        )
    }
}

fn warn_stored(s: &Stored, kind: &str, text: &[u8], name: &str, row: usize) {
    match s {
        Stored::Ok => {}
        Stored::Incorrect => raise_with(Level::Warning, 1366, || {
            format!(
                "Incorrect {kind} value: '{}' for column `*any*`.`json_table`.`{name}` at row {row}",
                String::from_utf8_lossy(text)
            )
        }),
        Stored::Truncated { spaces } => raise_with(
            if *spaces { Level::Note } else { Level::Warning },
            1265,
            || format!("Data truncated for column '{name}' at row {row}"),
        ),
    }
}

fn out_of_range(name: &str, row: usize) {
    raise_with(Level::Warning, 1264, || {
        format!("Out of range value for column '{name}' at row {row}")
    });
}

/// The number `b[..end]` (a valid numeric prefix) as an integer at `scale`
/// decimals, rounded half away from zero; None past i128.
fn scaled(b: &[u8], scale: u32) -> Option<(i128, bool)> {
    let t = std::str::from_utf8(b)
        .ok()?
        .trim_start_matches(is_space_char);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|c| c - b'0').collect();
    // The value is digits × 10^(exp - frac.len()); we want it × 10^scale.
    let shift = exp as i64 - frac.len() as i64 + scale as i64;
    let mut v: i128 = 0;
    let mut rounded = false;
    if shift >= 0 {
        for d in &digits {
            v = v.checked_mul(10)?.checked_add(*d as i128)?;
        }
        for _ in 0..shift {
            v = v.checked_mul(10)?;
        }
    } else {
        let keep = digits.len() as i64 + shift;
        for d in digits.iter().take(keep.max(0) as usize) {
            v = v.checked_mul(10)?.checked_add(*d as i128)?;
        }
        let dropped = &digits[keep.max(0) as usize..];
        // The first dropped digit decides, unless the dropped part starts
        // below it (keep < 0: every digit is smaller than half a unit).
        if keep >= 0 && dropped.first().is_some_and(|d| *d >= 5) {
            v = v.checked_add(1)?;
        }
        rounded = dropped.iter().any(|d| *d != 0);
    }
    Some((if neg { -v } else { v }, rounded))
}

fn is_space_char(c: char) -> bool {
    c.is_ascii() && is_space(c as u8)
}

impl Sink {
    fn new(f: &Field, declared: Option<&str>) -> Sink {
        let name = f.name().clone();
        let t = f.data_type();
        if let Some((min, max)) = int_range(t, declared) {
            return Sink::Int {
                name,
                min,
                max,
                values: Vec::new(),
                valid: Vec::new(),
                data_type: t.clone(),
            };
        }
        match t {
            DataType::Float64 => Sink::Double {
                name,
                out: Float64Builder::new(),
            },
            DataType::Decimal128(p, s) => Sink::Decimal {
                name,
                precision: *p,
                scale: *s,
                values: Vec::new(),
                valid: Vec::new(),
            },
            DataType::Utf8 => Sink::Text {
                name,
                max_chars: declared.and_then(CharLength::of).map(CharLength::max_chars),
                char_pad: declared.is_some_and(|d| d.starts_with("char(")),
                out: StringBuilder::new(),
            },
            other => Sink::Cast {
                data_type: other.clone(),
                out: StringBuilder::new(),
            },
        }
    }

    /// Stores `cell` as row `row` (1-based, for warnings) of the table.
    fn push(&mut self, cell: Cell, row: usize, scratch: &mut Vec<u8>) {
        // The cell as text (numbers: a boolean is 1 / 0).
        let numeric = !matches!(self, Sink::Text { .. } | Sink::Cast { .. });
        let text: Option<&[u8]> = match cell {
            Cell::Null => None,
            Cell::Text(t) => Some(t),
            Cell::Escaped(t) => {
                scratch.clear();
                unescape(t, scratch);
                Some(&scratch[..])
            }
            Cell::Bool(b) => Some(match (numeric, b) {
                (true, true) => b"1",
                (true, false) => b"0",
                (false, true) => b"true",
                (false, false) => b"false",
            }),
            Cell::Int(i) => {
                if let Sink::Int {
                    values,
                    valid,
                    min,
                    max,
                    name,
                    ..
                } = self
                {
                    let v = i128::from(i);
                    if v < *min || v > *max {
                        out_of_range(name, row);
                    }
                    values.push(v.clamp(*min, *max));
                    valid.push(true);
                    return;
                }
                scratch.clear();
                scratch.extend_from_slice(i.to_string().as_bytes());
                Some(&scratch[..])
            }
        };
        match self {
            Sink::Int {
                name,
                min,
                max,
                values,
                valid,
                ..
            } => {
                let Some(b) = text else {
                    values.push(0);
                    valid.push(false);
                    return;
                };
                let (stored, end) = read_number(b);
                warn_stored(&stored, "integer", b, name, row);
                let v = match stored {
                    Stored::Incorrect => 0,
                    _ => match scaled(&b[..end], 0) {
                        Some((v, _)) => v,
                        // Past i128: clamped below.
                        None if b.contains(&b'-') => i128::MIN,
                        None => i128::MAX,
                    },
                };
                if v < *min || v > *max {
                    out_of_range(name, row);
                }
                values.push(v.clamp(*min, *max));
                valid.push(true);
            }
            Sink::Double { name, out } => {
                let Some(b) = text else {
                    out.append_null();
                    return;
                };
                let (stored, end) = read_number(b);
                warn_stored(&stored, "double", b, name, row);
                let v = std::str::from_utf8(&b[..end])
                    .ok()
                    .and_then(|t| t.trim_start_matches(is_space_char).parse::<f64>().ok())
                    .unwrap_or(0.0);
                out.append_value(v);
            }
            Sink::Decimal {
                name,
                precision,
                scale,
                values,
                valid,
            } => {
                let Some(b) = text else {
                    values.push(0);
                    valid.push(false);
                    return;
                };
                let (stored, end) = read_number(b);
                warn_stored(&stored, "decimal", b, name, row);
                let max = 10i128.pow(*precision as u32) - 1;
                let (v, rounded) = match stored {
                    Stored::Incorrect => (0, false),
                    _ => scaled(&b[..end], (*scale).max(0) as u32).unwrap_or_else(|| {
                        (if b.contains(&b'-') { -max - 1 } else { max + 1 }, false)
                    }),
                };
                if v > max || v < -max {
                    out_of_range(name, row);
                } else if rounded && matches!(stored, Stored::Ok) {
                    raise_with(Level::Note, 1265, || {
                        format!("Data truncated for column '{name}' at row {row}")
                    });
                }
                values.push(v.clamp(-max, max));
                valid.push(true);
            }
            Sink::Text {
                name,
                max_chars,
                char_pad,
                out,
            } => {
                let Some(b) = text else {
                    out.append_null();
                    return;
                };
                let s = String::from_utf8_lossy(b);
                let mut s: &str = &s;
                if let Some(n) = *max_chars {
                    if let Some((cut, _)) = s.char_indices().nth(n) {
                        let spaces = s[cut..].bytes().all(|c| c == b' ');
                        // CHAR drops trailing spaces anyway: cutting them is silent.
                        if !(spaces && *char_pad) {
                            raise_with(
                                if spaces { Level::Note } else { Level::Warning },
                                1265,
                                || format!("Data truncated for column '{name}' at row {row}"),
                            );
                        }
                        s = &s[..cut];
                    }
                }
                if *char_pad {
                    s = s.trim_end_matches(' ');
                }
                out.append_value(s);
            }
            Sink::Cast { out, .. } => match text {
                Some(b) => out.append_value(String::from_utf8_lossy(b)),
                None => out.append_null(),
            },
        }
    }

    fn finish(self) -> Result<ArrayRef> {
        Ok(match self {
            Sink::Int {
                values,
                valid,
                data_type,
                ..
            } => {
                let a = Decimal128Array::new(values.into(), Some(valid.into()))
                    .with_precision_and_scale(38, 0)?;
                cast_array(&(Arc::new(a) as ArrayRef), &data_type)?
            }
            Sink::Double { mut out, .. } => Arc::new(out.finish()),
            Sink::Decimal {
                precision,
                scale,
                values,
                valid,
                ..
            } => Arc::new(
                PrimitiveArray::<arrow_array::types::Decimal128Type>::new(
                    values.into(),
                    Some(valid.into()),
                )
                .with_precision_and_scale(precision, scale)?,
            ),
            Sink::Text { mut out, .. } => Arc::new(out.finish()),
            Sink::Cast { data_type, mut out } => {
                let text: ArrayRef = Arc::new(out.finish());
                if text.is_empty() {
                    new_null_array(&data_type, 0)
                } else {
                    cast_array(&text, &data_type)?
                }
            }
        })
    }
}
