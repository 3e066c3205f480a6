//! Values stored into a table's columns, with MySQL's checks: each value is
//! converted to its column's type and must fit it (range, length,
//! characters of the column's charset).

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, StringArray};
use arrow_schema::{DataType, Field};
use quiver_collation::Collation;
use quiver_common::types::{
    is_numeric, is_time, CharLength, IntKind, IntType, COLUMN_COLLATION_KEY, COLUMN_TYPE_KEY,
};
use quiver_common::{QuiverError, Result};
use quiver_exec::expr::{cast_array, numeric_text_problem, NumericText};
use quiver_exec::warnings::{Condition, Level, Warnings};

/// What becomes of a string that does not fit its column. MySQL's strict
/// mode (STRICT_TRANS_TABLES or STRICT_ALL_TABLES, in the default sql_mode)
/// refuses the statement with the error; without it the value is cut to the
/// column's length and characters the column cannot hold become `?`, each
/// with a warning. Numbers and dates that do not fit stay errors in both.
pub(crate) struct Misfits {
    strict: bool,
    /// The column being stored, for the order of the warnings.
    column: usize,
    /// (row, column, warning): shown row by row, as MySQL raises them.
    found: Vec<(usize, usize, Condition)>,
}

impl Misfits {
    pub(crate) fn new(strict: bool) -> Misfits {
        Misfits {
            strict,
            column: 0,
            found: Vec::new(),
        }
    }

    pub(crate) fn strict() -> Misfits {
        Misfits::new(true)
    }

    pub(crate) fn is_strict(&self) -> bool {
        self.strict
    }

    pub(crate) fn at_column(&mut self, column: usize) {
        self.column = column;
    }

    /// A value of 0-based `row` that does not fit: the error in strict
    /// mode, else `warning` is kept and the value is stored as fitted.
    fn misfit(&mut self, row: usize, error: QuiverError, warning: QuiverError) -> Result<()> {
        if self.strict {
            return Err(error);
        }
        self.keep(row, Level::Warning, warning);
        Ok(())
    }

    /// A note in either mode (trailing spaces cut).
    fn note(&mut self, row: usize, note: QuiverError) {
        self.keep(row, Level::Note, note);
    }

    fn keep(&mut self, row: usize, level: Level, c: QuiverError) {
        // A value already marked for bad characters is cut without another
        // warning (MariaDB's).
        let marked = |(r, col, w): &(usize, usize, Condition)| {
            *r == row && *col == self.column && w.code == 1366
        };
        if c.code == 1265 && self.found.last().is_some_and(marked) {
            return;
        }
        self.found
            .push((row, self.column, Condition::new(level, c.code, c.message)));
    }

    /// A warning of 0-based `row` that is no misfit (INSERT IGNORE's
    /// 1062), after the row's conversions.
    pub(crate) fn warn(&mut self, row: usize, c: Condition) {
        self.found.push((row, usize::MAX, c));
    }

    /// How many conditions are kept so far (for [`Misfits::renumber_since`]).
    pub(crate) fn mark(&self) -> usize {
        self.found.len()
    }

    /// The conditions kept since `mark` were numbered over a subset of the
    /// rows: row i is row `rows[i]` of the statement.
    pub(crate) fn renumber_since(&mut self, mark: usize, rows: &[usize]) {
        for f in &mut self.found[mark..] {
            if let Some(&r) = rows.get(f.0) {
                f.0 = r;
            }
        }
    }

    /// Raises what was kept, row by row.
    pub(crate) fn raise(mut self, sink: &Warnings) {
        self.found.sort_by_key(|(row, column, _)| (*row, *column));
        for (_, _, c) in self.found {
            sink.push(c);
        }
    }
}

/// The charset of a text column (None when it names no collation).
fn field_charset(f: &Field) -> Option<quiver_collation::Charset> {
    f.metadata()
        .get(COLUMN_COLLATION_KEY)
        .and_then(|n| Collation::from_name(n))
        .map(|c| c.charset())
}

/// MySQL's 1265 for a value cut to fit (a warning, or a note for spaces).
fn data_truncated(f: &Field, row: usize) -> QuiverError {
    QuiverError::new(
        1265,
        "01000",
        format!("Data truncated for column '{}' at row {row}", f.name()),
    )
}

