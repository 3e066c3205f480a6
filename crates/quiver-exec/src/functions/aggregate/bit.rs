//! BIT_AND, BIT_OR and BIT_XOR: the bitwise fold of a group's values as
//! 64-bit words, a BIGINT UNSIGNED (`bigint(21) unsigned`), never NULL: a
//! group of no value gives the operation's identity (BIT_AND all ones,
//! 18446744073709551615; BIT_OR and BIT_XOR 0), as MariaDB's.
//!
//! The argument is read as MariaDB's `val_int()` reads it: BIGINT UNSIGNED
//! as it is, other integers as signed 64-bit words (-1 is all ones),
//! DECIMALs rounded half away from zero, DOUBLEs half to even, strings as
//! integers with warning 1292 (`'1e3'` is 1), dates as YYYYMMDD.

use std::sync::Arc;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, UInt64Array};
use arrow_schema::DataType;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::aggregate::downcast_state;
use quiver_plan::{AggregateFunction, GroupsAccumulator};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BitOp {
    And,
    Or,
    Xor,
}

impl BitOp {
    fn identity(self) -> u64 {
        match self {
            BitOp::And => u64::MAX,
            BitOp::Or | BitOp::Xor => 0,
        }
    }
}

pub struct BitAggregate {
    name: &'static str,
    op: BitOp,
}

pub static BIT_AND: BitAggregate = BitAggregate {
    name: "bit_and",
    op: BitOp::And,
};

pub static BIT_OR: BitAggregate = BitAggregate {
    name: "bit_or",
    op: BitOp::Or,
};

pub static BIT_XOR: BitAggregate = BitAggregate {
    name: "bit_xor",
    op: BitOp::Xor,
};

impl AggregateFunction for BitAggregate {
    fn name(&self) -> &'static str {
        self.name
    }

    fn coerce_type(&self, arg: &DataType) -> DataType {
        match arg {
            DataType::UInt64 => DataType::UInt64,
            _ => DataType::Int64,
        }
    }

    fn return_type(&self, _arg: &DataType) -> DataType {
        DataType::UInt64
    }

    fn declared_type(&self) -> Option<&'static str> {
        Some("bigint(21) unsigned")
    }

    fn nullable(&self) -> bool {
        false
    }

    fn empty_value(&self) -> ScalarValue {
        ScalarValue::UInt64(self.op.identity())
    }

    fn accumulator(&self, _output: &DataType) -> Box<dyn GroupsAccumulator> {
        Box::new(BitGroups {
            op: self.op,
            words: vec![],
        })
    }
}

/// One word per group.
#[derive(Debug)]
pub struct BitGroups {
    op: BitOp,
    words: Vec<u64>,
}

/// Folds `v[i]` into `words[ids[i]]` for the valid rows: one loop per
/// operation, so the operation is not chosen per row.
fn fold(op: BitOp, words: &mut [u64], ids: &[u32], v: &[u64], valid: impl Fn(usize) -> bool) {
    macro_rules! run {
        ($f:expr) => {
            for (i, g) in ids.iter().enumerate() {
                if valid(i) {
                    let w = &mut words[*g as usize];
                    *w = $f(*w, v[i]);
                }
            }
        };
    }
    match op {
        BitOp::And => run!(|a: u64, b: u64| a & b),
        BitOp::Or => run!(|a: u64, b: u64| a | b),
        BitOp::Xor => run!(|a: u64, b: u64| a ^ b),
    }
}

impl BitOp {
    fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            BitOp::And => a & b,
            BitOp::Or => a | b,
            BitOp::Xor => a ^ b,
        }
    }
}

impl BitGroups {
    fn resize(&mut self, groups: usize) {
        if self.words.len() < groups {
            self.words.resize(groups, self.op.identity());
        }
    }
}

impl GroupsAccumulator for BitGroups {
    fn update(&mut self, args: &[ArrayRef], ids: &[u32], groups: usize) -> Result<()> {
        self.resize(groups);
        let a = args
            .first()
            .ok_or_else(|| QuiverError::internal("BIT_AND without argument"))?;
        // Signed words as their bits.
        let words: Vec<u64>;
        let v: &[u64] = match a.data_type() {
            DataType::Null => return Ok(()),
            DataType::UInt64 => a.as_primitive::<UInt64Type>().values(),
            DataType::Int64 => {
                words = a
                    .as_primitive::<Int64Type>()
                    .values()
                    .iter()
                    .map(|x| *x as u64)
                    .collect();
                &words
            }
            other => {
                return Err(QuiverError::internal(format!(
                    "BIT_AND of {other}, not converted to a 64-bit integer"
                )))
            }
        };
        match a.logical_nulls().filter(|n| n.null_count() > 0) {
            None => fold(self.op, &mut self.words, ids, v, |_| true),
            Some(n) => fold(self.op, &mut self.words, ids, v, |i| n.is_valid(i)),
        }
        Ok(())
    }

    fn merge(
        &mut self,
        other: Box<dyn GroupsAccumulator>,
        ids: &[u32],
        groups: usize,
    ) -> Result<()> {
        self.resize(groups);
        let o = downcast_state::<BitGroups>(other)?;
        let n = o.words.len().min(ids.len());
        fold(self.op, &mut self.words, &ids[..n], &o.words[..n], |_| true);
        Ok(())
    }

    fn merge_groups(&mut self, pairs: &[(u32, u32)]) -> Result<()> {
        for &(from, into) in pairs {
            let w = self.words[from as usize];
            let t = &mut self.words[into as usize];
            *t = self.op.apply(*t, w);
        }
        Ok(())
    }

    fn evaluate(mut self: Box<Self>, groups: usize) -> Result<ArrayRef> {
        self.resize(groups);
        self.words.truncate(groups);
        Ok(Arc::new(UInt64Array::from(self.words)))
    }

    fn memory_size(&self) -> usize {
        self.words.capacity() * 8
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int64Array;

    /// Partial tables merged equal one pass, and empty groups are the identity.
    #[test]
    fn merge_equals_one_pass() {
        let xs: Vec<Option<i64>> = (0..300)
            .map(|i: i64| {
                (i % 7 != 0).then(|| i.wrapping_mul(0x9e37_79b9_7f4a_7c15u64 as i64) ^ -i)
            })
            .collect();
        let groups = 5;
        let ids: Vec<u32> = (0..xs.len()).map(|i| (i * i % 4) as u32).collect();
        for f in [&BIT_AND, &BIT_OR, &BIT_XOR] {
            let mut whole = f.accumulator(&DataType::UInt64);
            whole
                .update(&[Arc::new(Int64Array::from(xs.clone()))], &ids, groups)
                .unwrap();
            let mut total = f.accumulator(&DataType::UInt64);
            for (lo, hi) in [(0, 17), (17, 17), (17, 250), (250, 300)] {
                let mut part = f.accumulator(&DataType::UInt64);
                let arg: ArrayRef = Arc::new(Int64Array::from(xs[lo..hi].to_vec()));
                part.update(&[arg], &ids[lo..hi], 4).unwrap();
                total.merge(part, &[0, 1, 2, 3], groups).unwrap();
            }
            let (a, b) = (
                whole.evaluate(groups).unwrap(),
                total.evaluate(groups).unwrap(),
            );
            assert_eq!(a.as_ref(), b.as_ref());
            let last = a.as_primitive::<UInt64Type>().value(4);
            assert_eq!(last, f.op.identity());
        }
    }
}
