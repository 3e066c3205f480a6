//! `col = constant` over a whole string column: a [`CollatedConstant`]
//! under a [`Collator`], into a bitmask. Apart from `constant.rs` because
//! the collators take a prepared constant (`Collator::eq_const`) and this
//! loop takes a collator.

use quiver_string_kernels::{self as sk, Offset, OffsetsError};

use crate::collator::Collator;
use crate::constant::CollatedConstant;

impl CollatedConstant {
    /// `col = constant` under collator `k` for every row of a string column
    /// (`offsets[i]..offsets[i + 1]` into `values`), into a bitmask: bit
    /// `i % 64` of word `i / 64` for row `i`, as
    /// [`eq_const_offsets`](quiver_string_kernels::eq_const_offsets) writes
    /// it. Every row gets [`Collator::eq_const`]'s answer:
    ///
    /// - byte-comparing collations run the SIMD byte kernel (a length test
    ///   from the offsets first, then fixed-size compares);
    /// - the ASCII `_ci` collations ([`Collator::ASCII_CI`]: every character
    ///   has exactly one weight, ASCII letters weigh as their upper case,
    ///   only the space weighs as a space) with an ASCII constant run the
    ///   folding kernel: a row shorter than the constant (trimmed under PAD
    ///   SPACE) has too few characters to be equal, an ASCII row is decided
    ///   by its uppercased bytes, and only rows with other bytes where the
    ///   constant is compared go to `eq_const`;
    /// - anything else calls `eq_const` per row.
    ///
    /// Errors (and leaves `out` unspecified) if the offsets are not a valid
    /// column over `values` or `out` is too short.
    pub fn eq_column<C: Collator, O: Offset>(
        &self,
        k: C,
        offsets: &[O],
        values: &[u8],
        out: &mut [u64],
    ) -> Result<(), OffsetsError> {
        self.eq_column_shaped(k, offsets, values, sk::RowHints::default(), out)
    }

    /// [`CollatedConstant::eq_column`] over rows storage knows something
    /// of (a page's shape, which rows end in a space), which lets the byte
    /// and folding kernels rule out rows by length alone (see
    /// [`sk::RowHints`]).
    pub fn eq_column_shaped<C: Collator, O: Offset>(
        &self,
        k: C,
        offsets: &[O],
        values: &[u8],
        hints: sk::RowHints<'_>,
        out: &mut [u64],
    ) -> Result<(), OffsetsError> {
        if C::BINARY_EQ {
            return sk::eq_const_offsets_shaped(
                offsets,
                values,
                self.kernel(),
                C::PAD_SPACE,
                hints,
                out,
            );
        }
        if let (true, Some(folded)) = (C::ASCII_CI, self.folded()) {
            return sk::eq_const_folded_offsets_shaped(
                offsets,
                values,
                folded,
                C::PAD_SPACE,
                hints,
                out,
                |v| k.eq_const(self, v),
            );
        }
        let rows = offsets.len().saturating_sub(1);
        let needed_words = rows.div_ceil(64);
        if out.len() < needed_words {
            return Err(OffsetsError::OutputTooShort {
                needed_words,
                words: out.len(),
            });
        }
        out[..needed_words].fill(0);
        for (row, w) in offsets.windows(2).enumerate() {
            let v = match (w[0].to_index(), w[1].to_index()) {
                (Some(s), Some(e)) if s <= e && e <= values.len() => &values[s..e],
                _ => {
                    return Err(OffsetsError::BadRange {
                        row,
                        start: w[0].into(),
                        end: w[1].into(),
                        values_len: values.len(),
                    })
                }
            };
            out[row / 64] |= u64::from(k.eq_const(self, v)) << (row % 64);
        }
        Ok(())
    }
}
