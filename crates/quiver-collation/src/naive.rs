//! Plain per-character versions of the operations: decode every character,
//! look its weight up, compare. They define what the fast paths compute
//! (property tests check one against the other) and are the benchmark's
//! "naive" baseline. Not for production use: slow on purpose.

use std::cmp::Ordering;

use crate::charset::Charset;
use crate::collators::*;
use crate::info::CollationKind;
use crate::registry::Collation;
use crate::simple::{self, SimpleWeights};
use crate::uca;

/// Runs `$body` with `$w` naming the concrete type of a collation, for code
/// generic over [`SimpleWeights`].
macro_rules! with_weights {
    ($collation:expr, $w:ident => $body:expr, uca($t:ident, $mb4:ident, $pad:ident) => $uca:expr) => {
        match $collation.kind() {
            CollationKind::Utf8mb4UnicodeCi
            | CollationKind::Utf8mb4Unicode520Ci
            | CollationKind::Utf8mb4Uca1400AiCi
            | CollationKind::Utf8mb3UnicodeCi
            | CollationKind::Utf8mb3Unicode520Ci
            | CollationKind::Utf8mb4UnicodeNopadCi
            | CollationKind::Utf8mb4Unicode520NopadCi
            | CollationKind::Utf8mb4Uca1400NopadAiCi
            | CollationKind::Utf8mb3UnicodeNopadCi
            | CollationKind::Utf8mb3Unicode520NopadCi
            | CollationKind::Utf8mb3Uca1400AiCi
            | CollationKind::Utf8mb3Uca1400NopadAiCi
            | CollationKind::Utf8mb40900AiCi => {
                let ($t, $mb4, $pad) = uca_params($collation.kind());
                $uca
            }
            CollationKind::Utf8mb40900Bin => {
                type $w = Utf8mb4NopadBin;
                $body
            }
            CollationKind::Binary => {
                type $w = Binary;
                $body
            }
            CollationKind::Utf8mb4Bin => {
                type $w = Utf8mb4Bin;
                $body
            }
            CollationKind::Utf8mb4NopadBin => {
                type $w = Utf8mb4NopadBin;
                $body
            }
            CollationKind::Utf8mb4GeneralCi => {
                type $w = Utf8mb4GeneralCi;
                $body
            }
            CollationKind::Utf8mb4GeneralNopadCi => {
                type $w = Utf8mb4GeneralNopadCi;
                $body
            }
            CollationKind::Utf8mb3Bin => {
                type $w = Utf8mb3Bin;
                $body
            }
            CollationKind::Utf8mb3NopadBin => {
                type $w = Utf8mb3NopadBin;
                $body
            }
            CollationKind::Utf8mb3GeneralCi => {
                type $w = Utf8mb3GeneralCi;
                $body
            }
            CollationKind::Utf8mb3GeneralNopadCi => {
                type $w = Utf8mb3GeneralNopadCi;
                $body
            }
            CollationKind::Latin1SwedishCi => {
                type $w = Latin1SwedishCi;
                $body
            }
            CollationKind::Latin1SwedishNopadCi => {
                type $w = Latin1SwedishNopadCi;
                $body
            }
            CollationKind::Latin1Bin => {
                type $w = Latin1Bin;
                $body
            }
            CollationKind::Latin1NopadBin => {
                type $w = Latin1NopadBin;
                $body
            }
            CollationKind::AsciiGeneralCi => {
                type $w = AsciiGeneralCi;
                $body
            }
            CollationKind::AsciiGeneralNopadCi => {
                type $w = AsciiGeneralNopadCi;
                $body
            }
            CollationKind::AsciiBin => {
                type $w = AsciiBin;
                $body
            }
            CollationKind::AsciiNopadBin => {
                type $w = AsciiNopadBin;
                $body
            }
            CollationKind::Latin1SwedishCiText => {
                type $w = crate::over_utf8::Latin1SwedishCiText;
                $body
            }
            CollationKind::Latin1SwedishNopadCiText => {
                type $w = crate::over_utf8::Latin1SwedishNopadCiText;
                $body
            }
            CollationKind::Latin1BinText => {
                type $w = crate::over_utf8::Latin1BinText;
                $body
            }
            CollationKind::Latin1NopadBinText => {
                type $w = crate::over_utf8::Latin1NopadBinText;
                $body
            }
            CollationKind::AsciiGeneralCiText => {
                type $w = crate::over_utf8::AsciiGeneralCiText;
                $body
            }
            CollationKind::AsciiGeneralNopadCiText => {
                type $w = crate::over_utf8::AsciiGeneralNopadCiText;
                $body
            }
            CollationKind::AsciiBinText => {
                type $w = crate::over_utf8::AsciiBinText;
                $body
            }
            CollationKind::AsciiNopadBinText => {
                type $w = crate::over_utf8::AsciiNopadBinText;
                $body
            }
        }
    };
}

