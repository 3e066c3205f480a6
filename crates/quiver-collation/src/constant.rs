//! A constant operand prepared once for many comparisons.

use quiver_string_kernels::{self as sk, PreparedConstant, PreparedFoldedConstant};

/// The constant side of `col = 'const'`, prepared once: its bytes, its
/// trailing-space-trimmed form (for PAD SPACE), whether it is ASCII, and the
/// byte kernel's fixed-size form. Pass it to
/// [`Collator::eq_const`](crate::Collator::eq_const).
#[derive(Clone, Debug)]
pub struct CollatedConstant {
    bytes: Box<[u8]>,
    trimmed_len: usize,
    ascii: bool,
    kernel: PreparedConstant,
    /// The constant uppercased, for the `_ci` column kernel (ASCII only).
    folded: Option<PreparedFoldedConstant>,
}

impl CollatedConstant {
    /// Prepares `c` (collation-independent work only, so one prepared
    /// constant serves every collation).
    pub fn new(c: &[u8]) -> Self {
        CollatedConstant {
            bytes: c.into(),
            trimmed_len: sk::trim_end_spaces(c).len(),
            ascii: sk::is_ascii(c),
            kernel: PreparedConstant::new(c),
            folded: PreparedFoldedConstant::new(c),
        }
    }

    /// The constant as given.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The constant without its trailing 0x20 bytes.
    pub fn trimmed(&self) -> &[u8] {
        &self.bytes[..self.trimmed_len]
    }

    /// Whether every byte is below 0x80.
    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    pub(crate) fn kernel(&self) -> &PreparedConstant {
        &self.kernel
    }

    /// The constant uppercased, for the `_ci` column kernel (ASCII only).
    pub(crate) fn folded(&self) -> Option<&PreparedFoldedConstant> {
        self.folded.as_ref()
    }
}
