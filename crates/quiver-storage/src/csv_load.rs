//! CSV (and TPC-H `.tbl`) files into batches of a table's schema.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::*;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use quiver_common::types::{
    parse_date, parse_datetime, parse_decimal, parse_decimal256, pow10, rescale, rescale256,
};
use quiver_common::{QuiverError, Result};

pub const LOAD_BATCH_ROWS: usize = 128 * 1024;

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
    DateTime(TimestampMicrosecondBuilder),
    Bool(BooleanBuilder),
    Str(StringBuilder),
}

impl ColumnBuilder {
    fn new(t: &DataType) -> Result<ColumnBuilder> {
        Ok(match t {
            t if t.is_signed_integer() => ColumnBuilder::Int(Int64Builder::new(), t.clone()),
            t if t.is_unsigned_integer() => ColumnBuilder::UInt(UInt64Builder::new(), t.clone()),
            t if t.is_floating() => ColumnBuilder::Float(Float64Builder::new(), t.clone()),
            DataType::Decimal128(p, s) => ColumnBuilder::Decimal(Decimal128Builder::new(), *p, *s),
            DataType::Decimal256(p, s) => {
                ColumnBuilder::WideDecimal(Decimal256Builder::new(), *p, *s)
            }
            DataType::Date32 => ColumnBuilder::Date(Date32Builder::new()),
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                ColumnBuilder::DateTime(TimestampMicrosecondBuilder::new())
            }
            DataType::Boolean => ColumnBuilder::Bool(BooleanBuilder::new()),
            DataType::Utf8 => ColumnBuilder::Str(StringBuilder::new()),
            other => {
                return Err(QuiverError::not_supported(format!(
                    "loading a column of type {other}"
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
                ColumnBuilder::DateTime(b) => b.append_null(),
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
            ColumnBuilder::Decimal(b, _, s) => {
                let (u, s0) = parse_decimal(t).ok_or_else(|| format!("'{v}' is not a decimal"))?;
                b.append_value(rescale(u, s0, *s).ok_or_else(|| format!("'{v}' is out of range"))?)
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
            ColumnBuilder::DateTime(b) => {
                b.append_value(parse_datetime(t).ok_or_else(|| format!("'{v}' is not a datetime"))?)
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
            ColumnBuilder::DateTime(b) => Arc::new(b.finish()),
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

/// Reads a CSV file into batches of `schema`, calling `progress` with bytes read.
pub fn read_csv(
    path: &Path,
    schema: &SchemaRef,
    opts: &CsvOptions,
    mut progress: impl FnMut(u64),
) -> Result<Vec<RecordBatch>> {
    let file = File::open(path)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", path.display()), e))?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(opts.delimiter)
        .has_headers(opts.has_header)
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(1 << 20, file));
    let ncols = schema.fields().len();
    let new_builders = || {
        schema
            .fields()
            .iter()
            .map(|f| ColumnBuilder::new(f.data_type()))
            .collect::<Result<Vec<_>>>()
    };
    let mut builders = new_builders()?;
    let mut batches = Vec::new();
    let mut rows = 0usize;
    let mut record = csv::StringRecord::new();
    let mut line = if opts.has_header { 1 } else { 0 };
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                return Err(QuiverError::new(
                    1300,
                    "HY000",
                    format!("{}: invalid CSV: {e}", path.display()),
                ))
            }
        }
        line += 1;
        let mut n = record.len();
        // `.tbl` lines end with a delimiter: one empty trailing field.
        if n == ncols + 1 && record.get(ncols) == Some("") {
            n = ncols;
        }
        if n != ncols {
            return Err(QuiverError::new(
                1262,
                "01000",
                format!(
                    "{}: row {line} has {n} fields, table has {ncols} columns",
                    path.display()
                ),
            ));
        }
        for (c, b) in builders.iter_mut().enumerate() {
            let f = record.get(c).expect("checked length");
            let is_str = matches!(b, ColumnBuilder::Str(_));
            let v = if f == opts.null || (f.is_empty() && !is_str) {
                None
            } else {
                Some(f)
            };
            b.push(v).map_err(|m| {
                QuiverError::new(
                    1366,
                    "HY000",
                    format!(
                        "{}: row {line}, column '{}': {m}",
                        path.display(),
                        schema.field(c).name()
                    ),
                )
            })?;
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
    if rows > 0 {
        let cols = builders
            .iter_mut()
            .map(|b| b.finish())
            .collect::<Result<Vec<_>>>()?;
        batches.push(RecordBatch::try_new(schema.clone(), cols)?);
    }
    progress(reader.position().byte());
    Ok(batches)
}
