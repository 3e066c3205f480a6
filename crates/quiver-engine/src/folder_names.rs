//! How names of a database folder's databases, tables and views become
//! file names, and the checks MariaDB makes of a new name; a database's
//! `db.opt`.

use std::fs;
use std::path::Path;

use quiver_collation::Collation;
use quiver_common::{QuiverError, Result};

/// The database's default charset and collation, as MySQL's `db.opt`.
pub(crate) const DB_OPT: &str = "db.opt";

/// A table or view name as a file name. SQL names may hold any character,
/// file names may not (`/`, `..`, NUL): every byte outside `[A-Za-z0-9_$]`
/// becomes `@xx` (its hex), so no name can reach outside the database
/// folder, and common names stay readable.
pub(crate) fn file_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            out.push(b as char);
        } else {
            out.push_str(&format!("@{b:02x}"));
        }
    }
    out
}

/// The name a file name of [`file_name`] stands for; a file name that is
/// no such encoding stands for itself.
pub(crate) fn name_of_file(file: &str) -> String {
    let mut bytes = Vec::with_capacity(file.len());
    let mut rest = file.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        let hex = tail.get(..2).and_then(|h| std::str::from_utf8(h).ok());
        match (b, hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'@', Some(v)) => {
                bytes.push(v);
                rest = &tail[2..];
            }
            _ => {
                bytes.push(b);
                rest = tail;
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| file.to_string())
}

/// MySQL's rule for a new table's or view's name: not empty, no trailing
/// space, at most 64 characters (error 1103).
pub(crate) fn check_new_name(name: &str) -> Result<()> {
    if name.is_empty() || name.ends_with(' ') || name.chars().count() > 64 {
        return Err(QuiverError::new(
            1103,
            "42000",
            format!("Incorrect table name '{name}'"),
        ));
    }
    Ok(())
}

/// Writes a database folder's `db.opt` (its default charset and collation),
/// switched in by a rename.
pub(crate) fn write_db_opt(dir: &Path, c: Collation) -> Result<()> {
    let path = dir.join(DB_OPT);
    let tmp = path.with_extension("opt.tmp");
    let text = format!(
        "default-character-set={}\ndefault-collation={}\n",
        c.charset().name(),
        c.name()
    );
    fs::write(&tmp, text)
        .and_then(|_| fs::rename(&tmp, &path))
        .map_err(|e| QuiverError::io("writing db.opt", e))
}

/// What a killed CREATE or DROP DATABASE left (`databases/.new-*`,
/// `databases/.drop-*`), and what killed writes left in the tables of the
/// other databases. Only with the folder's write lock held.
pub(crate) fn remove_schema_leftovers(databases: &Path) {
    let Ok(entries) = fs::read_dir(databases) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with('.') {
            let _ = fs::remove_dir_all(e.path());
        } else {
            quiver_storage::leftovers::remove_leftovers(&e.path());
        }
    }
}

/// MariaDB's rule for a database name: not empty, no trailing space, at
/// most 64 characters (error 1102).
pub(crate) fn check_database_name(name: &str) -> Result<()> {
    if name.is_empty() || name.ends_with(' ') || name.chars().count() > 64 {
        return Err(QuiverError::new(
            1102,
            "42000",
            format!("Incorrect database name '{name}'"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_name_is_a_file_name_inside_the_folder_and_back() {
        for name in [
            "lineitem",
            "Orders_2$",
            "../../keep",
            "..",
            "a/b",
            "x y",
            "é€😀",
            "@41",
        ] {
            let f = file_name(name);
            assert!(
                f.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_$@".contains(&b)),
                "{name} -> {f}"
            );
            assert_eq!(name_of_file(&f), name);
        }
        assert_eq!(
            file_name("lineitem"),
            "lineitem",
            "plain names stay readable"
        );
    }
}
