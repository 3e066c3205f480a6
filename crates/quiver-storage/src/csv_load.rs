//! CSV (and TPC-H `.tbl`) files into batches of a table's schema.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::*;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use quiver_common::types::{
    datetime_fsp, datetime_type, literal_fsp, parse_date, parse_datetime, parse_decimal,
    parse_decimal256, pow10, rescale, rescale256, truncate_fsp,
};
use quiver_common::{QuiverError, Result};

pub const LOAD_BATCH_ROWS: usize = 128 * 1024;

/// Rows read to choose column types before a file is loaded into a new
/// table; a later value that does not fit widens its column then.
pub const SNIFF_ROWS: usize = 1000;

#[derive(Debug, Clone)]
pub struct CsvOptions {
    pub delimiter: u8,
    pub has_header: bool,
    /// The text that stands for NULL (besides an empty unquoted field for non-strings).
    pub null: String,
}

impl CsvOptions {
    /// Sensible defaults by extension: `.tbl` is pipe-separated without a header.
    pub fn for_path(path: &Path) -> CsvOptions {
        let tbl = path.extension().is_some_and(|e| e == "tbl");
        CsvOptions {
            delimiter: if tbl { b'|' } else { b',' },
            has_header: !tbl,
            null: "NULL".into(),
        }
    }
}

enum ColumnBuilder {
    Int(Int64Builder, DataType),
    UInt(UInt64Builder, DataType),
    Float(Float64Builder, DataType),
    Decimal(Decimal128Builder, u8, i8),
    WideDecimal(Decimal256Builder, u8, i8),
    Date(Date32Builder),
    /// Values cut to the column's fraction digits (MySQL truncates), or
    /// with `exact` (a new table's guessed type) a value with more digits
    /// than the guess does not fit, so the guess widens.
    DateTime {
        b: TimestampMicrosecondBuilder,
        fsp: u8,
        exact: bool,
    },
    Bool(BooleanBuilder),
    Str(StringBuilder),
}

impl ColumnBuilder {
    fn new(t: &DataType, exact: bool) -> Result<ColumnBuilder> {
        Ok(match t {
            t if t.is_signed_integer() => ColumnBuilder::Int(Int64Builder::new(), t.clone()),
            t if t.is_unsigned_integer() => ColumnBuilder::UInt(UInt64Builder::new(), t.clone()),
            t if t.is_floating() => ColumnBuilder::Float(Float64Builder::new(), t.clone()),
            DataType::Decimal128(p, s) => ColumnBuilder::Decimal(Decimal128Builder::new(), *p, *s),
            DataType::Decimal256(p, s) => {
                ColumnBuilder::WideDecimal(Decimal256Builder::new(), *p, *s)
            }
            DataType::Date32 => ColumnBuilder::Date(Date32Builder::new()),
            DataType::Timestamp(TimeUnit::Microsecond, _) => ColumnBuilder::DateTime {
                b: TimestampMicrosecondBuilder::new(),
                fsp: datetime_fsp(t).unwrap_or(0),
                exact,
            },
            DataType::Boolean => ColumnBuilder::Bool(BooleanBuilder::new()),
            DataType::Utf8 => ColumnBuilder::Str(StringBuilder::new()),
            other => {
                return Err(QuiverError::not_supported(format!(
                    "loading a column of type {}",
                    quiver_common::types::mysql_type_name(other)
                )))
            }
        })
    }

