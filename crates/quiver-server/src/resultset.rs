//! Arrow result sets as MySQL result sets: column definitions (protocol 41),
//! text rows (COM_QUERY) and binary rows (COM_STMT_EXECUTE).

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, Field};
use quiver_collation::{text, Charset, Collation};
use quiver_common::types::{
    civil_from_days, field_decimals, format_double_fixed, split_origin, CharLength, IntKind,
    IntType, COLUMN_COLLATION_KEY, COLUMN_DISPLAY_LENGTH_KEY, COLUMN_NOT_NULL_KEY,
    COLUMN_NO_DEFAULT_KEY, COLUMN_ORIGIN_KEY, COLUMN_TYPE_KEY,
};
use quiver_common::{Result, ScalarValue};

use crate::proto::{put_lenenc_bytes, put_lenenc_int};

/// MySQL column types (enum_field_types).
pub mod ty {
    pub const DECIMAL: u8 = 0;
    pub const TINY: u8 = 1;
    pub const SHORT: u8 = 2;
    pub const LONG: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const DOUBLE: u8 = 5;
    pub const NULL: u8 = 6;
    pub const TIMESTAMP: u8 = 7;
    pub const LONGLONG: u8 = 8;
    pub const INT24: u8 = 9;
    pub const DATE: u8 = 10;
    pub const TIME: u8 = 11;
    pub const DATETIME: u8 = 12;
    pub const YEAR: u8 = 13;
    pub const VARCHAR: u8 = 15;
    pub const BIT: u8 = 16;
    pub const JSON: u8 = 245;
    pub const NEWDECIMAL: u8 = 246;
    pub const ENUM: u8 = 247;
    pub const SET: u8 = 248;
    pub const TINY_BLOB: u8 = 249;
    pub const MEDIUM_BLOB: u8 = 250;
    pub const LONG_BLOB: u8 = 251;
    pub const BLOB: u8 = 252;
    pub const VAR_STRING: u8 = 253;
    pub const STRING: u8 = 254;
    pub const GEOMETRY: u8 = 255;
}

pub mod flag {
    pub const NOT_NULL: u16 = 1;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
}

/// The `binary` pseudo-collation: numbers, dates and byte strings.
pub const BINARY_COLLATION: u16 = 63;

/// A column as a client sees it in a column definition packet.
#[derive(Debug, Clone)]
pub struct ColumnMeta {
    pub name: String,
    /// The table column's own name ("" for a computed column).
    pub org_name: String,
    /// The table as the query named it (its alias), and its own name.
    pub table: String,
    pub org_table: String,
    pub schema: String,
    pub charset: u16,
    pub length: u32,
    pub ty: u8,
    pub flags: u16,
    pub decimals: u8,
    /// The charset the names travel in (`character_set_results`).
    pub names_in: Charset,
}

/// "Not a fixed number of decimals" (floats).
const NOT_FIXED_DEC: u8 = 31;
/// What MariaDB sends as the decimals of a computed string.
const NOT_FIXED_STRING_DEC: u8 = 39;

/// The string types' declared length in characters when unknown: MySQL's
/// longest VARCHAR in utf8mb4 (the length sent is in bytes of the charset).
const STRING_CHARS: u32 = 16383;

