//! Pages: the unit of checksumming, encoding and zone maps (format 2).
//!
//! A page is a fixed 48-byte header, a statistics block (min/max for zone maps)
//! and a body; a CRC-32C over all of it (except the CRC field itself) sits in
//! the header. See docs/STORAGE.md for the byte layout. Nothing here trusts a
//! page before its CRC has been checked, and nothing panics on a page whose CRC
//! matches but whose contents are inconsistent (a forged file): every length is
//! checked against the buffer it indexes.

use std::sync::Arc;

use arrow_array::{
    cast::AsArray, downcast_integer, types::*, Array, ArrayRef, BinaryArray, BooleanArray,
    PrimitiveArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, TimeUnit};
use quiver_common::ScalarValue;

use crate::sketch::DistinctSketch;
use quiver_collation::{with_collator, Collation, Collator, RowShape};

pub const PAGE_MAGIC: &[u8; 4] = b"QVPG";
pub const FORMAT_VERSION: u8 = 2;
pub const HEADER_LEN: usize = 48;
const CRC_AT: usize = 44;
/// Bytes of a string kept as a zone-map bound.
pub const STRING_BOUND_BYTES: usize = 32;
/// Bytes of a normalized key kept as a zone-map bound under a collation
/// (a key spends two bytes on a space, so more than a string bound).
pub const KEY_BOUND_BYTES: usize = 48;
/// Largest body a page may declare (a row group of 64K rows stays far below).
const MAX_BODY: usize = 1 << 31;

pub const KIND_DATA: u8 = 1;
pub const KIND_DIRECTORY: u8 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Values as they are in memory, little-endian; strings as offsets + bytes.
    Plain = 0,
    /// Integers as unsigned offsets from the page minimum, bit-packed.
    FrameOfReference = 1,
    /// Strings as a dictionary of distinct values and bit-packed indices.
    Dictionary = 2,
}

/// Compression of a page body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None = 0,
    Lz4 = 1,
    Zstd = 2,
}

impl Compression {
    pub fn parse(s: &str) -> Option<Compression> {
        match s.to_ascii_lowercase().as_str() {
            "none" | "off" => Some(Compression::None),
            "lz4" => Some(Compression::Lz4),
            "zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }
    fn from_u8(v: u8) -> Option<Compression> {
        match v {
            0 => Some(Compression::None),
            1 => Some(Compression::Lz4),
            2 => Some(Compression::Zstd),
            _ => None,
        }
    }
}

/// The fixed header of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageHeader {
    pub kind: u8,
    pub encoding: u8,
    pub compression: u8,
    /// Column index in the table (u32::MAX for the directory).
    pub column: u32,
    /// Page number within the column (= row group index).
    pub page: u32,
    pub rows: u32,
    pub null_count: u32,
    pub uncompressed: u32,
    pub stored: u32,
    pub stats_len: u16,
    pub type_tag: u8,
    pub first_row: u64,
    pub crc: u32,
}

impl PageHeader {
    pub fn total_len(&self) -> usize {
        HEADER_LEN + self.stats_len as usize + self.stored as usize
    }

    fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..4].copy_from_slice(PAGE_MAGIC);
        b[4] = FORMAT_VERSION;
        b[5] = self.kind;
        b[6] = self.encoding;
        b[7] = self.compression;
        b[8..12].copy_from_slice(&self.column.to_le_bytes());
        b[12..16].copy_from_slice(&self.page.to_le_bytes());
        b[16..20].copy_from_slice(&self.rows.to_le_bytes());
        b[20..24].copy_from_slice(&self.null_count.to_le_bytes());
        b[24..28].copy_from_slice(&self.uncompressed.to_le_bytes());
        b[28..32].copy_from_slice(&self.stored.to_le_bytes());
        b[32..34].copy_from_slice(&self.stats_len.to_le_bytes());
        b[34] = 0;
        b[35] = self.type_tag;
        b[36..44].copy_from_slice(&self.first_row.to_le_bytes());
        b[44..48].copy_from_slice(&self.crc.to_le_bytes());
        b
    }

    /// Parses a header; the CRC is not checked here.
    pub fn parse(b: &[u8]) -> Result<PageHeader, String> {
        if b.len() < HEADER_LEN {
            return Err("truncated page header".into());
        }
        if &b[0..4] != PAGE_MAGIC {
            return Err("bad page magic".into());
        }
        if b[4] != FORMAT_VERSION {
            return Err(format!("unknown page format version {}", b[4]));
        }
        let u32at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let h = PageHeader {
            kind: b[5],
            encoding: b[6],
            compression: b[7],
            column: u32at(8),
            page: u32at(12),
            rows: u32at(16),
            null_count: u32at(20),
            uncompressed: u32at(24),
            stored: u32at(28),
            stats_len: u16::from_le_bytes([b[32], b[33]]),
            type_tag: b[35],
            first_row: u64::from_le_bytes(b[36..44].try_into().expect("8 bytes")),
            crc: u32at(44),
        };
        Ok(h)
    }
}

/// CRC-32C of a whole page with the CRC field left out.
pub fn page_crc(page: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&page[..CRC_AT]), &page[HEADER_LEN..])
}

/// Checks that `bytes` starts with a complete page whose CRC matches; returns
/// its header. The reason is a short phrase for an error message.
pub fn verify_page(bytes: &[u8]) -> Result<PageHeader, String> {
    let h = PageHeader::parse(bytes)?;
    let len = h.total_len();
    if bytes.len() < len {
        return Err("page truncated".into());
    }
    if page_crc(&bytes[..len]) != h.crc {
        return Err("checksum mismatch".into());
    }
    Ok(h)
}

