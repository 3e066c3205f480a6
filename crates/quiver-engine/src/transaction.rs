//! Transactions: START TRANSACTION / BEGIN, COMMIT, ROLLBACK, autocommit,
//! SAVEPOINT, as InnoDB's tables have them.
//!
//! Inside a transaction (START TRANSACTION, or `autocommit = 0`) the first
//! write of a table makes a private copy of its committed rows in memory
//! (`Table::private_copy`); the transaction's writes change the copy, and
//! its queries read the copy wherever they name the table. Nothing reaches
//! the disk or other sessions before COMMIT, which publishes every copy at
//! once (`catalog/commit.rs`: one manifest switch, or a redo record for
//! several tables, so a crash leaves all or nothing). ROLLBACK, and a
//! session that ends (CLI exit, client disconnect), drop the copies: there
//! are no files to clean. A statement that fails inside a transaction
//! leaves the copy as it was (each statement replaces a copy once, at its
//! end), as InnoDB rolls back the statement only. Statements outside a
//! transaction take none of this: they write the table itself, as before.
//!
//! Isolation. Other sessions and processes see committed states only, and
//! a statement never sees part of a commit (a statement bound while a
//! commit published binds again). A transaction reads the tables it wrote
//! as it left them, and the others at their last committed state, at each
//! statement: snapshot reads per table from its first write, READ
//! COMMITTED for the tables it only read (InnoDB's REPEATABLE READ keeps
//! its first read's snapshot for those too: a known divergence).
//!
//! Conflicts. InnoDB locks rows: a second transaction writing a row the
//! first holds waits (1205 after `innodb_lock_wait_timeout`), or one of
//! them is rolled back with 1213 when they wait on each other. Quiver
//! versions whole tables and does not wait: a transaction whose table was
//! changed and committed by another session after it copied it gets 1213
//! "Deadlock found when trying to get lock; try restarting transaction"
//! at its next write of that table or at COMMIT, and is rolled back whole,
//! as InnoDB rolls back a deadlock's victim. So the first committer wins,
//! no committed write is lost, and retrying the transaction is the cure,
//! as it is for InnoDB's deadlocks. Writes to different rows of one table
//! conflict too (InnoDB would let both through).
//!
//! DDL, TRUNCATE and the other statements MariaDB commits implicitly
//! commit the open transaction first. AUTO_INCREMENT values a rolled-back
//! transaction took are not given back, as in InnoDB. SAVEPOINT keeps the
//! copies' contents (shared arrays, no copying of rows).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use arrow_array::RecordBatch;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_sql::sqlparser::ast::{Ident, Statement, TransactionAccessMode, TransactionMode};

use crate::catalog::{deadlock, TableWrite};
use crate::{Session, StatementResult, Table};

/// The open transaction of a session.
#[derive(Debug, Default)]
pub(crate) struct Transaction {
    /// START TRANSACTION READ ONLY: writes are 1792.
    read_only: bool,
    /// The tables it wrote, by (database, table) lowercase.
    tables: BTreeMap<(String, String), TableWrite>,
    /// SAVEPOINTs, oldest first, each with the copies' contents then.
    savepoints: Vec<(String, Vec<Saved>)>,
}

/// A copy's contents at a SAVEPOINT.
#[derive(Debug)]
struct Saved {
    key: (String, String),
    rows: Arc<Vec<RecordBatch>>,
    auto_increment: u64,
}

fn key(database: &str, name: &str) -> (String, String) {
    (database.to_lowercase(), name.to_lowercase())
}

impl Session {
    fn transaction(&self) -> std::sync::MutexGuard<'_, Option<Transaction>> {
        self.transaction.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a write now goes to the transaction's copies: inside START
    /// TRANSACTION, or while autocommit is off.
    fn writes_in_transaction(&self) -> bool {
        self.in_transaction.load(Relaxed) || !self.autocommit()
    }

    /// Marks the transaction open (or not), as `@@in_transaction` says.
    fn set_in_transaction(&self, open: bool) {
        if self.in_transaction.swap(open, Relaxed) != open {
            let mut vars = self.vars.lock().unwrap_or_else(|p| p.into_inner());
            let mut system = (*vars.system).clone();
            system.insert("in_transaction".into(), ScalarValue::Int64(open as i64));
            vars.system = Arc::new(system);
        }
    }

