//! The [`Collator`] trait: every per-collation operation, implemented by one
//! zero-sized type per collation kind (see [`crate::collators`]).

use std::cmp::Ordering;

use crate::charset::Charset;
use crate::constant::CollatedConstant;
use crate::info::CollationKind;
use crate::registry::Collation;

/// The key [`Collator::like_key`] returns for a character a `LIKE` can never
/// read past (an invalid byte under a utf8 `_ci` collation).
pub const LIKE_POISON: u32 = u32::MAX;

/// The operations of one collation over byte strings as stored.
///
/// Implemented by zero-sized types, so that a batch loop generic over
/// `C: Collator` is compiled once per collation with every call inlined.
/// Enter such a loop from a runtime [`Collation`] with
/// [`with_collator!`](crate::with_collator) or [`Collation::dispatch`].
///
/// No method panics, whatever the bytes (invalid UTF-8 included).
pub trait Collator: Copy + Default + Send + Sync + 'static {
    /// Which collation this is.
    const KIND: CollationKind;
    /// Whether the shorter operand compares as if padded with spaces.
    const PAD_SPACE: bool;
    /// The character set values are in.
    const CHARSET: Charset;
    /// Whether equality is byte equality (after trimming trailing 0x20 under
    /// PAD SPACE), so values can be hashed, grouped and searched as bytes,
    /// and `LIKE` compares literal characters as bytes (`binary`, `*_bin`).
    const BINARY_EQ: bool = false;
    /// Whether every ASCII byte is one character whose weight (and like
    /// key) is its ASCII upper case, as in the `_ci` collations of part 1;
    /// enables the word-at-a-time ASCII paths of [`LikePattern`](crate::LikePattern).
    const ASCII_CI: bool = false;

    /// The runtime handle of this collation.
    fn collation(&self) -> Collation {
        Collation::of(Self::KIND)
    }

    /// Three-way order, as MariaDB's `STRCMP` and `ORDER BY`.
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering;

    /// Equality, as MariaDB's `=` (`compare(a, b) == Equal`, faster).
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        self.compare(a, b) == Ordering::Equal
    }

    /// A hash consistent with [`Collator::eq`]: equal strings hash equal
    /// (trailing spaces ignored under PAD SPACE, case folded under `_ci`).
    fn hash(&self, s: &[u8], seed: u64) -> u64;

    /// Appends exactly what MariaDB's `WEIGHT_STRING(s)` returns (trailing
    /// spaces keep their weights; the weights stop at an invalid byte).
    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>);

    /// Appends a key whose `memcmp` order is [`Collator::compare`]'s order
    /// and whose equality is [`Collator::eq`] (unlike `WEIGHT_STRING`,
    /// which keeps trailing spaces and stops at invalid bytes). Under PAD
    /// SPACE a space is encoded with a byte saying whether the next
    /// non-space character sorts below or above the space, and the key ends
    /// with a terminator that sorts as the infinite padding; keys of PAD
    /// SPACE collations are therefore never a prefix of one another. Under
    /// NO PAD a key can be a prefix of another (as the strings are): put it
    /// in a length-aware container for multi-column keys.
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>);

    /// Number of characters (`CHAR_LENGTH`); an invalid byte counts as one.
    fn char_length(&self, s: &[u8]) -> usize {
        Self::CHARSET.char_length(s)
    }

    /// Length in bytes of the first character of `s` (0 when empty).
    fn char_width(&self, s: &[u8]) -> usize {
        Self::CHARSET.char_width(s)
    }

    /// Length in bytes of `UPPER(s)`.
    fn upper_len(&self, s: &[u8]) -> usize;
    /// Appends `UPPER(s)` (one reservation of [`Collator::upper_len`] bytes).
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>);
    /// Length in bytes of `LOWER(s)`.
    fn lower_len(&self, s: &[u8]) -> usize;
    /// Appends `LOWER(s)` (one reservation of [`Collator::lower_len`] bytes).
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>);

    /// Byte offset of the first occurrence of `needle` in `hay` as
    /// `LOCATE`/`INSTR` find it: at a character boundary of `hay`, the next
    /// `needle.len()` bytes equal `needle` under the collation (NO PAD).
    /// The character position `LOCATE` returns is
    /// `char_length(&hay[..offset]) + 1`. An empty needle is found at 0.
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize>;

    /// The key a `LIKE` compares one character by, and the character's
    /// length in bytes, for a non-empty `s`: two characters match a literal
    /// pattern character iff their keys are equal. [`LIKE_POISON`] marks a
    /// character no pattern can read past.
    fn like_key(&self, s: &[u8]) -> (u32, usize);

    /// For `LIKE` plans: per ASCII byte a class byte (< 0x80), two ASCII
    /// bytes having equal classes iff their like keys are equal, for
    /// collations that are neither [`Collator::BINARY_EQ`] nor
    /// [`Collator::ASCII_CI`] but can be folded to one class byte per
    /// character (the UCA collations). `None`: no such plan.
    fn like_ascii_classes(&self) -> Option<&'static [u8; 128]> {
        None
    }

    /// The class (see [`Collator::like_ascii_classes`]) of the ASCII bytes
    /// whose like key is `key`, if any has it.
    fn like_class_of_key(&self, _key: u32) -> Option<u8> {
        None
    }

    /// Equality with a prepared constant; the same answer as
    /// `eq(v, c.bytes())`, with the constant's work done once.
    fn eq_const(&self, c: &CollatedConstant, v: &[u8]) -> bool {
        self.eq(v, c.bytes())
    }

    /// Whether [`Collator::prefix_key_of_head`] gives keys at all.
    const PREFIX_KEYS: bool = false;

    /// An order-preserving summary of the start of a value, where the
    /// collation and the value allow one: whenever both keys exist,
    /// `key(a) < key(b)` implies `compare(a, b) == Less` (equal keys say
    /// nothing). `MIN`/`MAX` test most values with one integer compare
    /// against the best so far this way. `head` holds the value's first
    /// `min(len, 8)` bytes in little-endian order (byte 0 lowest); the bytes
    /// of `head` from `len` on are ignored, so a caller may load 8 bytes
    /// from where the value starts whatever follows it. Two values of the
    /// same length, at most 8 bytes, with equal keys compare `Equal`.
    /// The top byte of a key is a function of the value's first byte
    /// alone (its first rank: the key of that byte as a 1-byte value, or
    /// of the empty value), and two values whose first ranks both exist and
    /// differ compare as their ranks, whatever follows (MIN/MAX rule most
    /// rows out on one byte this way). `None` by default.
    #[inline(always)]
    fn prefix_key_of_head(&self, _head: u64, _len: usize) -> Option<u64> {
        None
    }

    /// [`Collator::prefix_key_of_head`] of the value `s`.
    #[inline]
    fn prefix_key(&self, s: &[u8]) -> Option<u64> {
        if !Self::PREFIX_KEYS {
            return None;
        }
        let mut head = [0u8; 8];
        let n = s.len().min(8);
        head[..n].copy_from_slice(&s[..n]);
        self.prefix_key_of_head(u64::from_le_bytes(head), s.len())
    }

    /// `MIN` of two values: the smaller; on a tie the first (MariaDB keeps the
    /// first value seen: `MIN` over `'a'`, `'A'` under `_ci` returns `'a'`).
    #[inline]
    fn min<'a>(&self, first: &'a [u8], second: &'a [u8]) -> &'a [u8] {
        if self.compare(second, first) == Ordering::Less {
            second
        } else {
            first
        }
    }

    /// `MAX` of two values: the larger; on a tie the first.
    #[inline]
    fn max<'a>(&self, first: &'a [u8], second: &'a [u8]) -> &'a [u8] {
        if self.compare(second, first) == Ordering::Greater {
            second
        } else {
            first
        }
    }
}
