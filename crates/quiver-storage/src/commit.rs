//! One switch for new generations of several tables (a transaction's
//! COMMIT): each table's manifest is its own file, so renaming them one by
//! one could be cut by a crash between two. Instead the commit first writes
//! a redo record, `DIR/commit.redo`, naming every table's new manifest:
//! written to `commit.redo.tmp`, fsynced, then renamed into place, which is
//! the switch. The manifests are then switched one by one as a single write
//! switches its own, and the record is removed.
//!
//! A crash before the record's rename leaves every table as it was (the
//! staged data files are leftovers); after it, [`recover`] (run by the next
//! writer, or the next opening of the folder, before any leftover is
//! removed) switches the manifests the record names. A reader that opens
//! the folder in between takes the record's manifests over the tables'
//! ([`pending_manifests`]): it sees all of the commit or none of it.
//!
//! Record format, text, one item a line:
//! `quiver-commit 1`, then per table `table<TAB>hex(folder relative to
//! DIR)<TAB>generation<TAB>hex(manifest)`, then `crc <CRC-32C of the bytes
//! before>`.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use quiver_common::{QuiverError, Result};

use crate::errors::err;
use crate::table_file::{fsync_dir, publish_table, switch_manifest, StagedTable};

const RECORD: &str = "commit.redo";
const RECORD_TMP: &str = "commit.redo.tmp";

/// Publishes `staged` (tables of the database folder `root`) in one switch:
/// the redo record when there are several, the table's own manifest rename
/// when there is one. `between` runs once the switch is durable and before
/// the record goes (the caller tells other processes there).
pub fn publish_together(root: &Path, staged: &[StagedTable], between: impl FnOnce()) -> Result<()> {
    if staged.len() <= 1 {
        for s in staged {
            publish_table(s)?;
        }
        between();
        return Ok(());
    }
    let mut text = String::from("quiver-commit 1\n");
    for s in staged {
        let rel = s.dir.strip_prefix(root).map_err(|_| {
            QuiverError::internal(format!(
                "table folder {} outside the database",
                s.dir.display()
            ))
        })?;
        text.push_str(&format!(
            "table\t{}\t{}\t{}\n",
            hex(rel.to_string_lossy().as_bytes()),
            s.written.meta.generation,
            hex(s.manifest.as_bytes())
        ));
    }
    text.push_str(&format!("crc {:08x}\n", crc32c::crc32c(text.as_bytes())));
    let tmp = root.join(RECORD_TMP);
    {
        let mut f = File::create(&tmp).map_err(|e| err(&tmp, e))?;
        f.write_all(text.as_bytes()).map_err(|e| err(&tmp, e))?;
        f.sync_all().map_err(|e| err(&tmp, e))?;
    }
    fs::rename(&tmp, root.join(RECORD)).map_err(|e| err(root, e))?;
    fsync_dir(root)?;
    crash_point("QUIVER_CRASH_AFTER_COMMIT_RECORD");
    for s in staged {
        publish_table(s)?;
    }
    between();
    fs::remove_file(root.join(RECORD)).map_err(|e| err(root, e))?;
    fsync_dir(root)?;
    Ok(())
}

/// For the crash test: stop the process dead here when the variable is set.
fn crash_point(var: &str) {
    if std::env::var_os(var).is_some() {
        std::process::abort();
    }
}

/// One table of a redo record: its folder, new generation and manifest.
struct Entry {
    dir: PathBuf,
    generation: u64,
    manifest: String,
}

/// The record of `root`, if there is one (a damaged one, which a crash
/// cannot leave since it is renamed into place only once fsynced, is 1877).
fn read_record(root: &Path) -> Result<Option<Vec<Entry>>> {
    let path = root.join(RECORD);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(&path, e)),
    };
    let bad = || {
        QuiverError::new(
            1877,
            "HY000",
            format!("commit record {}: damaged", path.display()),
        )
    };
    let body_end = text.rfind("crc ").ok_or_else(bad)?;
    let crc = u32::from_str_radix(text[body_end + 4..].trim_end(), 16).map_err(|_| bad())?;
    if crc != crc32c::crc32c(&text.as_bytes()[..body_end])
        || text.lines().next() != Some("quiver-commit 1")
    {
        return Err(bad());
    }
    let mut entries = Vec::new();
    for line in text[..body_end].lines().skip(1) {
        let [_, dir, generation, manifest] = line.split('\t').collect::<Vec<_>>()[..] else {
            return Err(bad());
        };
        let text = |h: &str| {
            unhex(h)
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(bad)
        };
        entries.push(Entry {
            dir: root.join(text(dir)?),
            generation: generation.parse().map_err(|_| bad())?,
            manifest: text(manifest)?,
        });
    }
    Ok(Some(entries))
}

/// Finishes a commit a crash cut after its switch: the manifests its record
/// names are switched, then the record removed. Only a holder of the
/// folder's write lock may call it. True when there was one.
pub fn recover(root: &Path) -> Result<bool> {
    let _ = fs::remove_file(root.join(RECORD_TMP));
    let Some(entries) = read_record(root)? else {
        return Ok(false);
    };
    for e in &entries {
        switch_manifest(&e.dir, &e.manifest, e.generation)?;
    }
    fs::remove_file(root.join(RECORD)).map_err(|e| err(root, e))?;
    fsync_dir(root)?;
    Ok(true)
}

/// The manifests a commit in progress (or cut by a crash) switches to, by
/// table folder: what a reader takes over those tables' `table.meta`.
pub fn pending_manifests(root: &Path) -> Result<HashMap<PathBuf, Vec<u8>>> {
    Ok(read_record(root)?
        .unwrap_or_default()
        .into_iter()
        .map(|e| (e.dir, e.manifest.into_bytes()))
        .collect())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}
