//! Golden answers as CSV (as scripts/tpch_golden.py and
//! scripts/web_analytics_golden.py write them) and how a cell of ours
//! matches one of theirs; shared by the TPC-H and web-analytics answer tests.

use quiver_engine::{format::rows_as_text, StatementResult};

/// RFC 4180 lines into fields (quoted fields may hold commas, quotes, newlines).
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => quoted = false,
                c => field.push(c),
            }
        } else {
            match c {
                '"' => quoted = true,
                ',' => row.push(std::mem::take(&mut field)),
                '\n' => {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                '\r' => {}
                c => field.push(c),
            }
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// Whether two cells are the same value: equal text, or numbers that
/// differ by no more than rounding to our printed scale explains (half a
/// unit in our last digit: MySQL gives AVG and division a fixed decimal
/// scale where DuckDB returns doubles) or by 1e-9 relative (doubles summed
/// in another order).
pub fn cells_match(ours: &str, theirs: &str) -> bool {
    if ours == theirs {
        return true;
    }
    match (ours.parse::<f64>(), theirs.parse::<f64>()) {
        (Ok(a), Ok(b)) => {
            let scale = ours.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
            let half_unit = 0.5 * 10f64.powi(-scale);
            // The 1e-12 absorbs the binary representation of both sides.
            (a - b).abs() <= half_unit * (1.0 + 1e-12) || (a - b).abs() <= 1e-9 * b.abs()
        }
        _ => false,
    }
}

/// Compares a query's result with the golden CSV `text` (a header line,
/// then rows in order), cell by cell with `matches`; `label` names the
/// query in the error.
pub fn check_result(
    label: &str,
    result: StatementResult,
    text: &str,
    matches: impl Fn(&str, &str) -> bool,
) -> Result<(), String> {
    let golden = parse_csv(text);
    let expected = &golden[1..];
    let StatementResult::Rows { schema, batches } = result else {
        return Err(format!("{label}: not a query"));
    };
    if schema.fields().len() != golden[0].len() {
        return Err(format!(
            "{label}: {} columns, expected {}",
            schema.fields().len(),
            golden[0].len()
        ));
    }
    let ours = rows_as_text(&batches).map_err(|e| e.to_string())?;
    if ours.len() != expected.len() {
        return Err(format!(
            "{label}: {} rows, expected {}",
            ours.len(),
            expected.len()
        ));
    }
    for (i, (a, b)) in ours.iter().zip(expected).enumerate() {
        for (c, (x, y)) in a.iter().zip(b).enumerate() {
            let x = x.as_deref().unwrap_or("NULL");
            if !matches(x, y) {
                return Err(format!(
                    "{label} row {} column {}: got '{x}', expected '{y}'",
                    i + 1,
                    golden[0][c]
                ));
            }
        }
    }
    Ok(())
}
