//! Text columns from page bytes, checked once.
//!
//! Arrow's `StringArray::try_new` checks the offsets, then the whole buffer
//! with `str::from_utf8`, then every offset for a character boundary. A page
//! column is mostly ASCII (codes, comments, names), and ASCII bytes are each
//! a whole character: one SIMD pass ([`quiver_string_kernels::is_ascii`])
//! then stands for both UTF-8 checks. Anything else is checked as Arrow does.
//! The checks are the same, so a damaged or hostile page is refused alike.

use arrow_array::StringArray;
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

/// Whether `offsets` start at 0, never decrease and end at `len`: what
/// `OffsetBuffer::new` asserts (it panics otherwise) for a buffer of `len`.
pub(crate) fn offsets_fit(offsets: &[i32], len: usize) -> bool {
    offsets.first() == Some(&0)
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets.last().map(|&l| l as usize) == Some(len)
}

/// Why `offsets` into `data` are not a text column.
pub(crate) fn text_problem(offsets: &[i32], data: &[u8]) -> Option<&'static str> {
    if !offsets_fit(offsets, data.len()) {
        return Some("bad string offsets");
    }
    if quiver_string_kernels::is_ascii(data) {
        return None;
    }
    if std::str::from_utf8(data).is_err() {
        return Some("invalid UTF-8 in a text column");
    }
    // A character's continuation bytes are 0x80..=0xBF: no value starts there.
    if offsets
        .iter()
        .any(|&o| data.get(o as usize).is_some_and(|&b| (b as i8) < -0x40))
    {
        return Some("a text value starts inside a character");
    }
    None
}

/// The text column of `rows + 1` `offsets` into `data`, or why it is not one.
pub(crate) fn text_array(
    offsets: Vec<i32>,
    data: Vec<u8>,
    nulls: Option<NullBuffer>,
) -> Result<StringArray, String> {
    if let Some(problem) = text_problem(&offsets, &data) {
        return Err(problem.into());
    }
    if nulls.as_ref().is_some_and(|n| n.len() + 1 != offsets.len()) {
        return Err("null bitmap of the wrong length".into());
    }
    // SAFETY: `text_problem` found the offsets fit the data
    // (`offsets_fit`), which is all `OffsetBuffer::new` checks.
    let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
    // SAFETY: the offsets are valid (above), the data is UTF-8 with every
    // offset on a character boundary (`text_problem`: all ASCII, or
    // `from_utf8` and the boundary test), and the null bitmap has one bit
    // per value: what `StringArray::try_new` checks.
    Ok(unsafe { StringArray::new_unchecked(offsets, Buffer::from(data), nulls) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Accepts exactly what Arrow's checked constructor accepts, and
        /// builds the same array.
        #[test]
        fn text_array_is_arrows_checked_constructor(
            data in proptest::collection::vec(
                prop::sample::select(vec![b'a', b' ', 0x80, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0xFF]),
                0..24),
            cuts in proptest::collection::vec(0usize..30, 0..6),
            ascii in any::<bool>(),
        ) {
            let data: Vec<u8> = if ascii { data.iter().map(|b| b & 0x7f).collect() } else { data };
            let mut offsets: Vec<i32> = cuts.iter().map(|&c| c as i32).collect();
            offsets.insert(0, 0);
            offsets.push(data.len() as i32);
            let arrow = std::panic::catch_unwind(|| {
                StringArray::try_new(
                    OffsetBuffer::new(ScalarBuffer::from(offsets.clone())),
                    Buffer::from(data.clone()),
                    None,
                )
            });
            let ours = text_array(offsets.clone(), data.clone(), None);
            match (arrow, ours) {
                // OffsetBuffer::new panics where offsets decrease or start below 0.
                (Err(_), ours) => prop_assert!(ours.is_err()),
                (Ok(Err(_)), ours) => prop_assert!(ours.is_err()),
                (Ok(Ok(a)), Ok(b)) => prop_assert_eq!(a, b),
                (Ok(Ok(_)), Err(e)) => prop_assert!(false, "refused a valid column: {}", e),
            }
        }
    }

    #[test]
    fn text_problems_are_named() {
        assert_eq!(text_problem(&[0, 2, 1], b"ab"), Some("bad string offsets"));
        assert_eq!(text_problem(&[0, 1], b"ab"), Some("bad string offsets"));
        assert_eq!(
            text_problem(&[0, 1], b"\xff"),
            Some("invalid UTF-8 in a text column")
        );
        assert_eq!(
            text_problem(&[0, 1, 2], "é".as_bytes()),
            Some("a text value starts inside a character")
        );
        assert_eq!(text_problem(&[0, 2, 2], "é".as_bytes()), None);
        assert!(text_array(vec![0, 1], b"a".to_vec(), Some(NullBuffer::new_null(2))).is_err());
    }
}
