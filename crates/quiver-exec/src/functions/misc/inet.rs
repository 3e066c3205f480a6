//! Network addresses, as MariaDB's `Item_func_inet_*` and
//! `Item_func_inet6_*` / `Item_func_is_ipv*`:
//!
//! - INET_ATON(s): the number of a dotted IPv4 address, read loosely as
//!   MariaDB does (`'10.5'` is 10.0.0.5, parts shifted by the dot count;
//!   more than three dots keep shifting past 32 bits); NULL for anything
//!   else. INET_NTOA(n): the dotted form of 0..2^32-1, else NULL.
//! - INET6_ATON(s): the 4 or 16 bytes of an IPv4 or IPv6 address in text
//!   (`::` once, a dotted IPv4 tail), else NULL. INET6_NTOA(b): the text
//!   of 4 or 16 bytes (lower-case hex, the longest run of two or more
//!   zero groups as `::`, IPv4-compatible and -mapped forms with a dotted
//!   tail), NULL for text or another length.
//! - IS_IPV4(s), IS_IPV6(s): whether INET6_ATON reads `s` as that family
//!   (0 for NULL). IS_IPV4_COMPAT(b), IS_IPV4_MAPPED(b): whether 16 bytes
//!   are `::a.b.c.d` (not `::` or `::1`) or `::ffff:a.b.c.d`.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::{cast::AsArray, types::Int64Type, Array, Int64Array, UInt64Array};
use arrow_schema::DataType;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::super::string::{bytes_of, string_arg};
use crate::expr::cast_array;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    InetAton,
    InetNtoa,
    Inet6Aton,
    Inet6Ntoa,
    IsIpv4,
    IsIpv6,
    IsIpv4Compat,
    IsIpv4Mapped,
}

pub struct Inet(Op);

pub static INET_ATON: Inet = Inet(Op::InetAton);
pub static INET_NTOA: Inet = Inet(Op::InetNtoa);
pub static INET6_ATON: Inet = Inet(Op::Inet6Aton);
pub static INET6_NTOA: Inet = Inet(Op::Inet6Ntoa);
pub static IS_IPV4: Inet = Inet(Op::IsIpv4);
pub static IS_IPV6: Inet = Inet(Op::IsIpv6);
pub static IS_IPV4_COMPAT: Inet = Inet(Op::IsIpv4Compat);
pub static IS_IPV4_MAPPED: Inet = Inet(Op::IsIpv4Mapped);

