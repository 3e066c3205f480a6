//! What killed writes leave in a database folder: data files of a
//! generation the manifest does not name (a write killed before its switch,
//! or after it but before it removed the old file) with a stray
//! `table.meta.tmp`, and table folders without a manifest (a CREATE TABLE
//! killed before its first switch). The next write of the same table removes
//! its own, but a table never written again, or a folder never made a
//! table, would keep them for good.
//!
//! A write in progress in another process looks just the same, so only a
//! process that holds the folder's write lock may remove them
//! ([`remove_leftovers`]); [`leftovers`] only lists them.

use std::fs;
use std::path::{Path, PathBuf};

use crate::table_file::{data_files, data_path, read_meta};

/// A file or folder a killed write left, and its size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    pub path: PathBuf,
    pub bytes: u64,
}

/// The leftovers of the database folder `db`, sorted by path. A table
/// whose manifest cannot be read keeps all its files (its damage is
/// `quiver check`'s to report).
pub fn leftovers(db: &Path) -> Vec<Leftover> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(db.join("tables")) else {
        return out;
    };
    for e in entries.flatten() {
        let dir = e.path();
        if !dir.is_dir() {
            continue;
        }
        if !dir.join("table.meta").exists() {
            out.push(Leftover {
                bytes: size(&dir),
                path: dir,
            });
            continue;
        }
        let Ok(meta) = read_meta(&dir) else {
            continue;
        };
        let live = data_path(&dir, &meta);
        for (_, path) in data_files(&dir) {
            if path != live {
                out.push(Leftover {
                    bytes: size(&path),
                    path,
                });
            }
        }
        let tmp = dir.join("table.meta.tmp");
        if tmp.exists() {
            out.push(Leftover {
                bytes: size(&tmp),
                path: tmp,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Removes the leftovers of `db`; the caller holds the folder's write
/// lock. Returns what was removed (a file that would not go is skipped: it
/// is tried again at the next open).
pub fn remove_leftovers(db: &Path) -> Vec<Leftover> {
    leftovers(db)
        .into_iter()
        .filter(|l| match l.path.is_dir() {
            true => fs::remove_dir_all(&l.path).is_ok(),
            false => fs::remove_file(&l.path).is_ok(),
        })
        .collect()
}

/// Bytes of a file, or of every file under a folder.
fn size(path: &Path) -> u64 {
    match fs::read_dir(path) {
        Ok(entries) => entries.flatten().map(|e| size(&e.path())).sum(),
        Err(_) => fs::metadata(path).map_or(0, |m| m.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{Int32Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};

    #[test]
    fn stray_generations_and_folders_without_a_manifest_are_found_and_removed() {
        let db = std::env::temp_dir().join(format!("quiver-leftovers-{}", std::process::id()));
        let _ = fs::remove_dir_all(&db);
        let t = db.join("tables").join("t");
        fs::create_dir_all(&t).unwrap();
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(Int32Array::from(vec![1, 2]))])
                .unwrap();
        let meta = crate::write_table(&t, &schema, &[batch]).unwrap();
        assert!(leftovers(&db).is_empty(), "a clean folder has none");
        // A killed write's data file of a later generation, its manifest
        // draft, and a CREATE TABLE killed before its manifest.
        let stray = t.join(format!("data-{}.qvt", meta.generation + 1));
        fs::write(&stray, b"partial").unwrap();
        fs::write(t.join("table.meta.tmp"), b"draft").unwrap();
        let orphan = db.join("tables").join("u");
        fs::create_dir_all(&orphan).unwrap();
        fs::write(orphan.join("data-1.qvt"), vec![0u8; 100]).unwrap();
        let found = leftovers(&db);
        let paths: Vec<&Path> = found.iter().map(|l| l.path.as_path()).collect();
        assert_eq!(
            paths,
            [
                stray.as_path(),
                t.join("table.meta.tmp").as_path(),
                orphan.as_path()
            ]
        );
        assert_eq!(found.iter().map(|l| l.bytes).sum::<u64>(), 7 + 5 + 100);
        assert_eq!(remove_leftovers(&db), found);
        assert!(leftovers(&db).is_empty());
        // The live table is untouched.
        assert_eq!(crate::read_table(&t).unwrap().1[0].num_rows(), 2);
        let _ = fs::remove_dir_all(&db);
    }
}
