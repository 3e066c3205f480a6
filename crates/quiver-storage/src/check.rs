//! Verification of every page of every table of a database folder, the work
//! of `quiver check`.
//!
//! First each table's manifest, data-file tail and directory are read and
//! verified (small reads); then the pages of all tables are cut into work
//! units of whole pages of about [`CheckOptions::chunk_bytes`], in file order.
//! Every thread claims the next unit, reads it with one large `pread` into its
//! own reused buffer and verifies its pages while they are still in its cache:
//! with a warm page cache most of the time is the kernel's copy into the
//! buffer, which one I/O thread cannot do faster than one core (measured for
//! `quiver innochecksum`, bench/results/innochecksum.md), so the threads read
//! in parallel and the reads of one overlap the CRC work of the others.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use quiver_common::{QuiverError, Result};

use crate::errors::corrupt;
use crate::page::{self, KIND_DATA};
use crate::table_file::{data_path, read_layout, read_meta, Layout};

/// Tuning of the verification.
#[derive(Debug, Clone, Copy)]
pub struct CheckOptions {
    pub threads: usize,
    /// Bytes per read (whole pages; a larger page is read alone).
    pub chunk_bytes: usize,
    /// One I/O thread reads every unit in file order and hands it to
    /// `threads` workers (instead of every thread reading its own units);
    /// kept to compare the two shapes (bench/check.py).
    pub io_thread: bool,
}

impl CheckOptions {
    pub fn with_threads(threads: usize) -> CheckOptions {
        CheckOptions {
            threads: threads.max(1),
            chunk_bytes: 4 << 20,
            io_thread: false,
        }
    }
}

/// One damaged page, or damage to a table's manifest, tail or directory
/// (then `page` is None and the pages could not be located).
#[derive(Debug, Clone)]
pub struct Damage {
    pub column: Option<String>,
    pub page: Option<usize>,
    pub error: QuiverError,
}

/// What was found in one table.
#[derive(Debug, Clone)]
pub struct TableReport {
    pub table: String,
    /// Pages verified (data pages and the directory page).
    pub pages: u64,
    pub bytes: u64,
    pub damaged: Vec<Damage>,
}

/// The table folders of a database (those with a manifest), sorted by name.
pub fn table_dirs(db: &Path) -> Result<Vec<PathBuf>> {
    let tables = db.join("tables");
    if !db.join("quiver.db").exists() && !tables.is_dir() {
        return Err(QuiverError::new(
            1049,
            "42000",
            format!("Unknown database '{}'", db.display()),
        ));
    }
    let mut out = Vec::new();
    let entries = std::fs::read_dir(&tables)
        .map_err(|e| QuiverError::io(&tables.display().to_string(), e))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.join("table.meta").exists() {
            out.push(p);
        }
    }
    // The tables of the folder's other databases (`databases/<d>/tables`;
    // a name beginning with `.` is a database being made or dropped).
    if let Ok(databases) = std::fs::read_dir(db.join("databases")) {
        for d in databases.flatten() {
            if d.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            for e in std::fs::read_dir(d.path().join("tables"))
                .into_iter()
                .flatten()
                .flatten()
            {
                if e.path().join("table.meta").exists() {
                    out.push(e.path());
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

struct Unit {
    table: usize,
    offset: u64,
    len: usize,
    /// (row group, column, offset in the unit, length)
    pages: Vec<(usize, usize, usize, usize)>,
}

struct Opened {
    file: File,
    layout: Layout,
    columns: Vec<String>,
}

/// Verifies every table of the database in `db`. `progress(bytes)` is called
/// as bytes are verified (from several threads).
pub fn check_database(
    db: &Path,
    options: CheckOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<TableReport>> {
    let dirs = table_dirs(db)?;
    let mut reports = Vec::with_capacity(dirs.len());
    let mut opened: Vec<Option<Opened>> = Vec::with_capacity(dirs.len());
    for dir in &dirs {
        let (report, o) = open_for_check(dir);
        if o.is_none() {
            progress(report.bytes);
        }
        reports.push(report);
        opened.push(o);
    }
    let units = plan_units(&opened, options.chunk_bytes);
    let found: Mutex<Vec<(usize, Damage)>> = Mutex::new(Vec::new());
    let max_len = units.iter().map(|u| u.len).max().unwrap_or(0);
    let record = |u: &Unit, damage: Vec<Damage>| {
        if !damage.is_empty() {
            let mut f = found.lock().expect("damage list");
            f.extend(damage.into_iter().map(|d| (u.table, d)));
        }
        progress(u.len as u64);
    };
    if options.io_thread {
        // Reader -> workers through a bounded queue; buffers come back for reuse.
        let (full_tx, full_rx) = mpsc::sync_channel::<(usize, Vec<u8>, usize)>(options.threads);
        let (free_tx, free_rx) = mpsc::channel::<Vec<u8>>();
        for _ in 0..options.threads + 2 {
            free_tx.send(vec![0u8; max_len]).expect("buffer pool");
        }
        let full_rx = Mutex::new(full_rx);
        let (units, opened, reports) = (&units, &opened, &reports);
        std::thread::scope(|s| {
            s.spawn(move || {
                for (i, u) in units.iter().enumerate() {
                    let Ok(mut buf) = free_rx.recv() else { break };
                    let o = opened[u.table].as_ref().expect("opened table");
                    let read = read_fully(&o.file, &mut buf[..u.len], u.offset);
                    if full_tx.send((i, buf, read)).is_err() {
                        break;
                    }
                }
                drop(full_tx);
            });
            for _ in 0..options.threads {
                let free_tx = free_tx.clone();
                let (full_rx, record) = (&full_rx, &record);
                s.spawn(move || loop {
                    let msg = full_rx.lock().expect("queue").recv();
                    let Ok((i, buf, read)) = msg else { break };
                    let u = &units[i];
                    let o = opened[u.table].as_ref().expect("opened table");
                    record(u, verify_read(&reports[u.table].table, o, u, &buf, read));
                    let _ = free_tx.send(buf);
                });
            }
        });
    } else {
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..options.threads.min(units.len()).max(1) {
                s.spawn(|| {
                    let mut buf = vec![0u8; max_len];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(u) = units.get(i) else { break };
                        let o = opened[u.table].as_ref().expect("opened table");
                        let read = read_fully(&o.file, &mut buf[..u.len], u.offset);
                        record(u, verify_read(&reports[u.table].table, o, u, &buf, read));
                    }
                });
            }
        });
    }
    let mut found = found.into_inner().expect("damage list");
    found.sort_by_key(|(t, d)| (*t, d.page, d.column.clone()));
    for (t, d) in found {
        reports[t].damaged.push(d);
    }
    Ok(reports)
}

/// Reads and verifies a table's manifest, tail and directory.
fn open_for_check(dir: &Path) -> (TableReport, Option<Opened>) {
    let mut table = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    // A table of another database than the folder's default is `db.table`.
    let database = dir.parent().and_then(Path::parent);
    if let Some(d) = database.filter(|d| {
        d.parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == "databases")
    }) {
        table = format!(
            "{}.{table}",
            d.file_name().unwrap_or_default().to_string_lossy()
        );
    }
    let mut report = TableReport {
        table: table.clone(),
        pages: 0,
        bytes: 0,
        damaged: vec![],
    };
    let fail = |mut report: TableReport, error: QuiverError| {
        report.damaged.push(Damage {
            column: None,
            page: None,
            error,
        });
        (report, None)
    };
    let meta = match read_meta(dir) {
        Ok(m) => m,
        Err(e) => return fail(report, e),
    };
    let path = data_path(dir, &meta);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let msg = format!(
                "table '{table}': data file {} is missing",
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            return fail(report, QuiverError::new(1812, "HY000", msg));
        }
        Err(e) => return fail(report, QuiverError::io(&path.display().to_string(), e)),
    };
    report.bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    if meta.format == 1 {
        // One checksum over the whole file: read and verify it here.
        report.pages = 1;
        if let Err(e) = crate::legacy::read_legacy(&table, &path, &meta.schema) {
            return fail(report, e);
        }
        return (report, None);
    }
    let layout = match read_layout(&table, &path, &file, meta.schema.fields().len()) {
        Ok(l) => l,
        Err(e) => return fail(report, e),
    };
    let rows: u64 = layout.row_groups.iter().map(|g| g.rows as u64).sum();
    if rows != meta.rows as u64 {
        let e = corrupt(
            &table,
            None,
            None,
            "the data file's row count differs from the manifest",
        );
        return fail(report, e);
    }
    report.pages = 1 + layout
        .row_groups
        .iter()
        .map(|g| g.pages.len() as u64)
        .sum::<u64>();
    let columns = meta
        .schema
        .fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    (
        report,
        Some(Opened {
            file,
            layout,
            columns,
        }),
    )
}

