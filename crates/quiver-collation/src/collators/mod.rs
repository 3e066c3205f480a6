//! The concrete collators: one zero-sized type per [`CollationKind`](crate::CollationKind).
//!
//! | type | collations |
//! |---|---|
//! | [`Binary`] | `binary` |
//! | [`ByteBin`] | `latin1_bin`, `latin1_nopad_bin`, `ascii_bin`, `ascii_nopad_bin` |
//! | [`ByteCi`] | `latin1_swedish_ci`, `latin1_swedish_nopad_ci`, `ascii_general_ci`, `ascii_general_nopad_ci` |
//! | [`Utf8Bin`] | `utf8mb4_bin`, `utf8mb4_nopad_bin`, `utf8mb3_bin`, `utf8mb3_nopad_bin` |
//! | [`Utf8GeneralCi`] | `utf8mb4_general_ci`, `utf8mb4_general_nopad_ci`, `utf8mb3_general_ci`, `utf8mb3_general_nopad_ci` |
//! | [`Uca`] | `utf8mb4_unicode_ci`, `utf8mb4_unicode_520_ci`, `utf8mb4_uca1400_ai_ci`, `utf8mb3_unicode_ci`, `utf8mb3_unicode_520_ci`, `utf8mb4_0900_ai_ci` (see [`crate::uca`]) |
//! | [`Utf8mb40900Bin`] | `utf8mb4_0900_bin` |
//!
//! One file per family (`common.rs` holds what they share); every type is
//! re-exported here, the UCA ones from [`crate::uca`], so
//! `crate::collators::X` names any collator.

mod byte;
pub(crate) mod common;
pub(crate) mod utf8;

pub use byte::{
    AsciiBin, AsciiGeneralCi, AsciiGeneralNopadCi, AsciiNopadBin, Binary, ByteBin, ByteCi,
    Latin1Bin, Latin1NopadBin, Latin1SwedishCi, Latin1SwedishNopadCi,
};
pub use utf8::{
    Utf8Bin, Utf8GeneralCi, Utf8mb3Bin, Utf8mb3GeneralCi, Utf8mb3GeneralNopadCi, Utf8mb3NopadBin,
    Utf8mb4Bin, Utf8mb4GeneralCi, Utf8mb4GeneralNopadCi, Utf8mb4NopadBin,
};

pub use crate::uca::{
    Uca, Utf8mb3Unicode520Ci, Utf8mb3UnicodeCi, Utf8mb40900AiCi, Utf8mb40900Bin,
    Utf8mb4Uca1400AiCi, Utf8mb4Unicode520Ci, Utf8mb4UnicodeCi,
};

#[cfg(test)]
mod tests {
    use super::utf8::general_ci_weight;
    use crate::generated as tables;

    /// The fast paths rest on these facts of the generated tables.
    #[test]
    fn table_invariants() {
        // Only U+0020 / byte 0x20 weighs as the padding space, so trailing
        // space logic can work on bytes.
        for cp in 0..0x1_0000u32 {
            assert_eq!(general_ci_weight(cp) == 0x20, cp == 0x20, "U+{cp:04X}");
        }
        for b in 0..=255u8 {
            let i = usize::from(b);
            assert_eq!(tables::LATIN1_SWEDISH_CI_WEIGHTS[i] == 0x20, b == 0x20);
            assert_eq!(tables::ASCII_GENERAL_CI_WEIGHTS[i] == 0x20, b == 0x20);
        }
        // ASCII characters weigh as their ASCII upper case under every `_ci`
        // collation here, and the 8-bit UPPER tables uppercase ASCII the same.
        for b in 0..0x80u8 {
            let i = usize::from(b);
            let up = b.to_ascii_uppercase();
            assert_eq!(general_ci_weight(u32::from(b)), u32::from(up));
            assert_eq!(tables::LATIN1_SWEDISH_CI_WEIGHTS[i], up);
            assert_eq!(tables::ASCII_GENERAL_CI_WEIGHTS[i], up);
            assert_eq!(tables::LATIN1_UPPER[i], up);
            assert_eq!(tables::ASCII_UPPER[i], up);
            assert_eq!(tables::LATIN1_LOWER[i], b.to_ascii_lowercase());
            assert_eq!(tables::ASCII_LOWER[i], b.to_ascii_lowercase());
        }
        // Weights fit the normalized key encodings (general_ci: <= 0xFFFF).
        assert!((0..0x1_0000u32).all(|cp| general_ci_weight(cp) <= 0xFFFF));
    }
}