impl ScalarFunction for Inet {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::InetAton => "inet_aton",
            Op::InetNtoa => "inet_ntoa",
            Op::Inet6Aton => "inet6_aton",
            Op::Inet6Ntoa => "inet6_ntoa",
            Op::IsIpv4 => "is_ipv4",
            Op::IsIpv6 => "is_ipv6",
            Op::IsIpv4Compat => "is_ipv4_compat",
            Op::IsIpv4Mapped => "is_ipv4_mapped",
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![match self.0 {
            Op::InetNtoa => match args[0] {
                DataType::Null => DataType::Null,
                DataType::UInt64 => DataType::UInt64,
                _ => DataType::Int64,
            },
            _ => string_arg(&self.name().to_uppercase(), &args[0])?,
        }])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(match self.0 {
            Op::InetAton => DataType::UInt64,
            Op::InetNtoa | Op::Inet6Ntoa => DataType::Utf8,
            Op::Inet6Aton => DataType::Binary,
            _ => DataType::Int64,
        }))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        match self.0 {
            Op::IsIpv4 | Op::IsIpv6 => any_arg_nullable,
            _ => true,
        }
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(match self.0 {
            Op::InetAton => IntWidth::Fixed(IntKind::LongLong, 21),
            _ => IntWidth::Fixed(IntKind::Long, 1),
        })
    }

    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        match self.0 {
            Op::InetNtoa => Some(31),
            Op::Inet6Ntoa => Some(39),
            Op::Inet6Aton => Some(16),
            _ => None,
        }
    }

    fn string_result(&self) -> StringResult {
        StringResult::AsciiDigits
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = a.arg(0)?;
        let out: Arc<dyn Array> = match self.0 {
            Op::InetNtoa => {
                let n = cast_array(x, &DataType::Int64)?;
                let n = n.as_primitive::<Int64Type>();
                let mut b = StringBuilder::with_capacity(n.len(), n.len() * 15);
                for v in n.iter() {
                    match v.and_then(|v| u32::try_from(v).ok()) {
                        Some(v) => b.append_value(std::net::Ipv4Addr::from(v).to_string()),
                        None => b.append_null(),
                    }
                }
                Arc::new(b.finish())
            }
            Op::InetAton => {
                let s = bytes_of(x)?;
                Arc::new(
                    (0..s.len())
                        .map(|i| s.is_valid(i).then(|| inet_aton(s.value(i))).flatten())
                        .collect::<UInt64Array>(),
                )
            }
            Op::Inet6Aton => {
                let s = bytes_of(x)?;
                let mut b = BinaryBuilder::with_capacity(s.len(), s.len() * 16);
                for i in 0..s.len() {
                    match s.is_valid(i).then(|| parse_address(s.value(i))).flatten() {
                        Some(Address::V4(v)) => b.append_value(v),
                        Some(Address::V6(v)) => b.append_value(v),
                        None => b.append_null(),
                    }
                }
                Arc::new(b.finish())
            }
            Op::Inet6Ntoa => {
                let binary = crate::bytes::is_binary(x.data_type());
                let s = bytes_of(x)?;
                let mut b = StringBuilder::with_capacity(s.len(), s.len() * 39);
                for i in 0..s.len() {
                    match (binary && s.is_valid(i))
                        .then(|| address_text(s.value(i)))
                        .flatten()
                    {
                        Some(t) => b.append_value(t),
                        None => b.append_null(),
                    }
                }
                Arc::new(b.finish())
            }
            Op::IsIpv4 | Op::IsIpv6 | Op::IsIpv4Compat | Op::IsIpv4Mapped => {
                let s = bytes_of(x)?;
                let test = |v: &[u8]| match self.0 {
                    Op::IsIpv4 => matches!(parse_address(v), Some(Address::V4(_))),
                    Op::IsIpv6 => matches!(parse_address(v), Some(Address::V6(_))),
                    Op::IsIpv4Compat => v.len() == 16 && is_compat(v),
                    _ => v.len() == 16 && is_mapped(v),
                };
                let values: Vec<i64> = (0..s.len())
                    .map(|i| (s.is_valid(i) && test(s.value(i))) as i64)
                    .collect();
                Arc::new(Int64Array::from(values))
            }
        };
        a.finish(out, call.data_type)
    }
}

/// INET_ATON's loose reading (MariaDB's `Item_func_inet_aton::val_int`).
fn inet_aton(s: &[u8]) -> Option<u64> {
    let (mut result, mut byte, mut dots) = (0u64, 0u64, 0);
    let mut last = b'.';
    for &c in s {
        last = c;
        match c {
            b'0'..=b'9' => {
                byte = byte * 10 + (c - b'0') as u64;
                if byte > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = (result << 8).wrapping_add(byte);
                byte = 0;
            }
            _ => return None,
        }
    }
    if last == b'.' {
        return None;
    }
    // A short form's last part fills the low bytes: 'a.b' is a.0.0.b.
    match dots {
        1 => result <<= 16,
        2 => result <<= 8,
        _ => {}
    }
    Some((result << 8).wrapping_add(byte))
}

enum Address {
    V4([u8; 4]),
    V6([u8; 16]),
}

fn parse_address(s: &[u8]) -> Option<Address> {
    if s.contains(&b':') {
        parse_v6(s).map(Address::V6)
    } else {
        parse_v4(s).map(Address::V4)
    }
}