/// A column definition for `f`, a result column: a column read unchanged
/// from a table names it (and its declared type gives the length); else it
/// is named as `schema`.`table` (COM_FIELD_LIST) or not at all (an
/// expression). `results`:
/// the session's `character_set_results` collation, which strings are named
/// in (as MariaDB does); None for each string's own collation.
pub fn column_meta(f: &Field, schema: &str, table: &str, results: Option<Collation>) -> ColumnMeta {
    let declared = f.metadata().get(COLUMN_TYPE_KEY).map(String::as_str);
    let origin = f
        .metadata()
        .get(COLUMN_ORIGIN_KEY)
        .and_then(|o| split_origin(o));
    let table_column = origin.is_some() || !table.is_empty();
    let (ty, length, mut flags, decimals, charset) = match f.data_type() {
        DataType::Null => (ty::NULL, 0, flag::BINARY, 0, BINARY_COLLATION),
        // A comparison's or logical operator's result: INT(1) in MariaDB.
        DataType::Boolean => (ty::LONG, 1, 0, 0, BINARY_COLLATION),
        // YEAR: a column is ZEROFILL UNSIGNED, as MariaDB sends it.
        t if t.is_integer() && declared == Some(quiver_common::types::YEAR_TYPE_TEXT) => {
            let flags = match table_column {
                true => flag::UNSIGNED | flag::ZEROFILL,
                false => flag::UNSIGNED | flag::BINARY,
            };
            (ty::YEAR, 4, flags, 0, BINARY_COLLATION)
        }
        t if t.is_integer() && declared.and_then(IntType::parse).is_some() => {
            let i = declared.and_then(IntType::parse).expect("parsed above");
            let ty = match i.kind {
                IntKind::Tiny => ty::TINY,
                IntKind::Short => ty::SHORT,
                IntKind::Medium => ty::INT24,
                IntKind::Long => ty::LONG,
                IntKind::LongLong => ty::LONGLONG,
            };
            let unsigned = if i.unsigned { flag::UNSIGNED } else { 0 };
            (ty, i.width, unsigned, 0, BINARY_COLLATION)
        }
        DataType::Int8 => (ty::TINY, 4, 0, 0, BINARY_COLLATION),
        DataType::Int16 => (ty::SHORT, 6, 0, 0, BINARY_COLLATION),
        DataType::Int32 => (ty::LONG, 11, 0, 0, BINARY_COLLATION),
        DataType::Int64 => (ty::LONGLONG, 20, 0, 0, BINARY_COLLATION),
        DataType::UInt8 => (ty::TINY, 3, flag::UNSIGNED, 0, BINARY_COLLATION),
        DataType::UInt16 => (ty::SHORT, 5, flag::UNSIGNED, 0, BINARY_COLLATION),
        DataType::UInt32 => (ty::LONG, 10, flag::UNSIGNED, 0, BINARY_COLLATION),
        DataType::UInt64 => (ty::LONGLONG, 20, flag::UNSIGNED, 0, BINARY_COLLATION),
        DataType::Float32 => (ty::FLOAT, 12, 0, NOT_FIXED_DEC, BINARY_COLLATION),
        DataType::Float64 => {
            // A table's DOUBLE is 22 wide, a computed one 23 unless the
            // binder derived another length (CASE / COALESCE of columns).
            let length = match f.metadata().get(COLUMN_DISPLAY_LENGTH_KEY) {
                Some(n) => n.parse().unwrap_or(22),
                None if table_column => 22,
                None => 23,
            };
            let decimals = field_decimals(f).map_or(NOT_FIXED_DEC, |d| d as u8);
            (ty::DOUBLE, length, 0, decimals, BINARY_COLLATION)
        }
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            // Digits, a sign, and a point when there is a fraction.
            let len = *p as u32 + 1 + u32::from(*s > 0);
            (ty::NEWDECIMAL, len, 0, (*s).max(0) as u8, BINARY_COLLATION)
        }
        DataType::Date32 => (ty::DATE, 10, flag::BINARY, 0, BINARY_COLLATION),
        // TIME(fsp): 10 characters ('-838:59:59'), and a point and fsp digits.
        t @ DataType::Decimal64(..) => {
            let fsp = quiver_common::types::time_fsp(t).unwrap_or(0);
            let length = 10 + u32::from(fsp) + u32::from(fsp > 0);
            (ty::TIME, length, flag::BINARY, fsp, BINARY_COLLATION)
        }
        // DATETIME(fsp): 19 characters, and a point and fsp digits. A
        // TIMESTAMP column (and its MIN / MAX) is sent as MariaDB sends it:
        // type TIMESTAMP, flagged UNSIGNED as well as BINARY.
        t @ DataType::Timestamp(..) => {
            let fsp = quiver_common::types::datetime_fsp(t).unwrap_or(0);
            let length = 19 + u32::from(fsp) + u32::from(fsp > 0);
            let (ty, flags) = match declared {
                Some(d) if d.starts_with("timestamp") => {
                    (ty::TIMESTAMP, flag::BINARY | flag::UNSIGNED)
                }
                _ => (ty::DATETIME, flag::BINARY),
            };
            (ty, length, flags, fsp, BINARY_COLLATION)
        }
        // Binary strings (charset binary): by the declared type of a table
        // column as MariaDB sends it; a computed one as MariaDB sends
        // CAST(x AS BINARY) or X'..' (VAR_STRING), its length unknown here.
        // Never in character_set_results: the bytes travel as they are.
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            let (ty, length, flags) = match declared.and_then(declared_binary) {
                Some(d) => d,
                None => (ty::VAR_STRING, STRING_CHARS, flag::BINARY),
            };
            (ty, length, flags, 0, BINARY_COLLATION)
        }
        _ => {
            // Strings (and anything else, sent as its text). MariaDB also
            // sets BINARY_FLAG for a `_bin` collation; not here, since
            // utf8mb4_bin is Quiver's default and connectors read a lone
            // BINARY_FLAG as "bytes" (mysql-connector-python's binary rows).
            let own = f
                .metadata()
                .get(COLUMN_COLLATION_KEY)
                .and_then(|n| Collation::from_name(n))
                .unwrap_or_else(Collation::utf8mb4_bin);
            let sent = results.unwrap_or(own);
            let per_char = sent.charset().max_char_len() as u32;
            // CAST(x AS CHAR) and GROUP_CONCAT: decimals 0, and a GROUP_CONCAT
            // longer than 512 characters is a BLOB without BLOB_FLAG whose
            // length is its bytes times the sent charset's (MariaDB's
            // item; at most 2^28).
            let fixed = match table_column {
                true => None,
                false => f
                    .metadata()
                    .get(COLUMN_DISPLAY_LENGTH_KEY)
                    .and_then(|n| n.parse::<u64>().ok()),
            };
            let members = declared.and_then(quiver_common::types::MemberType::parse);
            let (ty, length, flags) = match (declared.and_then(DeclaredString::of), fixed) {
                // ENUM / SET: a STRING flagged as MariaDB sends it.
                _ if members.is_some() => {
                    let m = members.as_ref().expect("matched above");
                    let chars = u32::try_from(m.max_chars()).unwrap_or(u32::MAX);
                    let kind = match m.kind {
                        quiver_common::types::MemberKind::Enum => flag::ENUM,
                        quiver_common::types::MemberKind::Set => flag::SET,
                    };
                    (ty::STRING, chars.saturating_mul(per_char), kind)
                }
                (Some(DeclaredString::Char(n)), _) => (ty::STRING, n.saturating_mul(per_char), 0),
                (Some(DeclaredString::Varchar(n)), _) => {
                    (ty::VAR_STRING, n.saturating_mul(per_char), 0)
                }
                (Some(DeclaredString::Text(_)), Some(bytes)) => {
                    let length = (bytes * per_char as u64).min(1 << 28) as u32;
                    (ty::BLOB, length, 0)
                }
                (Some(DeclaredString::Text(bytes)), None) => {
                    (ty::BLOB, bytes.saturating_mul(per_char), flag::BLOB)
                }
                (None, _) => (ty::VAR_STRING, STRING_CHARS.saturating_mul(per_char), 0),
            };
            // A computed string has "no fixed decimals" (MariaDB's items).
            let decimals = if table_column || fixed.is_some() {
                0
            } else {
                NOT_FIXED_STRING_DEC
            };
            (ty, length, flags, decimals, sent.id())
        }
    };
    if !f.is_nullable() || f.metadata().contains_key(COLUMN_NOT_NULL_KEY) {
        flags |= flag::NOT_NULL;
    }
    // MariaDB leaves BINARY off the numbers of table columns (a field's
    // flags), and sets it on computed ones (an item's).
    let numeric_column = table_column && !matches!(ty, ty::DATE | ty::DATETIME);
    if ty != ty::NULL && charset == BINARY_COLLATION && !numeric_column {
        flags |= flag::BINARY;
    }
    if f.metadata().contains_key(COLUMN_NO_DEFAULT_KEY) {
        flags |= flag::NO_DEFAULT_VALUE;
    }
    let (mut schema, mut table, mut org_table, org_name) = match origin {
        Some([schema, table, org_table, org_name]) => (schema, table, org_table, org_name),
        None if table.is_empty() => ("", "", "", ""),
        None => (schema, table, table, f.name().as_str()),
    };
    // The engine names an information_schema view `information_schema.X`
    // (one name) in Quiver's schema; MariaDB says schema
    // information_schema, table X, and every such column has no default.
    if let Some(view) = org_table.strip_prefix("information_schema.") {
        if table == org_table {
            table = view;
        }
        org_table = view;
        schema = "information_schema";
        flags |= flag::NO_DEFAULT_VALUE;
    }
    ColumnMeta {
        name: f.name().clone(),
        org_name: org_name.to_string(),
        table: table.to_string(),
        org_table: org_table.to_string(),
        schema: schema.to_string(),
        charset,
        length,
        ty,
        flags,
        decimals,
        names_in: results.map_or(Charset::Utf8mb4, |c| c.charset()),
    }
}

