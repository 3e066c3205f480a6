//! RAND([seed]) and PI().
//!
//! RAND follows MariaDB's generator (`my_rnd`, mysys/my_rnd.cc): two
//! 30-bit seeds, each step `s1 = (3*s1 + s2) mod M`, `s2 = (s1 + s2 + 33)
//! mod M` with M = 2^30 - 1, the value s1 / M. A seed n (its integer
//! value, rounded as MariaDB's `val_int`, taken modulo 2^32; NULL is 0)
//! starts the seeds at `n*0x10001 + 55555555` and `n*0x10000001`. A
//! constant seed starts one sequence for the query, which each row then
//! continues, in the order rows are computed; a seed that varies by row
//! starts a new sequence on each row and takes its first value. RAND()
//! with no seed is a generator seeded from the clock, per row.
//!
//! PI() is the DOUBLE pi, which MariaDB shows with 6 decimals (3.141593),
//! and so expressions of it (PI() * 2 is 6.283185): its `decimals`.

use std::cell::Cell;
use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::*, Array, Float64Array};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use crate::expr::cast_array;

const MAX: u64 = 0x3FFF_FFFF;

/// MariaDB's generator state: the two seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rnd {
    s1: u64,
    s2: u64,
}

impl Rnd {
    /// The state RAND(seed) starts from (MariaDB computes the products in
    /// 64 bits and keeps their low 32).
    pub fn from_seed(seed: u32) -> Rnd {
        let n = seed as u64;
        let s1 = (n.wrapping_mul(0x10001).wrapping_add(55_555_555)) as u32 as u64;
        let s2 = (n.wrapping_mul(0x1000_0001)) as u32 as u64;
        Rnd {
            s1: s1 % MAX,
            s2: s2 % MAX,
        }
    }

    /// The next value, in [0, 1).
    #[inline]
    pub fn next(&mut self) -> f64 {
        self.s1 = (self.s1 * 3 + self.s2) % MAX;
        self.s2 = (self.s1 + self.s2 + 33) % MAX;
        self.s1 as f64 / MAX as f64
    }

    fn pack(self) -> u64 {
        self.s1 << 32 | self.s2
    }

    fn unpack(v: u64) -> Rnd {
        Rnd {
            s1: v >> 32,
            s2: v & 0xFFFF_FFFF,
        }
    }
}

thread_local! {
    /// RAND()'s generator, one per thread, seeded from the clock and the
    /// thread (MariaDB seeds each connection's from the time and its id).
    static UNSEEDED: Cell<Option<Rnd>> = const { Cell::new(None) };
}

fn unseeded_start() -> Rnd {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let here = &now as *const u64 as u64;
    let mix = now ^ here.rotate_left(29) ^ (now >> 32);
    Rnd::from_seed(mix as u32 ^ (mix >> 32) as u32)
}

pub struct Rand;

pub static RAND: Rand = Rand;

impl ScalarFunction for Rand {
    fn deterministic(&self) -> bool {
        false
    }

    fn name(&self) -> &'static str {
        "rand"
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        0..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter()
            .map(|t| match t {
                t if t.is_unsigned_integer() => Ok(DataType::UInt64),
                t if t.is_integer() => Ok(DataType::Int64),
                DataType::Null => Ok(DataType::Null),
                DataType::Boolean => Ok(DataType::Int64),
                // Read as val_int: a string as an integer (warning 1292
                // "INTEGER"), a number rounded to a whole one.
                t if is_string(t) => Ok(DataType::Utf8),
                t if t.is_numeric() => Ok(DataType::Decimal128(38, 0)),
                other => Err(QuiverError::not_supported(format!("RAND of {other}"))),
            })
            .collect()
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Float64))
    }

    fn nullable(&self, _any_arg_nullable: bool) -> bool {
        false
    }

    fn keeps_state(&self) -> bool {
        true
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let rows = call.rows;
        let mut out = Vec::with_capacity(rows);
        match args.first() {
            None => UNSEEDED.with(|g| {
                let mut r = g.get().unwrap_or_else(unseeded_start);
                out.extend((0..rows).map(|_| r.next()));
                g.set(Some(r));
            }),
            Some(ColumnarValue::Scalar(v, _)) => {
                let start = || Rnd::from_seed(seed_of_scalar(v));
                match call.state {
                    Some(state) => {
                        let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
                        let mut r = st.map_or_else(start, Rnd::unpack);
                        out.extend((0..rows).map(|_| r.next()));
                        *st = Some(r.pack());
                    }
                    None => {
                        let mut r = start();
                        out.extend((0..rows).map(|_| r.next()));
                    }
                }
            }
            Some(ColumnarValue::Array(a)) => {
                let seeds = seeds_of(a)?;
                out.extend(seeds.into_iter().map(|s| Rnd::from_seed(s).next()));
            }
        }
        let nulls: Option<NullBuffer> = None;
        Ok(ColumnarValue::Array(Arc::new(Float64Array::new(
            out.into(),
            nulls,
        ))))
    }
}

