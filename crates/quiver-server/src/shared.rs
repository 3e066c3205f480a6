//! What every connection shares (the database, the settings, the accounts,
//! the counters, the process list), and the watchdog that stops the query
//! of a client that went away. Apart from `server.rs` so a connection can
//! reach it without reaching the listener that creates connections.

use std::collections::HashMap;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quiver_engine::{Database, EngineConfig, Process, ProcessList};

use crate::auth::Accounts;
use crate::config::ServerConfig;

/// What every connection shares.
pub(crate) struct Shared {
    pub db: Arc<Database>,
    pub engine: EngineConfig,
    pub config: ServerConfig,
    pub accounts: Accounts,
    /// Whether accounts without a password may exist (loopback only).
    pub allow_passwordless: bool,
    pub next_id: AtomicU32,
    pub active: AtomicUsize,
    pub questions: AtomicU64,
    pub started: Instant,
    pub stopping: AtomicBool,
    /// The connections, for SHOW PROCESSLIST and KILL.
    pub processes: Arc<ProcessList>,
    /// Each connection's socket, watched while it runs a command.
    pub sockets: Mutex<HashMap<u64, WatchedSocket>>,
}

/// A connection's second socket handle and its process-list entry.
pub(crate) type WatchedSocket = (Arc<TcpStream>, Arc<Process>);

/// How often the watchdog looks for clients that went away mid-query.
const WATCH_INTERVAL: Duration = Duration::from_millis(100);

impl Shared {
    /// Stops the running command of every connection whose client has
    /// closed its socket (or whose socket failed): MySQL's behaviour for a
    /// client that disconnects while its query runs. One `poll` over the
    /// sockets of the connections running a command, without waiting; a
    /// client that sends more (a pipelined command) still counts as there.
    fn stop_orphaned_commands(&self) {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        let running: Vec<WatchedSocket> = self
            .sockets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|(_, p)| p.is_running())
            .cloned()
            .collect();
        if running.is_empty() {
            return;
        }
        let mut fds: Vec<PollFd<'_>> = running
            .iter()
            .map(|(s, _)| PollFd::new(s.as_ref(), PollFlags::RDHUP))
            .collect();
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        if poll(&mut fds, Some(&now)).is_err() {
            return;
        }
        let gone = PollFlags::RDHUP | PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL;
        for (fd, (_, process)) in fds.iter().zip(&running) {
            if fd.revents().intersects(gone) {
                process.kill_query();
            }
        }
    }

    /// The watchdog thread's loop, until the server stops.
    pub(crate) fn watch(self: Arc<Self>) {
        while !self.stopping.load(Ordering::SeqCst) {
            std::thread::sleep(WATCH_INTERVAL);
            self.stop_orphaned_commands();
        }
    }
}
