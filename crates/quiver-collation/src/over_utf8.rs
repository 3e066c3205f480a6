//! The latin1 and ascii collations over text kept as UTF-8.
//!
//! The engine stores every string as UTF-8, latin1 and ascii columns too
//! (see [`crate::text`]). [`OverUtf8`] runs a single-byte collator of
//! [`crate::collators`] on such text: each UTF-8 character is mapped to its
//! byte in the charset (`?` when the charset cannot hold it, as a
//! conversion would write) and the byte collator decides. Equality, order,
//! hash, `WEIGHT_STRING`, normalized keys and `LIKE` are therefore exactly
//! the byte collation's over the converted bytes, so hash and equality agree
//! by construction. ASCII-only values are the same bytes in both forms and
//! go to the byte collator without conversion.
//!
//! Each has its own [`CollationKind`] (`...Text`), with the MariaDB id, name
//! and charset of the byte collation it wraps: `COLLATION()`, `SHOW` and the
//! protocol see `latin1_swedish_ci` (id 8).
//! [`Collation::over_utf8`](crate::Collation::over_utf8) maps a byte
//! collation to its text form; the lookups by name and id give the byte
//! forms.

use std::cmp::Ordering;

use quiver_string_kernels as sk;

use crate::charset::{decode_utf8, Charset};
use crate::collator::Collator;
use crate::collators::{
    AsciiBin, AsciiGeneralCi, AsciiGeneralNopadCi, AsciiNopadBin, Latin1Bin, Latin1NopadBin,
    Latin1SwedishCi, Latin1SwedishNopadCi,
};
use crate::info::CollationKind;
use crate::simple::SimpleWeights;
use crate::text;
use crate::text_kinds::text_kind;

/// A single-byte collator `C` over UTF-8 text (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct OverUtf8<C>(C);

/// Runs `f` on the bytes of `s` in `charset`: `s` itself when ASCII, else a
/// converted copy (on the stack when short).
#[inline]
fn with_bytes<R>(charset: Charset, s: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    if sk::is_ascii(s) {
        return f(s);
    }
    const STACK: usize = 256;
    if s.len() <= STACK {
        let mut buf = [0u8; STACK];
        let n = text::encode_into(charset, s, &mut buf);
        f(&buf[..n])
    } else {
        let mut v = Vec::with_capacity(s.len());
        text::encode(charset, s, &mut v);
        f(&v)
    }
}

/// The UTF-8 text of a case mapping of `s`: `map` writes the mapped bytes
/// of the charset.
fn case_text<C: Collator>(s: &[u8], out: &mut Vec<u8>, map: impl FnOnce(&[u8], &mut Vec<u8>)) {
    if sk::is_ascii(s) {
        // The case tables map ASCII to ASCII: the bytes are the text.
        map(s, out);
        return;
    }
    let mut bytes = Vec::with_capacity(s.len());
    with_bytes(C::CHARSET, s, |b| map(b, &mut bytes));
    let mut t = String::new();
    text::decode(C::CHARSET, &bytes, &mut t);
    out.extend_from_slice(t.as_bytes());
}

/// One weight per UTF-8 character: the byte collation's weight of the
/// character's byte (for the plain per-character versions of `naive`).
impl<C: SimpleWeights> SimpleWeights for OverUtf8<C>
where
    C: Collator,
{
    const PAD: bool = <C as SimpleWeights>::PAD;
    #[inline]
    fn weight_at(s: &[u8]) -> (u32, usize) {
        let (cp, len) = decode_utf8::<true>(s);
        let b = text::encode_code_point(<C as Collator>::CHARSET, cp).unwrap_or(text::REPLACEMENT);
        (C::weight_at(&[b]).0, len)
    }
}

