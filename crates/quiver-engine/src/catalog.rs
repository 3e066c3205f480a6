//! Databases (schemas), their tables and views, kept in memory and, for a
//! database folder, on disk: the default database `quiver` in
//! `DIR/tables/<name>/` and `DIR/views/<name>.sql`, any other database `d`
//! in `DIR/databases/<d>/` laid out the same way.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use quiver_collation::Collation;
use quiver_common::{QuiverError, Result};
use quiver_exec::context::{MemoryPool, PoolReservation};
use quiver_plan::{CollatedBounds, ColumnZone, ScanBatches, SpaceEnds, TableSource, ZoneMaps};
use quiver_sql::sqlparser::ast::Query;
use quiver_storage::WriteOptions;

mod commit;
mod scan;
pub(crate) use commit::{deadlock, TableWrite};
use scan::{scan, scan_steady, Held};

use crate::folder_names::{
    check_database_name, check_new_name, file_name, name_of_file, remove_schema_leftovers,
    write_db_opt, DB_OPT,
};

/// The default database of a folder, as clients see it (`SHOW DATABASES`,
/// `USE`, `DATABASE()`, qualified names in error messages): the one whose
/// tables are `DIR/tables`, which holds an unqualified name before any USE.
pub const SCHEMA_NAME: &str = "quiver";

/// Where the databases other than [`SCHEMA_NAME`] live in the folder.
const DATABASES: &str = "databases";

/// The schema of the metadata views (`information_schema.TABLES`, ...).
pub const INFORMATION_SCHEMA: &str = "information_schema";

/// One table. Data is read from disk on first use, column by column: a scan
/// reads (and verifies) only the columns it needs.
#[derive(Debug)]
pub struct Table {
    name: String,
    /// The database (schema) the table is in.
    database: String,
    schema: SchemaRef,
    rows: RwLock<usize>,
    distinct: RwLock<Vec<usize>>,
    stored: RwLock<Stored>,
    dir: Option<PathBuf>,
    /// The database's catalog generation, moved on when the contents change.
    generation: Arc<AtomicU64>,
    /// The generation of the table's files this value holds: another
    /// process that rewrote them left a greater one in `table.meta`.
    disk_generation: AtomicU64,
    /// The database's memory pool, where the pages read count.
    memory: Arc<MemoryPool>,
    /// The next AUTO_INCREMENT value as kept (0: none kept; the next value
    /// is then one past the column's largest). Written with every
    /// generation, so it switches with the rows it numbered.
    auto_increment: AtomicU64,
    /// How many times the contents were replaced: a transaction that
    /// started from this table conflicts when it moved (`commit.rs`).
    version: AtomicU64,
}

/// What of a table is in memory.
#[derive(Debug, Default)]
struct Stored {
    /// The opened data file (manifest and directory verified), for reading
    /// further columns.
    file: Option<Arc<quiver_storage::TableFile>>,
    /// Rows of each row group; None until the table is opened or written.
    group_rows: Option<Vec<usize>>,
    /// `[column]` -> one array per row group, once read.
    columns: Vec<Option<Arc<Vec<ArrayRef>>>>,
    /// The bytes of the columns read from disk, held in the database's
    /// memory pool while they are in memory.
    held: Vec<PoolReservation>,
    /// `[column]` -> which rows end in a space, for text columns whose pages
    /// storage worked that out for as it read them.
    ends_in_space: Vec<Option<SpaceEnds>>,
    /// All columns as batches, once asked for.
    full: Option<Arc<Vec<RecordBatch>>>,
    zones: Option<Arc<ZoneMaps>>,
}

impl Stored {
    /// The trailing-space bitmaps of `columns` (empty when none has any).
    fn ends_in_space_of(&self, columns: &[usize]) -> Vec<Option<SpaceEnds>> {
        let bits: Vec<Option<SpaceEnds>> = columns
            .iter()
            .map(|&c| self.ends_in_space.get(c).cloned().flatten())
            .collect();
        match bits.iter().any(Option::is_some) {
            true => bits,
            false => Vec::new(),
        }
    }

    fn from_batches(ncols: usize, batches: &[RecordBatch], zones: Option<Arc<ZoneMaps>>) -> Stored {
        Stored {
            file: None,
            group_rows: Some(batches.iter().map(|b| b.num_rows()).collect()),
            columns: (0..ncols)
                .map(|c| {
                    Some(Arc::new(
                        batches.iter().map(|b| b.column(c).clone()).collect(),
                    ))
                })
                .collect(),
            full: Some(Arc::new(batches.to_vec())),
            zones,
            ends_in_space: Vec::new(),
            held: Vec::new(),
        }
    }
}

fn zone_maps(layout: &quiver_storage::table_file::Layout, schema: &SchemaRef) -> Arc<ZoneMaps> {
    Arc::new(ZoneMaps {
        groups: layout
            .zone_stats(schema)
            .into_iter()
            .map(|g| {
                g.into_iter()
                    .map(|z| ColumnZone {
                        rows: z.rows,
                        null_count: z.null_count,
                        min: z.min,
                        max: z.max,
                        max_is_prefix: z.max_is_prefix,
                        collated: z.collated.map(|k| CollatedBounds {
                            collation: k.collation,
                            min: k.min,
                            max: k.max,
                            max_is_prefix: k.max_is_prefix,
                        }),
                        shape: z.shape,
                    })
                    .collect()
            })
            .collect(),
    })
}

