//! What a collation is, as data: its kind (one per concrete collator type),
//! its trailing-space rule and MariaDB's description of it. The generated
//! tables, the collators and the [`Collation`](crate::Collation) handle are
//! all built on these, so they sit below every one of them.

use crate::charset::Charset;

/// The trailing-space rule of a collation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pad {
    /// The shorter operand compares as if padded with spaces: `'a' = 'a '`,
    /// and `'a\t' < 'a'` (tab sorts before the padding space).
    Space,
    /// Trailing spaces are characters like any other: `'a' < 'a '`.
    NoPad,
}

/// Which implementation a collation uses; one variant per concrete
/// [`Collator`](crate::Collator) type, so that [`with_collator!`](crate::with_collator)
/// can monomorphize a loop per variant.
///
/// The order is the order of the generated table; part 2 (the UCA
/// collations) appends its variants here and to the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CollationKind {
    Binary,
    Utf8mb4Bin,
    Utf8mb4NopadBin,
    Utf8mb4GeneralCi,
    Utf8mb4GeneralNopadCi,
    Utf8mb3Bin,
    Utf8mb3NopadBin,
    Utf8mb3GeneralCi,
    Utf8mb3GeneralNopadCi,
    Latin1SwedishCi,
    Latin1SwedishNopadCi,
    Latin1Bin,
    Latin1NopadBin,
    AsciiGeneralCi,
    AsciiGeneralNopadCi,
    AsciiBin,
    AsciiNopadBin,
    Utf8mb4UnicodeCi,
    Utf8mb4Unicode520Ci,
    Utf8mb4Uca1400AiCi,
    Utf8mb3UnicodeCi,
    Utf8mb3Unicode520Ci,
    Utf8mb4UnicodeNopadCi,
    Utf8mb4Unicode520NopadCi,
    Utf8mb4Uca1400NopadAiCi,
    Utf8mb3UnicodeNopadCi,
    Utf8mb3Unicode520NopadCi,
    Utf8mb3Uca1400AiCi,
    Utf8mb3Uca1400NopadAiCi,
    Utf8mb40900AiCi,
    Utf8mb40900Bin,
    // The latin1 and ascii collations over text kept as UTF-8
    // (`crate::over_utf8`): not in the generated table, same names and ids.
    Latin1SwedishCiText,
    Latin1SwedishNopadCiText,
    Latin1BinText,
    Latin1NopadBinText,
    AsciiGeneralCiText,
    AsciiGeneralNopadCiText,
    AsciiBinText,
    AsciiNopadBinText,
}

/// What MariaDB says about a collation (information_schema.COLLATIONS).
#[derive(Debug, PartialEq, Eq)]
pub struct CollationInfo {
    /// MariaDB's numeric id (`SHOW COLLATION`), e.g. 45 for utf8mb4_general_ci.
    pub id: u16,
    /// Canonical name, lower case (`utf8mb3_*`, never the `utf8_*` alias).
    pub name: &'static str,
    pub charset: Charset,
    pub pad: Pad,
    /// Whether this is its charset's default collation.
    pub is_default: bool,
    pub kind: CollationKind,
}
