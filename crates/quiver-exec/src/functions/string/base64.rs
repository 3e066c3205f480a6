//! TO_BASE64(s) and FROM_BASE64(s), as MariaDB's `my_base64_encode` /
//! `my_base64_decode`: the standard alphabet with `=` padding; the
//! encoding breaks a line (`\n`) after every 76 characters; decoding
//! skips white space anywhere, needs whole groups of four and nothing but
//! white space after a padded group. Bad input is NULL with warning 1958
//! "Bad base64 data as position N" (MariaDB's wording), N the offset of
//! the byte where decoding stopped. TO_BASE64 gives text in the
//! connection's collation, FROM_BASE64 bytes.
//!
//! Both are built size-first: the encoded length is known from the input
//! length; the decoded one is at most three quarters of it.

use std::ops::RangeInclusive;

use arrow_array::builder::BinaryBuilder;
use arrow_array::Array;
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::{bytes_of, chars_or_zero, finish_bytes, string_arg};
use crate::warnings::{raise_with, Level};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Characters per line of TO_BASE64's output.
const LINE: usize = 76;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encode,
    Decode,
}

pub struct Base64(Direction);

pub static TO_BASE64: Base64 = Base64(Direction::Encode);
pub static FROM_BASE64: Base64 = Base64(Direction::Decode);

impl ScalarFunction for Base64 {
    fn name(&self) -> &'static str {
        match self.0 {
            Direction::Encode => "to_base64",
            Direction::Decode => "from_base64",
        }
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![string_arg(&self.name().to_uppercase(), &args[0])?])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let t = match self.0 {
            Direction::Encode => DataType::Utf8,
            Direction::Decode => DataType::Binary,
        };
        Ok(if args[0].is_null() {
            Bound::Constant(ScalarValue::Null, t)
        } else {
            Bound::Call(t)
        })
    }

    fn max_chars(&self, args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        let n = chars_or_zero(&args[0], chars[0])?;
        // Text arguments are measured in utf8mb4's widest bytes.
        let bytes = if args[0].data_type == DataType::Binary {
            n
        } else {
            n * 4
        };
        Some(match self.0 {
            Direction::Encode => encoded_len(bytes as usize) as u64,
            Direction::Decode => bytes * 3 / 4,
        })
    }

    fn string_result(&self) -> StringResult {
        StringResult::Coercible
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let s = bytes_of(a.arg(0)?)?;
        let out = match self.0 {
            Direction::Encode => {
                // Size first: offsets from the encoded lengths, then one
                // buffer filled in place.
                let mut offsets = Vec::with_capacity(s.len() + 1);
                offsets.push(0i32);
                let mut end = 0usize;
                for i in 0..s.len() {
                    if s.is_valid(i) {
                        end += encoded_len(s.value(i).len());
                    }
                    offsets.push(i32::try_from(end).map_err(|_| {
                        quiver_common::QuiverError::internal("TO_BASE64 result over 2 GiB")
                    })?);
                }
                let mut values = Vec::with_capacity(end);
                for i in 0..s.len() {
                    if s.is_valid(i) {
                        encode(s.value(i), &mut values);
                    }
                }
                let out = arrow_array::BinaryArray::new(
                    arrow_buffer::OffsetBuffer::new(offsets.into()),
                    values.into(),
                    s.nulls().cloned(),
                );
                if *call.data_type == DataType::Binary {
                    return a.finish(std::sync::Arc::new(out), call.data_type);
                }
                // SAFETY: the base64 alphabet, '=' and '\n' are ASCII, so
                // every value is valid UTF-8 (`round_trip` checks the
                // encoder's output against the decoder).
                let (offsets, values, nulls) = out.into_parts();
                let text =
                    unsafe { arrow_array::StringArray::new_unchecked(offsets, values, nulls) };
                return a.finish(std::sync::Arc::new(text), call.data_type);
            }
            Direction::Decode => {
                let total = s.values().len() / 4 * 3 + 3;
                let mut b = BinaryBuilder::with_capacity(s.len(), total);
                let mut row = Vec::new();
                for i in 0..s.len() {
                    if s.is_null(i) {
                        b.append_null();
                        continue;
                    }
                    row.clear();
                    match decode(s.value(i), &mut row) {
                        Ok(()) => b.append_value(&row),
                        Err(at) => {
                            raise_with(Level::Warning, 1958, || {
                                format!("Bad base64 data as position {at}")
                            });
                            b.append_null();
                        }
                    }
                }
                b.finish()
            }
        };
        a.finish(finish_bytes(out, call.data_type)?, call.data_type)
    }
}