/// A column definition packet (Protocol::ColumnDefinition41).
pub fn column_definition(c: &ColumnMeta, field_list_default: bool) -> Vec<u8> {
    let mut p = Vec::with_capacity(64 + c.name.len() * 2);
    put_lenenc_bytes(&mut p, b"def");
    for name in [&c.schema, &c.table, &c.org_table, &c.name, &c.org_name] {
        put_text(&mut p, name, c.names_in);
    }
    p.push(0x0C);
    p.extend_from_slice(&c.charset.to_le_bytes());
    p.extend_from_slice(&c.length.to_le_bytes());
    p.push(c.ty);
    p.extend_from_slice(&c.flags.to_le_bytes());
    p.push(c.decimals);
    p.extend_from_slice(&[0, 0]);
    if field_list_default {
        // COM_FIELD_LIST: the default value, here always NULL (0xFB).
        p.push(0xFB);
    }
    p
}

/// A string column's declared type, as its length travels: CHAR and VARCHAR
/// in characters, the TEXT types in bytes (MySQL counts those in bytes and
/// multiplies them by the charset's width all the same).
enum DeclaredString {
    Char(u32),
    Varchar(u32),
    Text(u32),
}

impl DeclaredString {
    fn of(column_type: &str) -> Option<DeclaredString> {
        let text = |bytes| Some(DeclaredString::Text(bytes));
        match column_type {
            "tinytext" => return text(255),
            "text" => return text(65_535),
            "mediumtext" => return text(16_777_215),
            "longtext" => return text(u32::MAX),
            _ => {}
        }
        Some(match CharLength::of(column_type)? {
            CharLength::Char(n) => DeclaredString::Char(n.try_into().ok()?),
            CharLength::Varchar(n) => DeclaredString::Varchar(n.try_into().ok()?),
        })
    }
}

