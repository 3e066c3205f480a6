//! One client connection: handshake, authentication, then commands until the
//! client quits, goes silent past the timeout, or breaks the protocol.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::RecordBatch;
use quiver_common::{QuiverError, Result};
use quiver_engine::{Process, RowStream, Session, StreamedResult};
use quiver_sql::SqlSource;

use crate::auth::{Account, Plugin};
use crate::itemnames::ItemNames;
use crate::packet::{PacketIo, ReadError};
use crate::prepared::Prepared;
use crate::proto::{self, cap, status, Reader};
use crate::resultset::{self, column_definition, column_meta, ColumnMeta};
use crate::shared::Shared;
use crate::sqltext;
use crate::sqltext::AccountStmt;

mod com {
    pub const QUIT: u8 = 0x01;
    pub const INIT_DB: u8 = 0x02;
    pub const QUERY: u8 = 0x03;
    pub const FIELD_LIST: u8 = 0x04;
    pub const STATISTICS: u8 = 0x09;
    pub const PING: u8 = 0x0E;
    pub const STMT_PREPARE: u8 = 0x16;
    pub const STMT_EXECUTE: u8 = 0x17;
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const STMT_CLOSE: u8 = 0x19;
    pub const STMT_RESET: u8 = 0x1A;
    pub const SET_OPTION: u8 = 0x1B;
    pub const RESET_CONNECTION: u8 = 0x1F;
}

/// Results are sent as they are encoded, once this many bytes are queued.
const FLUSH_AT: usize = 256 * 1024;

/// Prepared statements one connection may hold (MySQL's default
/// max_prepared_stmt_count, there for the whole server).
const MAX_PREPARED: usize = 16382;

/// Where a connection stands after a command.
enum Next {
    Continue,
    Close,
}

pub trait Stream: Read + Write {
    fn set_read_timeout(&self, d: Duration) -> io::Result<()>;
    fn shutdown_write(&self);
}

impl Stream for std::net::TcpStream {
    fn set_read_timeout(&self, d: Duration) -> io::Result<()> {
        std::net::TcpStream::set_read_timeout(self, Some(d))
    }
    fn shutdown_write(&self) {
        let _ = self.shutdown(std::net::Shutdown::Write);
    }
}

pub struct Conn<S: Stream> {
    io: PacketIo<S>,
    shared: Arc<Shared>,
    id: u32,
    caps: u32,
    session: Session,
    user: String,
    peer: String,
    multi_statements: bool,
    stmts: HashMap<u32, Prepared>,
    next_stmt: u32,
    /// The collation id of the client's handshake.
    collation: u8,
    /// A second handle on the socket (the watchdog polls it, KILL shuts it).
    control: Option<Arc<std::net::TcpStream>>,
    /// `address:port` of the client.
    host: String,
    /// This connection in the process list, once authenticated.
    process: Option<Arc<Process>>,
    /// While a prepared statement executes: its result columns' names.
    names: Option<ItemNames>,
}

impl<S: Stream> Drop for Conn<S> {
    fn drop(&mut self) {
        if let Some(p) = &self.process {
            self.shared.processes.remove(p.id);
            self.shared
                .sockets
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&p.id);
        }
    }
}

/// What one piece of a COM_QUERY is, before it runs.
enum Parsed {
    /// An account statement, done.
    Done,
    Statements(Vec<quiver_sql::sqlparser::ast::Statement>),
}

fn protocol_error(e: ReadError) -> Option<QuiverError> {
    match e {
        ReadError::Io(_) => None,
        ReadError::TooLarge => Some(QuiverError::new(
            1153,
            "08S01",
            "Got a packet bigger than 'max_allowed_packet' bytes",
        )),
        ReadError::OutOfOrder { .. } => {
            Some(QuiverError::new(1156, "08S01", "Got packets out of order"))
        }
    }
}

fn internal(panic: Box<dyn std::any::Any + Send>) -> QuiverError {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into());
    QuiverError::new(1105, "HY000", format!("Internal error: {what}"))
}

impl<S: Stream> Conn<S> {
    pub fn new(stream: S, shared: Arc<Shared>, id: u32, peer: String) -> Self {
        let session = Session::new(shared.db.clone(), shared.engine.clone());
        Conn {
            io: PacketIo::new(stream, shared.config.max_allowed_packet),
            shared,
            id,
            caps: 0,
            session,
            user: String::new(),
            peer,
            multi_statements: false,
            stmts: HashMap::new(),
            next_stmt: 1,
            collation: 0,
            control: None,
            host: String::new(),
            process: None,
            names: None,
        }
    }

    /// The socket's second handle and the client's `address:port`.
    pub fn with_control(mut self, control: Option<Arc<std::net::TcpStream>>, host: String) -> Self {
        self.control = control;
        self.host = host;
        self
    }

    /// Lists the authenticated connection in the process list; KILL
    /// CONNECTION shuts its socket, which also ends a wait for the client.
    fn register(&mut self) {
        let process = self
            .shared
            .processes
            .register(self.id as u64, &self.user, &self.host);
        if let Some(control) = &self.control {
            let socket = control.clone();
            process.set_on_kill(Box::new(move || {
                let _ = socket.shutdown(std::net::Shutdown::Both);
            }));
            self.shared
                .sockets
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(self.id as u64, (control.clone(), process.clone()));
        }
        self.process = Some(process);
    }

