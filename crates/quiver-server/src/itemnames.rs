//! The names of a prepared statement's result columns that hold placeholders.
//!
//! A statement is executed with its parameters substituted into the text, and
//! the engine names an unaliased select item by its text: `SELECT ?, ? + 1`
//! with ('abc', 5) would give columns `abc` and ` 5  + 1`. MySQL names them by
//! the text as prepared, `?` and `? + 1`, the same at every execution and at
//! prepare. These names are found here from the prepared text: the select
//! items of the statement's (first) SELECT, split at their top-level commas,
//! each one holding a placeholder named by its text (a lone `?`, in
//! parentheses or after a unary plus, is named `?`).

use quiver_sql::sqlparser::ast::{SelectItem, SetExpr, Statement};
use quiver_sql::sqlparser::dialect::MySqlDialect;
use quiver_sql::sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use quiver_sql::SqlSource;

/// Names for some result columns; the others keep the engine's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ItemNames {
    /// From the first column on, up to the first wildcard (None: keep).
    head: Vec<Option<String>>,
    /// From the last column backwards, up to the last wildcard.
    tail: Vec<Option<String>>,
    /// The number of columns when there is no wildcard.
    count: Option<usize>,
}

/// Words that may follow SELECT before its first item.
const MODIFIERS: &[&str] = &[
    "ALL",
    "DISTINCT",
    "DISTINCTROW",
    "HIGH_PRIORITY",
    "STRAIGHT_JOIN",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
    "SQL_CACHE",
    "SQL_NO_CACHE",
    "SQL_CALC_FOUND_ROWS",
];

/// Words that end the select list.
const ENDS: &[&str] = &[
    "FROM",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "MINUS",
    "INTO",
    "WINDOW",
    "FOR",
    "LOCK",
    "PROCEDURE",
];

enum Item {
    Named(Option<String>),
    Wildcard,
}

impl ItemNames {
    /// The names for `sql` with placeholders at byte offsets `placeholders`;
    /// none when it is not a query or its select list is not understood.
    pub fn of(sql: &str, placeholders: &[usize]) -> ItemNames {
        if placeholders.is_empty() {
            return ItemNames::default();
        }
        items(sql, placeholders)
            .map(|items| {
                let mut names = ItemNames::default();
                let first = items.iter().position(|i| matches!(i, Item::Wildcard));
                let last = items.iter().rposition(|i| matches!(i, Item::Wildcard));
                let named = |i: &Item| match i {
                    Item::Named(n) => n.clone(),
                    Item::Wildcard => None,
                };
                match (first, last) {
                    (Some(f), Some(l)) => {
                        names.head = items[..f].iter().map(named).collect();
                        names.tail = items[l + 1..].iter().rev().map(named).collect();
                    }
                    _ => {
                        names.head = items.iter().map(named).collect();
                        names.count = Some(items.len());
                    }
                }
                names
            })
            .unwrap_or_default()
    }

    /// The name of column `i` of `n`, when it is not the engine's.
    pub fn name(&self, i: usize, n: usize) -> Option<&str> {
        if self.count.is_some_and(|c| c != n) || self.head.len() + self.tail.len() > n {
            return None;
        }
        if i < self.head.len() {
            return self.head[i].as_deref();
        }
        let from_end = n - 1 - i;
        if from_end < self.tail.len() {
            return self.tail[from_end].as_deref();
        }
        None
    }
}

fn items(sql: &str, placeholders: &[usize]) -> Option<Vec<Item>> {
    let stmts = quiver_sql::parse_sql(sql).ok()?;
    let [Statement::Query(q)] = stmts.as_slice() else {
        return None;
    };
    let mut body = &*q.body;
    let select = loop {
        match body {
            SetExpr::Select(s) => break s,
            SetExpr::SetOperation { left, .. } => body = left,
            SetExpr::Query(q) => body = &q.body,
            _ => return None,
        }
    };
    let tokens = Tokenizer::new(&MySqlDialect {}, sql)
        .tokenize_with_location()
        .ok()?;
    let start = select.select_token.0.span.start;
    let mut at = tokens.iter().position(|t| t.span.start == start)? + 1;
    let word = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let blank = |t: &TokenWithSpan| matches!(t.token, Token::Whitespace(_));
    while at < tokens.len()
        && (blank(&tokens[at]) || word(&tokens[at]).is_some_and(|w| MODIFIERS.contains(&&*w)))
    {
        at += 1;
    }
    // The select list's items as token ranges, blanks around them left out.
    let mut ranges = vec![];
    let mut depth = 0usize;
    let mut item_start = at;
    loop {
        let t = tokens.get(at);
        let end = match t.map(|t| &t.token) {
            None | Some(Token::EOF) | Some(Token::SemiColon) => true,
            Some(Token::LParen) => {
                depth += 1;
                false
            }
            Some(Token::RParen) if depth == 0 => true,
            Some(Token::RParen) => {
                depth -= 1;
                false
            }
            Some(Token::Comma) => depth == 0,
            Some(_) => depth == 0 && word(t?).is_some_and(|w| ENDS.contains(&&*w)),
        };
        if end {
            let mut a = item_start;
            let mut b = at;
            while a < b && blank(&tokens[a]) {
                a += 1;
            }
            while b > a && blank(&tokens[b - 1]) {
                b -= 1;
            }
            ranges.push((a, b));
            if !matches!(t.map(|t| &t.token), Some(Token::Comma)) {
                break;
            }
            item_start = at + 1;
        }
        at += 1;
    }
    if ranges.len() != select.projection.len() {
        return None;
    }
    let src = SqlSource::new(sql);
    select
        .projection
        .iter()
        .zip(ranges)
        .map(|(item, (a, b))| {
            if a >= b {
                return None;
            }
            Some(match item {
                SelectItem::UnnamedExpr(_) => {
                    let from = src.offset(tokens[a].span.start)?;
                    let to = src.offset(tokens[b - 1].span.end)?;
                    if !placeholders.iter().any(|p| (from..to).contains(p)) {
                        Item::Named(None)
                    } else if lone_placeholder(&tokens[a..b]) {
                        Item::Named(Some("?".to_string()))
                    } else {
                        Item::Named(Some(cut(sql.get(from..to)?)))
                    }
                }
                SelectItem::ExprWithAlias { .. } | SelectItem::ExprWithAliases { .. } => {
                    Item::Named(None)
                }
                SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => Item::Wildcard,
            })
        })
        .collect()
}

