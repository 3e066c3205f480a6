//! Parquet files into batches, with column types narrowed to what Quiver
//! stores (views and large strings become plain UTF-8, timestamps microseconds).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use quiver_common::{QuiverError, Result};

/// The type a Parquet column of type `t` is stored as, or 1235 for a type
/// that tables cannot hold (nested types, times, intervals), naming the column.
fn storable(name: &str, t: &DataType) -> Result<DataType> {
    Ok(match t {
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        // BINARY without a UTF8 annotation: text when its bytes are (checked as read).
        t if is_binary(t) => DataType::Utf8,
        DataType::Dictionary(_, values) => storable(name, values)?,
        // DATETIME with the fraction digits the unit has.
        DataType::Timestamp(unit, _) => quiver_common::types::datetime_type(match unit {
            TimeUnit::Second => 0,
            TimeUnit::Millisecond => 3,
            TimeUnit::Microsecond | TimeUnit::Nanosecond => 6,
        }),
        DataType::Date64 => DataType::Date32,
        DataType::Float16 => DataType::Float32,
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) => DataType::Decimal128(*p, *s),
        DataType::Decimal256(p, s) if *p <= 38 => DataType::Decimal128(*p, *s),
        // Beyond MySQL's 65 digits: kept as text rather than refused.
        DataType::Decimal256(p, _) if *p > 65 => DataType::Utf8,
        DataType::Null
        | DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float32
        | DataType::Float64
        | DataType::Utf8
        | DataType::Date32
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => t.clone(),
        other => {
            return Err(QuiverError::not_supported(format!(
                "Parquet column `{name}` of type {}",
                type_name(other)
            )))
        }
    })
}

fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_)
    )
}

/// A type as a message names it: nested types by their Parquet names.
fn type_name(t: &DataType) -> String {
    match t {
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::ListView(item)
        | DataType::LargeListView(item)
        | DataType::FixedSizeList(item, _) => format!("LIST<{}>", type_name(item.data_type())),
        DataType::Struct(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|f| format!("{} {}", f.name(), type_name(f.data_type())))
                .collect();
            format!("STRUCT<{}>", fields.join(", "))
        }
        DataType::Map(..) => "MAP".into(),
        DataType::Union(..) => "UNION".into(),
        DataType::Time32(_) | DataType::Time64(_) => "TIME".into(),
        DataType::Duration(_) => "DURATION".into(),
        DataType::Interval(_) => "INTERVAL".into(),
        t if is_binary(t) => "BINARY".into(),
        other => other.to_string(),
    }
}

/// The schema a Parquet file loads as.
pub fn parquet_schema(path: &Path) -> Result<SchemaRef> {
    let file = File::open(path)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", path.display()), e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| QuiverError::io(&format!("{}: not a Parquet file", path.display()), e))?;
    let fields = builder
        .schema()
        .fields()
        .iter()
        .map(|f| {
            Ok(Field::new(
                f.name(),
                storable(f.name(), f.data_type())?,
                true,
            ))
        })
        .collect::<Result<Vec<Field>>>()?;
    Ok(Arc::new(Schema::new(fields)))
}

/// A BINARY column as text, or 1235 naming the column and the first row
/// (counted from 1 in the file, `first_row` being its first) that is not UTF-8.
fn binary_as_text(column: &ArrayRef, name: &str, first_row: u64) -> Result<ArrayRef> {
    let values: Box<dyn Iterator<Item = Option<&[u8]>>> = match column.data_type() {
        DataType::Binary => Box::new(column.as_binary::<i32>().iter()),
        DataType::LargeBinary => Box::new(column.as_binary::<i64>().iter()),
        DataType::BinaryView => Box::new(column.as_binary_view().iter()),
        DataType::FixedSizeBinary(_) => Box::new(column.as_fixed_size_binary().iter()),
        other => return Err(QuiverError::internal(format!("{other} is not binary"))),
    };
    let mut text = StringBuilder::with_capacity(column.len(), 0);
    for (row, value) in (first_row..).zip(values) {
        match value.map(std::str::from_utf8) {
            None => text.append_null(),
            Some(Ok(s)) => text.append_value(s),
            Some(Err(_)) => {
                return Err(QuiverError::not_supported(format!(
                "Parquet column `{name}` of type BINARY with bytes that are not UTF-8 (row {row})"
            )))
            }
        }
    }
    Ok(Arc::new(text.finish()))
}

