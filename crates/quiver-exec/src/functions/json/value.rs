//! JSON text as MariaDB's `json_lib` reads it: a parser into a tree of
//! byte ranges of the source (no value is copied or re-encoded), and the
//! writers MariaDB's functions print with.
//!
//! What the parser accepts is MariaDB's grammar, which is RFC 8259's with
//! its own edges (checked against the server): a number may end in a bare
//! `.` or exponent (`1.`, `1e`), an escape may be any character (`"\x"`), leading zeros and
//! trailing commas are errors, control characters in strings too, and
//! nesting stops at 32 levels (error 4040). Errors carry MariaDB's
//! position: the 1-based offset of the offending byte.

use std::ops::Range;

/// MariaDB's `JSON_DEPTH_LIMIT`.
pub(crate) const DEPTH_LIMIT: usize = 32;

/// A parsed value: where it is in the source, and what it is.
#[derive(Debug, Clone)]
pub(crate) struct Value {
    pub range: Range<usize>,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Null,
    True,
    False,
    /// A number; `fraction` when it has a '.' (JSON_TYPE's DOUBLE).
    Number {
        fraction: bool,
    },
    /// A string; its range includes the quotes, its text is escaped.
    String,
    Array(Vec<Value>),
    /// Members: the key's range (quotes included) and the value.
    Object(Vec<(Range<usize>, Value)>),
}

/// Why text is not JSON (MariaDB's 4038, 4037 and 4040).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonError {
    /// 4038 "Syntax error in JSON text ... at position N" (1-based).
    Syntax(usize),
    /// 4037 "Unexpected end of JSON text".
    End,
    /// 4040 "Limit of 32 on JSON nested structures depth is reached ...
    /// at position N" (1-based, the bracket past the limit).
    Depth(usize),
}

/// Parses a whole JSON text (white space around it allowed).
pub(crate) fn parse(s: &[u8]) -> Result<Value, JsonError> {
    let mut p = Parser { s, pos: 0 };
    let v = p.value(0)?;
    p.space();
    if p.pos < s.len() {
        return Err(JsonError::Syntax(p.pos + 1));
    }
    Ok(v)
}

pub(crate) struct Parser<'a> {
    pub s: &'a [u8],
    pub pos: usize,
}

impl Parser<'_> {
    pub(crate) fn space(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    pub(crate) fn peek(&self) -> Result<u8, JsonError> {
        self.s.get(self.pos).copied().ok_or(JsonError::End)
    }

    pub(crate) fn syntax(&self) -> JsonError {
        JsonError::Syntax(self.pos + 1)
    }

    /// Reads one value at nesting `depth` as [`Parser::value`] does (the
    /// same checks, the same errors), building nothing.
    pub(crate) fn skip(&mut self, depth: usize) -> Result<(), JsonError> {
        self.space();
        match self.peek()? {
            b'{' | b'[' if depth >= DEPTH_LIMIT => Err(JsonError::Depth(self.pos + 1)),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.pos += 1;
                self.space();
                if self.peek()? == close {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    if open == b'{' {
                        self.space();
                        if self.peek()? != b'"' {
                            return Err(self.syntax());
                        }
                        self.string()?;
                        self.space();
                        if self.peek()? != b':' {
                            return Err(self.syntax());
                        }
                        self.pos += 1;
                    }
                    self.skip(depth + 1)?;
                    self.space();
                    match self.peek()? {
                        b',' => self.pos += 1,
                        c if c == close => {
                            self.pos += 1;
                            return Ok(());
                        }
                        _ => return Err(self.syntax()),
                    }
                }
            }
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number().map(|_| ()),
            b't' => self.word(b"true", Kind::True).map(|_| ()),
            b'f' => self.word(b"false", Kind::False).map(|_| ()),
            b'n' => self.word(b"null", Kind::Null).map(|_| ()),
            _ => Err(self.syntax()),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.space();
        let start = self.pos;
        let kind = match self.peek()? {
            b'{' | b'[' if depth >= DEPTH_LIMIT => return Err(JsonError::Depth(self.pos + 1)),
            b'{' => self.object(depth)?,
            b'[' => self.array(depth)?,
            b'"' => {
                self.string()?;
                Kind::String
            }
            b'-' | b'0'..=b'9' => self.number()?,
            b't' => self.word(b"true", Kind::True)?,
            b'f' => self.word(b"false", Kind::False)?,
            b'n' => self.word(b"null", Kind::Null)?,
            _ => return Err(self.syntax()),
        };
        Ok(Value {
            range: start..self.pos,
            kind,
        })
    }

    fn word(&mut self, w: &[u8], kind: Kind) -> Result<Kind, JsonError> {
        // A misspelt word is an error at its start, as MariaDB reports it.
        let start = self.pos;
        for c in w {
            if self.peek()? != *c {
                return Err(JsonError::Syntax(start + 1));
            }
            self.pos += 1;
        }
        Ok(kind)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Kind, JsonError> {
        if self.s[self.pos] == b'-' {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => {
                self.pos += 1;
                if self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    return Err(self.syntax());
                }
            }
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return Err(self.syntax()),
        }
        let mut fraction = false;
        if self.s.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            fraction = true;
            self.digits();
        }
        if matches!(self.s.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.s.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            // MariaDB takes an exponent without digits (`1e`).
            self.digits();
        }
        Ok(Kind::Number { fraction })
    }

    /// A string at `pos` (its opening quote); leaves `pos` after it.
    pub(crate) fn string(&mut self) -> Result<(), JsonError> {
        self.pos += 1;
        loop {
            let c = self.peek()?;
            self.pos += 1;
            match c {
                b'"' => return Ok(()),
                b'\\' => {
                    let e = self.peek()?;
                    self.pos += 1;
                    if e == b'u' {
                        for _ in 0..4 {
                            if !self.peek()?.is_ascii_hexdigit() {
                                return Err(self.syntax());
                            }
                            self.pos += 1;
                        }
                    }
                }
                0..=0x1F => {
                    self.pos -= 1;
                    return Err(self.syntax());
                }
                _ => {}
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Kind, JsonError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek()? == b']' {
            self.pos += 1;
            return Ok(Kind::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.space();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Ok(Kind::Array(items));
                }
                _ => return Err(self.syntax()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Kind, JsonError> {
        self.pos += 1;
        let mut members = Vec::new();
        self.space();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Ok(Kind::Object(members));
        }
        loop {
            self.space();
            if self.peek()? != b'"' {
                return Err(self.syntax());
            }
            let key = self.pos;
            self.string()?;
            let key = key..self.pos;
            self.space();
            if self.peek()? != b':' {
                return Err(self.syntax());
            }
            self.pos += 1;
            members.push((key, self.value(depth + 1)?));
            self.space();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Ok(Kind::Object(members));
                }
                _ => return Err(self.syntax()),
            }
        }
    }
}

/// Appends `v` as MariaDB's JSON_EXTRACT prints a value: `[a, b]` and
/// `{"k": v}` with one space after each comma and colon, scalars and keys
/// as written in the source.
pub(crate) fn write_spaced(src: &[u8], v: &Value, out: &mut Vec<u8>) {
    match &v.kind {
        Kind::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                write_spaced(src, item, out);
            }
            out.push(b']');
        }
        Kind::Object(members) => {
            out.push(b'{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(&src[key.clone()]);
                out.extend_from_slice(b": ");
                write_spaced(src, item, out);
            }
            out.push(b'}');
        }
        _ => out.extend_from_slice(&src[v.range.clone()]),
    }
}

