//! The catalog's side of transactions (see `transaction.rs`): a private
//! copy of a table for a transaction to write, and COMMIT, which publishes
//! the copies of all the tables a transaction wrote at once.
//!
//! COMMIT stages every table's new generation (data file written and
//! fsynced), then switches them together (`quiver_storage::commit`: one
//! manifest rename for one table, a redo record for several), then puts
//! new `Table` values for them into the catalog under one lock. A query
//! bound before holds the old values, whose rows are all in memory (the
//! copies were made from them), so it reads the state before the commit
//! whole; a query bound after reads the state after it whole.

use super::*;

/// A table a transaction wrote: the committed table it copied (at
/// `version`), and its copy as the transaction left it.
#[derive(Debug, Clone)]
pub(crate) struct TableWrite {
    pub base: Arc<Table>,
    pub version: u64,
    pub copy: Arc<Table>,
}

/// InnoDB's answer when a transaction must be rolled back to let another
/// go on: what a transaction gets here when a table it wrote was changed
/// and committed by another since it copied it.
pub(crate) fn deadlock() -> QuiverError {
    QuiverError::new(
        1213,
        "40001",
        "Deadlock found when trying to get lock; try restarting transaction",
    )
}

impl Stored {
    /// A table opened from `file`, its columns not read yet (None for a
    /// format 1 file, read whole on first use).
    pub(super) fn opened(file: &quiver_storage::TableFile, schema: &SchemaRef) -> Option<Stored> {
        let ncols = schema.fields().len();
        Some(Stored {
            group_rows: Some(file.group_rows()?),
            zones: file.layout.as_ref().map(|l| zone_maps(l, schema)),
            columns: vec![None; ncols],
            ends_in_space: vec![None; ncols],
            ..Stored::default()
        })
    }

    /// The generation of the table in `dir` that `meta` names, opened now:
    /// the open file keeps that state readable when a later commit (of
    /// another process) removes it, so the tables of one scan of the folder
    /// are read as of one moment. A missing file is 1812 (a newer commit
    /// removed it: the scan is made again); damage is left to the first
    /// use, which reports it.
    pub(super) fn of_generation(dir: &Path, meta: &quiver_storage::TableMeta) -> Result<Stored> {
        match quiver_storage::open_table_as(dir, meta.clone()) {
            Ok(file) => Ok(match Stored::opened(&file, &meta.schema) {
                Some(mut s) => {
                    s.file = Some(Arc::new(file));
                    s
                }
                None => Stored::default(),
            }),
            Err(e) if e.code == 1812 => Err(e),
            Err(_) => Ok(Stored::default()),
        }
    }
}

impl Table {
    /// How many times the contents were replaced.
    pub(crate) fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// A copy of the table's rows in memory, for one transaction to write:
    /// nothing it does to the copy is seen by others or reaches the disk.
    pub(crate) fn private_copy(&self) -> Result<Arc<Table>> {
        let data = self.data()?;
        Ok(Arc::new(Table {
            name: self.name.clone(),
            database: self.database.clone(),
            schema: self.schema.clone(),
            rows: RwLock::new(self.row_count()),
            distinct: RwLock::new(self.distinct.read().expect("table lock").clone()),
            stored: RwLock::new(Stored::from_batches(
                self.schema.fields().len(),
                &data,
                None,
            )),
            dir: None,
            // Its own: writing it must not make other sessions' plans stale.
            generation: Arc::new(AtomicU64::new(0)),
            disk_generation: AtomicU64::new(0),
            memory: self.memory.clone(),
            auto_increment: AtomicU64::new(self.auto_increment()),
            version: AtomicU64::new(0),
        }))
    }

