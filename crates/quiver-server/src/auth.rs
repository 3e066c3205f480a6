//! Accounts and the two password plugins.
//!
//! Only password hashes are kept, never passwords:
//! - `mysql_native_password`: `*` + hex SHA1(SHA1(password)), MySQL's own
//!   `authentication_string`, so values copied from `mysql.user` work.
//! - `caching_sha2_password`: `$sha2$` + hex SHA256(SHA256(password)). MySQL
//!   stores a salted, iterated SHA-256 crypt and keeps this double hash only in
//!   a memory cache filled by a first full login (which needs TLS or an RSA key
//!   exchange). Storing the double hash makes every login the protocol's fast
//!   path (a scramble over the handshake nonce; the password never travels),
//!   with the same strength against a stolen file as mysql_native_password.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use quiver_common::{QuiverError, Result};
use sha1::Sha1;
use sha2::{Digest, Sha256};

pub const NATIVE: &str = "mysql_native_password";
pub const CACHING_SHA2: &str = "caching_sha2_password";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    Native,
    CachingSha2,
}

impl Plugin {
    pub fn from_name(name: &str) -> Option<Plugin> {
        match name.to_ascii_lowercase().as_str() {
            NATIVE => Some(Plugin::Native),
            CACHING_SHA2 => Some(Plugin::CachingSha2),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Plugin::Native => NATIVE,
            Plugin::CachingSha2 => CACHING_SHA2,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub plugin: Plugin,
    /// The plugin's double hash of the password; empty for no password.
    pub hash: Vec<u8>,
}

impl Account {
    pub fn with_password(plugin: Plugin, password: &str) -> Account {
        let hash = if password.is_empty() {
            vec![]
        } else {
            match plugin {
                Plugin::Native => Sha1::digest(Sha1::digest(password.as_bytes())).to_vec(),
                Plugin::CachingSha2 => Sha256::digest(Sha256::digest(password.as_bytes())).to_vec(),
            }
        };
        Account { plugin, hash }
    }

    pub fn has_password(&self) -> bool {
        !self.hash.is_empty()
    }

    /// The stored form, as `authentication_string` shows it.
    pub fn auth_string(&self) -> String {
        if self.hash.is_empty() {
            return String::new();
        }
        let hex: String = self.hash.iter().map(|b| format!("{b:02X}")).collect();
        match self.plugin {
            Plugin::Native => format!("*{hex}"),
            Plugin::CachingSha2 => format!("$sha2${hex}"),
        }
    }

    fn from_auth_string(plugin: Plugin, s: &str) -> Option<Account> {
        if s.is_empty() {
            return Some(Account {
                plugin,
                hash: vec![],
            });
        }
        let (hex, len) = match plugin {
            Plugin::Native => (s.strip_prefix('*')?, 20),
            Plugin::CachingSha2 => (s.strip_prefix("$sha2$")?, 32),
        };
        let hash = decode_hex(hex)?;
        (hash.len() == len).then_some(Account { plugin, hash })
    }

    /// Checks a client's answer to `nonce` under this account's plugin.
    pub fn verify(&self, nonce: &[u8], response: &[u8]) -> bool {
        if self.hash.is_empty() {
            // Clients send nothing, or a lone NUL, for an empty password.
            return response.is_empty() || response == [0];
        }
        match self.plugin {
            // response = SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw)))
            Plugin::Native => {
                if response.len() != 20 {
                    return false;
                }
                let mask = Sha1::new()
                    .chain_update(nonce)
                    .chain_update(&self.hash)
                    .finalize();
                let stage1: Vec<u8> = response.iter().zip(mask).map(|(a, b)| a ^ b).collect();
                constant_time_eq(&Sha1::digest(&stage1), &self.hash)
            }
            // response = SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce)
            Plugin::CachingSha2 => {
                if response.len() != 32 {
                    return false;
                }
                let mask = Sha256::new()
                    .chain_update(&self.hash)
                    .chain_update(nonce)
                    .finalize();
                let stage1: Vec<u8> = response.iter().zip(mask).map(|(a, b)| a ^ b).collect();
                constant_time_eq(&Sha256::digest(&stage1), &self.hash)
            }
        }
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 == 1 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The client's side of each plugin, for tests and tools.
pub fn scramble(plugin: Plugin, password: &str, nonce: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return vec![];
    }
    match plugin {
        Plugin::Native => {
            let s1 = Sha1::digest(password.as_bytes());
            let s2 = Sha1::digest(s1);
            let mask = Sha1::new().chain_update(nonce).chain_update(s2).finalize();
            s1.iter().zip(mask).map(|(a, b)| a ^ b).collect()
        }
        Plugin::CachingSha2 => {
            let s1 = Sha256::digest(password.as_bytes());
            let s2 = Sha256::digest(s1);
            let mask = Sha256::new()
                .chain_update(s2)
                .chain_update(nonce)
                .finalize();
            s1.iter().zip(mask).map(|(a, b)| a ^ b).collect()
        }
    }
}

/// The accounts of a server: user name → account (any host).
///
/// File format, one account a line (`#` starts a comment):
/// `user plugin [credential]`, the credential being the stored hash
/// (`*HEX` / `$sha2$HEX`) or, in a file written by hand, `password:TEXT`.
/// No credential: no password.
#[derive(Debug, Default)]
pub struct Accounts {
    users: RwLock<BTreeMap<String, Account>>,
    /// Where CREATE USER / ALTER USER are saved (the database folder's `users` file).
    store: Option<PathBuf>,
}

/// The first line of an accounts file Quiver writes: its user names are
/// percent-encoded (every byte but ASCII letters, digits and `_ . - $`), so a
/// name may hold spaces, line breaks or `#` and still be one word of one line.
const ESCAPED_HEADER: &str = "# quiver-accounts 2";

/// MariaDB's longest user name, in characters.
const MAX_USER_CHARS: usize = 128;

/// A user name as one word of an accounts file (see [`ESCAPED_HEADER`]).
fn encode_user(user: &str) -> String {
    let mut out = String::with_capacity(user.len());
    for b in user.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'$') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The user name an [`encode_user`] word stands for; None for anything
/// else (a bad escape, a byte that would have been escaped, not UTF-8).
fn decode_user(word: &str) -> Option<String> {
    let bytes = word.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = word.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'$') => {
                out.push(b);
                i += 1;
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

/// Whether `user` can be an account: MariaDB's 1470 for a name over 128
/// characters; the anonymous user '' is not supported.
pub fn check_user_name(user: &str) -> Result<()> {
    if user.is_empty() {
        return Err(QuiverError::not_supported("anonymous accounts ('')"));
    }
    let chars = user.chars().count();
    if chars > MAX_USER_CHARS {
        let shown: String = match chars > 70 {
            true => user.chars().take(67).chain("...".chars()).collect(),
            false => user.to_string(),
        };
        return Err(QuiverError::new(
            1470,
            "HY000",
            format!("String '{shown}' is too long for user name (should be no longer than {MAX_USER_CHARS})"),
        ));
    }
    Ok(())
}

/// Accounts of a file: `user plugin credential` a line. A file Quiver wrote
/// (see [`ESCAPED_HEADER`]) is read strictly: whole-line comments only,
/// percent-encoded names, each name once. One written by hand keeps `#`
/// comments anywhere and plain names.
pub fn parse_accounts(text: &str, origin: &str) -> Result<BTreeMap<String, Account>> {
    let mut users = BTreeMap::new();
    let escaped = text.lines().next() == Some(ESCAPED_HEADER);
    for (n, line) in text.lines().enumerate() {
        let line = match escaped {
            true if line.starts_with('#') => "",
            true => line,
            false => line.split('#').next().unwrap_or("").trim(),
        };
        if line.is_empty() {
            continue;
        }
        let bad =
            |why: &str| QuiverError::new(1105, "HY000", format!("{origin} line {}: {why}", n + 1));
        let mut parts = line.split_whitespace();
        let word = parts.next().ok_or_else(|| bad("no user name"))?;
        let decoded;
        let user = match escaped {
            true => {
                decoded = decode_user(word).ok_or_else(|| bad("user name not percent-encoded"))?;
                decoded.as_str()
            }
            false => word,
        };
        if escaped && users.contains_key(user) {
            return Err(bad("the user is listed twice"));
        }
        let plugin_name = parts.next().ok_or_else(|| bad("no plugin"))?;
        let plugin = Plugin::from_name(plugin_name).ok_or_else(|| {
            bad(&format!(
                "unknown plugin '{plugin_name}' ({NATIVE} or {CACHING_SHA2})"
            ))
        })?;
        let cred = parts.next().unwrap_or("");
        if parts.next().is_some() {
            return Err(bad("more than user, plugin and credential"));
        }
        let account = match cred.strip_prefix("password:") {
            Some(pw) => Account::with_password(plugin, pw),
            None => Account::from_auth_string(plugin, cred).ok_or_else(|| {
                bad("credential is neither a hash of the plugin nor password:TEXT")
            })?,
        };
        users.insert(user.to_string(), account);
    }
    Ok(users)
}

impl Accounts {
    /// Accounts from `users` (a config file's), then those saved in `store`
    /// (which win); `root` without a password when neither has any account.
    pub fn load(config: Option<&Path>, store: Option<PathBuf>) -> Result<Accounts> {
        let mut users = BTreeMap::new();
        if let Some(path) = config {
            let text = std::fs::read_to_string(path)
                .map_err(|e| QuiverError::io(&format!("cannot read {}", path.display()), e))?;
            users = parse_accounts(&text, &path.display().to_string())?;
        }
        if let Some(path) = &store {
            if path.exists() {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| QuiverError::io(&format!("cannot read {}", path.display()), e))?;
                users.extend(parse_accounts(&text, &path.display().to_string())?);
            }
        }
        if users.is_empty() {
            users.insert(
                "root".to_string(),
                Account {
                    plugin: Plugin::Native,
                    hash: vec![],
                },
            );
        }
        Ok(Accounts {
            users: RwLock::new(users),
            store,
        })
    }

    pub fn get(&self, user: &str) -> Option<Account> {
        self.users
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(user)
            .cloned()
    }

    /// Names of the accounts without a password.
    pub fn passwordless(&self) -> Vec<String> {
        self.users
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(_, a)| !a.has_password())
            .map(|(u, _)| u.clone())
            .collect()
    }

    /// Creates (`create`) or changes an account and saves all accounts.
    pub fn put(&self, user: &str, account: Account, create: bool, if_clause: bool) -> Result<()> {
        check_user_name(user)?;
        let mut users = self.users.write().unwrap_or_else(|p| p.into_inner());
        let exists = users.contains_key(user);
        if create && exists || !create && !exists {
            if if_clause {
                return Ok(());
            }
            let op = if create { "CREATE USER" } else { "ALTER USER" };
            return Err(QuiverError::new(
                1396,
                "HY000",
                format!("Operation {op} failed for '{user}'@'%'"),
            ));
        }
        let mut next = users.clone();
        next.insert(user.to_string(), account);
        self.save(&next)?;
        *users = next;
        Ok(())
    }

    pub fn drop_user(&self, user: &str, if_exists: bool) -> Result<()> {
        let mut users = self.users.write().unwrap_or_else(|p| p.into_inner());
        if !users.contains_key(user) {
            if if_exists {
                return Ok(());
            }
            return Err(QuiverError::new(
                1396,
                "HY000",
                format!("Operation DROP USER failed for '{user}'@'%'"),
            ));
        }
        let mut next = users.clone();
        next.remove(user);
        self.save(&next)?;
        *users = next;
        Ok(())
    }

    /// Writes the accounts to a temporary file and renames it over the store,
    /// so a crash leaves the old or the new list, never half of one.
    fn save(&self, users: &BTreeMap<String, Account>) -> Result<()> {
        let Some(path) = &self.store else {
            return Ok(());
        };
        let mut text = format!(
            "{ESCAPED_HEADER}\n# Quiver accounts: user plugin hash, user names percent-encoded (written by CREATE/ALTER/DROP USER)\n"
        );
        for (u, a) in users {
            text.push_str(&format!(
                "{} {} {}\n",
                encode_user(u),
                a.plugin.name(),
                a.auth_string()
            ));
        }
        let tmp = path.with_extension("tmp");
        let io = |e| QuiverError::io(&format!("cannot write {}", path.display()), e);
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)?;
        // The rename itself lasts only once the folder is on disk.
        if let Some(dir) = path.parent() {
            std::fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(io)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_hash_is_mysqls() {
        // MySQL: SELECT PASSWORD('password') / authentication_string of a native account.
        let a = Account::with_password(Plugin::Native, "password");
        assert_eq!(a.auth_string(), "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
    }

    #[test]
    fn scrambles_verify_only_with_the_right_password() {
        let nonce: Vec<u8> = (1..=20).collect();
        for plugin in [Plugin::Native, Plugin::CachingSha2] {
            let a = Account::with_password(plugin, "s3cret");
            assert!(a.verify(&nonce, &scramble(plugin, "s3cret", &nonce)));
            assert!(!a.verify(&nonce, &scramble(plugin, "s3creT", &nonce)));
            assert!(!a.verify(&nonce, b""));
            let mut other = nonce.clone();
            other[0] = 99;
            assert!(!a.verify(&other, &scramble(plugin, "s3cret", &nonce)));
        }
    }

    #[test]
    fn account_lines_parse_and_round_trip() {
        let users = parse_accounts(
            "# comment\nalice caching_sha2_password password:pw\nbob mysql_native_password *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19\ncarol mysql_native_password\n",
            "t",
        )
        .unwrap();
        assert_eq!(
            users["alice"],
            Account::with_password(Plugin::CachingSha2, "pw")
        );
        assert_eq!(
            users["bob"],
            Account::with_password(Plugin::Native, "password")
        );
        assert!(!users["carol"].has_password());
        let a = &users["alice"];
        assert_eq!(
            Account::from_auth_string(a.plugin, &a.auth_string()).as_ref(),
            Some(a)
        );
        assert!(parse_accounts("x sha256_password", "t").is_err());
        assert!(parse_accounts("x mysql_native_password *12", "t").is_err());
    }

    /// Names that once broke the file (a space and a plugin name, a line
    /// break, `#`, `%`, tabs, non-ASCII) come back as they went, with their
    /// passwords, and add no other account.
    #[test]
    fn hostile_user_names_round_trip_through_the_store() {
        let dir = std::env::temp_dir().join(format!("quiver-accounts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = dir.join("users");
        let _ = std::fs::remove_file(&store);
        let names = [
            "evil mysql_native_password\nx",
            "evil",
            "#root",
            "a%41",
            "tab\tuser",
            "line\r\nbreak password:",
            "ünï cødé",
            "' OR 1 --",
        ];
        let accounts = Accounts::load(None, Some(store.clone())).unwrap();
        for (i, n) in names.iter().enumerate().skip(2) {
            let pw = format!("pw{i}");
            accounts
                .put(n, Account::with_password(Plugin::Native, &pw), true, false)
                .unwrap();
        }
        accounts
            .put(
                names[0],
                Account::with_password(Plugin::Native, "pw0"),
                true,
                false,
            )
            .unwrap();
        let text = std::fs::read_to_string(&store).unwrap();
        assert!(text.starts_with(ESCAPED_HEADER), "{text}");
        let again = Accounts::load(None, Some(store.clone())).unwrap();
        let users = again.users.read().unwrap().clone();
        let mut expected: Vec<&str> = names.iter().copied().filter(|n| *n != "evil").collect();
        expected.push("root");
        expected.sort();
        assert_eq!(
            users.keys().map(String::as_str).collect::<Vec<_>>(),
            expected
        );
        assert!(
            again.get("evil").is_none(),
            "an account the name smuggled in"
        );
        assert_eq!(again.passwordless(), ["root"]);
        let nonce = [7u8; 20];
        let hostile = again.get(names[0]).unwrap();
        assert!(hostile.verify(&nonce, &scramble(Plugin::Native, "pw0", &nonce)));
        assert!(!hostile.verify(&nonce, &[]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_written_store_is_read_strictly() {
        let hash = Account::with_password(Plugin::Native, "x").auth_string();
        let ok = format!("{ESCAPED_HEADER}\nal%20ice mysql_native_password {hash}\n");
        assert!(parse_accounts(&ok, "t").unwrap().contains_key("al ice"));
        for bad in [
            format!("{ESCAPED_HEADER}\nal ice mysql_native_password {hash}\n"),
            format!("{ESCAPED_HEADER}\nal%2 mysql_native_password {hash}\n"),
            format!("{ESCAPED_HEADER}\nal#x mysql_native_password {hash}\n"),
            format!("{ESCAPED_HEADER}\n%FF mysql_native_password {hash}\n"),
            format!("{ESCAPED_HEADER}\na mysql_native_password {hash}\na mysql_native_password {hash}\n"),
        ] {
            assert!(parse_accounts(&bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn user_names_are_checked_as_mariadb_checks_them() {
        assert!(check_user_name(&"u".repeat(128)).is_ok());
        let e = check_user_name(&"b".repeat(129)).unwrap_err();
        assert_eq!(e.code, 1470);
        assert_eq!(
            e.message,
            format!(
                "String '{}...' is too long for user name (should be no longer than 128)",
                "b".repeat(67)
            )
        );
        assert_eq!(check_user_name("").unwrap_err().code, 1235);
    }
}
