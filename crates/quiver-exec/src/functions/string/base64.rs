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
                let total: usize = (0..s.len())
                    .filter(|i| s.is_valid(*i))
                    .map(|i| encoded_len(s.value(i).len()))
                    .sum();
                let mut b = BinaryBuilder::with_capacity(s.len(), total);
                let mut row = Vec::new();
                for i in 0..s.len() {
                    if s.is_null(i) {
                        b.append_null();
                    } else {
                        row.clear();
                        encode(s.value(i), &mut row);
                        b.append_value(&row);
                    }
                }
                b.finish()
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
    out.reserve(encoded_len(s.len()));
    let mut written = 0;
    for group in s.chunks(3) {
        if written > 0 && written % LINE == 0 {
            out.push(b'\n');
        }
        let v = group
            .iter()
            .enumerate()
            .fold(0u32, |v, (k, b)| v | (*b as u32) << (16 - 8 * k));
        for k in 0..4 {
            out.push(if k <= group.len() {
                ALPHABET[(v >> (18 - 6 * k) & 63) as usize]
            } else {
                b'='
            });
        }
        written += 4;
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
            let mut d = Vec::new();
            decode(&e, &mut d).unwrap();
            assert_eq!(d, s);
        }
    }
}