impl Table {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The database (schema) the table is in.
    pub fn database(&self) -> &str {
        &self.database
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The table's folder (None for a table of an in-memory database).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Errors of the files name the table already (1877, 1812); others get
    /// its name in front.
    fn storage_error(&self, e: QuiverError) -> QuiverError {
        if e.code == 1877 || e.code == 1812 {
            return e;
        }
        QuiverError::new(
            e.code,
            e.sqlstate,
            format!("table '{}': {}", self.name, e.message),
        )
    }

    /// Opens the data file (first use) and reads the missing `columns`.
    fn load(&self, stored: &mut Stored, columns: &[usize]) -> Result<()> {
        let ncols = self.schema.fields().len();
        if stored.group_rows.is_none() {
            let dir = self
                .dir
                .as_ref()
                .ok_or_else(|| QuiverError::internal("in-memory table without data"))?;
            let file = quiver_storage::open_table(dir).map_err(|e| self.storage_error(e))?;
            match Stored::opened(&file, &self.schema) {
                Some(opened) => {
                    *stored = opened;
                    stored.file = Some(Arc::new(file));
                }
                None => {
                    // Format 1: one blob, read whole.
                    let batches = file.read_all().map_err(|e| self.storage_error(e))?;
                    *stored = Stored::from_batches(ncols, &batches, None);
                }
            }
        }
        let missing: Vec<usize> = columns
            .iter()
            .copied()
            .filter(|&c| stored.columns.get(c).is_some_and(|a| a.is_none()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if !missing.is_empty() {
            let file = stored
                .file
                .clone()
                .ok_or_else(|| QuiverError::internal("table columns missing"))?;
            let pages = file
                .read_column_pages(&missing)
                .map_err(|e| self.storage_error(e))?;
            // Pages in memory count against the database's pool, which the
            // queries of all its sessions share: reading a table that does
            // not fit is error 1041, not a process the system kills.
            let bytes: usize = pages
                .iter()
                .flatten()
                .map(|p| p.array.get_array_memory_size())
                .sum();
            stored.held.push(self.memory.reserve_owned(bytes)?);
            for (c, pages) in missing.into_iter().zip(pages) {
                let bits: Vec<Option<Arc<[u64]>>> =
                    pages.iter().map(|p| p.ends_in_space.clone()).collect();
                if bits.iter().any(Option::is_some) {
                    if let Some(slot) = stored.ends_in_space.get_mut(c) {
                        *slot = Some(Arc::new(bits));
                    }
                }
                stored.columns[c] = Some(Arc::new(pages.into_iter().map(|p| p.array).collect()));
            }
        }
        Ok(())
    }

    fn project(&self, stored: &Stored, columns: &[usize]) -> Option<Result<Vec<RecordBatch>>> {
        let rows = stored.group_rows.as_ref()?;
        let arrays: Vec<&Arc<Vec<ArrayRef>>> = columns
            .iter()
            .map(|&c| stored.columns.get(c)?.as_ref())
            .collect::<Option<_>>()?;
        let schema = match self.schema.project(columns) {
            Ok(s) => Arc::new(s),
            Err(e) => return Some(Err(e.into())),
        };
        Some(
            rows.iter()
                .enumerate()
                .map(|(g, &n)| {
                    Ok(RecordBatch::try_new_with_options(
                        schema.clone(),
                        arrays.iter().map(|a| a[g].clone()).collect(),
                        &RecordBatchOptions::new().with_row_count(Some(n)),
                    )?)
                })
                .collect(),
        )
    }

    /// The given columns (read from disk if need be), one batch per row
    /// group, and the zone maps of those row groups, taken under one lock.
    pub fn columns(&self, columns: &[usize]) -> Result<ScanBatches> {
        {
            let stored = self.stored.read().expect("table lock");
            if let Some(b) = self.project(&stored, columns) {
                return Ok(ScanBatches {
                    batches: Arc::new(b?),
                    zone_maps: stored.zones.clone(),
                    ends_in_space: stored.ends_in_space_of(columns),
                });
            }
        }
        let mut stored = self.stored.write().expect("table lock");
        self.load(&mut stored, columns)?;
        let batches = self
            .project(&stored, columns)
            .ok_or_else(|| QuiverError::internal("table columns missing after loading"))??;
        Ok(ScanBatches {
            batches: Arc::new(batches),
            zone_maps: stored.zones.clone(),
            ends_in_space: stored.ends_in_space_of(columns),
        })
    }

    pub fn data(&self) -> Result<Arc<Vec<RecordBatch>>> {
        if let Some(d) = self.stored.read().expect("table lock").full.as_ref() {
            return Ok(d.clone());
        }
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let mut stored = self.stored.write().expect("table lock");
        if let Some(d) = stored.full.as_ref() {
            return Ok(d.clone());
        }
        self.load(&mut stored, &all)?;
        let d = Arc::new(
            self.project(&stored, &all)
                .ok_or_else(|| QuiverError::internal("table columns missing after loading"))??,
        );
        stored.full = Some(d.clone());
        Ok(d)
    }

    /// The next AUTO_INCREMENT value kept for the table (0: none kept).
    pub fn auto_increment(&self) -> u64 {
        self.auto_increment.load(Ordering::Acquire)
    }

    /// Sets the next AUTO_INCREMENT value, kept on disk by the next write.
    pub fn set_auto_increment(&self, next: u64) {
        self.auto_increment.store(next, Ordering::Release);
    }

    /// Replaces the table's contents (persisting first for a folder database).
    pub fn replace(&self, batches: Vec<RecordBatch>) -> Result<()> {
        let ncols = self.schema.fields().len();
        let (stored, rows, distinct) = match &self.dir {
            Some(dir) => {
                let options = WriteOptions {
                    auto_increment: self.auto_increment(),
                    ..WriteOptions::default()
                };
                let w = quiver_storage::write_table_with(dir, &self.schema, &batches, &options)?;
                let zones = zone_maps(&w.layout, &self.schema);
                self.disk_generation
                    .store(w.meta.generation, Ordering::Release);
                (
                    Stored::from_batches(ncols, &w.row_groups, Some(zones)),
                    w.meta.rows,
                    w.meta.distinct,
                )
            }
            None => (
                Stored::from_batches(ncols, &batches, None),
                batches.iter().map(|b| b.num_rows()).sum(),
                quiver_storage::estimate_distinct(&self.schema, &batches),
            ),
        };
        *self.stored.write().expect("table lock") = stored;
        *self.rows.write().expect("table lock") = rows;
        *self.distinct.write().expect("table lock") = distinct;
        self.version.fetch_add(1, Ordering::Release);
        self.generation.fetch_add(1, Ordering::Release);
        Ok(())
    }
}

impl TableSource for Table {
    fn name(&self) -> &str {
        &self.name
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn row_count(&self) -> usize {
        *self.rows.read().expect("table lock")
    }
    fn distinct_estimate(&self, column: usize) -> Option<usize> {
        self.distinct
            .read()
            .expect("table lock")
            .get(column)
            .copied()
    }
    fn batches(&self) -> Result<Arc<Vec<RecordBatch>>> {
        self.data()
    }
    fn scan_batches(&self, columns: &[usize]) -> Result<ScanBatches> {
        self.columns(columns)
    }
}

/// A database: a folder on disk, or memory only.
#[derive(Debug)]
pub struct Database {
    dir: Option<PathBuf>,
    /// The databases (schemas), by [`key`]: `quiver` always.
    schemas: RwLock<BTreeMap<String, SchemaEntry>>,
    /// Tables by (database key, table key).
    tables: RwLock<BTreeMap<Qualified, Arc<Table>>>,
    views: RwLock<BTreeMap<Qualified, (String, String)>>,
    /// Tables whose manifest could not be read when the folder was opened:
    /// name, folder and the error a statement using them gets. The other
    /// tables stay usable; DROP TABLE removes such a table's files.
    damaged: RwLock<BTreeMap<Qualified, (String, PathBuf, QuiverError)>>,
    /// Moves on whenever a table or view is created, dropped or rewritten,
    /// so that a plan made before (a session's plan cache) is known stale.
    generation: Arc<AtomicU64>,
    /// COMMITs that published tables (see [`Database::commits`]).
    commits: AtomicU64,
    /// Writers of a database folder, across processes and threads.
    writer: Option<Writer>,
    /// What all queries over the database and the table pages read into
    /// memory may hold together (see [`Database::memory`]).
    memory: Arc<MemoryPool>,
}

/// One writer at a time per database folder: the threads of this process
/// take turns through `state`, processes through an exclusive lock on
/// `DIR/write.lock`. The file also holds a counter each writer moves on, so
/// another process sees at its next statement that the folder changed and
/// reads the catalog again.
#[derive(Debug)]
struct Writer {
    file: fs::File,
    state: Mutex<WriterState>,
    turn: Condvar,
    /// The counter as this process last read (or wrote) it.
    seen: AtomicU64,
}

#[derive(Debug, Default)]
struct WriterState {
    owner: Option<ThreadId>,
    /// Nested acquisitions by the owner (a statement, then the catalog call).
    depth: usize,
}

/// How long a write waits for another process's write to end: MySQL's
/// `innodb_lock_wait_timeout` default.
const LOCK_WAIT: Duration = Duration::from_secs(50);

/// Held while a statement writes a database folder; see [`Database::write_lock`].
pub struct WriteLock<'a> {
    db: &'a Database,
}

impl Drop for WriteLock<'_> {
    fn drop(&mut self) {
        if let Some(w) = &self.db.writer {
            let mut state = w.state.lock().expect("writer lock");
            state.depth -= 1;
            if state.depth == 0 {
                // Tell other processes, then let them in.
                let next = w.seen.load(Ordering::Acquire) + 1;
                if write_counter(&w.file, next).is_ok() {
                    w.seen.store(next, Ordering::Release);
                }
                let _ = w.file.unlock();
                state.owner = None;
                w.turn.notify_one();
            }
        }
    }
}

fn read_counter(file: &fs::File) -> u64 {
    use std::os::unix::fs::FileExt;
    let mut b = [0u8; 8];
    match file.read_exact_at(&mut b, 0) {
        Ok(()) => u64::from_le_bytes(b),
        Err(_) => 0,
    }
}

fn write_counter(file: &fs::File, v: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(&v.to_le_bytes(), 0)
}

/// A database's (schema's) name and the collation its new tables take
/// when they name none (`CREATE` / `ALTER DATABASE ... COLLATE`), kept in
/// its folder's `db.opt` as MySQL keeps it.
#[derive(Debug, Clone, PartialEq)]
struct SchemaEntry {
    name: String,
    collation: Collation,
}

/// A table's or view's key: its database's and its own, by [`key`].
type Qualified = (String, String);

type Scanned = (
    BTreeMap<String, SchemaEntry>,
    BTreeMap<Qualified, Arc<Table>>,
    BTreeMap<Qualified, (String, String)>,
    BTreeMap<Qualified, (String, PathBuf, QuiverError)>,
);

fn key(name: &str) -> String {
    name.to_lowercase()
}

fn qualified(database: &str, name: &str) -> Qualified {
    (key(database), key(name))
}

/// The folder of database `name` inside the database folder `root`.
fn schema_dir(root: &Path, name: &str) -> PathBuf {
    if key(name) == SCHEMA_NAME {
        root.to_path_buf()
    } else {
        root.join(DATABASES).join(file_name(name))
    }
}

/// MariaDB's 1049.
pub fn unknown_database(name: &str) -> QuiverError {
    QuiverError::new(1049, "42000", format!("Unknown database '{name}'"))
}

const MARKER: &str = "quiver.db";

impl Database {
    /// The catalog generation: equal values mean no table or view was
    /// created, dropped or written in between.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn bump(&self) {
        self.generation.fetch_add(1, Ordering::Release);
    }

    pub fn in_memory() -> Arc<Database> {
        let default = SchemaEntry {
            name: SCHEMA_NAME.to_string(),
            collation: quiver_plan::default_collation(),
        };
        Arc::new(Database {
            dir: None,
            schemas: RwLock::new(BTreeMap::from([(SCHEMA_NAME.to_string(), default)])),
            tables: Default::default(),
            views: Default::default(),
            damaged: Default::default(),
            generation: Default::default(),
            commits: Default::default(),
            writer: None,
            memory: Arc::new(MemoryPool::shared(
                quiver_exec::context::default_memory_limit(),
            )),
        })
    }

    /// The memory all queries over this database and the table pages read
    /// into memory share (`--memory-limit`, 60% of RAM by default).
    pub fn memory(&self) -> &Arc<MemoryPool> {
        &self.memory
    }

    /// Opens (creating if needed) the database in `dir`.
    pub fn open(dir: &Path) -> Result<Arc<Database>> {
        let io =
            |e: std::io::Error| QuiverError::io(&format!("database folder {}", dir.display()), e);
        fs::create_dir_all(dir.join("tables")).map_err(io)?;
        fs::create_dir_all(dir.join("views")).map_err(io)?;
        let marker = dir.join(MARKER);
        if !marker.exists() {
            fs::write(&marker, "quiver database 1\n").map_err(io)?;
        }
        // A folder this process may not write (read-only media, another
        // user's) is still read; a write to it then fails on its files.
        let writer = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join("write.lock"))
            .ok()
            .map(|file| Writer {
                seen: AtomicU64::new(read_counter(&file)),
                file,
                state: Mutex::new(WriterState::default()),
                turn: Condvar::new(),
            });
        // What killed writes left goes while no other process writes (one
        // that writes now looks the same, and removes its own when done).
        if let Some(w) = &writer {
            if w.file.try_lock().is_ok() {
                // A commit cut after its switch is finished first: its new
                // data files are no leftovers.
                let recovered = quiver_storage::commit::recover(dir);
                if recovered.is_err() {
                    let _ = w.file.unlock();
                }
                recovered?;
                quiver_storage::leftovers::remove_leftovers(dir);
                remove_schema_leftovers(&dir.join(DATABASES));
                let _ = w.file.unlock();
            }
        }
        let generation = Arc::new(AtomicU64::new(0));
        let memory = Arc::new(MemoryPool::shared(
            quiver_exec::context::default_memory_limit(),
        ));
        let none = |_: &Qualified| None;
        let none: Held = &none;
        let (schemas, tables, views, damaged) = match &writer {
            Some(w) => scan_steady(dir, &w.file, &generation, &memory, none)?,
            None => scan(dir, &generation, &memory, none)?,
        };
        Ok(Arc::new(Database {
            dir: Some(dir.to_path_buf()),
            schemas: RwLock::new(schemas),
            tables: RwLock::new(tables),
            views: RwLock::new(views),
            damaged: RwLock::new(damaged),
            generation,
            commits: Default::default(),
            writer,
            memory,
        }))
    }