/// Appends `v` with no white space outside strings (JSON_COMPACT).
pub(crate) fn write_compact(src: &[u8], v: &Value, out: &mut Vec<u8>) {
    match &v.kind {
        Kind::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_compact(src, item, out);
            }
            out.push(b']');
        }
        Kind::Object(members) => {
            out.push(b'{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(&src[key.clone()]);
                out.push(b':');
                write_compact(src, item, out);
            }
            out.push(b'}');
        }
        _ => out.extend_from_slice(&src[v.range.clone()]),
    }
}

/// The text of an escaped JSON string body (without its quotes), as
/// JSON_UNQUOTE and JSON_VALUE give it: escapes resolved, `\uXXXX`
/// surrogate pairs joined, a lone surrogate or an unknown escape kept as
/// the character after the backslash.
pub(crate) fn unescape(body: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' || i + 1 >= body.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = body[i + 1];
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' if i + 4 <= body.len() => {
                let unit = |at: usize| {
                    std::str::from_utf8(&body[at..at + 4])
                        .ok()
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                };
                let Some(hi) = unit(i) else {
                    out.push(e);
                    continue;
                };
                i += 4;
                let mut code = hi;
                if (0xD800..0xDC00).contains(&hi)
                    && body.get(i..i + 2) == Some(b"\\u")
                    && i + 6 <= body.len()
                {
                    if let Some(lo) = unit(i + 2).filter(|lo| (0xDC00..0xE000).contains(lo)) {
                        code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            other => out.push(other),
        }
    }
}

/// Appends `s` as a JSON string (JSON_QUOTE): quotes, `"` `\` and
/// control characters escaped, everything else as it is.
pub(crate) fn quote(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            0..=0x1F => out.extend_from_slice(format!("\\u{c:04X}").as_bytes()),
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

/// Nesting depth (JSON_DEPTH): 1 for a scalar or an empty container.
pub(crate) fn depth(v: &Value) -> usize {
    match &v.kind {
        Kind::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Kind::Object(members) => 1 + members.iter().map(|(_, v)| depth(v)).max().unwrap_or(0),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_edges() {
        assert!(parse(b"[1.]").is_ok());
        assert!(parse(b"\"\\x\"").is_ok());
        assert_eq!(parse(b"[01]").unwrap_err(), JsonError::Syntax(3));
        assert_eq!(parse(b"[1] x").unwrap_err(), JsonError::Syntax(5));
        assert_eq!(parse(b"[1,2").unwrap_err(), JsonError::End);
        assert!(parse(b"[1,]").is_err());
        let deep = "[".repeat(40) + &"]".repeat(40);
        assert_eq!(parse(deep.as_bytes()).unwrap_err(), JsonError::Depth(33));
    }

    #[test]
    fn spaced_and_compact() {
        let src = br#"{ "a" : [1,2 ,3], "b":{}}"#;
        let v = parse(src).unwrap();
        let mut out = Vec::new();
        write_spaced(src, &v, &mut out);
        assert_eq!(out, br#"{"a": [1, 2, 3], "b": {}}"#);
        out.clear();
        write_compact(src, &v, &mut out);
        assert_eq!(out, br#"{"a":[1,2,3],"b":{}}"#);
    }
}
