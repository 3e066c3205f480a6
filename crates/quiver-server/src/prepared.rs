//! Prepared statements (COM_STMT_*). The engine has no placeholders yet, so
//! each execution substitutes its parameters into the statement text as SQL
//! literals: numbers as numbers (validated), strings quoted and escaped (or
//! as X'..' when they are not UTF-8), dates and datetimes as typed literals.
//! A value can therefore never change the statement's structure.

use quiver_collation::{text, Charset};
use quiver_common::{QuiverError, Result};

use crate::itemnames::ItemNames;
use crate::proto::Reader;
use crate::resultset::ty;

pub struct Prepared {
    pub sql: String,
    /// Byte offsets of the `?` in `sql`.
    pub placeholders: Vec<usize>,
    /// Parameter types of the last execution that sent them (type, unsigned).
    pub types: Vec<(u8, bool)>,
    /// Values sent by COM_STMT_SEND_LONG_DATA for the next execution.
    pub long_data: Vec<Option<Vec<u8>>>,
    /// Long data beyond max_allowed_packet came: the next execution fails.
    pub long_data_overflow: bool,
    /// The names of result columns with placeholders, as prepared (`?`),
    /// not as the substituted values would name them.
    pub names: ItemNames,
}

impl Prepared {
    pub fn new(sql: String, placeholders: Vec<usize>) -> Self {
        let n = placeholders.len();
        let names = ItemNames::of(&sql, &placeholders);
        Prepared {
            names,
            sql,
            placeholders,
            types: vec![(ty::VAR_STRING, false); n],
            long_data: vec![None; n],
            long_data_overflow: false,
        }
    }

    /// The statement text with every `?` replaced by `values[i]`.
    pub fn substitute(&self, values: &[String]) -> String {
        let mut out =
            String::with_capacity(self.sql.len() + values.iter().map(|v| v.len()).sum::<usize>());
        let mut last = 0;
        for (at, v) in self.placeholders.iter().zip(values) {
            out.push_str(&self.sql[last..*at]);
            // Spaces keep a literal from joining its neighbours into one token.
            out.push(' ');
            out.push_str(v);
            out.push(' ');
            last = at + 1;
        }
        out.push_str(&self.sql[last..]);
        out
    }

    /// Reads COM_STMT_EXECUTE's parameters (after stmt id, flags and
    /// iteration count) into SQL literals, strings read in the client's
    /// charset; takes the long data.
    pub fn read_params(&mut self, r: &mut Reader, client: Charset) -> Result<Vec<String>> {
        let n = self.placeholders.len();
        if std::mem::take(&mut self.long_data_overflow) {
            self.long_data.iter_mut().for_each(|d| *d = None);
            return Err(QuiverError::new(
                1153,
                "08S01",
                "Got a packet bigger than 'max_allowed_packet' bytes (long data of a parameter)",
            ));
        }
        if n == 0 {
            return Ok(vec![]);
        }
        let nulls = r.take(n.div_ceil(8))?.to_vec();
        if r.u8()? == 1 {
            for t in self.types.iter_mut() {
                let code = r.u8()?;
                let flags = r.u8()?;
                *t = (code, flags & 0x80 != 0);
            }
        }
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let long = self.long_data[i].take();
            if nulls[i / 8] & (1 << (i % 8)) != 0 {
                out.push("NULL".to_string());
                continue;
            }
            let (code, unsigned) = self.types[i];
            if let Some(bytes) = long {
                out.push(text_literal(client, &bytes)?);
                continue;
            }
            out.push(read_value(r, code, unsigned, client)?);
        }
        Ok(out)
    }
}

/// 1210: the parameters do not fit their types.
fn bad_arguments() -> QuiverError {
    QuiverError::new(1210, "HY000", "Incorrect arguments to mysqld_stmt_execute")
}

fn int_literal(v: i128) -> String {
    // A negative literal in parentheses: `? - ?` must not become `1 --2`.
    if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}

fn double_literal(v: f64) -> Result<String> {
    if !v.is_finite() {
        return Err(bad_arguments());
    }
    // Exponent notation makes it a DOUBLE literal, as the parameter's type is.
    let s = format!("{v:e}");
    Ok(if v < 0.0 { format!("({s})") } else { s })
}

