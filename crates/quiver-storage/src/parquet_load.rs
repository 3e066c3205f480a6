//! Parquet files into batches, with column types narrowed to what Quiver
//! stores (views and large strings become plain UTF-8, timestamps microseconds).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use quiver_common::{QuiverError, Result};

fn storable(t: &DataType) -> DataType {
    match t {
        DataType::Utf8View | DataType::LargeUtf8 | DataType::Dictionary(..) => DataType::Utf8,
        DataType::Timestamp(_, _) => DataType::Timestamp(TimeUnit::Microsecond, None),
        DataType::Date64 => DataType::Date32,
        DataType::Float16 => DataType::Float32,
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) => DataType::Decimal128(*p, *s),
        DataType::Decimal256(p, s) if *p <= 38 => DataType::Decimal128(*p, *s),
        // Beyond MySQL's 65 digits: kept as text rather than refused.
        DataType::Decimal256(p, _) if *p > 65 => DataType::Utf8,
        other => other.clone(),
    }
}

/// The schema a Parquet file loads as.
pub fn parquet_schema(path: &Path) -> Result<SchemaRef> {
    let file = File::open(path)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", path.display()), e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| QuiverError::io(&format!("{}: not a Parquet file", path.display()), e))?;
    let fields: Vec<Field> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| Field::new(f.name(), storable(f.data_type()), true))
        .collect();
    Ok(Arc::new(Schema::new(fields)))
}

/// Reads `path` into batches of `target` (same column count; types cast by position).
pub fn read_parquet(
    path: &Path,
    target: &SchemaRef,
    mut progress: impl FnMut(u64),
) -> Result<Vec<RecordBatch>> {
    let file = File::open(path)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", path.display()), e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.with_batch_size(64 * 1024).build())
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
            .zip(target.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c.clone())
                } else {
                    arrow_cast::cast(c, f.data_type())
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
