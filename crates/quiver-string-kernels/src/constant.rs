//! The constant side of `col = 'const'`, prepared once for many values.

use std::cmp::Ordering;

use crate::isa::Isa;
use crate::kernels::run_on;

/// A constant operand prepared once for comparisons against many values.
///
/// Constants up to 32 bytes are compared as two overlapping fixed-size loads
/// (the first and the last 4, 8 or 16 bytes); longer ones with [`crate::bytes_eq`].
/// For binary PAD SPACE equality the constant is kept with its trailing 0x20s
/// trimmed, so a value matches when it starts with the trimmed constant and
/// the rest is all spaces.
#[derive(Clone, Debug)]
pub struct PreparedConstant {
    bytes: Box<[u8]>,
    trimmed_len: usize,
    exact: FixedKey,
    trimmed: FixedKey,
    /// The first eight bytes of the constant and of the trimmed constant,
    /// when that long: a column scan compares them before the key's own
    /// dispatch, as most rows differ there.
    exact_head: Option<u64>,
    trimmed_head: Option<u64>,
    isa: Isa,
}

/// A constant of known length as the fixed-size words that cover it.
/// Words are loaded little-endian; only equality is asked of them.
#[derive(Clone, Copy, Debug)]
enum FixedKey {
    /// Lengths 0..=3: bytes at 0, len / 2 and len - 1 cover every byte.
    Upto3 { first: u8, mid: u8, last: u8 },
    /// Lengths 4..=7: the first and last four bytes.
    Upto7 { head: u32, tail: u32 },
    /// Lengths 8..=16: the first and last eight bytes.
    Upto16 { head: u64, tail: u64 },
    /// Lengths 17..=32: the first and last sixteen bytes.
    Upto32 { head: u128, tail: u128 },
    /// Longer constants: the first eight bytes, then `bytes_eq`. Most
    /// values differ in their first word, which is on the cache line a
    /// column scan prefetched; the rest of a long value often is not.
    Long { head: u64 },
}

impl FixedKey {
    fn new(c: &[u8]) -> FixedKey {
        match c.len() {
            0 => FixedKey::Upto3 {
                first: 0,
                mid: 0,
                last: 0,
            },
            1..=3 => FixedKey::Upto3 {
                first: c[0],
                mid: c[c.len() / 2],
                last: c[c.len() - 1],
            },
            4..=7 => FixedKey::Upto7 {
                head: head_word(c).unwrap_or(0),
                tail: tail_word(c).unwrap_or(0),
            },
            8..=16 => FixedKey::Upto16 {
                head: head_word(c).unwrap_or(0),
                tail: tail_word(c).unwrap_or(0),
            },
            17..=32 => FixedKey::Upto32 {
                head: head_word(c).unwrap_or(0),
                tail: tail_word(c).unwrap_or(0),
            },
            _ => FixedKey::Long {
                head: head_word(c).unwrap_or(0),
            },
        }
    }

    /// Whether `v`, which has the key's length, equals the key's constant
    /// (`c`, kept for the `Long` case). Both halves of a two-word key are
    /// always compared (`&`, not `&&`): one fewer branch to mispredict.
    #[inline(always)]
    fn matches(self, v: &[u8], c: &[u8], isa: Isa) -> bool {
        match self {
            FixedKey::Upto3 { first, mid, last } => match v {
                [] => true,
                [.., l] => (v[0] == first) & (v[v.len() / 2] == mid) & (*l == last),
            },
            FixedKey::Upto7 { head, tail } => {
                (head_word::<u32, 4>(v) == Some(head)) & (tail_word::<u32, 4>(v) == Some(tail))
            }
            FixedKey::Upto16 { head, tail } => {
                (head_word::<u64, 8>(v) == Some(head)) & (tail_word::<u64, 8>(v) == Some(tail))
            }
            FixedKey::Upto32 { head, tail } => {
                (head_word::<u128, 16>(v) == Some(head)) & (tail_word::<u128, 16>(v) == Some(tail))
            }
            FixedKey::Long { head } => {
                head_word::<u64, 8>(v) == Some(head) && run_on!(isa, bytes_eq(v, c))
            }
        }
    }
}

