//! Protocol vocabulary: capability and status flags, length-encoded values,
//! OK / EOF / ERR packets, and a bounds-checked reader of client payloads.

use quiver_common::QuiverError;

pub mod cap {
    pub const LONG_PASSWORD: u32 = 1;
    pub const FOUND_ROWS: u32 = 1 << 1;
    pub const LONG_FLAG: u32 = 1 << 2;
    pub const CONNECT_WITH_DB: u32 = 1 << 3;
    pub const PROTOCOL_41: u32 = 1 << 9;
    pub const INTERACTIVE: u32 = 1 << 10;
    pub const SSL: u32 = 1 << 11;
    pub const IGNORE_SIGPIPE: u32 = 1 << 12;
    pub const TRANSACTIONS: u32 = 1 << 13;
    pub const SECURE_CONNECTION: u32 = 1 << 15;
    pub const MULTI_STATEMENTS: u32 = 1 << 16;
    pub const MULTI_RESULTS: u32 = 1 << 17;
    pub const PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const PLUGIN_AUTH: u32 = 1 << 19;
    pub const CONNECT_ATTRS: u32 = 1 << 20;
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const DEPRECATE_EOF: u32 = 1 << 24;

    /// What this server offers. Not SSL (no TLS yet), COMPRESS or LOCAL_FILES.
    /// LONG_PASSWORD (bit 0) set says "MySQL": MariaDB clients then do not
    /// expect MariaDB's extended capabilities.
    pub const SERVER: u32 = LONG_PASSWORD
        | FOUND_ROWS
        | LONG_FLAG
        | CONNECT_WITH_DB
        | PROTOCOL_41
        | INTERACTIVE
        | IGNORE_SIGPIPE
        | TRANSACTIONS
        | SECURE_CONNECTION
        | MULTI_STATEMENTS
        | MULTI_RESULTS
        | PS_MULTI_RESULTS
        | PLUGIN_AUTH
        | CONNECT_ATTRS
        | PLUGIN_AUTH_LENENC_CLIENT_DATA
        | DEPRECATE_EOF;
}

pub mod status {
    pub const AUTOCOMMIT: u16 = 0x0002;
    pub const MORE_RESULTS_EXISTS: u16 = 0x0008;
}

pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=250 => out.push(v as u8),
        251..=0xFFFF => {
            out.push(0xFC);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0xFD);
            out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xFE);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

pub fn put_lenenc_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_lenenc_int(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// An OK packet. `header` is 0x00, or 0xFE where it ends a result set under
/// CLIENT_DEPRECATE_EOF. `warnings`: how many the statement raised (past
/// 65535 the field says 65535).
pub fn ok_packet(
    header: u8,
    affected: u64,
    last_insert_id: u64,
    status: u16,
    warnings: u64,
) -> Vec<u8> {
    let mut p = vec![header];
    put_lenenc_int(&mut p, affected);
    put_lenenc_int(&mut p, last_insert_id);
    p.extend_from_slice(&status.to_le_bytes());
    p.extend_from_slice(&wire_count(warnings).to_le_bytes());
    p
}

/// An EOF packet, with the statement's warning count.
pub fn eof_packet(status: u16, warnings: u64) -> Vec<u8> {
    let mut p = vec![0xFE];
    p.extend_from_slice(&wire_count(warnings).to_le_bytes());
    p.extend_from_slice(&status.to_le_bytes());
    p
}

fn wire_count(n: u64) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

pub fn err_packet(e: &QuiverError) -> Vec<u8> {
    let mut p = vec![0xFF];
    p.extend_from_slice(&e.code.to_le_bytes());
    p.push(b'#');
    let state = e.sqlstate.as_bytes();
    let mut s = [b'H', b'Y', b'0', b'0', b'0'];
    if state.len() == 5 {
        s.copy_from_slice(state);
    }
    p.extend_from_slice(&s);
    // Messages are capped as MySQL caps them (MYSQL_ERRMSG_SIZE).
    let msg = e.message.as_bytes();
    let mut end = msg.len().min(511);
    while end < msg.len() && !e.message.is_char_boundary(end) {
        end -= 1;
    }
    p.extend_from_slice(&msg[..end]);
    p
}

/// 1047 / 08S01: a command the server does not know (or a COM_SET_OPTION
/// option), in MariaDB's words, which do not name the command.
pub fn unknown_command(_cmd: u8) -> QuiverError {
    QuiverError::new(1047, "08S01", "Unknown command")
}

/// 1835: a packet whose content does not match its command.
pub fn malformed() -> QuiverError {
    QuiverError::new(1835, "HY000", "Malformed communication packet.")
}

/// Reads a client payload; every read past the end is `malformed()`.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], QuiverError> {
        if self.remaining() < n {
            return Err(malformed());
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    pub fn u8(&mut self) -> Result<u8, QuiverError> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, QuiverError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, QuiverError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64, QuiverError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }

    pub fn lenenc_int(&mut self) -> Result<u64, QuiverError> {
        Ok(match self.u8()? {
            0xFC => self.u16()? as u64,
            0xFD => {
                let b = self.take(3)?;
                u32::from_le_bytes([b[0], b[1], b[2], 0]) as u64
            }
            0xFE => self.u64()?,
            0xFB | 0xFF => return Err(malformed()),
            v => v as u64,
        })
    }

    pub fn lenenc_bytes(&mut self) -> Result<&'a [u8], QuiverError> {
        let n = self.lenenc_int()?;
        if n > self.remaining() as u64 {
            return Err(malformed());
        }
        self.take(n as usize)
    }

    /// Bytes up to a NUL, which is consumed; the rest when there is none.
    pub fn nul_str(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|b| *b == 0) {
            Some(i) => {
                self.pos += i + 1;
                &rest[..i]
            }
            None => self.rest(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenenc_round_trips_at_each_width() {
        for v in [
            0u64,
            250,
            251,
            0xFFFF,
            0x1_0000,
            0xFF_FFFF,
            0x100_0000,
            u64::MAX,
        ] {
            let mut b = vec![];
            put_lenenc_int(&mut b, v);
            let mut r = Reader::new(&b);
            assert_eq!(r.lenenc_int().unwrap(), v);
            assert_eq!(r.remaining(), 0);
        }
    }

    #[test]
    fn reading_past_the_end_is_an_error() {
        let mut r = Reader::new(&[0xFC, 1]);
        assert_eq!(r.lenenc_int().unwrap_err().code, 1835);
        let mut r = Reader::new(&[5, b'a']);
        assert_eq!(r.lenenc_bytes().unwrap_err().code, 1835);
        let mut r = Reader::new(&[0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert!(r.lenenc_bytes().is_err());
    }

    #[test]
    fn err_packet_layout() {
        let p = err_packet(&QuiverError::unknown_table("quiver.t"));
        assert_eq!(
            &p[..9],
            &[0xFF, 0x7A, 0x04, b'#', b'4', b'2', b'S', b'0', b'2']
        );
        assert_eq!(&p[9..], b"Table 'quiver.t' doesn't exist");
    }
}
