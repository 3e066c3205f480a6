//! Reading format 1 data files (`QVRTBL01`: whole batches, length-prefixed
//! buffers, one CRC-32C over the file), so that a database written before
//! format 2 still opens. Nothing writes this format any more: the next write
//! of such a table (INSERT, load, ...) stores it in format 2.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    downcast_integer, types::*, ArrayRef, BooleanArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use quiver_common::Result;

use crate::errors::{corrupt, err};

pub const MAGIC: &[u8; 8] = b"QVRTBL01";

/// Reads and verifies a whole format 1 data file.
pub fn read_legacy(table: &str, path: &Path, schema: &SchemaRef) -> Result<Vec<RecordBatch>> {
    let bytes = std::fs::read(path).map_err(|e| err(path, e))?;
    if bytes.len() < MAGIC.len() + 12 || &bytes[..8] != MAGIC {
        return Err(corrupt(
            table,
            None,
            None,
            "data file truncated or not a Quiver data file",
        ));
    }
    let body = &bytes[..bytes.len() - 4];
    let stored = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().expect("4 bytes"));
    if crc32c::crc32c(body) != stored {
        return Err(corrupt(
            table,
            None,
            None,
            "checksum mismatch in the (format 1) data file",
        ));
    }
    let mut r = Reader {
        buf: body,
        pos: 8,
        path,
    };
    let nbatches = r.u64()? as usize;
    let mut batches = Vec::with_capacity(nbatches.min(1 << 20));
    for _ in 0..nbatches {
        let rows = r.u64()? as usize;
        let cols = schema
            .fields()
            .iter()
            .map(|f| read_column(&mut r, f.data_type(), rows))
            .collect::<Result<Vec<_>>>()?;
        batches.push(RecordBatch::try_new_with_options(
            schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?);
    }
    Ok(batches)
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
        ($t:ty) => {{
            type N = <$t as ArrowPrimitiveType>::Native;
            let bytes = r.chunk()?;
            const W: usize = std::mem::size_of::<N>();
            if bytes.len() != rows * W {
                return Err(err(r.path, "column length mismatch"));
            }
            let v: Vec<N> = bytes
                .chunks_exact(W)
                .map(|c| N::from_le_bytes(c.try_into().expect("width")))
                .collect();
            Arc::new(PrimitiveArray::<$t>::new(v.into(), nulls)) as ArrayRef
        }};
    }
    Ok(downcast_integer! {
        t => (prim),
        DataType::Float32 => prim!(Float32Type),
        DataType::Float64 => prim!(Float64Type),
        DataType::Date32 => prim!(Date32Type),
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            let a = prim!(TimestampMicrosecondType);
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
