//! `LIKE` patterns, compiled once and matched against many values.
//!
//! MySQL semantics as MariaDB 10.11 answers them (every rule below is
//! checked by the golden tests):
//! - No padding: `'a ' LIKE 'a'` is false. `%` is any run of characters,
//!   `_` exactly one character (one byte under `binary`). Characters match
//!   by the collation's [`Collator::like_key`]: bytes or code points under
//!   `_bin`, weights under `_ci` ('é' matches 'E', 'ß' matches 's'), weight
//!   sequences under the UCA collations ('é' matches 'E', 'ß' matches
//!   neither 's' nor 'ss', an ignorable matches only ignorables; under
//!   `unicode_ci` a supplementary character matches only itself).
//! - The escape character (`\` by default) makes the next character
//!   literal, and is itself literal at the end of the pattern. It is
//!   recognized by code point, not by weight. `%` is a wildcard even when it
//!   is the escape character, and so is `_` right after a `%`; elsewhere the
//!   utf8 `_ci` collations test for the escape before `_` while the others
//!   keep `_` a wildcard. Under the utf8 `_bin` collations an escape
//!   outside ASCII never applies (MariaDB compares it with single bytes).
//!   `ESCAPE ''` means `\` for utf8 and NUL for binary, latin1 and ascii.
//! - Invalid bytes: under the utf8 `_ci` collations a pattern holding one
//!   matches nothing, and a value holding one matches only if the pattern is
//!   matched before the matcher has to read it (then ends in `%`, possibly
//!   after `_`s). Under utf8 `_bin` an invalid byte is a one-byte character,
//!   and a pattern byte that is not a whole character is compared with
//!   single value bytes (after a `%` only with one-byte characters).
//!
//! Plans, chosen once per pattern:
//! - binary-comparable collations (without `_`, and for utf8 with a valid
//!   pattern): byte pieces `prefix % middle... % suffix`, the middles found in
//!   order with the SIMD [`SubstringFinder`];
//! - `_ci` collations whose literals all weigh as ASCII: the same pieces over
//!   weights. An ASCII value is decided in place (prefix and suffix compared
//!   a word at a time, middles found by the case-insensitive kernel); any other
//!   value is first folded to one weight byte per character;
//! - collations with ASCII like classes (the UCA ones, where characters
//!   match by weight sequences): pieces of class bytes. An ASCII value whose
//!   compared parts hold no ignorable control is decided in place as above;
//!   any other value is folded to one class byte per character;
//! - otherwise (or with `_`) a character matcher over like keys, with linear
//!   backtracking to the last `%`.
//!
//! In place, the `%...%` pieces are found with the SIMD ASCII
//! case-insensitive substring kernel (`ci_find`), without a copy.

use std::cell::RefCell;
use std::fmt;

use quiver_string_kernels::{self as sk, SubstringFinder};

use crate::charset::{decode_utf8, is_bad, Charset};
use crate::ci_find::CiFinder;
use crate::collator::{Collator, LIKE_POISON};
use crate::hash::{ascii_upper_word, word_is_ascii};
use crate::registry::Collation;
use crate::with_collator;

/// The escape character MySQL uses when the pattern has no `ESCAPE` clause.
pub const DEFAULT_ESCAPE: u8 = b'\\';

/// A `LIKE` that cannot be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LikeError {
    /// `ESCAPE` was given more than one character (MariaDB error 1210,
    /// "Incorrect arguments to ESCAPE").
    BadEscape,
}

impl LikeError {
    /// The MariaDB error code.
    pub fn mysql_code(&self) -> u16 {
        1210
    }
}

impl fmt::Display for LikeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Incorrect arguments to ESCAPE")
    }
}

impl std::error::Error for LikeError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    /// One literal character: its key, and its bytes `bytes[start..start + len]`
    /// of the pattern (the `_bin` collations compare those).
    Lit { key: u32, start: u32, len: u32 },
    /// `_`
    One,
    /// `%`
    Many,
}

/// The character matcher's program.
#[derive(Clone, Debug)]
struct Tokens {
    tokens: Vec<Token>,
    /// The pattern, for the bytes of literals.
    bytes: Box<[u8]>,
    /// Per token: whether it is a one-byte literal following a `%` (with
    /// only `_` between). After a `%`, MariaDB's utf8 `_bin` matcher looks
    /// for such a byte only among the value's one-byte characters (elsewhere
    /// it compares it with any byte).
    single_after_many: Vec<bool>,
    /// Where the pattern ends in a run of `%` and `_` holding a `%`, and how
    /// many `_` the run holds: reaching it, MariaDB reads that many more
    /// characters and accepts without looking further.
    tail: Option<(usize, usize)>,
}

/// A pattern without `_`, as byte pieces: `prefix % middle1 % ... % suffix`
/// (or `exact` when there is no `%` at all).
#[derive(Clone, Debug)]
struct Pieces {
    exact: Option<Box<[u8]>>,
    prefix: Box<[u8]>,
    suffix: Box<[u8]>,
    middles: Vec<SubstringFinder>,
    /// The same middles for the case-insensitive ASCII kernel (the `_ci`
    /// plans search ASCII values in place with these).
    ci_middles: Vec<CiFinder>,
    min_len: usize,
}

