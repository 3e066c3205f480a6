//! CRC32([crc,] str) and CRC32C([crc,] str): the checksum (ISO 3309 /
//! Castagnoli) of the string's bytes in its charset, continuing from `crc`
//! when given (MariaDB 10.8's two-argument form); INT(10) UNSIGNED.
//! Numbers are hashed as they print.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::Int64Type, Array, ArrayRef, UInt64Array};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use crate::expr::cast_array;

pub struct Crc {
    name: &'static str,
    /// The checksum of `bytes` continued from `crc`.
    update: fn(u32, &[u8]) -> u32,
}

pub static CRC32: Crc = Crc {
    name: "crc32",
    update: crc32_update,
};

pub static CRC32C: Crc = Crc {
    name: "crc32c",
    update: crc32c::crc32c_append,
};

/// The table of the reflected ISO 3309 polynomial 0xEDB88320 (zlib's).
const CRC32_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// zlib's `crc32(crc, bytes)`, which MariaDB's `my_checksum` is.
fn crc32_update(crc: u32, bytes: &[u8]) -> u32 {
    let mut c = !crc;
    for b in bytes {
        c = CRC32_TABLE[((c ^ *b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

impl ScalarFunction for Crc {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let text = |t: &DataType| {
            if is_string(t) || *t == DataType::Null {
                t.clone()
            } else {
                DataType::Utf8
            }
        };
        Ok(match args {
            [s] => vec![text(s)],
            [crc, s] => {
                if !(crc.is_numeric() || is_string(crc) || crc.is_null()) {
                    return Err(QuiverError::not_supported(format!(
                        "{} with a starting value of {crc}",
                        self.name.to_uppercase()
                    )));
                }
                vec![DataType::Int64, text(s)]
            }
            _ => return Err(QuiverError::wrong_arguments(&self.name.to_uppercase())),
        })
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::UInt64))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        any_arg_nullable
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 10))
    }

    fn charset_bytes(&self) -> bool {
        true
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let s = a.arg(a.arrays.len() - 1)?;
        let bytes: ArrayRef = match s.data_type() {
            DataType::Binary => s.clone(),
            DataType::Null => arrow_array::new_null_array(&DataType::Binary, a.rows),
            _ => {
                let s = cast_array(s, &DataType::Utf8)?;
                crate::bytes::encode_array(call.collation.charset(), s.as_string::<i32>())
            }
        };
        let bytes = bytes.as_binary::<i32>();
        let start = match a.arrays.len() {
            2 => Some(cast_array(a.arg(0)?, &DataType::Int64)?),
            _ => None,
        };
        let start = start.as_ref().map(|c| c.as_primitive::<Int64Type>());
        let mut v = Vec::with_capacity(a.rows);
        let mut valid = Vec::with_capacity(a.rows);
        for i in 0..a.rows {
            let crc = match start {
                // The starting value as MariaDB's (uint32) cast of it.
                Some(c) if c.is_valid(i) => Some(c.value(i) as u32),
                Some(_) => None,
                None => Some(0),
            };
            match (crc, bytes.is_valid(i)) {
                (Some(crc), true) => {
                    v.push((self.update)(crc, bytes.value(i)) as u64);
                    valid.push(true);
                }
                _ => {
                    v.push(0);
                    valid.push(false);
                }
            }
        }
        let nulls = NullBuffer::from(valid);
        let nulls = (nulls.null_count() > 0).then_some(nulls);
        a.finish(Arc::new(UInt64Array::new(v.into(), nulls)), call.data_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// zlib's check value, and MariaDB's CRC32('abc') and CRC32(1, 'a').
    #[test]
    fn crc32_matches_zlib() {
        assert_eq!(crc32_update(0, b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32_update(0, b"abc"), 891_568_578);
        assert_eq!(crc32_update(1, b"a"), 2_679_148_245);
        assert_eq!(crc32c::crc32c_append(0, b"a"), 3_251_651_376);
    }
}
