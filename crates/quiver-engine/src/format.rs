//! Result sets as text: a MySQL-style table for people, CSV and JSON for machines.

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, SchemaRef};
use quiver_common::{Result, ScalarValue};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Table,
    Csv,
    Json,
}

impl std::str::FromStr for OutputFormat {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "table" => Ok(OutputFormat::Table),
            "csv" => Ok(OutputFormat::Csv),
            "json" => Ok(OutputFormat::Json),
            other => Err(format!("unknown format '{other}' (table, csv or json)")),
        }
    }
}

/// Every cell as MySQL's text protocol renders it; None for NULL.
pub fn rows_as_text(batches: &[RecordBatch]) -> Result<Vec<Vec<Option<String>>>> {
    let mut rows = Vec::new();
    for b in batches {
        // Logical nulls: a NULL literal's column (NullArray) has no null
        // bitmap, yet every value is NULL.
        let nulls: Vec<_> = b.columns().iter().map(|c| c.logical_nulls()).collect();
        let decimals: Vec<Option<usize>> = b
            .schema()
            .fields()
            .iter()
            .map(|f| quiver_common::types::field_decimals(f))
            .collect();
        let years: Vec<bool> = b
            .schema()
            .fields()
            .iter()
            .map(|f| quiver_common::types::prints_year_digits(f))
            .collect();
        for r in 0..b.num_rows() {
            let mut row = Vec::with_capacity(b.num_columns());
            for (((c, n), d), year) in b.columns().iter().zip(&nulls).zip(&decimals).zip(&years) {
                row.push(if n.as_ref().is_some_and(|n| n.is_null(r)) {
                    None
                } else if *year {
                    // YEAR: four digits (0000).
                    let v = ScalarValue::from_array(c, r)?.to_string();
                    Some(quiver_common::types::year_text(v.parse().unwrap_or(0)))
                } else if let Some(d) = d {
                    let v = c.as_primitive::<arrow_array::types::Float64Type>().value(r);
                    Some(quiver_common::types::format_double_fixed(v, *d))
                } else if let Some(bytes) = c.as_binary_opt::<i32>() {
                    // Bytes: shown as text where they are UTF-8, as the mysql
                    // client does, else as 0x.. hex (MySQL 8's client shows
                    // binary that way), never as replacement characters.
                    let b = bytes.value(r);
                    Some(match std::str::from_utf8(b) {
                        Ok(text) => text.to_string(),
                        Err(_) => {
                            let mut hex = String::with_capacity(2 + 2 * b.len());
                            hex.push_str("0x");
                            for byte in b {
                                hex.push_str(&format!("{byte:02X}"));
                            }
                            hex
                        }
                    })
                } else {
                    Some(ScalarValue::from_array(c, r)?.to_string())
                });
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Numbers are right-aligned in tables and bare in JSON. A boolean is
/// MySQL's integer 1 or 0.
fn is_numeric(t: &DataType) -> bool {
    quiver_common::types::is_numeric(t) || t == &DataType::Boolean
}

pub fn format_table(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<String> {
    let rows = rows_as_text(batches)?;
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let mut width: Vec<usize> = names.iter().map(|n| n.chars().count()).collect();
    for r in &rows {
        for (i, v) in r.iter().enumerate() {
            width[i] = width[i].max(v.as_deref().unwrap_or("NULL").chars().count());
        }
    }
    let line = {
        let mut s = String::from("+");
        for w in &width {
            s += &"-".repeat(w + 2);
            s.push('+');
        }
        s.push('\n');
        s
    };
    let mut out = line.clone();
    out.push('|');
    for (n, w) in names.iter().zip(&width) {
        out += &format!(" {n:<w$} |");
    }
    out.push('\n');
    out += &line;
    let right: Vec<bool> = schema
        .fields()
        .iter()
        .map(|f| is_numeric(f.data_type()))
        .collect();
    for r in &rows {
        out.push('|');
        for (i, v) in r.iter().enumerate() {
            let v = v.as_deref().unwrap_or("NULL");
            let w = width[i];
            if right[i] {
                out += &format!(" {v:>w$} |");
            } else {
                out += &format!(" {v:<w$} |");
            }
        }
        out.push('\n');
    }
    if !rows.is_empty() {
        out += &line;
    }
    let n = rows.len();
    out += &format!("{n} row{} in set\n", if n == 1 { "" } else { "s" });
    Ok(out)
}

fn csv_field(v: &str) -> String {
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.to_string()
    }
}

/// CSV with a header row, RFC 4180 quoting, NULL as `NULL`.
pub fn format_csv(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<String> {
    Ok(csv_header(schema) + &csv_rows(batches)?)
}

/// The header line of [`format_csv`].
pub fn csv_header(schema: &SchemaRef) -> String {
    let mut out = schema
        .fields()
        .iter()
        .map(|f| csv_field(f.name()))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    out
}

/// The row lines of [`format_csv`], for rows that come a batch at a time.
pub fn csv_rows(batches: &[RecordBatch]) -> Result<String> {
    let mut out = String::new();
    for r in rows_as_text(batches)? {
        let line: Vec<String> = r
            .iter()
            .map(|v| v.as_deref().map(csv_field).unwrap_or_else(|| "NULL".into()))
            .collect();
        out += &line.join(",");
        out.push('\n');
    }
    Ok(out)
}

/// `s` as a JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o += "\\\"",
            '\\' => o += "\\\\",
            '\n' => o += "\\n",
            '\r' => o += "\\r",
            '\t' => o += "\\t",
            c if (c as u32) < 0x20 => o += &format!("\\u{:04x}", c as u32),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A JSON array of row objects; numbers stay numbers (decimals as JSON numbers).
pub fn format_json(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<String> {
    let names: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| json_string(f.name()))
        .collect();
    let numeric: Vec<bool> = schema
        .fields()
        .iter()
        .map(|f| is_numeric(f.data_type()))
        .collect();
    let mut out = String::from("[");
    for (i, r) in rows_as_text(batches)?.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out += "\n  {";
        for (c, v) in r.iter().enumerate() {
            if c > 0 {
                out += ", ";
            }
            let val = match v {
                None => "null".to_string(),
                Some(v) if numeric[c] && v.parse::<f64>().is_ok_and(|f| f.is_finite()) => v.clone(),
                Some(v) => json_string(v),
            };
            out += &format!("{}: {}", names[c], val);
        }
        out.push('}');
    }
    out += "\n]\n";
    Ok(out)
}
