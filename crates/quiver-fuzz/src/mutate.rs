//! Valid statements mutated into (mostly) invalid ones: a token dropped,
//! doubled, swapped with its neighbour or replaced by a hostile one, or the
//! text cut short. The parser and binder must answer each with a MySQL
//! error (or, where the mutation still means something, an answer), never
//! a panic or a hang.

use crate::rng::Rng;

/// Tokens put in place of others: keywords out of place, unbalanced
/// brackets and quotes, comment openers, huge and negative numbers, odd
/// bytes.
const HOSTILE: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP BY",
    "ORDER BY",
    "HAVING",
    "LIMIT",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "DISTINCT",
    "ALL",
    "NULL",
    "NOT",
    "AND",
    "OR",
    "(",
    ")",
    ",",
    "*",
    "-",
    "+",
    "/",
    "'",
    "\"",
    "`",
    "''",
    "'\\'",
    "/*",
    "*/",
    "--",
    "#",
    ";",
    "?",
    "@",
    "@@",
    ":=",
    "=",
    "99999999999999999999999999999999999999999999999999999999999999999999",
    "-1",
    "1e999",
    "0x",
    "x'0'",
    "b'2'",
    "_utf8mb4",
    "COLLATE",
    "utf8mb4_bin",
    "OVER ()",
    "PARTITION BY",
    "WITH RECURSIVE",
    "CASE",
    "END",
    "INTERVAL",
    "CAST(",
    "AS",
    "\u{0}",
    "é",
    "\u{FFFD}",
    "OFFSET -1",
    "LIMIT 18446744073709551615",
    "EXISTS",
    "IN ()",
    "ROW(1, 2)",
];

/// Splits `sql` into tokens: words, quoted strings and single punctuation.
fn tokens(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_alphanumeric() || c == '_' || c == '.' {
            let mut w = String::new();
            while let Some(&c) = chars.peek() {
                if !(c.is_alphanumeric() || c == '_' || c == '.') {
                    break;
                }
                w.push(c);
                chars.next();
            }
            out.push(w);
        } else if c == '\'' {
            let mut w = String::from(c);
            chars.next();
            for c in chars.by_ref() {
                w.push(c);
                if c == '\'' {
                    break;
                }
            }
            out.push(w);
        } else {
            out.push(c.to_string());
            chars.next();
        }
    }
    out
}

/// `sql` with one to three mutations.
pub fn mutate(rng: &mut Rng, sql: &str) -> String {
    let mut t = tokens(sql);
    if t.is_empty() {
        return sql.to_string();
    }
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(t.len());
        match rng.below(5) {
            0 if t.len() > 1 => {
                t.remove(i);
            }
            1 => {
                let dup = t[i].clone();
                t.insert(i, dup);
            }
            2 if i + 1 < t.len() => t.swap(i, i + 1),
            3 => t.truncate(i.max(1)),
            _ => t[i] = rng.pick(HOSTILE).to_string(),
        }
    }
    t.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_quoted_strings_whole() {
        assert_eq!(
            tokens("SELECT a.x, 'b c' FROM t WHERE x>=1"),
            ["SELECT", "a.x", ",", "'b c'", "FROM", "t", "WHERE", "x", ">", "=", "1"]
        );
    }

    #[test]
    fn mutations_change_the_statement_and_are_seeded() {
        let sql = "SELECT a.id, COUNT(*) FROM t a WHERE a.c1 > 3 GROUP BY 1";
        let changed = (0..50)
            .filter(|s| mutate(&mut Rng::new(*s), sql).replace(' ', "") != sql.replace(' ', ""))
            .count();
        assert!(changed > 40, "{changed} of 50 changed");
        assert_eq!(mutate(&mut Rng::new(9), sql), mutate(&mut Rng::new(9), sql));
    }
}