/// MySQL's 1366 for `v` from byte `at` on, in the column of `f`.
fn incorrect_string(v: &[u8], at: usize, f: &Field, table: &str, row: usize) -> QuiverError {
    QuiverError::new(
        1366,
        "22007",
        format!(
            "Incorrect string value: '{}' for column {table}`{}` at row {row}",
            quiver_collation::text::incorrect_value_text(v, at),
            f.name(),
        ),
    )
}

/// Converts a value to a column's type with MySQL's checks: out of range is
/// 1264, an invalid date or number is 1292 / 1366, a string too long or
/// with bytes that are not characters of the column 1406 / 1366 (what
/// `misfits` says of those).
/// `first_row` is the 0-based row number of `a`'s first value in the statement.
/// `table`: how error 1366 names the column's table (`` `db`.`t`. ``).
pub(crate) fn store_cast(
    a: &ArrayRef,
    f: &Field,
    first_row: usize,
    table: &str,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
    if let Some(m) = quiver_common::types::member_type(f) {
        return store_members(a, f, &m, first_row, misfits);
    }
    if quiver_common::types::is_year(f) {
        return store_year(a, f, first_row, table, misfits);
    }
    if f.data_type() == &DataType::Binary {
        return store_bytes(a, f, first_row, misfits);
    }
    if a.data_type() == &DataType::Binary && f.data_type() == &DataType::Utf8 {
        let text = bytes_as_text(a, f, first_row, table, misfits)?;
        return store_cast(&text, f, first_row, table, misfits);
    }
    if is_time(f.data_type()) && !is_time(a.data_type()) {
        return store_time(a, f, first_row, table, misfits);
    }
    let out = store_cast_type(a, f, first_row)?;
    let out = check_charset(&out, f, first_row, table, misfits)?;
    match f
        .metadata()
        .get(COLUMN_TYPE_KEY)
        .and_then(|t| CharLength::of(t))
    {
        Some(len) => store_chars(&out, f, len, first_row, misfits),
        None => Ok(out),
    }
}

/// Values stored into an ENUM / SET column as their codes: text names
/// members (under the column's collation, trailing spaces dropped) or is
/// read as a number; a number is an ENUM's index or a SET's bitmask. What
/// names no member is 1265, in strict mode an error, else stored as ''
/// (a SET: its valid members) with the warning, as MariaDB's.
fn store_members(
    a: &ArrayRef,
    f: &Field,
    m: &quiver_common::types::MemberType,
    first_row: usize,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
    use arrow_array::cast::AsArray;
    use quiver_exec::expr::members::{code_of_number, code_of_text, MemberCode};
    if a.data_type() == &DataType::Null {
        return Ok(arrow_array::new_null_array(f.data_type(), a.len()));
    }
    // Codes already (a second pass over stored values): kept where they
    // name members.
    if a.data_type() == f.data_type() {
        let wide = cast_array(a, &DataType::UInt64)?;
        let wide = wide.as_primitive::<arrow_array::types::UInt64Type>();
        let valid = |c: u64| match m.kind {
            quiver_common::types::MemberKind::Enum => c <= m.members.len() as u64,
            quiver_common::types::MemberKind::Set => {
                matches!(code_of_number(m, i128::from(c)), MemberCode::Exact(_))
            }
        };
        if wide.iter().flatten().all(valid) {
            return Ok(a.clone());
        }
    }
    let collation = f
        .metadata()
        .get(COLUMN_COLLATION_KEY)
        .and_then(|n| Collation::from_name(n))
        .unwrap_or_else(Collation::utf8mb4_bin);
    let numeric = is_numeric(a.data_type());
    let (texts, numbers) = if numeric {
        (None, Some(cast_array(a, &DataType::Float64)?))
    } else {
        let text = match a.data_type() {
            DataType::Binary => a.clone(),
            _ => cast_array(a, &DataType::Utf8)?,
        };
        (Some(text), None)
    };
    let mut codes = Vec::with_capacity(a.len());
    for row in 0..a.len() {
        if a.is_null(row) {
            codes.push(None);
            continue;
        }
        let code = match (&texts, &numbers) {
            (Some(t), _) if t.data_type() == &DataType::Binary => {
                let v = String::from_utf8_lossy(t.as_binary::<i32>().value(row));
                code_of_text(m, &v, collation)
            }
            (Some(t), _) => code_of_text(m, t.as_string::<i32>().value(row), collation),
            (_, Some(n)) => {
                let v = n
                    .as_primitive::<arrow_array::types::Float64Type>()
                    .value(row);
                match v.is_finite() && v.abs() < 1e30 {
                    true => code_of_number(m, v.trunc() as i128),
                    false => MemberCode::Invalid(0),
                }
            }
            _ => MemberCode::Invalid(0),
        };
        let code = match code {
            MemberCode::Exact(c) => c,
            MemberCode::Invalid(c) => {
                let at = first_row + row + 1;
                misfits.misfit(at - 1, data_truncated(f, at), data_truncated(f, at))?;
                c
            }
        };
        codes.push(Some(code));
    }
    let codes: ArrayRef = Arc::new(arrow_array::UInt64Array::from(codes));
    cast_array(&codes, f.data_type())
}