/// Little-endian word types loadable from the front or back of a slice.
trait Word<const N: usize>: Copy {
    fn from_le(b: [u8; N]) -> Self;
}
impl Word<4> for u32 {
    fn from_le(b: [u8; 4]) -> Self {
        u32::from_le_bytes(b)
    }
}
impl Word<8> for u64 {
    fn from_le(b: [u8; 8]) -> Self {
        u64::from_le_bytes(b)
    }
}
impl Word<16> for u128 {
    fn from_le(b: [u8; 16]) -> Self {
        u128::from_le_bytes(b)
    }
}

#[inline(always)]
fn head_word<W: Word<N>, const N: usize>(s: &[u8]) -> Option<W> {
    s.first_chunk::<N>().map(|b| W::from_le(*b))
}

#[inline(always)]
fn tail_word<W: Word<N>, const N: usize>(s: &[u8]) -> Option<W> {
    s.last_chunk::<N>().map(|b| W::from_le(*b))
}

/// Whether `v` starts with the eight bytes `head` (true when there is no
/// head: a constant shorter than a word).
#[inline(always)]
fn starts_with_head(head: Option<u64>, v: &[u8]) -> bool {
    head.is_none_or(|h| head_word::<u64, 8>(v) == Some(h))
}

impl PreparedConstant {
    /// Prepares `c` for the active ISA.
    pub fn new(c: &[u8]) -> Self {
        Self::with_isa(c, Isa::active())
    }

    /// Prepares `c` for a chosen code path (portable if the CPU lacks it).
    pub fn with_isa(c: &[u8], isa: Isa) -> Self {
        let isa = isa.checked();
        let trimmed = crate::reference::trim_end_spaces(c);
        PreparedConstant {
            bytes: c.into(),
            trimmed_len: trimmed.len(),
            exact: FixedKey::new(c),
            trimmed: FixedKey::new(trimmed),
            exact_head: head_word(c),
            trimmed_head: head_word(trimmed),
            isa,
        }
    }

    /// The constant's bytes, as given.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The constant without its trailing 0x20s (what PAD SPACE compares).
    #[inline]
    pub fn trimmed(&self) -> &[u8] {
        &self.bytes[..self.trimmed_len]
    }

    /// Whether `v` holds exactly the constant's bytes.
    // The name is the agreed API; it compares with a value, not with another
    // `PreparedConstant`, so `PartialEq` would be the wrong trait.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn eq(&self, v: &[u8]) -> bool {
        v.len() == self.bytes.len() && self.exact.matches(v, &self.bytes, self.isa)
    }

    /// Binary PAD SPACE equality: `v` equals the constant once trailing 0x20s
    /// of both are ignored.
    #[inline]
    pub fn pad_space_eq(&self, v: &[u8]) -> bool {
        let t = self.trimmed_len;
        match v.split_at_checked(t) {
            Some((head, rest)) => {
                self.trimmed.matches(head, self.trimmed(), self.isa)
                    && (rest.is_empty() || run_on!(self.isa, is_all_spaces(rest)))
            }
            None => false,
        }
    }

    /// The code path the compares run on.
    #[inline]
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// [`PreparedConstant::eq`] for a `v` known to have the constant's length.
    #[inline(always)]
    pub(crate) fn eq_same_len(&self, v: &[u8]) -> bool {
        starts_with_head(self.exact_head, v) && self.exact.matches(v, &self.bytes, self.isa)
    }

    /// Whether `v`, known to be as long as the trimmed constant, equals it.
    #[inline(always)]
    pub(crate) fn trimmed_eq_same_len(&self, v: &[u8]) -> bool {
        starts_with_head(self.trimmed_head, v) && self.trimmed.matches(v, self.trimmed(), self.isa)
    }

    /// [`PreparedConstant::pad_space_eq`] for a `v` known to be at least as
    /// long as the trimmed constant: its head must match and the rest (if
    /// any) be spaces.
    #[inline(always)]
    pub(crate) fn pad_space_eq_not_shorter(&self, v: &[u8]) -> bool {
        // The head first: its words are on the line a scan prefetched (a
        // value's last byte may be on the next), and most values differ there.
        if !starts_with_head(self.trimmed_head, v) {
            return false;
        }
        let (head, rest) = v.split_at(self.trimmed_len);
        self.trimmed.matches(head, self.trimmed(), self.isa) && self.all_spaces(rest)
    }

    /// Whether `rest` (what follows a matching head) is only spaces; out of
    /// line, as few rows get here.
    #[inline(never)]
    fn all_spaces(&self, rest: &[u8]) -> bool {
        rest.last().is_none_or(|&b| b == b' ') && run_on!(self.isa, is_all_spaces(rest))
    }

    /// `v` compared with the constant in `memcmp` order (`v` on the left).
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn cmp(&self, v: &[u8]) -> Ordering {
        run_on!(self.isa, bytes_cmp(v, &self.bytes))
    }

    /// `v` compared with the constant under the binary PAD SPACE rule.
    #[inline]
    pub fn pad_space_cmp(&self, v: &[u8]) -> Ordering {
        run_on!(self.isa, pad_space_cmp(v, self.trimmed()))
    }
}