/// Assembles a page from its parts and fills in the CRC.
pub fn build_page(mut header: PageHeader, stats: &[u8], body: &[u8]) -> Vec<u8> {
    header.stats_len = stats.len() as u16;
    header.stored = body.len() as u32;
    header.crc = 0;
    let mut out = Vec::with_capacity(HEADER_LEN + stats.len() + body.len());
    out.extend_from_slice(&header.to_bytes());
    out.extend_from_slice(stats);
    out.extend_from_slice(body);
    let crc = page_crc(&out);
    out[CRC_AT..HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
    out
}

/// A stable tag per stored type, kept in each page header so that a page
/// decoded under the wrong column type is refused instead of misread.
pub fn type_tag(t: &DataType) -> Option<u8> {
    Some(match t {
        DataType::Boolean => 1,
        DataType::Int8 => 2,
        DataType::Int16 => 3,
        DataType::Int32 => 4,
        DataType::Int64 => 5,
        DataType::UInt8 => 6,
        DataType::UInt16 => 7,
        DataType::UInt32 => 8,
        DataType::UInt64 => 9,
        DataType::Float32 => 10,
        DataType::Float64 => 11,
        DataType::Decimal128(..) => 12,
        DataType::Date32 => 13,
        DataType::Timestamp(TimeUnit::Microsecond, _) => 14,
        DataType::Utf8 => 15,
        DataType::Binary => 16,
        DataType::Null => 17,
        DataType::Decimal256(..) => 18,
        // TIME(fsp): microseconds (the fsp is in the manifest's type name).
        DataType::Decimal64(..) => 19,
        _ => return None,
    })
}

/// Min/max of a page's non-null values in their stored form (little-endian
/// native bytes; a string's bytes, possibly cut to a prefix).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawStats {
    pub min: Option<Vec<u8>>,
    pub max: Option<Vec<u8>>,
    /// `max` is a prefix of the largest value, not the value itself.
    pub max_is_prefix: bool,
    /// Bounds of a string page under the column's collation, when that
    /// collation does not order by bytes.
    pub collated: Option<CollatedStats>,
    /// A text page's row shape: the most trailing spaces of any value and
    /// whether all bytes are ASCII (lets PAD SPACE and `_ci` equality rule
    /// rows out by length alone).
    pub shape: Option<RowShape>,
}

/// Min/max of a string page under a collation whose order is not byte
/// order (`utf8mb4_general_ci`, ...), as the collation's normalized keys
/// (`Collator::normalized_key`: `memcmp` order is the collation's order and
/// equal keys are equal strings), so that zone maps can decide `col = c`
/// under that collation by comparing bytes. Either bound may be cut to
/// [`KEY_BOUND_BYTES`]: a cut min is still at most every key, and a cut max
/// is at least the first bytes of every key (`max_is_prefix`).
#[derive(Debug, Clone, PartialEq)]
pub struct CollatedStats {
    /// MariaDB's id of the collation.
    pub collation_id: u16,
    pub min: Vec<u8>,
    pub max: Vec<u8>,
    pub max_is_prefix: bool,
}

impl RawStats {
    /// `flags u8 | min_len u8 | min | max_len u8 | max`; flags bit 0 = has
    /// min/max, bit 1 = max is a prefix, bit 2 = collated bounds follow
    /// (after min/max when bit 0 is set): `collation id u16 | flags u8 (bit
    /// 0 = max is a prefix) | min_len u8 | min | max_len u8 | max`; bit 3 =
    /// the row shape follows: `most trailing spaces u16 (0xFFFF: that many
    /// or more) | flags u8 (bit 0 = all ASCII)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0];
        if let (Some(min), Some(max)) = (&self.min, &self.max) {
            out[0] = 1 | if self.max_is_prefix { 2 } else { 0 };
            out.push(min.len() as u8);
            out.extend_from_slice(min);
            out.push(max.len() as u8);
            out.extend_from_slice(max);
        }
        if let Some(k) = &self.collated {
            out[0] |= 4;
            out.extend_from_slice(&k.collation_id.to_le_bytes());
            out.push(u8::from(k.max_is_prefix));
            out.push(k.min.len() as u8);
            out.extend_from_slice(&k.min);
            out.push(k.max.len() as u8);
            out.extend_from_slice(&k.max);
        }
        if let Some(shape) = &self.shape {
            out[0] |= 8;
            let most = shape
                .max_trailing_spaces
                .and_then(|m| u16::try_from(m).ok())
                .unwrap_or(u16::MAX);
            out.extend_from_slice(&most.to_le_bytes());
            out.push(u8::from(shape.ascii));
        }
        out
    }

    pub fn parse(b: &[u8]) -> Option<RawStats> {
        let flags = *b.first()?;
        let mut at = 1;
        let mut bytes = |n: usize| -> Option<&[u8]> {
            let s = b.get(at..at + n)?;
            at += n;
            Some(s)
        };
        let mut out = RawStats::default();
        if flags & 1 != 0 {
            let min_len = bytes(1)?[0] as usize;
            out.min = Some(bytes(min_len)?.to_vec());
            let max_len = bytes(1)?[0] as usize;
            out.max = Some(bytes(max_len)?.to_vec());
            out.max_is_prefix = flags & 2 != 0;
        }
        if flags & 4 != 0 {
            let id = bytes(2)?;
            let collation_id = u16::from_le_bytes([id[0], id[1]]);
            let max_is_prefix = bytes(1)?[0] & 1 != 0;
            let min_len = bytes(1)?[0] as usize;
            let min = bytes(min_len)?.to_vec();
            let max_len = bytes(1)?[0] as usize;
            let max = bytes(max_len)?.to_vec();
            out.collated = Some(CollatedStats {
                collation_id,
                min,
                max,
                max_is_prefix,
            });
        }
        if flags & 8 != 0 {
            let most = bytes(2)?;
            let most = u16::from_le_bytes([most[0], most[1]]);
            out.shape = Some(RowShape {
                max_trailing_spaces: (most != u16::MAX).then_some(usize::from(most)),
                ascii: bytes(1)?[0] & 1 != 0,
            });
        }
        Some(out)
    }

    /// The bounds as typed values (None where the type has no zone map).
    pub fn to_scalars(&self, t: &DataType) -> (Option<ScalarValue>, Option<ScalarValue>) {
        let conv = |b: &Option<Vec<u8>>| -> Option<ScalarValue> {
            let b = b.as_deref()?;
            let i64_of = |n: usize| -> Option<i64> {
                let mut a = [0u8; 8];
                let s = b.get(..n)?;
                a[..n].copy_from_slice(s);
                // Sign-extend from n bytes.
                let shift = 64 - 8 * n as u32;
                Some((i64::from_le_bytes(a) << shift) >> shift)
            };
            Some(match t {
                DataType::Int8 => ScalarValue::Int64(i64_of(1)?),
                DataType::Int16 => ScalarValue::Int64(i64_of(2)?),
                DataType::Int32 => ScalarValue::Int64(i64_of(4)?),
                DataType::Int64 => ScalarValue::Int64(i64_of(8)?),
                DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
                    let mut a = [0u8; 8];
                    a[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
                    ScalarValue::UInt64(u64::from_le_bytes(a))
                }
                DataType::Date32 => ScalarValue::Date(i64_of(4)? as i32),
                DataType::Timestamp(..) => ScalarValue::DateTime(
                    i64_of(8)?,
                    quiver_common::types::datetime_fsp(t).unwrap_or(0),
                ),
                DataType::Decimal64(..) => {
                    ScalarValue::Time(i64_of(8)?, quiver_common::types::time_fsp(t).unwrap_or(0))
                }
                DataType::Decimal128(p, s) => {
                    ScalarValue::decimal(i128::from_le_bytes(b.try_into().ok()?), *p, *s)
                }
                DataType::Float64 => ScalarValue::Float64(f64::from_le_bytes(b.try_into().ok()?)),
                DataType::Utf8 => ScalarValue::Utf8(String::from_utf8(b.to_vec()).ok()?),
                DataType::Binary => ScalarValue::Binary(b.to_vec()),
                _ => return None,
            })
        };
        (conv(&self.min), conv(&self.max))
    }
}

