//! `quiver load`: CSV or Parquet into a table, creating the table from the file when it
//! does not exist (CSV column types inferred from the first rows, and widened
//! when a later value does not fit).

use std::path::Path;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use quiver_common::{QuiverError, Result};
use quiver_engine::Database;
use quiver_storage::csv_load::{read_csv, read_csv_inferring, CsvOptions};
use quiver_storage::parquet_load::{parquet_schema, read_parquet};

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
    let (schema, batches) = if is_parquet {
        let schema = match &existing {
            Some(t) => t.schema(),
            None => parquet_schema(file)?,
        };
        bar.set_length(0);
        // ENUM / SET columns are read as their text, then stored as codes.
        let batches = read_parquet(file, &quiver_engine::file_read_schema(&schema), |rows| {
            bar.set_message(format!("loading {table}: {rows} rows"))
        })?;
        let batches = quiver_engine::stored_from_file(&schema, batches)?;
        (schema, batches)
    } else {
        match &existing {
            Some(t) => {
                let schema = t.schema();
                let read = quiver_engine::csv_read_schema(&schema);
                let batches = read_csv(file, &read, &opts, |b| bar.set_position(b))?;
                let batches = quiver_engine::stored_from_file(&schema, batches)?;
                (schema, batches)
            }
            None => read_csv_inferring(file, &opts, |b| bar.set_position(b))?,
        }
    };
    bar.finish_and_clear();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    match existing {
        Some(t) => {
            // The table's CHECK constraints hold for loaded rows too.
            quiver_engine::Session::new(db.clone(), Default::default()).check_batches(
                table,
                &t.schema(),
                &batches,
            )?;
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