/// Table, utf8mb4 and PAD SPACE of a UCA collation.
fn uca_params(kind: CollationKind) -> (u8, bool, bool) {
    match kind {
        CollationKind::Utf8mb4UnicodeCi => (uca::UCA400, true, true),
        CollationKind::Utf8mb3UnicodeCi => (uca::UCA400, false, true),
        CollationKind::Utf8mb4Unicode520Ci => (uca::UCA520, true, true),
        CollationKind::Utf8mb3Unicode520Ci => (uca::UCA520, false, true),
        CollationKind::Utf8mb4Uca1400AiCi => (uca::UCA1400, true, true),
        CollationKind::Utf8mb4UnicodeNopadCi => (uca::UCA400, true, false),
        CollationKind::Utf8mb3UnicodeNopadCi => (uca::UCA400, false, false),
        CollationKind::Utf8mb4Unicode520NopadCi => (uca::UCA520, true, false),
        CollationKind::Utf8mb3Unicode520NopadCi => (uca::UCA520, false, false),
        CollationKind::Utf8mb4Uca1400NopadAiCi => (uca::UCA1400, true, false),
        CollationKind::Utf8mb3Uca1400AiCi => (uca::UCA1400, false, true),
        CollationKind::Utf8mb3Uca1400NopadAiCi => (uca::UCA1400, false, false),
        _ => (uca::UCA900, true, false),
    }
}

/// UCA: order of the weight sequences, the shorter padded with the space's
/// weight under PAD SPACE.
fn uca_compare(t: u8, mb4: bool, pad: bool, a: &[u8], b: &[u8]) -> Ordering {
    let (wa, wb) = (uca::naive_weights(t, mb4, a), uca::naive_weights(t, mb4, b));
    if !pad {
        return wa.cmp(&wb);
    }
    let space = uca::space_weight(t);
    let n = wa.len().max(wb.len());
    let at = |w: &[u16], i: usize| w.get(i).copied().unwrap_or(space);
    (0..n)
        .map(|i| at(&wa, i).cmp(&at(&wb, i)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// UCA `LOCATE`: at each character boundary (decoded within the bytes that
/// can still start a match), the window of the needle's length with the same
/// weights (NO PAD).
fn uca_locate(t: u8, mb4: bool, needle: &[u8], hay: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    let n = needle.len();
    if n > hay.len() {
        return None;
    }
    let w = uca::naive_weights(t, mb4, needle);
    let limit = hay.len() - n + 1;
    let mut i = 0;
    while i < limit {
        if uca::naive_weights(t, mb4, &hay[i..i + n]) == w {
            return Some(i);
        }
        let cs = if mb4 {
            Charset::Utf8mb4
        } else {
            Charset::Utf8mb3
        };
        i += cs.char_width(&hay[i..limit]);
    }
    None
}

/// Weights of every character of `s`, in order (invalid bytes included);
/// for the UCA collations, the primary weights of the whole string.
pub fn weights(collation: Collation, s: &[u8]) -> Vec<u32> {
    fn go<W: SimpleWeights>(s: &[u8]) -> Vec<u32> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < s.len() {
            let (w, l) = W::weight_at(&s[i..]);
            out.push(w);
            i += l;
        }
        out
    }
    with_weights!(collation, W => go::<W>(s), uca(t, mb4, _pad) => {
        uca::naive_weights(t, mb4, s).into_iter().map(u32::from).collect()
    })
}

/// Order by weights, character by character, with the pad rule.
pub fn compare(collation: Collation, a: &[u8], b: &[u8]) -> Ordering {
    with_weights!(collation, W => simple::compare_from::<W>(a, b, 0, 0),
        uca(t, mb4, pad) => uca_compare(t, mb4, pad, a, b))
}

/// `compare(..) == Equal`.
pub fn eq(collation: Collation, a: &[u8], b: &[u8]) -> bool {
    compare(collation, a, b) == Ordering::Equal
}

/// `LOCATE` by weights at every character boundary.
pub fn locate(collation: Collation, needle: &[u8], hay: &[u8]) -> Option<usize> {
    with_weights!(collation, W => simple::locate_by_weights::<W>(needle, hay),
        uca(t, mb4, _pad) => uca_locate(t, mb4, needle, hay))
}