fn read_value(r: &mut Reader, code: u8, unsigned: bool, client: Charset) -> Result<String> {
    Ok(match code {
        ty::NULL => "NULL".to_string(),
        ty::TINY => {
            let b = r.u8()?;
            int_literal(if unsigned { b as i128 } else { b as i8 as i128 })
        }
        ty::SHORT | ty::YEAR => {
            let v = r.u16()?;
            int_literal(if unsigned {
                v as i128
            } else {
                v as i16 as i128
            })
        }
        ty::LONG | ty::INT24 => {
            let v = r.u32()?;
            int_literal(if unsigned {
                v as i128
            } else {
                v as i32 as i128
            })
        }
        ty::LONGLONG => {
            let v = r.u64()?;
            int_literal(if unsigned {
                v as i128
            } else {
                v as i64 as i128
            })
        }
        ty::FLOAT => double_literal(f32::from_le_bytes(r.u32()?.to_le_bytes()) as f64)?,
        ty::DOUBLE => double_literal(f64::from_bits(r.u64()?))?,
        ty::DATE | ty::DATETIME | ty::TIMESTAMP => {
            let (len, b) = temporal_bytes(r)?;
            datetime_literal(code == ty::DATE, len, b)
        }
        ty::TIME => {
            let (len, b) = temporal_bytes(r)?;
            time_literal(len, b)
        }
        ty::DECIMAL | ty::NEWDECIMAL => {
            let b = r.lenenc_bytes()?;
            match std::str::from_utf8(b) {
                Ok(s) if is_decimal_text(s) => {
                    if s.starts_with('-') {
                        format!("({s})")
                    } else {
                        s.to_string()
                    }
                }
                _ => bytes_literal(b)?,
            }
        }
        ty::VARCHAR
        | ty::VAR_STRING
        | ty::STRING
        | ty::TINY_BLOB
        | ty::MEDIUM_BLOB
        | ty::LONG_BLOB
        | ty::BLOB
        | ty::JSON
        | ty::ENUM
        | ty::SET
        | ty::BIT
        | ty::GEOMETRY => text_literal(client, r.lenenc_bytes()?)?,
        _ => return Err(bad_arguments()),
    })
}

/// A temporal parameter's declared length and bytes. As MariaDB: no
/// length at all is 1210, a length cut short is 0; a length past the end of
/// the packet reads what is there (MariaDB reads on past the packet into
/// whatever follows, a value it then finds out of range or not: here the
/// missing bytes read as zero).
fn temporal_bytes<'a>(r: &mut Reader<'a>) -> Result<(usize, &'a [u8])> {
    if r.remaining() == 0 {
        return Err(bad_arguments());
    }
    let len = r.lenenc_int().unwrap_or_else(|_| {
        r.rest();
        0
    });
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let b = r.take(len.min(r.remaining()))?;
    Ok((len, b))
}

/// Byte `i` of a temporal value, zero past its end: MariaDB reads the
/// fields a length announces whatever bytes are really there (a length of
/// 5 reads hour, minute and second).
fn byte(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([byte(b, i), byte(b, i + 1), byte(b, i + 2), byte(b, i + 3)])
}

/// A DATE / DATETIME / TIMESTAMP parameter (MYSQL_TIME in the binary
/// protocol) as MariaDB's set_param_date / set_param_datetime read it:
/// fewer than 4 bytes are the zero date; the time fields come with more
/// than 4, the microseconds with more than 7 (the value has 6 decimals
/// when they are not zero, else none: MariaDB's Item_param::set_time, so
/// the literal is DATETIME(6) or DATETIME(0)); a field out of range (month 13, day 32, hour 24, minute 60,
/// microseconds past 999999, year past 9999) makes the value the zero date,
/// as MariaDB's check_datetime_range does (with a warning there). Days a
/// month lacks (Feb 30) pass, as in MariaDB. The zero date goes in as a
/// literal the engine judges (it has no zero dates yet: an error there).
fn datetime_literal(date_only: bool, len: usize, b: &[u8]) -> String {
    let (mut y, mut mo, mut d) = (0u32, 0u32, 0u32);
    let (mut h, mut mi, mut s, mut us) = (0u32, 0u32, 0u32, 0u32);
    if len >= 4 {
        y = u16::from_le_bytes([byte(b, 0), byte(b, 1)]) as u32;
        mo = byte(b, 2) as u32;
        d = byte(b, 3) as u32;
        if !date_only && len > 4 {
            (h, mi, s) = (byte(b, 4) as u32, byte(b, 5) as u32, byte(b, 6) as u32);
        }
        if !date_only && len > 7 {
            us = u32_at(b, 7);
        }
    }
    if y > 9999 || mo > 12 || d > 31 || h > 23 || mi > 59 || s > 59 || us > 999_999 {
        (y, mo, d, h, mi, s, us) = (0, 0, 0, 0, 0, 0, 0);
    }
    let date = format!("{y:04}-{mo:02}-{d:02}");
    if date_only {
        return format!("DATE'{date}'");
    }
    let frac = if len > 7 && us != 0 {
        format!(".{us:06}")
    } else {
        String::new()
    };
    format!("TIMESTAMP'{date} {h:02}:{mi:02}:{s:02}{frac}'")
}

