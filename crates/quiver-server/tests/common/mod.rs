//! A small MySQL protocol client for the tests, written from the protocol
//! description (not from the server's code): handshake with either plugin,
//! auth switch, text and binary result sets, raw packets for malformed input.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use quiver_engine::{Database, EngineConfig};
use quiver_server::auth::{scramble, Plugin};
use quiver_server::{Server, ServerConfig, ServerHandle};

pub const CLIENT_PROTOCOL_41: u32 = 1 << 9;
pub const CLIENT_CONNECT_WITH_DB: u32 = 1 << 3;
pub const CLIENT_SECURE_CONNECTION: u32 = 1 << 15;
pub const CLIENT_MULTI_STATEMENTS: u32 = 1 << 16;
pub const CLIENT_MULTI_RESULTS: u32 = 1 << 17;
pub const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
pub const CLIENT_PLUGIN_AUTH_LENENC: u32 = 1 << 21;
pub const CLIENT_DEPRECATE_EOF: u32 = 1 << 24;

pub fn start(config: ServerConfig) -> (ServerHandle, Arc<Database>) {
    start_with(Database::in_memory(), config)
}

pub fn start_with(db: Arc<Database>, config: ServerConfig) -> (ServerHandle, Arc<Database>) {
    let engine = EngineConfig {
        threads: 2,
        ..EngineConfig::default()
    };
    let server =
        Server::bind(db.clone(), engine, ServerConfig { port: 0, ..config }).expect("server binds");
    (server.spawn(), db)
}

pub fn default_server() -> (ServerHandle, Arc<Database>) {
    start(ServerConfig::default())
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub charset: u16,
    pub length: u32,
    pub ty: u8,
    pub flags: u16,
    pub decimals: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Rows {
        columns: Vec<Column>,
        rows: Vec<Vec<Option<String>>>,
    },
    Ok {
        affected: u64,
    },
    Err {
        code: u16,
        state: String,
        message: String,
    },
}

impl Outcome {
    pub fn rows(&self) -> &Vec<Vec<Option<String>>> {
        match self {
            Outcome::Rows { rows, .. } => rows,
            other => panic!("expected rows, got {other:?}"),
        }
    }
    pub fn columns(&self) -> &Vec<Column> {
        match self {
            Outcome::Rows { columns, .. } => columns,
            other => panic!("expected rows, got {other:?}"),
        }
    }
    pub fn code(&self) -> u16 {
        match self {
            Outcome::Err { code, .. } => *code,
            other => panic!("expected an error, got {other:?}"),
        }
    }
    /// The single value of a one-row, one-column result.
    pub fn scalar(&self) -> Option<String> {
        let rows = self.rows();
        assert_eq!(rows.len(), 1, "{self:?}");
        rows[0][0].clone()
    }
}

pub struct Client {
    pub stream: TcpStream,
    pub seq: u8,
    pub caps: u32,
    pub server_version: String,
    pub connection_id: u32,
    /// The status flags of the last OK / EOF.
    pub status: u16,
}

pub struct Options<'a> {
    pub user: &'a str,
    pub password: &'a str,
    pub db: Option<&'a str>,
    /// The plugin the client proposes in its first answer.
    pub plugin: Plugin,
    pub caps: u32,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            user: "root",
            password: "",
            db: None,
            plugin: Plugin::Native,
            caps: CLIENT_PROTOCOL_41
                | CLIENT_SECURE_CONNECTION
                | CLIENT_PLUGIN_AUTH
                | CLIENT_PLUGIN_AUTH_LENENC
                | CLIENT_MULTI_STATEMENTS
                | CLIENT_MULTI_RESULTS
                | CLIENT_DEPRECATE_EOF,
        }
    }
}

pub fn lenenc(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8)
    } else if v < 1 << 16 {
        out.push(0xFC);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(0xFD);
        out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xFE);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

pub struct Cur<'a> {
    pub b: &'a [u8],
    pub i: usize,
}