/// A binary string column's declared type (`binary(4)`, `varbinary(16)`,
/// `tinyblob` .. `longblob`) as MariaDB sends it: type, length in bytes,
/// flags.
fn declared_binary(column_type: &str) -> Option<(u8, u32, u16)> {
    let blob = |bytes| Some((ty::BLOB, bytes, flag::BINARY | flag::BLOB));
    match column_type {
        "tinyblob" => return blob(255),
        "blob" => return blob(65_535),
        "mediumblob" => return blob(16_777_215),
        "longblob" => return blob(u32::MAX),
        _ => {}
    }
    let (kind, rest) = column_type.split_once('(')?;
    let n: u32 = rest.strip_suffix(')')?.trim().parse().ok()?;
    match kind.trim() {
        "binary" => Some((ty::STRING, n, flag::BINARY)),
        "varbinary" => Some((ty::VAR_STRING, n, flag::BINARY)),
        _ => None,
    }
}

/// A string value as sent in `results`, the session's
/// `character_set_results`: latin1 / ascii one byte per character (`?` for
/// one it cannot hold); the UTF-8 bytes otherwise.
fn put_text(out: &mut Vec<u8>, s: &str, results: Charset) {
    if text::is_single_byte_text(results) && !s.is_ascii() {
        let mut bytes = Vec::with_capacity(s.len());
        text::encode(results, s.as_bytes(), &mut bytes);
        put_lenenc_bytes(out, &bytes);
    } else {
        put_lenenc_bytes(out, s.as_bytes());
    }
}

