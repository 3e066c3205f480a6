//! String literals whose bytes are not text in the client's charset.
//!
//! PyMySQL sends a `bytes` value inside the statement as `'...'` (as
//! `_binary'...'` with `binary_prefix=True`, as the mysql client does), with
//! backslash escapes and the raw bytes between the quotes. Such a statement
//! cannot be read as text in `character_set_client` (invalid UTF-8), so
//! before it is, each `_binary'...'` (or `_binary"..."`) literal, and each
//! plain `'...'` / `"..."` string without an introducer, whose content is not
//! valid text there is rewritten as `X'hex'` of its unescaped bytes, which
//! the binder reads as a binary literal. MariaDB keeps such a plain string as
//! text with bad bytes: stored in a binary column it is those bytes, in a
//! text column error 1366 (Incorrect string value), as an X'..' gets in
//! Quiver. Strings with another introducer (`_latin1'..'`, `N'..'`), quoted
//! identifiers and comments are left as they are, and so is everything from
//! a literal that does not end (the parser then reports the syntax error).

use std::borrow::Cow;

/// `sql` with every `_binary` literal or plain string whose bytes fail
/// `valid` written as `X'hex'`; borrowed when there is none.
pub fn rewrite<'a>(sql: &'a [u8], valid: impl Fn(&[u8]) -> bool) -> Cow<'a, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    // Bytes of `sql` before `copied` are in `out` already (when it is made).
    let mut copied = 0;
    let mut i = 0;
    let b = sql;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' => match string_end(b, i) {
                Some(end) => {
                    as_hex(b, i, i, end, &valid, &mut out, &mut copied);
                    i = end;
                }
                None => break,
            },
            b'`' => {
                i += 1;
                loop {
                    match b.get(i) {
                        None => break,
                        Some(b'`') if b.get(i + 1) == Some(&b'`') => i += 2,
                        Some(b'`') => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'#' => i = line_end(b, i),
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2)
                    .is_none_or(|x| x.is_ascii_whitespace() || *x < 0x20) =>
            {
                i = line_end(b, i)
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = match b[i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(p) => i + 2 + p + 2,
                    None => b.len(),
                }
            }
            c if is_word(c) => {
                let start = i;
                while i < b.len() && is_word(b[i]) {
                    i += 1;
                }
                let word = &b[start..i];
                let binary = word.eq_ignore_ascii_case(b"_binary");
                // Another introducer: its string is read in that charset.
                let introducer = word[0] == b'_' || word.eq_ignore_ascii_case(b"n");
                if !binary && !introducer {
                    continue;
                }
                let mut q = i;
                while q < b.len() && b[q].is_ascii_whitespace() {
                    q += 1;
                }
                if !matches!(b.get(q), Some(b'\'' | b'"')) {
                    continue;
                }
                let Some(end) = string_end(b, q) else {
                    break;
                };
                if binary {
                    as_hex(b, start, q, end, &valid, &mut out, &mut copied);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    match out {
        None => Cow::Borrowed(sql),
        Some(mut o) => {
            o.extend_from_slice(&b[copied..]);
            Cow::Owned(o)
        }
    }
}

/// The literal `b[start..end]` (its string quoted at `b[q]`) as `X'hex'` in
/// `out` when its unescaped bytes fail `valid`.
fn as_hex(
    b: &[u8],
    start: usize,
    q: usize,
    end: usize,
    valid: impl Fn(&[u8]) -> bool,
    out: &mut Option<Vec<u8>>,
    copied: &mut usize,
) {
    let bytes = unescape(&b[q + 1..end - 1], b[q]);
    if valid(&bytes) {
        return;
    }
    let o = out.get_or_insert_with(|| Vec::with_capacity(b.len() * 2));
    o.extend_from_slice(&b[*copied..start]);
    o.extend_from_slice(b"X'");
    for x in &bytes {
        o.extend_from_slice(format!("{x:02X}").as_bytes());
    }
    o.push(b'\'');
    *copied = end;
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&x| x == b'\n')
        .map_or(b.len(), |p| i + p + 1)
}

/// Where the string quoted at `b[start]` ends (just past its closing quote):
/// a backslash takes the next byte, a doubled quote is one; None when it
/// does not end.
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            x if x == quote => {
                if b.get(i + 1) == Some(&quote) {
                    i += 2;
                } else {
                    return Some(i + 1);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// A string's bytes as MySQL reads them: `\0 \' \" \b \n \r \t \Z \\`
/// their characters, `\%` and `\_` kept whole (for LIKE), any other
/// escaped byte itself; a doubled quote one quote.
fn unescape(body: &[u8], quote: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c == b'\\' && i + 1 < body.len() {
            let n = body[i + 1];
            match n {
                b'0' => out.push(0),
                b'b' => out.push(8),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'Z' => out.push(26),
                b'%' | b'_' => out.extend_from_slice(&[b'\\', n]),
                other => out.push(other),
            }
            i += 2;
        } else if c == quote && body.get(i + 1) == Some(&quote) {
            out.push(quote);
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf8(b: &[u8]) -> bool {
        std::str::from_utf8(b).is_ok()
    }

    fn rw(sql: &[u8]) -> Vec<u8> {
        rewrite(sql, utf8).into_owned()
    }

    #[test]
    fn invalid_binary_literals_become_hex() {
        assert_eq!(
            rw(b"INSERT INTO t VALUES (_binary'\xFF\x00a')"),
            b"INSERT INTO t VALUES (X'FF0061')"
        );
        // Valid text is left alone, borrowed.
        let sql = b"SELECT _binary'abc', _BINARY 'd'";
        assert!(matches!(rewrite(sql, utf8), Cow::Borrowed(_)));
        // Escapes: \0 \' \" \b \n \r \t \Z \\ and \% \_ kept whole; '' is '.
        assert_eq!(
            rw(b"SELECT _binary'\xFE\\0\\'\\\"\\b\\n\\r\\t\\Z\\\\\\%\\_\\q'''"),
            b"SELECT X'FE002722080A0D091A5C5C255C5F7127'"
        );
        // Double quotes, space after the introducer, case.
        assert_eq!(rw(b"SELECT _Binary  \"\xC3\"\"\""), b"SELECT X'C322'");
        // bytes(range(256)) as PyMySQL escapes it.
        let mut lit = b"SELECT _binary'".to_vec();
        for x in 0..=255u8 {
            match x {
                0 => lit.extend_from_slice(b"\\0"),
                b'\n' => lit.extend_from_slice(b"\\n"),
                b'\r' => lit.extend_from_slice(b"\\r"),
                26 => lit.extend_from_slice(b"\\Z"),
                b'\'' => lit.extend_from_slice(b"\\'"),
                b'"' => lit.extend_from_slice(b"\\\""),
                b'\\' => lit.extend_from_slice(b"\\\\"),
                x => lit.push(x),
            }
        }
        lit.push(b'\'');
        let want: String = (0..=255u8).map(|x| format!("{x:02X}")).collect();
        assert_eq!(rw(&lit), format!("SELECT X'{want}'").into_bytes());
    }

    #[test]
    fn other_strings_comments_and_identifiers_are_left_alone() {
        for sql in [
            &b"SELECT 'it''s _binary' , \"_binary''\""[..],
            b"SELECT _latin1'\xFF', N'\xFF', _utf8mb4 \"\xFF\"",
            b"SELECT 1 /* _binary'\xFF' */",
            b"SELECT 1 -- _binary'\xFF'\n",
            b"SELECT 1 # _binary'\xFF'",
            b"SELECT `_binary'\xFF'` FROM t",
            b"SELECT my_binary'x'",
            b"SELECT _binary",
            b"SELECT _binary + 1",
            // Not ended: left for the parser to refuse (1064).
            b"SELECT _binary'\xFF",
            b"SELECT _binary'\xFF\\'",
            b"SELECT 'open _binary'\xFF'",
        ] {
            assert_eq!(rw(sql), sql, "{}", String::from_utf8_lossy(sql));
        }
        // A later literal after ones left alone is still rewritten.
        assert_eq!(
            rw(b"SELECT _latin1'\xFF', /* x */ _binary'\xFF' -- c\n"),
            b"SELECT _latin1'\xFF', /* x */ X'FF' -- c\n"
        );
    }

    #[test]
    fn plain_strings_that_are_not_text_become_hex() {
        // PyMySQL's default (no binary_prefix): bytes as a plain string.
        assert_eq!(
            rw(b"INSERT INTO t VALUES (1, '\xFF\\0\\'', \"\xC3\"\"\", 'ok')"),
            b"INSERT INTO t VALUES (1, X'FF0027', X'C322', 'ok')"
        );
        assert_eq!(
            rw(b"SELECT '_binary''\xFF', \"_binary'\xFF'\""),
            b"SELECT X'5F62696E61727927FF', X'5F62696E61727927FF27'"
        );
        // Valid text in plain strings: borrowed.
        let sql = "SELECT 'Grüße', \"🎉\"".as_bytes();
        assert!(matches!(rewrite(sql, utf8), Cow::Borrowed(_)));
    }
}