impl Pieces {
    fn new(parts: Vec<Vec<u8>>) -> Pieces {
        // `parts` are the literal runs between `%`s: one part means no `%`.
        if parts.len() == 1 {
            let exact: Box<[u8]> = parts[0].clone().into();
            return Pieces {
                min_len: exact.len(),
                exact: Some(exact),
                prefix: Box::default(),
                suffix: Box::default(),
                middles: Vec::new(),
                ci_middles: Vec::new(),
            };
        }
        let prefix: Box<[u8]> = parts[0].clone().into();
        let suffix: Box<[u8]> = parts[parts.len() - 1].clone().into();
        let middles: Vec<SubstringFinder> = parts[1..parts.len() - 1]
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| SubstringFinder::new(p))
            .collect();
        let min_len =
            prefix.len() + suffix.len() + middles.iter().map(|m| m.needle().len()).sum::<usize>();
        let ci_middles = middles.iter().map(|m| CiFinder::new(m.needle())).collect();
        Pieces {
            exact: None,
            prefix,
            suffix,
            middles,
            ci_middles,
            min_len,
        }
    }

    #[inline]
    fn matches(&self, v: &[u8]) -> bool {
        if let Some(exact) = &self.exact {
            return sk::bytes_eq(v, exact);
        }
        if v.len() < self.min_len {
            return false;
        }
        let (p, s) = (self.prefix.len(), self.suffix.len());
        if (p > 0 && !sk::bytes_eq(&v[..p], &self.prefix))
            || (s > 0 && !sk::bytes_eq(&v[v.len() - s..], &self.suffix))
        {
            return false;
        }
        let mut rest = &v[p..v.len() - s];
        for m in &self.middles {
            match m.find(rest) {
                Some(at) => rest = &rest[at + m.needle().len()..],
                None => return false,
            }
        }
        true
    }

    /// Under a `_ci` collation whose ASCII characters weigh as their upper
    /// case (the pieces hold those weights): the answer for `v` when the
    /// bytes it depends on are ASCII, read in place; `None` when a non-ASCII
    /// byte could change it (the caller then folds `v`). Under utf8 an
    /// invalid byte anywhere in the part a `%` reads through makes the LIKE
    /// false.
    #[inline]
    fn matches_ascii_ci(&self, v: &[u8], charset: Charset) -> Option<bool> {
        // A value has at most as many characters as bytes: a shorter one
        // cannot match.
        if v.len() < self.min_len {
            return Some(false);
        }
        if let Some(exact) = &self.exact {
            if v.len() == exact.len() {
                return ascii_ci_eq(v, exact);
            }
            // More bytes than characters needed: only multibyte
            // characters could make it match.
            return if sk::is_ascii(v) { Some(false) } else { None };
        }
        let (p, s) = (self.prefix.len(), self.suffix.len());
        // The first p characters are the first p bytes if those are ASCII;
        // the last s characters the last s bytes if those are ASCII.
        if !ascii_ci_eq(&v[..p], &self.prefix)? || !ascii_ci_eq(&v[v.len() - s..], &self.suffix)? {
            return Some(false);
        }
        let middle = &v[p..v.len() - s];
        if self.middles.is_empty() {
            // Matched, unless an invalid byte sits where a `%` before the
            // suffix reads (a trailing `%` reads nothing).
            return if s == 0 || no_invalid_bytes(charset, middle) {
                Some(true)
            } else {
                None
            };
        }
        // The middle pieces are found in place by the SIMD case-insensitive
        // ASCII kernel, in order; it also says whether what it read was
        // ASCII (a non-ASCII character could weigh as a letter, so only
        // then is a miss final).
        let mut rest = middle;
        for m in &self.ci_middles {
            let (at, ascii) = m.find_ascii(rest);
            if !ascii {
                return None;
            }
            match at {
                Some(at) => rest = &rest[at + m.needle().len()..],
                None => return Some(false),
            }
        }
        // Matched through ASCII characters. What follows the last piece is
        // read only by a `%` before a suffix: an invalid byte there makes
        // the LIKE false (a trailing `%` reads nothing).
        if s == 0 || no_invalid_bytes(charset, rest) {
            Some(true)
        } else {
            None
        }
    }
}

impl Pieces {
    /// [`Pieces::matches_ascii_ci`] for pieces of like classes that are the
    /// ASCII upper case except for the control bytes of `odd`: the parts of
    /// `v` compared in place must hold none of those.
    #[inline]
    fn matches_classes_in_place(&self, v: &[u8], odd: u128, charset: Charset) -> Option<bool> {
        if v.len() < self.min_len {
            return Some(false);
        }
        let plain = |r: &[u8]| plain_ascii(r, odd);
        if self.exact.is_some() {
            if !plain(v) {
                return None;
            }
        } else {
            let (p, s) = (self.prefix.len(), self.suffix.len());
            let middle = &v[p..v.len() - s];
            if !plain(&v[..p])
                || !plain(&v[v.len() - s..])
                || (!self.middles.is_empty() && !plain(middle))
            {
                return None;
            }
        }
        self.matches_ascii_ci(v, charset)
    }
}

/// Whether `s` (whole characters) holds no invalid byte of `charset`: ASCII,
/// or for utf8mb4 valid UTF-8 by the standard library's rules, which accept
/// a subset of what MariaDB's utf8mb4 decoder accepts (it also takes
/// surrogates). (utf8mb3 rejects 4-byte characters that the standard
/// library accepts: only ASCII is taken as proof there.)
#[inline]
fn no_invalid_bytes(charset: Charset, s: &[u8]) -> bool {
    !charset.is_multibyte()
        || sk::is_ascii(s)
        || (charset == Charset::Utf8mb4 && std::str::from_utf8(s).is_ok())
}