    /// Marks a command running in the process list, with a fresh cancel flag.
    fn begin(&self, command: &'static str, info: &str) {
        if let Some(p) = &self.process {
            p.begin(command, Some(Arc::from(info)));
        }
    }

    fn end(&self) {
        if let Some(p) = &self.process {
            p.end();
        }
    }

    /// Serves the connection to its end. I/O errors end it quietly: the
    /// client is gone and nothing can be told to it.
    pub fn run(mut self) {
        let _ = self.serve();
    }

    fn serve(&mut self) -> io::Result<()> {
        let cfg = &self.shared.config;
        self.io.get_ref().set_read_timeout(cfg.connect_timeout)?;
        if !self.handshake()? {
            return Ok(());
        }
        self.io
            .get_ref()
            .set_read_timeout(self.shared.config.wait_timeout)?;
        loop {
            self.io.seq = 0;
            let payload = match self.io.read_payload() {
                Ok(p) => p,
                Err(e) => {
                    if let Some(err) = protocol_error(e) {
                        self.send_error(&err)?;
                        self.linger();
                    }
                    return Ok(());
                }
            };
            self.shared.questions.fetch_add(1, Ordering::Relaxed);
            match self.command(&payload)? {
                Next::Continue => {}
                Next::Close => return Ok(()),
            }
        }
    }