    fn push(&mut self, field: Option<&str>) -> std::result::Result<(), String> {
        let Some(v) = field else {
            match self {
                ColumnBuilder::Int(b, _) => b.append_null(),
                ColumnBuilder::UInt(b, _) => b.append_null(),
                ColumnBuilder::Float(b, _) => b.append_null(),
                ColumnBuilder::Decimal(b, ..) => b.append_null(),
                ColumnBuilder::WideDecimal(b, ..) => b.append_null(),
                ColumnBuilder::Date(b) => b.append_null(),
                ColumnBuilder::DateTime { b, .. } => b.append_null(),
                ColumnBuilder::Bool(b) => b.append_null(),
                ColumnBuilder::Str(b) => b.append_null(),
            }
            return Ok(());
        };
        let t = v.trim();
        match self {
            ColumnBuilder::Int(b, _) => {
                b.append_value(t.parse().map_err(|_| format!("'{v}' is not an integer"))?)
            }
            ColumnBuilder::UInt(b, _) => b.append_value(
                t.parse()
                    .map_err(|_| format!("'{v}' is not an unsigned integer"))?,
            ),
            ColumnBuilder::Float(b, _) => {
                b.append_value(t.parse().map_err(|_| format!("'{v}' is not a number"))?)
            }
            ColumnBuilder::Decimal(b, p, s) => {
                let (u, s0) = parse_decimal(t).ok_or_else(|| format!("'{v}' is not a decimal"))?;
                // The precision bounds the digits: 10^p would not fit DECIMAL(p, s).
                let u = rescale(u, s0, *s)
                    .filter(|u| u.unsigned_abs() < 10u128.pow(*p as u32))
                    .ok_or_else(|| format!("'{v}' is out of range"))?;
                b.append_value(u)
            }
            ColumnBuilder::WideDecimal(b, p, s) => {
                let (u, s0) =
                    parse_decimal256(t).ok_or_else(|| format!("'{v}' is not a decimal"))?;
                let u = rescale256(u, s0, *s)
                    .filter(|u| pow10(*p as u32).is_some_and(|m| u.wrapping_abs() < m))
                    .ok_or_else(|| format!("'{v}' is out of range"))?;
                b.append_value(u)
            }
            ColumnBuilder::Date(b) => {
                b.append_value(parse_date(t).ok_or_else(|| format!("'{v}' is not a date"))?)
            }
            ColumnBuilder::DateTime { b, fsp, exact } => {
                let micros = parse_datetime(t).ok_or_else(|| format!("'{v}' is not a datetime"))?;
                if *exact && literal_fsp(t) > *fsp {
                    return Err(format!("'{v}' has more fraction digits than the column"));
                }
                b.append_value(truncate_fsp(micros, *fsp))
            }
            ColumnBuilder::Bool(b) => b.append_value(match t.to_ascii_lowercase().as_str() {
                "1" | "true" => true,
                "0" | "false" => false,
                _ => return Err(format!("'{v}' is not a boolean")),
            }),
            ColumnBuilder::Str(b) => b.append_value(v),
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<ArrayRef> {
        let cast = |a: ArrayRef, t: &DataType| -> Result<ArrayRef> {
            if a.data_type() == t {
                Ok(a)
            } else {
                narrow(&a, t)
            }
        };
        Ok(match self {
            ColumnBuilder::Int(b, t) => cast(Arc::new(b.finish()), t)?,
            ColumnBuilder::UInt(b, t) => cast(Arc::new(b.finish()), t)?,
            ColumnBuilder::Float(b, t) => cast(Arc::new(b.finish()), t)?,
            ColumnBuilder::Decimal(b, p, s) => {
                Arc::new(b.finish().with_precision_and_scale(*p, *s)?)
            }
            ColumnBuilder::WideDecimal(b, p, s) => {
                Arc::new(b.finish().with_precision_and_scale(*p, *s)?)
            }
            ColumnBuilder::Date(b) => Arc::new(b.finish()),
            ColumnBuilder::DateTime { b, fsp, .. } => {
                let t = datetime_type(*fsp);
                let DataType::Timestamp(_, tz) = t else {
                    unreachable!("a datetime type")
                };
                Arc::new(b.finish().with_timezone_opt(tz))
            }
            ColumnBuilder::Bool(b) => Arc::new(b.finish()),
            ColumnBuilder::Str(b) => Arc::new(b.finish()),
        })
    }
}

/// Narrows a 64-bit integer or float column to the table's type.
fn narrow(a: &ArrayRef, t: &DataType) -> Result<ArrayRef> {
    use arrow_array::{cast::AsArray, types::*, Array, PrimitiveArray};
    macro_rules! to {
        ($src:ty, $dst:ty, $n:ty) => {{
            let s = a.as_primitive::<$src>();
            let mut out = Vec::with_capacity(s.len());
            for v in s.values().iter() {
                out.push(<$n>::try_from(*v).map_err(|_| {
                    QuiverError::out_of_range(
                        &quiver_common::types::mysql_type_name(t),
                        &v.to_string(),
                    )
                })?);
            }
            Arc::new(PrimitiveArray::<$dst>::new(out.into(), s.nulls().cloned())) as ArrayRef
        }};
    }
    Ok(match (a.data_type(), t) {
        (DataType::Int64, DataType::Int8) => to!(Int64Type, Int8Type, i8),
        (DataType::Int64, DataType::Int16) => to!(Int64Type, Int16Type, i16),
        (DataType::Int64, DataType::Int32) => to!(Int64Type, Int32Type, i32),
        (DataType::UInt64, DataType::UInt8) => to!(UInt64Type, UInt8Type, u8),
        (DataType::UInt64, DataType::UInt16) => to!(UInt64Type, UInt16Type, u16),
        (DataType::UInt64, DataType::UInt32) => to!(UInt64Type, UInt32Type, u32),
        (DataType::Float64, DataType::Float32) => {
            let s = a.as_primitive::<Float64Type>();
            Arc::new(PrimitiveArray::<Float32Type>::new(
                s.values()
                    .iter()
                    .map(|v| *v as f32)
                    .collect::<Vec<_>>()
                    .into(),
                s.nulls().cloned(),
            ))
        }
        _ => {
            return Err(QuiverError::internal(format!(
                "cannot narrow {} to {t}",
                a.data_type()
            )))
        }
    })
}

/// What a column's values look like, narrowest first; a column takes the
/// narrowest kind that all its values have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    Integer,
    Decimal,
    Double,
    Date,
    DateTime,
    Text,
}

impl ValueKind {
    /// The kind a column holding values of kinds `self` and `other` takes.
    fn merge(self, other: ValueKind) -> ValueKind {
        use ValueKind::*;
        match (self, other) {
            (a, b) if a == b => a,
            (Integer, Decimal) | (Decimal, Integer) => Decimal,
            (Integer | Decimal | Double, Integer | Decimal | Double) => Double,
            (Date, DateTime) | (DateTime, Date) => DateTime,
            _ => Text,
        }
    }
}

/// DECIMAL columns hold at most this many digits; wider numbers make a DOUBLE.
const MAX_DECIMAL_DIGITS: u32 = 38;

/// The type chosen for a column of a new table from the values seen so far.
#[derive(Debug, Clone, Default)]
struct ColumnGuess {
    /// None until a value that is not NULL has been seen.
    kind: Option<ValueKind>,
    /// The most digits before the point of an integer or decimal value.
    int_digits: u32,
    /// The most digits after the point of a decimal value.
    scale: u32,
    /// The most fraction digits of a datetime value.
    fsp: u8,
}

impl ColumnGuess {
    /// Takes in one value that is not NULL.
    fn observe(&mut self, v: &str) {
        let kind = if let Ok(i) = v.parse::<i64>() {
            self.int_digits = self.int_digits.max(digits(i.unsigned_abs() as u128));
            ValueKind::Integer
        } else if let Some((u, scale)) = parse_decimal(v) {
            let scale = scale.max(0) as u32;
            let int_digits = digits(u.unsigned_abs()).saturating_sub(scale);
            self.int_digits = self.int_digits.max(int_digits);
            self.scale = self.scale.max(scale);
            ValueKind::Decimal
        } else if v.parse::<f64>().is_ok() {
            ValueKind::Double
        } else if v.len() == 10 && parse_date(v).is_some() {
            ValueKind::Date
        } else if parse_datetime(v).is_some() {
            self.fsp = self.fsp.max(literal_fsp(v));
            ValueKind::DateTime
        } else {
            ValueKind::Text
        };
        self.kind = Some(self.kind.map_or(kind, |k| k.merge(kind)));
    }