impl<'a> Cur<'a> {
    pub fn u8(&mut self) -> u8 {
        self.i += 1;
        self.b[self.i - 1]
    }
    pub fn n(&mut self, n: usize) -> &'a [u8] {
        self.i += n;
        &self.b[self.i - n..self.i]
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.n(2).try_into().unwrap())
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.n(4).try_into().unwrap())
    }
    pub fn lenenc(&mut self) -> u64 {
        match self.u8() {
            0xFC => self.u16() as u64,
            0xFD => {
                let b = self.n(3);
                u32::from_le_bytes([b[0], b[1], b[2], 0]) as u64
            }
            0xFE => u64::from_le_bytes(self.n(8).try_into().unwrap()),
            v => v as u64,
        }
    }
    pub fn lenenc_str(&mut self) -> String {
        let n = self.lenenc() as usize;
        String::from_utf8(self.n(n).to_vec()).unwrap()
    }
    /// A value's bytes as text where they are UTF-8, else as `0x..` hex
    /// (as the embedded engine's `rows_as_text` shows binary values).
    pub fn lenenc_value(&mut self) -> String {
        let n = self.lenenc() as usize;
        let b = self.n(n);
        match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => std::iter::once("0x".to_string())
                .chain(b.iter().map(|x| format!("{x:02X}")))
                .collect(),
        }
    }
    pub fn nul(&mut self) -> &'a [u8] {
        let end = self.b[self.i..].iter().position(|c| *c == 0).unwrap();
        let s = &self.b[self.i..self.i + end];
        self.i += end + 1;
        s
    }
}