    /// The collation of new tables of the default database that name none
    /// (and of their columns).
    pub fn default_collation(&self) -> Collation {
        self.schema_collation(SCHEMA_NAME)
            .unwrap_or_else(quiver_plan::default_collation)
    }

    /// `ALTER DATABASE ... COLLATE c` of the default database.
    pub fn set_default_collation(&self, c: Collation) -> Result<()> {
        self.set_schema_collation(SCHEMA_NAME, c)
    }

    /// The databases' names, sorted.
    pub fn schema_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .schemas
            .read()
            .expect("catalog lock")
            .values()
            .map(|s| s.name.clone())
            .collect();
        v.sort();
        v
    }

    /// Database `name` as it was created (its name's case), if it exists.
    pub fn schema_name(&self, name: &str) -> Option<String> {
        self.schemas
            .read()
            .expect("catalog lock")
            .get(&key(name))
            .map(|s| s.name.clone())
    }

    /// The default collation of database `name`, if it exists.
    pub fn schema_collation(&self, name: &str) -> Option<Collation> {
        self.schemas
            .read()
            .expect("catalog lock")
            .get(&key(name))
            .map(|s| s.collation)
    }

    /// `ALTER DATABASE name ... COLLATE c`: kept in the database's folder for
    /// the sessions that come after (a session keeps the default it began
    /// with, as a MariaDB connection keeps its database's until USE).
    pub fn set_schema_collation(&self, name: &str, c: Collation) -> Result<()> {
        let _writing = self.write_lock()?;
        let Some(entry) = self
            .schemas
            .read()
            .expect("catalog lock")
            .get(&key(name))
            .cloned()
        else {
            return Err(unknown_database(name));
        };
        if let Some(root) = &self.dir {
            write_db_opt(&schema_dir(root, &entry.name), c)?;
        }
        if let Some(e) = self
            .schemas
            .write()
            .expect("catalog lock")
            .get_mut(&key(name))
        {
            e.collation = c;
        }
        self.bump();
        Ok(())
    }

    /// CREATE DATABASE: false when it exists and `if_not_exists` (1007
    /// without). Its folder is made under another name and published by
    /// one rename, so a crash leaves no half-made database.
    pub fn create_schema(&self, name: &str, c: Collation, if_not_exists: bool) -> Result<bool> {
        check_database_name(name)?;
        let _writing = self.write_lock()?;
        if self.schema_name(name).is_some() {
            if if_not_exists {
                return Ok(false);
            }
            return Err(QuiverError::new(
                1007,
                "HY000",
                format!("Can't create database '{name}'; database exists"),
            ));
        }
        if let Some(root) = &self.dir {
            let io = |e| QuiverError::io("creating the database folder", e);
            let parent = root.join(DATABASES);
            let making = parent.join(format!(".new-{}", file_name(name)));
            let _ = fs::remove_dir_all(&making);
            fs::create_dir_all(making.join("tables")).map_err(io)?;
            fs::create_dir_all(making.join("views")).map_err(io)?;
            write_db_opt(&making, c)?;
            fs::rename(&making, schema_dir(root, name)).map_err(io)?;
        }
        self.schemas.write().expect("catalog lock").insert(
            key(name),
            SchemaEntry {
                name: name.to_string(),
                collation: c,
            },
        );
        self.bump();
        Ok(true)
    }

    /// DROP DATABASE with its tables and views: the number of tables and
    /// views it held, None when there is none and `if_exists` (1008 without). Its
    /// folder leaves the database folder in one rename before its files
    /// go, so a crash leaves it whole or gone.
    pub fn drop_schema(&self, name: &str, if_exists: bool) -> Result<Option<usize>> {
        let k = key(name);
        // Its tables are the folder's own (`DIR/tables`).
        if k == SCHEMA_NAME {
            return Err(QuiverError::not_supported(
                "DROP DATABASE of the folder's default database",
            ));
        }
        let _writing = self.write_lock()?;
        if self.schema_name(name).is_none() {
            if if_exists {
                return Ok(None);
            }
            return Err(QuiverError::new(
                1008,
                "HY000",
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
        }
        if let Some(root) = &self.dir {
            let io = |e| QuiverError::io("dropping the database folder", e);
            let from = schema_dir(root, name);
            let gone = root
                .join(DATABASES)
                .join(format!(".drop-{}", file_name(name)));
            let _ = fs::remove_dir_all(&gone);
            fs::rename(&from, &gone).map_err(io)?;
            fs::remove_dir_all(&gone).map_err(io)?;
        }
        self.schemas.write().expect("catalog lock").remove(&k);
        let mut tables = self.tables.write().expect("catalog lock");
        let before = tables.len();
        tables.retain(|(s, _), _| *s != k);
        let mut dropped = before - tables.len();
        drop(tables);
        let mut damaged = self.damaged.write().expect("catalog lock");
        let before = damaged.len();
        damaged.retain(|(s, _), _| *s != k);
        dropped += before - damaged.len();
        drop(damaged);
        // MariaDB counts views too (their .frm files).
        let mut views = self.views.write().expect("catalog lock");
        let before = views.len();
        views.retain(|(s, _), _| *s != k);
        dropped += before - views.len();
        drop(views);
        self.bump();
        Ok(Some(dropped))
    }

    /// Reads the catalog again if another process wrote the folder since
    /// this one last looked (one 8-byte read when it did not).
    pub fn sync_with_disk(&self) -> Result<()> {
        let Some(w) = &self.writer else {
            return Ok(());
        };
        let now = read_counter(&w.file);
        if now != w.seen.load(Ordering::Acquire) {
            self.refresh()?;
            w.seen.store(now, Ordering::Release);
        }
        Ok(())
    }

    /// Waits for the right to write the folder (other threads' and other
    /// processes' writes end first; error 1205 after [`LOCK_WAIT`]) and
    /// brings the catalog up to date. Nested calls on the holding thread
    /// return at once. An in-memory database needs no lock.
    pub fn write_lock(&self) -> Result<WriteLock<'_>> {
        let Some(w) = &self.writer else {
            return Ok(WriteLock { db: self });
        };
        let me = std::thread::current().id();
        let deadline = Instant::now() + LOCK_WAIT;
        let timeout = || {
            QuiverError::new(
                1205,
                "HY000",
                "Lock wait timeout exceeded; try restarting transaction",
            )
        };
        {
            let mut state = w.state.lock().expect("writer lock");
            if state.owner == Some(me) {
                state.depth += 1;
                return Ok(WriteLock { db: self });
            }
            while state.owner.is_some() {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(timeout());
                }
                state = w.turn.wait_timeout(state, left).expect("writer lock").0;
            }
            state.owner = Some(me);
            state.depth = 1;
        }
        // From here the guard's drop gives the turn back on every path.
        let guard = WriteLock { db: self };
        loop {
            match w.file.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(fs::TryLockError::WouldBlock) => return Err(timeout()),
                Err(fs::TryLockError::Error(e)) => {
                    return Err(QuiverError::io("locking the database folder", e))
                }
            }
        }
        if let Some(dir) = &self.dir {
            quiver_storage::commit::recover(dir)?;
        }
        self.refresh()?;
        w.seen.store(read_counter(&w.file), Ordering::Release);
        Ok(guard)
    }

    /// Makes the catalog what the folder holds: tables another process
    /// created, rewrote or dropped are taken from disk; the others keep
    /// what they have read.
    fn refresh(&self) -> Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        // Tables whose generation is held already are not opened again.
        let held = |q: &Qualified| {
            self.tables
                .read()
                .expect("catalog lock")
                .get(q)
                .map(|t| Some(t.disk_generation.load(Ordering::Acquire)))
        };
        let held: Held = &held;
        let (schemas, disk, views, damaged) = match &self.writer {
            Some(w) => scan_steady(dir, &w.file, &self.generation, &self.memory, held)?,
            None => scan(dir, &self.generation, &self.memory, held)?,
        };
        let mut changed = false;
        {
            let mut s = self.schemas.write().expect("catalog lock");
            changed |= *s != schemas;
            *s = schemas;
        }
        let mut tables = self.tables.write().expect("catalog lock");
        changed |= disk.len() != tables.len();
        let merged = disk
            .into_iter()
            .map(|(k, fresh)| {
                let kept = tables.get(&k).filter(|t| {
                    t.disk_generation.load(Ordering::Acquire)
                        == fresh.disk_generation.load(Ordering::Acquire)
                });
                match kept {
                    Some(t) => (k, t.clone()),
                    None => {
                        changed = true;
                        (k, fresh)
                    }
                }
            })
            .collect();
        *tables = merged;
        let mut v = self.views.write().expect("catalog lock");
        changed |= *v != views;
        *v = views;
        *self.damaged.write().expect("catalog lock") = damaged;
        if changed {
            self.bump();
        }
        Ok(())
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Table `name` of the default database.
    pub fn table(&self, name: &str) -> Option<Arc<Table>> {
        self.table_in(SCHEMA_NAME, name)
    }

    /// Table `name` of database `database`.
    pub fn table_in(&self, database: &str, name: &str) -> Option<Arc<Table>> {
        self.tables
            .read()
            .expect("catalog lock")
            .get(&qualified(database, name))
            .cloned()
    }

    /// The error of a table whose files could not be opened, if `name` is one.
    pub fn damaged(&self, name: &str) -> Option<QuiverError> {
        self.damaged_in(SCHEMA_NAME, name)
    }

    /// [`Database::damaged`] of a table of database `database`.
    pub fn damaged_in(&self, database: &str, name: &str) -> Option<QuiverError> {
        self.damaged
            .read()
            .expect("catalog lock")
            .get(&qualified(database, name))
            .map(|(_, _, e)| e.clone())
    }

    /// Tables (damaged ones too) and views of the default database.
    pub fn table_names(&self) -> Vec<String> {
        self.table_names_in(SCHEMA_NAME)
    }

    /// Tables (damaged ones too) and views of database `database`.
    pub fn table_names_in(&self, database: &str) -> Vec<String> {
        let d = key(database);
        let mut v: Vec<String> = self
            .tables
            .read()
            .expect("catalog lock")
            .iter()
            .filter(|((s, _), _)| *s == d)
            .map(|(_, t)| t.name.clone())
            .collect();
        v.extend(
            self.damaged
                .read()
                .expect("catalog lock")
                .iter()
                .filter(|((s, _), _)| *s == d)
                .map(|(_, (n, _, _))| n.clone()),
        );
        v.extend(
            self.views
                .read()
                .expect("catalog lock")
                .iter()
                .filter(|((s, _), _)| *s == d)
                .map(|(_, (n, _))| n.clone()),
        );
        v.sort();
        v
    }

    pub fn view_sql(&self, name: &str) -> Option<String> {
        self.view_sql_in(SCHEMA_NAME, name)
    }

    /// The text of view `name` of database `database`.
    pub fn view_sql_in(&self, database: &str, name: &str) -> Option<String> {
        self.views
            .read()
            .expect("catalog lock")
            .get(&qualified(database, name))
            .map(|(_, s)| s.clone())
    }

    fn exists(&self, database: &str, name: &str) -> bool {
        self.table_in(database, name).is_some()
            || self.view_sql_in(database, name).is_some()
            || self.damaged_in(database, name).is_some()
    }

    /// The database's name as created, or 1049.
    fn known_schema(&self, database: &str) -> Result<String> {
        self.schema_name(database)
            .ok_or_else(|| unknown_database(database))
    }

    /// Creates a table with `batches` as its contents.
    pub fn create_table(
        &self,
        name: &str,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
        if_not_exists: bool,
    ) -> Result<bool> {
        self.create_table_numbered(name, schema, batches, if_not_exists, 0)
    }

    /// [`Database::create_table`] whose AUTO_INCREMENT starts at
    /// `auto_increment` (0: at 1).
    pub fn create_table_numbered(
        &self,
        name: &str,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
        if_not_exists: bool,
        auto_increment: u64,
    ) -> Result<bool> {
        self.create_table_in(
            SCHEMA_NAME,
            name,
            schema,
            batches,
            if_not_exists,
            auto_increment,
        )
    }

    /// [`Database::create_table_numbered`] in database `database`.
    pub fn create_table_in(
        &self,
        database: &str,
        name: &str,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
        if_not_exists: bool,
        auto_increment: u64,
    ) -> Result<bool> {
        check_new_name(name)?;
        let _writing = self.write_lock()?;
        let database = self.known_schema(database)?;
        if self.exists(&database, name) {
            return if if_not_exists {
                Ok(false)
            } else {
                Err(QuiverError::table_exists(name))
            };
        }
        let dir = self.dir.as_ref().map(|d| {
            schema_dir(d, &database)
                .join("tables")
                .join(file_name(name))
        });
        let table = Arc::new(Table {
            name: name.to_string(),
            database: database.clone(),
            schema,
            rows: RwLock::new(0),
            distinct: RwLock::new(vec![]),
            stored: RwLock::new(Stored::default()),
            dir,
            generation: self.generation.clone(),
            disk_generation: AtomicU64::new(0),
            memory: self.memory.clone(),
            auto_increment: AtomicU64::new(auto_increment),
            version: AtomicU64::new(0),
        });
        table.replace(batches)?;
        self.tables
            .write()
            .expect("catalog lock")
            .insert(qualified(&database, name), table);
        self.bump();
        Ok(true)
    }

    /// ALTER TABLE / RENAME TABLE: table `name` becomes `new_name` (its
    /// folder renamed, one atomic step) or, with `rows`, holds `rows` of
    /// `schema` (a new generation of its files, switched atomically as any
    /// write). A statement does one or the other, so that a crash leaves
    /// the table as it was or as the statement made it.
    pub fn alter_table(
        &self,
        name: &str,
        new_name: &str,
        schema: SchemaRef,
        rows: Option<Vec<RecordBatch>>,
    ) -> Result<()> {
        self.alter_table_in((SCHEMA_NAME, name), (SCHEMA_NAME, new_name), schema, rows)
    }

    /// [`Database::alter_table`] of table `from` (database, name), which
    /// becomes `to`, in the same or another database.
    pub fn alter_table_in(
        &self,
        from: (&str, &str),
        to: (&str, &str),
        schema: SchemaRef,
        rows: Option<Vec<RecordBatch>>,
    ) -> Result<()> {
        let ((from_db, name), (to_db, new_name)) = (from, to);
        let _writing = self.write_lock()?;
        let old = self
            .table_in(from_db, name)
            .ok_or_else(|| QuiverError::unknown_table(&format!("{from_db}.{name}")))?;
        let to_db = self.known_schema(to_db)?;
        // A table in memory has no folder to read its rows again from.
        let rows = match (rows, &old.dir) {
            (None, None) => Some(old.data()?.as_ref().clone()),
            (rows, _) => rows,
        };
        let renamed = qualified(&to_db, new_name) != qualified(from_db, name);
        if renamed {
            check_new_name(new_name)?;
            if self.exists(&to_db, new_name) {
                return Err(QuiverError::table_exists(new_name));
            }
        }
        let dir = match (&self.dir, &old.dir) {
            (Some(d), Some(from)) if renamed => {
                let to = schema_dir(d, &to_db)
                    .join("tables")
                    .join(file_name(new_name));
                fs::rename(from, &to).map_err(|e| QuiverError::io("renaming table files", e))?;
                Some(to)
            }
            _ => old.dir.clone(),
        };
        let table = Arc::new(Table {
            name: new_name.to_string(),
            database: to_db.clone(),
            schema,
            rows: RwLock::new(*old.rows.read().expect("table lock")),
            distinct: RwLock::new(old.distinct.read().expect("table lock").clone()),
            // Read again from its (renamed) folder, or given below.
            stored: RwLock::new(Stored::default()),
            dir,
            generation: self.generation.clone(),
            disk_generation: AtomicU64::new(old.disk_generation.load(Ordering::Acquire)),
            memory: self.memory.clone(),
            auto_increment: AtomicU64::new(old.auto_increment()),
            version: AtomicU64::new(0),
        });
        if let Some(rows) = rows {
            table.replace(rows)?;
        }
        let mut tables = self.tables.write().expect("catalog lock");
        tables.remove(&qualified(from_db, name));
        tables.insert(qualified(&to_db, new_name), table);
        drop(tables);
        self.bump();
        Ok(())
    }

    /// Drops table `name`; false when there is none and `if_exists`.
    pub fn drop_table(&self, name: &str, if_exists: bool) -> Result<bool> {
        self.drop_table_in(SCHEMA_NAME, name, if_exists)
    }

    /// [`Database::drop_table`] of a table of database `database`.
    pub fn drop_table_in(&self, database: &str, name: &str, if_exists: bool) -> Result<bool> {
        let _writing = self.write_lock()?;
        let removed = self
            .tables
            .write()
            .expect("catalog lock")
            .remove(&qualified(database, name));
        match removed {
            Some(t) => {
                self.bump();
                if let Some(dir) = &t.dir {
                    fs::remove_dir_all(dir)
                        .map_err(|e| QuiverError::io("dropping table files", e))?;
                }
                Ok(true)
            }
            None => {
                let damaged = self
                    .damaged
                    .write()
                    .expect("catalog lock")
                    .remove(&qualified(database, name));
                match damaged {
                    Some((_, dir, _)) => {
                        self.bump();
                        fs::remove_dir_all(dir)
                            .map_err(|e| QuiverError::io("dropping table files", e))?;
                        Ok(true)
                    }
                    None if if_exists => Ok(false),
                    None => Err(QuiverError::unknown_table_drop(&format!(
                        "{database}.{name}"
                    ))),
                }
            }
        }
    }

    pub fn create_view(&self, name: &str, sql: &str, or_replace: bool) -> Result<()> {
        self.create_view_in(SCHEMA_NAME, name, sql, or_replace)
    }

    /// [`Database::create_view`] in database `database`.
    pub fn create_view_in(
        &self,
        database: &str,
        name: &str,
        sql: &str,
        or_replace: bool,
    ) -> Result<()> {
        check_new_name(name)?;
        let _writing = self.write_lock()?;
        let database = self.known_schema(database)?;
        if self.table_in(&database, name).is_some()
            || (self.view_sql_in(&database, name).is_some() && !or_replace)
        {
            return Err(QuiverError::table_exists(name));
        }
        if let Some(dir) = &self.dir {
            let path = schema_dir(dir, &database)
                .join("views")
                .join(format!("{}.sql", file_name(name)));
            let tmp = path.with_extension("sql.tmp");
            fs::write(&tmp, sql)
                .and_then(|_| fs::rename(&tmp, &path))
                .map_err(|e| QuiverError::io("writing view", e))?;
        }
        self.views.write().expect("catalog lock").insert(
            qualified(&database, name),
            (name.to_string(), sql.to_string()),
        );
        self.bump();
        Ok(())
    }

    /// Drops view `name`; false when there is none and `if_exists`.
    pub fn drop_view(&self, name: &str, if_exists: bool) -> Result<bool> {
        self.drop_view_in(SCHEMA_NAME, name, if_exists)
    }

    /// [`Database::drop_view`] of a view of database `database`.
    pub fn drop_view_in(&self, database: &str, name: &str, if_exists: bool) -> Result<bool> {
        let _writing = self.write_lock()?;
        if self.view_sql_in(database, name).is_none() && self.table_in(database, name).is_some() {
            return Err(QuiverError::new(
                1347,
                "HY000",
                format!("'{database}.{name}' is not VIEW"),
            ));
        }
        let removed = self
            .views
            .write()
            .expect("catalog lock")
            .remove(&qualified(database, name));
        match removed {
            Some((n, _)) => {
                self.bump();
                if let Some(dir) = &self.dir {
                    let _ = fs::remove_file(
                        schema_dir(dir, database)
                            .join("views")
                            .join(format!("{}.sql", file_name(&n))),
                    );
                }
                Ok(true)
            }
            None if if_exists => Ok(false),
            None => Err(QuiverError::unknown_table_drop(&format!(
                "{database}.{name}"
            ))),
        }
    }
}

