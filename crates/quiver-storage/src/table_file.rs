//! Reading and writing one table's manifest and data file.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, BooleanArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use quiver_common::{QuiverError, Result};

use crate::sketch::DistinctSketch;
use crate::type_names::{name_to_type, type_to_name};
use quiver_common::types::COLUMN_DEFAULT_KEY;

const MAGIC: &[u8; 8] = b"QVRTBL01";

/// What a table's manifest says.
#[derive(Debug, Clone)]
pub struct TableMeta {
    pub schema: SchemaRef,
    pub rows: usize,
    /// Estimated distinct values per column.
    pub distinct: Vec<usize>,
    pub generation: u64,
}

fn err(path: &Path, e: impl std::fmt::Display) -> QuiverError {
    QuiverError::io(&format!("table file {}", path.display()), e)
}

/// Writes a new generation of the table in `dir` and switches the manifest to it.
pub fn write_table(dir: &Path, schema: &SchemaRef, batches: &[RecordBatch]) -> Result<TableMeta> {
    fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
    let old = read_meta(dir).ok();
    let generation = old.as_ref().map(|m| m.generation + 1).unwrap_or(1);
    let data_path = dir.join(format!("data-{generation}.bin"));
    let mut sketches = vec![DistinctSketch::default(); schema.fields().len()];
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    {
        let file = File::create(&data_path).map_err(|e| err(&data_path, e))?;
        let mut w = CrcWriter {
            inner: BufWriter::with_capacity(1 << 20, file),
            crc: 0,
        };
        w.write_all(MAGIC).map_err(|e| err(&data_path, e))?;
        w.write_all(&(batches.len() as u64).to_le_bytes())
            .map_err(|e| err(&data_path, e))?;
        for b in batches {
            w.write_all(&(b.num_rows() as u64).to_le_bytes())
                .map_err(|e| err(&data_path, e))?;
            for (c, col) in b.columns().iter().enumerate() {
                write_column(&mut w, col).map_err(|e| err(&data_path, e))?;
                sketch_column(col, &mut sketches[c]);
            }
        }
        let crc = w.crc;
        let mut inner = w.inner;
        inner
            .write_all(&crc.to_le_bytes())
            .map_err(|e| err(&data_path, e))?;
        let file = inner.into_inner().map_err(|e| err(&data_path, e.error()))?;
        file.sync_all().map_err(|e| err(&data_path, e))?;
    }
    let meta = TableMeta {
        schema: schema.clone(),
        rows,
        distinct: sketches.iter().map(|s| s.estimate().max(1)).collect(),
        generation,
    };
    let mut text = format!("quiver-table 1\ngeneration {generation}\nrows {rows}\n");
    for (f, d) in schema.fields().iter().zip(&meta.distinct) {
        text += &format!(
            "column\t{}\t{}\t{}\t{}",
            f.name(),
            type_to_name(f.data_type())?,
            f.is_nullable() as u8,
            d
        );
        // Column metadata (DEFAULT, declared type) as `key=value` with the
        // value hex-encoded so that tabs and newlines in it are safe.
        let mut meta: Vec<(&String, &String)> = f.metadata().iter().collect();
        meta.sort();
        for (k, v) in meta {
            text += &format!("\t{k}={}", hex(v));
        }
        text += "\n";
    }
    let tmp = dir.join("table.meta.tmp");
    {
        let mut f = File::create(&tmp).map_err(|e| err(&tmp, e))?;
        f.write_all(text.as_bytes()).map_err(|e| err(&tmp, e))?;
        f.sync_all().map_err(|e| err(&tmp, e))?;
    }
    fs::rename(&tmp, dir.join("table.meta")).map_err(|e| err(dir, e))?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    if let Some(old) = old {
        let _ = fs::remove_file(dir.join(format!("data-{}.bin", old.generation)));
    }
    Ok(meta)
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

pub fn read_meta(dir: &Path) -> Result<TableMeta> {
    let path = dir.join("table.meta");
    let text = fs::read_to_string(&path).map_err(|e| err(&path, e))?;
    let mut lines = text.lines();
    if lines.next() != Some("quiver-table 1") {
        return Err(err(&path, "not a Quiver table manifest"));
    }
    let mut generation = 0;
    let mut rows = 0;
    let mut fields = Vec::new();
    let mut distinct = Vec::new();
    for line in lines {
        let parts: Vec<&str> = line.split('\t').collect();
        match parts.as_slice() {
            ["column", name, t, nullable, d, rest @ ..] => {
                let mut field = Field::new(*name, name_to_type(t)?, *nullable == "1");
                let mut meta = std::collections::HashMap::new();
                for item in rest {
                    // Manifests before `key=value` held only a DEFAULT, bare.
                    let (k, v) = item.split_once('=').unwrap_or((COLUMN_DEFAULT_KEY, item));
                    let v = unhex(v).ok_or_else(|| err(&path, "bad column metadata"))?;
                    meta.insert(k.to_string(), v);
                }
                if !meta.is_empty() {
                    field = field.with_metadata(meta);
                }
                fields.push(field);
                distinct.push(d.parse().unwrap_or(1));
            }
            _ => {
                if let Some(g) = line.strip_prefix("generation ") {
                    generation = g.parse().map_err(|e| err(&path, e))?;
                } else if let Some(r) = line.strip_prefix("rows ") {
                    rows = r.parse().map_err(|e| err(&path, e))?;
                }
            }
        }
    }
    Ok(TableMeta {
        schema: Arc::new(Schema::new(fields)),
        rows,
        distinct,
        generation,
    })
}

pub fn data_path(dir: &Path, meta: &TableMeta) -> PathBuf {
    dir.join(format!("data-{}.bin", meta.generation))
}

/// Reads the table's batches, verifying the checksum.
pub fn read_table(dir: &Path) -> Result<(TableMeta, Vec<RecordBatch>)> {
    let meta = read_meta(dir)?;
    let path = data_path(dir, &meta);
    let mut bytes = Vec::new();
    File::open(&path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| err(&path, e))?;
    if bytes.len() < MAGIC.len() + 12 || &bytes[..8] != MAGIC {
        return Err(err(&path, "not a Quiver data file"));
    }
    let body = &bytes[..bytes.len() - 4];
    let stored = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().expect("4 bytes"));
    if crc32c::crc32c(body) != stored {
        return Err(err(&path, "checksum mismatch: the data file is damaged"));
    }
    let mut r = Reader {
        buf: body,
        pos: 8,
        path: &path,
    };
    let nbatches = r.u64()? as usize;
    let mut batches = Vec::with_capacity(nbatches);
    for _ in 0..nbatches {
        let rows = r.u64()? as usize;
        let cols = meta
            .schema
            .fields()
            .iter()
            .map(|f| read_column(&mut r, f.data_type(), rows))
            .collect::<Result<Vec<_>>>()?;
        batches.push(RecordBatch::try_new_with_options(
            meta.schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?);
    }
    Ok((meta, batches))
}

struct CrcWriter<W: Write> {
    inner: W,
    crc: u32,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc = crc32c::crc32c_append(self.crc, &buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn put(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(&(bytes.len() as u64).to_le_bytes())?;
    w.write_all(bytes)
}

fn bits_bytes(b: &BooleanBuffer) -> Vec<u8> {
    // Re-pack from offset 0 so the stored bitmap starts at bit 0.
    let mut out = vec![0u8; b.len().div_ceil(8)];
    for (i, v) in b.iter().enumerate() {
        if v {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

fn write_column(w: &mut impl Write, a: &ArrayRef) -> std::io::Result<()> {
    match a.logical_nulls().filter(|n| n.null_count() > 0) {
        Some(n) => {
            w.write_all(&[1])?;
            put(w, &bits_bytes(n.inner()))?;
        }
        None => w.write_all(&[0])?,
    }
    macro_rules! prim {
        ($t:ty) => {{
            let v = a.as_primitive::<$t>().values();
            let mut bytes = Vec::with_capacity(v.len() * 16);
            for x in v.iter() {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
            put(w, &bytes)
        }};
    }
    match a.data_type() {
        DataType::Int8 => prim!(Int8Type),
        DataType::Int16 => prim!(Int16Type),
        DataType::Int32 => prim!(Int32Type),
        DataType::Int64 => prim!(Int64Type),
        DataType::UInt8 => prim!(UInt8Type),
        DataType::UInt16 => prim!(UInt16Type),
        DataType::UInt32 => prim!(UInt32Type),
        DataType::UInt64 => prim!(UInt64Type),
        DataType::Float32 => prim!(Float32Type),
        DataType::Float64 => prim!(Float64Type),
        DataType::Decimal128(..) => prim!(Decimal128Type),
        DataType::Date32 => prim!(Date32Type),
        DataType::Timestamp(TimeUnit::Microsecond, _) => prim!(TimestampMicrosecondType),
        DataType::Boolean => put(w, &bits_bytes(a.as_boolean().values())),
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            let offs = s.value_offsets();
            let base = offs[0];
            let mut ob = Vec::with_capacity(offs.len() * 4);
            for o in offs {
                ob.extend_from_slice(&(o - base).to_le_bytes());
            }
            put(w, &ob)?;
            put(
                w,
                &s.value_data()[base as usize..offs[offs.len() - 1] as usize],
            )
        }
        DataType::Null => Ok(()),
        other => Err(std::io::Error::other(format!("cannot store type {other}"))),
    }
}

/// Estimated distinct values of each column (KMV sketch), as stored in the
/// manifest; also used for tables that live only in memory.
pub fn estimate_distinct(schema: &SchemaRef, batches: &[RecordBatch]) -> Vec<usize> {
    let mut sketches = vec![DistinctSketch::default(); schema.fields().len()];
    for b in batches {
        for (c, col) in b.columns().iter().enumerate() {
            sketch_column(col, &mut sketches[c]);
        }
    }
    sketches.iter().map(|s| s.estimate().max(1)).collect()
}

fn sketch_column(a: &ArrayRef, s: &mut DistinctSketch) {
    let mix = |mut h: u64| {
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51afd7ed558ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ceb9fe1a85ec53);
        h ^ (h >> 33)
    };
    let step = 1;
    macro_rules! prim {
        ($t:ty) => {{
            let v = a.as_primitive::<$t>().values();
            for i in (0..v.len()).step_by(step) {
                s.insert_hash(mix(v[i] as u64));
            }
        }};
    }
    match a.data_type() {
        DataType::Int8 => prim!(Int8Type),
        DataType::Int16 => prim!(Int16Type),
        DataType::Int32 => prim!(Int32Type),
        DataType::Int64 => prim!(Int64Type),
        DataType::UInt8 => prim!(UInt8Type),
        DataType::UInt16 => prim!(UInt16Type),
        DataType::UInt32 => prim!(UInt32Type),
        DataType::UInt64 => prim!(UInt64Type),
        DataType::Date32 => prim!(Date32Type),
        DataType::Timestamp(..) => prim!(TimestampMicrosecondType),
        DataType::Decimal128(..) => prim!(Decimal128Type),
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>().values();
            for i in (0..v.len()).step_by(step) {
                s.insert_hash(mix(v[i].to_bits()));
            }
        }
        DataType::Utf8 => {
            let v = a.as_string::<i32>();
            for i in (0..v.len()).step_by(step) {
                let mut h = 0xcbf29ce484222325u64;
                for b in v.value(i).as_bytes() {
                    h = (h ^ *b as u64).wrapping_mul(0x100000001b3);
                }
                s.insert_hash(mix(h));
            }
        }
        _ => {}
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.pos + n > self.buf.len() {
            return Err(err(self.path, "truncated data file"));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn chunk(&mut self) -> Result<&'a [u8]> {
        let n = self.u64()? as usize;
        self.take(n)
    }
}

fn bits(bytes: &[u8], len: usize) -> BooleanBuffer {
    BooleanBuffer::collect_bool(len, |i| {
        bytes.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)
    })
}

fn read_column(r: &mut Reader, t: &DataType, rows: usize) -> Result<ArrayRef> {
    let nulls = match r.take(1)?[0] {
        1 => Some(NullBuffer::new(bits(r.chunk()?, rows))),
        _ => None,
    };
    macro_rules! prim {
        ($t:ty, $n:ty) => {{
            let bytes = r.chunk()?;
            const W: usize = std::mem::size_of::<$n>();
            if bytes.len() != rows * W {
                return Err(err(r.path, "column length mismatch"));
            }
            let v: Vec<$n> = bytes
                .chunks_exact(W)
                .map(|c| <$n>::from_le_bytes(c.try_into().expect("width")))
                .collect();
            Arc::new(PrimitiveArray::<$t>::new(v.into(), nulls)) as ArrayRef
        }};
    }
    Ok(match t {
        DataType::Int8 => prim!(Int8Type, i8),
        DataType::Int16 => prim!(Int16Type, i16),
        DataType::Int32 => prim!(Int32Type, i32),
        DataType::Int64 => prim!(Int64Type, i64),
        DataType::UInt8 => prim!(UInt8Type, u8),
        DataType::UInt16 => prim!(UInt16Type, u16),
        DataType::UInt32 => prim!(UInt32Type, u32),
        DataType::UInt64 => prim!(UInt64Type, u64),
        DataType::Float32 => prim!(Float32Type, f32),
        DataType::Float64 => prim!(Float64Type, f64),
        DataType::Date32 => prim!(Date32Type, i32),
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            let a = prim!(TimestampMicrosecondType, i64);
            let _ = tz;
            a
        }
        DataType::Decimal128(p, s) => {
            let bytes = r.chunk()?;
            if bytes.len() != rows * 16 {
                return Err(err(r.path, "column length mismatch"));
            }
            let v: Vec<i128> = bytes
                .chunks_exact(16)
                .map(|c| i128::from_le_bytes(c.try_into().expect("16")))
                .collect();
            Arc::new(
                PrimitiveArray::<Decimal128Type>::new(v.into(), nulls)
                    .with_precision_and_scale(*p, *s)?,
            )
        }
        DataType::Boolean => Arc::new(BooleanArray::new(bits(r.chunk()?, rows), nulls)),
        DataType::Utf8 => {
            let ob = r.chunk()?;
            if ob.len() != (rows + 1) * 4 {
                return Err(err(r.path, "string offsets length mismatch"));
            }
            let offs: Vec<i32> = ob
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().expect("4")))
                .collect();
            let data = r.chunk()?;
            let offsets = OffsetBuffer::new(offs.into());
            Arc::new(
                StringArray::try_new(offsets, data.to_vec().into(), nulls)
                    .map_err(|e| err(r.path, e))?,
            )
        }
        DataType::Null => arrow_array::new_null_array(t, rows),
        other => return Err(err(r.path, format!("unsupported stored type {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Decimal128Array, Int64Array};

    #[test]
    fn round_trip_and_detect_damage() {
        let dir = std::env::temp_dir().join(format!("quiver-table-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Decimal128(15, 2), true),
        ]));
        let b = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])),
                Arc::new(StringArray::from(vec![Some("x"), Some(""), None])),
                Arc::new(
                    Decimal128Array::from(vec![Some(100), Some(-5), None])
                        .with_precision_and_scale(15, 2)
                        .unwrap(),
                ),
            ],
        )
        .unwrap();
        write_table(&dir, &schema, &[b.clone(), b.slice(1, 2)]).unwrap();
        let (meta, batches) = read_table(&dir).unwrap();
        assert_eq!(meta.rows, 5);
        assert_eq!(batches[0], b);
        assert_eq!(batches[1], b.slice(1, 2));
        // A second write switches generations and removes the old file.
        write_table(&dir, &schema, &[b.clone()]).unwrap();
        assert!(!dir.join("data-1.bin").exists());
        let path = dir.join("data-2.bin");
        let mut bytes = fs::read(&path).unwrap();
        bytes[20] ^= 0x40;
        fs::write(&path, bytes).unwrap();
        let e = read_table(&dir).unwrap_err();
        assert!(e.message.contains("checksum"), "{e}");
        let _ = fs::remove_dir_all(&dir);
    }
}
