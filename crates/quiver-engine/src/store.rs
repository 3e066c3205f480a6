//! Values stored into a table's columns, with MySQL's checks: each value is
//! converted to its column's type and must fit it (range, length,
//! characters of the column's charset).

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, StringArray};
use arrow_schema::{DataType, Field};
use quiver_collation::Collation;
use quiver_common::types::{
    is_numeric, CharLength, IntKind, IntType, COLUMN_COLLATION_KEY, COLUMN_TYPE_KEY,
};
use quiver_common::{QuiverError, Result};
use quiver_exec::expr::{cast_array, numeric_text_problem, NumericText};

/// Converts a value to a column's type with MySQL strict-mode checks:
/// out of range is 1264, an invalid date or number is 1292 / 1366.
/// `first_row` is the 0-based row number of `a`'s first value in the statement.
/// `table`: how error 1366 names the column's table (`` `db`.`t`. ``).
pub(crate) fn store_cast(
    a: &ArrayRef,
    f: &Field,
    first_row: usize,
    table: &str,
) -> Result<ArrayRef> {
    if f.data_type() == &DataType::Binary {
        return store_bytes(a, f, first_row);
    }
    if a.data_type() == &DataType::Binary && f.data_type() == &DataType::Utf8 {
        return store_cast(&bytes_as_text(a, f, first_row, table)?, f, first_row, table);
    }
    let out = store_cast_type(a, f, first_row)?;
    match f
        .metadata()
        .get(COLUMN_TYPE_KEY)
        .and_then(|t| CharLength::of(t))
    {
        Some(len) => store_chars(&out, f, len, first_row),
        None => Ok(out),
    }
}

/// MySQL's strict-mode error 1406 for a value longer than its column.
fn data_too_long(f: &Field, row: usize) -> QuiverError {
    QuiverError::new(
        1406,
        "22001",
        format!("Data too long for column '{}' at row {row}", f.name()),
    )
}

/// Values for a BINARY(n) / VARBINARY(n) / BLOB column: text as its bytes
/// (numbers as their text's); longer than n bytes is MySQL's strict-mode
/// error 1406 (spaces too), and BINARY(n) pads with 0x00 to n bytes.
fn store_bytes(a: &ArrayRef, f: &Field, first_row: usize) -> Result<ArrayRef> {
    use arrow_array::BinaryArray;
    let bytes = match a.data_type() {
        DataType::Binary => a.clone(),
        DataType::Null => return Ok(arrow_array::new_null_array(&DataType::Binary, a.len())),
        DataType::Utf8 => Arc::new(BinaryArray::from(
            a.as_any()
                .downcast_ref::<StringArray>()
                .expect("Utf8")
                .clone(),
        )),
        _ => {
            let text = cast_array(a, &DataType::Utf8)?;
            Arc::new(BinaryArray::from(
                text.as_any()
                    .downcast_ref::<StringArray>()
                    .expect("Utf8")
                    .clone(),
            ))
        }
    };
    let declared = f
        .metadata()
        .get(COLUMN_TYPE_KEY)
        .map(String::as_str)
        .unwrap_or("");
    let (fixed, n) = match declared.split_once('(') {
        Some((kind @ ("binary" | "varbinary"), rest)) => {
            match rest.trim_end_matches(')').parse::<usize>() {
                Ok(n) => (kind == "binary", n),
                Err(_) => return Ok(bytes),
            }
        }
        _ => return Ok(bytes),
    };
    let b = bytes
        .as_any()
        .downcast_ref::<BinaryArray>()
        .expect("Binary");
    let mut padded = false;
    for (row, v) in b.iter().enumerate() {
        let Some(v) = v else { continue };
        if v.len() > n {
            return Err(data_too_long(f, first_row + row + 1));
        }
        padded |= fixed && v.len() < n;
    }
    if !padded {
        return Ok(bytes);
    }
    let values: Vec<Option<Vec<u8>>> = b
        .iter()
        .map(|v| {
            v.map(|v| {
                let mut p = v.to_vec();
                p.resize(n, 0);
                p
            })
        })
        .collect();
    Ok(Arc::new(BinaryArray::from_iter(values)))
}

/// Text of a latin1 / ascii result column (kept as UTF-8) headed for a
/// binary column: its bytes in its own charset (`é` is E9), as MySQL stores it.
pub(crate) fn text_as_bytes(a: &ArrayRef, from: &Field, to: &Field) -> ArrayRef {
    let charset = from
        .metadata()
        .get(COLUMN_COLLATION_KEY)
        .and_then(|n| Collation::from_name(n))
        .map(|c| c.charset());
    let (Some(charset), Some(text)) = (charset, a.as_any().downcast_ref::<StringArray>()) else {
        return a.clone();
    };
    if to.data_type() != &DataType::Binary || !quiver_collation::text::is_single_byte_text(charset)
    {
        return a.clone();
    }
    let bytes: arrow_array::BinaryArray = text
        .iter()
        .map(|v| {
            v.map(|v| {
                let mut b = Vec::with_capacity(v.len());
                quiver_collation::text::encode(charset, v.as_bytes(), &mut b);
                b
            })
        })
        .collect();
    Arc::new(bytes)
}