    /// Before closing on a protocol error: stop writing and read (and drop)
    /// what the client is still sending, for a moment, so that the close does
    /// not reset the connection and lose the ERR packet on its way.
    fn linger(&mut self) {
        let stream = self.io.get_mut();
        stream.shutdown_write();
        if stream.set_read_timeout(Duration::from_millis(500)).is_err() {
            return;
        }
        let start = std::time::Instant::now();
        let mut sink = [0u8; 64 * 1024];
        while start.elapsed() < Duration::from_secs(2) {
            match stream.read(&mut sink) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    }

    fn send_error(&mut self, e: &QuiverError) -> io::Result<()> {
        self.io.write_payload(&proto::err_packet(e));
        self.io.flush()
    }

    fn status(&self, more: bool) -> u16 {
        status::AUTOCOMMIT | if more { status::MORE_RESULTS_EXISTS } else { 0 }
    }

    /// An OK of no statement (a ping, the handshake, ...): no warnings.
    fn send_ok(&mut self, affected: u64, more: bool) {
        self.send_ok_counting(affected, more, 0, 0);
    }

    /// The OK that ends a statement, with the first AUTO_INCREMENT value it
    /// generated (0: none) and the warnings it raised.
    fn send_ok_counting(&mut self, affected: u64, more: bool, insert_id: u64, warnings: u64) {
        let s = self.status(more);
        self.io
            .write_payload(&proto::ok_packet(0, affected, insert_id, s, warnings));
    }

    /// The EOF that ends column definitions (only without DEPRECATE_EOF).
    fn columns_end(&mut self) {
        if self.caps & cap::DEPRECATE_EOF == 0 {
            let s = self.status(false);
            self.io.write_payload(&proto::eof_packet(s, 0));
        }
    }

    /// The packet that ends rows: an EOF, or an OK with the EOF header;
    /// `warnings` the statement raised.
    fn rows_end(&mut self, more: bool, warnings: u64) {
        let s = self.status(more);
        if self.caps & cap::DEPRECATE_EOF == 0 {
            self.io.write_payload(&proto::eof_packet(s, warnings));
        } else {
            self.io
                .write_payload(&proto::ok_packet(0xFE, 0, 0, s, warnings));
        }
    }

    // ---- connection phase ----

    fn nonce() -> [u8; 20] {
        let mut n = [0u8; 20];
        if getrandom::fill(&mut n).is_err() {
            // No OS randomness: still distinct per connection, if predictable.
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            for (i, b) in n.iter_mut().enumerate() {
                *b = (t >> (i % 16 * 8)) as u8 ^ i as u8;
            }
        }
        // Printable-range bytes without NUL or '$', as MySQL makes them.
        for b in n.iter_mut() {
            *b &= 0x7F;
            if *b == 0 || *b == b'$' {
                *b += 1;
            }
        }
        n
    }

    /// Handshake and authentication; false when the connection must close.
    fn handshake(&mut self) -> io::Result<bool> {
        let nonce = Self::nonce();
        let mut p = vec![10u8];
        p.extend_from_slice(self.shared.config.version.as_bytes());
        p.push(0);
        p.extend_from_slice(&self.id.to_le_bytes());
        p.extend_from_slice(&nonce[..8]);
        p.push(0);
        p.extend_from_slice(&(cap::SERVER as u16).to_le_bytes());
        p.push(quiver_collation::Collation::utf8mb4_bin().id() as u8);
        p.extend_from_slice(&status::AUTOCOMMIT.to_le_bytes());
        p.extend_from_slice(&((cap::SERVER >> 16) as u16).to_le_bytes());
        p.push(21);
        p.extend_from_slice(&[0; 10]);
        p.extend_from_slice(&nonce[8..]);
        p.push(0);
        p.extend_from_slice(crate::auth::CACHING_SHA2.as_bytes());
        p.push(0);
        self.io.write_payload(&p);
        self.io.flush()?;

        let response = match self.io.read_payload() {
            Ok(r) => r,
            Err(e) => {
                if let Some(err) = protocol_error(e) {
                    self.send_error(&err)?;
                    self.linger();
                }
                return Ok(false);
            }
        };
        let hello = match parse_handshake_response(&response) {
            Ok(h) => h,
            Err(e) => {
                self.send_error(&e)?;
                return Ok(false);
            }
        };
        self.caps = hello.caps & cap::SERVER;
        self.user = hello.user.clone();
        self.multi_statements = self.caps & cap::MULTI_STATEMENTS != 0;

        let account = self.shared.accounts.get(&hello.user);
        // The plugin the account needs; an unknown user goes through the same
        // steps so that the answer does not tell which users exist.
        let plugin = account.as_ref().map(|a| a.plugin).unwrap_or(Plugin::Native);
        let mut auth_data = hello.auth;
        let client_plugin = hello.plugin.as_deref().and_then(Plugin::from_name);
        if hello.plugin.is_some() && client_plugin != Some(plugin)
            || hello.plugin.is_none() && plugin != Plugin::Native
        {
            // AuthSwitchRequest: the account's plugin over the same nonce.
            let mut sw = vec![0xFE];
            sw.extend_from_slice(plugin.name().as_bytes());
            sw.push(0);
            sw.extend_from_slice(&nonce);
            sw.push(0);
            self.io.write_payload(&sw);
            self.io.flush()?;
            auth_data = match self.io.read_payload() {
                Ok(d) => d,
                Err(e) => {
                    if let Some(err) = protocol_error(e) {
                        self.send_error(&err)?;
                    }
                    return Ok(false);
                }
            };
        }
        let ok = account
            .as_ref()
            .is_some_and(|a: &Account| a.verify(&nonce, &auth_data));
        if !ok {
            let e = QuiverError::new(
                1045,
                "28000",
                format!(
                    "Access denied for user '{}'@'{}' (using password: {})",
                    hello.user,
                    self.peer,
                    if auth_data.is_empty() { "NO" } else { "YES" }
                ),
            );
            self.send_error(&e)?;
            return Ok(false);
        }
        self.register();
        self.session = self.new_session();
        self.collation = hello.collation;
        self.apply_client_collation();
        if plugin == Plugin::CachingSha2 && account.as_ref().is_some_and(|a| a.has_password()) {
            // AuthMoreData: fast_auth_success.
            self.io.write_payload(&[0x01, 0x03]);
        }
        if let Some(db) = hello.database.filter(|d| !d.is_empty()) {
            if let Err(e) = self.use_database(&db) {
                self.io.write_payload(&proto::err_packet(&e));
                self.io.flush()?;
                return Ok(false);
            }
        }
        self.send_ok(0, false);
        self.io.flush()?;
        Ok(true)
    }

    /// The collation the client named in its handshake becomes the
    /// connection's (statements, literals, results), as `SET NAMES` would
    /// make it; one the engine does not know is left aside and the
    /// connection stays utf8mb4.
    fn apply_client_collation(&mut self) {
        if let Some(c) = quiver_collation::Collation::from_id(self.collation as u16) {
            let sql = format!("SET NAMES {} COLLATE {}", c.charset().name(), c.name());
            let _ = self.session.execute(&sql);
        }
    }

    fn new_session(&self) -> Session {
        let session = Session::for_client(
            self.shared.db.clone(),
            self.shared.engine.clone(),
            &self.user,
            &self.peer,
            self.id as u64,
        );
        match &self.process {
            Some(p) => session.in_process_list(self.shared.processes.clone(), p.clone()),
            None => session,
        }
    }

    fn use_database(&mut self, name: &str) -> Result<()> {
        let quoted = format!("USE `{}`", name.replace('`', "``"));
        self.session.execute(&quoted).map(|_| ())
    }

    // ---- command phase ----

    fn command(&mut self, payload: &[u8]) -> io::Result<Next> {
        let next = self.command_inner(payload)?;
        // KILL CONNECTION (of this connection, by itself or by another).
        if self.process.as_ref().is_some_and(|p| p.is_killed()) {
            return Ok(Next::Close);
        }
        Ok(next)
    }

    fn command_inner(&mut self, payload: &[u8]) -> io::Result<Next> {
        let Some((&cmd, body)) = payload.split_first() else {
            self.send_error(&proto::malformed())?;
            return Ok(Next::Close);
        };
        match cmd {
            com::QUIT => return Ok(Next::Close),
            com::PING => self.send_ok(0, false),
            com::QUERY => self.query(body)?,
            com::INIT_DB => {
                match Self::client_text_of(body, self.session.client_charset(), "the database name")
                {
                    Ok(db) => match self.use_database(&db) {
                        Ok(()) => self.send_ok(0, false),
                        Err(e) => self.io.write_payload(&proto::err_packet(&e)),
                    },
                    Err(e) => self.io.write_payload(&proto::err_packet(&e)),
                }
            }
            com::FIELD_LIST => self.field_list(body),
            com::STATISTICS => {
                let s = format!(
                    "Uptime: {}  Threads: {}  Questions: {}",
                    self.shared.started.elapsed().as_secs(),
                    self.shared.active.load(Ordering::Relaxed),
                    self.shared.questions.load(Ordering::Relaxed)
                );
                self.io.write_payload(s.as_bytes());
            }
            com::SET_OPTION => {
                // As MariaDB: the option is the body's first two bytes, those
                // missing read as zero (a 1-byte body is option 0 or 1; it
                // reads past the body into the packet's NUL terminator),
                // bytes after them ignored.
                let byte = |i: usize| body.get(i).copied().unwrap_or(0);
                match u16::from_le_bytes([byte(0), byte(1)]) {
                    0 => self.multi_statements = true,
                    1 => self.multi_statements = false,
                    _ => {
                        self.send_error(&proto::unknown_command(cmd))?;
                        return Ok(Next::Continue);
                    }
                }
                let s = self.status(false);
                self.io.write_payload(&proto::eof_packet(s, 0));
            }
            com::RESET_CONNECTION => {
                self.session = self.new_session();
                self.apply_client_collation();
                self.stmts.clear();
                self.send_ok(0, false);
            }
            com::STMT_PREPARE => self.prepare(body),
            com::STMT_EXECUTE => self.execute(body)?,
            com::STMT_SEND_LONG_DATA => {
                // No response, also not on error (MySQL reports it at execute).
                let mut r = Reader::new(body);
                if let (Ok(id), Ok(param)) = (r.u32(), r.u16()) {
                    if let Some(s) = self.stmts.get_mut(&id) {
                        // All long data of a statement together stays within
                        // max_allowed_packet; beyond it the next execution
                        // fails (there is no reply to this command).
                        let held: usize = s.long_data.iter().flatten().map(|d| d.len()).sum();
                        let data = r.rest();
                        if held + data.len() > self.shared.config.max_allowed_packet {
                            s.long_data_overflow = true;
                        } else if let Some(slot) = s.long_data.get_mut(param as usize) {
                            slot.get_or_insert_with(Vec::new).extend_from_slice(data);
                        }
                    }
                }
                return Ok(Next::Continue);
            }
            com::STMT_CLOSE => {
                if let Ok(id) = Reader::new(body).u32() {
                    self.stmts.remove(&id);
                }
                return Ok(Next::Continue);
            }
            com::STMT_RESET => match Reader::new(body).u32() {
                Ok(id) => match self.stmts.get_mut(&id) {
                    Some(s) => {
                        s.long_data.iter_mut().for_each(|d| *d = None);
                        s.long_data_overflow = false;
                        self.send_ok(0, false);
                    }
                    None => self
                        .io
                        .write_payload(&proto::err_packet(&unknown_stmt(id, "mysqld_stmt_reset"))),
                },
                // A body shorter than the id: MariaDB reads past it (into
                // whatever follows) and names the handle it found there;
                // here it is read with zeros and, not being the one the
                // client meant, is not looked up.
                Err(_) => {
                    let mut id = [0u8; 4];
                    id[..body.len()].copy_from_slice(body);
                    let e = unknown_stmt(u32::from_le_bytes(id), "mysqld_stmt_reset");
                    self.io.write_payload(&proto::err_packet(&e));
                }
            },
            other => self
                .io
                .write_payload(&proto::err_packet(&proto::unknown_command(other))),
        }
        self.io.flush()?;
        Ok(Next::Continue)
    }

    /// Parses one piece of a COM_QUERY; an account statement runs here.
    fn parse_piece(&mut self, sql: &str) -> Result<Parsed> {
        if let Some(stmt) = sqltext::account_statement(sql)? {
            self.account_statement(stmt)?;
            return Ok(Parsed::Done);
        }
        Ok(Parsed::Statements(quiver_sql::parse_sql(sql)?))
    }

    /// Runs the statements of `sql` (one piece of a COM_QUERY, or an
    /// executed prepared statement) and sends each result as it is produced;
    /// false once one failed (its ERR sent), which ends a multi-statement.
    /// `more_after`: whether results of further pieces follow. The engine
    /// runs under a last guard against panics.
    fn run_and_send(&mut self, sql: &str, binary: bool, more_after: bool) -> io::Result<bool> {
        // A query this connection ran before, under the same conditions, runs
        // from its kept plan: no parsing, binding or optimizing.
        let kept = match catch_unwind(AssertUnwindSafe(|| self.session.execute_kept(sql))) {
            Ok(r) => r,
            Err(panic) => Some(Err(internal(panic))),
        };
        if let Some(result) = kept {
            return self.send_result(result, binary, more_after);
        }
        let parsed = match catch_unwind(AssertUnwindSafe(|| self.parse_piece(sql))) {
            Ok(r) => r,
            Err(panic) => Err(internal(panic)),
        };
        let stmts = match parsed {
            Ok(Parsed::Done) => {
                self.send_ok(0, more_after);
                return Ok(true);
            }
            Ok(Parsed::Statements(s)) => s,
            Err(e) => {
                // A syntax error (or a failed account statement) is the
                // statement's error in SHOW WARNINGS too.
                self.session.record_error(&e);
                self.io.write_payload(&proto::err_packet(&e));
                return Ok(false);
            }
        };
        if stmts.is_empty() {
            self.send_ok(0, more_after);
            return Ok(true);
        }
        let source = Arc::new(SqlSource::new(sql));
        let n = stmts.len();
        for (j, stmt) in stmts.iter().enumerate() {
            let more = more_after || j + 1 < n;
            let result = match catch_unwind(AssertUnwindSafe(|| {
                if n == 1 {
                    // The statement is the whole text: its plan can be kept.
                    self.session.execute_streaming_keeping_plan(stmt, &source)
                } else {
                    self.session.execute_streaming(stmt, &source)
                }
            })) {
                Ok(r) => r,
                Err(panic) => Err(internal(panic)),
            };
            if !self.send_result(result, binary, more)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Sends one statement's result (OK, rows or ERR); false if it failed.
    fn send_result(
        &mut self,
        result: Result<StreamedResult>,
        binary: bool,
        more: bool,
    ) -> io::Result<bool> {
        match result {
            Ok(StreamedResult::Done { affected }) => {
                let warnings = self.session.statement_warning_count();
                let insert_id = self.session.statement_insert_id();
                self.send_ok_counting(affected, more, insert_id, warnings);
                Ok(true)
            }
            Ok(StreamedResult::Rows(rows)) => self.send_rows(rows, binary, more),
            Err(e) => {
                self.io.write_payload(&proto::err_packet(&e));
                Ok(false)
            }
        }
    }

    fn account_statement(&mut self, stmt: AccountStmt) -> Result<()> {
        let accounts = &self.shared.accounts;
        let account = |auth: Option<&crate::sqltext::AuthSpec>,
                       current: Option<Plugin>|
         -> Result<Account> {
            let plugin = auth
                .and_then(|a| a.plugin)
                .or(current)
                .unwrap_or(Plugin::Native);
            let a = match auth {
                None => Account::with_password(plugin, ""),
                Some(spec) if spec.hashed => crate::auth::parse_accounts(
                    &format!("u {} {}", plugin.name(), spec.secret),
                    "IDENTIFIED AS",
                )
                .map_err(|_| {
                    QuiverError::new(
                        1827,
                        "HY000",
                        "The password hash doesn't have the expected format.",
                    )
                })?
                .remove("u")
                .expect("one account"),
                Some(spec) => Account::with_password(plugin, &spec.secret),
            };
            if !a.has_password() && !self.shared.allow_passwordless {
                return Err(QuiverError::new(
                    1819,
                    "HY000",
                    "Your password does not satisfy the current policy requirements: the server listens beyond loopback, so every account needs a password",
                ));
            }
            Ok(a)
        };
        match stmt {
            AccountStmt::Create {
                user,
                if_not_exists,
                auth,
            } => accounts.put(&user, account(auth.as_ref(), None)?, true, if_not_exists),
            AccountStmt::Alter {
                user,
                if_exists,
                auth,
            } => {
                let current = accounts.get(&user).map(|a| a.plugin);
                accounts.put(&user, account(Some(&auth), current)?, false, if_exists)
            }
            AccountStmt::Drop { users, if_exists } => {
                for u in users {
                    accounts.drop_user(&u, if_exists)?;
                }
                Ok(())
            }
            AccountStmt::SetPassword { user, password } => {
                let user = user.unwrap_or_else(|| self.user.clone());
                let Some(current) = accounts.get(&user) else {
                    return Err(QuiverError::new(
                        1133,
                        "28000",
                        "Can't find any matching row in the user table",
                    ));
                };
                let auth = crate::sqltext::AuthSpec {
                    plugin: Some(current.plugin),
                    secret: password,
                    hashed: false,
                };
                accounts.put(&user, account(Some(&auth), None)?, false, false)
            }
            AccountStmt::NoOp => Ok(()),
        }
    }

    /// A client's text (a statement, a database name) read in
    /// `character_set_client`: UTF-8 checked, or one character per byte for
    /// latin1 / ascii (`SET NAMES latin1`).
    fn client_text<'a>(&self, body: &'a [u8], what: &str) -> Result<std::borrow::Cow<'a, str>> {
        let charset = self.session.client_charset();
        let body = match Self::binary_literals_as_hex(body, charset) {
            std::borrow::Cow::Borrowed(b) => b,
            std::borrow::Cow::Owned(b) => {
                // Only hex digits replaced bytes: the rest reads as before.
                return Self::client_text_of(&b, charset, what).map(|s| s.into_owned().into());
            }
        };
        Self::client_text_of(body, charset, what)
    }

    /// `body` with its `_binary'..'` literals and plain strings that are not text in
    /// `charset` as X'..' (see [`crate::binary_literals`]); a single-byte
    /// charset reads any byte.
    fn binary_literals_as_hex(
        body: &[u8],
        charset: quiver_collation::Charset,
    ) -> std::borrow::Cow<'_, [u8]> {
        if quiver_collation::text::is_single_byte_text(charset) || body.is_ascii() {
            return std::borrow::Cow::Borrowed(body);
        }
        crate::binary_literals::rewrite(body, |b| std::str::from_utf8(b).is_ok())
    }