/// `v` against `upper` (as long; ASCII weights) when every byte of `v` is
/// ASCII (`None` otherwise), a word at a time.
#[inline]
fn ascii_ci_eq(v: &[u8], upper: &[u8]) -> Option<bool> {
    let mut any = 0u64;
    let mut diff = 0u64;
    let mut words = v.chunks_exact(8).zip(upper.chunks_exact(8));
    for (w, u) in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        any |= w;
        // Garbage in lanes holding non-ASCII bytes, but then `any` says so.
        diff |= ascii_upper_word(w & 0x7F7F_7F7F_7F7F_7F7F)
            ^ u64::from_le_bytes(u.try_into().expect("8 bytes"));
    }
    let done = v.len() / 8 * 8;
    for (&b, &u) in v[done..].iter().zip(&upper[done..]) {
        any |= u64::from(b);
        diff |= u64::from(b.to_ascii_uppercase() ^ u);
    }
    word_is_ascii(any).then_some(diff == 0)
}

#[derive(Clone, Debug)]
enum Plan {
    /// Matches no value (an invalid byte in a utf8 `_ci` pattern).
    Never,
    /// Byte pieces over the value itself (binary-comparable collations).
    Bytes(Pieces),
    /// `_ci` with every literal weighing as an ASCII byte: the value is
    /// folded to one byte per character (its weight if ASCII, else 0xFF,
    /// which no piece holds) and the byte pieces of the pattern's weights
    /// run over that; a value with an invalid byte takes the character
    /// matcher. For a `prefix%` pattern (`prefix_only`) a non-ASCII
    /// value goes straight to the character matcher, which reads no further
    /// than the prefix.
    FoldedCi {
        pieces: Pieces,
        prefix_only: bool,
        fold: FoldFn,
        tokens: Tokens,
        chars: CharsFn,
        charset: Charset,
    },
    /// Collations with ASCII like classes (UCA): the value is folded to one
    /// class byte per character (0xFF for a character no ASCII byte
    /// matches) and the byte pieces of the pattern's classes run over that;
    /// a value with a character no pattern reads past takes the character
    /// matcher.
    FoldedClasses {
        pieces: Pieces,
        fold: FoldFn,
        tokens: Tokens,
        chars: CharsFn,
        /// When every ASCII byte's class is its upper case except for the
        /// bytes of this mask (controls), an ASCII value holding none of
        /// them is matched in place as under `FoldedCi`.
        in_place_unless: Option<u128>,
        /// A `prefix%` pattern: a value not matched in place goes to the
        /// character matcher, which reads no further than the prefix.
        prefix_only: bool,
        charset: Charset,
    },
    /// The character matcher for every value.
    Chars { tokens: Tokens, chars: CharsFn },
}

/// Folds a value to one weight byte per character (see `Plan::FoldedCi`).
type FoldFn = fn(&[u8], &mut [u8]) -> Option<usize>;
/// The character matcher of one collator.
type CharsFn = fn(&Tokens, &[u8]) -> bool;

/// A compiled `LIKE` pattern. Compile once per pattern, then call
/// [`LikePattern::matches`] per value.
#[derive(Clone, Debug)]
pub struct LikePattern {
    collation: Collation,
    plan: Plan,
}

/// The code of the first character of `s` (code point, `BAD_BYTE | b`, or
/// the byte for 8-bit charsets) and its length.
fn char_code(charset: Charset, s: &[u8]) -> (u32, usize) {
    match charset {
        Charset::Utf8mb4 => decode_utf8::<true>(s),
        Charset::Utf8mb3 => decode_utf8::<false>(s),
        _ => (u32::from(s[0]), 1),
    }
}

/// The escape character as MariaDB applies it, from the `ESCAPE` string:
/// `charset` is the collation's, `text` the charset the pattern's bytes
/// are in (UTF-8 for a latin1 collation over UTF-8 text).
fn escape_code(
    charset: Charset,
    text: Charset,
    escape: Option<&[u8]>,
) -> Result<Option<u32>, LikeError> {
    let eight_bit = matches!(charset, Charset::Binary | Charset::Latin1 | Charset::Ascii);
    Ok(match escape {
        None => Some(u32::from(DEFAULT_ESCAPE)),
        // `ESCAPE ''` (in the column's charset): `\` for utf8, NUL for the
        // 8-bit charsets and binary.
        Some(b"") if eight_bit => Some(0),
        Some(b"") => Some(u32::from(DEFAULT_ESCAPE)),
        Some(e) => {
            let (code, len) = char_code(text, e);
            if len != e.len() {
                return Err(LikeError::BadEscape);
            }
            // MariaDB's 8-bit matchers test for the wildcards before the
            // escape: `_` or `%` as the escape stays a wildcard (no escape).
            if eight_bit && (code == u32::from(b'_') || code == u32::from(b'%')) {
                return Ok(None);
            }
            Some(code)
        }
    })
}

/// The charset a collator reads its bytes in.
fn text_charset<C: Collator>(_: &C) -> Charset {
    C::CHARSET
}