    /// The table `database`.`name` a write statement changes: the
    /// transaction's copy inside one (made at its first write), else the
    /// table itself. None when there is no such table.
    pub(crate) fn table_to_write(&self, database: &str, name: &str) -> Result<Option<Arc<Table>>> {
        if !self.writes_in_transaction() {
            return Ok(self.db.table_in(database, name));
        }
        self.set_in_transaction(true);
        let mut guard = self.transaction();
        let txn = guard.get_or_insert_with(Transaction::default);
        if txn.read_only {
            return Err(QuiverError::new(
                1792,
                "25006",
                "Cannot execute statement in a READ ONLY transaction",
            ));
        }
        let k = key(database, name);
        if let Some(w) = txn.tables.get(&k) {
            if !self.db.is_current(&w.base, w.version) {
                drop(guard);
                self.rollback();
                return Err(deadlock());
            }
            return Ok(Some(w.copy.clone()));
        }
        let Some(base) = self.db.table_in(database, name) else {
            return Ok(None);
        };
        let version = base.version();
        let copy = base.private_copy()?;
        txn.tables.insert(
            k,
            TableWrite {
                base,
                version,
                copy: copy.clone(),
            },
        );
        self.has_copies.store(true, Relaxed);
        Ok(Some(copy))
    }

    /// The transaction's copy of `database`.`name`, if it wrote the table:
    /// what its queries read instead of the table.
    pub(crate) fn copy_of(&self, database: &str, name: &str) -> Option<Arc<Table>> {
        if !self.has_copies.load(Relaxed) {
            return None;
        }
        self.transaction()
            .as_ref()?
            .tables
            .get(&key(database, name))
            .map(|w| w.copy.clone())
    }

    /// With autocommit off, a statement that read a table opens the
    /// transaction (MariaDB's `@@in_transaction` becomes 1).
    pub(crate) fn read_tables_in_transaction(&self, read_tables: bool) {
        if read_tables && !self.in_transaction.load(Relaxed) && !self.autocommit() {
            self.set_in_transaction(true);
        }
    }

    /// Statements MariaDB commits the open transaction before (DDL,
    /// TRUNCATE, ...): they commit it here too.
    pub(crate) fn commits_implicitly(stmt: &Statement) -> bool {
        matches!(
            stmt,
            Statement::CreateTable(_)
                | Statement::Truncate(_)
                | Statement::Drop { .. }
                | Statement::AlterTable(_)
                | Statement::RenameTable(_)
                | Statement::CreateView(_)
                | Statement::CreateIndex(_)
                | Statement::CreateDatabase { .. }
                | Statement::CreateSchema { .. }
                | Statement::AlterSchema(_)
                | Statement::LockTables { .. }
                | Statement::UnlockTables
        )
    }

    /// Commits the open transaction, if any (an implicit commit).
    pub(crate) fn commit_open(&self) -> Result<()> {
        let txn = self.transaction().take();
        self.has_copies.store(false, Relaxed);
        self.set_in_transaction(false);
        let Some(txn) = txn else {
            return Ok(());
        };
        let writes: Vec<TableWrite> = txn.tables.into_values().collect();
        if writes.is_empty() {
            return Ok(());
        }
        let committed = self.db.commit_tables(&writes);
        if committed.is_err() {
            for w in &writes {
                self.db.keep_auto_increment(w);
            }
        }
        committed
    }

    /// Drops the open transaction's changes.
    pub(crate) fn rollback(&self) {
        let txn = self.transaction().take();
        self.has_copies.store(false, Relaxed);
        self.set_in_transaction(false);
        for w in txn.iter().flat_map(|t| t.tables.values()) {
            self.db.keep_auto_increment(w);
        }
    }