/// YEAR columns (where `years[i]`) as the four digits MariaDB sends
/// (0000); other columns unchanged.
pub fn years_as_text(columns: &[ArrayRef], years: &[bool]) -> Result<Vec<ArrayRef>> {
    columns
        .iter()
        .zip(years.iter().chain(std::iter::repeat(&false)))
        .map(|(c, &year)| {
            if !year || !c.data_type().is_integer() {
                return Ok(c.clone());
            }
            let wide = quiver_exec::expr::cast_array(c, &DataType::Int64)?;
            let wide = wide.as_primitive::<Int64Type>();
            let text: arrow_array::StringArray = wide
                .iter()
                .map(|v| v.map(quiver_common::types::year_text))
                .collect();
            Ok(std::sync::Arc::new(text) as ArrayRef)
        })
        .collect()
}

/// Each cell of row `r` as the text protocol sends it, appended to `out`;
/// strings in the `results` charset.
pub fn text_row(columns: &[ArrayRef], r: usize, results: Charset, out: &mut Vec<u8>) -> Result<()> {
    text_row_fixed(columns, &[], r, results, out)
}

/// [`text_row`] where `decimals[i]` is column i's fixed decimals, if it is
/// a DOUBLE that has them ([`field_decimals`]).
pub fn text_row_fixed(
    columns: &[ArrayRef],
    decimals: &[Option<usize>],
    r: usize,
    results: Charset,
    out: &mut Vec<u8>,
) -> Result<()> {
    for (i, c) in columns.iter().enumerate() {
        // A NULL-typed column has no validity bitmap: every value is NULL.
        if c.is_null(r) || c.data_type() == &DataType::Null {
            out.push(0xFB);
            continue;
        }
        if let Some(Some(d)) = decimals.get(i) {
            let v = c.as_primitive::<Float64Type>().value(r);
            put_lenenc_bytes(out, format_double_fixed(v, *d).as_bytes());
            continue;
        }
        match c.data_type() {
            DataType::Utf8 => put_text(out, c.as_string::<i32>().value(r), results),
            DataType::LargeUtf8 => put_text(out, c.as_string::<i64>().value(r), results),
            DataType::Binary => put_lenenc_bytes(out, c.as_binary::<i32>().value(r)),
            DataType::Int32 => put_decimal(out, c.as_primitive::<Int32Type>().value(r) as i128, 0),
            DataType::Int64 => put_decimal(out, c.as_primitive::<Int64Type>().value(r) as i128, 0),
            DataType::UInt64 => {
                put_decimal(out, c.as_primitive::<UInt64Type>().value(r) as i128, 0)
            }
            DataType::Boolean => put_num(out, c.as_boolean().value(r) as u8),
            DataType::Decimal128(_, s) => {
                put_decimal(out, c.as_primitive::<Decimal128Type>().value(r), *s)
            }
            _ => {
                let s = ScalarValue::from_array(c, r)?.to_string();
                put_lenenc_bytes(out, s.as_bytes());
            }
        }
    }
    Ok(())
}

/// A decimal as `quiver_common::types::format_decimal` writes it (the text
/// the engine prints), without going through a String.
fn put_decimal(out: &mut Vec<u8>, v: i128, scale: i8) {
    if scale < 0 {
        return put_num(out, v);
    }
    let scale = scale as usize;
    // The digits of |v|, least significant first.
    let mut digits = [0u8; 40];
    let mut n = 0;
    let mut u = v.unsigned_abs();
    while u > u64::MAX as u128 {
        digits[n] = b'0' + (u % 10) as u8;
        u /= 10;
        n += 1;
    }
    // The rest in 64-bit arithmetic (most values never need 128).
    let mut w = u as u64;
    loop {
        digits[n] = b'0' + (w % 10) as u8;
        w /= 10;
        n += 1;
        if w == 0 {
            break;
        }
    }
    // At least one digit before the point (if there is one).
    let n = if scale > 0 { n.max(scale + 1) } else { n };
    let len = (v < 0) as usize + n + (scale > 0) as usize;
    out.push(len as u8);
    if v < 0 {
        out.push(b'-');
    }
    for i in (0..n).rev() {
        out.push(if digits[i] == 0 { b'0' } else { digits[i] });
        if i == scale && scale > 0 {
            out.push(b'.');
        }
    }
}

