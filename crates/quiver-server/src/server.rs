//! The listener: one thread per connection over one shared database, up to
//! a connection limit; and the watchdog that stops the query of a client
//! that went away.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use quiver_common::{QuiverError, Result};
use quiver_engine::{Database, EngineConfig, Process, ProcessList};

use crate::auth::Accounts;
use crate::conn::Conn;
use crate::packet::PacketIo;
use crate::proto;

#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on (`127.0.0.1` unless told otherwise).
    pub bind: String,
    /// 0 picks a free port (tests).
    pub port: u16,
    pub max_connections: usize,
    /// The longest packet accepted from a client (MySQL's max_allowed_packet).
    pub max_allowed_packet: usize,
    /// How long a connection may stay silent between commands.
    pub wait_timeout: Duration,
    /// How long the handshake may take.
    pub connect_timeout: Duration,
    /// How long a write to a client that does not read may block.
    pub net_write_timeout: Duration,
    /// An accounts file (see `auth::Accounts`); accounts created with CREATE
    /// USER live in the database folder's `users` file.
    pub users_file: Option<PathBuf>,
    /// The version announced in the handshake and by `@@version`.
    pub version: String,
}

/// The version the server announces: MySQL 8.0's protocol, so that MySQL 8
/// connectors take their modern paths, and Quiver's own version after it.
pub const SERVER_VERSION: &str = concat!("8.0.40-Quiver-", env!("CARGO_PKG_VERSION"));

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: "127.0.0.1".into(),
            port: 3306,
            max_connections: 151,
            max_allowed_packet: 64 << 20,
            wait_timeout: Duration::from_secs(28800),
            connect_timeout: Duration::from_secs(10),
            net_write_timeout: Duration::from_secs(60),
            users_file: None,
            version: SERVER_VERSION.into(),
        }
    }
}

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

    fn watch(self: Arc<Self>) {
        while !self.stopping.load(Ordering::SeqCst) {
            std::thread::sleep(WATCH_INTERVAL);
            self.stop_orphaned_commands();
        }
    }
}

pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// A server running on its own thread; `shutdown` stops accepting.
pub struct ServerHandle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

fn is_loopback(bind: &str, port: u16) -> Result<bool> {
    let addrs: Vec<SocketAddr> = (bind, port)
        .to_socket_addrs()
        .map_err(|e| QuiverError::io(&format!("cannot resolve --bind {bind}"), e))?
        .collect();
    Ok(!addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback()))
}

impl Server {
    /// Opens the accounts and the listening socket. Refuses to listen beyond
    /// loopback while an account has no password.
    pub fn bind(db: Arc<Database>, engine: EngineConfig, config: ServerConfig) -> Result<Server> {
        let store = db.dir().map(|d| d.join("users"));
        let accounts = Accounts::load(config.users_file.as_deref(), store)?;
        let loopback = is_loopback(&config.bind, config.port)?;
        let open = accounts.passwordless();
        if !loopback && !open.is_empty() {
            return Err(QuiverError::new(
                1105,
                "HY000",
                format!(
                    "refusing to listen on {}: account(s) {} have no password. Give every account a password (--users FILE, or CREATE USER / ALTER USER ... IDENTIFIED BY while serving on 127.0.0.1), or bind to a loopback address",
                    config.bind,
                    open.join(", ")
                ),
            ));
        }
        let listener = TcpListener::bind((config.bind.as_str(), config.port)).map_err(|e| {
            QuiverError::io(
                &format!("cannot listen on {}:{}", config.bind, config.port),
                e,
            )
        })?;
        Ok(Server {
            listener,
            shared: Arc::new(Shared {
                db,
                engine,
                config,
                accounts,
                allow_passwordless: loopback,
                next_id: AtomicU32::new(1),
                active: AtomicUsize::new(0),
                questions: AtomicU64::new(0),
                started: Instant::now(),
                stopping: AtomicBool::new(false),
                processes: ProcessList::new(),
                sockets: Mutex::new(HashMap::new()),
            }),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Accepts connections until `shutdown` (never, when run in the foreground).
    pub fn run(self) -> Result<()> {
        let shared = self.shared.clone();
        std::thread::Builder::new()
            .name("quiver-watchdog".into())
            .spawn(move || shared.watch())
            .map_err(|e| QuiverError::io("cannot start the watchdog thread", e))?;
        for stream in self.listener.incoming() {
            if self.shared.stopping.load(Ordering::SeqCst) {
                break;
            }
            match stream {
                Ok(s) => accept(s, &self.shared),
                // A connection that failed while queued (reset early): keep serving.
                Err(_) => continue,
            }
        }
        Ok(())
    }

    pub fn spawn(self) -> ServerHandle {
        let addr = self.local_addr();
        let shared = self.shared.clone();
        let thread = std::thread::Builder::new()
            .name("quiver-accept".into())
            .spawn(move || {
                let _ = self.run();
            })
            .expect("spawn the accept thread");
        ServerHandle {
            addr,
            shared,
            thread: Some(thread),
        }
    }
}

impl ServerHandle {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections being served now.
    pub fn active_connections(&self) -> usize {
        self.shared.active.load(Ordering::SeqCst)
    }

    /// Stops accepting connections (open ones finish on their own).
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept.
        let wake = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::from(([127, 0, 0, 1], self.addr.port()))
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, self.addr.port()))
            }
            _ => self.addr,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.stop();
        }
    }
}

/// Counts a connection while it lives, also when its thread unwinds.
struct ActiveGuard(Arc<Shared>);

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

fn accept(stream: TcpStream, shared: &Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(shared.config.net_write_timeout));
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    if shared.active.fetch_add(1, Ordering::SeqCst) >= shared.config.max_connections {
        shared.active.fetch_sub(1, Ordering::SeqCst);
        // Told instead of the handshake, as MySQL does.
        let mut io = PacketIo::new(stream, 0);
        io.write_payload(&proto::err_packet(&QuiverError::new(
            1040,
            "08004",
            "Too many connections",
        )));
        let _ = io.flush();
        return;
    }
    let guard = ActiveGuard(shared.clone());
    let shared = shared.clone();
    let peer_addr = stream.peer_addr().ok();
    let peer = peer_addr
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".into());
    // SHOW PROCESSLIST's Host: the client's address and port.
    let host = peer_addr
        .map(|a| a.to_string())
        .unwrap_or_else(|| "unknown".into());
    // A second handle on the socket: for the watchdog, and for KILL to shut.
    let control = stream.try_clone().ok().map(Arc::new);
    let spawned = std::thread::Builder::new()
        .name(format!("quiver-conn-{id}"))
        .spawn(move || {
            let _guard = guard;
            // The last guard: a panic ends this connection only.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                Conn::new(stream, shared, id, peer)
                    .with_control(control, host)
                    .run()
            }));
        });
    // No thread could be started: the guard (moved into the closure) was
    // dropped with it, so the count is right; the client sees the socket close.
    drop(spawned);
}
