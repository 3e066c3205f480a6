//! The collations: their MariaDB identity and the [`Collation`] handle.

use std::fmt;

use crate::charset::Charset;
use crate::generated::{ALIASES, COLLATIONS};
use crate::info::{CollationInfo, CollationKind, Pad};
use crate::text_kinds::{byte_form, text_form, FIRST_TEXT_KIND, TEXT_COLLATIONS};

/// A collation: a cheap `Copy` handle to its static description.
///
/// Per-value methods ([`Collation::compare`], [`Collation::eq`], ...)
/// dispatch on the kind at every call; batch loops should instead enter a
/// monomorphized function once with [`with_collator!`](crate::with_collator)
/// or [`Collation::dispatch`].
#[derive(Clone, Copy)]
pub struct Collation(&'static CollationInfo);

impl Collation {
    /// The collation of a kind.
    pub fn of(kind: CollationKind) -> Collation {
        match (kind as usize).checked_sub(FIRST_TEXT_KIND as usize) {
            Some(i) => Collation(&TEXT_COLLATIONS[i].0),
            None => Collation(&COLLATIONS[kind as usize]),
        }
    }

    /// The form of this collation over text kept as UTF-8, as the engine
    /// keeps every string: the `...Text` kind of a latin1 or ascii
    /// collation (same id and name), else the collation itself.
    pub fn over_utf8(self) -> Collation {
        text_form(self.kind()).map_or(self, Collation::of)
    }

    /// The collation over the charset's own bytes: the inverse of
    /// [`Collation::over_utf8`].
    pub fn byte_form(self) -> Collation {
        byte_form(self.kind()).map_or(self, Collation::of)
    }

    /// Whether values are UTF-8 text whatever the charset says (the utf8
    /// collations and the forms of [`Collation::over_utf8`]).
    pub fn is_text(self) -> bool {
        matches!(self.charset(), Charset::Utf8mb4 | Charset::Utf8mb3)
            || byte_form(self.kind()).is_some()
    }

    /// Whether this is a `_bin` collation (or `binary`): in MySQL's rules
    /// it wins over another collation of its charset with the same
    /// coercibility.
    pub fn is_bin(self) -> bool {
        self.name() == "binary" || self.name().ends_with("_bin")
    }

    /// `binary`.
    pub fn binary() -> Collation {
        Collation::of(CollationKind::Binary)
    }

    /// `utf8mb4_bin` (the engine's default).
    pub fn utf8mb4_bin() -> Collation {
        Collation::of(CollationKind::Utf8mb4Bin)
    }

    /// `utf8mb4_general_ci` (MariaDB's default for utf8mb4).
    pub fn utf8mb4_general_ci() -> Collation {
        Collation::of(CollationKind::Utf8mb4GeneralCi)
    }

    /// Looks a collation up by name, case-insensitively; `utf8_*` names
    /// resolve to `utf8mb3_*` as in MariaDB 10.11.
    pub fn from_name(name: &str) -> Option<Collation> {
        let lower = name.to_ascii_lowercase();
        let canonical = ALIASES
            .iter()
            .find(|(alias, _)| *alias == lower)
            .map_or(lower.as_str(), |(_, target)| target);
        COLLATIONS
            .iter()
            .find(|c| c.name == canonical)
            .map(Collation)
    }

    /// Looks a collation up by MariaDB's numeric id.
    pub fn from_id(id: u16) -> Option<Collation> {
        COLLATIONS.iter().find(|c| c.id == id).map(Collation)
    }

    /// The default collation of a charset (by name, case-insensitive; `utf8`
    /// is `utf8mb3`): `utf8mb4` gives `utf8mb4_general_ci`, as in MariaDB.
    pub fn default_for_charset(charset: &str) -> Option<Collation> {
        let cs = Charset::from_name(charset)?;
        COLLATIONS
            .iter()
            .find(|c| c.charset == cs && c.is_default)
            .map(Collation)
    }

    /// Every collation of the crate.
    pub fn all() -> impl Iterator<Item = Collation> {
        COLLATIONS.iter().map(Collation)
    }

    pub fn info(self) -> &'static CollationInfo {
        self.0
    }
    pub fn id(self) -> u16 {
        self.0.id
    }
    pub fn name(self) -> &'static str {
        self.0.name
    }
    pub fn charset(self) -> Charset {
        self.0.charset
    }
    pub fn pad(self) -> Pad {
        self.0.pad
    }
    pub fn is_pad_space(self) -> bool {
        self.0.pad == Pad::Space
    }
    pub fn is_default(self) -> bool {
        self.0.is_default
    }
    pub fn kind(self) -> CollationKind {
        self.0.kind
    }
}

impl PartialEq for Collation {
    fn eq(&self, other: &Collation) -> bool {
        self.0.kind == other.0.kind
    }
}
impl Eq for Collation {}

impl std::hash::Hash for Collation {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.kind.hash(state)
    }
}

impl fmt::Debug for Collation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name)
    }
}

impl fmt::Display for Collation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_order_matches_kinds() {
        for (i, c) in COLLATIONS.iter().enumerate() {
            assert_eq!(c.kind as usize, i, "{}", c.name);
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(Collation::from_name("UTF8MB4_General_CI").unwrap().id(), 45);
        assert_eq!(Collation::from_name("utf8mb4_bin").unwrap().id(), 46);
        assert_eq!(Collation::from_name("binary").unwrap().id(), 63);
        assert_eq!(
            Collation::from_name("utf8_bin").unwrap().name(),
            "utf8mb3_bin"
        );
        assert_eq!(Collation::from_name("nope"), None);
        assert_eq!(Collation::from_id(8).unwrap().name(), "latin1_swedish_ci");
        assert_eq!(
            Collation::default_for_charset("utf8mb4").unwrap().name(),
            "utf8mb4_general_ci"
        );
        assert_eq!(
            Collation::default_for_charset("UTF8").unwrap().name(),
            "utf8mb3_general_ci"
        );
        assert_eq!(
            Collation::default_for_charset("binary").unwrap().name(),
            "binary"
        );
        assert_eq!(
            Collation::default_for_charset("latin1").unwrap().name(),
            "latin1_swedish_ci"
        );
        assert!(Collation::from_name("utf8mb4_nopad_bin").unwrap().pad() == Pad::NoPad);
        // The UCA collations: MariaDB's ids, MySQL's for 0900.
        for (name, id, pad) in [
            ("utf8mb4_unicode_ci", 224, Pad::Space),
            ("utf8mb4_unicode_520_ci", 246, Pad::Space),
            ("utf8mb4_uca1400_ai_ci", 2304, Pad::Space),
            ("utf8_unicode_ci", 192, Pad::Space),
            ("utf8mb3_unicode_520_ci", 214, Pad::Space),
            ("UTF8MB4_0900_AI_CI", 255, Pad::NoPad),
            ("utf8mb4_0900_bin", 309, Pad::NoPad),
        ] {
            let c = Collation::from_name(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!((c.id(), c.pad()), (id, pad), "{name}");
            assert!(!c.is_default());
        }
        assert_eq!(
            Collation::from_name("utf8_unicode_ci").unwrap().name(),
            "utf8mb3_unicode_ci"
        );
        assert!(Collation::from_name("utf8mb4_0900_bin")
            .unwrap()
            .is_binary_eq());
        assert!(!Collation::from_name("utf8mb4_0900_ai_ci")
            .unwrap()
            .is_binary_eq());
    }
}