impl LikePattern {
    /// Compiles `pattern` (bytes in the collation's charset) under
    /// `collation`. `escape` is the `ESCAPE` clause's string: `None` (no
    /// clause) means `\\`; one character is the escape; more than one is
    /// [`LikeError::BadEscape`]; `Some(b"")` is what MariaDB makes of an
    /// empty `ESCAPE` in the column's charset: `\\` for utf8, NUL for
    /// `binary`, latin1 and ascii. (An empty `ESCAPE` in another charset
    /// than the column's gives inconsistent answers in MariaDB.)
    pub fn new(
        collation: Collation,
        pattern: &[u8],
        escape: Option<&[u8]>,
    ) -> Result<LikePattern, LikeError> {
        let text = with_collator!(collation, |c| text_charset(&c));
        let escape = escape_code(collation.charset(), text, escape)?;
        Ok(Self::compile(collation, pattern, escape))
    }

    /// Compiles `pattern` with no escape character at all (as under
    /// `NO_BACKSLASH_ESCAPES` without an `ESCAPE` clause).
    pub fn without_escape(collation: Collation, pattern: &[u8]) -> LikePattern {
        Self::compile(collation, pattern, None)
    }

    fn compile(collation: Collation, pattern: &[u8], escape: Option<u32>) -> LikePattern {
        let plan = with_collator!(collation, |c| plan(c, pattern, escape, false));
        LikePattern { collation, plan }
    }

    /// [`LikePattern::new`] without the byte-piece plans: every value goes
    /// through the character matcher. The reference the fast plans are
    /// tested against, and the naive baseline of the benchmark.
    #[doc(hidden)]
    pub fn new_char_matcher(
        collation: Collation,
        pattern: &[u8],
        escape: Option<&[u8]>,
    ) -> Result<LikePattern, LikeError> {
        let text = with_collator!(collation, |c| text_charset(&c));
        let escape = escape_code(collation.charset(), text, escape)?;
        let plan = with_collator!(collation, |c| plan(c, pattern, escape, true));
        Ok(LikePattern { collation, plan })
    }

    /// The collation the pattern was compiled for.
    pub fn collation(&self) -> Collation {
        self.collation
    }

    /// Whether `value` matches the pattern.
    #[inline]
    pub fn matches(&self, value: &[u8]) -> bool {
        match &self.plan {
            Plan::Never => false,
            Plan::Bytes(p) => p.matches(value),
            Plan::FoldedCi {
                pieces,
                prefix_only,
                fold,
                tokens,
                chars,
                charset,
            } => {
                if let Some(hit) = pieces.matches_ascii_ci(value, *charset) {
                    return hit;
                }
                if *prefix_only {
                    // `prefix%`: the character matcher reads no more than
                    // the prefix, fewer bytes than a fold touches.
                    return chars(tokens, value);
                }
                with_scratch(value.len(), |buf| match fold(value, buf) {
                    Some(n) => pieces.matches(&buf[..n]),
                    None => chars(tokens, value),
                })
            }
            Plan::FoldedClasses {
                pieces,
                fold,
                tokens,
                chars,
                in_place_unless,
                prefix_only,
                charset,
            } => {
                if let Some(odd) = in_place_unless {
                    if let Some(hit) = pieces.matches_classes_in_place(value, *odd, *charset) {
                        return hit;
                    }
                }
                if *prefix_only {
                    return chars(tokens, value);
                }
                with_scratch(value.len(), |buf| match fold(value, buf) {
                    Some(n) => pieces.matches(&buf[..n]),
                    None => chars(tokens, value),
                })
            }
            Plan::Chars { tokens, chars } => chars(tokens, value),
        }
    }
}

impl LikePattern {
    /// [`LikePattern::matches`] for every row of a string column
    /// (`offsets[i]..offsets[i + 1]` into `values`), into a bitmask: bit
    /// `i % 64` of word `i / 64` for row `i` (the words covering the rows
    /// are overwritten).
    ///
    /// A pattern with a `%middle%` piece under a byte-comparing collation,
    /// or an ASCII `_ci` one, first looks for its first middle piece in
    /// the whole values buffer at once rather than row by row (as
    /// [`quiver_string_kernels::contains_offsets`] does): a row without the
    /// piece cannot match, so rows between two hits cost nothing beyond the
    /// search, and only a row holding a hit runs the whole matcher. Under
    /// `_ci` the search also says whether the bytes it passed were ASCII;
    /// from the first row it passed over non-ASCII bytes (a character such
    /// as 'é' may weigh as a letter), rows run the whole matcher one by one.
    ///
    /// Errors if `out` is too short or the offsets are not a column over
    /// `values` (then `out` is unspecified).
    pub fn matches_column<O: sk::Offset>(
        &self,
        offsets: &[O],
        values: &[u8],
        out: &mut [u64],
    ) -> Result<(), sk::OffsetsError> {
        let rows = offsets.len().saturating_sub(1);
        let needed_words = rows.div_ceil(64);
        if out.len() < needed_words {
            return Err(sk::OffsetsError::OutputTooShort {
                needed_words,
                words: out.len(),
            });
        }
        let out = &mut out[..needed_words];
        out.fill(0);
        sk::validate_offsets(offsets, values.len())?;
        let value = |r: usize| &values[offsets[r].index()..offsets[r + 1].index()];
        let mut set = |r: usize, hit: bool| out[r / 64] |= u64::from(hit) << (r % 64);
        // How the first middle piece is found: its position, and whether
        // the bytes passed are known not to hide a match (see `find_ascii`).
        type Search<'a> = Box<dyn Fn(&[u8]) -> (Option<usize>, bool) + 'a>;
        let search: Option<Search<'_>> = match &self.plan {
            Plan::Bytes(p) if p.exact.is_none() && !p.middles.is_empty() => {
                let f = &p.middles[0];
                Some(Box::new(move |h| (f.find(h), true)))
            }
            Plan::FoldedCi { pieces: p, .. } if p.exact.is_none() && !p.ci_middles.is_empty() => {
                let f = &p.ci_middles[0];
                Some(Box::new(move |h| f.find_ascii(h)))
            }
            _ => None,
        };
        let Some(find) = search else {
            for r in 0..rows {
                set(r, self.matches(value(r)));
            }
            return Ok(());
        };
        if rows == 0 {
            return Ok(());
        }
        let end = offsets[rows].index();
        let mut row = 0;
        while row < rows {
            let pos = offsets[row].index();
            let (at, clean) = find(&values[pos..end]);
            // The row holding the hit, or `rows` when there is none.
            let hit_row = match at {
                Some(at) => row_containing(offsets, row, pos + at),
                None => rows,
            };
            if !clean {
                // Somewhere before the hit the search passed bytes that
                // may weigh as the piece's letters. A column with such
                // bytes likely has more: its remaining rows go one by one
                // (searching ahead would read them twice).
                for r in row..rows {
                    set(r, self.matches(value(r)));
                }
                break;
            }
            if hit_row == rows {
                break;
            }
            // A hit may still straddle into the next row or fail the rest
            // of the pattern: the whole matcher decides.
            set(hit_row, self.matches(value(hit_row)));
            row = hit_row + 1;
        }
        Ok(())
    }
}

