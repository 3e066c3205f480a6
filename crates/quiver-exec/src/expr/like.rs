//! LIKE over string columns. Patterns are compiled once by the collation
//! crate (`quiver_collation::LikePattern`) into literal pieces searched with
//! the SIMD substring kernel (prefix, suffix, `%a%b%` runs), or a character
//! matcher where the collation needs one. MySQL semantics: no padding.

use arrow_array::{Array, ArrayRef, BinaryArray, BooleanArray};
use arrow_buffer::{BooleanBuffer, Buffer};
use arrow_schema::DataType;
use quiver_collation::{Collation, LikePattern};
use quiver_common::{QuiverError, Result};

use super::cast_array;
use crate::bytes::byte_view;

/// Compiles a pattern under `collation`; `escape` is the ESCAPE character
/// (`\\` when there is none).
pub fn compile(collation: Collation, pattern: &[u8], escape: Option<char>) -> Result<LikePattern> {
    let mut buf = [0u8; 4];
    let escape = escape.map(|c| c.encode_utf8(&mut buf).as_bytes().to_vec());
    LikePattern::new(collation, pattern, escape.as_deref())
        .map_err(|e| QuiverError::new(e.mysql_code(), "HY000", e.to_string()))
}

/// Text or binary values as bytes (a binary value is matched byte by
/// byte: its pattern was compiled under `binary`); anything else as text.
fn strings(a: &ArrayRef) -> Result<BinaryArray> {
    let a = match a.data_type() {
        DataType::Utf8 | DataType::Binary => a.clone(),
        _ => cast_array(a, &DataType::Utf8)?,
    };
    Ok(byte_view(a.as_ref()).expect("a string column"))
}

/// A constant pattern over a column, through the collation crate's column
/// matcher (which searches the whole values buffer for a `%piece%`).
pub fn like_array(a: &ArrayRef, m: &LikePattern) -> Result<BooleanArray> {
    let s = strings(a)?;
    let mut words = vec![0u64; s.len().div_ceil(64)];
    m.matches_column(s.value_offsets(), s.value_data(), &mut words)
        .map_err(|e| QuiverError::internal(format!("LIKE column kernel: {e}")))?;
    let bits = BooleanBuffer::new(Buffer::from_vec(words), 0, s.len());
    Ok(BooleanArray::new(bits, s.logical_nulls()))
}

/// LIKE with a pattern that varies by row: compiled per row.
pub fn like_dynamic(
    a: &ArrayRef,
    p: &ArrayRef,
    escape: Option<char>,
    collation: Collation,
) -> Result<BooleanArray> {
    let collation = if a.data_type() == &DataType::Binary {
        Collation::binary()
    } else {
        collation
    };
    let (s, p) = (strings(a)?, strings(p)?);
    s.iter()
        .zip(p.iter())
        .map(|(s, p)| match (s, p) {
            (Some(s), Some(p)) => Ok(Some(compile(collation, p, escape)?.matches(s))),
            _ => Ok(None),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn m(p: &str, escape: Option<char>) -> LikePattern {
        compile(Collation::utf8mb4_bin(), p.as_bytes(), escape).unwrap()
    }

    #[test]
    fn like_pieces_under_the_default_collation() {
        let yes = |p: &str, s: &str| m(p, None).matches(s.as_bytes());
        assert!(yes("%special%requests%", "xx special yy requests zz"));
        assert!(!yes("%special%requests%", "requests special"));
        assert!(yes("PROMO%", "PROMO BRUSHED"));
        assert!(yes("%BRASS", "LARGE BRASS"));
        assert!(!yes("a", "a "));
        assert!(yes("a_c", "abc"));
        assert!(yes("a_c", "aéc"));
        assert!(yes("a\\%", "a%"));
        assert!(!yes("a\\%", "ab"));
        assert!(yes("%a%a%", "aa"));
        assert!(!yes("%a%a%", "a"));
        assert!(yes("%", ""));
        assert!(m("a%b_", Some('!')).matches(b"axxbz"));
        let ci = compile(Collation::utf8mb4_general_ci(), b"%PEND%", None).unwrap();
        assert!(ci.matches("x pending".as_bytes()));
    }

    /// Over binary values (MariaDB): `_` is one byte, no case folding, no
    /// padding; the column matcher agrees with the per-value matcher.
    #[test]
    fn like_over_binary_values_matches_bytes() {
        let values: Vec<Option<&[u8]>> = vec![
            Some(b"abc"),
            Some(b"ABC"),
            Some("é".as_bytes()),
            Some(b"\xE9"),
            None,
            Some(b"a\0c"),
            Some(b"ab "),
            Some(b"xabcx"),
        ];
        let a: ArrayRef = Arc::new(BinaryArray::from(values.clone()));
        for (pattern, want) in [
            (
                "A%",
                vec![false, true, false, false, false, false, false, false],
            ),
            (
                "_",
                vec![false, false, false, true, false, false, false, false],
            ),
            (
                "__",
                vec![false, false, true, false, false, false, false, false],
            ),
            (
                "a_c",
                vec![true, false, false, false, false, true, false, false],
            ),
            (
                "%b%",
                vec![true, false, false, false, false, false, true, true],
            ),
            ("ab", vec![false; 8]),
        ] {
            let m = compile(Collation::binary(), pattern.as_bytes(), None).unwrap();
            let got = like_array(&a, &m).unwrap();
            let plain: Vec<Option<bool>> = values.iter().map(|v| v.map(|v| m.matches(v))).collect();
            assert_eq!(got, BooleanArray::from(plain.clone()), "{pattern}");
            let want: Vec<Option<bool>> =
                values.iter().zip(want).map(|(v, w)| v.map(|_| w)).collect();
            assert_eq!(plain, want, "{pattern}");
            let p: ArrayRef = Arc::new(arrow_array::StringArray::from(vec![pattern; 8]));
            let dynamic = like_dynamic(&a, &p, None, Collation::utf8mb4_bin()).unwrap();
            assert_eq!(dynamic, got, "{pattern} per row");
        }
    }
}
