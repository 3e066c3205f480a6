//! One table's manifest and data file (format 2; docs/STORAGE.md).
//!
//! `DIR/tables/<name>/table.meta` names the current generation, the columns and
//! their metadata; `data-<generation>.qvt` holds the rows in row groups of
//! [`ROW_GROUP_ROWS`], each column of a row group one checksummed page, then a
//! directory page (where every page is, its null count and min/max) and a
//! fixed tail that locates the directory.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_collation::Collation;
use quiver_common::{QuiverError, Result, ScalarValue};
use rayon::prelude::*;

pub use crate::errors::corrupt;
use crate::errors::err;
use crate::legacy;
use crate::page::{self, Compression, PageHeader, RawStats, HEADER_LEN, KIND_DIRECTORY};
use crate::sketch::DistinctSketch;
use crate::type_names::{name_to_type, type_to_name};
use quiver_common::types::{COLUMN_COLLATION_KEY, COLUMN_DEFAULT_KEY};

/// Rows per row group: every column has one page per row group, so a zone map
/// entry covers the same rows in all columns. 64K rows keep pages of an 8-byte
/// column at 512 KB before encoding (large sequential reads) while a zone map
/// still has some hundred entries per million rows.
pub const ROW_GROUP_ROWS: usize = 65536;

/// The last bytes of a data file: `directory offset u64 | directory length u32
/// | CRC-32C of those 12 bytes u32 | magic`.
pub const TAIL_MAGIC: &[u8; 8] = b"QVRTBL02";
pub const TAIL_LEN: usize = 24;

/// Compression used when neither the caller nor `QUIVER_COMPRESSION` says
/// otherwise; chosen by measurement (docs/STORAGE.md, "Compression").
pub const DEFAULT_COMPRESSION: Compression = Compression::None;

/// What a table's manifest says.
#[derive(Debug, Clone)]
pub struct TableMeta {
    pub schema: SchemaRef,
    pub rows: usize,
    /// Estimated distinct values per column.
    pub distinct: Vec<usize>,
    pub generation: u64,
    /// 1: the old single-blob data file; 2: pages (this module).
    pub format: u8,
    /// The table's next AUTO_INCREMENT value as last written (0: none kept).
    pub auto_increment: u64,
}

/// A data file the manifest names is missing: MySQL's ER_TABLESPACE_MISSING.
fn missing(table: &str, path: &Path) -> QuiverError {
    QuiverError::new(
        1812,
        "HY000",
        format!(
            "table '{table}': data file {} is missing",
            path.file_name().unwrap_or_default().to_string_lossy()
        ),
    )
}

fn table_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| dir.display().to_string())
}

/// Options of a write.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub compression: Compression,
    pub row_group_rows: usize,
    /// The next AUTO_INCREMENT value the manifest keeps (0: none), so that
    /// it switches with the rows it numbered.
    pub auto_increment: u64,
}

impl Default for WriteOptions {
    fn default() -> Self {
        let compression = std::env::var("QUIVER_COMPRESSION")
            .ok()
            .and_then(|s| Compression::parse(&s))
            .unwrap_or(DEFAULT_COMPRESSION);
        WriteOptions {
            compression,
            row_group_rows: ROW_GROUP_ROWS,
            auto_increment: 0,
        }
    }
}

/// Where one page is, and what it holds.
#[derive(Debug, Clone)]
pub struct PageRef {
    pub offset: u64,
    pub len: u32,
    pub null_count: u32,
    pub stats: RawStats,
}

#[derive(Debug, Clone)]
pub struct RowGroup {
    pub rows: usize,
    pub first_row: u64,
    /// One page per column.
    pub pages: Vec<PageRef>,
}

/// The directory of a format 2 data file.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub row_groups: Vec<RowGroup>,
    /// Byte range of the directory page.
    pub directory: (u64, u32),
    pub file_len: u64,
}

/// Min/max of one column in one row group, as typed values.
#[derive(Debug, Clone)]
pub struct ZoneStats {
    pub rows: usize,
    pub null_count: usize,
    pub min: Option<ScalarValue>,
    pub max: Option<ScalarValue>,
    pub max_is_prefix: bool,
    /// Bounds under the column's collation when it does not order by bytes
    /// (see [`page::CollatedStats`]), with the collation they are keys of.
    pub collated: Option<CollatedZone>,
    /// A text column's row shape in the row group (see [`page::RawStats`]).
    pub shape: Option<quiver_collation::RowShape>,
}