/// Bytes stored into a text column: read in the column's charset (latin1
/// takes any byte); bytes that are not a character there are MySQL's
/// strict-mode error 1366.
fn bytes_as_text(a: &ArrayRef, f: &Field, first_row: usize, table: &str) -> Result<ArrayRef> {
    use arrow_array::BinaryArray;
    let b = a.as_any().downcast_ref::<BinaryArray>().expect("Binary");
    let charset = f
        .metadata()
        .get(COLUMN_COLLATION_KEY)
        .and_then(|n| Collation::from_name(n))
        .map_or(quiver_collation::Charset::Utf8mb4, |c| c.charset());
    let mut values: Vec<Option<String>> = Vec::with_capacity(b.len());
    for (row, v) in b.iter().enumerate() {
        let Some(v) = v else {
            values.push(None);
            continue;
        };
        let bad = match charset {
            quiver_collation::Charset::Latin1 => None,
            quiver_collation::Charset::Ascii => v.iter().position(|c| !c.is_ascii()),
            _ => match std::str::from_utf8(v) {
                Ok(_) => None,
                Err(e) => Some(e.valid_up_to()),
            },
        };
        if let Some(at) = bad {
            return Err(QuiverError::new(
                1366,
                "22007",
                format!(
                    "Incorrect string value: '{}' for column {table}`{}` at row {}",
                    quiver_collation::text::incorrect_value_text(v, at),
                    f.name(),
                    first_row + row + 1
                ),
            ));
        }
        let mut s = String::with_capacity(v.len());
        if quiver_collation::text::is_single_byte_text(charset) {
            quiver_collation::text::decode(charset, v, &mut s);
        } else {
            s.push_str(std::str::from_utf8(v).expect("checked above"));
        }
        values.push(Some(s));
    }
    Ok(Arc::new(StringArray::from(values)))
}

/// Values for a latin1 / ascii / utf8mb3 column (kept as UTF-8) must be
/// characters the charset holds: else MySQL's strict-mode error 1366, naming the
/// column as `table` (`` `db`.`t`. ``) prefixes it.
pub(crate) fn check_charset(a: &ArrayRef, f: &Field, first_row: usize, table: &str) -> Result<()> {
    let Some(s) = a.as_any().downcast_ref::<StringArray>() else {
        return Ok(());
    };
    let Some(charset) = f
        .metadata()
        .get(COLUMN_COLLATION_KEY)
        .and_then(|n| Collation::from_name(n))
        .map(|c| c.charset())
        .filter(|c| quiver_collation::text::restricts(*c))
    else {
        return Ok(());
    };
    for (row, v) in s.iter().enumerate() {
        let Some(v) = v else { continue };
        if let Some(at) = quiver_collation::text::first_unrepresentable(charset, v.as_bytes()) {
            return Err(QuiverError::new(
                1366,
                "22007",
                format!(
                    "Incorrect string value: '{}' for column {table}`{}` at row {}",
                    quiver_collation::text::incorrect_value_text(v.as_bytes(), at),
                    f.name(),
                    first_row + row + 1
                ),
            ));
        }
    }
    Ok(())
}

/// Values for a CHAR(n) / VARCHAR(n) column: longer than n characters is
/// MySQL's strict-mode error 1406 (trailing spaces beyond n are cut without
/// error, as MySQL does), and CHAR drops trailing spaces.
fn store_chars(a: &ArrayRef, f: &Field, len: CharLength, first_row: usize) -> Result<ArrayRef> {
    let Some(s) = a.as_any().downcast_ref::<StringArray>() else {
        return Ok(a.clone());
    };
    let n = len.max_chars();
    let mut changed = false;
    let mut values: Vec<Option<&str>> = Vec::with_capacity(s.len());
    for (row, v) in s.iter().enumerate() {
        let Some(v) = v else {
            values.push(None);
            continue;
        };
        let mut kept = v;
        if kept.len() > n {
            if let Some((cut, _)) = kept.char_indices().nth(n) {
                if !kept[cut..].bytes().all(|b| b == b' ') {
                    return Err(data_too_long(f, first_row + row + 1));
                }
                kept = &kept[..cut];
            }
        }
        if matches!(len, CharLength::Char(_)) {
            kept = kept.trim_end_matches(' ');
        }
        changed |= kept.len() != v.len();
        values.push(Some(kept));
    }
    if !changed {
        return Ok(a.clone());
    }
    Ok(Arc::new(StringArray::from(values)))
}

