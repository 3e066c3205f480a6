//! The prefilter: a literal every match of a pattern contains, found with
//! the SIMD substring kernels before PCRE2 runs, so rows without it never
//! reach PCRE2 (`furious.*dep` needs `furious`; `^abc` needs `abc` at the
//! start).
//!
//! The literal comes from a conservative reading of the pattern's top level:
//! characters outside groups and classes, cut at anything else (`.`, a class,
//! a group, an escape that is not a plain character), a character under a
//! quantifier allowing zero dropped, under `+` / `{n,}` kept as the run's
//! end. Any construct that could change what a literal means gives no
//! prefilter at all: an alternation (`|` anywhere), inline options
//! (`(?i)`, `(?x)`), verbs (`(*UTF)`), `\Q...\E`. Under a case-insensitive
//! collation the literal keeps ASCII characters only and is searched
//! ASCII-case-insensitively; a value with a byte from 0x80 that lacks it
//! still goes to PCRE2 (KELVIN SIGN matches `k`). A filtered row is exactly
//! one PCRE2 finds no match in; a property test in `pattern.rs` checks that.

use quiver_collation::CiFinder;
use quiver_string_kernels::{contains_offsets, SubstringFinder};

use super::mode::Mode;
use crate::expr::binary_fns::utf8_len;

/// A literal every match contains.
pub(crate) struct Prefilter {
    search: Search,
    /// The literal starts every match at the subject's start (`^abc`).
    anchored: bool,
}

enum Search {
    Exact(SubstringFinder),
    /// ASCII case-insensitive, the needle in upper case.
    Caseless(CiFinder),
}

impl Prefilter {
    /// The prefilter of `pattern` under `mode`, if it has a literal.
    pub fn of(pattern: &[u8], mode: Mode) -> Option<Prefilter> {
        let (literal, anchored) = required_literal(pattern, mode)?;
        if literal.is_empty() {
            return None;
        }
        let search = if mode.caseless {
            Search::Caseless(CiFinder::new(&literal.to_ascii_uppercase()))
        } else {
            Search::Exact(SubstringFinder::new(&literal))
        };
        Some(Prefilter { search, anchored })
    }

    /// Whether `subject` may match (false only when it cannot).
    pub fn may_match(&self, subject: &[u8]) -> bool {
        match &self.search {
            Search::Exact(f) if self.anchored => subject.starts_with(f.needle()),
            Search::Exact(f) => f.is_match(subject),
            Search::Caseless(f) => {
                let hay = if self.anchored {
                    &subject[..subject.len().min(f.needle().len())]
                } else {
                    subject
                };
                let (at, ascii) = f.find_ascii(hay);
                at.is_some() || !ascii
            }
        }
    }

    /// [`Prefilter::may_match`] over a column (`offsets` into `values`),
    /// as bits in `out` (bit `i % 64` of word `i / 64` for row `i`): one
    /// search over the whole values buffer where it can be.
    pub fn candidates(&self, offsets: &[i32], values: &[u8], out: &mut [u64]) {
        if let (Search::Exact(f), false) = (&self.search, self.anchored) {
            if contains_offsets(offsets, values, f, out).is_ok() {
                return;
            }
        }
        out.fill(0);
        for (i, w) in offsets.windows(2).enumerate() {
            let (s, e) = (w[0] as usize, w[1] as usize);
            if values.get(s..e).is_none_or(|v| self.may_match(v)) {
                out[i / 64] |= 1 << (i % 64);
            }
        }
    }
}