/// What comparing one value with a [`PreparedFoldedConstant`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldedMatch {
    /// The value is ASCII and equals the constant once letters are folded.
    Equal,
    /// The value is ASCII and differs from the constant, letters folded.
    Differ,
    /// The value has a byte of 0x80 or more: folding ASCII letters cannot
    /// decide it.
    NotAscii,
}

/// An ASCII constant of known length as folded fixed-size words, like
/// [`FixedKey`]: the value's words are checked to be ASCII, folded (`a..=z`
/// to `A..=Z`) and compared, so one value costs two loads and a few
/// arithmetic operations per word.
#[derive(Clone, Copy, Debug)]
enum FoldedKey {
    Upto3 {
        first: u8,
        mid: u8,
        last: u8,
    },
    Upto7 {
        head: u32,
        tail: u32,
    },
    Upto16 {
        head: u64,
        tail: u64,
    },
    Upto32 {
        head: u128,
        tail: u128,
    },
    /// The first eight bytes, compared first (see [`FixedKey::Long`]).
    Long {
        head: u64,
    },
}

/// Uppercases the ASCII letters of each byte of a 16-byte word.
#[inline(always)]
fn upper_u128(x: u128) -> u128 {
    let lo = crate::portable::upper_word(x as u64);
    let hi = crate::portable::upper_word((x >> 64) as u64);
    u128::from(lo) | (u128::from(hi) << 64)
}

const HI128: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;

impl FoldedKey {
    /// `upper` is the constant, already uppercased.
    fn new(upper: &[u8]) -> FoldedKey {
        match FixedKey::new(upper) {
            FixedKey::Upto3 { first, mid, last } => FoldedKey::Upto3 { first, mid, last },
            FixedKey::Upto7 { head, tail } => FoldedKey::Upto7 { head, tail },
            FixedKey::Upto16 { head, tail } => FoldedKey::Upto16 { head, tail },
            FixedKey::Upto32 { head, tail } => FoldedKey::Upto32 { head, tail },
            FixedKey::Long { head } => FoldedKey::Long { head },
        }
    }