/// The row `r >= from` with `offsets[r] <= at < offsets[r + 1]` (`at`
/// inside the rows' bytes, `offsets[from] <= at`): galloping forward, then
/// bisecting, so close hits cost a step or two.
fn row_containing<O: sk::Offset>(offsets: &[O], from: usize, at: usize) -> usize {
    let rows = offsets.len() - 1;
    let mut lo = from;
    let mut step = 1;
    while lo + step < rows && offsets[lo + step].index() <= at {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(rows);
    lo + offsets[lo + 1..=hi].partition_point(|o| o.index() <= at)
}

thread_local! {
    /// Room for folding values too long for the stack buffer.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on a scratch buffer of `n` bytes: on the stack when small.
#[inline]
fn with_scratch<R>(n: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    const STACK: usize = 128;
    if n <= STACK {
        let mut buf = [0u8; STACK];
        f(&mut buf[..n])
    } else {
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            s.resize(n, 0);
            f(&mut s[..n])
        })
    }
}

/// Writes one byte per character of `v` into `out` (which holds at least
/// `v.len()` bytes): the character's like key if below 0x80, else 0xFF. ASCII
/// words are uppercased whole (an ASCII character weighs as its upper case
/// under these collations). `None` at a character a LIKE cannot read past.
#[inline]
fn fold_weights<C: Collator>(v: &[u8], out: &mut [u8]) -> Option<usize> {
    let c = C::default();
    let (mut i, mut n) = (0, 0);
    while i < v.len() {
        if i + 8 <= v.len() {
            let w = u64::from_le_bytes(v[i..i + 8].try_into().expect("8 bytes"));
            // The ASCII bytes before the first non-ASCII one go in at once
            // (all 8 are written; n <= i keeps them inside `out`).
            let ascii = match w & 0x8080_8080_8080_8080 {
                0 => 8,
                high => (high.trailing_zeros() / 8) as usize,
            };
            if ascii > 0 {
                let keep = if ascii == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * ascii)) - 1
                };
                out[n..n + 8].copy_from_slice(&ascii_upper_word(w & keep).to_le_bytes());
                i += ascii;
                n += ascii;
                continue;
            }
        }
        let b = v[i];
        if b < 0x80 {
            out[n] = b.to_ascii_uppercase();
            i += 1;
            n += 1;
            continue;
        }
        let (key, len) = c.like_key(&v[i..]);
        if key == LIKE_POISON {
            return None;
        }
        out[n] = if key < 0x80 { key as u8 } else { 0xFF };
        i += len;
        n += 1;
    }
    Some(n)
}

/// Whether every byte of `v` is ASCII and none is in the mask `odd` (which
/// holds control bytes only: below 0x20, or 0x7F), a word at a time.
#[inline]
fn plain_ascii(v: &[u8], odd: u128) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let odd_in = |bytes: &[u8]| bytes.iter().any(|&b| b >= 0x80 || odd >> b & 1 != 0);
    let mut words = v.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        if x & HIGH != 0 {
            return false;
        }
        // Flags every byte below 0x20 or equal to 0x7F (and maybe a few
        // bytes after one, which the exact check below clears).
        let below = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let y = x ^ (ONES * 0x7F);
        let del = y.wrapping_sub(ONES) & !y & HIGH;
        if below | del != 0 && odd_in(w) {
            return false;
        }
    }
    !odd_in(words.remainder())
}

/// Writes one class byte per character of `v` into `out` (at least
/// `v.len()` bytes; see [`Collator::like_ascii_classes`]); `None` at a
/// character a LIKE cannot read past.
#[inline]
fn fold_classes<C: Collator>(v: &[u8], out: &mut [u8]) -> Option<usize> {
    let c = C::default();
    let classes = c.like_ascii_classes()?;
    let (mut i, mut n) = (0, 0);
    while i < v.len() {
        let b = v[i];
        if b < 0x80 {
            out[n] = classes[usize::from(b)];
            i += 1;
            n += 1;
            continue;
        }
        let (key, len) = c.like_key(&v[i..]);
        if key == LIKE_POISON {
            return None;
        }
        out[n] = c.like_class_of_key(key).unwrap_or(0xFF);
        i += len;
        n += 1;
    }
    Some(n)
}

