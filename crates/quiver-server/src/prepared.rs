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
            let len = r.u8()?;
            let b = r.take(len as usize)?;
            let (y, mo, d) = match len {
                0 => (0, 0, 0),
                4 | 7 | 11 => (u16::from_le_bytes([b[0], b[1]]), b[2], b[3]),
                _ => return Err(bad_arguments()),
            };
            let date = format!("{y:04}-{mo:02}-{d:02}");
            if code == ty::DATE {
                format!("DATE'{date}'")
            } else {
                let (h, mi, s) = if len >= 7 {
                    (b[4], b[5], b[6])
                } else {
                    (0, 0, 0)
                };
                let frac = if len == 11 {
                    format!(".{:06}", u32::from_le_bytes([b[7], b[8], b[9], b[10]]))
                } else {
                    String::new()
                };
                format!("TIMESTAMP'{date} {h:02}:{mi:02}:{s:02}{frac}'")
            }
        }
        ty::TIME => {
            let len = r.u8()?;
            let b = r.take(len as usize)?;
            match len {
                0 => "'00:00:00'".to_string(),
                8 | 12 => {
                    let neg = if b[0] == 1 { "-" } else { "" };
                    let days = u32::from_le_bytes([b[1], b[2], b[3], b[4]]) as u64;
                    let h = days * 24 + b[5] as u64;
                    let frac = if len == 12 {
                        format!(".{:06}", u32::from_le_bytes([b[8], b[9], b[10], b[11]]))
                    } else {
                        String::new()
                    };
                    format!("'{neg}{h:02}:{:02}:{:02}{frac}'", b[6], b[7])
                }
                _ => return Err(bad_arguments()),
            }
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
/// that are not UTF-8 are refused as MySQL refuses them for a utf8mb4 value
/// (the engine has no binary strings yet).
pub fn bytes_literal(b: &[u8]) -> Result<String> {
    Ok(match std::str::from_utf8(b) {
        Ok(s) => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('\'');
            for c in s.chars() {
                match c {
                    '\'' => out.push_str("''"),
                    '\\' => out.push_str("\\\\"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Err(_) => {
            let hex: String = b.iter().take(32).map(|x| format!("{x:02X}")).collect();
            return Err(QuiverError::new(
                1300,
                "HY000",
                format!("Invalid utf8mb4 character string: '{hex}'"),
            ));
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
        assert_eq!(bytes_literal(&[0xFF, 0x00]).unwrap_err().code, 1300);
        assert_eq!(int_literal(-2), "(-2)");
        assert_eq!(double_literal(1.5).unwrap(), "1.5e0");
        assert!(double_literal(f64::NAN).is_err());
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
