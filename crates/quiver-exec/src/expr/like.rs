//! LIKE over string columns. Patterns are compiled once by the collation
//! crate (`quiver_collation::LikePattern`) into literal pieces searched with
//! the SIMD substring kernel (prefix, suffix, `%a%b%` runs), or a character
//! matcher where the collation needs one. MySQL semantics: no padding.

use arrow_array::{cast::AsArray, Array, ArrayRef, BooleanArray};
use arrow_buffer::{BooleanBuffer, Buffer};
use arrow_schema::DataType;
use quiver_collation::{Collation, LikePattern};
use quiver_common::{QuiverError, Result};

use super::cast_array;

/// Compiles a pattern under `collation`; `escape` is the ESCAPE character
/// (`\\` when there is none).
pub fn compile(collation: Collation, pattern: &[u8], escape: Option<char>) -> Result<LikePattern> {
    let mut buf = [0u8; 4];
    let escape = escape.map(|c| c.encode_utf8(&mut buf).as_bytes().to_vec());
    LikePattern::new(collation, pattern, escape.as_deref())
        .map_err(|e| QuiverError::new(e.mysql_code(), "HY000", e.to_string()))
}

fn strings(a: &ArrayRef) -> Result<ArrayRef> {
    if a.data_type() == &DataType::Utf8 {
        Ok(a.clone())
    } else {
        cast_array(a, &DataType::Utf8)
    }
}

/// A constant pattern over a column, through the collation crate's column
/// matcher (which searches the whole values buffer for a `%piece%`).
pub fn like_array(a: &ArrayRef, m: &LikePattern) -> Result<BooleanArray> {
    let a = strings(a)?;
    let s = a.as_string::<i32>();
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
    let (a, p) = (strings(a)?, strings(p)?);
    let (s, p) = (a.as_string::<i32>(), p.as_string::<i32>());
    s.iter()
        .zip(p.iter())
        .map(|(s, p)| match (s, p) {
            (Some(s), Some(p)) => Ok(Some(
                compile(collation, p.as_bytes(), escape)?.matches(s.as_bytes()),
            )),
            _ => Ok(None),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