fn put_num(out: &mut Vec<u8>, v: impl std::fmt::Display) {
    use std::io::Write;
    // Room for the length byte first: numbers are shorter than 251 bytes.
    let at = out.len();
    out.push(0);
    let _ = write!(out, "{v}");
    out[at] = (out.len() - at - 1) as u8;
}

/// Row `r` in the binary protocol: a 0x00 header, the NULL bitmap (offset 2)
/// and each non-NULL value in its type's binary form. `types`: each
/// column's type code as its definition gave it, which sets an integer's
/// width (an Int64 column declared INT travels in 4 bytes).
pub fn binary_row(
    columns: &[ArrayRef],
    types: &[u8],
    r: usize,
    results: Charset,
    out: &mut Vec<u8>,
) -> Result<()> {
    out.push(0);
    let bitmap_at = out.len();
    out.resize(bitmap_at + (columns.len() + 7 + 2) / 8, 0);
    for (i, c) in columns.iter().enumerate() {
        if c.is_null(r) || c.data_type() == &DataType::Null {
            let bit = i + 2;
            out[bitmap_at + bit / 8] |= 1 << (bit % 8);
            continue;
        }
        if let Some(v) = integer_value(c, r) {
            // Two's complement, cut to the declared width: the value fits.
            let bytes = v.to_le_bytes();
            let width = match types.get(i) {
                Some(&ty::TINY) => 1,
                Some(&ty::SHORT | &ty::YEAR) => 2,
                Some(&ty::LONG | &ty::INT24) => 4,
                _ => 8,
            };
            out.extend_from_slice(&bytes[..width]);
            continue;
        }
        match c.data_type() {
            DataType::Float32 => {
                out.extend_from_slice(&c.as_primitive::<Float32Type>().value(r).to_le_bytes())
            }
            DataType::Float64 => {
                out.extend_from_slice(&c.as_primitive::<Float64Type>().value(r).to_le_bytes())
            }
            DataType::Date32 => {
                let (y, m, d) = civil_from_days(c.as_primitive::<Date32Type>().value(r));
                out.push(4);
                out.extend_from_slice(&(y as u16).to_le_bytes());
                out.push(m as u8);
                out.push(d as u8);
            }
            DataType::Decimal64(..) => {
                put_binary_time(out, c.as_primitive::<Decimal64Type>().value(r))
            }
            DataType::Timestamp(..) => match ScalarValue::from_array(c, r)? {
                ScalarValue::DateTime(micros, _) => put_binary_datetime(out, micros),
                other => put_lenenc_bytes(out, other.to_string().as_bytes()),
            },
            DataType::Utf8 => put_text(out, c.as_string::<i32>().value(r), results),
            DataType::LargeUtf8 => put_text(out, c.as_string::<i64>().value(r), results),
            DataType::Binary => put_lenenc_bytes(out, c.as_binary::<i32>().value(r)),
            // Decimals travel as text in both protocols.
            _ => put_lenenc_bytes(out, ScalarValue::from_array(c, r)?.to_string().as_bytes()),
        }
    }
    Ok(())
}

/// Value `r` of an integer or boolean column, widened.
fn integer_value(c: &ArrayRef, r: usize) -> Option<i128> {
    Some(match c.data_type() {
        DataType::Boolean => c.as_boolean().value(r) as i128,
        DataType::Int8 => c.as_primitive::<Int8Type>().value(r) as i128,
        DataType::UInt8 => c.as_primitive::<UInt8Type>().value(r) as i128,
        DataType::Int16 => c.as_primitive::<Int16Type>().value(r) as i128,
        DataType::UInt16 => c.as_primitive::<UInt16Type>().value(r) as i128,
        DataType::Int32 => c.as_primitive::<Int32Type>().value(r) as i128,
        DataType::UInt32 => c.as_primitive::<UInt32Type>().value(r) as i128,
        DataType::Int64 => c.as_primitive::<Int64Type>().value(r) as i128,
        DataType::UInt64 => c.as_primitive::<UInt64Type>().value(r) as i128,
        _ => return None,
    })
}

