//! Plain per-character versions of the operations: decode every character,
//! look its weight up, compare. They define what the fast paths compute
//! (property tests check one against the other) and are the benchmark's
//! "naive" baseline. Not for production use: slow on purpose.

use std::cmp::Ordering;

use crate::collators::*;
use crate::registry::{Collation, CollationKind};
use crate::simple::{self, SimpleWeights};

/// Runs `$body` with `$w` naming the concrete type of a collation, for code
/// generic over [`SimpleWeights`].
macro_rules! with_weights {
    ($collation:expr, $w:ident => $body:expr) => {
        match $collation.kind() {
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
        }
    };
}

/// Weights of every character of `s`, in order (invalid bytes included).
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
    with_weights!(collation, W => go::<W>(s))
}

/// Order by weights, character by character, with the pad rule.
pub fn compare(collation: Collation, a: &[u8], b: &[u8]) -> Ordering {
    with_weights!(collation, W => simple::compare_from::<W>(a, b, 0, 0))
}

/// `compare(..) == Equal`.
pub fn eq(collation: Collation, a: &[u8], b: &[u8]) -> bool {
    compare(collation, a, b) == Ordering::Equal
}

/// `LOCATE` by weights at every character boundary.
pub fn locate(collation: Collation, needle: &[u8], hay: &[u8]) -> Option<usize> {
    with_weights!(collation, W => simple::locate_by_weights::<W>(needle, hay))
}
