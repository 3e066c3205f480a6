//! `quiver load`: CSV or Parquet into a table, creating the table from the file when it
//! does not exist (column types inferred from the first rows).

use std::path::Path;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use indicatif::{ProgressBar, ProgressStyle};
use quiver_common::types::{parse_date, parse_datetime, parse_decimal};
use quiver_common::{QuiverError, Result};
use quiver_engine::Database;
use quiver_storage::csv_load::{read_csv, CsvOptions};

pub fn load(
    db: &Arc<Database>,
    table: &str,
    file: &Path,
    delimiter: Option<char>,
    header: Option<bool>,
) -> Result<()> {
    let mut opts = CsvOptions::for_path(file);
    if let Some(d) = delimiter {
        opts.delimiter = d as u8;
    }
    if let Some(h) = header {
        opts.has_header = h;
    }
    let existing = db.table(table);
    let is_parquet = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
    let schema = match &existing {
        Some(t) => t.schema(),
        None if is_parquet => quiver_storage::parquet_load::parquet_schema(file)?,
        None => infer_schema(file, &opts)?,
    };
    let size = std::fs::metadata(file)
        .map_err(|e| QuiverError::io(&format!("cannot read {}", file.display()), e))?
        .len();
    let bar = ProgressBar::new(size);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("loading {table}"));
    let batches = if is_parquet {
        bar.set_length(0);
        quiver_storage::parquet_load::read_parquet(file, &schema, |rows| {
            bar.set_message(format!("loading {table}: {rows} rows"))
        })?
    } else {
        read_csv(file, &schema, &opts, |b| bar.set_position(b))?
    };
    bar.finish_and_clear();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    match existing {
        Some(t) => {
            let mut all = t.data()?.as_ref().clone();
            all.extend(batches);
            t.replace(all)?;
        }
        None => {
            db.create_table(table, schema, batches, false)?;
        }
    }
    eprintln!("Loaded {rows} rows into {table}");
    Ok(())
}

/// Types from the first 1000 rows: BIGINT, DECIMAL, DOUBLE, DATE, DATETIME, else VARCHAR.
fn infer_schema(file: &Path, opts: &CsvOptions) -> Result<SchemaRef> {
    let f = std::fs::File::open(file)
        .map_err(|e| QuiverError::io(&format!("cannot open {}", file.display()), e))?;
    let mut r = csv::ReaderBuilder::new()
        .delimiter(opts.delimiter)
        .has_headers(opts.has_header)
        .flexible(true)
        .from_reader(f);
    let names: Vec<String> = if opts.has_header {
        r.headers()
            .map_err(|e| QuiverError::io("reading CSV header", e))?
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        Vec::new()
    };
    // 0 int, 1 decimal, 2 double, 3 date, 4 datetime, 5 string, UNSEEN before any value.
    const UNSEEN: u8 = u8::MAX;
    let mut kinds: Vec<u8> = Vec::new();
    let mut scale: Vec<i8> = Vec::new();
    for rec in r.records().take(1000) {
        let rec = rec.map_err(|e| QuiverError::io("reading CSV", e))?;
        let n = if rec.len() > 1
            && rec.get(rec.len() - 1) == Some("")
            && file.extension().is_some_and(|e| e == "tbl")
        {
            rec.len() - 1
        } else {
            rec.len()
        };
        if kinds.len() < n {
            kinds.resize(n, UNSEEN);
            scale.resize(n, 0);
        }
        for (i, v) in rec.iter().take(n).enumerate() {
            if v.is_empty() || v == opts.null {
                continue;
            }
            let k = if v.parse::<i64>().is_ok() {
                0
            } else if let Some((_, s)) = parse_decimal(v) {
                scale[i] = scale[i].max(s);
                1
            } else if v.parse::<f64>().is_ok() {
                2
            } else if parse_date(v).is_some() && v.len() == 10 {
                3
            } else if parse_datetime(v).is_some() {
                4
            } else {
                5
            };
            kinds[i] = match (kinds[i], k) {
                (UNSEEN, b) => b,
                (a, b) if a == b => a,
                (0, 1) | (1, 0) => 1,
                (a, b) if a <= 2 && b <= 2 => 2,
                (3, 4) | (4, 3) => 4,
                _ => 5,
            };
        }
    }
    let fields: Vec<Field> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let t = match k {
                0 => DataType::Int64,
                1 => DataType::Decimal128(18.max(scale[i] as u8 + 1), scale[i]),
                2 => DataType::Float64,
                3 => DataType::Date32,
                4 => quiver_common::types::datetime_type(),
                _ => DataType::Utf8,
            };
            Field::new(
                names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("column{}", i + 1)),
                t,
                true,
            )
        })
        .collect();
    if fields.is_empty() {
        return Err(QuiverError::new(
            1300,
            "HY000",
            format!("{}: no rows to infer columns from", file.display()),
        ));
    }
    Ok(Arc::new(Schema::new(fields)))
}
