//! What the server reads from SQL text itself: where statements end (each
//! statement of a multi-statement query gets its own result), where `?`
//! placeholders are, and the account statements (CREATE / ALTER / DROP USER),
//! which belong to the server rather than to the engine.

use quiver_common::{QuiverError, Result};

use crate::auth::Plugin;

pub use quiver_sql::{placeholders, split_statements};

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Word(&'a str),
    /// A quoted string or identifier, with its quote character, unescaped.
    Quoted(char, String),
    Punct(char),
}

fn tokens(sql: &str) -> Result<Vec<Tok<'_>>> {
    let b = sql.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'\'' || c == b'"' || c == b'`' {
            let mut s = Vec::new();
            i += 1;
            loop {
                let Some(&x) = b.get(i) else {
                    return Err(QuiverError::syntax(&sql[sql.len().min(i)..], 1));
                };
                if x == b'\\' && c != b'`' && i + 1 < b.len() {
                    s.push(match b[i + 1] {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'0' => 0,
                        other => other,
                    });
                    i += 2;
                } else if x == c {
                    if b.get(i + 1) == Some(&c) {
                        s.push(c);
                        i += 2;
                    } else {
                        i += 1;
                        break;
                    }
                } else {
                    s.push(x);
                    i += 1;
                }
            }
            let s = String::from_utf8(s)
                .map_err(|_| QuiverError::syntax_msg("invalid UTF-8 in a quoted name"))?;
            out.push(Tok::Quoted(c as char, s));
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Tok::Word(&sql[start..i]));
        } else {
            out.push(Tok::Punct(c as char));
            i += 1;
        }
    }
    Ok(out)
}

/// An account statement.
#[derive(Debug, Clone, PartialEq)]
pub enum AccountStmt {
    Create {
        user: String,
        if_not_exists: bool,
        auth: Option<AuthSpec>,
    },
    Alter {
        user: String,
        if_exists: bool,
        auth: AuthSpec,
    },
    Drop {
        users: Vec<String>,
        if_exists: bool,
    },
    /// `SET PASSWORD [FOR user] = 'pw' | PASSWORD('pw')`; no user: the current one.
    SetPassword {
        user: Option<String>,
        password: String,
    },
    /// GRANT, FLUSH PRIVILEGES: accepted without effect (every account may
    /// do everything already; there are no privileges yet). REVOKE is
    /// refused: it would take away nothing, silently.
    NoOp,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AuthSpec {
    pub plugin: Option<Plugin>,
    /// `BY 'password'`, or `AS 'hash'` (then `hashed`).
    pub secret: String,
    pub hashed: bool,
}

struct Parser<'a> {
    toks: Vec<Tok<'a>>,
    pos: usize,
    sql: &'a str,
}