    /// The committed table that replaces this one, holding `stored`.
    fn successor(&self, stored: Stored, rows: usize, distinct: Vec<usize>, disk: u64) -> Table {
        Table {
            name: self.name.clone(),
            database: self.database.clone(),
            schema: self.schema.clone(),
            rows: RwLock::new(rows),
            distinct: RwLock::new(distinct),
            stored: RwLock::new(stored),
            dir: self.dir.clone(),
            generation: self.generation.clone(),
            disk_generation: AtomicU64::new(disk),
            memory: self.memory.clone(),
            auto_increment: AtomicU64::new(0),
            version: AtomicU64::new(self.version() + 1),
        }
    }
}

impl Database {
    /// Whether `base`, as it was at `version`, is still the table the
    /// catalog holds under its name.
    pub(crate) fn is_current(&self, base: &Arc<Table>, version: u64) -> bool {
        self.table_in(&base.database, &base.name)
            .is_some_and(|t| Arc::ptr_eq(&t, base))
            && base.version() == version
    }

    /// Publishes the copies of `writes` as the tables' new contents, all at
    /// once, or nothing (1213 when a base is no longer current).
    pub(crate) fn commit_tables(&self, writes: &[TableWrite]) -> Result<()> {
        let _writing = self.write_lock()?;
        if writes.iter().any(|w| !self.is_current(&w.base, w.version)) {
            return Err(deadlock());
        }
        let ncols = |t: &Table| t.schema.fields().len();
        let mut staged = Vec::new();
        let mut fresh = Vec::with_capacity(writes.len());
        for w in writes {
            let data = w.copy.data()?;
            let next = w.copy.auto_increment();
            let table = match &w.base.dir {
                Some(dir) => {
                    let options = WriteOptions {
                        auto_increment: next,
                        ..WriteOptions::default()
                    };
                    let s = quiver_storage::stage_table(dir, &w.base.schema, &data, &options)
                        .map_err(|e| w.base.storage_error(e))?;
                    let zones = zone_maps(&s.written.layout, &w.base.schema);
                    let t = w.base.successor(
                        Stored::from_batches(ncols(&w.base), &s.written.row_groups, Some(zones)),
                        s.written.meta.rows,
                        s.written.meta.distinct.clone(),
                        s.written.meta.generation,
                    );
                    staged.push(s);
                    t
                }
                None => w.base.successor(
                    Stored::from_batches(ncols(&w.base), &data, None),
                    data.iter().map(|b| b.num_rows()).sum(),
                    quiver_storage::estimate_distinct(&w.base.schema, &data),
                    0,
                ),
            };
            table.set_auto_increment(next);
            fresh.push(Arc::new(table));
        }
        if let Some(root) = &self.dir {
            quiver_storage::commit::publish_together(root, &staged, || {
                // Readers of other processes that scanned while the
                // manifests switched see the counter move and scan again.
                if let Some(w) = &self.writer {
                    let next = w.seen.load(Ordering::Acquire) + 1;
                    if write_counter(&w.file, next).is_ok() {
                        w.seen.store(next, Ordering::Release);
                    }
                }
            })?;
        }
        let mut tables = self.tables.write().expect("catalog lock");
        for t in fresh {
            tables.insert(qualified(&t.database, &t.name), t);
        }
        // Moved before the lock is let go: a statement that looked a table
        // up after the switch finds it moved when it is done binding.
        self.commits.fetch_add(1, Ordering::Release);
        drop(tables);
        self.bump();
        Ok(())
    }

    /// Moves on at every COMMIT that published tables: a statement bound
    /// while it moved binds again, so that it never reads some tables of a
    /// commit before it and others after.
    pub(crate) fn commits(&self) -> u64 {
        self.commits.load(Ordering::Acquire)
    }

    /// After a ROLLBACK: the AUTO_INCREMENT values the transaction took stay
    /// taken, as InnoDB does not give them back.
    pub(crate) fn keep_auto_increment(&self, w: &TableWrite) {
        let next = w.copy.auto_increment();
        if let Some(t) = self.table_in(&w.base.database, &w.base.name) {
            if next > t.auto_increment() {
                t.set_auto_increment(next);
            }
        }
    }
}
