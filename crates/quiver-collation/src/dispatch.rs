//! From a runtime [`Collation`] to code monomorphized per collator type.

use std::cmp::Ordering;

use crate::collator::Collator;
use crate::registry::Collation;

/// Runs `$body` with `$c` bound to the concrete [`Collator`] of a
/// [`Collation`]: one copy of `$body` is compiled per collation kind, so
/// calls on `$c` inside it are static and inlined. Dispatch once per batch:
///
/// ```
/// use quiver_collation::{with_collator, Collation, Collator};
///
/// fn count_eq<C: Collator>(c: C, values: &[&[u8]], constant: &[u8]) -> usize {
///     values.iter().filter(|v| c.eq(v, constant)).count()
/// }
///
/// let coll = Collation::from_name("utf8mb4_general_ci").unwrap();
/// let values: [&[u8]; 3] = [b"abc", b"ABC  ", b"abd"];
/// let n = with_collator!(coll, |c| count_eq(c, &values, b"aBc"));
/// assert_eq!(n, 2);
/// ```
#[macro_export]
macro_rules! with_collator {
    ($collation:expr, |$c:ident| $body:expr) => {{
        use $crate::collators as __qc;
        match $crate::Collation::kind($collation) {
            $crate::CollationKind::Binary => {
                let $c = __qc::Binary;
                $body
            }
            $crate::CollationKind::Utf8mb4Bin => {
                let $c = <__qc::Utf8mb4Bin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4NopadBin => {
                let $c = <__qc::Utf8mb4NopadBin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4GeneralCi => {
                let $c = <__qc::Utf8mb4GeneralCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4GeneralNopadCi => {
                let $c = <__qc::Utf8mb4GeneralNopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3Bin => {
                let $c = <__qc::Utf8mb3Bin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3NopadBin => {
                let $c = <__qc::Utf8mb3NopadBin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3GeneralCi => {
                let $c = <__qc::Utf8mb3GeneralCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3GeneralNopadCi => {
                let $c = <__qc::Utf8mb3GeneralNopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1SwedishCi => {
                let $c = <__qc::Latin1SwedishCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1SwedishNopadCi => {
                let $c = <__qc::Latin1SwedishNopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1Bin => {
                let $c = <__qc::Latin1Bin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1NopadBin => {
                let $c = <__qc::Latin1NopadBin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiGeneralCi => {
                let $c = <__qc::AsciiGeneralCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiGeneralNopadCi => {
                let $c = <__qc::AsciiGeneralNopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiBin => {
                let $c = <__qc::AsciiBin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiNopadBin => {
                let $c = <__qc::AsciiNopadBin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4UnicodeCi => {
                let $c = <__qc::Utf8mb4UnicodeCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4Unicode520Ci => {
                let $c = <__qc::Utf8mb4Unicode520Ci as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4Uca1400AiCi => {
                let $c = <__qc::Utf8mb4Uca1400AiCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3UnicodeCi => {
                let $c = <__qc::Utf8mb3UnicodeCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3Unicode520Ci => {
                let $c = <__qc::Utf8mb3Unicode520Ci as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4UnicodeNopadCi => {
                let $c = <$crate::uca::Utf8mb4UnicodeNopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4Unicode520NopadCi => {
                let $c = <$crate::uca::Utf8mb4Unicode520NopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb4Uca1400NopadAiCi => {
                let $c = <$crate::uca::Utf8mb4Uca1400NopadAiCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3UnicodeNopadCi => {
                let $c = <$crate::uca::Utf8mb3UnicodeNopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3Unicode520NopadCi => {
                let $c = <$crate::uca::Utf8mb3Unicode520NopadCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3Uca1400AiCi => {
                let $c = <$crate::uca::Utf8mb3Uca1400AiCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb3Uca1400NopadAiCi => {
                let $c = <$crate::uca::Utf8mb3Uca1400NopadAiCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb40900AiCi => {
                let $c = <__qc::Utf8mb40900AiCi as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Utf8mb40900Bin => {
                let $c = <__qc::Utf8mb40900Bin as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1SwedishCiText => {
                let $c = <$crate::over_utf8::Latin1SwedishCiText as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1SwedishNopadCiText => {
                let $c = <$crate::over_utf8::Latin1SwedishNopadCiText as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1BinText => {
                let $c = <$crate::over_utf8::Latin1BinText as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::Latin1NopadBinText => {
                let $c = <$crate::over_utf8::Latin1NopadBinText as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiGeneralCiText => {
                let $c = <$crate::over_utf8::AsciiGeneralCiText as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiGeneralNopadCiText => {
                let $c = <$crate::over_utf8::AsciiGeneralNopadCiText as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiBinText => {
                let $c = <$crate::over_utf8::AsciiBinText as ::core::default::Default>::default();
                $body
            }
            $crate::CollationKind::AsciiNopadBinText => {
                let $c = <$crate::over_utf8::AsciiNopadBinText as ::core::default::Default>::default();
                $body
            }
        }
    }};
}

/// A function generic over the collator, for [`Collation::dispatch`] (the
/// non-macro form of [`with_collator!`]).
pub trait CollatorFn {
    type Output;
    fn call<C: Collator>(self, c: C) -> Self::Output;
}

impl Collation {
    /// Calls `f` with this collation's concrete collator (monomorphized).
    pub fn dispatch<F: CollatorFn>(self, f: F) -> F::Output {
        with_collator!(self, |c| f.call(c))
    }

    /// Whether equality is byte equality (after trimming trailing 0x20 under
    /// PAD SPACE) and order is byte order for valid text: `binary` and the
    /// `*_bin` collations ([`Collator::BINARY_EQ`](crate::Collator::BINARY_EQ)).
    /// Such columns can be hashed, grouped and searched as bytes.
    pub fn is_binary_eq(self) -> bool {
        fn of<C: Collator>(_: C) -> bool {
            C::BINARY_EQ
        }
        with_collator!(self, |c| of(c))
    }

    /// [`Collator::compare`], dispatched per call.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        with_collator!(self, |c| c.compare(a, b))
    }

    /// [`Collator::eq`], dispatched per call.
    pub fn eq(self, a: &[u8], b: &[u8]) -> bool {
        with_collator!(self, |c| c.eq(a, b))
    }

    /// [`Collator::hash`], dispatched per call.
    pub fn hash(self, s: &[u8], seed: u64) -> u64 {
        with_collator!(self, |c| c.hash(s, seed))
    }

    /// [`Collator::sort_key`] (`WEIGHT_STRING`), dispatched per call.
    pub fn sort_key(self, s: &[u8], out: &mut Vec<u8>) {
        with_collator!(self, |c| c.sort_key(s, out))
    }

    /// [`Collator::normalized_key`], dispatched per call.
    pub fn normalized_key(self, s: &[u8], out: &mut Vec<u8>) {
        with_collator!(self, |c| c.normalized_key(s, out))
    }

    /// [`Collator::char_length`].
    pub fn char_length(self, s: &[u8]) -> usize {
        with_collator!(self, |c| c.char_length(s))
    }

    /// [`Collator::to_upper`], dispatched per call.
    pub fn to_upper(self, s: &[u8], out: &mut Vec<u8>) {
        with_collator!(self, |c| c.to_upper(s, out))
    }

    /// [`Collator::to_lower`], dispatched per call.
    pub fn to_lower(self, s: &[u8], out: &mut Vec<u8>) {
        with_collator!(self, |c| c.to_lower(s, out))
    }

    /// [`Collator::upper_len`], dispatched per call.
    pub fn upper_len(self, s: &[u8]) -> usize {
        with_collator!(self, |c| c.upper_len(s))
    }

    /// [`Collator::lower_len`], dispatched per call.
    pub fn lower_len(self, s: &[u8]) -> usize {
        with_collator!(self, |c| c.lower_len(s))
    }

    /// [`Collator::locate`], dispatched per call.
    pub fn locate(self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        with_collator!(self, |c| c.locate(needle, hay))
    }

    /// `LOCATE(needle, hay)` as MariaDB returns it: the 1-based character
    /// position of the first match, 0 if none.
    pub fn locate_position(self, needle: &[u8], hay: &[u8]) -> usize {
        match self.locate(needle, hay) {
            Some(off) => self.char_length(&hay[..off]) + 1,
            None => 0,
        }
    }

    /// [`Collator::min`], dispatched per call.
    pub fn min<'a>(self, first: &'a [u8], second: &'a [u8]) -> &'a [u8] {
        with_collator!(self, |c| c.min(first, second))
    }

    /// [`Collator::max`], dispatched per call.
    pub fn max<'a>(self, first: &'a [u8], second: &'a [u8]) -> &'a [u8] {
        with_collator!(self, |c| c.max(first, second))
    }
}