impl quiver_sql::Catalog for Database {
    fn table(&self, name: &str) -> Option<Arc<dyn TableSource>> {
        Database::table(self, name).map(|t| t as Arc<dyn TableSource>)
    }

    fn table_in(&self, database: Option<&str>, name: &str) -> Option<Arc<dyn TableSource>> {
        Database::table_in(self, database.unwrap_or(SCHEMA_NAME), name)
            .map(|t| t as Arc<dyn TableSource>)
    }

    fn damaged(&self, name: &str) -> Option<QuiverError> {
        Database::damaged(self, name)
    }

    fn damaged_in(&self, database: Option<&str>, name: &str) -> Option<QuiverError> {
        Database::damaged_in(self, database.unwrap_or(SCHEMA_NAME), name)
    }

    fn functions(&self) -> &dyn quiver_plan::FunctionRegistry {
        &quiver_exec::functions::REGISTRY
    }

    fn view(&self, name: &str) -> Option<Query> {
        quiver_sql::Catalog::view_in(self, None, name)
    }

    fn view_in(&self, database: Option<&str>, name: &str) -> Option<Query> {
        parse_view(&self.view_sql_in(database.unwrap_or(SCHEMA_NAME), name)?)
    }
}

/// A view's stored text as its query.
pub(crate) fn parse_view(sql: &str) -> Option<Query> {
    let stmts = quiver_sql::parse_sql(sql).ok()?;
    match stmts.into_iter().next()? {
        quiver_sql::sqlparser::ast::Statement::Query(q) => Some(*q),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_named_like_paths_stay_in_the_database_folder() {
        let root = std::env::temp_dir().join(format!("quiver-names-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let dir = root.join("db");
        let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "a",
            arrow_schema::DataType::Int32,
            true,
        )]));
        {
            let db = Database::open(&dir).unwrap();
            for name in ["../../keep", "..", "a/b"] {
                db.create_table(name, schema.clone(), vec![], false)
                    .unwrap();
            }
            assert_eq!(
                db.create_table("", schema.clone(), vec![], false)
                    .unwrap_err()
                    .code,
                1103
            );
            assert_eq!(
                db.create_table("t ", schema.clone(), vec![], false)
                    .unwrap_err()
                    .code,
                1103
            );
        }
        // Nothing was written outside the folder, and every table is back
        // under its name when the folder is opened again.
        let outside: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(outside, vec![std::ffi::OsString::from("db")]);
        let db = Database::open(&dir).unwrap();
        assert_eq!(db.table_names(), vec!["..", "../../keep", "a/b"]);
        db.drop_table("../../keep", false).unwrap();
        assert!(Database::open(&dir).unwrap().table("../../keep").is_none());
        let _ = fs::remove_dir_all(&root);
    }
}
