//! Generation of `hits` in parallel chunks of rows. A chunk's values depend
//! only on its row numbers and the total row count, so the data is the same
//! for any thread count.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_array::builder::{
    Date32Builder, Int16Builder, Int32Builder, Int64Builder, Int8Builder, StringBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};
use quiver_engine::{Database, EngineConfig, Session};
use rayon::prelude::*;

use crate::columns::{create_table_sql, number, text_hash, Rule, SqlType, Visit, COLUMNS};
use crate::random::{hash, zipf};

/// Rows per chunk: one batch and one parallel task each.
const CHUNK_ROWS: u64 = 131_072;

/// The table's name.
pub const TABLE: &str = "hits";

/// Creates `hits` (replacing it) in `db` and fills it with `rows` rows.
/// `progress(rows_done)` is called as chunks finish.
pub fn generate(db: &Arc<Database>, rows: u64, progress: &(dyn Fn(u64) + Sync)) -> Result<()> {
    if rows == 0 || rows > 10_000_000_000 {
        return Err(QuiverError::new(
            1210,
            "HY000",
            format!("Incorrect row count {rows}: use 1 to 10000000000"),
        ));
    }
    let session = Session::new(db.clone(), EngineConfig::default());
    session.execute(&format!("DROP TABLE IF EXISTS {TABLE}"))?;
    session.execute(&create_table_sql(TABLE))?;
    let table = db
        .table(TABLE)
        .ok_or_else(|| QuiverError::internal("hits vanished after CREATE TABLE"))?;
    let batches = batches(&table.schema(), rows, progress)?;
    let _writing = db.write_lock()?;
    table.replace(batches)
}

/// The `rows` rows of `hits` as batches of `schema` (the table's own schema,
/// which carries the collations and declared types).
pub fn batches(
    schema: &SchemaRef,
    rows: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<RecordBatch>> {
    let done = AtomicU64::new(0);
    let chunks = rows.div_ceil(CHUNK_ROWS);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let first = c * CHUNK_ROWS;
            let last = (first + CHUNK_ROWS).min(rows);
            let batch = chunk(schema, first..last, rows)?;
            let d = done.fetch_add(last - first, Ordering::Relaxed) + (last - first);
            progress(d);
            Ok(batch)
        })
        .collect()
}

fn chunk(schema: &SchemaRef, range: std::ops::Range<u64>, rows: u64) -> Result<RecordBatch> {
    let visits: Vec<Visit> = range.clone().map(|r| Visit::new(r, rows)).collect();
    let n = visits.len();
    let arrays = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, c)| column(c.sql_type, c.rule, &visits, 1000 + i as u64, n))
        .collect::<Vec<ArrayRef>>();
    Ok(RecordBatch::try_new(schema.clone(), arrays)?)
}

fn column(sql_type: SqlType, rule: Rule, visits: &[Visit], salt: u64, n: usize) -> ArrayRef {
    macro_rules! ints {
        ($builder:ty, $t:ty) => {{
            let mut b = <$builder>::with_capacity(n);
            for v in visits {
                b.append_value(number(rule, v, salt) as $t);
            }
            Arc::new(b.finish())
        }};
    }
    match sql_type {
        SqlType::TinyInt => ints!(Int8Builder, i8),
        SqlType::SmallInt => ints!(Int16Builder, i16),
        SqlType::Int => ints!(Int32Builder, i32),
        SqlType::BigInt => match rule {
            Rule::UrlHash | Rule::RefererHash => {
                let mut b = Int64Builder::with_capacity(n);
                let mut s = String::new();
                for v in visits {
                    s.clear();
                    if matches!(rule, Rule::UrlHash) {
                        v.url(&mut s)
                    } else {
                        v.referer(&mut s)
                    }
                    b.append_value(text_hash(&s));
                }
                Arc::new(b.finish())
            }
            _ => ints!(Int64Builder, i64),
        },
        SqlType::Date => {
            let mut b = Date32Builder::with_capacity(n);
            for v in visits {
                b.append_value(v.seconds.div_euclid(86_400) as i32);
            }
            Arc::new(b.finish())
        }
        SqlType::DateTime => {
            let mut b = TimestampMicrosecondBuilder::with_capacity(n);
            for v in visits {
                let s = match rule {
                    Rule::LocalTime => v.seconds + v.timezone_minutes() * 60,
                    _ => v.seconds,
                };
                b.append_value(s * 1_000_000);
            }
            Arc::new(b.finish())
        }
        SqlType::Varchar(..) => {
            let mut b = StringBuilder::with_capacity(n, n * 16);
            let mut s = String::new();
            for v in visits {
                s.clear();
                match rule {
                    Rule::Url => v.url(&mut s),
                    Rule::Referer => v.referer(&mut s),
                    Rule::Title => v.title(&mut s),
                    Rule::SearchPhrase => v.search_phrase(&mut s),
                    Rule::MobileModel => v.mobile_model(&mut s),
                    Rule::Choice(texts) => {
                        s.push_str(texts[zipf(hash(v.row, salt), texts.len() as u64) as usize])
                    }
                    Rule::Sometimes(percent, texts) => {
                        let x = hash(v.row, salt);
                        if x % 100 >= percent {
                            b.append_null();
                            continue;
                        }
                        s.push_str(texts[zipf(x >> 8, texts.len() as u64) as usize])
                    }
                    _ => {}
                }
                b.append_value(&s);
            }
            Arc::new(b.finish())
        }
    }
}