fn store_cast_type(a: &ArrayRef, f: &Field, first_row: usize) -> Result<ArrayRef> {
    let t = f.data_type();
    if a.data_type() == t {
        return Ok(a.clone());
    }
    if a.data_type() == &DataType::Null {
        return Ok(arrow_array::new_null_array(t, a.len()));
    }
    if let (Some(s), true) = (a.as_any().downcast_ref::<StringArray>(), is_numeric(t)) {
        check_numeric_text(s, f, first_row)?;
    }
    let out = cast_array(a, t)?;
    let out_of_range = || {
        QuiverError::new(
            1264,
            "22003",
            format!(
                "Out of range value for column '{}' at row {}",
                f.name(),
                first_row + 1
            ),
        )
    };
    if t.is_integer() && a.data_type() != t {
        // The value must survive the round trip through the column type.
        let back = cast_array(&out, &DataType::Decimal128(38, 0))?;
        let orig = cast_array(a, &DataType::Decimal128(38, 0))?;
        if back.as_ref() != orig.as_ref() {
            return Err(out_of_range());
        }
    }
    // MEDIUMINT is stored as INT; its own range is checked here.
    let declared = f
        .metadata()
        .get(COLUMN_TYPE_KEY)
        .and_then(|t| IntType::parse(t));
    let medium = match declared {
        Some(IntType {
            kind: IntKind::Medium,
            unsigned: false,
            ..
        }) => Some((-8_388_608, 8_388_607)),
        Some(IntType {
            kind: IntKind::Medium,
            unsigned: true,
            ..
        }) => Some((0, 16_777_215)),
        _ => None,
    };
    if let Some((lo, hi)) = medium {
        let v = cast_array(&out, &DataType::Int64)?;
        let v = v
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .ok_or_else(|| QuiverError::internal("MEDIUMINT values as BIGINT"))?;
        if let Some(row) = (0..v.len()).find(|&i| v.is_valid(i) && !(lo..=hi).contains(&v.value(i)))
        {
            return Err(QuiverError::new(
                1264,
                "22003",
                format!(
                    "Out of range value for column '{}' at row {}",
                    f.name(),
                    first_row + row + 1
                ),
            ));
        }
    }
    if let DataType::Decimal128(p, _) = t {
        let d = out
            .as_any()
            .downcast_ref::<arrow_array::Decimal128Array>()
            .expect("decimal");
        let max = 10i128.pow(*p as u32);
        if d.iter().flatten().any(|v| v.abs() >= max) {
            return Err(out_of_range());
        }
    }
    if let DataType::Decimal256(p, _) = t {
        let max = quiver_common::types::pow10(*p as u32).expect("precision <= 65");
        let d =
            arrow_array::cast::AsArray::as_primitive::<arrow_array::types::Decimal256Type>(&out);
        if d.iter().flatten().any(|v| v.wrapping_abs() >= max) {
            return Err(out_of_range());
        }
    }
    if out.null_count() > a.null_count() {
        let kind = match t {
            DataType::Date32 => "date",
            DataType::Timestamp(..) => "datetime",
            _ => "value",
        };
        let first = (0..a.len())
            .find(|i| out.is_null(*i) && !a.is_null(*i))
            .unwrap_or(0);
        let v = quiver_common::ScalarValue::from_array(a, first)?.to_string();
        return Err(QuiverError::new(
            1292,
            "22007",
            format!(
                "Incorrect {kind} value: '{v}' for column '{}' at row {}",
                f.name(),
                first_row + first + 1
            ),
        ));
    }
    Ok(out)
}

/// A string stored into a numeric column must be a number (else 1366),
/// with nothing but spaces after it (else 1265), as in MySQL's strict mode.
fn check_numeric_text(s: &StringArray, f: &Field, first_row: usize) -> Result<()> {
    for (row, v) in s.iter().enumerate() {
        let Some(v) = v else { continue };
        let at = first_row + row + 1;
        match numeric_text_problem(v) {
            None => {}
            Some(NumericText::Truncated) => {
                return Err(QuiverError::new(
                    1265,
                    "01000",
                    format!("Data truncated for column '{}' at row {at}", f.name()),
                ))
            }
            Some(NumericText::Invalid) => {
                let kind = match f.data_type() {
                    DataType::Decimal128(..) | DataType::Decimal256(..) => "decimal",
                    t if t.is_floating() => "double",
                    _ => "integer",
                };
                return Err(QuiverError::new(
                    1366,
                    "22007",
                    format!(
                        "Incorrect {kind} value: '{v}' for column `{}` at row {at}",
                        f.name()
                    ),
                ));
            }
        }
    }
    Ok(())
}