/// A dotted quad: four parts of 1 to 3 digits, each at most 255.
fn parse_v4(s: &[u8]) -> Option<[u8; 4]> {
    if s.len() > 15 {
        return None;
    }
    let mut out = [0u8; 4];
    let mut parts = s.split(|c| *c == b'.');
    for byte in &mut out {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 3 || !p.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = p.iter().fold(0u32, |v, c| v * 10 + (c - b'0') as u32);
        *byte = u8::try_from(v).ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// Eight groups of 1 to 4 hex digits, `::` for one run of zero groups, a
/// dotted IPv4 address for the last two.
fn parse_v6(s: &[u8]) -> Option<[u8; 16]> {
    if s.len() > 39 {
        return None;
    }
    let mut groups: Vec<u16> = Vec::with_capacity(8);
    let mut gap: Option<usize> = None;
    let mut rest = s;
    if rest.starts_with(b"::") {
        gap = Some(0);
        rest = &rest[2..];
    } else if rest.first() == Some(&b':') {
        return None;
    }
    while !rest.is_empty() {
        let end = rest.iter().position(|c| *c == b':').unwrap_or(rest.len());
        let part = &rest[..end];
        if part.contains(&b'.') {
            // The IPv4 tail: last, and room for two groups.
            if end != rest.len() {
                return None;
            }
            let v4 = parse_v4(part)?;
            groups.push(u16::from_be_bytes([v4[0], v4[1]]));
            groups.push(u16::from_be_bytes([v4[2], v4[3]]));
            break;
        }
        if part.is_empty() || part.len() > 4 || !part.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        let v = u16::from_str_radix(std::str::from_utf8(part).ok()?, 16).ok()?;
        groups.push(v);
        rest = &rest[end..];
        if rest.starts_with(b"::") {
            if gap.is_some() {
                return None;
            }
            gap = Some(groups.len());
            rest = &rest[2..];
        } else if !rest.is_empty() {
            rest = &rest[1..];
            if rest.is_empty() {
                // A trailing single ':'.
                return None;
            }
        }
        if groups.len() > 8 {
            return None;
        }
    }
    let full = match gap {
        Some(at) if groups.len() < 8 => {
            let mut full = groups[..at].to_vec();
            full.resize(8 - (groups.len() - at), 0);
            full.extend_from_slice(&groups[at..]);
            full
        }
        None if groups.len() == 8 => groups,
        _ => return None,
    };
    let mut out = [0u8; 16];
    for (k, g) in full.iter().enumerate() {
        out[2 * k..2 * k + 2].copy_from_slice(&g.to_be_bytes());
    }
    Some(out)
}

fn is_compat(b: &[u8]) -> bool {
    b[..12].iter().all(|x| *x == 0) && u32::from_be_bytes([b[12], b[13], b[14], b[15]]) > 1
}

fn is_mapped(b: &[u8]) -> bool {
    b[..10].iter().all(|x| *x == 0) && b[10] == 0xFF && b[11] == 0xFF
}

fn address_text(b: &[u8]) -> Option<String> {
    let dotted = |v: &[u8]| format!("{}.{}.{}.{}", v[0], v[1], v[2], v[3]);
    match b.len() {
        4 => Some(dotted(b)),
        16 if is_compat(b) => Some(format!("::{}", dotted(&b[12..]))),
        16 if is_mapped(b) => Some(format!("::ffff:{}", dotted(&b[12..]))),
        16 => {
            let groups: Vec<u16> = b
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            // The longest run of zero groups (the first of equals), if of
            // two or more.
            let (mut best, mut run) = ((0, 0), (0, 0));
            for (k, g) in groups.iter().enumerate() {
                if *g == 0 {
                    if run.1 == 0 {
                        run.0 = k;
                    }
                    run.1 += 1;
                    if run.1 > best.1 {
                        best = run;
                    }
                } else {
                    run.1 = 0;
                }
            }
            let hex = |gs: &[u16]| {
                gs.iter()
                    .map(|g| format!("{g:x}"))
                    .collect::<Vec<_>>()
                    .join(":")
            };
            Some(if best.1 >= 2 {
                format!(
                    "{}::{}",
                    hex(&groups[..best.0]),
                    hex(&groups[best.0 + best.1..])
                )
            } else {
                hex(&groups)
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v6_text_round_trips() {
        for text in [
            "::",
            "::1",
            "1::",
            "1:0:1::1",
            "1:2:3:4:5:6:7:8",
            "fdfe::5a55:caff:fefa:9089",
        ] {
            let b = parse_v6(text.as_bytes()).unwrap();
            assert_eq!(address_text(&b).unwrap(), text);
        }
        assert!(parse_v6(b"1::2::3").is_none());
        assert!(parse_v6(b"1:2:3:4:5:6:7:8:9").is_none());
        assert_eq!(inet_aton(b"10.5"), Some(167772165));
    }
}