/// Reads `path` into batches of `target` (same column count; types cast by position).
pub fn read_parquet(
    path: &Path,
    target: &SchemaRef,
    mut progress: impl FnMut(u64),
) -> Result<Vec<RecordBatch>> {
    let file = File::open(path)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", path.display()), e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| QuiverError::io(&format!("{}: not a Parquet file", path.display()), e))?;
    // Columns that no table can hold are refused before any row is read.
    for f in builder.schema().fields() {
        storable(f.name(), f.data_type())?;
    }
    let reader = builder
        .with_batch_size(64 * 1024)
        .build()
        .map_err(|e| QuiverError::io(&format!("{}: not a Parquet file", path.display()), e))?;
    let mut out = Vec::new();
    let mut rows = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| {
            QuiverError::io(&format!("{}: damaged Parquet data", path.display()), e)
        })?;
        if batch.num_columns() != target.fields().len() {
            return Err(QuiverError::new(
                1136,
                "21S01",
                format!(
                    "{} has {} columns, table has {}",
                    path.display(),
                    batch.num_columns(),
                    target.fields().len()
                ),
            ));
        }
        let cols = batch
            .columns()
            .iter()
            .zip(batch.schema().fields())
            .zip(target.fields())
            .map(|((c, source), f)| {
                // Dictionary values are stored plainly: BINARY ones then checked as text.
                let c = match c.data_type() {
                    DataType::Dictionary(_, values) => arrow_cast::cast(c, values)
                        .map_err(|e| QuiverError::io(&format!("column '{}'", f.name()), e))?,
                    _ => c.clone(),
                };
                let c = if is_binary(c.data_type()) {
                    binary_as_text(&c, source.name(), rows + 1)?
                } else {
                    c
                };
                if c.data_type() == f.data_type() {
                    Ok(c)
                } else if let DataType::Timestamp(_, fsp) = f.data_type() {
                    // In microseconds as Arrow converts them, then tagged
                    // with the DATETIME's precision (not a time zone).
                    let micros = DataType::Timestamp(TimeUnit::Microsecond, None);
                    let c = arrow_cast::cast(&c, &micros)
                        .map_err(|e| QuiverError::io(&format!("column '{}'", f.name()), e))?;
                    Ok(Arc::new(
                        c.as_primitive::<arrow_array::types::TimestampMicrosecondType>()
                            .clone()
                            .with_timezone_opt(fsp.clone()),
                    ) as ArrayRef)
                } else {
                    arrow_cast::cast(&c, f.data_type())
                        .map_err(|e| QuiverError::io(&format!("column '{}'", f.name()), e))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        rows += batch.num_rows() as u64;
        progress(rows);
        out.push(RecordBatch::try_new(target.clone(), cols)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::types::Int64Type;
    use arrow_array::{
        BinaryArray, FixedSizeBinaryArray, Int64Array, LargeBinaryArray, ListArray, StructArray,
        Time64MicrosecondArray,
    };
    use std::path::PathBuf;

    /// A Parquet file of `columns` in a fresh folder of its own.
    fn parquet_file(name: &str, columns: Vec<(&str, ArrayRef)>) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("quiver-parquet-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.parquet"));
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let file = File::create(&path).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        path
    }

    fn load(path: &Path) -> Result<Vec<RecordBatch>> {
        let schema = parquet_schema(path)?;
        read_parquet(path, &schema, |_| {})
    }

    #[test]
    fn utf8_binary_columns_load_as_text() {
        let path = parquet_file(
            "binary",
            vec![
                ("id", Arc::new(Int64Array::from(vec![1, 2, 3]))),
                (
                    "raw",
                    Arc::new(BinaryArray::from_opt_vec(vec![
                        Some(b"pen"),
                        None,
                        Some("h\u{e9}".as_bytes()),
                    ])),
                ),
                (
                    "code",
                    Arc::new(
                        FixedSizeBinaryArray::try_from_iter([b"ab", b"cd", b"ef"].into_iter())
                            .unwrap(),
                    ),
                ),
            ],
        );
        let schema = parquet_schema(&path).unwrap();
        assert_eq!(schema.field(1).data_type(), &DataType::Utf8);
        assert_eq!(schema.field(2).data_type(), &DataType::Utf8);
        let batches = read_parquet(&path, &schema, |_| {}).unwrap();
        let raw = batches[0].column(1).as_string::<i32>();
        assert_eq!(
            raw.iter().collect::<Vec<_>>(),
            [Some("pen"), None, Some("h\u{e9}")]
        );
        let code = batches[0].column(2).as_string::<i32>();
        assert_eq!(
            code.iter().flatten().collect::<Vec<_>>(),
            ["ab", "cd", "ef"]
        );
    }

    #[test]
    fn binary_that_is_not_utf8_is_refused_naming_column_and_row() {
        let path = parquet_file(
            "not-utf8",
            vec![(
                "blob",
                Arc::new(LargeBinaryArray::from_opt_vec(vec![
                    Some(b"ok"),
                    Some(&[0xff, 0xfe]),
                ])),
            )],
        );
        assert_eq!(
            load(&path).unwrap_err().to_string(),
            "ERROR 1235 (42000): This version of Quiver doesn't yet support \
             'Parquet column `blob` of type BINARY with bytes that are not UTF-8 (row 2)'"
        );
    }

    #[test]
    fn nested_and_time_columns_are_refused_naming_column_and_type() {
        let list = ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
            Some(vec![Some(1), Some(2)]),
            None,
        ]);
        let point = StructArray::from(vec![
            (
                Arc::new(Field::new("x", DataType::Int64, true)),
                Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef,
            ),
            (
                Arc::new(Field::new("y", DataType::Int64, true)),
                Arc::new(Int64Array::from(vec![3, 4])) as ArrayRef,
            ),
        ]);
        let cases: [(&str, ArrayRef, &str); 3] = [
            ("tags", Arc::new(list), "`tags` of type LIST<Int64>"),
            (
                "point",
                Arc::new(point),
                "`point` of type STRUCT<x Int64, y Int64>",
            ),
            (
                "at",
                Arc::new(Time64MicrosecondArray::from(vec![1, 2])),
                "`at` of type TIME",
            ),
        ];
        for (name, column, what) in cases {
            let path = parquet_file(
                name,
                vec![
                    ("id", Arc::new(Int64Array::from(vec![1, 2]))),
                    (name, column),
                ],
            );
            let expected = format!(
                "ERROR 1235 (42000): This version of Quiver doesn't yet support 'Parquet column {what}'"
            );
            assert_eq!(parquet_schema(&path).unwrap_err().to_string(), expected);
            // Into a table that exists, with a text column in its place: refused too.
            let target = Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int64, true),
                Field::new(name, DataType::Utf8, true),
            ]));
            let err = read_parquet(&path, &target, |_| {}).unwrap_err();
            assert_eq!(err.to_string(), expected);
        }
    }
}