/// A string's integer value as MariaDB's `val_int` reads it: its integer
/// prefix (saturated to BIGINT), with warning 1292 when more follows.
pub(crate) fn string_int(s: &str) -> i64 {
    let b = s.as_bytes();
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let (_, end) = quiver_common::types::number_prefix(b, true, space);
    let text = s[..end].trim_start_matches(|c: char| c.is_ascii_whitespace());
    let v = match text.parse::<i64>() {
        Ok(v) => v,
        Err(_) if text.starts_with('-') && text.len() > 1 => i64::MIN,
        Err(_) if text.bytes().any(|c| c.is_ascii_digit()) => i64::MAX,
        Err(_) => 0,
    };
    if b[end..].iter().any(|c| !space(*c)) || !b.iter().any(|c| c.is_ascii_digit()) {
        crate::warnings::raise_with(crate::warnings::Level::Warning, 1292, || {
            format!("Truncated incorrect INTEGER value: '{s}'")
        });
    }
    v
}

/// A seed as MariaDB's `(uint32) val_int()`: NULL is 0.
fn seed_of_scalar(v: &ScalarValue) -> u32 {
    match v {
        ScalarValue::Utf8(s) => string_int(s) as u32,
        ScalarValue::UInt64(n) => *n as u32,
        ScalarValue::Decimal(n, _, 0) => n.as_i128() as u32,
        v => v.as_i64().unwrap_or(0) as u32,
    }
}

/// Each row's seed (see [`seed_of_scalar`]).
fn seeds_of(a: &arrow_array::ArrayRef) -> Result<Vec<u32>> {
    let valid = |i: usize| a.is_valid(i);
    Ok(match a.data_type() {
        DataType::UInt64 => {
            let v = a.as_primitive::<UInt64Type>();
            (0..v.len())
                .map(|i| if valid(i) { v.value(i) as u32 } else { 0 })
                .collect()
        }
        DataType::Decimal128(..) => {
            let v = a.as_primitive::<Decimal128Type>();
            (0..v.len())
                .map(|i| if valid(i) { v.value(i) as u32 } else { 0 })
                .collect()
        }
        DataType::Utf8 => {
            let v = a.as_string::<i32>();
            (0..v.len())
                .map(|i| {
                    if valid(i) {
                        string_int(v.value(i)) as u32
                    } else {
                        0
                    }
                })
                .collect()
        }
        _ => {
            let c = cast_array(a, &DataType::Int64)?;
            let v = c.as_primitive::<Int64Type>();
            (0..v.len())
                .map(|i| if valid(i) { v.value(i) as u32 } else { 0 })
                .collect()
        }
    })
}

pub struct Pi;

pub static PI: Pi = Pi;

impl ScalarFunction for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        0..=0
    }

    fn coerce_types(&self, _args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![])
    }

    fn decimals(&self) -> Option<u8> {
        Some(6)
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Float64))
    }

    fn nullable(&self, _any_arg_nullable: bool) -> bool {
        false
    }

    fn invoke(&self, _args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        Ok(ColumnarValue::Scalar(
            ScalarValue::Float64(std::f64::consts::PI),
            call.data_type.clone(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values MariaDB 10.11 gives (SELECT RAND(1), RAND(0), RAND(-1), and
    /// RAND(3) over three rows).
    #[test]
    fn seeded_sequences_are_mariadbs() {
        assert_eq!(Rnd::from_seed(1).next(), 0.40540353712197724);
        assert_eq!(Rnd::from_seed(0).next(), 0.15522042769493574);
        assert_eq!(Rnd::from_seed(u32::MAX).next(), 0.9050373219931845);
        let mut r = Rnd::from_seed(3);
        let seq = [r.next(), r.next(), r.next()];
        assert_eq!(
            seq,
            [0.9057697559760601, 0.37307905813034536, 0.14808605345719125]
        );
        assert_eq!(Rnd::unpack(r.pack()), r);
    }
}