/// The length of `n` bytes encoded, line breaks included.
fn encoded_len(n: usize) -> usize {
    let chars = n.div_ceil(3) * 4;
    chars + chars.saturating_sub(1) / LINE
}

fn encode(s: &[u8], out: &mut Vec<u8>) {
    let mut written = 0;
    let mut groups = s.chunks_exact(3);
    for g in &mut groups {
        if written == LINE {
            out.push(b'\n');
            written = 0;
        }
        let v = (g[0] as u32) << 16 | (g[1] as u32) << 8 | g[2] as u32;
        out.extend_from_slice(&[
            ALPHABET[(v >> 18) as usize],
            ALPHABET[(v >> 12 & 63) as usize],
            ALPHABET[(v >> 6 & 63) as usize],
            ALPHABET[(v & 63) as usize],
        ]);
        written += 4;
    }
    let rest = groups.remainder();
    if !rest.is_empty() {
        if written == LINE {
            out.push(b'\n');
        }
        let v = (rest[0] as u32) << 16 | rest.get(1).map_or(0, |b| (*b as u32) << 8);
        out.extend_from_slice(&[
            ALPHABET[(v >> 18) as usize],
            ALPHABET[(v >> 12 & 63) as usize],
            if rest.len() == 2 {
                ALPHABET[(v >> 6 & 63) as usize]
            } else {
                b'='
            },
            b'=',
        ]);
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

fn symbol(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes `s` into `out`; Err(offset) where decoding stopped.
fn decode(s: &[u8], out: &mut Vec<u8>) -> std::result::Result<(), usize> {
    let mut pos = 0;
    let skip = |pos: &mut usize| {
        while *pos < s.len() && is_space(s[*pos]) {
            *pos += 1;
        }
    };
    loop {
        skip(&mut pos);
        if pos == s.len() {
            return Ok(());
        }
        let mut v = 0u32;
        let mut padding = 0;
        for k in 0..4 {
            skip(&mut pos);
            let c = *s.get(pos).ok_or(pos)?;
            if c == b'=' && k >= 2 && (padding > 0 || k == 2 || k == 3) {
                // Padding: '=' from the third symbol on, then only '='.
                padding += 1;
            } else if padding > 0 {
                return Err(pos);
            } else {
                v |= symbol(c).ok_or(pos)? << (18 - 6 * k);
            }
            pos += 1;
        }
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..3 - padding]);
        if padding > 0 {
            // Nothing but white space after a padded group.
            skip(&mut pos);
            return if pos == s.len() { Ok(()) } else { Err(pos) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for n in 0..200usize {
            let s: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
            let mut e = Vec::new();
            encode(&s, &mut e);
            assert_eq!(e.len(), encoded_len(n));
            assert!(e.is_ascii());
            // Lines of 76 characters, the last one at most that.
            assert!(e.split(|c| *c == b'\n').all(|l| l.len() <= LINE));
            assert!(e
                .split(|c| *c == b'\n')
                .rev()
                .skip(1)
                .all(|l| l.len() == LINE));
            let mut d = Vec::new();
            decode(&e, &mut d).unwrap();
            assert_eq!(d, s);
        }
    }
}