    /// START TRANSACTION / BEGIN, COMMIT, ROLLBACK, SAVEPOINT and friends.
    pub(crate) fn transaction_statement(&self, stmt: &Statement) -> Result<StatementResult> {
        let done = Ok(StatementResult::Done { affected: 0 });
        match stmt {
            Statement::StartTransaction {
                modes, modifier, ..
            } => {
                if modifier.is_some() {
                    return Err(QuiverError::not_supported(stmt.to_string()));
                }
                let mut read_only = false;
                for m in modes {
                    match m {
                        TransactionMode::AccessMode(TransactionAccessMode::ReadOnly) => {
                            read_only = true
                        }
                        TransactionMode::AccessMode(TransactionAccessMode::ReadWrite) => {}
                        // MariaDB's START TRANSACTION takes no isolation level.
                        TransactionMode::IsolationLevel(_) => {
                            return Err(QuiverError::syntax_msg(
                                "START TRANSACTION ISOLATION LEVEL".to_string(),
                            ))
                        }
                    }
                }
                // BEGIN inside a transaction commits it first.
                self.commit_open()?;
                *self.transaction() = Some(Transaction {
                    read_only,
                    ..Transaction::default()
                });
                self.set_in_transaction(true);
                done
            }
            Statement::Commit { chain, .. } => {
                let read_only = self.transaction().as_ref().is_some_and(|t| t.read_only);
                self.commit_open()?;
                if *chain {
                    *self.transaction() = Some(Transaction {
                        read_only,
                        ..Transaction::default()
                    });
                    self.set_in_transaction(true);
                }
                done
            }
            Statement::Rollback {
                chain,
                savepoint: None,
            } => {
                let read_only = self.transaction().as_ref().is_some_and(|t| t.read_only);
                self.rollback();
                if *chain {
                    *self.transaction() = Some(Transaction {
                        read_only,
                        ..Transaction::default()
                    });
                    self.set_in_transaction(true);
                }
                done
            }
            Statement::Rollback {
                chain: false,
                savepoint: Some(name),
            } => self.rollback_to_savepoint(name).and(done),
            Statement::Savepoint { name } => {
                self.savepoint(name);
                done
            }
            Statement::ReleaseSavepoint { name } => {
                let mut guard = self.transaction();
                let at = guard
                    .as_ref()
                    .and_then(|t| find_savepoint(t, name))
                    .ok_or_else(|| no_savepoint(name))?;
                if let Some(t) = guard.as_mut() {
                    t.savepoints.truncate(at);
                }
                done
            }
            other => Err(QuiverError::not_supported(
                other
                    .to_string()
                    .split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" "),
            )),
        }
    }

    /// SAVEPOINT name: outside a transaction it does nothing (MariaDB keeps
    /// none); a savepoint of the same name is replaced.
    fn savepoint(&self, name: &Ident) {
        let mut guard = self.transaction();
        let Some(t) = guard.as_mut() else {
            return;
        };
        if let Some(at) = find_savepoint(t, name) {
            t.savepoints.remove(at);
        }
        let saved = t
            .tables
            .iter()
            .filter_map(|(k, w)| {
                Some(Saved {
                    key: k.clone(),
                    rows: w.copy.data().ok()?,
                    auto_increment: w.copy.auto_increment(),
                })
            })
            .collect();
        t.savepoints.push((name.value.clone(), saved));
    }

    /// ROLLBACK TO SAVEPOINT name: the copies as they were then (tables
    /// first written since are the committed ones again); the savepoints
    /// after it go, it stays.
    fn rollback_to_savepoint(&self, name: &Ident) -> Result<()> {
        let mut guard = self.transaction();
        let t = guard.as_mut().ok_or_else(|| no_savepoint(name))?;
        let at = find_savepoint(t, name).ok_or_else(|| no_savepoint(name))?;
        t.savepoints.truncate(at + 1);
        let saved = &t.savepoints[at].1;
        let mut kept = BTreeMap::new();
        for s in saved {
            if let Some(w) = t.tables.remove(&s.key) {
                w.copy.replace(s.rows.as_ref().clone())?;
                // AUTO_INCREMENT values taken since stay taken.
                w.copy
                    .set_auto_increment(w.copy.auto_increment().max(s.auto_increment));
                kept.insert(s.key.clone(), w);
            }
        }
        for w in t.tables.values() {
            self.db.keep_auto_increment(w);
        }
        t.tables = kept;
        Ok(())
    }
}

fn find_savepoint(t: &Transaction, name: &Ident) -> Option<usize> {
    t.savepoints
        .iter()
        .position(|(n, _)| n.eq_ignore_ascii_case(&name.value))
}

/// MariaDB's 1305 for a savepoint the transaction does not have.
fn no_savepoint(name: &Ident) -> QuiverError {
    QuiverError::new(
        1305,
        "42000",
        format!("SAVEPOINT {} does not exist", name.value),
    )
}

impl Drop for Session {
    /// A session that ends rolls its transaction back.
    fn drop(&mut self) {
        self.rollback();
    }
}