impl Client {
    pub fn connect(addr: SocketAddr, o: Options) -> Result<Client, Outcome> {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut c = Client {
            stream,
            seq: 0,
            caps: o.caps,
            server_version: String::new(),
            connection_id: 0,
            status: 0,
        };
        let hs = c.read();
        let mut r = Cur { b: &hs, i: 0 };
        if hs[0] == 0xFF {
            return Err(parse_err(&hs));
        }
        assert_eq!(r.u8(), 10, "protocol version");
        c.server_version = String::from_utf8(r.nul().to_vec()).unwrap();
        c.connection_id = r.u32();
        let mut nonce = r.n(8).to_vec();
        r.u8();
        let caps_low = r.u16() as u32;
        r.u8();
        r.u16();
        let caps = caps_low | (r.u16() as u32) << 16;
        let auth_len = r.u8() as usize;
        r.n(10);
        nonce.extend_from_slice(&r.n(auth_len.max(21) - 8)[..12]);
        let server_plugin = String::from_utf8(r.nul().to_vec()).unwrap();
        assert_eq!(server_plugin, "caching_sha2_password");
        assert!(caps & CLIENT_PROTOCOL_41 != 0);
        c.caps &= caps;

        let mut p = vec![];
        let mut my_caps = c.caps;
        if o.db.is_some() {
            my_caps |= CLIENT_CONNECT_WITH_DB;
        }
        p.extend_from_slice(&my_caps.to_le_bytes());
        p.extend_from_slice(&(16u32 << 20).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(o.user.as_bytes());
        p.push(0);
        let auth = scramble(o.plugin, o.password, &nonce);
        if my_caps & CLIENT_PLUGIN_AUTH_LENENC != 0 {
            lenenc(&mut p, auth.len() as u64);
        } else {
            p.push(auth.len() as u8);
        }
        p.extend_from_slice(&auth);
        if let Some(db) = o.db {
            p.extend_from_slice(db.as_bytes());
            p.push(0);
        }
        if my_caps & CLIENT_PLUGIN_AUTH != 0 {
            p.extend_from_slice(o.plugin.name().as_bytes());
            p.push(0);
        }
        c.write(&p);
        loop {
            let reply = c.read();
            match reply[0] {
                0x00 => return Ok(c),
                0xFF => return Err(parse_err(&reply)),
                0xFE => {
                    // AuthSwitchRequest
                    let mut r = Cur { b: &reply, i: 1 };
                    let plugin = String::from_utf8(r.nul().to_vec()).unwrap();
                    let data = r.n(reply.len() - r.i);
                    let nonce = &data[..20];
                    let plugin = Plugin::from_name(&plugin).expect("a known plugin");
                    let auth = scramble(plugin, o.password, nonce);
                    c.write(&auth);
                }
                0x01 => {
                    // AuthMoreData: only fast_auth_success is expected here.
                    assert_eq!(reply, [0x01, 0x03]);
                }
                other => panic!("unexpected auth reply 0x{other:02x}"),
            }
        }
    }

    pub fn root(addr: SocketAddr) -> Client {
        Client::connect(addr, Options::default()).expect("root connects")
    }

    pub fn read(&mut self) -> Vec<u8> {
        self.try_read().expect("a packet")
    }

    pub fn try_read(&mut self) -> std::io::Result<Vec<u8>> {
        let mut out = vec![];
        loop {
            let mut h = [0u8; 4];
            self.stream.read_exact(&mut h)?;
            let len = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
            assert_eq!(h[3], self.seq, "sequence id");
            self.seq = self.seq.wrapping_add(1);
            let start = out.len();
            out.resize(start + len, 0);
            self.stream.read_exact(&mut out[start..])?;
            if len < 0xFF_FFFF {
                return Ok(out);
            }
        }
    }

    pub fn write(&mut self, payload: &[u8]) {
        let mut rest = payload;
        loop {
            let n = rest.len().min(0xFF_FFFF);
            let mut p = (n as u32).to_le_bytes()[..3].to_vec();
            p.push(self.seq);
            self.seq = self.seq.wrapping_add(1);
            p.extend_from_slice(&rest[..n]);
            self.stream.write_all(&p).unwrap();
            rest = &rest[n..];
            if n < 0xFF_FFFF {
                return;
            }
        }
    }

    pub fn command(&mut self, cmd: u8, body: &[u8]) {
        self.seq = 0;
        let mut p = vec![cmd];
        p.extend_from_slice(body);
        self.write(&p);
    }

    /// All results of a COM_QUERY (several for a multi-statement).
    pub fn query_all(&mut self, sql: &str) -> Vec<Outcome> {
        self.command(0x03, sql.as_bytes());
        let mut out = vec![];
        loop {
            let o = self.read_result(false);
            let more = !matches!(o, Outcome::Err { .. }) && self.status & 0x0008 != 0;
            out.push(o);
            if !more {
                return out;
            }
        }
    }

    pub fn query(&mut self, sql: &str) -> Outcome {
        let mut all = self.query_all(sql);
        assert_eq!(all.len(), 1, "one result for {sql}: {all:?}");
        all.remove(0)
    }

    fn read_ok(&mut self, p: &[u8]) -> Outcome {
        let mut r = Cur { b: p, i: 1 };
        let affected = r.lenenc();
        r.lenenc();
        self.status = r.u16();
        Outcome::Ok { affected }
    }

    fn is_eof(p: &[u8]) -> bool {
        p[0] == 0xFE && p.len() < 0xFF_FFFF
    }

    fn read_eof_or_ok_end(&mut self, p: &[u8]) {
        let mut r = Cur { b: p, i: 1 };
        if self.caps & CLIENT_DEPRECATE_EOF != 0 {
            r.lenenc();
            r.lenenc();
            self.status = r.u16();
        } else {
            r.u16();
            self.status = r.u16();
        }
    }

    pub fn read_columns(&mut self, n: usize) -> Vec<Column> {
        let mut columns = vec![];
        for _ in 0..n {
            let p = self.read();
            columns.push(parse_column(&p));
        }
        if self.caps & CLIENT_DEPRECATE_EOF == 0 {
            let eof = self.read();
            assert!(Self::is_eof(&eof), "EOF after columns");
        }
        columns
    }

    pub fn read_result(&mut self, binary: bool) -> Outcome {
        let p = self.read();
        match p[0] {
            0x00 => return self.read_ok(&p),
            0xFF => return parse_err(&p),
            _ => {}
        }
        let n = Cur { b: &p, i: 0 }.lenenc() as usize;
        let columns = self.read_columns(n);
        let mut rows = vec![];
        loop {
            let p = self.read();
            if p[0] == 0xFF {
                return parse_err(&p);
            }
            if Self::is_eof(&p) && p.len() < 9 + 2 {
                self.read_eof_or_ok_end(&p);
                break;
            }
            rows.push(if binary {
                decode_binary_row(&p, &columns)
            } else {
                decode_text_row(&p, n)
            });
        }
        Outcome::Rows { columns, rows }
    }

    /// COM_STMT_PREPARE: (statement id, parameter count, columns).
    pub fn prepare(&mut self, sql: &str) -> Result<(u32, usize, Vec<Column>), Outcome> {
        self.command(0x16, sql.as_bytes());
        let p = self.read();
        if p[0] == 0xFF {
            return Err(parse_err(&p));
        }
        let mut r = Cur { b: &p, i: 1 };
        let id = r.u32();
        let ncols = r.u16() as usize;
        let nparams = r.u16() as usize;
        if nparams > 0 {
            self.read_columns(nparams);
        }
        let cols = if ncols > 0 {
            self.read_columns(ncols)
        } else {
            vec![]
        };
        Ok((id, nparams, cols))
    }

    /// COM_STMT_EXECUTE with typed parameters.
    pub fn execute(&mut self, id: u32, params: &[Param]) -> Outcome {
        self.execute_with(id, params, true)
    }

    /// COM_STMT_SEND_LONG_DATA: a piece of parameter `param`'s value (no reply).
    pub fn send_long_data(&mut self, id: u32, param: u16, data: &[u8]) {
        let mut p = id.to_le_bytes().to_vec();
        p.extend_from_slice(&param.to_le_bytes());
        p.extend_from_slice(data);
        self.command(0x18, &p);
    }

    /// COM_STMT_EXECUTE; without `send_types` the server must use the types
    /// of the previous execution (new_params_bound_flag 0). Parameters given
    /// as `Param::LongData` are left out of the packet (sent before).
    pub fn execute_with(&mut self, id: u32, params: &[Param], send_types: bool) -> Outcome {
        let mut p = id.to_le_bytes().to_vec();
        p.push(0);
        p.extend_from_slice(&1u32.to_le_bytes());
        if !params.is_empty() {
            let mut nulls = vec![0u8; params.len().div_ceil(8)];
            for (i, v) in params.iter().enumerate() {
                if matches!(v, Param::Null) {
                    nulls[i / 8] |= 1 << (i % 8);
                }
            }
            p.extend_from_slice(&nulls);
            p.push(send_types as u8);
            if send_types {
                for v in params {
                    let (t, unsigned) = v.type_code();
                    p.push(t);
                    p.push(if unsigned { 0x80 } else { 0 });
                }
            }
            for v in params {
                v.encode(&mut p);
            }
        }
        self.command(0x17, &p);
        self.read_result(true)
    }
}

#[derive(Debug, Clone)]
pub enum Param {
    Null,
    Tiny(i8),
    UTiny(u8),
    Short(i16),
    Long(i32),
    LongLong(i64),
    ULongLong(u64),
    Float(f32),
    Double(f64),
    Decimal(&'static str),
    Str(String),
    Blob(Vec<u8>),
    Date(u16, u8, u8),
    DateTime(u16, u8, u8, u8, u8, u8, u32),
    Time(bool, u32, u8, u8, u8),
    /// A string whose value went by COM_STMT_SEND_LONG_DATA.
    LongData,
    /// A type code and the value's bytes exactly as given (length included).
    Raw(u8, Vec<u8>),
}

impl Param {
    fn type_code(&self) -> (u8, bool) {
        match self {
            Param::Null => (6, false),
            Param::Tiny(_) => (1, false),
            Param::UTiny(_) => (1, true),
            Param::Short(_) => (2, false),
            Param::Long(_) => (3, false),
            Param::LongLong(_) => (8, false),
            Param::ULongLong(_) => (8, true),
            Param::Float(_) => (4, false),
            Param::Double(_) => (5, false),
            Param::Decimal(_) => (246, false),
            Param::Str(_) => (253, false),
            Param::Blob(_) => (252, false),
            Param::Date(..) => (10, false),
            Param::DateTime(..) => (12, false),
            Param::Time(..) => (11, false),
            Param::LongData => (252, false),
            Param::Raw(t, _) => (*t, false),
        }
    }

