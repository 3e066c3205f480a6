//! A compiled pattern: PCRE2's code (JIT when available) under MariaDB's
//! options for the comparison collation, its prefilter, the cache that
//! compiles each (pattern, options) once, and MariaDB's errors and
//! warnings for bad patterns and failed matches.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use pcre2::bytes::{CaptureLocations, Regex, RegexBuilder};
use quiver_common::{QuiverError, Result};

use super::mode::Mode;
use super::prefilter::Prefilter;
use crate::warnings::{raise_with, Level};

/// PCRE2's error for a match that ran out of its JIT stack: the
/// interpreter (which backtracks on the heap, as MariaDB's does) retries.
const JIT_STACK_LIMIT: i32 = -46;

/// The JIT stack a match may grow to.
const JIT_STACK: usize = 1 << 20;

/// How many compiled patterns the cache keeps (a column of patterns could
/// otherwise grow it without bound); it starts over when full.
const CACHE_SIZE: usize = 512;

/// A pattern compiled for one [`Mode`].
pub(crate) struct Compiled {
    regex: Regex,
    mode: Mode,
    /// The same code without JIT, built when a JIT match runs out of stack.
    interpreted: OnceLock<std::result::Result<Regex, pcre2::Error>>,
    pub prefilter: Option<Prefilter>,
}

/// The outcome of one search.
pub(crate) enum Found {
    /// The match's byte range in the subject.
    At(usize, usize),
    None,
}

impl Compiled {
    /// The first match in `subject` at or after byte `start`. A failed match
    /// (the match limit) is no match with warning 1139, as MariaDB's
    /// `pcre_exec_with_warn`.
    pub fn find_at(&self, subject: &[u8], start: usize) -> Found {
        self.captures_at(None, subject, start)
    }

    /// [`Compiled::find_at`] that also fills `locs` with the groups.
    pub fn captures_at(
        &self,
        locs: Option<&mut CaptureLocations>,
        subject: &[u8],
        start: usize,
    ) -> Found {
        let run = |re: &Regex, locs: Option<&mut CaptureLocations>| match locs {
            Some(l) => re
                .captures_read_at(l, subject, start)
                .map(|m| m.map(|m| (m.start(), m.end()))),
            None => re
                .find_at(subject, start)
                .map(|m| m.map(|m| (m.start(), m.end()))),
        };
        let mut locs = locs;
        let r = match run(&self.regex, locs.as_deref_mut()) {
            Err(e) if e.code() == JIT_STACK_LIMIT => match self.interpreted() {
                Ok(re) => run(re, locs),
                Err(e) => Err(e.clone()),
            },
            r => r,
        };
        match r {
            Ok(Some((s, e))) => Found::At(s, e),
            Ok(None) => Found::None,
            Err(e) => {
                raise_with(Level::Warning, 1139, || {
                    format!("Regex error '{}'", pcre_message(&e))
                });
                Found::None
            }
        }
    }

    pub fn capture_locations(&self) -> CaptureLocations {
        self.regex.capture_locations()
    }

    fn interpreted(&self) -> &std::result::Result<Regex, pcre2::Error> {
        self.interpreted
            .get_or_init(|| builder(self.mode, false).build(self.regex.as_str()))
    }
}

fn builder(mode: Mode, jit: bool) -> RegexBuilder {
    let mut b = RegexBuilder::new();
    b.caseless(mode.caseless);
    if mode.utf {
        // PCRE2_UTF | PCRE2_UCP (and PCRE2_MATCH_INVALID_UTF, which valid
        // UTF-8 subjects never need).
        b.ucp(true);
    }
    if jit {
        b.jit_if_available(true).max_jit_stack_size(Some(JIT_STACK));
    }
    b
}

/// The text of a PCRE2 error, without the crate's prefix
/// ("PCRE2: error matching: match limit exceeded").
fn pcre_message(e: &pcre2::Error) -> String {
    let s = e.to_string();
    s.splitn(3, ": ").nth(2).unwrap_or(&s).to_string()
}

type Key = (Box<[u8]>, Mode);

static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Compiled>>>> = OnceLock::new();

/// The compiled `pattern` for `mode`, from the cache; error 1139 with
/// PCRE2's message and offset for an invalid one.
pub(crate) fn compile(pattern: &[u8], mode: Mode) -> Result<Arc<Compiled>> {
    let cache = CACHE.get_or_init(Default::default);
    let key: Key = (pattern.into(), mode);
    if let Some(c) = cache.lock().map_err(poisoned)?.get(&key) {
        return Ok(c.clone());
    }
    let compiled = Arc::new(compile_uncached(pattern, mode)?);
    let mut map = cache.lock().map_err(poisoned)?;
    if map.len() >= CACHE_SIZE {
        map.clear();
    }
    map.insert(key, compiled.clone());
    Ok(compiled)
}

/// A pattern that varies by row: an invalid one makes that row's result
/// NULL, silently (MariaDB reports only a constant pattern's error).
pub(crate) fn row_pattern(pattern: &[u8], mode: Mode) -> Option<Arc<Compiled>> {
    compile(pattern, mode).ok()
}

fn poisoned<T>(_: T) -> QuiverError {
    QuiverError::internal("the regular expression cache is poisoned")
}

