//! Substring search with a needle prepared once.

use crate::isa::Isa;
use crate::run_on;

/// A substring searcher prepared once for a constant needle, e.g. one
/// `%piece%` run of a `LIKE` pattern applied to every value of a column.
///
/// The empty needle is found at 0 in every haystack.
#[derive(Clone, Debug)]
pub struct SubstringFinder {
    needle: Box<[u8]>,
    isa: Isa,
}

impl SubstringFinder {
    /// Prepares `needle` for the active ISA.
    pub fn new(needle: &[u8]) -> Self {
        Self::with_isa(needle, Isa::active())
    }

    /// Prepares `needle` for a chosen code path (portable if the CPU lacks it).
    pub fn with_isa(needle: &[u8], isa: Isa) -> Self {
        SubstringFinder {
            needle: needle.into(),
            isa: isa.checked(),
        }
    }

    /// The needle this finder searches for.
    pub fn needle(&self) -> &[u8] {
        &self.needle
    }

    /// The code path [`SubstringFinder::find`] runs on.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Position of the first occurrence of the needle in `hay`.
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        let needle = &self.needle[..];
        match needle.len() {
            0 => Some(0),
            1 => run_on!(self.isa, memchr(needle[0], hay)),
            n => {
                let mut from = 0;
                while from + n <= hay.len() {
                    let i =
                        from + run_on!(self.isa, memchr(needle[0], &hay[from..=hay.len() - n]))?;
                    if run_on!(self.isa, bytes_eq(&hay[i..i + n], needle)) {
                        return Some(i);
                    }
                    from = i + 1;
                }
                None
            }
        }
    }

    /// Whether the needle occurs in `hay`.
    #[inline]
    pub fn is_match(&self, hay: &[u8]) -> bool {
        self.find(hay).is_some()
    }
}