/// Values stored into a YEAR column, as MariaDB stores them: numbers are
/// rounded, 0 is 0000, 1..69 and 70..99 are 2001..2069 and 1970..1999,
/// text of one or two digits 2000..2069 / 1970..1999 ('0' is 2000). Out of
/// 1901..2155 is 1264; text that is no number 1366, with other characters
/// after it 1265 (errors in strict mode, else warnings and 0000); trailing
/// spaces a note.
fn store_year(
    a: &ArrayRef,
    f: &Field,
    first_row: usize,
    table: &str,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
    use arrow_array::cast::AsArray;
    use quiver_common::types::{year_of_number, year_of_text, YearRead};
    if a.data_type() == &DataType::Null {
        return Ok(arrow_array::new_null_array(f.data_type(), a.len()));
    }
    let numbers = match is_numeric(a.data_type()) || a.data_type() == &DataType::Boolean {
        true => Some(cast_array(a, &DataType::Float64)?),
        false => None,
    };
    let texts = match (&numbers, a.data_type()) {
        (Some(_), _) => None,
        (None, DataType::Binary) => Some(a.clone()),
        (None, _) => Some(cast_array(a, &DataType::Utf8)?),
    };
    let mut out = Vec::with_capacity(a.len());
    for row in 0..a.len() {
        if a.is_null(row) {
            out.push(None);
            continue;
        }
        let at = first_row + row + 1;
        let (read, shown) = match (&numbers, &texts) {
            (Some(n), _) => {
                let v = n
                    .as_primitive::<arrow_array::types::Float64Type>()
                    .value(row);
                let read = match v.is_finite() && v.abs() < 1e9 {
                    true => year_of_number(v.round() as i128),
                    false => YearRead::OutOfRange,
                };
                (read, String::new())
            }
            (_, Some(t)) if t.data_type() == &DataType::Binary => {
                let v = String::from_utf8_lossy(t.as_binary::<i32>().value(row)).into_owned();
                (year_of_text(&v), v)
            }
            (_, Some(t)) => {
                let v = t.as_string::<i32>().value(row);
                (year_of_text(v), v.to_string())
            }
            _ => (YearRead::NotANumber, String::new()),
        };
        let range = || {
            QuiverError::new(
                1264,
                "22003",
                format!("Out of range value for column '{}' at row {at}", f.name()),
            )
        };
        let y = match read {
            YearRead::Exact(y) => y,
            YearRead::Spaces(y) => {
                misfits.note(at - 1, data_truncated(f, at));
                y
            }
            YearRead::Trailing(y) => {
                misfits.misfit(at - 1, data_truncated(f, at), data_truncated(f, at))?;
                y
            }
            YearRead::OutOfRange => {
                misfits.misfit(at - 1, range(), range())?;
                0
            }
            YearRead::NotANumber => {
                let bad = || {
                    QuiverError::new(
                        1366,
                        "22007",
                        format!(
                            "Incorrect integer value: '{shown}' for column {table}`{}` at row {at}",
                            f.name()
                        ),
                    )
                };
                misfits.misfit(at - 1, bad(), bad())?;
                0
            }
        };
        out.push(Some(y));
    }
    Ok(Arc::new(arrow_array::Int16Array::from(out)))
}