/// `?`, `(?)`, `+?`, `(+(?))`: named `?`, as a lone literal is named by itself.
fn lone_placeholder(tokens: &[TokenWithSpan]) -> bool {
    let t: Vec<&Token> = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let mut t = t.as_slice();
    loop {
        match t {
            [Token::Placeholder(p)] => return p == "?",
            [Token::Plus, rest @ ..] => t = rest,
            [Token::LParen, rest @ .., Token::RParen] => t = rest,
            _ => return false,
        }
    }
}

/// At most 255 bytes, as MySQL keeps of a name.
fn cut(name: &str) -> String {
    let mut end = name.len().min(255);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(sql: &str, n: usize) -> Vec<Option<String>> {
        let p = quiver_sql::placeholders(sql);
        let names = ItemNames::of(sql, &p);
        (0..n)
            .map(|i| names.name(i, n).map(str::to_string))
            .collect()
    }

    fn some(v: &[Option<&str>]) -> Vec<Option<String>> {
        v.iter().map(|s| s.map(str::to_string)).collect()
    }

    // The expected names are MariaDB 10.11's (mysql-connector, prepared).
    #[test]
    fn items_with_placeholders_are_named_by_their_prepared_text() {
        assert_eq!(
            names("SELECT ?, ? + 1, i FROM psn WHERE i = ?", 3),
            some(&[Some("?"), Some("? + 1"), None])
        );
        assert_eq!(
            names("SELECT  ?  +  1 ,((?))", 2),
            some(&[Some("?  +  1"), Some("?")])
        );
        assert_eq!(
            names("SELECT -?, ? AS x, CONCAT(?, 'a')", 3),
            some(&[Some("-?"), None, Some("CONCAT(?, 'a')")])
        );
        assert_eq!(
            names("SELECT /*c*/ ? /*d*/ + 1", 1),
            some(&[Some("? /*d*/ + 1")])
        );
        assert_eq!(names("SELECT 'x?', ?", 2), some(&[None, Some("?")]));
        assert_eq!(
            names("SELECT +?, (+?), - ?, ? x", 4),
            some(&[Some("?"), Some("?"), Some("- ?"), None])
        );
        assert_eq!(
            names("SELECT DISTINCT ? , i+? FROM psn", 2),
            some(&[Some("?"), Some("i+?")])
        );
        assert_eq!(names("(SELECT ?) UNION (SELECT 2)", 1), some(&[Some("?")]));
        assert_eq!(
            names("WITH c AS (SELECT ? AS a) SELECT a, ?+a FROM c", 2),
            some(&[None, Some("?+a")])
        );
        assert_eq!(
            names("SELECT CASE WHEN ? THEN 'a' ELSE 'b' END", 1),
            some(&[Some("CASE WHEN ? THEN 'a' ELSE 'b' END")])
        );
    }

    #[test]
    fn wildcards_leave_the_columns_between_them_alone() {
        assert_eq!(
            names("SELECT ?, t.*, ? FROM t", 4),
            some(&[Some("?"), None, None, Some("?")])
        );
        assert_eq!(names("SELECT * , ? FROM t", 2), some(&[None, Some("?")]));
        // Column counts that do not fit: nothing renamed.
        assert_eq!(names("SELECT ?, ?", 3), some(&[None, None, None]));
        assert_eq!(names("SELECT ?, *, ? FROM t", 1), some(&[None]));
        // Not a query, or no placeholders.
        assert_eq!(names("INSERT INTO t VALUES (?)", 1), some(&[None]));
        assert_eq!(names("SELECT 1", 1), some(&[None]));
    }
}