/// [`match_tokens`] for the collator `C`, as a plain function.
fn chars_fn<C: Collator>(t: &Tokens, v: &[u8]) -> bool {
    match_tokens(C::default(), t, v)
}

/// Pattern element kinds while planning.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Lit,
    One,
    Many,
}

fn plan<C: Collator>(c: C, pattern: &[u8], escape: Option<u32>, chars_only: bool) -> Plan {
    let charset = C::CHARSET;
    // Under the utf8 `_bin` collations MariaDB compares the escape with
    // single pattern bytes, so an escape outside ASCII never applies.
    let escape = escape.filter(|&e| !(C::BINARY_EQ && charset.is_multibyte() && e >= 0x80));
    // `%` is always a wildcard, and so is `_` in the run of `%` and `_`
    // after a `%`. Elsewhere the utf8 `_ci` collations test for the escape
    // before `_`; the others take `_` as a wildcard even when it is the
    // escape character.
    let escape_first = !C::BINARY_EQ && charset.is_multibyte();
    let mut in_many_run = false;
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < pattern.len() {
        let (code, len) = char_code(charset, &pattern[i..]);
        let mut start = i;
        let mut end = i + len;
        let escaped = escape == Some(code) && end < pattern.len();
        if code == u32::from(b'%') {
            if tokens.last() != Some(&Token::Many) {
                tokens.push(Token::Many);
            }
            in_many_run = true;
            i = end;
            continue;
        }
        if code == u32::from(b'_') && (in_many_run || !(escaped && escape_first)) {
            tokens.push(Token::One);
            i = end;
            continue;
        }
        in_many_run = false;
        if escaped {
            // The escaped character is literal; an escape at the very end is
            // itself literal.
            start = end;
            end += char_code(charset, &pattern[start..]).1;
        }
        let (key, _) = c.like_key(&pattern[start..end]);
        if key == LIKE_POISON {
            return Plan::Never;
        }
        tokens.push(Token::Lit {
            key,
            start: start as u32,
            len: (end - start) as u32,
        });
        i = end;
    }

    let kind = |t: &Token| match t {
        Token::Lit { .. } => Kind::Lit,
        Token::One => Kind::One,
        Token::Many => Kind::Many,
    };
    let mut tail_start = tokens.len();
    while tail_start > 0 && kind(&tokens[tail_start - 1]) != Kind::Lit {
        tail_start -= 1;
    }
    // The run must start at a `%` for MariaDB to stop reading after it.
    while tail_start < tokens.len() && tokens[tail_start] != Token::Many {
        tail_start += 1;
    }
    let tail = (tail_start < tokens.len()).then(|| {
        (
            tail_start,
            tokens[tail_start..]
                .iter()
                .filter(|t| **t == Token::One)
                .count(),
        )
    });
    let mut single_after_many = vec![false; tokens.len()];
    let mut after_many = false;
    for (k, t) in tokens.iter().enumerate() {
        match t {
            Token::Many => after_many = true,
            Token::One => {}
            Token::Lit { len, .. } => {
                single_after_many[k] =
                    after_many && *len == 1 && C::BINARY_EQ && charset.is_multibyte();
                after_many = false;
            }
        }
    }
    let has_one = tokens.contains(&Token::One);
    let bad_bytes = tokens
        .iter()
        .any(|t| matches!(t, Token::Lit { key, .. } if charset.is_multibyte() && is_bad(*key)));

    // Literal runs between `%`s, as pattern bytes or as ASCII weights.
    let parts = |bytes_of: &dyn Fn(&Token) -> Option<Vec<u8>>| -> Option<Vec<Vec<u8>>> {
        let mut parts = vec![Vec::new()];
        for t in &tokens {
            match t {
                Token::Many => parts.push(Vec::new()),
                _ => parts.last_mut().expect("non-empty").extend(bytes_of(t)?),
            }
        }
        Some(parts)
    };
    let plan = if has_one || chars_only {
        None
    } else if C::BINARY_EQ {
        // An invalid byte in a utf8 pattern could be found inside a
        // character of the value: the character matcher steps by characters.
        (!bad_bytes).then(|| {
            let p = parts(&|t| match t {
                Token::Lit { start, len, .. } => {
                    Some(pattern[*start as usize..(*start + *len) as usize].to_vec())
                }
                _ => None,
            });
            Plan::Bytes(Pieces::new(p.expect("literals only")))
        })
    } else if C::ASCII_CI {
        // Pieces of weights, when every literal weighs as an ASCII byte.
        parts(&|t| match t {
            Token::Lit { key, .. } if *key < 0x80 => Some(vec![*key as u8]),
            _ => None,
        })
        .map(|p| {
            let pieces = Pieces::new(p);
            let prefix_only =
                pieces.exact.is_none() && pieces.middles.is_empty() && pieces.suffix.is_empty();
            Plan::FoldedCi {
                prefix_only,
                pieces,
                fold: fold_weights::<C>,
                tokens: Tokens {
                    tokens: tokens.clone(),
                    bytes: pattern.into(),
                    single_after_many: single_after_many.clone(),
                    tail,
                },
                chars: chars_fn::<C>,
                charset,
            }
        })
    } else if c.like_ascii_classes().is_some() {
        // Pieces of classes, when every literal matches some ASCII byte.
        parts(&|t| match t {
            Token::Lit { key, .. } => c.like_class_of_key(*key).map(|k| vec![k]),
            _ => None,
        })
        .map(Pieces::new)
        .map(|pieces| Plan::FoldedClasses {
            charset,
            prefix_only: pieces.exact.is_none()
                && pieces.middles.is_empty()
                && pieces.suffix.is_empty(),
            in_place_unless: c.like_ascii_classes().and_then(|classes| {
                let odd = (0..128u8)
                    .filter(|&b| classes[usize::from(b)] != b.to_ascii_uppercase())
                    .fold(0u128, |m, b| m | 1 << b);
                let controls = (0..0x20u8).fold(1u128 << 0x7F, |m, b| m | 1 << b);
                (odd & !controls == 0).then_some(odd)
            }),
            pieces,
            fold: fold_classes::<C>,
            tokens: Tokens {
                tokens: tokens.clone(),
                bytes: pattern.into(),
                single_after_many: single_after_many.clone(),
                tail,
            },
            chars: chars_fn::<C>,
        })
    } else {
        None
    };
    plan.unwrap_or(Plan::Chars {
        tokens: Tokens {
            tokens,
            bytes: pattern.into(),
            single_after_many,
            tail,
        },
        chars: chars_fn::<C>,
    })
}