/// A page encoded for writing, with what the directory and the manifest keep.
pub struct EncodedPage {
    pub bytes: Vec<u8>,
    pub null_count: u32,
    pub stats: RawStats,
    pub sketch: DistinctSketch,
}

fn bitmap_bytes(b: &BooleanBuffer) -> Vec<u8> {
    let mut out = b.sliced().as_slice()[..b.len().div_ceil(8)].to_vec();
    // Bits past the end are zero, so the same data always gives the same file.
    if !b.len().is_multiple_of(8) {
        if let Some(last) = out.last_mut() {
            *last &= (1u8 << (b.len() % 8)) - 1;
        }
    }
    out
}

fn bits_needed(range: u128) -> u32 {
    128 - range.leading_zeros()
}

/// Bit-packs `values` (each below 2^width) LSB first into 64-bit words.
fn pack_bits(values: impl Iterator<Item = u64>, rows: usize, width: u32, out: &mut Vec<u8>) {
    if width == 0 {
        return;
    }
    let w = width as usize;
    let mut words = vec![0u64; (rows * w).div_ceil(64)];
    for (i, v) in values.enumerate() {
        let bit = i * w;
        let (k, shift) = (bit / 64, bit % 64);
        words[k] |= v << shift;
        if shift + w > 64 {
            words[k + 1] |= v >> (64 - shift);
        }
    }
    out.reserve(words.len() * 8);
    for word in words {
        out.extend_from_slice(&word.to_le_bytes());
    }
}

/// Unpacks `rows` values of `width` bits, calling `f(value)` in order.
fn unpack_bits(
    bytes: &[u8],
    rows: usize,
    width: u32,
    mut f: impl FnMut(u64),
) -> Result<(), String> {
    if width > 64 {
        return Err(format!("bit width {width} out of range"));
    }
    if width == 0 {
        (0..rows).for_each(|_| f(0));
        return Ok(());
    }
    let w = width as usize;
    let nwords = (rows * w).div_ceil(64);
    if bytes.len() != nwords * 8 {
        return Err("bit-packed values have the wrong length".into());
    }
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    for i in 0..rows {
        let bit = i * w;
        let (k, shift) = (bit / 64, bit % 64);
        let mut v = words[k] >> shift;
        if shift + w > 64 {
            v |= words[k + 1] << (64 - shift);
        }
        f(v & mask);
    }
    Ok(())
}

fn mix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ceb9fe1a85ec53);
    h ^ (h >> 33)
}

fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = 0xcbf29ce484222325u64;
    for x in b {
        h = (h ^ *x as u64).wrapping_mul(0x100000001b3);
    }
    mix64(h)
}

/// Adds an array's non-null values to a distinct-count sketch, hashed as
/// [`encode_page`] hashes them (for tables that are never written).
pub fn sketch_array(array: &ArrayRef, sketch: &mut DistinctSketch) {
    let nulls = array.logical_nulls();
    let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
    macro_rules! integral {
        ($t:ty) => {{
            for (i, v) in array.as_primitive::<$t>().values().iter().enumerate() {
                if valid(i) {
                    let x = *v as i128;
                    sketch.insert_hash(mix64(x as u64 ^ (x >> 64) as u64));
                }
            }
        }};
    }
    downcast_integer! {
        array.data_type() => (integral),
        DataType::Date32 => integral!(Date32Type),
        DataType::Timestamp(TimeUnit::Microsecond, _) => integral!(TimestampMicrosecondType),
        DataType::Decimal64(..) => integral!(Decimal64Type),
        DataType::Decimal128(..) => integral!(Decimal128Type),
        DataType::Decimal256(..) => {
            for (i, v) in array
                .as_primitive::<Decimal256Type>()
                .values()
                .iter()
                .enumerate()
            {
                if valid(i) {
                    let (lo, hi) = v.to_parts();
                    sketch.insert_hash(mix64(lo as u64 ^ (lo >> 64) as u64 ^ hi as u64));
                }
            }
        }
        DataType::Float64 => {
            for (i, v) in array
                .as_primitive::<Float64Type>()
                .values()
                .iter()
                .enumerate()
            {
                if valid(i) {
                    sketch.insert_hash(mix64(v.to_bits()));
                }
            }
        }
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            for i in 0..a.len() {
                if valid(i) {
                    sketch.insert_hash(hash_bytes(a.value(i).as_bytes()));
                }
            }
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            for i in 0..a.len() {
                if valid(i) {
                    sketch.insert_hash(hash_bytes(a.value(i)));
                }
            }
        }
        _ => {}
    }
}

/// Encodes one column's values of one row group as a data page.
pub fn encode_page(
    array: &ArrayRef,
    column: u32,
    page: u32,
    first_row: u64,
    compression: Compression,
) -> Result<EncodedPage, String> {
    encode_page_collated(array, column, page, first_row, compression, None)
}