    fn data_type(&self) -> DataType {
        match self.kind {
            Some(ValueKind::Integer) => DataType::Int64,
            Some(ValueKind::Decimal) if self.int_digits + self.scale <= MAX_DECIMAL_DIGITS => {
                // At least DECIMAL(18, s), room for a wider value or two later.
                let precision = (self.int_digits + self.scale).max(18).max(self.scale + 1);
                DataType::Decimal128(precision as u8, self.scale as i8)
            }
            Some(ValueKind::Decimal | ValueKind::Double) => DataType::Float64,
            Some(ValueKind::Date) => DataType::Date32,
            Some(ValueKind::DateTime) => datetime_type(self.fsp),
            // A column of only NULLs is text, which any later value fits.
            Some(ValueKind::Text) | None => DataType::Utf8,
        }
    }
}

/// Decimal digits of `n` (1 for 0).
fn digits(n: u128) -> u32 {
    n.checked_ilog10().map_or(1, |d| d + 1)
}

fn open_csv(path: &Path, opts: &CsvOptions) -> Result<csv::Reader<BufReader<File>>> {
    let file = File::open(path)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", path.display()), e))?;
    Ok(csv::ReaderBuilder::new()
        .delimiter(opts.delimiter)
        .has_headers(opts.has_header)
        .flexible(true)
        .from_reader(BufReader::with_capacity(1 << 20, file)))
}

fn invalid_csv(path: &Path, e: csv::Error) -> QuiverError {
    QuiverError::new(
        1300,
        "HY000",
        format!("{}: invalid CSV: {e}", path.display()),
    )
}

/// The row number of a record in messages: the file's line where it starts
/// (a header is line 1), which is what an editor shows for it. The csv
/// reader's own line count misses blank lines and `\r\n` line ends, so the
/// lines are counted here, only for a message: its byte position is where
/// the row before it ended, and blank lines after that are not the row.
fn row_of(path: &Path, record: &csv::StringRecord) -> u64 {
    let Some(position) = record.position() else {
        return 0;
    };
    line_at(path, position.byte()).unwrap_or(position.line())
}

/// The line of the first byte at or after `byte` that does not end a line.
fn line_at(path: &Path, byte: u64) -> std::io::Result<u64> {
    let file = BufReader::new(File::open(path)?);
    let mut line = 1;
    for (at, b) in (0..).zip(file.bytes()) {
        let b = b?;
        if at >= byte && b != b'\n' && b != b'\r' {
            break;
        }
        line += u64::from(b == b'\n');
    }
    Ok(line)
}

/// The fields of `record` that hold columns: `.tbl` lines end with a
/// delimiter, one empty trailing field that is not a column. A row with
/// another number of fields than `ncols` is an error, 1261 for too few and
/// 1262 for too many, as MySQL's LOAD DATA warns.
fn fields_of(path: &Path, record: &csv::StringRecord, ncols: usize) -> Result<usize> {
    let mut n = record.len();
    if n == ncols + 1 && record.get(ncols) == Some("") {
        n = ncols;
    }
    if n == ncols {
        return Ok(n);
    }
    let code = if n < ncols { 1261 } else { 1262 };
    Err(QuiverError::new(
        code,
        "01000",
        format!(
            "{}: row {} has {n} fields, table has {ncols} columns",
            path.display(),
            row_of(path, record)
        ),
    ))
}

/// The value of a field, None for NULL: the NULL text, or an empty field of
/// a column that is not a string.
fn value_of<'a>(field: &'a str, opts: &CsvOptions, is_string: bool) -> Option<&'a str> {
    if field == opts.null || (field.is_empty() && !is_string) {
        None
    } else {
        Some(field)
    }
}

