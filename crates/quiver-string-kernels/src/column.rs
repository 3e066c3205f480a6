//! Column-at-a-time helpers over Arrow-style string columns.
//!
//! A column of `n` strings is `offsets` (`n + 1` entries) and one `values`
//! buffer; row `i` is `values[offsets[i]..offsets[i + 1]]`. Results go into a
//! bitmask of `u64` words: bit `i % 64` of word `i / 64` is set when row `i`
//! matches. Words covering rows are overwritten; bits past the last row are
//! zero, and words past them are not touched.

use std::fmt;

use crate::constant::PreparedConstant;
use crate::finder::SubstringFinder;

/// An offset type of a string column (`i32` for Utf8/Binary, `i64` for the
/// Large variants).
pub trait Offset: Copy {
    /// The offset as an index, or `None` if it is negative or too large.
    fn to_index(self) -> Option<usize>;
}

impl Offset for i32 {
    #[inline(always)]
    fn to_index(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

impl Offset for i64 {
    #[inline(always)]
    fn to_index(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

/// Why a column helper rejected its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OffsetsError {
    /// Row `row`'s offsets are negative, decreasing, or past the end of `values`.
    BadRange {
        row: usize,
        start: i64,
        end: i64,
        values_len: usize,
    },
    /// `out` has fewer words than the rows need.
    OutputTooShort { needed_words: usize, words: usize },
}

impl fmt::Display for OffsetsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OffsetsError::BadRange {
                row,
                start,
                end,
                values_len,
            } => write!(
                f,
                "string column row {row}: offsets {start}..{end} are not a range within the {values_len}-byte values buffer"
            ),
            OffsetsError::OutputTooShort {
                needed_words,
                words,
            } => write!(
                f,
                "result bitmask has {words} words, the column needs {needed_words}"
            ),
        }
    }
}

impl std::error::Error for OffsetsError {}

/// Number of rows of a column with these offsets.
#[inline]
fn row_count<O>(offsets: &[O]) -> usize {
    offsets.len().saturating_sub(1)
}

fn check_out_len(rows: usize, out: &[u64]) -> Result<(), OffsetsError> {
    let needed_words = rows.div_ceil(64);
    if out.len() < needed_words {
        return Err(OffsetsError::OutputTooShort {
            needed_words,
            words: out.len(),
        });
    }
    Ok(())
}

/// Row `row` as a slice of `values`, or the reason it is not one.
#[inline(always)]
fn row_value<'v, O: Offset + Into<i64>>(
    offsets: &[O],
    values: &'v [u8],
    row: usize,
) -> Result<&'v [u8], OffsetsError> {
    let (start, end) = (offsets[row], offsets[row + 1]);
    match (start.to_index(), end.to_index()) {
        (Some(s), Some(e)) if s <= e && e <= values.len() => Ok(&values[s..e]),
        _ => Err(OffsetsError::BadRange {
            row,
            start: start.into(),
            end: end.into(),
            values_len: values.len(),
        }),
    }
}

/// Sets bit `i` of `out` for every row `i` that satisfies `pred`.
#[inline(always)]
fn fill_mask<O: Offset + Into<i64>>(
    offsets: &[O],
    values: &[u8],
    out: &mut [u64],
    mut pred: impl FnMut(&[u8]) -> bool,
) -> Result<(), OffsetsError> {
    let rows = row_count(offsets);
    check_out_len(rows, out)?;
    for (w, word) in out[..rows.div_ceil(64)].iter_mut().enumerate() {
        let first = w * 64;
        let last = (first + 64).min(rows);
        let mut bits = 0u64;
        for row in first..last {
            let v = row_value(offsets, values, row)?;
            bits |= u64::from(pred(v)) << (row - first);
        }
        *word = bits;
    }
    Ok(())
}

/// `col = const` for every row: exact byte equality, or binary PAD SPACE
/// equality (trailing 0x20s ignored) when `pad_space`.
pub fn eq_const_offsets<O: Offset + Into<i64>>(
    offsets: &[O],
    values: &[u8],
    c: &PreparedConstant,
    pad_space: bool,
    out: &mut [u64],
) -> Result<(), OffsetsError> {
    if pad_space {
        fill_mask(offsets, values, out, |v| c.pad_space_eq(v))
    } else {
        fill_mask(offsets, values, out, |v| c.eq(v))
    }
}

/// Whether each row contains the finder's needle (`LIKE '%needle%'` for a
/// binary collation).
pub fn contains_offsets<O: Offset + Into<i64>>(
    offsets: &[O],
    values: &[u8],
    f: &SubstringFinder,
    out: &mut [u64],
) -> Result<(), OffsetsError> {
    fill_mask(offsets, values, out, |v| f.find(v).is_some())
}
