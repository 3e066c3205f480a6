//! Golden answers as CSV (as scripts/tpch_golden.py and
//! scripts/web_analytics_golden.py write them) and how a cell of ours
//! matches one of theirs; shared by the TPC-H and web-analytics answer tests.

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