    fn client_text_of<'a>(
        body: &'a [u8],
        charset: quiver_collation::Charset,
        what: &str,
    ) -> Result<std::borrow::Cow<'a, str>> {
        if quiver_collation::text::is_single_byte_text(charset) && !body.is_ascii() {
            let mut s = String::new();
            quiver_collation::text::decode(charset, body, &mut s);
            return Ok(s.into());
        }
        std::str::from_utf8(body).map(Into::into).map_err(|_| {
            QuiverError::new(
                1300,
                "HY000",
                format!("Invalid {} character string in {what}", charset.name()),
            )
        })
    }

    fn query(&mut self, body: &[u8]) -> io::Result<()> {
        let sql = match self.client_text(body, "the query") {
            Ok(sql) => sql,
            Err(e) => {
                self.io.write_payload(&proto::err_packet(&e));
                return Ok(());
            }
        };
        self.begin("Query", &sql);
        let sent = self.query_pieces(&sql);
        self.end();
        sent
    }

    fn query_pieces(&mut self, sql: &str) -> io::Result<()> {
        let pieces = sqltext::split_statements(sql);
        if pieces.is_empty() {
            let e = QuiverError::new(1065, "42000", "Query was empty");
            self.io.write_payload(&proto::err_packet(&e));
            return Ok(());
        }
        if pieces.len() > 1 && !self.multi_statements {
            // As MySQL: without CLIENT_MULTI_STATEMENTS the second statement is a syntax error.
            let second = pieces[1].trim_start();
            self.io
                .write_payload(&proto::err_packet(&QuiverError::syntax(second, 1)));
            return Ok(());
        }
        for (i, piece) in pieces.iter().enumerate() {
            let last_piece = i + 1 == pieces.len();
            if !self.run_and_send(piece, false, !last_piece)? {
                break;
            }
        }
        Ok(())
    }

    fn schema_name(&self) -> String {
        self.session.current_database().unwrap_or_default()
    }

    /// The next batch of `rows`, with a last guard against panics (a
    /// one-partition plan runs on this thread as it is pulled).
    fn next_batch(rows: &mut RowStream) -> Option<Result<RecordBatch>> {
        match catch_unwind(AssertUnwindSafe(|| rows.next())) {
            Ok(next) => next,
            Err(panic) => Some(Err(internal(panic))),
        }
    }

    /// Sends a result set batch by batch as the engine produces it, flushing
    /// every `FLUSH_AT` bytes: a client that reads slowly holds the engine
    /// back (its partitions block on their small channels) instead of the
    /// result piling up here. An error before the first row is a plain ERR;
    /// one after rows were sent replaces the end of the result set, as MySQL
    /// does. False when the result ended in an error.
    fn send_rows(&mut self, mut rows: RowStream, binary: bool, more: bool) -> io::Result<bool> {
        let first = match Self::next_batch(&mut rows) {
            Some(Err(e)) => {
                self.io.write_payload(&proto::err_packet(&e));
                return Ok(false);
            }
            first => first,
        };
        let schema = rows.schema();
        self.io
            .write_payload(&resultset::column_count(schema.fields().len()));
        let mut types = Vec::with_capacity(schema.fields().len());
        let decimals: Vec<Option<usize>> = schema
            .fields()
            .iter()
            .map(|f| quiver_common::types::field_decimals(f))
            .collect();
        let years: Vec<bool> = schema
            .fields()
            .iter()
            .map(|f| quiver_common::types::prints_year_digits(f))
            .collect();
        let any_year = years.iter().any(|&y| y);
        let n = schema.fields().len();
        for (i, f) in schema.fields().iter().enumerate() {
            let mut meta = column_meta(f, "", "", self.session.results_collation());
            if let Some(name) = self.names.as_ref().and_then(|names| names.name(i, n)) {
                meta.name = name.to_string();
            }
            self.io.write_payload(&column_definition(&meta, false));
            types.push(meta.ty);
        }
        self.columns_end();
        let mut row = Vec::with_capacity(256);
        let results = self
            .session
            .results_collation()
            .map_or(quiver_collation::Charset::Utf8mb4, |c| c.charset());
        let mut next = first;
        while let Some(batch) = next {
            let b = match batch {
                Ok(b) => b,
                Err(e) => {
                    self.io.write_payload(&proto::err_packet(&e));
                    return Ok(false);
                }
            };
            // YEAR's text is four digits (0000).
            let text_columns = match any_year && !binary {
                true => match resultset::years_as_text(b.columns(), &years) {
                    Ok(c) => c,
                    Err(e) => {
                        self.session.add_error(&e);
                        self.io.write_payload(&proto::err_packet(&e));
                        return Ok(false);
                    }
                },
                false => b.columns().to_vec(),
            };
            for r in 0..b.num_rows() {
                row.clear();
                let encoded = if binary {
                    resultset::binary_row(b.columns(), &types, r, results, &mut row)
                } else {
                    resultset::text_row_fixed(&text_columns, &decimals, r, results, &mut row)
                };
                if let Err(e) = encoded {
                    self.session.add_error(&e);
                    self.io.write_payload(&proto::err_packet(&e));
                    return Ok(false);
                }
                self.io.write_payload(&row);
                if self.io.pending() >= FLUSH_AT {
                    self.flush_rows()?;
                }
            }
            drop(b);
            next = Self::next_batch(&mut rows);
        }
        // The rows are all computed: every warning is in.
        let warnings = self.session.statement_warning_count();
        self.rows_end(more, warnings);
        Ok(true)
    }

    /// Sends what is queued; SHOW PROCESSLIST says so while the client is slow.
    fn flush_rows(&mut self) -> io::Result<()> {
        if let Some(p) = &self.process {
            p.set_state("Sending to client");
        }
        let sent = self.io.flush();
        if let Some(p) = &self.process {
            p.set_state("executing");
        }
        sent
    }

    fn field_list(&mut self, body: &[u8]) {
        let mut r = Reader::new(body);
        let table = String::from_utf8_lossy(r.nul_str()).into_owned();
        // The rest: a LIKE-style wildcard for the column names (none: all).
        let wild = String::from_utf8_lossy(r.rest()).into_owned();
        let Some(t) = self.session.current_table(&table) else {
            let e =
                QuiverError::unknown_table(&format!("{}.{table}", self.session.current_schema()));
            self.io.write_payload(&proto::err_packet(&e));
            return;
        };
        let schema = self.schema_name();
        for f in t.schema().fields() {
            if !wild.is_empty() && !wildcard_matches(&wild, f.name()) {
                continue;
            }
            let meta = column_meta(f, &schema, &table, self.session.results_collation());
            self.io.write_payload(&column_definition(&meta, true));
        }
        self.rows_end(false, 0);
    }

    // ---- prepared statements ----

    fn prepare(&mut self, body: &[u8]) {
        match self.prepare_inner(body) {
            Ok(()) => {}
            Err(e) => {
                self.session.record_error(&e);
                self.io.write_payload(&proto::err_packet(&e))
            }
        }
    }

    /// The result columns of `sql` with NULL for each placeholder, when it
    /// is a query that binds; else none (they come with each execution).
    fn prepared_columns(&self, probe: &Prepared) -> Result<Vec<ColumnMeta>> {
        let placeholders = &probe.placeholders;
        let text = probe.substitute(&vec!["NULL".to_string(); placeholders.len()]);
        let stmts = match quiver_sql::parse_sql(&text) {
            Ok(s) => s,
            // NULL may not fit every place a value does (LIMIT ?): try a number.
            Err(e) => match quiver_sql::parse_sql(
                &probe.substitute(&vec!["1".to_string(); placeholders.len()]),
            ) {
                Ok(s) => s,
                Err(_) => return Err(e),
            },
        };
        let [quiver_sql::sqlparser::ast::Statement::Query(q)] = stmts.as_slice() else {
            return Ok(vec![]);
        };
        let q = q.clone();
        let plan = catch_unwind(AssertUnwindSafe(|| self.session.physical_plan(&q)));
        match plan {
            Ok(Ok(p)) => {
                let fields = p.schema().fields().clone();
                let n = fields.len();
                Ok(fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let mut meta = column_meta(f, "", "", self.session.results_collation());
                        if let Some(name) = probe.names.name(i, n) {
                            meta.name = name.to_string();
                        }
                        meta
                    })
                    .collect())
            }
            // Missing tables and columns are reported at prepare, as MySQL does.
            Ok(Err(e)) if matches!(e.code, 1146 | 1054) => Err(e),
            _ => Ok(vec![]),
        }
    }

    fn prepare_inner(&mut self, body: &[u8]) -> Result<()> {
        let sql = self.client_text(body, "the statement")?;
        let sql: &str = &sql;
        let pieces = sqltext::split_statements(sql);
        match pieces.len() {
            0 => return Err(QuiverError::new(1065, "42000", "Query was empty")),
            1 => {}
            _ => return Err(QuiverError::syntax(pieces[1].trim_start(), 1)),
        }
        if self.stmts.len() >= MAX_PREPARED {
            return Err(QuiverError::new(
                1461,
                "42000",
                format!("Can't create more than max_prepared_stmt_count statements (current value: {MAX_PREPARED})"),
            ));
        }
        let placeholders = sqltext::placeholders(sql);
        if placeholders.len() > u16::MAX as usize {
            return Err(QuiverError::new(
                1390,
                "HY000",
                "Prepared statement contains too many placeholders",
            ));
        }
        let stmt = Prepared::new(sql.to_string(), placeholders);
        let columns = if sqltext::account_statement(sql)?.is_some() {
            vec![]
        } else {
            self.prepared_columns(&stmt)?
        };
        let placeholders = &stmt.placeholders;
        let id = self.next_stmt;
        self.next_stmt = self.next_stmt.wrapping_add(1).max(1);
        let mut p = vec![0u8];
        p.extend_from_slice(&id.to_le_bytes());
        p.extend_from_slice(&(columns.len() as u16).to_le_bytes());
        p.extend_from_slice(&(placeholders.len() as u16).to_le_bytes());
        p.push(0);
        p.extend_from_slice(&0u16.to_le_bytes());
        self.io.write_payload(&p);
        if !placeholders.is_empty() {
            let param = ColumnMeta {
                name: "?".into(),
                org_name: String::new(),
                table: String::new(),
                org_table: String::new(),
                schema: String::new(),
                charset: resultset::BINARY_COLLATION,
                length: 0,
                ty: resultset::ty::VAR_STRING,
                flags: resultset::flag::BINARY,
                decimals: 0,
                names_in: quiver_collation::Charset::Utf8mb4,
            };
            for _ in 0..placeholders.len() {
                self.io.write_payload(&column_definition(&param, false));
            }
            self.columns_end();
        }
        if !columns.is_empty() {
            for c in &columns {
                self.io.write_payload(&column_definition(c, false));
            }
            self.columns_end();
        }
        self.stmts.insert(id, stmt);
        Ok(())
    }

    fn execute(&mut self, body: &[u8]) -> io::Result<()> {
        let client = self.session.client_charset();
        let sql = (|| {
            let mut r = Reader::new(body);
            let id = r.u32()?;
            let _flags = r.u8()?;
            let _iterations = r.u32()?;
            let stmt = self
                .stmts
                .get_mut(&id)
                .ok_or_else(|| unknown_stmt(id, "mysqld_stmt_execute"))?;
            let values = stmt.read_params(&mut r, client)?;
            Ok((stmt.substitute(&values), stmt.names.clone()))
        })();
        match sql {
            Ok((sql, names)) => {
                self.begin("Execute", &sql);
                self.names = Some(names);
                let sent = self.run_and_send(&sql, true, false);
                self.names = None;
                self.end();
                sent?;
            }
            Err(e) => self.io.write_payload(&proto::err_packet(&e)),
        }
        Ok(())
    }
}

