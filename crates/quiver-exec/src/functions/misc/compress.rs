//! COMPRESS(str), UNCOMPRESS(str) and UNCOMPRESSED_LENGTH(str) as MariaDB
//! 10.11: a zlib stream (default level) after the uncompressed length in 4
//! little-endian bytes (its top 2 bits cleared), a '.' appended when the
//! stream ends in a space (so CHAR columns keep it), and the empty string
//! for the empty string. Corrupt input is NULL with warning 1259 (1258
//! when the stated length is too short, 1256 when it is over the largest
//! result).

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{Array, BinaryArray, Int64Array};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::DataType;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, DeclaredString, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::super::string::{bytes_of, string_arg};
use crate::warnings::{raise_with, Level};

/// MariaDB's cap on an uncompressed result (its `max_allowed_packet`,
/// 256 MiB on the reference server).
const MAX_UNCOMPRESSED: u32 = 256 << 20;

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Compress,
    Uncompress,
    UncompressedLength,
}

pub struct Zlib(Op);

pub static COMPRESS: Zlib = Zlib(Op::Compress);
pub static UNCOMPRESS: Zlib = Zlib(Op::Uncompress);
pub static UNCOMPRESSED_LENGTH: Zlib = Zlib(Op::UncompressedLength);

fn corrupted() {
    raise_with(Level::Warning, 1259, || "ZLIB: Input data corrupted".into());
}

/// The stated length of a compressed value, or None (with MariaDB's
/// warning) when it is too short to hold one.
fn stated_len(v: &[u8]) -> Option<u32> {
    if v.len() <= 4 {
        corrupted();
        return None;
    }
    Some(u32::from_le_bytes([v[0], v[1], v[2], v[3]]) & 0x3FFF_FFFF)
}

/// Appends COMPRESS(`v`) to `out`.
fn compress_into(z: &mut Compress, v: &[u8], out: &mut Vec<u8>) -> Result<()> {
    if v.is_empty() {
        return Ok(());
    }
    out.extend_from_slice(&((v.len() as u32) & 0x3FFF_FFFF).to_le_bytes());
    z.reset();
    // zlib's compressBound: one call finishes the stream.
    out.reserve(v.len() + (v.len() >> 12) + (v.len() >> 14) + (v.len() >> 25) + 13 + 6);
    match z.compress_vec(v, out, FlushCompress::Finish) {
        Ok(Status::StreamEnd) => {}
        _ => return Err(QuiverError::internal("zlib compression did not finish")),
    }
    if out.last() == Some(&b' ') {
        out.push(b'.');
    }
    Ok(())
}

/// Appends UNCOMPRESS(`v`) to `out`; false (with MariaDB's warning) for
/// corrupt input.
fn uncompress_into(z: &mut Decompress, v: &[u8], out: &mut Vec<u8>) -> bool {
    if v.is_empty() {
        return true;
    }
    let Some(len) = stated_len(v) else {
        return false;
    };
    if len > MAX_UNCOMPRESSED {
        raise_with(Level::Warning, 1256, || {
            format!(
                "Uncompressed data size too large; the maximum size is {MAX_UNCOMPRESSED} \
                 (probably, length of uncompressed data was corrupted)"
            )
        });
        return false;
    }
    let start = out.len();
    // zlib's uncompress() with an empty buffer inflates into one spare
    // byte: output then is corrupt data, not a short buffer.
    let room = (len as usize).max(1);
    out.resize(start + room, 0);
    z.reset(true);
    let status = z.decompress(&v[4..], &mut out[start..], FlushDecompress::Finish);
    let produced = z.total_out() as usize;
    match status {
        Ok(Status::StreamEnd) if produced <= len as usize => {
            out.truncate(start + produced);
            true
        }
        Ok(_) if len > 0 && produced == room => {
            out.truncate(start);
            raise_with(Level::Warning, 1258, || {
                "ZLIB: Not enough room in the output buffer (probably, length of \
                 uncompressed data was corrupted)"
                    .into()
            });
            false
        }
        _ => {
            out.truncate(start);
            corrupted();
            false
        }
    }
}

impl ScalarFunction for Zlib {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Compress => "compress",
            Op::Uncompress => "uncompress",
            Op::UncompressedLength => "uncompressed_length",
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![string_arg(&self.name().to_uppercase(), &args[0])?])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(match self.0 {
            Op::UncompressedLength => DataType::Int64,
            _ => DataType::Binary,
        }))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        (self.0 == Op::UncompressedLength).then_some(IntWidth::Fixed(IntKind::Long, 10))
    }

    /// COMPRESS: MariaDB's bound of 120% of the argument's bytes (utf8mb4
    /// text at 4 a character) plus 12.
    fn max_chars(&self, args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        if self.0 != Op::Compress {
            return None;
        }
        let per_char = if matches!(args[0].data_type, DataType::Binary | DataType::Null) {
            1
        } else {
            4
        };
        let bytes = if args[0].is_null() {
            0
        } else {
            chars[0]? * per_char
        };
        Some(bytes * 120 / 100 + 12)
    }

    fn declared_string(&self) -> Option<DeclaredString> {
        (self.0 == Op::Uncompress).then_some(DeclaredString::Long)
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let data = bytes_of(a.arg(0)?)?;
        let out: Arc<dyn Array> = match self.0 {
            Op::UncompressedLength => Arc::new(
                (0..a.rows)
                    .map(|i| {
                        if !data.is_valid(i) {
                            return None;
                        }
                        let v = data.value(i);
                        if v.is_empty() {
                            Some(0)
                        } else {
                            stated_len(v).map(i64::from)
                        }
                    })
                    .collect::<Int64Array>(),
            ),
            Op::Compress | Op::Uncompress => {
                let mut values = Vec::new();
                let mut offsets = Vec::with_capacity(a.rows + 1);
                offsets.push(0i32);
                let mut nulls = Vec::with_capacity(a.rows);
                let mut deflate = Compress::new(Compression::default(), true);
                let mut inflate = Decompress::new(true);
                for i in 0..a.rows {
                    let ok = data.is_valid(i)
                        && match self.0 {
                            Op::Compress => {
                                compress_into(&mut deflate, data.value(i), &mut values)?;
                                true
                            }
                            _ => uncompress_into(&mut inflate, data.value(i), &mut values),
                        };
                    nulls.push(ok);
                    offsets.push(i32::try_from(values.len()).map_err(|_| {
                        QuiverError::internal("COMPRESS result over 2 GiB in one batch")
                    })?);
                }
                let nulls = NullBuffer::from(nulls);
                let nulls = (nulls.null_count() > 0).then_some(nulls);
                Arc::new(BinaryArray::new(
                    OffsetBuffer::new(offsets.into()),
                    values.into(),
                    nulls,
                ))
            }
        };
        a.finish(out, call.data_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_mariadb_bytes() {
        let mut z = Compress::new(Compression::default(), true);
        let mut out = Vec::new();
        compress_into(&mut z, b"a", &mut out).unwrap();
        // MariaDB 10.11: HEX(COMPRESS('a')).
        assert_eq!(
            out,
            [1, 0, 0, 0, 0x78, 0x9C, 0x4B, 0x04, 0, 0, 0x62, 0, 0x62]
        );
        let mut d = Decompress::new(true);
        let mut back = Vec::new();
        assert!(uncompress_into(&mut d, &out, &mut back));
        assert_eq!(back, b"a");
    }
}
