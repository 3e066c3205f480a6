//! Scripts: where the statements of a text end and where its `?`
//! placeholders are, read outside string literals, quoted identifiers and
//! comments. A client runs a script statement by statement (each parsed when
//! its turn comes, as the mysql client sends them), so an error in one does
//! not stop the ones before it.

/// Calls `f` with the byte offset of every character outside string
/// literals, quoted identifiers and comments.
fn scan_code(sql: &str, mut f: impl FnMut(usize, char)) {
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'`' => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'\\' && c != b'`' {
                        i += 2;
                        continue;
                    }
                    if b[i] == c {
                        // A doubled quote stays inside.
                        if i + 1 < b.len() && b[i + 1] == c {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            _ => {
                if c.is_ascii() {
                    f(i, c as char);
                }
                i += 1;
            }
        }
    }
}

/// The statements of a multi-statement text, split at `;` outside quotes and
/// comments; pieces with nothing but space and comments are dropped.
pub fn split_statements(sql: &str) -> Vec<&str> {
    let mut ends = vec![];
    scan_code(sql, |i, c| {
        if c == ';' {
            ends.push(i);
        }
    });
    let mut out = vec![];
    let mut start = 0;
    for end in ends.into_iter().chain(std::iter::once(sql.len())) {
        let piece = &sql[start..end];
        let mut has_code = false;
        scan_code(piece, |_, c| has_code |= !c.is_ascii_whitespace());
        if has_code {
            out.push(piece);
        }
        start = (end + 1).min(sql.len());
    }
    out
}

/// Byte offsets of the `?` placeholders.
pub fn placeholders(sql: &str) -> Vec<usize> {
    let mut at = vec![];
    scan_code(sql, |i, c| {
        if c == '?' {
            at.push(i);
        }
    });
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_split_outside_quotes_and_comments() {
        let sql = "SELECT ';' AS a; SELECT \"x;y\" -- c;\n; /* ; */ ;SELECT `a;b` FROM t # ;\n";
        assert_eq!(
            split_statements(sql),
            vec![
                "SELECT ';' AS a",
                " SELECT \"x;y\" -- c;\n",
                "SELECT `a;b` FROM t # ;\n"
            ]
        );
        assert_eq!(split_statements("  ;  ; "), Vec::<&str>::new());
        assert_eq!(
            split_statements("SELECT 'it''s;' ; SELECT 'a\\';'"),
            vec!["SELECT 'it''s;' ", " SELECT 'a\\';'"]
        );
    }

    #[test]
    fn placeholders_outside_literals() {
        assert_eq!(placeholders("SELECT ?, '?', `?`, ? -- ?\n"), vec![7, 20]);
        assert_eq!(placeholders("SELECT 1"), Vec::<usize>::new());
    }
}
