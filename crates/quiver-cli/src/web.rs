//! `quiver web`: the web-analytics workload — generate the `hits` table
//! (and the same rows as a Parquet file for the peer engines), and print
//! the workload's queries as an engine spells them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use quiver_clickstream::Engine;
use quiver_common::{QuiverError, Result};
use quiver_engine::format::json_string;
use quiver_engine::{Database, EngineConfig};

#[derive(Args)]
pub struct WebArgs {
    #[command(subcommand)]
    command: WebCommand,
}

#[derive(Subcommand)]
enum WebCommand {
    /// Generate the `hits` table into --db (replacing it), and optionally a Parquet file of the same rows.
    Gen {
        /// Rows to generate.
        #[arg(long, default_value_t = 10_000_000)]
        rows: u64,
        /// Also write the rows to this Parquet file.
        #[arg(long)]
        parquet: Option<PathBuf>,
    },
    /// Print the workload's queries as JSON lines `{"name", "folded", "sql"}`, spelled for one engine.
    Queries {
        /// quiver, duckdb, datafusion or chdb.
        #[arg(long, default_value = "quiver")]
        engine: String,
    },
}

pub fn run(args: WebArgs, db: Option<PathBuf>, cfg: EngineConfig) -> Result<()> {
    match args.command {
        WebCommand::Gen { rows, parquet } => {
            let db = match db {
                Some(dir) => Database::open(&dir)?,
                None => Database::in_memory(),
            };
            generate(&db, rows, parquet.as_deref(), &cfg)
        }
        WebCommand::Queries { engine } => {
            let e = Engine::from_name(&engine).ok_or_else(|| {
                QuiverError::syntax_msg(format!(
                    "unknown engine '{engine}' (quiver, duckdb, datafusion, chdb)"
                ))
            })?;
            let mut out = String::new();
            for q in quiver_clickstream::queries() {
                let sql = q.sql(e).map_err(QuiverError::internal)?;
                out.push_str(&format!(
                    "{{\"name\": {}, \"folded\": {}, \"sql\": {}}}\n",
                    json_string(&q.name),
                    q.folded,
                    json_string(&sql)
                ));
            }
            print!("{out}");
            Ok(())
        }
    }
}

fn generate(
    db: &Arc<Database>,
    rows: u64,
    parquet: Option<&Path>,
    cfg: &EngineConfig,
) -> Result<()> {
    let bar = ProgressBar::new(rows);
    bar.set_style(
        ProgressStyle::with_template("{msg:>6} [{bar:30}] {pos}/{len} rows")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message("hits");
    let start = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| QuiverError::internal(e.to_string()))?;
    pool.install(|| quiver_clickstream::generate(db, rows, &|done| bar.set_position(done)))?;
    bar.finish();
    if let Some(path) = parquet {
        let table = db
            .table(quiver_clickstream::TABLE)
            .ok_or_else(|| QuiverError::internal("hits is missing after generation"))?;
        write_parquet(path, &table.data()?)?;
    }
    eprintln!(
        "Generated {rows} rows of hits in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The rows as Parquet, with plain Arrow types (no Quiver field metadata).
fn write_parquet(path: &Path, batches: &[RecordBatch]) -> Result<()> {
    let Some(first) = batches.first() else {
        return Ok(());
    };
    let plain = Arc::new(Schema::new(
        first
            .schema()
            .fields()
            .iter()
            .map(|f| {
                f.as_ref()
                    .clone()
                    .with_metadata(std::collections::HashMap::new())
            })
            .collect::<Vec<_>>(),
    ));
    let io = |e: std::io::Error| QuiverError::io(&format!("writing {}", path.display()), e);
    let pq = |e: parquet::errors::ParquetError| {
        QuiverError::internal(format!("{}: {e}", path.display()))
    };
    let file = std::fs::File::create(path).map_err(io)?;
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .set_max_row_group_row_count(Some(1 << 20))
        .build();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(file, plain.clone(), Some(props)).map_err(pq)?;
    for b in batches {
        let b = RecordBatch::try_new(plain.clone(), b.columns().to_vec())?;
        w.write(&b).map_err(pq)?;
    }
    w.close().map_err(pq)?;
    Ok(())
}