/// A TIME parameter as MariaDB's set_param_time reads it: fewer than 8
/// bytes are 00:00:00; a sign byte (any non-zero is negative), days, hour,
/// minute, second, and microseconds with more than 8 bytes. Days and hours
/// past 838 hours are 838:59:59; a minute or second past 59 or
/// microseconds past 999999 make the value 00:00:00. It goes in as a
/// TIME literal (TIME(6) when the microseconds are sent).
fn time_literal(len: usize, b: &[u8]) -> String {
    if len < 8 {
        return "TIME'00:00:00'".to_string();
    }
    let mut neg = byte(b, 0) != 0;
    let days = u32_at(b, 1);
    // MariaDB's unsigned arithmetic, wrapping included.
    let mut h = (byte(b, 5) as u32).wrapping_add(days.wrapping_mul(24));
    let (mut mi, mut s) = (byte(b, 6) as u32, byte(b, 7) as u32);
    let mut us = if len > 8 { u32_at(b, 8) } else { 0 };
    if h > 838 {
        (h, mi, s) = (838, 59, 59);
    }
    if mi > 59 || s > 59 || us > 999_999 {
        (neg, h, mi, s, us) = (false, 0, 0, 0, 0);
    }
    let sign = if neg { "-" } else { "" };
    let frac = if len > 8 {
        format!(".{us:06}")
    } else {
        String::new()
    };
    format!("TIME'{sign}{h:02}:{mi:02}:{s:02}{frac}'")
}

