//! JSON paths as MariaDB reads them (`$`, `.key`, `."quoted key"`, `.*`,
//! `[n]`, `[-n]`, `[last]`, `[last-n]`, `[n to m]`, `[*]`, `**`), and
//! their matches in a parsed value, in document order. Lax as MariaDB: an
//! array step on a value that is not an array treats it as an array of
//! itself (`$[0]` of an object is the object); a key step on a value that
//! is not an object matches nothing; a key names the first member of that
//! name.

use super::value::{unescape, Kind, Value};

/// Why a path is not one (MariaDB's 4042 and 4041).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathError {
    /// 4042 "Syntax error in JSON path ... at position N" (1-based).
    Syntax(usize),
    /// 4041 "Unexpected end of JSON path".
    End,
}

/// An array position: from the start, or from the end (`last-n`, `-n-1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Index {
    Start(usize),
    End(usize),
}

impl Index {
    pub(crate) fn resolve(self, len: usize) -> Option<usize> {
        match self {
            Index::Start(i) => (i < len).then_some(i),
            Index::End(k) => len.checked_sub(k + 1),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(Vec<u8>),
    AnyKey,
    At(Index),
    Range(Index, Index),
    AnyIndex,
    /// `**`: the next step at any depth.
    Descend,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Path {
    steps: Vec<Step>,
}

impl Path {
    pub(crate) fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Whether the path can match more than one value (`*`, `**`, a range):
    /// JSON_EXTRACT then wraps its matches in an array, and JSON_VALUE
    /// refuses it (4044).
    pub(crate) fn is_wild(&self) -> bool {
        self.steps.iter().any(|s| {
            matches!(
                s,
                Step::AnyKey | Step::AnyIndex | Step::Range(..) | Step::Descend
            )
        })
    }

    /// The values the path names in `v` (of source `src`), in document order.
    pub(crate) fn matches<'v>(&self, src: &[u8], v: &'v Value, out: &mut Vec<&'v Value>) {
        walk::<true>(src, &self.steps, v, out);
    }

    /// As [`Path::matches`], but `[*]` matches only in arrays (JSON_TABLE:
    /// `'$[*]'` over an object or a scalar makes no row).
    pub(crate) fn matches_strict<'v>(&self, src: &[u8], v: &'v Value, out: &mut Vec<&'v Value>) {
        walk::<false>(src, &self.steps, v, out);
    }

    /// Whether the path names anything in `v`.
    pub(crate) fn exists(&self, src: &[u8], v: &Value) -> bool {
        let mut out = Vec::new();
        self.matches(src, v, &mut out);
        !out.is_empty()
    }
}

/// Parses a path (white space around it and inside brackets allowed).
pub(crate) fn parse_path(p: &[u8]) -> Result<Path, PathError> {
    let mut i = skip_space(p, 0);
    if i >= p.len() {
        return Err(PathError::End);
    }
    if p[i] != b'$' {
        return Err(PathError::Syntax(i + 1));
    }
    i += 1;
    let mut steps = Vec::new();
    loop {
        i = skip_space(p, i);
        if i >= p.len() {
            break;
        }
        match p[i] {
            b'.' => {
                i += 1;
                if i >= p.len() {
                    return Err(PathError::End);
                }
                if p[i] == b'*' {
                    steps.push(Step::AnyKey);
                    i += 1;
                } else if p[i] == b'"' {
                    let start = i + 1;
                    let mut j = start;
                    while j < p.len() && p[j] != b'"' {
                        j += if p[j] == b'\\' { 2 } else { 1 };
                    }
                    if j >= p.len() {
                        return Err(PathError::End);
                    }
                    let mut key = Vec::new();
                    unescape(&p[start..j], &mut key);
                    steps.push(Step::Key(key));
                    i = j + 1;
                } else {
                    let start = i;
                    while i < p.len() && !matches!(p[i], b'.' | b'[' | b' ' | b'\t' | b'*') {
                        i += 1;
                    }
                    if i == start {
                        return Err(PathError::Syntax(i + 1));
                    }
                    steps.push(Step::Key(p[start..i].to_vec()));
                }
            }
            b'[' => {
                let (step, next) = bracket(p, i + 1)?;
                steps.push(step);
                i = next;
            }
            b'*' if p.get(i + 1) == Some(&b'*') => {
                steps.push(Step::Descend);
                i += 2;
            }
            _ => return Err(PathError::Syntax(i + 1)),
        }
    }
    if steps.last() == Some(&Step::Descend) {
        return Err(PathError::End);
    }
    Ok(Path { steps })
}

fn skip_space(p: &[u8], mut i: usize) -> usize {
    while i < p.len() && matches!(p[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The inside of `[...]` from `i`; the step and the position after `]`.
fn bracket(p: &[u8], i: usize) -> Result<(Step, usize), PathError> {
    let mut i = skip_space(p, i);
    if i >= p.len() {
        return Err(PathError::End);
    }
    let step = if p[i] == b'*' {
        i += 1;
        Step::AnyIndex
    } else {
        let (from, next) = index(p, i)?;
        i = skip_space(p, next);
        if p[i..].starts_with(b"to") {
            let (to, next) = index(p, skip_space(p, i + 2))?;
            i = next;
            Step::Range(from, to)
        } else {
            Step::At(from)
        }
    };
    i = skip_space(p, i);
    match p.get(i) {
        Some(b']') => Ok((step, i + 1)),
        Some(_) => Err(PathError::Syntax(i + 1)),
        None => Err(PathError::End),
    }
}

/// `n`, `-n` or `last[-n]` at `i`.
fn index(p: &[u8], i: usize) -> Result<(Index, usize), PathError> {
    let number = |mut j: usize| -> Result<(usize, usize), PathError> {
        let start = j;
        let mut n: usize = 0;
        while j < p.len() && p[j].is_ascii_digit() {
            n = n.saturating_mul(10).saturating_add((p[j] - b'0') as usize);
            j += 1;
        }
        if j == start {
            return Err(if j >= p.len() {
                PathError::End
            } else {
                PathError::Syntax(j + 1)
            });
        }
        Ok((n, j))
    };
    if p[i..].starts_with(b"last") {
        let j = skip_space(p, i + 4);
        if p.get(j) == Some(&b'-') {
            let (n, j) = number(skip_space(p, j + 1))?;
            return Ok((Index::End(n), j));
        }
        return Ok((Index::End(0), j));
    }
    if p.get(i) == Some(&b'-') {
        let (n, j) = number(i + 1)?;
        if n == 0 {
            return Err(PathError::Syntax(i + 1));
        }
        return Ok((Index::End(n - 1), j));
    }
    let (n, j) = number(i)?;
    Ok((Index::Start(n), j))
}

/// Whether a member's key (escaped source text with quotes) is `name`.
fn key_is(src: &[u8], key: &std::ops::Range<usize>, name: &[u8]) -> bool {
    let body = &src[key.start + 1..key.end - 1];
    if !body.contains(&b'\\') {
        return body == name;
    }
    let mut text = Vec::with_capacity(body.len());
    unescape(body, &mut text);
    text == name
}

fn walk<'v, const LAX: bool>(src: &[u8], steps: &[Step], v: &'v Value, out: &mut Vec<&'v Value>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(v);
        return;
    };
    match step {
        Step::Key(name) => {
            if let Kind::Object(members) = &v.kind {
                if let Some((_, m)) = members.iter().find(|(k, _)| key_is(src, k, name)) {
                    walk::<LAX>(src, rest, m, out);
                }
            }
        }
        Step::AnyKey => {
            if let Kind::Object(members) = &v.kind {
                for (_, m) in members {
                    walk::<LAX>(src, rest, m, out);
                }
            }
        }
        Step::At(i) => match &v.kind {
            Kind::Array(items) => {
                if let Some(k) = i.resolve(items.len()) {
                    walk::<LAX>(src, rest, &items[k], out);
                }
            }
            _ => {
                if i.resolve(1) == Some(0) {
                    walk::<LAX>(src, rest, v, out);
                }
            }
        },
        Step::Range(from, to) => {
            let one = std::slice::from_ref(v);
            let items: &[Value] = match &v.kind {
                Kind::Array(items) => items,
                _ => one,
            };
            let len = items.len();
            let start = match from {
                Index::Start(i) => *i,
                Index::End(k) => len.saturating_sub(k + 1),
            };
            let end = match to {
                Index::Start(i) => (*i).min(len.saturating_sub(1)),
                Index::End(k) => match len.checked_sub(k + 1) {
                    Some(e) => e,
                    None => return,
                },
            };
            for item in items.iter().take(end + 1).skip(start) {
                walk::<LAX>(src, rest, item, out);
            }
        }
        Step::AnyIndex => match &v.kind {
            Kind::Array(items) => {
                for item in items {
                    walk::<LAX>(src, rest, item, out);
                }
            }
            _ if LAX => walk::<LAX>(src, rest, v, out),
            _ => {}
        },
        Step::Descend => {
            // The next step here, then in every descendant, in order.
            walk::<LAX>(src, rest, v, out);
            match &v.kind {
                Kind::Array(items) => {
                    for item in items {
                        walk::<LAX>(src, steps, item, out);
                    }
                }
                Kind::Object(members) => {
                    for (_, m) in members {
                        walk::<LAX>(src, steps, m, out);
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::value::parse;
    use super::*;

    fn texts(doc: &str, path: &str) -> Vec<String> {
        let v = parse(doc.as_bytes()).unwrap();
        let p = parse_path(path.as_bytes()).unwrap();
        let mut out = Vec::new();
        p.matches(doc.as_bytes(), &v, &mut out);
        out.iter()
            .map(|m| doc[m.range.clone()].to_string())
            .collect()
    }

    #[test]
    fn steps() {
        assert_eq!(texts(r#"{"a":[1,2,3]}"#, "$.a[last]"), ["3"]);
        assert_eq!(texts(r#"[1,2,3]"#, "$[-1]"), ["3"]);
        assert_eq!(texts(r#"[1,2,3]"#, "$[1 to 5]"), ["2", "3"]);
        assert_eq!(
            texts(r#"{"a":[1,{"a":2}]}"#, "$**.a"),
            [r#"[1,{"a":2}]"#, "2"]
        );
        assert_eq!(texts(r#"{"a":1}"#, "$[0]"), [r#"{"a":1}"#]);
        assert_eq!(parse_path(b"$a"), Err(PathError::Syntax(2)));
        assert_eq!(parse_path(b"$."), Err(PathError::End));
        assert_eq!(parse_path(b"$["), Err(PathError::End));
    }
}
