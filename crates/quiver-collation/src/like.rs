//! `LIKE` patterns, compiled once and matched against many values.
//!
//! MySQL semantics as MariaDB 10.11 answers them: no padding (`'a ' LIKE 'a'`
//! is false), `%` any run of characters, `_` exactly one character (one byte
//! under `binary`), the escape character (by default `\`; `ESCAPE ''` also
//! means `\`) makes the next character literal and is a literal itself at the
//! end of the pattern; it is recognized by code point, not by weight.
//! Characters match by the collation's [`Collator::like_key`]: bytes or code
//! points for `_bin`, weights for `_ci` ('é' matches 'E', 'ß' matches 's').
//!
//! Under the utf8 `_ci` collations an invalid byte stops the match as it does
//! in MariaDB: a pattern holding one matches nothing, and a value holding
//! one matches only if the pattern matches its valid start and then ends in
//! `%`. Under `_bin` an invalid byte is a character like any other.
//!
//! Plans: binary-comparable collations split the pattern at `%` into a
//! prefix, a suffix and middle pieces searched in order with the SIMD
//! [`SubstringFinder`]; `_ci` collations do the same over the uppercased
//! value when it is ASCII, and otherwise (or when the pattern has `_`) a
//! character matcher over keys runs (linear backtracking over the last `%`).

use std::fmt;

use quiver_string_kernels::{self as sk, SubstringFinder};

use crate::charset::{decode_utf8, is_bad, Charset};
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
        Pieces {
            exact: None,
            prefix,
            suffix,
            middles,
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
        if !sk::bytes_eq(&v[..p], &self.prefix) || !sk::bytes_eq(&v[v.len() - s..], &self.suffix) {
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
}

#[derive(Clone, Debug)]
enum Plan {
    /// Matches no value (an invalid byte in a utf8 `_ci` pattern).
    Never,
    /// Byte pieces over the value itself (binary-comparable collations).
    Bytes(Pieces),
    /// `_ci`: ASCII values through byte pieces of the pattern's weights over
    /// the uppercased value (`None`: a literal weighs outside ASCII, so no
    /// ASCII value matches); other values through the character matcher.
    AsciiCi {
        ascii: Option<Pieces>,
        tokens: Tokens,
    },
    /// The character matcher for every value.
    Chars(Tokens),
}

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

/// The escape character as MariaDB applies it, from the `ESCAPE` string.
fn escape_code(charset: Charset, escape: Option<&[u8]>) -> Result<Option<u32>, LikeError> {
    Ok(match escape {
        None => Some(u32::from(DEFAULT_ESCAPE)),
        // `ESCAPE ''` (in the column's charset): `\` for utf8, NUL for the
        // 8-bit charsets and binary.
        Some(b"") => match charset {
            Charset::Utf8mb4 | Charset::Utf8mb3 => Some(u32::from(DEFAULT_ESCAPE)),
            Charset::Binary | Charset::Latin1 | Charset::Ascii => Some(0),
        },
        Some(e) => {
            let (code, len) = char_code(charset, e);
            if len != e.len() {
                return Err(LikeError::BadEscape);
            }
            Some(code)
        }
    })
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
        let escape = escape_code(collation.charset(), escape)?;
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
        let escape = escape_code(collation.charset(), escape)?;
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
            Plan::AsciiCi { ascii, tokens } => {
                let mut stack = [0u8; 256];
                let mut heap = Vec::new();
                let buf: &mut [u8] = if value.len() <= stack.len() {
                    &mut stack[..value.len()]
                } else {
                    heap.resize(value.len(), 0);
                    &mut heap
                };
                if upper_if_ascii(value, buf) {
                    ascii.as_ref().is_some_and(|p| p.matches(buf))
                } else {
                    with_collator!(self.collation, |c| match_tokens(c, tokens, value))
                }
            }
            Plan::Chars(tokens) => {
                with_collator!(self.collation, |c| match_tokens(c, tokens, value))
            }
        }
    }
}

/// Copies `v` into `out` with ASCII letters uppercased, a word at a time;
/// false (and `out` unspecified) as soon as a byte is not ASCII.
#[inline]
fn upper_if_ascii(v: &[u8], out: &mut [u8]) -> bool {
    let mut i = 0;
    while i + 8 <= v.len() {
        let w = u64::from_le_bytes(v[i..i + 8].try_into().expect("8 bytes"));
        if !word_is_ascii(w) {
            return false;
        }
        out[i..i + 8].copy_from_slice(&ascii_upper_word(w).to_le_bytes());
        i += 8;
    }
    for j in i..v.len() {
        let b = v[j];
        if b >= 0x80 {
            return false;
        }
        out[j] = b.to_ascii_uppercase();
    }
    true
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
    } else {
        // `_ci`: ASCII values weigh as their uppercased bytes.
        let ascii = parts(&|t| match t {
            Token::Lit { key, .. } if *key < 0x80 => Some(vec![*key as u8]),
            _ => None,
        })
        .map(Pieces::new);
        Some(Plan::AsciiCi {
            ascii,
            tokens: Tokens {
                tokens: tokens.clone(),
                bytes: pattern.into(),
                single_after_many: single_after_many.clone(),
                tail,
            },
        })
    };
    plan.unwrap_or(Plan::Chars(Tokens {
        tokens,
        bytes: pattern.into(),
        single_after_many,
        tail,
    }))
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