    /// Compares `v`, which has the key's length, with the constant `upper`.
    #[inline(always)]
    fn matches(self, v: &[u8], upper: &[u8], isa: Isa) -> FoldedMatch {
        let verdict = |ascii: bool, eq: bool| match (ascii, eq) {
            (false, _) => FoldedMatch::NotAscii,
            (true, true) => FoldedMatch::Equal,
            (true, false) => FoldedMatch::Differ,
        };
        match self {
            FoldedKey::Upto3 { first, mid, last } => match v {
                [] => FoldedMatch::Equal,
                [.., l] => {
                    let (a, b, c) = (v[0], v[v.len() / 2], *l);
                    verdict(
                        (a | b | c) < 0x80,
                        (a.to_ascii_uppercase() == first)
                            & (b.to_ascii_uppercase() == mid)
                            & (c.to_ascii_uppercase() == last),
                    )
                }
            },
            FoldedKey::Upto7 { head, tail } => {
                let h = head_word::<u32, 4>(v).unwrap_or(u32::MAX);
                let t = tail_word::<u32, 4>(v).unwrap_or(u32::MAX);
                let fold = |x: u32| crate::portable::upper_word(u64::from(x)) as u32;
                verdict(
                    (h | t) & 0x8080_8080 == 0,
                    (fold(h) == head) & (fold(t) == tail),
                )
            }
            FoldedKey::Upto16 { head, tail } => {
                let h = head_word::<u64, 8>(v).unwrap_or(u64::MAX);
                let t = tail_word::<u64, 8>(v).unwrap_or(u64::MAX);
                let fold = crate::portable::upper_word;
                verdict(
                    (h | t) & 0x8080_8080_8080_8080 == 0,
                    (fold(h) == head) & (fold(t) == tail),
                )
            }
            FoldedKey::Upto32 { head, tail } => {
                let h = head_word::<u128, 16>(v).unwrap_or(u128::MAX);
                let t = tail_word::<u128, 16>(v).unwrap_or(u128::MAX);
                verdict(
                    (h | t) & HI128 == 0,
                    (upper_u128(h) == head) & (upper_u128(t) == tail),
                )
            }
            FoldedKey::Long { head } => {
                // Eight ASCII characters that differ from the constant's
                // first eight once folded: unequal, whatever follows (each
                // weighs as its upper case, one weight per character).
                let h = head_word::<u64, 8>(v).unwrap_or(u64::MAX);
                if h & 0x8080_8080_8080_8080 == 0 && crate::portable::upper_word(h) != head {
                    return FoldedMatch::Differ;
                }
                // The constant is ASCII, so a folded match means `v` is too.
                if run_on!(isa, ascii_eq_ignore_case(v, upper)) {
                    FoldedMatch::Equal
                } else if run_on!(isa, is_ascii(v)) {
                    FoldedMatch::Differ
                } else {
                    FoldedMatch::NotAscii
                }
            }
        }
    }
}

/// An ASCII constant prepared for equality with ASCII letters folded to
/// upper case (`'a' = 'A'`; every other byte is itself), for the constant
/// side of `col = 'const'` under a case-insensitive collation. Like
/// [`PreparedConstant`], constants up to 32 bytes are compared as two
/// overlapping fixed-size words, and the constant is also kept without its
/// trailing 0x20s for PAD SPACE.
#[derive(Clone, Debug)]
pub struct PreparedFoldedConstant {
    upper: Box<[u8]>,
    trimmed_len: usize,
    exact: FoldedKey,
    trimmed: FoldedKey,
    isa: Isa,
}

impl PreparedFoldedConstant {
    /// Prepares `c` for the active ISA; `None` unless `c` is ASCII.
    pub fn new(c: &[u8]) -> Option<Self> {
        Self::with_isa(c, Isa::active())
    }

    /// Prepares `c` for a chosen code path (portable if the CPU lacks it);
    /// `None` unless `c` is ASCII.
    pub fn with_isa(c: &[u8], isa: Isa) -> Option<Self> {
        if !crate::reference::is_ascii(c) {
            return None;
        }
        let upper: Box<[u8]> = c.to_ascii_uppercase().into();
        let trimmed_len = crate::reference::trim_end_spaces(&upper).len();
        Some(PreparedFoldedConstant {
            exact: FoldedKey::new(&upper),
            trimmed: FoldedKey::new(&upper[..trimmed_len]),
            upper,
            trimmed_len,
            isa: isa.checked(),
        })
    }

    /// The constant with its ASCII letters uppercased.
    #[inline]
    pub fn upper(&self) -> &[u8] {
        &self.upper
    }

    /// [`PreparedFoldedConstant::upper`] without trailing 0x20s.
    #[inline]
    pub fn upper_trimmed(&self) -> &[u8] {
        &self.upper[..self.trimmed_len]
    }

    /// The code path the compares run on.
    #[inline]
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Compares `v` with the whole constant (`trimmed: false`) or the
    /// constant without trailing spaces; `v` must have that length, else
    /// the answer is unspecified (but no panic).
    #[inline(always)]
    pub fn match_same_len(&self, v: &[u8], trimmed: bool) -> FoldedMatch {
        if trimmed {
            self.trimmed.matches(v, self.upper_trimmed(), self.isa)
        } else {
            self.exact.matches(v, &self.upper, self.isa)
        }
    }
}