/// [`encode_page`] for a string column whose collation does not order by
/// bytes (`collation`, else `None`): the page also gets that collation's
/// bounds ([`CollatedStats`]).
pub fn encode_page_collated(
    array: &ArrayRef,
    column: u32,
    page: u32,
    first_row: u64,
    compression: Compression,
    collation: Option<Collation>,
) -> Result<EncodedPage, String> {
    let rows = array.len();
    let tag = type_tag(array.data_type())
        .ok_or_else(|| format!("cannot store a column of type {}", array.data_type()))?;
    let nulls = array.logical_nulls().filter(|n| n.null_count() > 0);
    let null_count = nulls.as_ref().map_or(0, |n| n.null_count());
    let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
    let mut body = Vec::new();
    if let Some(n) = &nulls {
        body.extend_from_slice(&bitmap_bytes(n.inner()));
    }
    let mut stats = RawStats::default();
    let mut sketch = DistinctSketch::default();
    let mut encoding = Encoding::Plain;

    // Integer-like columns: frame of reference + bit-packing when the range
    // of the page needs fewer bits than the type, else plain.
    macro_rules! integral {
        ($t:ty) => {{
            type N = <$t as ArrowPrimitiveType>::Native;
            let values = array.as_primitive::<$t>().values();
            let mut lo = i128::MAX;
            let mut hi = i128::MIN;
            for (i, v) in values.iter().enumerate() {
                if valid(i) {
                    let x = *v as i128;
                    lo = lo.min(x);
                    hi = hi.max(x);
                    sketch.insert_hash(mix64(x as u64 ^ (x >> 64) as u64));
                }
            }
            if lo <= hi {
                stats.min = Some((lo as N).to_le_bytes().to_vec());
                stats.max = Some((hi as N).to_le_bytes().to_vec());
            } else {
                lo = 0;
                hi = 0;
            }
            let width = bits_needed(hi.wrapping_sub(lo) as u128);
            // Fewer bits than the type, and at most 64 (deltas are u64).
            if width < N::BITS.min(65) {
                encoding = Encoding::FrameOfReference;
                body.extend_from_slice(&lo.to_le_bytes());
                body.push(width as u8);
                body.extend_from_slice(&[0u8; 7]);
                let deltas = values.iter().enumerate().map(|(i, v)| {
                    if valid(i) {
                        (*v as i128).wrapping_sub(lo) as u64
                    } else {
                        0
                    }
                });
                pack_bits(deltas, rows, width, &mut body);
            } else {
                body.reserve(rows * std::mem::size_of::<N>());
                for v in values.iter() {
                    body.extend_from_slice(&v.to_le_bytes());
                }
            }
        }};
    }
    downcast_integer! {
        array.data_type() => (integral),
        DataType::Date32 => integral!(Date32Type),
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            integral!(TimestampMicrosecondType)
        }
        DataType::Decimal64(..) => integral!(Decimal64Type),
        DataType::Decimal128(..) => integral!(Decimal128Type),
        // DECIMAL(39..65): plain 32-byte values, without zone-map bounds.
        DataType::Decimal256(..) => {
            for (i, v) in array
                .as_primitive::<Decimal256Type>()
                .values()
                .iter()
                .enumerate()
            {
                if valid(i) {
                    let (lo, hi) = v.to_parts();
                    sketch.insert_hash(mix64(lo as u64 ^ (lo >> 64) as u64 ^ hi as u64));
                }
                body.extend_from_slice(&v.to_le_bytes());
            }
        }
        DataType::Float32 => {
            for v in array.as_primitive::<Float32Type>().values().iter() {
                body.extend_from_slice(&v.to_le_bytes());
            }
        }
        DataType::Float64 => {
            let values = array.as_primitive::<Float64Type>().values();
            let (mut lo, mut hi, mut nan) = (f64::INFINITY, f64::NEG_INFINITY, false);
            for (i, v) in values.iter().enumerate() {
                if valid(i) {
                    nan |= v.is_nan();
                    lo = lo.min(*v);
                    hi = hi.max(*v);
                    sketch.insert_hash(mix64(v.to_bits()));
                }
                body.extend_from_slice(&v.to_le_bytes());
            }
            if !nan && lo <= hi {
                stats.min = Some(lo.to_le_bytes().to_vec());
                stats.max = Some(hi.to_le_bytes().to_vec());
            }
        }
        DataType::Boolean => body.extend_from_slice(&bitmap_bytes(array.as_boolean().values())),
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            let offsets = a.value_offsets();
            let data = &a.value_data()[offsets[0] as usize..offsets[rows] as usize];
            encoding = encode_strings(
                |i| a.value(i).as_bytes(),
                offsets,
                data,
                rows,
                &valid,
                &mut body,
                &mut sketch,
            );
            stats = string_stats(|i| a.value(i).as_bytes(), rows, &valid, true);
            stats.shape = Some(row_shape(offsets, data));
            if let Some(c) = collation {
                stats.collated = collated_stats(|i| a.value(i).as_bytes(), rows, &valid, c);
            }
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            let offsets = a.value_offsets();
            let data = &a.value_data()[offsets[0] as usize..offsets[rows] as usize];
            encoding = encode_strings(
                |i| a.value(i),
                offsets,
                data,
                rows,
                &valid,
                &mut body,
                &mut sketch,
            );
            stats = string_stats(|i| a.value(i), rows, &valid, false);
        }
        DataType::Null => {}
        other => return Err(format!("cannot store a column of type {other}")),
    }
    if body.len() >= MAX_BODY {
        return Err("page too large".into());
    }
    let uncompressed = body.len();
    let (stored, comp) = compress(body, compression);
    let header = PageHeader {
        kind: KIND_DATA,
        encoding: encoding as u8,
        compression: comp as u8,
        column,
        page,
        rows: rows as u32,
        null_count: null_count as u32,
        uncompressed: uncompressed as u32,
        stored: 0,
        stats_len: 0,
        type_tag: tag,
        first_row,
        crc: 0,
    };
    Ok(EncodedPage {
        bytes: build_page(header, &stats.to_bytes(), &stored),
        null_count: null_count as u32,
        stats,
        sketch,
    })
}

