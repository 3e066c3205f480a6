//! The PCRE2 options MariaDB uses for a comparison collation.

use arrow_schema::DataType;
use quiver_collation::Collation;

/// MariaDB's PCRE2 options for a comparison (`Regexp_processor_pcre::init`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Mode {
    /// UTF-8 text (PCRE2_UTF | PCRE2_UCP): any charset but `binary`, whose
    /// values MariaDB converts to utf8mb4 first (Quiver holds them as UTF-8).
    pub utf: bool,
    /// PCRE2_CASELESS: the collation neither sorts bytes (`_bin`, `binary`)
    /// nor is case-sensitive (`_cs`).
    pub caseless: bool,
}

impl Mode {
    /// The options for values of type `t` compared under `collation`.
    pub fn of(t: &DataType, collation: Collation) -> Mode {
        let bytes = *t == DataType::Binary || collation == Collation::binary();
        let name = collation.name();
        Mode {
            utf: !bytes,
            caseless: !bytes && !collation.is_bin() && !name.ends_with("_cs"),
        }
    }
}