/// The character matcher: `%` remembers where to resume, a mismatch resumes
/// the last `%` one character further (linear backtracking, exact for `%`
/// and `_`). `_bin` collations compare literal bytes at the current
/// position (as MariaDB does, also for invalid bytes), `_ci` ones keys. A
/// poisoned character fails the current attempt and cannot be passed by
/// `%`; the tail run of `%`/`_` accepts without reading further.
fn match_tokens<C: Collator>(c: C, t: &Tokens, v: &[u8]) -> bool {
    let toks = &t.tokens;
    let (mut p, mut s) = (0usize, 0usize);
    let mut resume: Option<(usize, usize)> = None;
    loop {
        if let Some((tail, ones)) = t.tail {
            if p == tail {
                // Read `ones` characters, then accept.
                let mut pos = s;
                let mut ok = true;
                for _ in 0..ones {
                    if pos >= v.len() {
                        ok = false;
                        break;
                    }
                    let (key, len) = c.like_key(&v[pos..]);
                    if key == LIKE_POISON {
                        ok = false;
                        break;
                    }
                    pos += len;
                }
                if ok {
                    return true;
                }
                p = toks.len() + 1; // force the backtrack below
            }
        }
        if p == toks.len() {
            if s == v.len() {
                return true;
            }
        } else if p < toks.len() {
            match toks[p] {
                Token::Many => {
                    p += 1;
                    resume = Some((p, s));
                    continue;
                }
                Token::Lit { start, len, .. } if C::BINARY_EQ => {
                    let lit = &t.bytes[start as usize..(start + len) as usize];
                    let fits = !t.single_after_many[p] || c.char_width(&v[s..]) <= 1;
                    if fits && v.len() - s >= lit.len() && v[s..s + lit.len()] == *lit {
                        p += 1;
                        s += lit.len();
                        continue;
                    }
                }
                tok => {
                    if s < v.len() {
                        let (key, len) = c.like_key(&v[s..]);
                        let hit = match tok {
                            Token::Lit { key: k, .. } => k == key,
                            _ => true,
                        };
                        if key != LIKE_POISON && hit {
                            p += 1;
                            s += len;
                            continue;
                        }
                    }
                }
            }
        }
        // Mismatch: let the last `%` swallow one more character.
        match resume {
            Some((rp, rs)) if rs < v.len() => {
                let (key, len) = c.like_key(&v[rs..]);
                if key == LIKE_POISON {
                    return false;
                }
                resume = Some((rp, rs + len));
                p = rp;
                s = rs + len;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_is_read_in_the_pattern_text_and_8bit_wildcards_win() {
        use Charset::*;
        // A latin1 collation over UTF-8 text reads its escape as UTF-8.
        assert_eq!(
            escape_code(Latin1, Utf8mb4, Some("é".as_bytes())),
            Ok(Some(0xE9))
        );
        assert_eq!(escape_code(Latin1, Latin1, Some(b"\xE9")), Ok(Some(0xE9)));
        // MariaDB's 8-bit LIKE: `_` / `%` as the escape stay wildcards.
        assert_eq!(escape_code(Latin1, Utf8mb4, Some(b"_")), Ok(None));
        assert_eq!(escape_code(Ascii, Ascii, Some(b"%")), Ok(None));
        assert_eq!(escape_code(Utf8mb4, Utf8mb4, Some(b"_")), Ok(Some(0x5F)));
        assert_eq!(escape_code(Latin1, Utf8mb4, Some(b"")), Ok(Some(0)));
        let p = LikePattern::new(
            Collation::from_name("latin1_swedish_ci")
                .unwrap()
                .over_utf8(),
            b"a__b",
            Some(b"_"),
        )
        .unwrap();
        assert!(!p.matches(b"a_b"));
        assert!(p.matches(b"axyb"));
    }

    fn like(coll: &str, v: &[u8], p: &[u8]) -> bool {
        LikePattern::new(Collation::from_name(coll).unwrap(), p, None)
            .unwrap()
            .matches(v)
    }

    #[test]
    fn basics() {
        for coll in [
            "binary",
            "utf8mb4_bin",
            "utf8mb4_general_ci",
            "latin1_swedish_ci",
            "ascii_bin",
        ] {
            assert!(like(coll, b"abc", b"abc"), "{coll}");
            assert!(!like(coll, b"abc ", b"abc"), "{coll}");
            assert!(like(coll, b"abc", b"a%"), "{coll}");
            assert!(like(coll, b"abc", b"%c"), "{coll}");
            assert!(like(coll, b"abc", b"%b%"), "{coll}");
            assert!(like(coll, b"abc", b"a_c"), "{coll}");
            assert!(!like(coll, b"abc", b"a_"), "{coll}");
            assert!(like(coll, b"", b"%"), "{coll}");
            assert!(!like(coll, b"", b"_"), "{coll}");
            assert!(like(coll, b"a%", b"a\\%"), "{coll}");
            assert!(!like(coll, b"ab", b"a\\%"), "{coll}");
            assert!(like(coll, b"a\\", b"a\\"), "{coll}");
            assert!(
                like(coll, b"xpendingxxdeposits", b"%pending%deposits%"),
                "{coll}"
            );
            assert!(
                !like(coll, b"xdepositsxpending", b"%pending%deposits%"),
                "{coll}"
            );
            assert!(like(coll, b"aXbXc", b"a%b%c"), "{coll}");
            assert!(!like(coll, b"abc", b"abc%d"), "{coll}");
            assert!(like(coll, b"aaa", b"%a%a%a%"), "{coll}");
            assert!(!like(coll, b"aa", b"%a%a%a%"), "{coll}");
            assert!(!like(coll, b"ab", b"a%%b%b"), "{coll}");
        }
        assert!(like("utf8mb4_general_ci", b"ABC", b"a%c"));
        assert!(!like("utf8mb4_bin", b"ABC", b"a%c"));
        assert!(like("utf8mb4_general_ci", "é".as_bytes(), b"E"));
        assert!(like("utf8mb4_general_ci", b"E", "é".as_bytes()));
        assert!(like("utf8mb4_bin", "é".as_bytes(), b"_"));
        assert!(!like("binary", "é".as_bytes(), b"_"));
        assert!(like("binary", "é".as_bytes(), b"__"));
        // invalid bytes
        assert!(like("utf8mb4_general_ci", b"a\xffb", b"a%"));
        assert!(!like("utf8mb4_general_ci", b"a\xffb", b"%b"));
        assert!(!like("utf8mb4_general_ci", b"a\xffb", b"a\xff%"));
        assert!(like("utf8mb4_bin", b"a\xffb", b"a_b"));
        assert!(like("utf8mb4_bin", b"a\xffb", b"%\xff%"));
        assert!(!like("utf8mb4_bin", "aé".as_bytes(), b"%\xa9"));
    }

    #[test]
    fn uca_patterns_match_ascii_values_in_place() {
        for name in [
            "utf8mb4_unicode_ci",
            "utf8mb4_unicode_520_ci",
            "utf8mb4_uca1400_ai_ci",
            "utf8mb4_0900_ai_ci",
        ] {
            let p = LikePattern::new(
                Collation::from_name(name).unwrap(),
                b"%pending%deposits%",
                None,
            )
            .unwrap();
            assert!(
                matches!(
                    p.plan,
                    Plan::FoldedClasses {
                        in_place_unless: Some(_),
                        ..
                    }
                ),
                "{name}"
            );
            assert!(p.matches(b"xx PENDING, DEPOSITS"));
            assert!(!p.matches(b"xx PENDING, DEPOSIT"));
            assert!(p.matches("pénding\u{1}dépôsits".as_bytes()));
        }
        let odd = (1u128 << 1) | (1 << 0x7F);
        assert!(plain_ascii(b"abc\tdef ghi\x00jkl", odd));
        assert!(!plain_ascii(b"abc\tdef ghi\x01jkl", odd));
        assert!(!plain_ascii(b"abcdefgh\x7f", odd));
        assert!(!plain_ascii("abcdefghé".as_bytes(), odd));
    }

    #[test]
    fn escapes() {
        let c = Collation::utf8mb4_bin();
        assert_eq!(
            LikePattern::new(c, b"a", Some(b"ab")).unwrap_err(),
            LikeError::BadEscape
        );
        let p = LikePattern::new(c, b"a|_", Some(b"|")).unwrap();
        assert!(p.matches(b"a_") && !p.matches(b"ab"));
        // A non-ASCII escape applies under _ci (by code point), not under utf8 _bin.
        let ci = Collation::utf8mb4_general_ci();
        let p = LikePattern::new(ci, "aéé%".as_bytes(), Some("é".as_bytes())).unwrap();
        assert!(p.matches("aé".as_bytes()));
        let p = LikePattern::new(c, "aéé".as_bytes(), Some("é".as_bytes())).unwrap();
        assert!(!p.matches("aé".as_bytes()) && p.matches("aéé".as_bytes()));
        // Wildcards win over an escape that is `_` or `%`.
        let p = LikePattern::new(c, b"a__b", Some(b"_")).unwrap();
        assert!(!p.matches(b"a_b") && p.matches(b"axyb"));
        let p = LikePattern::without_escape(c, b"a\\%");
        assert!(p.matches(b"a\\xyz") && !p.matches(b"a%"));
    }
}