/// TIME in the binary protocol: 0, 8 or 12 bytes after the length (sign,
/// days, hours, minutes, seconds, then the microseconds when not 0).
fn put_binary_time(out: &mut Vec<u8>, micros: i64) {
    if micros == 0 {
        out.push(0);
        return;
    }
    let a = micros.unsigned_abs();
    let secs = a / 1_000_000;
    let frac = (a % 1_000_000) as u32;
    out.push(if frac != 0 { 12 } else { 8 });
    out.push(u8::from(micros < 0));
    out.extend_from_slice(&((secs / 86_400) as u32).to_le_bytes());
    out.extend_from_slice(&[
        (secs / 3600 % 24) as u8,
        (secs / 60 % 60) as u8,
        (secs % 60) as u8,
    ]);
    if frac != 0 {
        out.extend_from_slice(&frac.to_le_bytes());
    }
}

/// DATETIME in the binary protocol: 0, 4, 7 or 11 bytes after the length.
fn put_binary_datetime(out: &mut Vec<u8>, micros: i64) {
    let days = micros.div_euclid(86_400_000_000);
    let rem = micros.rem_euclid(86_400_000_000);
    let (y, m, d) = civil_from_days(days as i32);
    let secs = rem / 1_000_000;
    let frac = (rem % 1_000_000) as u32;
    let (h, mi, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let len = if frac != 0 {
        11
    } else if h != 0 || mi != 0 || s != 0 {
        7
    } else {
        4
    };
    out.push(len);
    out.extend_from_slice(&(y as u16).to_le_bytes());
    out.push(m as u8);
    out.push(d as u8);
    if len >= 7 {
        out.extend_from_slice(&[h as u8, mi as u8, s as u8]);
    }
    if len == 11 {
        out.extend_from_slice(&frac.to_le_bytes());
    }
}

/// The column-count packet that starts a result set.
pub fn column_count(n: usize) -> Vec<u8> {
    let mut p = vec![];
    put_lenenc_int(&mut p, n as u64);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray, TimestampMicrosecondArray};
    use std::sync::Arc;

    #[test]
    fn binary_row_sets_null_bits_at_offset_two() {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![Some(-2)])),
            Arc::new(StringArray::from(vec![None::<&str>])),
            Arc::new(TimestampMicrosecondArray::from(vec![Some(
                86_400_000_000 + 3_600_000_000 + 5,
            )])),
        ];
        let mut out = vec![];
        binary_row(
            &cols,
            &[ty::LONG, ty::VAR_STRING, ty::DATETIME],
            0,
            Charset::Utf8mb4,
            &mut out,
        )
        .unwrap();
        // Column 1 NULL: bit 3 of the first bitmap byte.
        assert_eq!(out[..2], [0, 0b1000]);
        assert_eq!(out[2..6], (-2i32).to_le_bytes());
        // 1970-01-02 01:00:00.000005
        assert_eq!(out[6..], [11, 0xB2, 0x07, 1, 2, 1, 0, 0, 5, 0, 0, 0]);
    }

    #[test]
    fn binary_integers_take_their_declared_width() {
        use arrow_array::{BooleanArray, Int64Array};
        let field = |t: DataType, declared: &str| {
            let meta = std::collections::HashMap::from([(
                COLUMN_TYPE_KEY.to_string(),
                declared.to_string(),
            )]);
            Field::new("x", t, false).with_metadata(meta)
        };
        // `ti + 1` is computed in BIGINT but declared INT(5): 4 bytes.
        let int5 = column_meta(&field(DataType::Int64, "int(5)"), "", "", None);
        assert_eq!((int5.ty, int5.length), (ty::LONG, 5));
        let small = column_meta(&field(DataType::Int64, "smallint(6)"), "", "", None);
        let cmp = column_meta(&Field::new("b", DataType::Boolean, false), "", "", None);
        assert_eq!((cmp.ty, cmp.length), (ty::LONG, 1));
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![-3])),
            Arc::new(Int64Array::from(vec![-2])),
            Arc::new(BooleanArray::from(vec![true])),
        ];
        let mut out = vec![];
        binary_row(
            &cols,
            &[int5.ty, small.ty, cmp.ty],
            0,
            Charset::Utf8mb4,
            &mut out,
        )
        .unwrap();
        let mut want = vec![0, 0];
        want.extend((-3i32).to_le_bytes());
        want.extend((-2i16).to_le_bytes());
        want.extend(1i32.to_le_bytes());
        assert_eq!(out, want);
    }

    #[test]
    fn binary_strings_are_described_and_sent_as_mariadb_does() {
        use arrow_array::BinaryArray;
        let field = |declared: Option<&str>, nullable: bool| {
            let f = Field::new("b", DataType::Binary, nullable);
            match declared {
                Some(d) => f.with_metadata(std::collections::HashMap::from([
                    (COLUMN_TYPE_KEY.to_string(), d.to_string()),
                    (COLUMN_ORIGIN_KEY.to_string(), "quiver\0b\0b\0b".to_string()),
                ])),
                None => f,
            }
        };
        // (declared, type, length, flags) as MariaDB 10.11 sends them for
        // CREATE TABLE b (b4 BINARY(4), vb VARBINARY(16), tb TINYBLOB, ...).
        for (declared, t, length, flags) in [
            ("binary(4)", ty::STRING, 4, 128),
            ("varbinary(16)", ty::VAR_STRING, 16, 128),
            ("tinyblob", ty::BLOB, 255, 144),
            ("blob", ty::BLOB, 65_535, 144),
            ("mediumblob", ty::BLOB, 16_777_215, 144),
            ("longblob", ty::BLOB, u32::MAX, 144),
        ] {
            // character_set_results latin1 changes nothing for bytes.
            let m = column_meta(
                &field(Some(declared), true),
                "",
                "",
                Collation::from_name("latin1_swedish_ci"),
            );
            assert_eq!(
                (m.ty, m.length, m.flags, m.charset, m.decimals),
                (t, length, flags, BINARY_COLLATION, 0),
                "{declared}"
            );
        }
        let nn = column_meta(&field(Some("varbinary(3)"), false), "", "", None);
        assert_eq!(
            (nn.ty, nn.length, nn.flags),
            (ty::VAR_STRING, 3, 4225 - 4096)
        );
        // Computed (CAST('a' AS BINARY)): VAR_STRING, BINARY_FLAG, charset 63.
        let c = column_meta(&field(None, true), "", "", None);
        assert_eq!(
            (c.ty, c.flags, c.charset, c.decimals),
            (ty::VAR_STRING, 128, BINARY_COLLATION, 0)
        );
        // The bytes go raw in both protocols, whatever character_set_results.
        let bytes: Vec<u8> = (0..=255).collect();
        let cols: Vec<ArrayRef> = vec![Arc::new(BinaryArray::from(vec![Some(&bytes[..]), None]))];
        for results in [Charset::Utf8mb4, Charset::Latin1] {
            let mut out = vec![];
            text_row(&cols, 0, results, &mut out).unwrap();
            assert_eq!(out[..3], [0xFC, 0x00, 0x01]);
            assert_eq!(out[3..], bytes[..]);
            let mut out = vec![];
            binary_row(&cols, &[ty::VAR_STRING], 0, results, &mut out).unwrap();
            assert_eq!(out[..5], [0, 0, 0xFC, 0x00, 0x01]);
            assert_eq!(out[5..], bytes[..]);
            let mut out = vec![];
            text_row(&cols, 1, results, &mut out).unwrap();
            assert_eq!(out, [0xFB]);
        }
    }

    #[test]
    fn text_row_writes_lengths_and_nulls() {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![Some(12345)])),
            Arc::new(StringArray::from(vec![None::<&str>])),
        ];
        let mut out = vec![];
        text_row(&cols, 0, Charset::Utf8mb4, &mut out).unwrap();
        assert_eq!(out, b"\x0512345\xFB");
    }

    #[test]
    fn text_decimals_are_the_engines_text() {
        for (v, scale) in [
            (0i128, 2i8),
            (5, 2),
            (-5, 2),
            (123, 2),
            (-100, 2),
            (12_345_678_901_234, 4),
            (i128::MAX / 7, 10),
            (-(i128::MAX / 3), 38),
            (42, 0),
            (-42, 0),
            (0, 0),
            (i64::MIN as i128, 0),
            (u64::MAX as i128, 0),
        ] {
            let want = quiver_common::types::format_decimal(v, scale);
            let mut out = vec![];
            put_decimal(&mut out, v, scale);
            assert_eq!(out[0] as usize, out.len() - 1, "{want}");
            assert_eq!(std::str::from_utf8(&out[1..]).unwrap(), want);
        }
    }
}