/// Whether `name` matches COM_FIELD_LIST's `wild` as MySQL matches it: `%`
/// any characters, `_` one, a backslash takes the next one literally, letters
/// in either case. Dynamic programming over the two, so no pattern is slow.
fn wildcard_matches(wild: &str, name: &str) -> bool {
    enum P {
        Any,
        One,
        Lit(char),
    }
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let mut pattern = vec![];
    let mut chars = wild.chars();
    while let Some(c) = chars.next() {
        pattern.push(match c {
            '%' => P::Any,
            '_' => P::One,
            '\\' => P::Lit(fold(chars.next().unwrap_or('\\'))),
            c => P::Lit(fold(c)),
        });
    }
    let name: Vec<char> = name.chars().map(fold).collect();
    // matched[j]: the pattern so far matches the first j characters.
    let mut matched = vec![false; name.len() + 1];
    matched[0] = true;
    for p in &pattern {
        let mut next = vec![false; name.len() + 1];
        for j in 0..=name.len() {
            next[j] = match p {
                P::Any => matched[j] || (j > 0 && next[j - 1]),
                P::One => j > 0 && matched[j - 1],
                P::Lit(c) => j > 0 && matched[j - 1] && name[j - 1] == *c,
            };
        }
        matched = next;
    }
    matched[name.len()]
}