/// Bounds of a string column's row group under a collation, as normalized
/// keys of that collation (`memcmp` order is the collation's order).
#[derive(Debug, Clone, PartialEq)]
pub struct CollatedZone {
    pub collation: Collation,
    pub min: Vec<u8>,
    pub max: Vec<u8>,
    /// `max` is at least the first `max.len()` bytes of every key, not
    /// every whole key.
    pub max_is_prefix: bool,
}

impl Layout {
    /// Zone maps: `[row group][column]`.
    pub fn zone_stats(&self, schema: &Schema) -> Vec<Vec<ZoneStats>> {
        self.row_groups
            .iter()
            .map(|rg| {
                rg.pages
                    .iter()
                    .zip(schema.fields())
                    .map(|(p, f)| {
                        let (min, max) = p.stats.to_scalars(f.data_type());
                        ZoneStats {
                            rows: rg.rows,
                            null_count: p.null_count as usize,
                            min,
                            max,
                            max_is_prefix: p.stats.max_is_prefix,
                            collated: p.stats.collated.as_ref().and_then(|k| {
                                Some(CollatedZone {
                                    collation: Collation::from_id(k.collation_id)?,
                                    min: k.min.clone(),
                                    max: k.max.clone(),
                                    max_is_prefix: k.max_is_prefix,
                                })
                            }),
                            shape: p.stats.shape,
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// What a write produced: the manifest, the rows regrouped into row groups
/// (one batch per row group, sharing buffers with the input where a row group
/// lies inside one input batch) and the file's directory.
pub struct WrittenTable {
    pub meta: TableMeta,
    pub row_groups: Vec<RecordBatch>,
    pub layout: Layout,
}

/// Writes a new generation of the table in `dir` and switches the manifest to it.
pub fn write_table(dir: &Path, schema: &SchemaRef, batches: &[RecordBatch]) -> Result<TableMeta> {
    write_table_with(dir, schema, batches, &WriteOptions::default()).map(|w| w.meta)
}

pub(crate) fn fsync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| err(dir, e))
}

/// Cuts `batches` into row groups of at most `size` rows, copying as little
/// as possible: a large batch is cut into slices (no copy), and small batches
/// are gathered until they fill a group (concatenated). A group is closed
/// early, at half its size or more, rather than concatenated with part of the
/// next large batch; so TPC-H's 120K-row batches become groups of 65,536 and
/// 54,464 rows that all share the input's buffers.
fn regroup(schema: &SchemaRef, batches: &[RecordBatch], size: usize) -> Result<Vec<RecordBatch>> {
    let mut groups = Vec::new();
    let mut pieces: Vec<RecordBatch> = Vec::new();
    let mut have = 0;
    let flush = |pieces: &mut Vec<RecordBatch>, groups: &mut Vec<RecordBatch>| -> Result<()> {
        if pieces.is_empty() {
            return Ok(());
        }
        let rows: usize = pieces.iter().map(|p| p.num_rows()).sum();
        let group = if pieces.len() == 1 {
            pieces[0].clone()
        } else {
            let columns = (0..schema.fields().len())
                .map(|c| {
                    let parts: Vec<&dyn arrow_array::Array> =
                        pieces.iter().map(|p| p.column(c).as_ref()).collect();
                    arrow_select::concat::concat(&parts)
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            RecordBatch::try_new_with_options(
                schema.clone(),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )?
        };
        groups.push(group);
        pieces.clear();
        Ok(())
    };
    for b in batches {
        let n = b.num_rows();
        if n == 0 {
            continue;
        }
        if have + n > size && have * 2 >= size {
            flush(&mut pieces, &mut groups)?;
            have = 0;
        }
        let mut off = 0;
        while off < n {
            let take = (size - have).min(n - off);
            pieces.push(b.slice(off, take));
            have += take;
            off += take;
            if have == size {
                flush(&mut pieces, &mut groups)?;
                have = 0;
            }
        }
    }
    flush(&mut pieces, &mut groups)?;
    Ok(groups)
}

/// Generations of data files in `dir` (any format).
pub(crate) fn data_files(dir: &Path) -> Vec<(u64, PathBuf)> {
    let mut out = Vec::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let gen = name
                .strip_prefix("data-")
                .and_then(|r| r.strip_suffix(".qvt").or_else(|| r.strip_suffix(".bin")))
                .and_then(|g| g.parse::<u64>().ok());
            if let Some(g) = gen {
                out.push((g, e.path()));
            }
        }
    }
    out
}

/// Writes a new generation: data file written and fsynced, directory fsynced,
/// manifest switched by rename, directory fsynced, then older data files
/// removed. A crash at any point leaves the old manifest (and its data file)
/// or the new one, never a mix.
pub fn write_table_with(
    dir: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: &WriteOptions,
) -> Result<WrittenTable> {
    let staged = stage_table(dir, schema, batches, options)?;
    publish_table(&staged)?;
    Ok(staged.written)
}

/// A new generation whose data file is written and fsynced but not yet
/// named by the manifest: [`publish_table`] switches to it (or
/// [`crate::commit::publish_together`], with other tables' in one switch).
pub struct StagedTable {
    pub dir: PathBuf,
    pub written: WrittenTable,
    /// The manifest text that names the new generation.
    pub manifest: String,
}

/// Steps 1 and 2 of a write (docs/STORAGE.md): the new generation's data
/// file, fsynced, and its manifest's text.
pub fn stage_table(
    dir: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: &WriteOptions,
) -> Result<StagedTable> {
    let created = !dir.exists();
    fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
    if created {
        if let Some(parent) = dir.parent() {
            fsync_dir(parent)?;
        }
    }
    let old = read_meta(dir).ok();
    // Past every generation on disk, so a file left by a crashed write is
    // never mistaken for the new one.
    let generation = data_files(dir)
        .iter()
        .map(|(g, _)| *g)
        .chain(old.as_ref().map(|m| m.generation))
        .max()
        .unwrap_or(0)
        + 1;
    let data_path = dir.join(format!("data-{generation}.qvt"));
    let row_groups = regroup(schema, batches, options.row_group_rows.max(1))?;
    let ncols = schema.fields().len();
    // String columns whose collation does not order by bytes also get
    // zone-map bounds under that collation.
    let key_collations: Vec<Option<Collation>> = schema
        .fields()
        .iter()
        .map(|f| {
            f.metadata()
                .get(COLUMN_COLLATION_KEY)
                .and_then(|name| Collation::from_name(name))
                .filter(|c| !c.is_binary_eq() && f.data_type() == &DataType::Utf8)
        })
        .collect();
    let mut sketches = vec![DistinctSketch::default(); ncols];
    let mut layout = Layout::default();
    {
        let file = File::create(&data_path).map_err(|e| err(&data_path, e))?;
        let mut w = BufWriter::with_capacity(8 << 20, file);
        let mut offset = 0u64;
        let mut first_row = 0u64;
        // Encode a window of row groups in parallel, write it in order.
        let window = 8.max(rayon::current_num_threads() * 2);
        for (w_index, chunk) in row_groups.chunks(window).enumerate() {
            let jobs: Vec<(usize, usize)> = (0..chunk.len())
                .flat_map(|g| (0..ncols).map(move |c| (g, c)))
                .collect();
            let base_row: Vec<u64> = chunk
                .iter()
                .scan(first_row, |r, b| {
                    let s = *r;
                    *r += b.num_rows() as u64;
                    Some(s)
                })
                .collect();
            let encoded = jobs
                .par_iter()
                .map(|&(g, c)| {
                    page::encode_page_collated(
                        chunk[g].column(c),
                        c as u32,
                        (w_index * window + g) as u32,
                        base_row[g],
                        options.compression,
                        key_collations[c],
                    )
                    .map_err(|e| {
                        QuiverError::internal(format!(
                            "writing column '{}': {e}",
                            schema.field(c).name()
                        ))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let mut it = encoded.into_iter();
            for (g, batch) in chunk.iter().enumerate() {
                let mut pages = Vec::with_capacity(ncols);
                for sketch in sketches.iter_mut() {
                    let p = it.next().expect("one page per job");
                    w.write_all(&p.bytes).map_err(|e| err(&data_path, e))?;
                    pages.push(PageRef {
                        offset,
                        len: p.bytes.len() as u32,
                        null_count: p.null_count,
                        stats: p.stats,
                    });
                    offset += p.bytes.len() as u64;
                    sketch.merge(&p.sketch);
                }
                layout.row_groups.push(RowGroup {
                    rows: batch.num_rows(),
                    first_row: base_row[g],
                    pages,
                });
            }
            first_row += chunk.iter().map(|b| b.num_rows() as u64).sum::<u64>();
        }
        let dir_page = encode_directory(ncols, first_row, &layout.row_groups);
        w.write_all(&dir_page).map_err(|e| err(&data_path, e))?;
        layout.directory = (offset, dir_page.len() as u32);
        let mut tail = Vec::with_capacity(TAIL_LEN);
        tail.extend_from_slice(&offset.to_le_bytes());
        tail.extend_from_slice(&(dir_page.len() as u32).to_le_bytes());
        let crc = crc32c::crc32c(&tail);
        tail.extend_from_slice(&crc.to_le_bytes());
        tail.extend_from_slice(TAIL_MAGIC);
        w.write_all(&tail).map_err(|e| err(&data_path, e))?;
        layout.file_len = offset + dir_page.len() as u64 + TAIL_LEN as u64;
        let file = w.into_inner().map_err(|e| err(&data_path, e.error()))?;
        file.sync_all().map_err(|e| err(&data_path, e))?;
    }
    fsync_dir(dir)?;
    let rows: usize = row_groups.iter().map(|b| b.num_rows()).sum();
    let meta = TableMeta {
        schema: schema.clone(),
        rows,
        distinct: sketches.iter().map(|s| s.estimate().max(1)).collect(),
        generation,
        format: 2,
        auto_increment: options.auto_increment,
    };
    let manifest = manifest_text(&meta)?;
    Ok(StagedTable {
        dir: dir.to_path_buf(),
        written: WrittenTable {
            meta,
            row_groups,
            layout,
        },
        manifest,
    })
}

/// Step 3 and 4 of a write: the manifest switched to the staged generation
/// by one rename, then the older data files removed.
pub fn publish_table(staged: &StagedTable) -> Result<()> {
    switch_manifest(
        &staged.dir,
        &staged.manifest,
        staged.written.meta.generation,
    )
}

/// Writes `text` as the manifest of the table in `dir` (a temporary file,
/// fsynced, renamed over `table.meta`: the switch), then removes the data
/// files of every generation but `generation`.
pub(crate) fn switch_manifest(dir: &Path, text: &str, generation: u64) -> Result<()> {
    let tmp = dir.join("table.meta.tmp");
    {
        let mut f = File::create(&tmp).map_err(|e| err(&tmp, e))?;
        f.write_all(text.as_bytes()).map_err(|e| err(&tmp, e))?;
        f.sync_all().map_err(|e| err(&tmp, e))?;
    }
    fs::rename(&tmp, dir.join("table.meta")).map_err(|e| err(dir, e))?;
    fsync_dir(dir)?;
    // The switch is durable: older generations (and files of crashed writes)
    // can go.
    for (g, path) in data_files(dir) {
        if g != generation {
            let _ = fs::remove_file(path);
        }
    }
    Ok(())
}

/// Directory page body: `columns u32 | row groups u32 | rows u64`, then per
/// row group `rows u32 | first row u64` and per column `offset u64 | length
/// u32 | null count u32 | stats length u16 | stats`.
fn encode_directory(ncols: usize, rows: u64, groups: &[RowGroup]) -> Vec<u8> {
    let mut body = Vec::with_capacity(16 + groups.len() * (12 + ncols * 30));
    body.extend_from_slice(&(ncols as u32).to_le_bytes());
    body.extend_from_slice(&(groups.len() as u32).to_le_bytes());
    body.extend_from_slice(&rows.to_le_bytes());
    for g in groups {
        body.extend_from_slice(&(g.rows as u32).to_le_bytes());
        body.extend_from_slice(&g.first_row.to_le_bytes());
        for p in &g.pages {
            body.extend_from_slice(&p.offset.to_le_bytes());
            body.extend_from_slice(&p.len.to_le_bytes());
            body.extend_from_slice(&p.null_count.to_le_bytes());
            let s = p.stats.to_bytes();
            body.extend_from_slice(&(s.len() as u16).to_le_bytes());
            body.extend_from_slice(&s);
        }
    }
    let header = PageHeader {
        kind: KIND_DIRECTORY,
        encoding: 0,
        compression: 0,
        column: u32::MAX,
        page: groups.len() as u32,
        rows: 0,
        null_count: 0,
        uncompressed: body.len() as u32,
        stored: 0,
        stats_len: 0,
        type_tag: 0,
        first_row: rows,
        crc: 0,
    };
    page::build_page(header, &[], &body)
}

fn decode_directory(body: &[u8], ncols: usize) -> std::result::Result<Vec<RowGroup>, String> {
    let mut pos = 0usize;
    let mut take = |n: usize| -> std::result::Result<&[u8], String> {
        let s = body.get(pos..pos + n).ok_or("directory too short")?;
        pos += n;
        Ok(s)
    };
    let u32of = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
    let u64of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    if u32of(take(4)?) as usize != ncols {
        return Err("directory has another number of columns than the manifest".into());
    }
    let ngroups = u32of(take(4)?) as usize;
    let _rows = u64of(take(8)?);
    let mut groups = Vec::with_capacity(ngroups.min(body.len() / 12));
    for _ in 0..ngroups {
        let rows = u32of(take(4)?) as usize;
        let first_row = u64of(take(8)?);
        let mut pages = Vec::with_capacity(ncols);
        for _ in 0..ncols {
            let offset = u64of(take(8)?);
            let len = u32of(take(4)?);
            let null_count = u32of(take(4)?);
            let slen = u16::from_le_bytes(take(2)?.try_into().expect("2 bytes")) as usize;
            let stats = RawStats::parse(take(slen)?).ok_or("bad statistics in the directory")?;
            pages.push(PageRef {
                offset,
                len,
                null_count,
                stats,
            });
        }
        groups.push(RowGroup {
            rows,
            first_row,
            pages,
        });
    }
    Ok(groups)
}

fn manifest_text(meta: &TableMeta) -> Result<String> {
    let mut text = format!(
        "quiver-table 2\ngeneration {}\nrows {}\ndata data-{}.qvt\n",
        meta.generation, meta.rows, meta.generation
    );
    if meta.auto_increment > 0 {
        text += &format!("auto_increment {}\n", meta.auto_increment);
    }
    // Table metadata (keys, the AUTO_INCREMENT column) as `key=value`, hex
    // like the columns'. Readers that predate it skip the line.
    let mut m: Vec<(&String, &String)> = meta.schema.metadata().iter().collect();
    if !m.is_empty() {
        m.sort();
        text += "table";
        for (k, v) in m {
            text += &format!("\t{k}={}", hex(v));
        }
        text += "\n";
    }
    for (f, d) in meta.schema.fields().iter().zip(&meta.distinct) {
        text += &format!(
            "column\t{}\t{}\t{}\t{}",
            f.name(),
            type_to_name(f.data_type())?,
            f.is_nullable() as u8,
            d
        );
        // Column metadata (DEFAULT, declared type, collation) as `key=value`
        // with the value hex-encoded so that tabs and newlines in it are safe.
        let mut m: Vec<(&String, &String)> = f.metadata().iter().collect();
        m.sort();
        for (k, v) in m {
            text += &format!("\t{k}={}", hex(v));
        }
        text += "\n";
    }
    // A damaged manifest must not pass for a different schema.
    text += &format!("crc {:08x}\n", crc32c::crc32c(text.as_bytes()));
    Ok(text)
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = (0..s.len() / 2)
        .map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// Reads and checks a table's manifest.
pub fn read_meta(dir: &Path) -> Result<TableMeta> {
    let path = dir.join("table.meta");
    let bytes = fs::read(&path).map_err(|e| err(&path, e))?;
    parse_meta(dir, bytes)
}

/// A manifest's text (of the table in `dir`), checked.
pub fn parse_meta(dir: &Path, bytes: Vec<u8>) -> Result<TableMeta> {
    let table = table_name(dir);
    let bad = |what: &str| corrupt(&table, None, None, &format!("manifest table.meta: {what}"));
    let text = String::from_utf8(bytes).map_err(|_| bad("not text"))?;
    let format = match text.lines().next() {
        Some("quiver-table 1") => 1,
        Some("quiver-table 2") => 2,
        _ => return Err(bad("not a Quiver table manifest")),
    };
    if format == 2 {
        let body_end = text
            .rfind("crc ")
            .ok_or_else(|| bad("checksum line missing"))?;
        let stored = text[body_end + 4..].trim_end_matches('\n');
        let ok = u32::from_str_radix(stored, 16)
            .is_ok_and(|c| c == crc32c::crc32c(&text.as_bytes()[..body_end]));
        if !ok || !text.ends_with('\n') {
            return Err(bad("checksum mismatch"));
        }
    }
    let mut generation = None;
    let mut rows = None;
    let mut auto_increment = 0;
    let mut table_meta = HashMap::new();
    let mut fields = Vec::new();
    let mut distinct = Vec::new();
    for line in text.lines().skip(1) {
        let parts: Vec<&str> = line.split('\t').collect();
        match parts.as_slice() {
            ["column", name, t, nullable, d, rest @ ..] => {
                let mut field = Field::new(*name, name_to_type(t)?, *nullable == "1");
                let mut meta = HashMap::new();
                for item in rest {
                    // Manifests before `key=value` held only a DEFAULT, bare.
                    let (k, v) = item.split_once('=').unwrap_or((COLUMN_DEFAULT_KEY, item));
                    let v = unhex(v).ok_or_else(|| bad("bad column metadata"))?;
                    meta.insert(k.to_string(), v);
                }
                if !meta.is_empty() {
                    field = field.with_metadata(meta);
                }
                fields.push(field);
                distinct.push(d.parse().unwrap_or(1));
            }
            ["table", rest @ ..] => {
                for item in rest {
                    let (k, v) = item
                        .split_once('=')
                        .ok_or_else(|| bad("bad table metadata"))?;
                    let v = unhex(v).ok_or_else(|| bad("bad table metadata"))?;
                    table_meta.insert(k.to_string(), v);
                }
            }
            _ => {
                if let Some(g) = line.strip_prefix("generation ") {
                    generation = Some(g.parse().map_err(|_| bad("bad generation"))?);
                } else if let Some(r) = line.strip_prefix("rows ") {
                    rows = Some(r.parse().map_err(|_| bad("bad row count"))?);
                } else if let Some(a) = line.strip_prefix("auto_increment ") {
                    auto_increment = a.parse().map_err(|_| bad("bad auto_increment"))?;
                }
            }
        }
    }
    Ok(TableMeta {
        schema: Arc::new(Schema::new(fields).with_metadata(table_meta)),
        auto_increment,
        rows: rows.ok_or_else(|| bad("row count missing"))?,
        distinct,
        generation: generation.ok_or_else(|| bad("generation missing"))?,
        format,
    })
}

pub fn data_path(dir: &Path, meta: &TableMeta) -> PathBuf {
    match meta.format {
        1 => dir.join(format!("data-{}.bin", meta.generation)),
        _ => dir.join(format!("data-{}.qvt", meta.generation)),
    }
}

/// A table opened for reading: manifest and (format 2) directory checked.
#[derive(Debug)]
pub struct TableFile {
    pub name: String,
    pub dir: PathBuf,
    pub meta: TableMeta,
    pub path: PathBuf,
    /// None for a format 1 table.
    pub layout: Option<Layout>,
    /// The data file, kept open: its pages stay readable after a newer
    /// generation replaced (and removed) it, so a reader holds one state.
    file: File,
}

/// Reads the tail of a format 2 data file and its directory page.
pub fn read_layout(table: &str, path: &Path, file: &File, ncols: usize) -> Result<Layout> {
    let file_len = file.metadata().map_err(|e| err(path, e))?.len();
    let damaged = |what: &str| corrupt(table, None, None, what);
    if file_len < TAIL_LEN as u64 {
        return Err(damaged("data file truncated (no tail)"));
    }
    let mut tail = [0u8; TAIL_LEN];
    file.read_exact_at(&mut tail, file_len - TAIL_LEN as u64)
        .map_err(|e| err(path, e))?;
    if &tail[16..24] != TAIL_MAGIC {
        return Err(damaged("data file truncated or damaged (bad tail)"));
    }
    let crc = u32::from_le_bytes(tail[12..16].try_into().expect("4 bytes"));
    if crc32c::crc32c(&tail[..12]) != crc {
        return Err(damaged("data file tail: checksum mismatch"));
    }
    let dir_off = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
    let dir_len = u32::from_le_bytes(tail[8..12].try_into().expect("4 bytes"));
    if dir_off.checked_add(dir_len as u64 + TAIL_LEN as u64) != Some(file_len) {
        return Err(damaged(
            "data file truncated or extended (tail does not match its size)",
        ));
    }
    let mut buf = vec![0u8; dir_len as usize];
    file.read_exact_at(&mut buf, dir_off)
        .map_err(|e| err(path, e))?;
    let what = |w: String| corrupt(table, None, None, &format!("page directory: {w}"));
    let h = page::verify_page(&buf).map_err(what)?;
    if h.kind != KIND_DIRECTORY || h.total_len() != buf.len() {
        return Err(what("not a directory page".into()));
    }
    let row_groups =
        decode_directory(&buf[HEADER_LEN + h.stats_len as usize..], ncols).map_err(what)?;
    // Pages must tile the file up to the directory, in order.
    let mut expect = 0u64;
    let mut first_row = 0u64;
    for (g, rg) in row_groups.iter().enumerate() {
        if rg.first_row != first_row {
            return Err(what(format!("row group {g} starts at the wrong row")));
        }
        first_row += rg.rows as u64;
        for p in &rg.pages {
            if p.offset != expect {
                return Err(what(format!("row group {g}: pages out of place")));
            }
            expect += p.len as u64;
        }
    }
    if expect != dir_off {
        return Err(what("pages do not reach the directory".into()));
    }
    Ok(Layout {
        row_groups,
        directory: (dir_off, dir_len),
        file_len,
    })
}

/// Opens a table: reads the manifest, and for format 2 the data file's
/// directory (verified).
pub fn open_table(dir: &Path) -> Result<TableFile> {
    open_table_as(dir, read_meta(dir)?)
}

/// Opens the generation of the table in `dir` that `meta` (its manifest,
/// read before) names.
pub fn open_table_as(dir: &Path, meta: TableMeta) -> Result<TableFile> {
    let name = table_name(dir);
    let path = data_path(dir, &meta);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(missing(&name, &path)),
        Err(e) => return Err(err(&path, e)),
    };
    let layout = match meta.format {
        1 => None,
        _ => {
            let layout = read_layout(&name, &path, &file, meta.schema.fields().len())?;
            let rows: u64 = layout.row_groups.iter().map(|g| g.rows as u64).sum();
            if rows != meta.rows as u64 {
                return Err(corrupt(
                    &name,
                    None,
                    None,
                    "the data file's row count differs from the manifest",
                ));
            }
            Some(layout)
        }
    };
    Ok(TableFile {
        name,
        dir: dir.to_path_buf(),
        meta,
        path,
        layout,
        file,
    })
}

/// One column of one row group, as read.
#[derive(Debug, Clone)]
pub struct ColumnPage {
    pub array: ArrayRef,
    /// For a text page some of whose rows may end in a space: which do
    /// (bit `i % 64` of word `i / 64` for row `i`; see
    /// [`quiver_string_kernels::ends_in_space`]). PAD SPACE equality then
    /// reads no more rows than an exact compare.
    pub ends_in_space: Option<Arc<[u64]>>,
}

impl ColumnPage {
    /// A page known only by its array.
    pub fn of(array: ArrayRef) -> ColumnPage {
        ColumnPage {
            array,
            ends_in_space: None,
        }
    }
}

/// Which rows of a text page end in a space, unless its statistics say
/// none does; found while the page's bytes are still in cache.
fn page_ends_in_space(array: &ArrayRef, stats: &RawStats) -> Option<Arc<[u64]>> {
    if stats
        .shape
        .is_some_and(|s| s.max_trailing_spaces == Some(0))
    {
        return None;
    }
    let text = array.as_any().downcast_ref::<arrow_array::StringArray>()?;
    let mut bits = vec![0u64; arrow_array::Array::len(text).div_ceil(64)];
    quiver_string_kernels::ends_in_space(text.value_offsets(), text.value_data(), &mut bits)
        .ok()?;
    Some(bits.into())
}

impl TableFile {
    /// Reads, verifies and decodes one page.
    fn read_page(&self, file: &File, group: usize, column: usize) -> Result<ColumnPage> {
        let layout = self.layout.as_ref().expect("format 2");
        let rg = &layout.row_groups[group];
        let p = &rg.pages[column];
        let field = self.meta.schema.field(column);
        let damaged = |what: &str| corrupt(&self.name, Some(field.name()), Some(group), what);
        let mut buf = vec![0u8; p.len as usize];
        file.read_exact_at(&mut buf, p.offset)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => damaged("page truncated"),
                _ => err(&self.path, e),
            })?;
        let h = page::verify_page(&buf).map_err(|w| damaged(&w))?;
        if h.kind != page::KIND_DATA
            || h.total_len() != buf.len()
            || h.column as usize != column
            || h.page as usize != group
            || h.rows as usize != rg.rows
            || h.first_row != rg.first_row
        {
            return Err(damaged("page does not match the directory"));
        }
        let array = page::decode_page(&h, &buf, field.data_type()).map_err(|w| damaged(&w))?;
        let ends_in_space = page_ends_in_space(&array, &p.stats);
        Ok(ColumnPage {
            array,
            ends_in_space,
        })
    }

    /// The given columns, each as one array per row group: `[column][row group]`.
    /// Pages are read, verified and decoded in parallel.
    pub fn read_columns(&self, columns: &[usize]) -> Result<Vec<Vec<ArrayRef>>> {
        Ok(self
            .read_column_pages(columns)?
            .into_iter()
            .map(|pages| pages.into_iter().map(|p| p.array).collect())
            .collect())
    }

    /// [`read_columns`](Self::read_columns), with what was learnt of each
    /// page as it was read (see [`ColumnPage`]).
    pub fn read_column_pages(&self, columns: &[usize]) -> Result<Vec<Vec<ColumnPage>>> {
        let Some(layout) = &self.layout else {
            let batches = legacy::read_legacy(&self.name, &self.path, &self.meta.schema)?;
            return Ok(columns
                .iter()
                .map(|&c| {
                    batches
                        .iter()
                        .map(|b| ColumnPage::of(b.column(c).clone()))
                        .collect()
                })
                .collect());
        };
        let file = &self.file;
        let ngroups = layout.row_groups.len();
        let jobs: Vec<(usize, usize)> = columns
            .iter()
            .flat_map(|&c| (0..ngroups).map(move |g| (c, g)))
            .collect();
        let arrays = jobs
            .par_iter()
            .map(|&(c, g)| self.read_page(file, g, c))
            .collect::<Result<Vec<_>>>()?;
        let mut it = arrays.into_iter();
        Ok(columns
            .iter()
            .map(|_| it.by_ref().take(ngroups).collect())
            .collect())
    }

    /// Rows per batch that [`read_columns`](Self::read_columns) returns.
    pub fn group_rows(&self) -> Option<Vec<usize>> {
        self.layout
            .as_ref()
            .map(|l| l.row_groups.iter().map(|g| g.rows).collect())
    }

    /// The whole table, one batch per row group.
    pub fn read_all(&self) -> Result<Vec<RecordBatch>> {
        if self.layout.is_none() {
            return legacy::read_legacy(&self.name, &self.path, &self.meta.schema);
        }
        let all: Vec<usize> = (0..self.meta.schema.fields().len()).collect();
        let mut columns = self.read_columns(&all)?;
        let rows = self.group_rows().expect("format 2");
        let mut batches = Vec::with_capacity(rows.len());
        for (g, n) in rows.into_iter().enumerate().rev() {
            let cols: Vec<ArrayRef> = columns
                .iter_mut()
                .map(|c| c.pop().expect("one array per row group"))
                .collect();
            let _ = g;
            batches.push(RecordBatch::try_new_with_options(
                self.meta.schema.clone(),
                cols,
                &RecordBatchOptions::new().with_row_count(Some(n)),
            )?);
        }
        batches.reverse();
        Ok(batches)
    }
}

/// Reads the table's batches (one per row group), verifying every page.
pub fn read_table(dir: &Path) -> Result<(TableMeta, Vec<RecordBatch>)> {
    let t = open_table(dir)?;
    let batches = t.read_all()?;
    Ok((t.meta, batches))
}

/// Estimated distinct values of each column (KMV sketch), as stored in the
/// manifest; also used for tables that live only in memory.
pub fn estimate_distinct(schema: &SchemaRef, batches: &[RecordBatch]) -> Vec<usize> {
    let mut sketches = vec![DistinctSketch::default(); schema.fields().len()];
    for b in batches {
        for (c, col) in b.columns().iter().enumerate() {
            page::sketch_array(col, &mut sketches[c]);
        }
    }
    sketches.iter().map(|s| s.estimate().max(1)).collect()
}
