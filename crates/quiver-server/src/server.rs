//! The listener: one thread per connection over one shared database, up to
//! a connection limit.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use quiver_common::{QuiverError, Result};
use quiver_engine::{Database, EngineConfig, ProcessList};

use crate::auth::Accounts;
use crate::config::ServerConfig;
use crate::conn::Conn;
use crate::packet::PacketIo;
use crate::proto;
use crate::shared::Shared;

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
        // --memory-limit is what the server's queries (and the table pages
        // read into memory) may hold together, as well as each query's
        // limit: many clients cannot take the process past it (1041).
        db.memory().set_limit(engine.memory_limit);
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