impl<C: Collator> Collator for OverUtf8<C> {
    const KIND: CollationKind = text_kind(C::KIND);
    const PAD_SPACE: bool = C::PAD_SPACE;
    /// Values are UTF-8 text; the collation's charset (`Collation::charset`)
    /// is the single-byte one.
    const CHARSET: Charset = Charset::Utf8mb4;
    // Equality is byte equality of the text, but order is not its byte order
    // ('€' is 0x80 in latin1, above 'é' in UTF-8): not BINARY_EQ.
    const BINARY_EQ: bool = false;
    const ASCII_CI: bool = C::ASCII_CI;

    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        with_bytes(C::CHARSET, a, |a| {
            with_bytes(C::CHARSET, b, |b| self.0.compare(a, b))
        })
    }
    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        with_bytes(C::CHARSET, a, |a| {
            with_bytes(C::CHARSET, b, |b| self.0.eq(a, b))
        })
    }
    #[inline]
    fn hash(&self, s: &[u8], seed: u64) -> u64 {
        with_bytes(C::CHARSET, s, |s| self.0.hash(s, seed))
    }
    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>) {
        with_bytes(C::CHARSET, s, |s| self.0.sort_key(s, out))
    }
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        with_bytes(C::CHARSET, s, |s| self.0.normalized_key(s, out))
    }
    fn upper_len(&self, s: &[u8]) -> usize {
        let mut out = Vec::new();
        self.to_upper(s, &mut out);
        out.len()
    }
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        case_text::<C>(s, out, |b, o| self.0.to_upper(b, o))
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        let mut out = Vec::new();
        self.to_lower(s, &mut out);
        out.len()
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        case_text::<C>(s, out, |b, o| self.0.to_lower(b, o))
    }
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        if sk::is_ascii(hay) && sk::is_ascii(needle) {
            return self.0.locate(needle, hay);
        }
        // The byte collator finds a character index; map it back to UTF-8.
        let mut h = Vec::with_capacity(hay.len());
        let mut starts = Vec::with_capacity(hay.len() + 1);
        let mut i = 0;
        while i < hay.len() {
            starts.push(i);
            i += decode_utf8::<true>(&hay[i..]).1;
        }
        starts.push(hay.len());
        text::encode(C::CHARSET, hay, &mut h);
        let at = with_bytes(C::CHARSET, needle, |n| self.0.locate(n, &h))?;
        starts.get(at).copied()
    }
    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        let (cp, len) = decode_utf8::<true>(s);
        let b = text::encode_code_point(C::CHARSET, cp).unwrap_or(text::REPLACEMENT);
        (self.0.like_key(&[b]).0, len)
    }
}

/// `latin1_swedish_ci` over UTF-8 text.
pub type Latin1SwedishCiText = OverUtf8<Latin1SwedishCi>;
/// `latin1_swedish_nopad_ci` over UTF-8 text.
pub type Latin1SwedishNopadCiText = OverUtf8<Latin1SwedishNopadCi>;
/// `latin1_bin` over UTF-8 text.
pub type Latin1BinText = OverUtf8<Latin1Bin>;
/// `latin1_nopad_bin` over UTF-8 text.
pub type Latin1NopadBinText = OverUtf8<Latin1NopadBin>;
/// `ascii_general_ci` over UTF-8 text.
pub type AsciiGeneralCiText = OverUtf8<AsciiGeneralCi>;
/// `ascii_general_nopad_ci` over UTF-8 text.
pub type AsciiGeneralNopadCiText = OverUtf8<AsciiGeneralNopadCi>;
/// `ascii_bin` over UTF-8 text.
pub type AsciiBinText = OverUtf8<AsciiBin>;
/// `ascii_nopad_bin` over UTF-8 text.
pub type AsciiNopadBinText = OverUtf8<AsciiNopadBin>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Collation;

    #[test]
    fn latin1_over_text() {
        let c = Collation::from_name("latin1_swedish_ci")
            .unwrap()
            .over_utf8();
        assert!(c.eq("é".as_bytes(), b"E"));
        assert!(c.eq("Ä".as_bytes(), "Æ".as_bytes()));
        // '€' is 0x80 in latin1: below 'é' (0xE9 weighs 'E' = 0x45? no: 0x80 > 0x45).
        assert_eq!(c.compare("€".as_bytes(), b"z"), Ordering::Greater);
        let mut k = Vec::new();
        c.sort_key("é€".as_bytes(), &mut k);
        assert_eq!(k, [0x45, 0x80]);
        let bin = Collation::from_name("latin1_bin").unwrap().over_utf8();
        assert_eq!(bin.compare("€".as_bytes(), "é".as_bytes()), Ordering::Less);
        assert!(bin.eq("é ".as_bytes(), "é".as_bytes()));
        assert_eq!(c.char_length("é€a".as_bytes()), 3);
        assert_eq!(c.locate_position("€".as_bytes(), "aé€".as_bytes()), 3);
        let mut up = Vec::new();
        c.to_upper("aéÿ".as_bytes(), &mut up);
        assert_eq!(up, "AÉÿ".as_bytes());
        assert_eq!(c.upper_len("aéÿ".as_bytes()), up.len());
    }
}
