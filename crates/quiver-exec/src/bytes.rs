//! Byte strings: text (`Utf8`) and binary (`Binary`) arrays read as bytes,
//! and the conversions between binary values and text (`ToCharset`).
//!
//! A binary string is bytes in the `binary` collation: no characters, no
//! case, no padding. Loops that only compare, hash or search bytes serve
//! both types through [`byte_view`] (the same buffers, no copy), so the
//! type is looked at once per batch, never per row.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{cast::AsArray, Array, ArrayRef, BinaryArray, StringArray};
use arrow_schema::DataType;
use quiver_collation::charset::{decode_utf8, BAD_BYTE};
use quiver_collation::{text, Charset};

/// The values of a `Utf8` or `Binary` array as byte strings over the same
/// buffers; `None` for any other type.
pub fn byte_view(a: &dyn Array) -> Option<BinaryArray> {
    match a.data_type() {
        DataType::Binary => Some(a.as_binary::<i32>().clone()),
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            // Text is valid bytes: only the offsets are checked (O(1)).
            Some(BinaryArray::new(
                s.offsets().clone(),
                s.values().clone(),
                s.nulls().cloned(),
            ))
        }
        _ => None,
    }
}

/// Whether values of `t` are binary strings.
pub fn is_binary(t: &DataType) -> bool {
    matches!(t, DataType::Binary | DataType::LargeBinary)
}

/// Appends the text of `bytes` read in `charset`, as MariaDB converts a
/// binary string (`CONVERT(x USING cs)`, `CAST(x AS CHAR)`): latin1 byte by
/// byte (cp1252), ascii with `?` for bytes above 0x7F, utf8mb4 / utf8mb3
/// with `?` for each byte that does not start a valid sequence
/// (`CAST(X'C3FF41E282' AS CHAR)` is `??A??`). The result is always UTF-8.
pub fn decode_into(charset: Charset, bytes: &[u8], out: &mut String) {
    match charset {
        Charset::Latin1 | Charset::Ascii => text::decode(charset, bytes, out),
        Charset::Utf8mb4 | Charset::Utf8mb3 | Charset::Binary => {
            let mb4 = charset != Charset::Utf8mb3;
            // Valid UTF-8 (without 4-byte sequences for utf8mb3) is itself.
            if let Ok(s) = std::str::from_utf8(bytes) {
                if mb4 || !bytes.iter().any(|b| *b >= 0xF0) {
                    out.push_str(s);
                    return;
                }
            }
            out.reserve(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                let (cp, len) = if mb4 {
                    decode_utf8::<true>(&bytes[i..])
                } else {
                    decode_utf8::<false>(&bytes[i..])
                };
                // MariaDB keeps surrogates (ED A0..BF); UTF-8 text cannot
                // hold them, so they become `?` byte by byte as well.
                match (cp < BAD_BYTE).then(|| char::from_u32(cp)).flatten() {
                    Some(c) => {
                        out.push(c);
                        i += len;
                    }
                    None => {
                        out.push(char::from(text::REPLACEMENT));
                        i += 1;
                    }
                }
            }
        }
    }
}

/// Binary values as text in `charset` ([`decode_into`]).
pub fn decode_array(charset: Charset, a: &BinaryArray) -> ArrayRef {
    let mut b = StringBuilder::with_capacity(a.len(), a.values().len());
    let mut buf = String::new();
    for v in a.iter() {
        match v {
            None => b.append_null(),
            Some(v) => {
                buf.clear();
                decode_into(charset, v, &mut buf);
                b.append_value(&buf);
            }
        }
    }
    Arc::new(b.finish())
}

/// Text values as the bytes of their charset (latin1 and ascii text is
/// kept as UTF-8 and becomes one byte per character; any other charset's
/// bytes are its UTF-8 bytes, shared without a copy).
pub fn encode_array(charset: Charset, s: &StringArray) -> ArrayRef {
    if !text::is_single_byte_text(charset) {
        return Arc::new(byte_view(s).expect("a string array"));
    }
    let mut buf = Vec::new();
    let out: BinaryArray = s
        .iter()
        .map(|v| {
            v.map(|v| {
                buf.clear();
                text::encode(charset, v.as_bytes(), &mut buf);
                buf.clone()
            })
        })
        .collect();
    Arc::new(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(charset: Charset, b: &[u8]) -> String {
        let mut s = String::new();
        decode_into(charset, b, &mut s);
        s
    }

    /// MariaDB 10.11's answers (HEX of the conversions).
    #[test]
    fn binary_read_in_a_charset_as_mariadb() {
        assert_eq!(decoded(Charset::Utf8mb4, b"\xC3\xFF\x41\xE2\x82"), "??A??");
        assert_eq!(decoded(Charset::Utf8mb4, b"\xE2\x82\xAC\x41"), "€A");
        assert_eq!(decoded(Charset::Utf8mb4, b"\xC0\xAF"), "??");
        assert_eq!(decoded(Charset::Utf8mb4, b"\xF4\x90\x80\x80"), "????");
        assert_eq!(decoded(Charset::Utf8mb4, "é😀".as_bytes()), "é😀");
        assert_eq!(decoded(Charset::Utf8mb3, "é😀".as_bytes()), "é????");
        assert_eq!(decoded(Charset::Ascii, b"\x80\xFF\x41"), "??A");
        assert_eq!(decoded(Charset::Latin1, b"\x80\xE9"), "€é");
    }

    /// The byte loop against a plain reference: each valid character as
    /// itself, every other byte `?`.
    #[test]
    fn utf8_decoding_matches_a_plain_reference() {
        let reference = |b: &[u8]| {
            let mut out = String::new();
            let mut i = 0;
            while i < b.len() {
                let n = (1..=4.min(b.len() - i)).find(|&n| {
                    std::str::from_utf8(&b[i..i + n]).is_ok_and(|s| s.chars().count() == 1)
                });
                match n {
                    Some(n) => {
                        out.push_str(std::str::from_utf8(&b[i..i + n]).unwrap());
                        i += n;
                    }
                    None => {
                        out.push('?');
                        i += 1;
                    }
                }
            }
            out
        };
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2000 {
            let len = (x % 9) as usize;
            let v: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Mostly bytes that take part in sequences.
                    [
                        0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0xFF, 0x80,
                    ][(x % 11) as usize]
                })
                .collect();
            assert_eq!(decoded(Charset::Utf8mb4, &v), reference(&v), "{v:02X?}");
        }
    }
}
