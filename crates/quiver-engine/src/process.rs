//! Connections as `SHOW PROCESSLIST` and `information_schema.PROCESSLIST`
//! list them, and how `KILL` reaches them.
//!
//! A server registers each connection in one shared [`ProcessList`] and marks
//! each command it runs ([`Process::begin`] / [`Process::end`]); the command's
//! [`CancelToken`] is what `KILL QUERY` (and the server, for a client that went
//! away) sets. A session without a server has a process of its own that no
//! list holds.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use quiver_common::{QuiverError, Result};
use quiver_exec::context::CancelToken;

/// The connections of a server.
#[derive(Debug, Default)]
pub struct ProcessList {
    procs: Mutex<BTreeMap<u64, Arc<Process>>>,
}

impl ProcessList {
    pub fn new() -> Arc<ProcessList> {
        Arc::new(ProcessList::default())
    }

    /// Adds a connection; it stays listed until [`ProcessList::remove`].
    pub fn register(&self, id: u64, user: &str, host: &str) -> Arc<Process> {
        let p = Arc::new(Process::new(id, user, host));
        self.lock().insert(id, p.clone());
        p
    }

    pub fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    pub fn get(&self, id: u64) -> Option<Arc<Process>> {
        self.lock().get(&id).cloned()
    }

    /// Every connection, by id.
    pub fn all(&self) -> Vec<Arc<Process>> {
        self.lock().values().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Process>>> {
        self.procs.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One connection.
pub struct Process {
    pub id: u64,
    pub user: String,
    /// `host:port` of the client, as MySQL shows it.
    pub host: String,
    state: Mutex<ProcessState>,
    /// `KILL CONNECTION`: the connection must end.
    killed: AtomicBool,
    /// What a server does to end the connection at once (shut its socket).
    on_kill: Mutex<Option<Box<dyn Fn() + Send + Sync>>>,
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process")
            .field("id", &self.id)
            .field("user", &self.user)
            .field("host", &self.host)
            .finish()
    }
}

#[derive(Debug)]
struct ProcessState {
    db: Option<String>,
    /// `Sleep`, `Query`, `Execute`, ...
    command: &'static str,
    state: &'static str,
    info: Option<Arc<str>>,
    since: Instant,
    /// The running command's cancel flag; None between commands.
    running: Option<CancelToken>,
}

/// One row of the process list.
#[derive(Debug, Clone)]
pub struct ProcessRow {
    pub id: u64,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub command: &'static str,
    pub time: u64,
    pub state: &'static str,
    pub info: Option<Arc<str>>,
}

/// A command that a [`Process`] marks running until this is dropped.
pub struct CommandGuard<'a> {
    process: Option<&'a Process>,
}

impl Drop for CommandGuard<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.process {
            p.end();
        }
    }
}

impl Process {
    pub fn new(id: u64, user: &str, host: &str) -> Process {
        Process {
            id,
            user: user.to_string(),
            host: host.to_string(),
            state: Mutex::new(ProcessState {
                db: None,
                command: "Sleep",
                state: "",
                info: None,
                since: Instant::now(),
                running: None,
            }),
            killed: AtomicBool::new(false),
            on_kill: Mutex::new(None),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ProcessState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks `command` (with its statement text) running, with a new cancel
    /// flag, which it returns.
    pub fn begin(&self, command: &'static str, info: Option<Arc<str>>) -> CancelToken {
        let token = CancelToken::new();
        let mut s = self.lock();
        s.command = command;
        s.state = "executing";
        s.info = info;
        s.since = Instant::now();
        s.running = Some(token.clone());
        token
    }

    /// Between commands again.
    pub fn end(&self) {
        let mut s = self.lock();
        s.command = "Sleep";
        s.state = "";
        s.info = None;
        s.since = Instant::now();
        s.running = None;
    }

    /// Marks a statement running unless a command already is (a server
    /// marks its commands itself); the mark ends with the guard.
    pub fn statement(&self, info: &Arc<str>) -> CommandGuard<'_> {
        if self.lock().running.is_some() {
            return CommandGuard { process: None };
        }
        self.begin("Query", Some(info.clone()));
        CommandGuard {
            process: Some(self),
        }
    }

    /// The running command's cancel flag (a fresh one between commands).
    pub fn cancel_token(&self) -> CancelToken {
        self.lock().running.clone().unwrap_or_default()
    }

    /// What the connection does now (`State`): `executing`, `Sending to
    /// client` while the server waits for the client to read, ...
    pub fn set_state(&self, state: &'static str) {
        self.lock().state = state;
    }

    pub fn set_db(&self, db: Option<String>) {
        self.lock().db = db;
    }

    /// Whether a command runs now.
    pub fn is_running(&self) -> bool {
        self.lock().running.is_some()
    }

    /// `KILL QUERY`: stops the running statement, if any.
    pub fn kill_query(&self) {
        if let Some(t) = &self.lock().running {
            t.cancel();
        }
    }

    /// `KILL CONNECTION`: stops the running statement and ends the
    /// connection.
    pub fn kill_connection(&self) {
        self.killed.store(true, Ordering::SeqCst);
        self.kill_query();
        if let Some(f) = self
            .on_kill
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            f();
        }
    }

    /// Marks the connection to end after this command (a connection that
    /// kills itself still gets its answer).
    pub fn mark_killed(&self) {
        self.killed.store(true, Ordering::SeqCst);
    }

    pub fn is_killed(&self) -> bool {
        self.killed.load(Ordering::SeqCst)
    }

    /// What `KILL CONNECTION` does besides cancelling (a server shuts the
    /// socket so that a connection waiting for its client ends too).
    pub fn set_on_kill(&self, f: Box<dyn Fn() + Send + Sync>) {
        *self.on_kill.lock().unwrap_or_else(|p| p.into_inner()) = Some(f);
    }

    pub fn row(&self) -> ProcessRow {
        let s = self.lock();
        ProcessRow {
            id: self.id,
            user: self.user.clone(),
            host: self.host.clone(),
            db: s.db.clone(),
            command: s.command,
            time: s.since.elapsed().as_secs(),
            state: s.state,
            info: s.info.clone(),
        }
    }
}

/// MySQL's error for a KILL of an id no connection has.
pub fn unknown_thread(id: u64) -> QuiverError {
    QuiverError::new(1094, "HY000", format!("Unknown thread id: {id}"))
}

/// MariaDB's answer to a connection that kills itself.
pub fn connection_killed() -> QuiverError {
    QuiverError::new(1927, "70100", "Connection was killed")
}

/// `KILL [QUERY | CONNECTION] id` from the connection `me`. Every account may
/// kill every connection (there are no privileges; MySQL would ask for
/// CONNECTION_ADMIN to kill another user's).
pub fn kill(
    list: Option<&ProcessList>,
    me: &Arc<Process>,
    id: u64,
    connection: bool,
) -> Result<()> {
    let target = if id == me.id {
        Some(me.clone())
    } else {
        list.and_then(|l| l.get(id))
    };
    let Some(target) = target else {
        return Err(unknown_thread(id));
    };
    if Arc::ptr_eq(&target, me) {
        // The KILL itself is the statement being stopped.
        if connection {
            me.mark_killed();
            return Err(connection_killed());
        }
        return Err(quiver_exec::context::interrupted());
    }
    if connection {
        target.kill_connection();
    } else {
        target.kill_query();
    }
    Ok(())
}