/// 1243: no prepared statement `id`; `command` is the server function
/// MariaDB names (mysqld_stmt_execute, mysqld_stmt_reset).
fn unknown_stmt(id: u32, command: &str) -> QuiverError {
    QuiverError::new(
        1243,
        "HY000",
        format!("Unknown prepared statement handler ({id}) given to {command}"),
    )
}

struct HandshakeResponse {
    caps: u32,
    collation: u8,
    user: String,
    auth: Vec<u8>,
    database: Option<String>,
    plugin: Option<String>,
}

fn parse_handshake_response(p: &[u8]) -> Result<HandshakeResponse> {
    let mut r = Reader::new(p);
    let caps = r.u32()?;
    if caps & cap::PROTOCOL_41 == 0 {
        return Err(QuiverError::new(
            1043,
            "08S01",
            "Bad handshake: clients of protocol 4.1 or later only",
        ));
    }
    let _max_packet = r.u32()?;
    let collation = r.u8()?;
    r.take(23)?;
    if caps & cap::SSL != 0 && r.remaining() == 0 {
        return Err(QuiverError::new(
            1043,
            "08S01",
            "Bad handshake: this server has no TLS; connect without SSL",
        ));
    }
    let text = |b: &[u8]| {
        String::from_utf8(b.to_vec()).map_err(|_| QuiverError::new(1043, "08S01", "Bad handshake"))
    };
    let user = text(r.nul_str())?;
    let auth = if caps & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        r.lenenc_bytes()?.to_vec()
    } else if caps & cap::SECURE_CONNECTION != 0 {
        let n = r.u8()? as usize;
        r.take(n)?.to_vec()
    } else {
        r.nul_str().to_vec()
    };
    let database = if caps & cap::CONNECT_WITH_DB != 0 && r.remaining() > 0 {
        Some(text(r.nul_str())?)
    } else {
        None
    };
    let plugin = if caps & cap::PLUGIN_AUTH != 0 && r.remaining() > 0 {
        Some(text(r.nul_str())?)
    } else {
        None
    };
    // Connection attributes (CONNECT_ATTRS) are read by no one here; they
    // were checked to lie within the packet by its length.
    Ok(HandshakeResponse {
        caps,
        collation,
        user,
        auth,
        database,
        plugin,
    })
}