    fn encode(&self, p: &mut Vec<u8>) {
        match self {
            Param::Null | Param::LongData => {}
            Param::Raw(_, b) => p.extend_from_slice(b),
            Param::Tiny(v) => p.push(*v as u8),
            Param::UTiny(v) => p.push(*v),
            Param::Short(v) => p.extend_from_slice(&v.to_le_bytes()),
            Param::Long(v) => p.extend_from_slice(&v.to_le_bytes()),
            Param::LongLong(v) => p.extend_from_slice(&v.to_le_bytes()),
            Param::ULongLong(v) => p.extend_from_slice(&v.to_le_bytes()),
            Param::Float(v) => p.extend_from_slice(&v.to_le_bytes()),
            Param::Double(v) => p.extend_from_slice(&v.to_le_bytes()),
            Param::Decimal(s) => {
                lenenc(p, s.len() as u64);
                p.extend_from_slice(s.as_bytes());
            }
            Param::Str(s) => {
                lenenc(p, s.len() as u64);
                p.extend_from_slice(s.as_bytes());
            }
            Param::Blob(b) => {
                lenenc(p, b.len() as u64);
                p.extend_from_slice(b);
            }
            Param::Date(y, m, d) => {
                p.push(4);
                p.extend_from_slice(&y.to_le_bytes());
                p.extend_from_slice(&[*m, *d]);
            }
            Param::DateTime(y, m, d, h, mi, s, us) => {
                p.push(11);
                p.extend_from_slice(&y.to_le_bytes());
                p.extend_from_slice(&[*m, *d, *h, *mi, *s]);
                p.extend_from_slice(&us.to_le_bytes());
            }
            Param::Time(neg, days, h, m, s) => {
                p.push(8);
                p.push(*neg as u8);
                p.extend_from_slice(&days.to_le_bytes());
                p.extend_from_slice(&[*h, *m, *s]);
            }
        }
    }
}

pub fn parse_err(p: &[u8]) -> Outcome {
    assert_eq!(p[0], 0xFF);
    let code = u16::from_le_bytes([p[1], p[2]]);
    let (state, message) = if p.get(3) == Some(&b'#') {
        (
            String::from_utf8_lossy(&p[4..9]).into_owned(),
            String::from_utf8_lossy(&p[9..]).into_owned(),
        )
    } else {
        (String::new(), String::from_utf8_lossy(&p[3..]).into_owned())
    };
    Outcome::Err {
        code,
        state,
        message,
    }
}

pub fn parse_column(p: &[u8]) -> Column {
    let mut r = Cur { b: p, i: 0 };
    assert_eq!(r.lenenc_str(), "def");
    let schema = r.lenenc_str();
    let table = r.lenenc_str();
    let org_table = r.lenenc_str();
    let name = r.lenenc_str();
    let org_name = r.lenenc_str();
    assert_eq!(r.lenenc(), 0x0C);
    Column {
        schema,
        table,
        org_table,
        name,
        org_name,
        charset: r.u16(),
        length: r.u32(),
        ty: r.u8(),
        flags: r.u16(),
        decimals: r.u8(),
    }
}

fn decode_text_row(p: &[u8], n: usize) -> Vec<Option<String>> {
    let mut r = Cur { b: p, i: 0 };
    (0..n)
        .map(|_| {
            if r.b[r.i] == 0xFB {
                r.i += 1;
                None
            } else {
                Some(r.lenenc_value())
            }
        })
        .collect()
}

/// Binary row values rendered as the text protocol would show them.
fn decode_binary_row(p: &[u8], columns: &[Column]) -> Vec<Option<String>> {
    let mut r = Cur { b: p, i: 0 };
    assert_eq!(r.u8(), 0, "binary row header");
    let bitmap = r.n((columns.len() + 9) / 8).to_vec();
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let bit = i + 2;
            if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
                return None;
            }
            let unsigned = c.flags & 32 != 0;
            Some(match c.ty {
                1 => {
                    let v = r.u8();
                    if unsigned {
                        v.to_string()
                    } else {
                        (v as i8).to_string()
                    }
                }
                2 => {
                    let v = r.u16();
                    if unsigned {
                        v.to_string()
                    } else {
                        (v as i16).to_string()
                    }
                }
                3 => {
                    let v = r.u32();
                    if unsigned {
                        v.to_string()
                    } else {
                        (v as i32).to_string()
                    }
                }
                8 => {
                    let v = u64::from_le_bytes(r.n(8).try_into().unwrap());
                    if unsigned {
                        v.to_string()
                    } else {
                        (v as i64).to_string()
                    }
                }
                4 => f32::from_le_bytes(r.n(4).try_into().unwrap()).to_string(),
                5 => f64::from_le_bytes(r.n(8).try_into().unwrap()).to_string(),
                10 | 12 | 7 => {
                    let len = r.u8() as usize;
                    let b = r.n(len);
                    let mut s = String::new();
                    if len >= 4 {
                        s = format!(
                            "{:04}-{:02}-{:02}",
                            u16::from_le_bytes([b[0], b[1]]),
                            b[2],
                            b[3]
                        );
                    }
                    if c.ty != 10 {
                        let (h, m, sec) = if len >= 7 {
                            (b[4], b[5], b[6])
                        } else {
                            (0, 0, 0)
                        };
                        s.push_str(&format!(" {h:02}:{m:02}:{sec:02}"));
                        if len == 11 {
                            let us = u32::from_le_bytes([b[7], b[8], b[9], b[10]]);
                            s.push_str(&format!(".{us:06}"));
                        }
                    }
                    s
                }
                11 => {
                    // TIME: sign, days, hours, minutes, seconds[, microseconds].
                    let len = r.u8() as usize;
                    let b = r.n(len);
                    if len < 8 {
                        "00:00:00".to_string()
                    } else {
                        let days = u32::from_le_bytes([b[1], b[2], b[3], b[4]]);
                        let hours = days * 24 + b[5] as u32;
                        let sign = if b[0] == 1 { "-" } else { "" };
                        let mut s = format!("{sign}{hours:02}:{:02}:{:02}", b[6], b[7]);
                        if len == 12 {
                            let us = u32::from_le_bytes([b[8], b[9], b[10], b[11]]);
                            s.push_str(&format!(".{us:06}"));
                        }
                        s
                    }
                }
                6 => panic!("a NULL-typed column with its bit clear"),
                _ => r.lenenc_value(),
            })
        })
        .collect()
}

/// Waits until the server counts `n` open connections (they close asynchronously).
pub fn wait_for_connections(h: &ServerHandle, n: usize) {
    for _ in 0..500 {
        if h.active_connections() == n {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!(
        "server still has {} connections, expected {n}",
        h.active_connections()
    );
}

/// Sends raw bytes on a fresh connection after the handshake packet.
pub fn raw_after_handshake(addr: std::net::SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut hdr = [0u8; 4];
    s.read_exact(&mut hdr).unwrap();
    let mut hs = vec![0u8; u32::from_le_bytes([hdr[0], hdr[1], hdr[2], 0]) as usize];
    s.read_exact(&mut hs).unwrap();
    let _ = s.write_all(bytes);
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut rest = vec![];
    let _ = s.read_to_end(&mut rest);
    rest
}