/// `[-+]digits[.digits]`: what a DECIMAL parameter may hold to go in unquoted.
fn is_decimal_text(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    !(int.is_empty() && frac.is_empty())
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// A string parameter's literal, its bytes read in the client's charset
/// (`SET NAMES latin1`: one character per byte).
fn text_literal(client: Charset, b: &[u8]) -> Result<String> {
    if text::is_single_byte_text(client) && !b.is_ascii() {
        let mut s = String::new();
        text::decode(client, b, &mut s);
        return bytes_literal(s.as_bytes());
    }
    bytes_literal(b)
}

/// A string literal: quoted with `'` doubled and `\` and NUL escaped. Bytes
/// that are not UTF-8 are a binary string, `X'hex'` (the binder reads it as
/// bytes, DataType::Binary), as MariaDB takes such a parameter as binary.
pub fn bytes_literal(b: &[u8]) -> Result<String> {
    Ok(match std::str::from_utf8(b) {
        Ok(s) => quiver_engine::prepared_sql::string_literal(s),
        Err(_) => {
            let mut out = String::with_capacity(b.len() * 2 + 3);
            out.push_str("X'");
            for x in b {
                out.push_str(&format!("{x:02X}"));
            }
            out.push('\'');
            out
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_is_validated() {
        assert!(is_decimal_text("-12.50"));
        assert!(is_decimal_text(".5"));
        assert!(!is_decimal_text("1; DROP TABLE t"));
        assert!(!is_decimal_text("."));
        assert!(!is_decimal_text("1e5"));
    }

    #[test]
    fn literals_escape_quotes_backslashes_and_nul() {
        assert_eq!(bytes_literal(b"it's \\ \0").unwrap(), "'it''s \\\\ \\0'");
        assert_eq!(bytes_literal(&[0xFF, 0x00]).unwrap(), "X'FF00'");
        // latin1 client: every byte is a character, text.
        assert_eq!(text_literal(Charset::Latin1, &[0xE9]).unwrap(), "'é'");
        assert_eq!(int_literal(-2), "(-2)");
        assert_eq!(double_literal(1.5).unwrap(), "1.5e0");
        assert!(double_literal(f64::NAN).is_err());
    }

    #[test]
    fn temporal_parameters_are_read_as_mariadb_reads_them() {
        let dt = |b: &[u8]| datetime_literal(false, b.len(), b);
        // 2024-02-29 01:02:03
        assert_eq!(
            dt(&[0xE8, 0x07, 2, 29, 1, 2, 3]),
            "TIMESTAMP'2024-02-29 01:02:03'"
        );
        // Out of range: the zero date.
        let zero = "TIMESTAMP'0000-00-00 00:00:00'";
        assert_eq!(dt(&[0xE8, 0x07, 13, 1]), zero);
        assert_eq!(dt(&[0xE8, 0x07, 1, 32]), zero);
        assert_eq!(dt(&[0xE8, 0x07, 1, 1, 99, 0, 0]), zero);
        assert_eq!(dt(&[0xE8, 0x07, 1, 1, 1, 60, 0]), zero);
        assert_eq!(dt(&[0x10, 0x27, 1, 1]), zero, "year 10000");
        assert_eq!(
            dt(&[0xE8, 0x07, 1, 1, 1, 1, 1, 0x80, 0x84, 0x1E, 0]),
            zero,
            "2,000,000 microseconds"
        );
        // Microseconds of zero: no fraction (MariaDB: 2024-01-01 01:01:01).
        assert_eq!(
            dt(&[0xE8, 0x07, 1, 1, 1, 1, 1, 0, 0, 0, 0]),
            "TIMESTAMP'2024-01-01 01:01:01'"
        );
        // Short: the zero date; February 30 passes.
        assert_eq!(dt(&[0xE8, 0x07, 1]), zero);
        assert_eq!(dt(&[]), zero);
        assert_eq!(dt(&[0xE8, 0x07, 2, 30]), "TIMESTAMP'2024-02-30 00:00:00'");
        // A length of 5 or 12: the fields it announces, zero where missing.
        assert_eq!(
            datetime_literal(false, 5, &[0xE8, 0x07, 1, 1, 1]),
            "TIMESTAMP'2024-01-01 01:00:00'"
        );
        assert_eq!(
            dt(&[0xE8, 0x07, 1, 1, 1, 1, 1, 5, 0, 0, 0, 0]),
            "TIMESTAMP'2024-01-01 01:01:01.000005'"
        );
        // A DATE ignores the time; out of range is the zero date.
        assert_eq!(
            datetime_literal(true, 7, &[0xE8, 0x07, 1, 2, 3, 4, 5]),
            "DATE'2024-01-02'"
        );
        assert_eq!(
            datetime_literal(true, 4, &[0xE8, 0x07, 13, 1]),
            "DATE'0000-00-00'"
        );

        let tm = |b: &[u8]| time_literal(b.len(), b);
        assert_eq!(tm(&[0, 1, 0, 0, 0, 2, 3, 4]), "TIME\'26:03:04\'");
        assert_eq!(tm(&[0, 0, 0, 0, 0, 99, 0, 0]), "TIME\'99:00:00\'");
        assert_eq!(tm(&[0, 0, 0, 0, 0, 1, 60, 0]), "TIME\'00:00:00\'");
        assert_eq!(tm(&[0, 0, 0, 0, 0, 1, 1, 99]), "TIME\'00:00:00\'");
        assert_eq!(tm(&[0, 40, 0, 0, 0, 0, 0, 0]), "TIME\'838:59:59\'");
        assert_eq!(tm(&[1, 0xA0, 0x86, 1, 0, 0, 0, 0]), "TIME\'-838:59:59\'");
        assert_eq!(tm(&[5, 0, 0, 0, 0, 1, 0, 0]), "TIME\'-01:00:00\'");
        assert_eq!(tm(&[0xFF; 8]), "TIME\'00:00:00\'");
        // Days * 24 wraps in 32 bits, as in MariaDB: -1 day is -24 hours.
        assert_eq!(
            tm(&[1, 0xFF, 0xFF, 0xFF, 0xFF, 30, 0, 0]),
            "TIME\'-06:00:00\'"
        );
        assert_eq!(tm(&[1, 0, 0, 0, 0, 0, 0, 0]), "TIME\'-00:00:00\'");
        assert_eq!(
            tm(&[0, 0, 0, 0, 0, 1, 1, 1, 0x80, 0x84, 0x1E, 0]),
            "TIME\'00:00:00.000000\'"
        );
        assert_eq!(tm(&[0, 0, 0, 0, 0, 1, 2]), "TIME\'00:00:00\'");
        assert_eq!(tm(&[1]), "TIME\'00:00:00\'");
    }

    #[test]
    fn substitution_replaces_each_placeholder() {
        let p = Prepared::new("SELECT ?-?, '?'".into(), vec![7, 9]);
        assert_eq!(
            p.substitute(&["1".into(), "(-2)".into()]),
            "SELECT  1 - (-2) , '?'"
        );
    }
}