/// How a pass over a file's rows ended.
enum Pass {
    Loaded(Vec<RecordBatch>),
    /// A value did not fit its column's guessed type; the guesses now take
    /// in all the values from there on, and the file is to be read again.
    Widened,
}

/// Reads a CSV file into batches of `schema`, calling `progress` with bytes read.
pub fn read_csv(
    path: &Path,
    schema: &SchemaRef,
    opts: &CsvOptions,
    mut progress: impl FnMut(u64),
) -> Result<Vec<RecordBatch>> {
    match read_rows(path, schema, opts, None, &mut progress)? {
        Pass::Loaded(batches) => Ok(batches),
        Pass::Widened => Err(QuiverError::internal(
            "CSV types widened for a fixed schema",
        )),
    }
}

/// Reads a CSV file for a new table: its column names from the header
/// (`column1`... without one), its types from the first [`SNIFF_ROWS`] rows.
/// A later value that does not fit widens its column (integer to decimal or
/// double, then to text), and the file is read again only then.
pub fn read_csv_inferring(
    path: &Path,
    opts: &CsvOptions,
    progress: impl FnMut(u64),
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    read_csv_counting_passes(path, opts, progress).map(|(schema, batches, _)| (schema, batches))
}

/// [`read_csv_inferring`], also telling how many passes over the rows it took.
fn read_csv_counting_passes(
    path: &Path,
    opts: &CsvOptions,
    mut progress: impl FnMut(u64),
) -> Result<(SchemaRef, Vec<RecordBatch>, usize)> {
    let (names, mut guesses) = sniff(path, opts)?;
    let mut passes = 1;
    loop {
        let fields: Vec<Field> = names
            .iter()
            .zip(&guesses)
            .map(|(name, guess)| Field::new(name, guess.data_type(), true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        if let Pass::Loaded(batches) =
            read_rows(path, &schema, opts, Some(&mut guesses), &mut progress)?
        {
            return Ok((schema, batches, passes));
        }
        passes += 1;
    }
}

/// Column names and first type guesses of a file.
fn sniff(path: &Path, opts: &CsvOptions) -> Result<(Vec<String>, Vec<ColumnGuess>)> {
    let mut reader = open_csv(path, opts)?;
    let mut names: Vec<String> = Vec::new();
    if opts.has_header {
        let header = reader.headers().map_err(|e| invalid_csv(path, e))?;
        names = header.iter().map(str::to_string).collect();
        check_column_names(&names)?;
    }
    let mut guesses = vec![ColumnGuess::default(); names.len()];
    let mut record = csv::StringRecord::new();
    for _ in 0..SNIFF_ROWS {
        if !reader
            .read_record(&mut record)
            .map_err(|e| invalid_csv(path, e))?
        {
            break;
        }
        if !opts.has_header && names.is_empty() {
            // Without a header the first row tells the number of columns.
            let tbl = path.extension().is_some_and(|e| e == "tbl");
            let mut n = record.len();
            if tbl && n > 1 && record.get(n - 1) == Some("") {
                n -= 1;
            }
            names = (1..=n).map(|i| format!("column{i}")).collect();
            guesses = vec![ColumnGuess::default(); n];
        }
        // Rows of another width are reported when the rows are loaded.
        for (guess, field) in guesses.iter_mut().zip(record.iter()) {
            if let Some(v) = value_of(field, opts, false) {
                guess.observe(v);
            }
        }
    }
    if names.is_empty() {
        return Err(QuiverError::new(
            1300,
            "HY000",
            format!("{}: no rows to infer columns from", path.display()),
        ));
    }
    Ok((names, guesses))
}

/// Header names as CREATE TABLE takes column names: none empty or ending
/// in a space (1166, as MySQL), no two equal ignoring case (1060).
fn check_column_names(names: &[String]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if name.is_empty() || name.ends_with(' ') {
            return Err(QuiverError::new(
                1166,
                "42000",
                format!("Incorrect column name '{name}'"),
            ));
        }
        if !seen.insert(name.to_lowercase()) {
            return Err(QuiverError::duplicate_column(name));
        }
    }
    Ok(())
}

/// One pass over the rows of a file into batches of `schema`. With
/// `guesses` (a new table), a value that does not fit its column widens the
/// guesses instead of failing the load.
fn read_rows(
    path: &Path,
    schema: &SchemaRef,
    opts: &CsvOptions,
    mut guesses: Option<&mut Vec<ColumnGuess>>,
    progress: &mut dyn FnMut(u64),
) -> Result<Pass> {
    let mut reader = open_csv(path, opts)?;
    let ncols = schema.fields().len();
    let exact = guesses.is_some();
    let new_builders = || {
        schema
            .fields()
            .iter()
            .map(|f| ColumnBuilder::new(f.data_type(), exact))
            .collect::<Result<Vec<_>>>()
    };
    let mut builders = new_builders()?;
    let mut batches = Vec::new();
    let mut rows = 0usize;
    let mut record = csv::StringRecord::new();
    // Where the last row starts, to look for a quote left open there.
    let mut last_row: Option<csv::Position> = None;
    while reader
        .read_record(&mut record)
        .map_err(|e| invalid_csv(path, e))?
    {
        last_row = record.position().cloned();
        fields_of(path, &record, ncols)?;
        for (c, b) in builders.iter_mut().enumerate() {
            let field = record.get(c).unwrap_or_default();
            let is_string = matches!(b, ColumnBuilder::Str(_));
            let Err(m) = b.push(value_of(field, opts, is_string)) else {
                continue;
            };
            if let Some(guesses) = guesses.as_deref_mut() {
                widen(path, &mut reader, &mut record, guesses, c, opts)?;
                return Ok(Pass::Widened);
            }
            return Err(QuiverError::new(
                1366,
                "HY000",
                format!(
                    "{}: row {}, column '{}': {m}",
                    path.display(),
                    row_of(path, &record),
                    schema.field(c).name()
                ),
            ));
        }
        rows += 1;
        if rows == LOAD_BATCH_ROWS {
            let cols = builders
                .iter_mut()
                .map(|b| b.finish())
                .collect::<Result<Vec<_>>>()?;
            batches.push(RecordBatch::try_new(schema.clone(), cols)?);
            builders = new_builders()?;
            rows = 0;
            progress(reader.position().byte());
        }
    }
    check_quotes_closed(path, schema, opts, last_row.as_ref())?;
    if rows > 0 {
        let cols = builders
            .iter_mut()
            .map(|b| b.finish())
            .collect::<Result<Vec<_>>>()?;
        batches.push(RecordBatch::try_new(schema.clone(), cols)?);
    }
    progress(reader.position().byte());
    Ok(Pass::Loaded(batches))
}

/// Widens the guesses for the value of column `misfit` in `record` that did
/// not fit, taking in every value from `record` to the end of the file, so
/// that one more pass loads them all.
fn widen(
    path: &Path,
    reader: &mut csv::Reader<BufReader<File>>,
    record: &mut csv::StringRecord,
    guesses: &mut [ColumnGuess],
    misfit: usize,
    opts: &CsvOptions,
) -> Result<()> {
    let before = guesses[misfit].data_type();
    loop {
        fields_of(path, record, guesses.len())?;
        for (guess, field) in guesses.iter_mut().zip(record.iter()) {
            if let Some(v) = value_of(field, opts, false) {
                guess.observe(v);
            }
        }
        if !reader
            .read_record(record)
            .map_err(|e| invalid_csv(path, e))?
        {
            break;
        }
    }
    // A value the guess takes but the column's parser does not (none is
    // known) still must not fail the load: text takes any value.
    if guesses[misfit].data_type() == before {
        guesses[misfit].kind = Some(ValueKind::Text);
    }
    Ok(())
}

/// The csv reader takes a quoted field that is never closed to the end of
/// the file, swallowing the rows after it. Such a field can only be in the
/// last row read, which is scanned again for it (from `last_row`'s start,
/// or the file's start for a header alone).
fn check_quotes_closed(
    path: &Path,
    schema: &SchemaRef,
    opts: &CsvOptions,
    last_row: Option<&csv::Position>,
) -> Result<()> {
    let mut file = File::open(path)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", path.display()), e))?;
    let start = last_row.map_or(0, |p| p.byte());
    file.seek(SeekFrom::Start(start))
        .map_err(|e| QuiverError::io(&format!("cannot read {}", path.display()), e))?;
    let unclosed = unclosed_quote(BufReader::new(file), opts.delimiter)
        .map_err(|e| QuiverError::io(&format!("cannot read {}", path.display()), e))?;
    let Some(field) = unclosed else {
        return Ok(());
    };
    let line = line_at(path, start)
        .map_err(|e| QuiverError::io(&format!("cannot read {}", path.display()), e))?;
    let column = match schema.fields().get(field) {
        Some(f) if last_row.is_some() => format!("column '{}'", f.name()),
        _ => format!("field {}", field + 1),
    };
    Err(QuiverError::new(
        1300,
        "HY000",
        format!(
            "{}: row {line}, {column}: quoted field is never closed",
            path.display()
        ),
    ))
}

/// The field (counted from 0 within its row) whose opening quote is never
/// closed in `bytes`, which start at a row's start; the quoting rules are
/// the csv reader's: a quote opens a field only as its first byte, and `""`
/// inside quotes is one quote.
fn unclosed_quote(bytes: impl BufRead, delimiter: u8) -> std::io::Result<Option<usize>> {
    #[derive(PartialEq)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let mut state = State::FieldStart;
    let mut field = 0;
    for b in bytes.bytes() {
        let b = b?;
        let ends_row = b == b'\n' || b == b'\r';
        state = match state {
            State::FieldStart | State::Unquoted | State::QuoteInQuoted if b == delimiter => {
                field += 1;
                State::FieldStart
            }
            State::FieldStart | State::Unquoted | State::QuoteInQuoted if ends_row => {
                field = 0;
                State::FieldStart
            }
            State::FieldStart if b == b'"' => State::Quoted,
            State::Quoted if b == b'"' => State::QuoteInQuoted,
            State::QuoteInQuoted if b == b'"' => State::Quoted,
            State::Quoted => State::Quoted,
            State::FieldStart | State::Unquoted | State::QuoteInQuoted => State::Unquoted,
        };
    }
    Ok((state == State::Quoted).then_some(field))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal128Type, Int64Type};
    use arrow_array::Array;
    use std::path::PathBuf;

    /// A file of `text` in a fresh folder of its own.
    fn csv_file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("quiver-csv-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.csv"));
        std::fs::write(&path, text).unwrap();
        path
    }

    fn load_new(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        read_csv_inferring(path, &CsvOptions::for_path(path), |_| {})
    }

    fn error_of(r: Result<impl std::fmt::Debug>) -> String {
        r.expect_err("the load fails").to_string()
    }

    fn two_bigints() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Int64, true),
        ]))
    }

    #[test]
    fn an_unclosed_quote_is_an_error_at_its_row() {
        let path = csv_file("unclosed", "a,b\n1,x\n2,\"oops\n3,z\n");
        let message = format!(
            "ERROR 1300 (HY000): {}: row 3, column 'b': quoted field is never closed",
            path.display()
        );
        assert_eq!(error_of(load_new(&path)), message);
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Utf8, true),
        ]));
        let opts = CsvOptions::for_path(&path);
        assert_eq!(error_of(read_csv(&path, &schema, &opts, |_| {})), message);
        // After a row spanning lines 2 and 3, the row of line 4 holds the open quote.
        let path = csv_file("unclosed-late", "a,b\n1,\"x\ny\"\n\"2\",\"p\"\"q\n");
        assert!(error_of(load_new(&path))
            .ends_with(": row 4, column 'b': quoted field is never closed"));
        // A header's own open quote takes the whole file.
        let path = csv_file("unclosed-header", "a,\"b\n1,2\n");
        assert!(
            error_of(load_new(&path)).ends_with(": row 1, field 2: quoted field is never closed")
        );
    }

    #[test]
    fn closed_quotes_load_whatever_they_hold() {
        let path = csv_file(
            "closed",
            "a,b\n1,\"x\ny\"\n2,\"p\"\"q\"\n3,\"a,\"\"b\"\"\"\n4,r\"s",
        );
        let (schema, batches) = load_new(&path).unwrap();
        assert_eq!(schema.field(1).data_type(), &DataType::Utf8);
        let b = batches[0].column(1).as_string::<i32>();
        let values: Vec<&str> = b.iter().map(|v| v.unwrap()).collect();
        assert_eq!(values, ["x\ny", "p\"q", "a,\"b\"", "r\"s"]);
    }

    #[test]
    fn a_row_of_another_width_names_its_row_and_counts() {
        let path = csv_file("wide", "a,b\n1,2\n3,4,5\n");
        let message = format!(
            "ERROR 1262 (01000): {}: row 3 has 3 fields, table has 2 columns",
            path.display()
        );
        assert_eq!(error_of(load_new(&path)), message);
        let opts = CsvOptions::for_path(&path);
        assert_eq!(
            error_of(read_csv(&path, &two_bigints(), &opts, |_| {})),
            message
        );
        // Rows are the file's lines, blank ones and \r\n endings counted as an editor does.
        let path = csv_file("narrow", "a,b\r\n1,2\r\n\r\n3\r\n");
        assert_eq!(
            error_of(load_new(&path)),
            format!(
                "ERROR 1261 (01000): {}: row 4 has 1 fields, table has 2 columns",
                path.display()
            )
        );
    }

    #[test]
    fn header_names_are_checked_as_create_table_checks_them() {
        let path = csv_file("duplicate", "a,b,A\n1,2,3\n");
        assert_eq!(
            error_of(load_new(&path)),
            "ERROR 1060 (42S21): Duplicate column name 'A'"
        );
        let path = csv_file("empty-name", "a,,c\n1,2,3\n");
        assert_eq!(
            error_of(load_new(&path)),
            "ERROR 1166 (42000): Incorrect column name ''"
        );
        // MySQL refuses a name ending in a space, which no unquoted name could reach.
        let path = csv_file("spaced-name", "a ,b\n1,2\n");
        assert_eq!(
            error_of(load_new(&path)),
            "ERROR 1166 (42000): Incorrect column name 'a '"
        );
    }

    #[test]
    fn a_late_value_widens_its_column() {
        let mut text = String::from("n,label\n");
        for i in 0..20_000 {
            text.push_str(&format!("{i},{i}\n"));
        }
        text.push_str("1.5,x\n-7,\n");
        let path = csv_file("widen", &text);
        let (schema, batches, passes) =
            read_csv_counting_passes(&path, &CsvOptions::for_path(&path), |_| {}).unwrap();
        // The first pass stopped at 1.5 and took in the rest of the values.
        assert_eq!(passes, 2);
        assert_eq!(schema.field(0).data_type(), &DataType::Decimal128(18, 1));
        assert_eq!(schema.field(1).data_type(), &DataType::Utf8);
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 20_002);
        let last = batches.last().unwrap();
        let n = last.column(0).as_primitive::<Decimal128Type>();
        let label = last.column(1).as_string::<i32>();
        let at = last.num_rows() - 3;
        assert_eq!((n.value(at), label.value(at)), (199_990, "19999"));
        assert_eq!((n.value(at + 1), label.value(at + 1)), (15, "x"));
        assert_eq!((n.value(at + 2), label.value(at + 2)), (-70, ""));
    }

    #[test]
    fn integers_widen_to_double_past_decimal_digits() {
        let mut text = String::from("n\n");
        for i in 0..1500 {
            text.push_str(&format!("{i}\n"));
        }
        text.push_str("1e300\n12345678901234567890.5\n");
        let path = csv_file("double", &text);
        let (schema, batches) = load_new(&path).unwrap();
        assert_eq!(schema.field(0).data_type(), &DataType::Float64);
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 1502);
        // Decimals past 18 digits get the precision they need.
        let path = csv_file("wide-decimal", "d\n1.25\n12345678901234567890.5\n");
        let (schema, _) = load_new(&path).unwrap();
        assert_eq!(schema.field(0).data_type(), &DataType::Decimal128(22, 2));
    }

    #[test]
    fn datetimes_take_the_most_fraction_digits_and_are_cut_to_a_tables() {
        use quiver_common::types::datetime_type;
        // A new table: the most digits among the values, a late value with
        // more widening the guess (and a second pass).
        let mut text = String::from("t\n2020-01-01 10:00:00.12\n");
        for _ in 0..20_000 {
            text.push_str("2020-01-01 10:00:00\n");
        }
        text.push_str("2020-01-01 10:00:00.1234\n");
        let path = csv_file("fsp", &text);
        let (schema, batches, passes) =
            read_csv_counting_passes(&path, &CsvOptions::for_path(&path), |_| {}).unwrap();
        assert_eq!(passes, 2);
        assert_eq!(schema.field(0).data_type(), &datetime_type(4));
        let last = batches.last().unwrap();
        let t = last
            .column(0)
            .as_primitive::<arrow_array::types::TimestampMicrosecondType>();
        assert_eq!(t.value(last.num_rows() - 1) % 1_000_000, 123_400);
        // A table's DATETIME(1) column: cut, not rounded, as MySQL stores.
        let path = csv_file("fsp-table", "t\n2020-01-01 10:00:00.99\n");
        let schema = Arc::new(Schema::new(vec![Field::new("t", datetime_type(1), true)]));
        let batches = read_csv(&path, &schema, &CsvOptions::for_path(&path), |_| {}).unwrap();
        let t = batches[0]
            .column(0)
            .as_primitive::<arrow_array::types::TimestampMicrosecondType>();
        assert_eq!(t.value(0) % 1_000_000, 900_000);
        assert_eq!(batches[0].column(0).data_type(), &datetime_type(1));
    }

    #[test]
    fn a_file_without_misfits_is_read_once() {
        let mut text = String::from("a,b\n");
        for i in 0..5000 {
            text.push_str(&format!("{i},{}.5\n", i * 3));
        }
        let path = csv_file("once", &text);
        let (schema, batches, passes) =
            read_csv_counting_passes(&path, &CsvOptions::for_path(&path), |_| {}).unwrap();
        assert_eq!(passes, 1);
        assert_eq!(schema.field(1).data_type(), &DataType::Decimal128(18, 1));
        assert_eq!(batches[0].num_rows(), 5000);
    }

    #[test]
    fn quoted_numbers_are_numbers() {
        let path = csv_file("quoted", "a,b\n\"1\",2\n3,\"4\"\n");
        let (schema, batches) = load_new(&path).unwrap();
        assert_eq!(schema, two_bigints());
        let a = batches[0].column(0).as_primitive::<Int64Type>();
        let b = batches[0].column(1).as_primitive::<Int64Type>();
        assert_eq!(a.values().to_vec(), [1, 3]);
        assert_eq!(b.values().to_vec(), [2, 4]);
        assert_eq!(a.null_count() + b.null_count(), 0);
    }

    #[test]
    fn a_decimal_column_refuses_values_past_its_precision() {
        let path = csv_file("precision", "d\n12.5\n123.4\n");
        let schema = Arc::new(Schema::new(vec![Field::new(
            "d",
            DataType::Decimal128(3, 1),
            true,
        )]));
        let opts = CsvOptions::for_path(&path);
        assert_eq!(
            error_of(read_csv(&path, &schema, &opts, |_| {})),
            format!(
                "ERROR 1366 (HY000): {}: row 3, column 'd': '123.4' is out of range",
                path.display()
            )
        );
    }
}