/// A value stored into a TIME column, as MariaDB stores it: one that is no
/// time or is beyond ±838:59:59 is error 1292 in strict mode; otherwise it
/// is 00:00:00 with warning 1265 (no time, or characters after it), or the
/// limit with 1264 (out of range). A datetime or date loses its date with
/// note 1265, as do fraction digits beyond the sixth.
fn store_time(
    a: &ArrayRef,
    f: &Field,
    first_row: usize,
    table: &str,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
    use quiver_common::types::{time_fsp, truncate_time, TimeRead};
    let fsp = time_fsp(f.data_type()).unwrap_or(0);
    let reads = quiver_exec::expr::time_cast::time_reads(a)?;
    let from_date = matches!(a.data_type(), DataType::Date32 | DataType::Timestamp(..));
    let strings = a.as_any().downcast_ref::<StringArray>();
    let mut out = Vec::with_capacity(reads.len());
    for (row, r) in reads.into_iter().enumerate() {
        let at = first_row + row + 1;
        let incorrect = || {
            QuiverError::new(
                1292,
                "22007",
                format!(
                    "Incorrect time value: '{}' for column {table}`{}` at row {at}",
                    quiver_exec::expr::time_cast::value_text(a.as_ref(), row),
                    f.name()
                ),
            )
        };
        let v = match r {
            None => None,
            Some(TimeRead::Exact(v)) => {
                // Text that drops a date ('2020-01-01 10:05:03') or digits
                // past the sixth is noted as cut.
                let cut_text = strings.is_some_and(|s| {
                    let t = s.value(row).trim();
                    let lead = t.bytes().take_while(u8::is_ascii_digit).count();
                    (lead >= 2 && t.as_bytes().get(lead) == Some(&b'-'))
                        || t.rsplit_once('.').is_some_and(|(_, frac)| {
                            frac.bytes().take_while(u8::is_ascii_digit).count() > 6
                        })
                });
                if from_date || cut_text {
                    misfits.note(at - 1, data_truncated(f, at));
                }
                Some(v)
            }
            Some(TimeRead::Trailing(v)) => {
                misfits.misfit(at - 1, incorrect(), data_truncated(f, at))?;
                Some(v)
            }
            Some(TimeRead::Clipped(v)) => {
                let range = QuiverError::new(
                    1264,
                    "22003",
                    format!("Out of range value for column '{}' at row {at}", f.name()),
                );
                misfits.misfit(at - 1, incorrect(), range)?;
                Some(v)
            }
            Some(TimeRead::Invalid) => {
                misfits.misfit(at - 1, incorrect(), data_truncated(f, at))?;
                Some(0)
            }
        };
        out.push(v.map(|v| truncate_time(v, fsp)));
    }
    Ok(Arc::new(
        out.into_iter()
            .collect::<arrow_array::Decimal64Array>()
            .with_data_type(f.data_type().clone()),
    ))
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
fn store_bytes(
    a: &ArrayRef,
    f: &Field,
    first_row: usize,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
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
    let mut changed = false;
    for (row, v) in b.iter().enumerate() {
        let Some(v) = v else { continue };
        if v.len() > n {
            let at = first_row + row + 1;
            misfits.misfit(at - 1, data_too_long(f, at), data_truncated(f, at))?;
        }
        changed |= v.len() > n || (fixed && v.len() < n);
    }
    if !changed {
        return Ok(bytes);
    }
    let values: Vec<Option<Vec<u8>>> = b
        .iter()
        .map(|v| {
            v.map(|v| {
                let mut p = v[..v.len().min(n)].to_vec();
                if fixed {
                    p.resize(n, 0);
                }
                p
            })
        })
        .collect();
    Ok(Arc::new(BinaryArray::from_iter(values)))
}

/// Text of a latin1 / ascii result column (kept as UTF-8) headed for a
/// binary column: its bytes in its own charset (`é` is E9), as MySQL stores it.
pub(crate) fn text_as_bytes(a: &ArrayRef, from: &Field, to: &Field) -> ArrayRef {
    let charset = field_charset(from);
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
/// takes any byte). Bytes that are not a character there are error 1366,
/// or without strict mode each such byte becomes `?` (MariaDB's).
fn bytes_as_text(
    a: &ArrayRef,
    f: &Field,
    first_row: usize,
    table: &str,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
    use arrow_array::BinaryArray;
    use quiver_collation::Charset;
    let b = a.as_any().downcast_ref::<BinaryArray>().expect("Binary");
    let charset = field_charset(f).unwrap_or(Charset::Utf8mb4);
    let mut values: Vec<Option<String>> = Vec::with_capacity(b.len());
    for (row, v) in b.iter().enumerate() {
        let Some(v) = v else {
            values.push(None);
            continue;
        };
        let bad = match charset {
            Charset::Latin1 => None,
            Charset::Ascii => v.iter().position(|c| !c.is_ascii()),
            // utf8mb3 holds no 4-byte character: its bytes are bad ones.
            Charset::Utf8mb3 => match std::str::from_utf8(v) {
                Ok(s) => s
                    .char_indices()
                    .find(|(_, c)| c.len_utf8() == 4)
                    .map(|(i, _)| i),
                Err(e) => Some(e.valid_up_to()),
            },
            _ => match std::str::from_utf8(v) {
                Ok(_) => None,
                Err(e) => Some(e.valid_up_to()),
            },
        };
        let mut s = String::with_capacity(v.len());
        if let Some(at) = bad {
            let e = incorrect_string(v, at, f, table, first_row + row + 1);
            misfits.misfit(first_row + row, e.clone(), e)?;
            match charset {
                Charset::Ascii => {
                    s.extend(
                        v.iter()
                            .map(|&c| if c.is_ascii() { char::from(c) } else { '?' }),
                    )
                }
                _ => utf8_marking_bad_bytes(v, charset == Charset::Utf8mb3, &mut s),
            }
        } else if quiver_collation::text::is_single_byte_text(charset) {
            quiver_collation::text::decode(charset, v, &mut s);
        } else {
            s.push_str(std::str::from_utf8(v).expect("checked above"));
        }
        values.push(Some(s));
    }
    Ok(Arc::new(StringArray::from(values)))
}

/// `v`'s characters, with `?` for each byte that is not part of one (and,
/// for utf8mb3, for each byte of a 4-byte character), as MariaDB stores
/// such bytes without strict mode.
fn utf8_marking_bad_bytes(mut v: &[u8], no_4_byte: bool, out: &mut String) {
    let push_valid = |s: &str, out: &mut String| {
        for c in s.chars() {
            if no_4_byte && c.len_utf8() == 4 {
                out.push_str("????");
            } else {
                out.push(c);
            }
        }
    };
    loop {
        match std::str::from_utf8(v) {
            Ok(s) => return push_valid(s, out),
            Err(e) => {
                let valid = e.valid_up_to();
                push_valid(std::str::from_utf8(&v[..valid]).expect("valid prefix"), out);
                let bad = e.error_len().unwrap_or(v.len() - valid);
                out.extend(std::iter::repeat_n('?', bad));
                v = &v[valid + bad..];
            }
        }
    }
}

/// Values for a latin1 / ascii / utf8mb3 column (kept as UTF-8) must be
/// characters the charset holds: else MySQL's error 1366, naming the column
/// as `table` (`` `db`.`t`. ``) prefixes it, or without strict mode each
/// character it cannot hold becomes `?`.
fn check_charset(
    a: &ArrayRef,
    f: &Field,
    first_row: usize,
    table: &str,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
    let Some(s) = a.as_any().downcast_ref::<StringArray>() else {
        return Ok(a.clone());
    };
    let Some(charset) = field_charset(f).filter(|c| quiver_collation::text::restricts(*c)) else {
        return Ok(a.clone());
    };
    let mut fitted: Option<Vec<Option<String>>> = None;
    for (row, v) in s.iter().enumerate() {
        let Some(v) = v else { continue };
        if let Some(at) = quiver_collation::text::first_unrepresentable(charset, v.as_bytes()) {
            let e = incorrect_string(v.as_bytes(), at, f, table, first_row + row + 1);
            misfits.misfit(first_row + row, e.clone(), e)?;
            let values =
                fitted.get_or_insert_with(|| s.iter().map(|v| v.map(str::to_string)).collect());
            let mut out = String::with_capacity(v.len());
            quiver_collation::text::convert_lossy_str(charset, v, &mut out);
            values[row] = Some(out);
        }
    }
    Ok(match fitted {
        Some(values) => Arc::new(StringArray::from(values)),
        None => a.clone(),
    })
}

/// Values for a CHAR(n) / VARCHAR(n) column: longer than n characters is
/// MySQL's strict-mode error 1406, else cut with warning 1265 (trailing
/// spaces beyond n are cut in either mode, with a note for VARCHAR, as
/// MySQL does), and CHAR drops trailing spaces.
fn store_chars(
    a: &ArrayRef,
    f: &Field,
    len: CharLength,
    first_row: usize,
    misfits: &mut Misfits,
) -> Result<ArrayRef> {
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
                let at = first_row + row + 1;
                if !kept[cut..].bytes().all(|b| b == b' ') {
                    misfits.misfit(at - 1, data_too_long(f, at), data_truncated(f, at))?;
                } else if !matches!(len, CharLength::Char(_)) {
                    misfits.note(at - 1, data_truncated(f, at));
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

/// `rows` copies of the value MySQL stores where a NOT NULL column gets no
/// value it can keep (INSERT IGNORE of NULL, ALTER TABLE ADD of a column
/// without DEFAULT): 0, or the empty string. None for a date, whose zero
/// date Quiver does not store.
pub(crate) fn zero_values(f: &Field, rows: usize) -> Result<Option<ArrayRef>> {
    Ok(Some(match f.data_type() {
        DataType::Utf8 => Arc::new(StringArray::from(vec![""; rows])),
        DataType::Binary => Arc::new(arrow_array::BinaryArray::from(vec![&b""[..]; rows])),
        t if is_numeric(t) => cast_array(
            &(Arc::new(arrow_array::Int64Array::from(vec![0i64; rows])) as ArrayRef),
            t,
        )?,
        _ => return Ok(None),
    }))
}

/// The schema a CSV / Parquet file is read in before its rows are stored
/// into a table of `schema`: ENUM / SET columns as text (their members).
pub fn file_read_schema(schema: &arrow_schema::SchemaRef) -> arrow_schema::SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match quiver_common::types::member_type(f) {
            Some(_) => Field::new(f.name(), DataType::Utf8, f.is_nullable()),
            None => f.as_ref().clone(),
        })
        .collect();
    Arc::new(arrow_schema::Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    ))
}

/// [`file_read_schema`] for a CSV file, whose YEAR values are text: '0'
/// and '00' are 2000 as MariaDB's LOAD DATA reads them (a Parquet file's
/// integer 0 is 0000).
pub fn csv_read_schema(schema: &arrow_schema::SchemaRef) -> arrow_schema::SchemaRef {
    let read = file_read_schema(schema);
    let fields: Vec<Field> = read
        .fields()
        .iter()
        .zip(schema.fields())
        .map(|(r, f)| match quiver_common::types::is_year(f) {
            true => Field::new(f.name(), DataType::Utf8, f.is_nullable()),
            false => r.as_ref().clone(),
        })
        .collect();
    Arc::new(arrow_schema::Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    ))
}

/// Batches read from a file in [`file_read_schema`] as batches of the
/// table's `schema`: member text stored as codes, with strict mode's 1265
/// for a value that names no member; YEAR values by YEAR's rules (strict).
pub fn stored_from_file(
    schema: &arrow_schema::SchemaRef,
    batches: Vec<arrow_array::RecordBatch>,
) -> Result<Vec<arrow_array::RecordBatch>> {
    let mut first_row = 0;
    batches
        .into_iter()
        .map(|b| {
            let columns = b
                .columns()
                .iter()
                .zip(schema.fields())
                .map(|(c, f)| match quiver_common::types::member_type(f) {
                    Some(m) => store_members(c, f, &m, first_row, &mut Misfits::strict()),
                    None if quiver_common::types::is_year(f) => {
                        store_year(c, f, first_row, "", &mut Misfits::strict())
                    }
                    None => Ok(c.clone()),
                })
                .collect::<Result<Vec<_>>>()?;
            first_row += b.num_rows();
            Ok(arrow_array::RecordBatch::try_new_with_options(
                schema.clone(),
                columns,
                &arrow_array::RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
            )?)
        })
        .collect()
}