/// The longest literal run at the pattern's top level, and whether it is
/// anchored at the subject's start; None when the pattern has a construct
/// this reading does not follow.
fn required_literal(p: &[u8], mode: Mode) -> Option<(Vec<u8>, bool)> {
    if p.contains(&b'|') || has_options(p) || p.windows(2).any(|w| w == b"\\Q") {
        return None;
    }
    let mut best: (Vec<u8>, bool) = (Vec::new(), false);
    let mut run: Vec<u8> = Vec::new();
    let mut run_anchored = false;
    let mut i = 0;
    if p.first() == Some(&b'^') {
        i = 1;
        run_anchored = true;
    }
    let flush = |run: &mut Vec<u8>, anchored: &mut bool, best: &mut (Vec<u8>, bool)| {
        if run.len() > best.0.len() {
            *best = (run.clone(), *anchored);
        }
        run.clear();
        *anchored = false;
    };
    while i < p.len() {
        // The next atom: Some(bytes) for a literal character, None for
        // anything else (which ends the run).
        let c = p[i];
        let atom: Option<Vec<u8>> = match c {
            b'\\' => {
                let d = *p.get(i + 1)?;
                if d.is_ascii_alphanumeric() {
                    match d {
                        b'd' | b'D' | b'w' | b'W' | b's' | b'S' | b'h' | b'H' | b'v' | b'V'
                        | b'R' | b'X' | b'b' | b'B' | b'A' | b'z' | b'Z' | b'G' | b'K' | b'C' => {
                            i += 2;
                            None
                        }
                        b'n' | b't' | b'r' | b'f' | b'e' | b'a' => {
                            i += 2;
                            Some(vec![match d {
                                b'n' => b'\n',
                                b't' => b'\t',
                                b'r' => b'\r',
                                b'f' => 0x0c,
                                b'e' => 0x1b,
                                _ => 0x07,
                            }])
                        }
                        // \x.., \p{..}, \g.., \k<..>, \N{..}, digits: not
                        // followed here; what came before still holds.
                        _ => {
                            flush(&mut run, &mut run_anchored, &mut best);
                            break;
                        }
                    }
                } else if d < 0x80 {
                    i += 2;
                    Some(vec![d])
                } else {
                    flush(&mut run, &mut run_anchored, &mut best);
                    break;
                }
            }
            b'[' => {
                i = skip_class(p, i)?;
                None
            }
            b'(' => {
                i = skip_group(p, i)?;
                None
            }
            b')' => return None,
            b'.' | b'^' | b'$' => {
                i += 1;
                None
            }
            // A quantifier after a non-literal atom: skipped below.
            b'*' | b'+' | b'?' | b'{' => None,
            _ => {
                let n = if mode.utf { utf8_len(c) } else { 1 };
                let end = (i + n).min(p.len());
                let ch = p[i..end].to_vec();
                i = end;
                Some(ch)
            }
        };
        let quantifier = quantifier_at(p, i)?;
        if let Some((_, len)) = quantifier {
            i += len;
            // A lazy or possessive quantifier's suffix.
            if matches!(p.get(i), Some(b'?' | b'+')) {
                i += 1;
            }
        }
        // Under a case-insensitive collation only ASCII folds simply.
        let atom = atom.filter(|a| !mode.caseless || a.is_ascii());
        match (atom, quantifier) {
            (Some(a), None) => run.extend_from_slice(&a),
            (Some(a), Some((min, _))) if min > 0 => {
                run.extend_from_slice(&a);
                flush(&mut run, &mut run_anchored, &mut best);
            }
            _ => flush(&mut run, &mut run_anchored, &mut best),
        }
    }
    flush(&mut run, &mut run_anchored, &mut best);
    Some(best)
}

/// Inline options or verbs anywhere: `(?i)`, `(?x:`, `(?-s)`, `(*CR)`.
fn has_options(p: &[u8]) -> bool {
    p.windows(3).any(|w| {
        w[0] == b'('
            && (w[1] == b'*'
                || (w[1] == b'?'
                    && (w[2].is_ascii_alphabetic() && !matches!(w[2], b'P' | b'C' | b'R')
                        || matches!(w[2], b'-' | b'^'))))
    }) || p.ends_with(b"(*")
}

/// A quantifier at `i`: its minimum and length; None when `{` at `i` is
/// not one (PCRE2 would read it as a literal: not followed here).
#[allow(clippy::type_complexity)]
fn quantifier_at(p: &[u8], i: usize) -> Option<Option<(u64, usize)>> {
    Some(match p.get(i) {
        Some(b'*') | Some(b'?') => Some((0, 1)),
        Some(b'+') => Some((1, 1)),
        Some(b'{') => {
            let close = p[i..].iter().position(|&c| c == b'}')?;
            let body = std::str::from_utf8(&p[i + 1..i + close]).ok()?;
            let min = body.split(',').next()?.trim();
            let min = if min.is_empty() { 0 } else { min.parse().ok()? };
            if !body
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b',' || b == b' ')
            {
                return None;
            }
            Some((min, close + 1))
        }
        _ => None,
    })
}

/// The index after the class opening at `i`.
fn skip_class(p: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if p.get(j) == Some(&b'^') {
        j += 1;
    }
    if p.get(j) == Some(&b']') {
        j += 1;
    }
    while j < p.len() {
        match p[j] {
            b'\\' => j += 2,
            b'[' if p.get(j + 1) == Some(&b':') => {
                let end = p[j + 2..].windows(2).position(|w| w == b":]")?;
                j += 2 + end + 2;
            }
            b']' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The index after the group opening at `i` (nested groups and classes
/// inside it skipped with it).
fn skip_group(p: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < p.len() {
        match p[j] {
            b'\\' => j += 2,
            b'[' => j = skip_class(p, j)?,
            b'(' => {
                depth += 1;
                j += 1;
            }
            b')' => {
                depth -= 1;
                j += 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => j += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXACT: Mode = Mode {
        utf: true,
        caseless: false,
    };

    fn lit(p: &str) -> Option<(String, bool)> {
        required_literal(p.as_bytes(), EXACT).map(|(l, a)| (String::from_utf8(l).unwrap(), a))
    }

    #[test]
    fn literals_of_patterns() {
        assert_eq!(lit("furious.*dep"), Some(("furious".into(), false)));
        assert_eq!(lit("^abc"), Some(("abc".into(), true)));
        assert_eq!(lit("^[a-z]+ly"), Some(("ly".into(), false)));
        assert_eq!(lit("abc?d"), Some(("ab".into(), false)));
        assert_eq!(lit("ab+c"), Some(("ab".into(), false)));
        assert_eq!(lit("x(abc)yz"), Some(("yz".into(), false)));
        assert_eq!(lit("a\\.b"), Some(("a.b".into(), false)));
        assert_eq!(lit("ab|cd"), None);
        assert_eq!(lit("(?i)abc"), None);
        assert_eq!(lit("a{,3}bc"), Some(("bc".into(), false)));
        assert_eq!(lit("ab{x"), None);
    }
}