impl<'a> Parser<'a> {
    fn peek_word(&self, w: &str) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Word(x)) if x.eq_ignore_ascii_case(w))
    }
    fn word(&mut self, w: &str) -> bool {
        let yes = self.peek_word(w);
        if yes {
            self.pos += 1;
        }
        yes
    }
    fn words(&mut self, ws: &[&str]) -> bool {
        let start = self.pos;
        for w in ws {
            if !self.word(w) {
                self.pos = start;
                return false;
            }
        }
        true
    }
    fn error(&self) -> QuiverError {
        QuiverError::syntax(self.sql.trim(), 1)
    }
    fn name(&mut self) -> Result<String> {
        let t = self
            .toks
            .get(self.pos)
            .cloned()
            .ok_or_else(|| self.error())?;
        self.pos += 1;
        match t {
            Tok::Word(w) => Ok(w.to_string()),
            Tok::Quoted(_, s) => Ok(s),
            Tok::Punct(_) => Err(self.error()),
        }
    }
    /// `name`, `'name'@'host'`: the host is read and not kept (accounts match any host).
    fn user(&mut self) -> Result<String> {
        let name = self.name()?;
        if self.toks.get(self.pos) == Some(&Tok::Punct('@')) {
            self.pos += 1;
            self.name()?;
        }
        Ok(name)
    }
    fn string(&mut self) -> Result<String> {
        match self.toks.get(self.pos).cloned() {
            Some(Tok::Quoted('\'' | '"', s)) => {
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }
    fn auth(&mut self) -> Result<Option<AuthSpec>> {
        if !self.word("IDENTIFIED") {
            return Ok(None);
        }
        let mut plugin = None;
        if self.word("WITH") {
            let name = self.name()?;
            plugin = Some(Plugin::from_name(&name).ok_or_else(|| {
                QuiverError::new(1524, "HY000", format!("Plugin '{name}' is not loaded"))
            })?);
        }
        if self.word("BY") {
            self.word("PASSWORD");
            let secret = self.string()?;
            // `BY PASSWORD 'hash'` is the old spelling of `AS 'hash'`.
            let hashed = matches!(self.toks.get(self.pos - 2), Some(Tok::Word(w)) if w.eq_ignore_ascii_case("PASSWORD"));
            Ok(Some(AuthSpec {
                plugin,
                secret,
                hashed,
            }))
        } else if self.word("AS") || self.word("USING") {
            let secret = self.string()?;
            Ok(Some(AuthSpec {
                plugin,
                secret,
                hashed: true,
            }))
        } else if plugin.is_some() {
            Ok(Some(AuthSpec {
                plugin,
                secret: String::new(),
                hashed: false,
            }))
        } else {
            Err(self.error())
        }
    }
    fn end(&self) -> Result<()> {
        if self.pos == self.toks.len() {
            Ok(())
        } else {
            Err(self.error())
        }
    }
}

/// Reads an account statement; None when `sql` is not one.
pub fn account_statement(sql: &str) -> Result<Option<AccountStmt>> {
    let head: Vec<String> = sql
        .split_whitespace()
        .take(2)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let head: Vec<&str> = head.iter().map(|s| s.as_str()).collect();
    let kind = match head.as_slice() {
        ["CREATE", "USER"] | ["ALTER", "USER"] | ["DROP", "USER"] => head[0],
        ["GRANT", ..] | ["FLUSH", "PRIVILEGES"] => return Ok(Some(AccountStmt::NoOp)),
        ["REVOKE", ..] => {
            return Err(QuiverError::not_supported(
                "REVOKE (there are no privileges: every account may do everything)",
            ))
        }
        ["SET", w] if *w == "PASSWORD" || w.starts_with("PASSWORD=") => "SET",
        _ => return Ok(None),
    };
    let mut p = Parser {
        toks: tokens(sql)?,
        pos: 2,
        sql,
    };
    let stmt = match kind {
        "CREATE" => {
            let if_not_exists = p.words(&["IF", "NOT", "EXISTS"]);
            let user = p.user()?;
            let auth = p.auth()?;
            AccountStmt::Create {
                user,
                if_not_exists,
                auth,
            }
        }
        "SET" => {
            let user = if p.word("FOR") { Some(p.user()?) } else { None };
            if p.toks.get(p.pos) != Some(&Tok::Punct('=')) {
                return Err(p.error());
            }
            p.pos += 1;
            let password = if p.word("PASSWORD") {
                if p.toks.get(p.pos) != Some(&Tok::Punct('(')) {
                    return Err(p.error());
                }
                p.pos += 1;
                let pw = p.string()?;
                if p.toks.get(p.pos) != Some(&Tok::Punct(')')) {
                    return Err(p.error());
                }
                p.pos += 1;
                pw
            } else {
                p.string()?
            };
            AccountStmt::SetPassword { user, password }
        }
        "ALTER" => {
            let if_exists = p.words(&["IF", "EXISTS"]);
            let user = p.user()?;
            let auth = p.auth()?.ok_or_else(|| p.error())?;
            AccountStmt::Alter {
                user,
                if_exists,
                auth,
            }
        }
        _ => {
            let if_exists = p.words(&["IF", "EXISTS"]);
            let mut users = vec![p.user()?];
            while p.toks.get(p.pos) == Some(&Tok::Punct(',')) {
                p.pos += 1;
                users.push(p.user()?);
            }
            AccountStmt::Drop { users, if_exists }
        }
    };
    p.end()?;
    Ok(Some(stmt))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_statements_parse() {
        assert_eq!(
            account_statement("CREATE USER IF NOT EXISTS 'al''ice'@'%' IDENTIFIED WITH caching_sha2_password BY 'p;w'").unwrap(),
            Some(AccountStmt::Create {
                user: "al'ice".into(),
                if_not_exists: true,
                auth: Some(AuthSpec {
                    plugin: Some(Plugin::CachingSha2),
                    secret: "p;w".into(),
                    hashed: false
                })
            })
        );
        assert_eq!(
            account_statement("alter user bob identified by 'x'").unwrap(),
            Some(AccountStmt::Alter {
                user: "bob".into(),
                if_exists: false,
                auth: AuthSpec {
                    plugin: None,
                    secret: "x".into(),
                    hashed: false
                }
            })
        );
        assert_eq!(
            account_statement("DROP USER a@localhost, `b`").unwrap(),
            Some(AccountStmt::Drop {
                users: vec!["a".into(), "b".into()],
                if_exists: false
            })
        );
        assert_eq!(
            account_statement("SET PASSWORD FOR 'bob'@'%' = PASSWORD('p')").unwrap(),
            Some(AccountStmt::SetPassword {
                user: Some("bob".into()),
                password: "p".into()
            })
        );
        assert_eq!(
            account_statement("set password = 'q'").unwrap(),
            Some(AccountStmt::SetPassword {
                user: None,
                password: "q".into()
            })
        );
        assert_eq!(
            account_statement("SET PASSWORD 'q'").unwrap_err().code,
            1064
        );
        assert_eq!(account_statement("SET NAMES utf8mb4").unwrap(), None);
        assert_eq!(account_statement("SELECT 1").unwrap(), None);
        assert_eq!(
            account_statement("CREATE USER a IDENTIFIED BY x")
                .unwrap_err()
                .code,
            1064
        );
        assert_eq!(
            account_statement("CREATE USER a IDENTIFIED WITH ed25519")
                .unwrap_err()
                .code,
            1524
        );
        assert_eq!(account_statement("CREATE USER 'a").unwrap_err().code, 1064);
        // REVOKE would take away nothing: refused rather than ignored.
        let e = account_statement("REVOKE SELECT ON *.* FROM bob").unwrap_err();
        assert_eq!(e.code, 1235);
        assert!(matches!(
            account_statement("GRANT ALL ON *.* TO bob"),
            Ok(Some(AccountStmt::NoOp))
        ));
    }
}
