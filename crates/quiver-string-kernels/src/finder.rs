//! Substring search with a needle prepared once.

use crate::isa::Isa;
use crate::kernels::run_on;

/// A substring searcher prepared once for a constant needle, e.g. one
/// `%piece%` run of a `LIKE` pattern applied to every value of a column.
///
/// One-byte needles use `memchr`. Longer ones pick two probe bytes of the
/// needle that are likely rare in text (by a fixed byte-frequency guess, see
/// `byte_commonness`) and let the SIMD kernel test 32 start positions at a
/// time for both probes before verifying candidates in full; rare probes mean
/// few false candidates. The empty needle is found at 0 in every haystack.
#[derive(Clone, Debug)]
pub struct SubstringFinder {
    needle: Box<[u8]>,
    /// Needle offsets of the two probe bytes (equal only for 1-byte needles).
    probes: (usize, usize),
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
            probes: probe_offsets(needle),
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
    #[inline]
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        let needle = &self.needle[..];
        match needle.len() {
            0 => Some(0),
            1 => run_on!(self.isa, memchr(needle[0], hay)),
            n if n > hay.len() => None,
            n if n == hay.len() => run_on!(self.isa, bytes_eq(hay, needle)).then_some(0),
            _ => {
                let (i1, i2) = self.probes;
                run_on!(self.isa, find_pair(hay, needle, i1, i2))
            }
        }
    }

    /// Whether the needle occurs in `hay`.
    #[inline]
    pub fn is_match(&self, hay: &[u8]) -> bool {
        self.find(hay).is_some()
    }
}

/// The two needle offsets to probe: the rarest byte, then the rarest byte
/// with a different value (so the two compares filter independently), or the
/// last position when every byte is the same (`aaaa`). Ties go to the
/// earlier offset.
fn probe_offsets(needle: &[u8]) -> (usize, usize) {
    let rarest = |skip: Option<u8>| {
        needle
            .iter()
            .enumerate()
            .filter(|&(_, &b)| Some(b) != skip)
            .min_by_key(|&(i, &b)| (byte_commonness(b), i))
            .map(|(i, _)| i)
    };
    let Some(first) = rarest(None) else {
        return (0, 0);
    };
    let second = rarest(Some(needle[first])).unwrap_or(needle.len() - 1);
    (first, second)
}

/// A rough guess of how common byte `b` is in database text (English-like
/// words, identifiers, numbers, URLs), higher is more common. Only the order
/// matters: it picks probe bytes that rarely match by accident.
pub(crate) fn byte_commonness(b: u8) -> u8 {
    // Lower-case letters by approximate English letter frequency.
    const LOWER_BY_FREQUENCY: &[u8; 26] = b"etaoinsrhldcumfpgwybvkxjqz";
    match b {
        b' ' => 255,
        b'a'..=b'z' => {
            let rank = LOWER_BY_FREQUENCY
                .iter()
                .position(|&c| c == b)
                .unwrap_or(25);
            250 - 4 * rank as u8
        }
        b'A'..=b'Z' => {
            let lower = b.to_ascii_lowercase();
            let rank = LOWER_BY_FREQUENCY
                .iter()
                .position(|&c| c == lower)
                .unwrap_or(25);
            140 - 2 * rank as u8
        }
        b'0'..=b'9' => 130,
        b'.' | b',' | b'-' | b'_' | b'/' | b':' | b'=' | b'\'' => 120,
        0x21..=0x7E => 70,
        b'\t' | b'\n' | b'\r' => 60,
        // UTF-8 lead and continuation bytes of common non-ASCII text.
        0x80..=0xBF | 0xC2..=0xE3 => 50,
        _ => 10,
    }
}
