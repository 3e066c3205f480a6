//! LIKE compiled once per pattern into literal pieces: `abc%` is a prefix test,
//! `%abc` a suffix test, `%a%b%` ordered substring searches; only patterns
//! with `_` fall back to the general matcher. Binary (utf8mb4_bin) semantics:
//! no padding, byte-exact.

use arrow_array::{cast::AsArray, Array, ArrayRef, BooleanArray};
use arrow_buffer::BooleanBuffer;
use arrow_schema::DataType;
use quiver_common::Result;

use super::cast_array;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(String),
    AnyOne,
    AnyMany,
}

#[derive(Debug)]
pub struct LikeMatcher {
    plan: Plan,
}

#[derive(Debug)]
enum Plan {
    Exact(String),
    /// prefix, ordered middle pieces, suffix, with % between each.
    Pieces {
        prefix: String,
        middle: Vec<String>,
        suffix: String,
    },
    General(Vec<Token>),
}

fn tokenize(pattern: &str, escape: Option<char>) -> Vec<Token> {
    let escape = escape.unwrap_or('\\');
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == escape {
            match chars.next() {
                Some(n) => lit.push(n),
                None => lit.push(c),
            }
        } else if c == '%' || c == '_' {
            if !lit.is_empty() {
                out.push(Token::Literal(std::mem::take(&mut lit)));
            }
            let t = if c == '%' {
                Token::AnyMany
            } else {
                Token::AnyOne
            };
            // Consecutive % are one.
            if !(t == Token::AnyMany && out.last() == Some(&Token::AnyMany)) {
                out.push(t);
            }
        } else {
            lit.push(c);
        }
    }
    if !lit.is_empty() {
        out.push(Token::Literal(lit));
    }
    out
}

impl LikeMatcher {
    pub fn new(pattern: &str, escape: Option<char>) -> LikeMatcher {
        let tokens = tokenize(pattern, escape);
        let plan = if tokens.contains(&Token::AnyOne) {
            Plan::General(tokens)
        } else if !tokens.contains(&Token::AnyMany) {
            Plan::Exact(match tokens.first() {
                Some(Token::Literal(s)) => s.clone(),
                _ => String::new(),
            })
        } else {
            let mut it = tokens.into_iter().peekable();
            let prefix = match it.peek() {
                Some(Token::Literal(_)) => match it.next() {
                    Some(Token::Literal(s)) => s,
                    _ => unreachable!(),
                },
                _ => String::new(),
            };
            let mut rest: Vec<Token> = it.collect();
            let suffix = match rest.last() {
                Some(Token::Literal(_)) => match rest.pop() {
                    Some(Token::Literal(s)) => s,
                    _ => unreachable!(),
                },
                _ => String::new(),
            };
            let middle = rest
                .into_iter()
                .filter_map(|t| match t {
                    Token::Literal(s) => Some(s),
                    _ => None,
                })
                .collect();
            Plan::Pieces {
                prefix,
                middle,
                suffix,
            }
        };
        LikeMatcher { plan }
    }

    pub fn matches(&self, s: &str) -> bool {
        match &self.plan {
            Plan::Exact(p) => s == p,
            Plan::Pieces {
                prefix,
                middle,
                suffix,
                ..
            } => {
                if s.len() < prefix.len() + suffix.len()
                    || !s.starts_with(prefix.as_str())
                    || !s.ends_with(suffix.as_str())
                {
                    return false;
                }
                let mut rest = &s[prefix.len()..s.len() - suffix.len()];
                for m in middle {
                    match rest.find(m.as_str()) {
                        Some(i) => rest = &rest[i + m.len()..],
                        None => return false,
                    }
                }
                true
            }
            Plan::General(tokens) => general_match(tokens, s),
        }
    }
}

fn general_match(tokens: &[Token], s: &str) -> bool {
    match tokens.first() {
        None => s.is_empty(),
        Some(Token::Literal(l)) => {
            s.starts_with(l.as_str()) && general_match(&tokens[1..], &s[l.len()..])
        }
        Some(Token::AnyOne) => {
            let mut c = s.chars();
            c.next().is_some() && general_match(&tokens[1..], c.as_str())
        }
        Some(Token::AnyMany) => {
            let rest = &tokens[1..];
            if rest.is_empty() {
                return true;
            }
            let mut idx: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
            idx.push(s.len());
            idx.into_iter().any(|i| general_match(rest, &s[i..]))
        }
    }
}

fn strings(a: &ArrayRef) -> Result<ArrayRef> {
    if a.data_type() == &DataType::Utf8 {
        Ok(a.clone())
    } else {
        cast_array(a, &DataType::Utf8)
    }
}

pub fn like_array(a: &ArrayRef, m: &LikeMatcher) -> Result<BooleanArray> {
    let a = strings(a)?;
    let s = a.as_string::<i32>();
    let bits = BooleanBuffer::collect_bool(s.len(), |i| m.matches(s.value(i)));
    Ok(BooleanArray::new(bits, s.logical_nulls()))
}

pub fn like_dynamic(a: &ArrayRef, p: &ArrayRef, escape: Option<char>) -> Result<BooleanArray> {
    let (a, p) = (strings(a)?, strings(p)?);
    let (s, p) = (a.as_string::<i32>(), p.as_string::<i32>());
    Ok(s.iter()
        .zip(p.iter())
        .map(|(s, p)| Some(LikeMatcher::new(p?, escape).matches(s?)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_pieces() {
        let m = LikeMatcher::new("%special%requests%", None);
        assert!(m.matches("xx special yy requests zz"));
        assert!(!m.matches("requests special"));
        assert!(LikeMatcher::new("PROMO%", None).matches("PROMO BRUSHED"));
        assert!(LikeMatcher::new("%BRASS", None).matches("LARGE BRASS"));
        assert!(!LikeMatcher::new("a", None).matches("a "));
        assert!(LikeMatcher::new("a_c", None).matches("abc"));
        assert!(LikeMatcher::new("a_c", None).matches("aéc"));
        assert!(LikeMatcher::new("a\\%", None).matches("a%"));
        assert!(!LikeMatcher::new("a\\%", None).matches("ab"));
        assert!(LikeMatcher::new("%a%a%", None).matches("aa"));
        assert!(!LikeMatcher::new("%a%a%", None).matches("a"));
        assert!(LikeMatcher::new("%", None).matches(""));
        assert!(LikeMatcher::new("a%b_", Some('!')).matches("axxbz"));
    }
}