/// Compresses a body when that saves at least an eighth of it; otherwise the
/// body is stored as it is (decompression is not free on every first read).
fn compress(body: Vec<u8>, compression: Compression) -> (Vec<u8>, Compression) {
    let packed = match compression {
        Compression::None => return (body, Compression::None),
        Compression::Lz4 => lz4_flex::block::compress(&body),
        Compression::Zstd => match zstd::bulk::compress(&body, 3) {
            Ok(p) => p,
            Err(_) => return (body, Compression::None),
        },
    };
    if packed.len() + body.len() / 8 <= body.len() {
        (packed, compression)
    } else {
        (body, Compression::None)
    }
}

/// Strings: a dictionary when it is smaller than offsets + bytes, else plain.
fn encode_strings<'a>(
    value: impl Fn(usize) -> &'a [u8],
    offsets: &[i32],
    data: &[u8],
    rows: usize,
    valid: &dyn Fn(usize) -> bool,
    body: &mut Vec<u8>,
    sketch: &mut DistinctSketch,
) -> Encoding {
    let plain_size = 4 * (rows + 1) + data.len();
    // Give up on a dictionary as soon as it has more entries than a quarter
    // of the rows: it could no longer beat plain by much.
    let limit = (rows / 4).max(16);
    // hashbrown's default hasher (foldhash): several times faster than SipHash
    // on short strings, and this runs once per row of every string column.
    let mut dict: hashbrown::HashMap<&[u8], u32> = Default::default();
    let mut entries: Vec<&[u8]> = Vec::new();
    let mut indices: Vec<u32> = Vec::with_capacity(rows);
    let mut dict_ok = true;
    for i in 0..rows {
        if !valid(i) {
            indices.push(0);
            continue;
        }
        let v = value(i);
        let next = entries.len() as u32;
        let idx = *dict.entry(v).or_insert_with(|| {
            entries.push(v);
            next
        });
        if entries.len() > limit {
            dict_ok = false;
            break;
        }
        indices.push(idx);
    }
    if dict_ok {
        for e in &entries {
            sketch.insert_hash(hash_bytes(e));
        }
        let width = bits_needed(entries.len().saturating_sub(1) as u128);
        let dict_bytes: usize = entries.iter().map(|e| e.len()).sum();
        let dict_size = 8 + 4 * (entries.len() + 1) + dict_bytes + (rows * width as usize) / 8;
        if dict_size < plain_size {
            body.extend_from_slice(&(entries.len() as u32).to_le_bytes());
            body.push(width as u8);
            body.extend_from_slice(&[0u8; 3]);
            let mut off = 0u32;
            body.extend_from_slice(&off.to_le_bytes());
            for e in &entries {
                off += e.len() as u32;
                body.extend_from_slice(&off.to_le_bytes());
            }
            for e in &entries {
                body.extend_from_slice(e);
            }
            pack_bits(indices.iter().map(|&i| i as u64), rows, width, body);
            return Encoding::Dictionary;
        }
    } else {
        for i in 0..rows {
            if valid(i) {
                sketch.insert_hash(hash_bytes(value(i)));
            }
        }
    }
    let base = offsets[0];
    body.reserve(plain_size);
    for o in offsets {
        body.extend_from_slice(&((o - base) as u32).to_le_bytes());
    }
    body.extend_from_slice(data);
    Encoding::Plain
}

/// Byte-order min/max of a page's strings. Text (`utf8`) keeps them only
/// when every byte of the page is at least 0x20: then byte order refines
/// PAD SPACE order, so the bounds also hold under utf8mb4_bin (see
/// docs/STORAGE.md, zone maps). Binary strings compare as plain bytes and
/// keep them always.
fn string_stats<'a>(
    value: impl Fn(usize) -> &'a [u8],
    rows: usize,
    valid: &dyn Fn(usize) -> bool,
    utf8: bool,
) -> RawStats {
    let mut min: Option<&[u8]> = None;
    let mut max: Option<&[u8]> = None;
    for i in 0..rows {
        if !valid(i) {
            continue;
        }
        let v = value(i);
        if utf8 && v.iter().any(|&b| b < 0x20) {
            return RawStats::default();
        }
        if min.is_none_or(|m| v < m) {
            min = Some(v);
        }
        if max.is_none_or(|m| v > m) {
            max = Some(v);
        }
    }
    let (Some(min), Some(max)) = (min, max) else {
        return RawStats::default();
    };
    let cut = |v: &[u8]| -> usize {
        let mut n = v.len().min(STRING_BOUND_BYTES);
        // Cut on a character boundary so that the bound stays valid UTF-8.
        while utf8 && n < v.len() && n > 0 && (v[n] & 0xC0) == 0x80 {
            n -= 1;
        }
        n
    };
    let (nmin, nmax) = (cut(min), cut(max));
    RawStats {
        min: Some(min[..nmin].to_vec()),
        max: Some(max[..nmax].to_vec()),
        max_is_prefix: nmax < max.len(),
        collated: None,
        shape: None,
    }
}

/// The shape of a text page's rows (`offsets` into `data`, which starts at
/// `offsets[0]`). NULL rows' slots count too: kernels run over every slot.
fn row_shape(offsets: &[i32], data: &[u8]) -> RowShape {
    let base = offsets[0] as usize;
    let mut most = 0;
    for w in offsets.windows(2) {
        let v = &data[w[0] as usize - base..w[1] as usize - base];
        // Most values end in another byte: one compare each.
        if v.last() == Some(&b' ') {
            most = most.max(v.iter().rev().take_while(|&&b| b == b' ').count());
        }
    }
    RowShape {
        // The statistics block holds a u16; more is no bound.
        max_trailing_spaces: (most < usize::from(u16::MAX)).then_some(most),
        ascii: data.is_ascii(),
    }
}