fn plan_units(opened: &[Option<Opened>], chunk_bytes: usize) -> Vec<Unit> {
    let mut units = Vec::new();
    for (t, o) in opened.iter().enumerate() {
        let Some(o) = o else { continue };
        let mut cur: Option<Unit> = None;
        for (g, rg) in o.layout.row_groups.iter().enumerate() {
            for (c, p) in rg.pages.iter().enumerate() {
                let u = cur.get_or_insert_with(|| Unit {
                    table: t,
                    offset: p.offset,
                    len: 0,
                    pages: vec![],
                });
                u.pages.push((g, c, u.len, p.len as usize));
                u.len += p.len as usize;
                if u.len >= chunk_bytes {
                    units.extend(cur.take());
                }
            }
        }
        units.extend(cur);
        // The directory page was verified when the table was opened; count
        // its bytes and the tail as verified too.
    }
    units
}

/// Verifies the pages of a unit whose first `read` bytes are in `buf`. A
/// short read means the file is shorter than its directory says; the tail
/// check already refuses that, but a file can shrink while it is read.
fn verify_read(table: &str, o: &Opened, u: &Unit, buf: &[u8], read: usize) -> Vec<Damage> {
    let mut damage = Vec::new();
    for &(g, c, at, len) in &u.pages {
        let name = o.columns.get(c).cloned();
        let what = if at + len > read {
            Some("page truncated".to_string())
        } else {
            let bytes = &buf[at..at + len];
            match page::verify_page(bytes) {
                Err(w) => Some(w),
                Ok(h)
                    if h.kind != KIND_DATA
                        || h.total_len() != len
                        || h.column as usize != c
                        || h.page as usize != g
                        || h.rows as usize != o.layout.row_groups[g].rows =>
                {
                    Some("page does not match the directory".to_string())
                }
                Ok(_) => None,
            }
        };
        if let Some(w) = what {
            damage.push(Damage {
                column: name.clone(),
                page: Some(g),
                error: corrupt(table, name.as_deref(), Some(g), &w),
            });
        }
    }
    damage
}

/// Reads as much of `buf` as the file has at `offset`; returns the bytes read.
fn read_fully(file: &File, buf: &mut [u8], offset: u64) -> usize {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    done
}
