//! UUID(), SYS_GUID() and UUID_SHORT(): identifiers unique per row.
//!
//! UUID() is a version 1 UUID as MariaDB makes it: the time in 100 ns
//! units since 1582-10-15 (low, middle, high with the version 1), a clock
//! sequence with the variant bits, and a node; the node and the clock
//! sequence are random per process (MariaDB takes the MAC address when
//! it can, else random bytes), and a time that does not advance is moved
//! on by one unit so that no two values repeat. SYS_GUID() is the same
//! 32 hex digits without the dashes. UUID_SHORT() is MariaDB's
//! `(server_id & 255) << 56 | server start time << 24`, plus one per value
//! (see [`UUID_SHORT`]).
//!
//! MariaDB 10.11 types UUID() as its UUID data type (`uuid` in CREATE TABLE
//! ... AS); Quiver has no such type and gives VARCHAR(36) text.

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use arrow_array::builder::StringBuilder;
use arrow_array::UInt64Array;
use arrow_schema::DataType;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth, StringResult};
use quiver_plan::ScalarFunction;

/// 100 ns units from 1582-10-15 to 1970-01-01.
const GREGORIAN_OFFSET: u64 = 0x01B2_1DD2_1381_4000;

/// The process's node and clock sequence, and the last time used.
struct Generator {
    node: u64,
    clock_seq: u16,
    last: u64,
}

fn generator() -> &'static Mutex<Generator> {
    static G: OnceLock<Mutex<Generator>> = OnceLock::new();
    G.get_or_init(|| {
        let r = random_u64();
        Mutex::new(Generator {
            // A random node has the multicast bit set (RFC 4122 4.5).
            node: (r & 0xFFFF_FFFF_FFFF) | 0x0100_0000_0000,
            clock_seq: (r >> 48) as u16 & 0x3FFF,
            last: 0,
        })
    })
}

/// Random bits from the standard library's seeded hasher and the clock.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(now_100ns() as u128);
    h.write_u32(std::process::id());
    h.finish()
}

fn now_100ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| (d.as_nanos() / 100) as u64)
}

/// `rows` UUIDs as 36 (or, without dashes, 32) lower-case hex characters.
fn uuids(rows: usize, dashes: bool) -> StringBuilder {
    let width = if dashes { 36 } else { 32 };
    let mut b = StringBuilder::with_capacity(rows, rows * width);
    let (node, clock_seq, first) = {
        let mut g = generator().lock().unwrap_or_else(|e| e.into_inner());
        let now = now_100ns() + GREGORIAN_OFFSET;
        let first = now.max(g.last + 1);
        g.last = first + rows as u64 - 1;
        (g.node, g.clock_seq, first)
    };
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = [0u8; 36];
    for i in 0..rows as u64 {
        let t = first + i;
        let fields: [(u64, usize); 5] = [
            (t & 0xFFFF_FFFF, 8),
            ((t >> 32) & 0xFFFF, 4),
            (((t >> 48) & 0x0FFF) | 0x1000, 4),
            (clock_seq as u64 | 0x8000, 4),
            (node, 12),
        ];
        let mut at = 0;
        for (k, (v, digits)) in fields.iter().enumerate() {
            if dashes && k > 0 {
                text[at] = b'-';
                at += 1;
            }
            for d in 0..*digits {
                text[at + d] = HEX[((v >> (4 * (digits - 1 - d))) & 0xF) as usize];
            }
            at += digits;
        }
        // ASCII hex digits and dashes.
        b.append_value(std::str::from_utf8(&text[..at]).unwrap_or_default());
    }
    b
}

/// UUID() or SYS_GUID().
pub struct Uuid {
    name: &'static str,
    dashes: bool,
}

pub static UUID: Uuid = Uuid {
    name: "uuid",
    dashes: true,
};

pub static SYS_GUID: Uuid = Uuid {
    name: "sys_guid",
    dashes: false,
};

impl ScalarFunction for Uuid {
    fn deterministic(&self) -> bool {
        false
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        0..=0
    }

    fn coerce_types(&self, _args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    /// MariaDB declares both nullable (CREATE TABLE ... AS).
    fn nullable(&self, _any_arg_nullable: bool) -> bool {
        true
    }

    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        Some(if self.dashes { 36 } else { 32 })
    }

    fn string_result(&self) -> StringResult {
        StringResult::AsciiDigits
    }

    fn invoke(&self, _args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let mut b = uuids(call.rows, self.dashes);
        Ok(ColumnarValue::Array(Arc::new(b.finish())))
    }
}

pub struct UuidShort;

/// UUID_SHORT(): Quiver's server id is 1 (MariaDB's default `server_id`),
/// so the top byte is 1.
pub static UUID_SHORT: UuidShort = UuidShort;

fn short_counter() -> &'static AtomicU64 {
    static C: OnceLock<AtomicU64> = OnceLock::new();
    C.get_or_init(|| {
        const SERVER_ID: u64 = 1;
        let start = now_100ns() / 10_000_000;
        AtomicU64::new((SERVER_ID & 255) << 56 | start << 24)
    })
}

impl ScalarFunction for UuidShort {
    fn deterministic(&self) -> bool {
        false
    }

    fn name(&self) -> &'static str {
        "uuid_short"
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        0..=0
    }

    fn coerce_types(&self, _args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![])
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::UInt64))
    }

    fn nullable(&self, _any_arg_nullable: bool) -> bool {
        false
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::LongLong, 21))
    }

    fn invoke(&self, _args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let n = call.rows as u64;
        let first = short_counter().fetch_add(n, Ordering::Relaxed);
        let v: UInt64Array = (first..first + n).map(Some).collect();
        Ok(ColumnarValue::Array(Arc::new(v)))
    }
}