/// Bounds of a page's strings under `collation`, as normalized keys (see
/// [`CollatedStats`]); `None` when every row is NULL.
fn collated_stats<'a>(
    value: impl Fn(usize) -> &'a [u8],
    rows: usize,
    valid: &dyn Fn(usize) -> bool,
    collation: Collation,
) -> Option<CollatedStats> {
    with_collator!(collation, |k| {
        let (mut key, mut min, mut max) = (Vec::new(), None::<Vec<u8>>, None::<Vec<u8>>);
        for i in (0..rows).filter(|&i| valid(i)) {
            key.clear();
            k.normalized_key(value(i), &mut key);
            if min.as_ref().is_none_or(|m| key < *m) {
                min.get_or_insert_with(Vec::new).clone_from(&key);
            }
            if max.as_ref().is_none_or(|m| key > *m) {
                max.get_or_insert_with(Vec::new).clone_from(&key);
            }
        }
        let (mut min, mut max) = (min?, max?);
        min.truncate(KEY_BOUND_BYTES);
        let max_is_prefix = max.len() > KEY_BOUND_BYTES;
        max.truncate(KEY_BOUND_BYTES);
        Some(CollatedStats {
            collation_id: collation.id(),
            min,
            max,
            max_is_prefix,
        })
    })
}

/// Decodes a verified data page's body into an array of type `t`.
pub fn decode_page(h: &PageHeader, page: &[u8], t: &DataType) -> Result<ArrayRef, String> {
    if Some(h.type_tag) != type_tag(t) {
        return Err("page holds another column type".into());
    }
    let rows = h.rows as usize;
    let start = HEADER_LEN + h.stats_len as usize;
    let stored = page
        .get(start..start + h.stored as usize)
        .ok_or("page truncated")?;
    let comp = Compression::from_u8(h.compression).ok_or("unknown compression")?;
    let uncompressed = h.uncompressed as usize;
    let decompressed;
    let body: &[u8] = match comp {
        Compression::None => stored,
        Compression::Lz4 => {
            let mut buf = vec![0u8; uncompressed];
            let n = lz4_flex::block::decompress_into(stored, &mut buf)
                .map_err(|e| format!("LZ4: {e}"))?;
            if n != uncompressed {
                return Err("LZ4 body has the wrong length".into());
            }
            decompressed = buf;
            &decompressed
        }
        Compression::Zstd => {
            decompressed =
                zstd::bulk::decompress(stored, uncompressed).map_err(|e| format!("zstd: {e}"))?;
            if decompressed.len() != uncompressed {
                return Err("zstd body has the wrong length".into());
            }
            &decompressed
        }
    };
    if body.len() != uncompressed {
        return Err("body length differs from the header".into());
    }
    let mut cur = Cursor { body, pos: 0 };
    let nulls = if h.null_count > 0 {
        let bits = cur.take(rows.div_ceil(8))?;
        let n = NullBuffer::new(BooleanBuffer::new(Buffer::from(bits.to_vec()), 0, rows));
        if n.null_count() != h.null_count as usize {
            return Err("null count differs from the bitmap".into());
        }
        Some(n)
    } else {
        None
    };
    let enc = h.encoding;
    macro_rules! integral {
        ($t:ty, $n:ty) => {{
            let values: Vec<$n> = if enc == Encoding::FrameOfReference as u8 {
                let head = cur.take(24)?;
                let reference = i128::from_le_bytes(head[..16].try_into().expect("16 bytes"));
                let width = head[16] as u32;
                let packed = cur.rest();
                let mut out = Vec::with_capacity(rows);
                unpack_bits(packed, rows, width, |d| {
                    out.push(reference.wrapping_add(d as i128) as $n)
                })?;
                out
            } else if enc == Encoding::Plain as u8 {
                const W: usize = std::mem::size_of::<$n>();
                cur.take(rows * W)?
                    .chunks_exact(W)
                    .map(|c| <$n>::from_le_bytes(c.try_into().expect("width")))
                    .collect()
            } else {
                return Err("unknown encoding for an integer column".into());
            };
            PrimitiveArray::<$t>::new(ScalarBuffer::from(values), nulls)
        }};
    }
    let array: ArrayRef = match t {
        DataType::Int8 => Arc::new(integral!(Int8Type, i8)),
        DataType::Int16 => Arc::new(integral!(Int16Type, i16)),
        DataType::Int32 => Arc::new(integral!(Int32Type, i32)),
        DataType::Int64 => Arc::new(integral!(Int64Type, i64)),
        DataType::UInt8 => Arc::new(integral!(UInt8Type, u8)),
        DataType::UInt16 => Arc::new(integral!(UInt16Type, u16)),
        DataType::UInt32 => Arc::new(integral!(UInt32Type, u32)),
        DataType::UInt64 => Arc::new(integral!(UInt64Type, u64)),
        DataType::Date32 => Arc::new(integral!(Date32Type, i32)),
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            Arc::new(integral!(TimestampMicrosecondType, i64).with_timezone_opt(tz.clone()))
        }
        DataType::Decimal64(..) => {
            Arc::new(integral!(Decimal64Type, i64).with_data_type(t.clone()))
        }
        DataType::Decimal128(p, s) => Arc::new(
            integral!(Decimal128Type, i128)
                .with_precision_and_scale(*p, *s)
                .map_err(|e| e.to_string())?,
        ),
        DataType::Decimal256(p, s) => {
            let v: Vec<arrow_buffer::i256> = cur
                .take(rows * 32)?
                .chunks_exact(32)
                .map(|c| arrow_buffer::i256::from_le_bytes(c.try_into().expect("32")))
                .collect();
            Arc::new(
                PrimitiveArray::<Decimal256Type>::new(v.into(), nulls)
                    .with_precision_and_scale(*p, *s)
                    .map_err(|e| e.to_string())?,
            )
        }
        DataType::Float32 => {
            let v: Vec<f32> = cur
                .take(rows * 4)?
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
                .collect();
            Arc::new(PrimitiveArray::<Float32Type>::new(v.into(), nulls))
        }
        DataType::Float64 => {
            let v: Vec<f64> = cur
                .take(rows * 8)?
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
                .collect();
            Arc::new(PrimitiveArray::<Float64Type>::new(v.into(), nulls))
        }
        DataType::Boolean => {
            let bits = cur.take(rows.div_ceil(8))?;
            let values = BooleanBuffer::new(Buffer::from(bits.to_vec()), 0, rows);
            Arc::new(BooleanArray::new(values, nulls))
        }
        DataType::Utf8 | DataType::Binary => {
            let (offsets, data) = if enc == Encoding::Dictionary as u8 {
                decode_dictionary(&mut cur, rows, nulls.as_ref())?
            } else if enc == Encoding::Plain as u8 {
                let offs: Vec<i32> = cur
                    .take(4 * (rows + 1))?
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4")) as i32)
                    .collect();
                let data = cur.rest().to_vec();
                (offs, data)
            } else {
                return Err("unknown encoding for a string column".into());
            };
            if matches!(t, DataType::Utf8) {
                Arc::new(crate::text_array::text_array(offsets, data, nulls)?)
            } else {
                // OffsetBuffer::new panics on bad offsets: check them first.
                if !crate::text_array::offsets_fit(&offsets, data.len()) {
                    return Err("bad string offsets".into());
                }
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                Arc::new(
                    BinaryArray::try_new(offsets, Buffer::from(data), nulls)
                        .map_err(|e| e.to_string())?,
                )
            }
        }
        DataType::Null => arrow_array::new_null_array(t, rows),
        other => return Err(format!("unsupported stored type {other}")),
    };
    if cur.pos != body.len() && !matches!(t, DataType::Null) {
        return Err("page body has trailing bytes".into());
    }
    Ok(array)
}

