//! The `...Text` collation kinds (latin1 and ascii over text kept as
//! UTF-8), as data: MariaDB's description of each (the id, name and charset
//! of the byte collation it wraps) and the map between byte and text forms.
//! The [`Collation`](crate::Collation) handle reads it without reaching the
//! collators of `over_utf8.rs`, which read it too.

use crate::charset::Charset;
use crate::info::{CollationInfo, CollationKind, Pad};

/// The kind of the text form of a byte collation kind.
pub(crate) const fn text_kind(kind: CollationKind) -> CollationKind {
    match kind {
        CollationKind::Latin1SwedishCi => CollationKind::Latin1SwedishCiText,
        CollationKind::Latin1SwedishNopadCi => CollationKind::Latin1SwedishNopadCiText,
        CollationKind::Latin1Bin => CollationKind::Latin1BinText,
        CollationKind::Latin1NopadBin => CollationKind::Latin1NopadBinText,
        CollationKind::AsciiGeneralCi => CollationKind::AsciiGeneralCiText,
        CollationKind::AsciiGeneralNopadCi => CollationKind::AsciiGeneralNopadCiText,
        CollationKind::AsciiBin => CollationKind::AsciiBinText,
        CollationKind::AsciiNopadBin => CollationKind::AsciiNopadBinText,
        _ => panic!("not a single-byte collation"),
    }
}

/// The text form of a byte collation kind, if it has one.
pub(crate) fn text_form(kind: CollationKind) -> Option<CollationKind> {
    Some(match kind {
        CollationKind::Latin1SwedishCi
        | CollationKind::Latin1SwedishNopadCi
        | CollationKind::Latin1Bin
        | CollationKind::Latin1NopadBin
        | CollationKind::AsciiGeneralCi
        | CollationKind::AsciiGeneralNopadCi
        | CollationKind::AsciiBin
        | CollationKind::AsciiNopadBin => text_kind(kind),
        _ => return None,
    })
}

/// The byte collation kind a text kind wraps, if `kind` is a text kind.
pub(crate) fn byte_form(kind: CollationKind) -> Option<CollationKind> {
    let i = (kind as usize).checked_sub(FIRST_TEXT_KIND as usize)?;
    Some(TEXT_COLLATIONS.get(i)?.1)
}

/// The first text kind: the text kinds follow every byte kind, in the order
/// of [`TEXT_COLLATIONS`].
pub(crate) const FIRST_TEXT_KIND: CollationKind = CollationKind::Latin1SwedishCiText;

macro_rules! text_info {
    ($id:expr, $name:expr, $cs:ident, $pad:ident, $default:expr, $kind:ident, $byte:ident) => {
        (
            CollationInfo {
                id: $id,
                name: $name,
                charset: Charset::$cs,
                pad: Pad::$pad,
                is_default: $default,
                kind: CollationKind::$kind,
            },
            CollationKind::$byte,
        )
    };
}

/// The text collations (MariaDB's ids and names of the byte collations
/// they wrap), in the order of their kinds, each with its byte kind.
pub(crate) static TEXT_COLLATIONS: [(CollationInfo, CollationKind); 8] = [
    text_info!(
        8,
        "latin1_swedish_ci",
        Latin1,
        Space,
        true,
        Latin1SwedishCiText,
        Latin1SwedishCi
    ),
    text_info!(
        1032,
        "latin1_swedish_nopad_ci",
        Latin1,
        NoPad,
        false,
        Latin1SwedishNopadCiText,
        Latin1SwedishNopadCi
    ),
    text_info!(
        47,
        "latin1_bin",
        Latin1,
        Space,
        false,
        Latin1BinText,
        Latin1Bin
    ),
    text_info!(
        1071,
        "latin1_nopad_bin",
        Latin1,
        NoPad,
        false,
        Latin1NopadBinText,
        Latin1NopadBin
    ),
    text_info!(
        11,
        "ascii_general_ci",
        Ascii,
        Space,
        true,
        AsciiGeneralCiText,
        AsciiGeneralCi
    ),
    text_info!(
        1035,
        "ascii_general_nopad_ci",
        Ascii,
        NoPad,
        false,
        AsciiGeneralNopadCiText,
        AsciiGeneralNopadCi
    ),
    text_info!(65, "ascii_bin", Ascii, Space, false, AsciiBinText, AsciiBin),
    text_info!(
        1089,
        "ascii_nopad_bin",
        Ascii,
        NoPad,
        false,
        AsciiNopadBinText,
        AsciiNopadBin
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Collation;

    #[test]
    fn text_forms_mirror_byte_forms() {
        for (info, byte) in &TEXT_COLLATIONS {
            let b = Collation::of(*byte);
            let t = Collation::of(info.kind);
            assert_eq!(
                (t.id(), t.name(), t.charset(), t.pad(), t.is_default()),
                (b.id(), b.name(), b.charset(), b.pad(), b.is_default())
            );
            assert_eq!(b.over_utf8(), t);
            assert_eq!(t.over_utf8(), t);
            assert_eq!(t.byte_form(), b);
            assert_eq!(byte_form(info.kind), Some(*byte));
        }
        assert_eq!(
            Collation::utf8mb4_bin().over_utf8(),
            Collation::utf8mb4_bin()
        );
    }
}