fn compile_uncached(pattern: &[u8], mode: Mode) -> Result<Compiled> {
    let text = pattern_text(pattern, mode.utf)?;
    let regex = builder(mode, true).build(&text).map_err(|e| {
        let msg = pcre_message(&e);
        let msg = match e.offset() {
            Some(at) => format!("{msg} at offset {at}"),
            None => msg,
        };
        QuiverError::new(1139, "42000", format!("Regex error '{msg}'"))
    })?;
    Ok(Compiled {
        regex,
        mode,
        interpreted: OnceLock::new(),
        prefilter: Prefilter::of(pattern, mode),
    })
}

/// The pattern as the text PCRE2 is given: UTF-8 text as is; in byte mode
/// a byte that is not part of valid UTF-8 is written as `\x{hh}` (PCRE2
/// reads the escape as that one byte), replacing a backslash that quoted it.
fn pattern_text(pattern: &[u8], utf: bool) -> Result<String> {
    if let Ok(s) = std::str::from_utf8(pattern) {
        return Ok(s.to_string());
    }
    if utf {
        return Err(QuiverError::internal("a text pattern that is not UTF-8"));
    }
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut rest = pattern;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.push_str(std::str::from_utf8(&rest[..good]).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len() - good);
                for b in &rest[good..good + bad] {
                    let quoted = out.bytes().rev().take_while(|c| *c == b'\\').count() % 2 == 1;
                    if quoted {
                        out.pop();
                    }
                    out.push_str(&format!("\\x{{{b:02x}}}"));
                }
                rest = &rest[good + bad..];
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn utf() -> Mode {
        Mode {
            utf: true,
            caseless: false,
        }
    }

    #[test]
    fn errors_are_mariadbs_text() {
        let e = compile(b"(", utf()).err().unwrap();
        assert!(e
            .to_string()
            .contains("Regex error 'missing closing parenthesis at offset 1'"));
    }

    #[test]
    fn byte_patterns_keep_their_bytes() {
        let m = Mode {
            utf: false,
            caseless: false,
        };
        assert_eq!(pattern_text(b"a\xffb", false).unwrap(), "a\\x{ff}b");
        assert_eq!(pattern_text(b"a\\\xff", false).unwrap(), "a\\x{ff}");
        let c = compile(b"\xff+$", m).unwrap();
        assert!(matches!(c.find_at(b"ab\xff\xff", 0), Found::At(2, 4)));
    }

    const EXACT: Mode = Mode {
        utf: true,
        caseless: false,
    };

    /// Whether `subject` matches: plainly, and through the prefilter.
    fn both(pattern: &str, subject: &[u8], mode: Mode) -> Option<(bool, bool)> {
        let c = compile(pattern.as_bytes(), mode).ok()?;
        let plain = matches!(c.find_at(subject, 0), Found::At(..));
        let filtered = c.prefilter.as_ref().is_none_or(|f| f.may_match(subject)) && plain;
        Some((plain, filtered))
    }

    fn pattern() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "a", "b", "c", "K", "k", "s", ".", "[ab]", "[^a]", "(a|b)", "(ab)", "\\d", "\\.", "x",
            "é", "É", " ", "1", "\\w", "\\b",
        ]);
        let quant = prop::sample::select(vec![
            "", "", "", "*", "+", "?", "{2}", "{0,1}", "{1,}", "*?",
        ]);
        (
            prop::bool::ANY,
            prop::collection::vec((atom, quant), 0..6),
            prop::bool::ANY,
        )
            .prop_map(|(start, atoms, end)| {
                let mut p = String::new();
                if start {
                    p.push('^');
                }
                for (a, q) in atoms {
                    p.push_str(a);
                    p.push_str(q);
                }
                if end {
                    p.push('$');
                }
                p
            })
    }

    fn subject() -> impl Strategy<Value = String> {
        let ch = prop::sample::select(vec![
            'a', 'b', 'c', 'A', 'B', 'k', 'K', 'S', 's', 'ſ', '\u{212A}', 'é', 'É', ' ', '1', '.',
            'x',
        ]);
        prop::collection::vec(ch, 0..12).prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The prefiltered path answers as PCRE2 alone, under each mode,
        /// row by row and over a column.
        #[test]
        fn prefilter_agrees_with_plain_regex(p in pattern(), subjects in prop::collection::vec(subject(), 1..80)) {
            for mode in [EXACT, Mode { utf: true, caseless: true }, Mode { utf: false, caseless: false }] {
                let Ok(c) = compile(p.as_bytes(), mode) else { continue };
                let mut offsets = vec![0i32];
                let mut values = Vec::new();
                for s in &subjects {
                    let (plain, filtered) = both(&p, s.as_bytes(), mode).unwrap();
                    prop_assert_eq!(plain, filtered, "{:?} on {:?} under {:?}", p, s, mode);
                    values.extend_from_slice(s.as_bytes());
                    offsets.push(values.len() as i32);
                }
                if let Some(f) = &c.prefilter {
                    let mut bits = vec![0u64; subjects.len().div_ceil(64)];
                    f.candidates(&offsets, &values, &mut bits);
                    for (i, s) in subjects.iter().enumerate() {
                        let bit = bits[i / 64] >> (i % 64) & 1 == 1;
                        prop_assert_eq!(bit, f.may_match(s.as_bytes()));
                    }
                }
            }
        }
    }
}