/// Reads a page body front to back, refusing to run past its end.
struct Cursor<'a> {
    body: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).ok_or("length overflow")?;
        let s = self.body.get(self.pos..end).ok_or("page body too short")?;
        self.pos = end;
        Ok(s)
    }
    fn rest(&mut self) -> &'a [u8] {
        let s = &self.body[self.pos..];
        self.pos = self.body.len();
        s
    }
}

/// Dictionary body: `n u32 | width u8 | 3 zero bytes | (n+1) u32 offsets |
/// entry bytes | bit-packed indices`; expanded into offsets + bytes.
fn decode_dictionary(
    cur: &mut Cursor,
    rows: usize,
    nulls: Option<&NullBuffer>,
) -> Result<(Vec<i32>, Vec<u8>), String> {
    let head = cur.take(8)?;
    let n = u32::from_le_bytes(head[..4].try_into().expect("4")) as usize;
    let width = head[4] as u32;
    if n > rows.max(1) {
        return Err("dictionary larger than the page".into());
    }
    let dict_offs: Vec<usize> = cur
        .take(4 * (n + 1))?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")) as usize)
        .collect();
    if dict_offs[0] != 0 || dict_offs.windows(2).any(|w| w[1] < w[0]) {
        return Err("bad dictionary offsets".into());
    }
    let dict = cur.take(dict_offs[n])?;
    let packed_len = (rows * width as usize).div_ceil(64) * 8;
    let packed = cur.take(packed_len)?;
    let mut indices = Vec::with_capacity(rows);
    let mut bad = false;
    unpack_bits(packed, rows, width, |i| {
        bad |= i as usize >= n.max(1);
        indices.push(i as usize)
    })?;
    if bad || (n == 0 && rows > 0 && nulls.is_none_or(|x| x.null_count() != rows)) {
        return Err("dictionary index out of range".into());
    }
    let is_valid = |i: usize| nulls.is_none_or(|x| x.is_valid(i));
    let mut total = 0usize;
    for (i, &k) in indices.iter().enumerate() {
        if is_valid(i) {
            total += dict_offs[k + 1] - dict_offs[k];
        }
    }
    if total > i32::MAX as usize {
        return Err("strings too long for one page".into());
    }
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut data = Vec::with_capacity(total);
    offsets.push(0i32);
    for (i, &k) in indices.iter().enumerate() {
        if is_valid(i) {
            data.extend_from_slice(&dict[dict_offs[k]..dict_offs[k + 1]]);
        }
        offsets.push(data.len() as i32);
    }
    Ok((offsets, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Decimal128Array, Int32Array, Int64Array, StringArray, UInt64Array};

    fn round_trip(a: ArrayRef, comp: Compression) -> (ArrayRef, PageHeader) {
        let p = encode_page(&a, 3, 7, 100, comp).unwrap();
        let h = verify_page(&p.bytes).unwrap();
        assert_eq!((h.column, h.page, h.first_row), (3, 7, 100));
        let b = decode_page(&h, &p.bytes, a.data_type()).unwrap();
        assert_eq!(&b, &a);
        (b, h)
    }

    #[test]
    fn integers_use_frame_of_reference_and_round_trip() {
        let a: ArrayRef = Arc::new(Int64Array::from_iter_values(
            (0..10_000).map(|i| 1_000_000 + i % 1000),
        ));
        let (_, h) = round_trip(a.clone(), Compression::None);
        assert_eq!(h.encoding, Encoding::FrameOfReference as u8);
        // 10 bits per value instead of 64.
        assert!(h.uncompressed < 10_000 * 2, "{}", h.uncompressed);
        // Extremes: the full i64 range needs 64 bits, i.e. plain.
        let a: ArrayRef = Arc::new(Int64Array::from(vec![Some(i64::MIN), None, Some(i64::MAX)]));
        let (_, h) = round_trip(a, Compression::None);
        assert_eq!(h.encoding, Encoding::Plain as u8);
        let a: ArrayRef = Arc::new(UInt64Array::from(vec![u64::MAX, u64::MAX - 3, 0]));
        round_trip(a, Compression::Lz4);
        let a: ArrayRef = Arc::new(Int32Array::from(vec![None, None, None]));
        round_trip(a, Compression::None);
        let a: ArrayRef = Arc::new(
            Decimal128Array::from(vec![
                Some(i128::MAX / 2),
                Some(-5),
                None,
                Some(i128::MIN / 2),
            ])
            .with_precision_and_scale(38, 4)
            .unwrap(),
        );
        round_trip(a, Compression::Zstd);
    }

    #[test]
    fn strings_pick_dictionary_for_few_values() {
        let few: ArrayRef = Arc::new(StringArray::from_iter((0..5000).map(|i| {
            if i % 7 == 0 {
                None
            } else {
                Some(["AIR", "MAIL", "SHIP"][i % 3])
            }
        })));
        let (_, h) = round_trip(few, Compression::None);
        assert_eq!(h.encoding, Encoding::Dictionary as u8);
        let many: ArrayRef = Arc::new(StringArray::from_iter_values(
            (0..5000).map(|i| format!("comment number {i} é")),
        ));
        let (_, h) = round_trip(many.clone(), Compression::None);
        assert_eq!(h.encoding, Encoding::Plain as u8);
        let (_, h) = round_trip(many.slice(17, 1000), Compression::Lz4);
        assert_eq!(h.compression, Compression::Lz4 as u8);
        let bin: ArrayRef = Arc::new(BinaryArray::from_opt_vec(vec![
            Some(b"\0\x01"),
            None,
            Some(b""),
        ]));
        round_trip(bin, Compression::None);
    }

    #[test]
    fn text_pages_record_their_row_shape_and_it_round_trips() {
        let shape = |rows: Vec<Option<&str>>| {
            let a: ArrayRef = Arc::new(StringArray::from(rows));
            let p = encode_page(&a, 0, 0, 0, Compression::None).unwrap();
            assert_eq!(RawStats::parse(&p.stats.to_bytes()), Some(p.stats.clone()));
            p.stats.shape.unwrap()
        };
        let s = shape(vec![Some("a  "), None, Some("b"), Some("  c "), Some("")]);
        assert_eq!((s.max_trailing_spaces, s.ascii), (Some(2), true));
        let s = shape(vec![Some("é"), Some("x")]);
        assert_eq!((s.max_trailing_spaces, s.ascii), (Some(0), false));
        // A sliced array: only its own rows count.
        let a: ArrayRef = Arc::new(StringArray::from(vec!["     ", "a ", "b", "é "]));
        let p = encode_page(&a.slice(1, 2), 0, 0, 0, Compression::None).unwrap();
        let s = p.stats.shape.unwrap();
        assert_eq!((s.max_trailing_spaces, s.ascii), (Some(1), true));
        // More spaces than the field holds: no bound.
        let long = format!("x{}", " ".repeat(70_000));
        let s = shape(vec![Some(long.as_str())]);
        assert_eq!(s.max_trailing_spaces, None);
        // Binary pages have none (PAD SPACE does not apply to them).
        let bin: ArrayRef = Arc::new(BinaryArray::from_vec(vec![b"a ".as_slice()]));
        let p = encode_page(&bin, 0, 0, 0, Compression::None).unwrap();
        assert_eq!(p.stats.shape, None);
    }

    #[test]
    fn collated_bounds_are_normalized_keys_and_round_trip() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let long = "Zz".repeat(40);
        let a: ArrayRef = Arc::new(StringArray::from(vec![
            Some("b"),
            None,
            Some("A\t"),
            Some(long.as_str()),
            Some("É"),
        ]));
        let p = encode_page_collated(&a, 0, 0, 0, Compression::None, Some(ci)).unwrap();
        let k = p.stats.collated.clone().unwrap();
        let key = |s: &str| {
            let mut k = Vec::new();
            ci.normalized_key(s.as_bytes(), &mut k);
            k
        };
        assert_eq!(k.collation_id, ci.id());
        assert_eq!(k.min, key("a\t"));
        assert_eq!(k.max, key(&long)[..KEY_BOUND_BYTES]);
        assert!(k.max_is_prefix);
        // Byte bounds are dropped for the tab, collated ones are kept, and
        // both survive the directory encoding.
        assert_eq!(p.stats.min, None);
        assert_eq!(RawStats::parse(&p.stats.to_bytes()), Some(p.stats.clone()));
        let a: ArrayRef = Arc::new(StringArray::from(vec!["b", "a"]));
        let p = encode_page_collated(&a, 0, 0, 0, Compression::None, Some(ci)).unwrap();
        assert!(p.stats.min.is_some() && p.stats.collated.is_some());
        assert_eq!(RawStats::parse(&p.stats.to_bytes()), Some(p.stats.clone()));
        // No collation, no collated bounds; truncated stats are an error.
        let p = encode_page(&a, 0, 0, 0, Compression::None).unwrap();
        assert_eq!(p.stats.collated, None);
        let bytes = encode_page_collated(&a, 0, 0, 0, Compression::None, Some(ci))
            .unwrap()
            .stats
            .to_bytes();
        for n in 0..bytes.len() {
            assert_eq!(RawStats::parse(&bytes[..n]), None, "{n} bytes");
        }
    }

    #[test]
    fn string_bounds_are_prefixes_on_char_boundaries() {
        let long = "é".repeat(40);
        let a: ArrayRef = Arc::new(StringArray::from(vec!["b", long.as_str(), "a "]));
        let p = encode_page(&a, 0, 0, 0, Compression::None).unwrap();
        assert_eq!(p.stats.min.as_deref(), Some(&b"a "[..]));
        let max = p.stats.max.clone().unwrap();
        assert!(p.stats.max_is_prefix);
        assert_eq!(max.len(), 32);
        assert!(String::from_utf8(max).is_ok());
        // A control character disables the bounds (byte order would not
        // refine PAD SPACE order).
        let a: ArrayRef = Arc::new(StringArray::from(vec!["b", "a\u{1}"]));
        let p = encode_page(&a, 0, 0, 0, Compression::None).unwrap();
        assert_eq!((&p.stats.min, &p.stats.max), (&None, &None));
    }

    #[test]
    fn bit_packing_matches_a_plain_model_at_every_width() {
        for width in 0..=64u32 {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let values: Vec<u64> = (0..131u64)
                .map(|i| i.wrapping_mul(0x9E3779B97F4A7C15) & mask)
                .collect();
            let mut packed = Vec::new();
            pack_bits(values.iter().copied(), values.len(), width, &mut packed);
            let mut out = Vec::new();
            unpack_bits(&packed, values.len(), width, |v| out.push(v)).unwrap();
            assert_eq!(out, values, "width {width}");
        }
    }

    #[test]
    fn damaged_pages_are_refused() {
        let a: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100));
        let p = encode_page(&a, 0, 0, 0, Compression::None).unwrap();
        for i in 0..p.bytes.len() {
            let mut b = p.bytes.clone();
            b[i] ^= 0x10;
            assert!(verify_page(&b).is_err(), "flip at {i} not detected");
        }
        assert!(verify_page(&p.bytes[..p.bytes.len() - 1]).is_err());
    }
}
