//! VAR_POP (VARIANCE), VAR_SAMP, STDDEV_POP (STD, STDDEV) and STDDEV_SAMP.
//!
//! Each group keeps (count, mean, M2) updated row by row with Welford's
//! recurrence, as MariaDB's `variance_fp_recurrence_next` does (one scan
//! in one partition gives MariaDB's digits); partial tables merge with
//! Chan's formula, exact up to rounding. The argument is read as a DOUBLE
//! (strings with warning 1292); NULLs are skipped; a group of no value is
//! NULL, and so is a sample statistic of one value. A standard deviation
//! of an infinite variance (M2 overflows) is DBL_MAX, as MariaDB's.
//!
//! The result is a DOUBLE. Of an integer or DECIMAL argument MariaDB shows
//! it with the argument's decimals plus 4 (`div_precision_increment`, at
//! most 30): the value is then kept as a decimal of the double's shortest
//! digits and shown at that scale (as AVG keeps internal digits).

use arrow_array::{cast::AsArray, types::Float64Type, Array, ArrayRef};
use arrow_schema::DataType;
use quiver_common::types::{
    decimal_shape, decimal_type, integer_digits, is_decimal, MAX_DECIMAL_PRECISION,
};
use quiver_common::{QuiverError, Result};
use quiver_plan::aggregate::downcast_state;
use quiver_plan::{AggregateFunction, GroupsAccumulator};

use super::doubles_as;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Statistic {
    Variance,
    StdDev,
}

pub struct Variance {
    name: &'static str,
    aliases: &'static [&'static str],
    statistic: Statistic,
    /// Divides M2 by count - 1 (a sample) instead of count.
    sample: bool,
}

pub static VAR_POP: Variance = Variance {
    name: "var_pop",
    aliases: &["variance"],
    statistic: Statistic::Variance,
    sample: false,
};

pub static VAR_SAMP: Variance = Variance {
    name: "var_samp",
    aliases: &[],
    statistic: Statistic::Variance,
    sample: true,
};

pub static STDDEV_POP: Variance = Variance {
    name: "stddev_pop",
    aliases: &["std", "stddev"],
    statistic: Statistic::StdDev,
    sample: false,
};

pub static STDDEV_SAMP: Variance = Variance {
    name: "stddev_samp",
    aliases: &[],
    statistic: Statistic::StdDev,
    sample: true,
};

/// MariaDB's `div_precision_increment`: decimals added to the argument's.
const INCREMENT: i8 = 4;
/// The most decimals a DOUBLE shows fixed (FLOATING_POINT_DECIMALS - 1).
const MAX_FIXED: i8 = 30;
/// Decimals kept inside: far more than a double's 17 significant digits.
const INTERNAL: i8 = 30;

/// The decimals MariaDB shows of an exact argument (`None`: a DOUBLE
/// printed in its shortest form, for DOUBLE and string arguments).
fn fixed_decimals(arg: &DataType) -> Option<i8> {
    match arg {
        t if t.is_integer() => Some(INCREMENT),
        DataType::Boolean | DataType::Null | DataType::Date32 => Some(INCREMENT),
        DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => {
            Some((s + INCREMENT).min(MAX_FIXED))
        }
        DataType::Timestamp(_, fsp) => {
            let fsp = fsp
                .as_deref()
                .and_then(|f| f.parse::<i8>().ok())
                .unwrap_or(0);
            Some(fsp + INCREMENT)
        }
        _ => None,
    }
}

/// Digits of the integer part of the argument.
fn integer_part(arg: &DataType) -> i32 {
    if is_decimal(arg) {
        let (p, s) = decimal_shape(arg);
        (p as i32 - s as i32).max(1)
    } else if arg.is_integer() {
        integer_digits(arg) as i32
    } else {
        // Dates as YYYYMMDD, datetimes as YYYYMMDDhhmmss.
        14
    }
}

impl AggregateFunction for Variance {
    fn name(&self) -> &'static str {
        self.name
    }

    fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    fn coerce_type(&self, _arg: &DataType) -> DataType {
        DataType::Float64
    }

    /// A decimal holding the double's shortest digits at [`INTERNAL`]
    /// decimals (fewer where the square of the argument's integer part
    /// needs the room), else a DOUBLE.
    fn return_type(&self, arg: &DataType) -> DataType {
        match fixed_decimals(arg) {
            None => DataType::Float64,
            Some(shown) => {
                let whole = 2 * integer_part(arg) + 1;
                let scale = (INTERNAL as i32).min(76 - whole).max(shown as i32) as i8;
                DataType::Decimal256(76, scale)
            }
        }
    }

    /// As many digits as the square of the argument's integer part needs,
    /// within DECIMAL's 65 (a table made from the result takes this type:
    /// MariaDB's is `double(p,d)`, which Quiver does not have).
    fn shown_type(&self, arg: &DataType) -> Option<DataType> {
        fixed_decimals(arg).map(|s| {
            let p = (2 * integer_part(arg) + 1 + s as i32).min(MAX_DECIMAL_PRECISION as i32);
            decimal_type(p as u8, s)
        })
    }

    fn accumulator(&self, output: &DataType) -> Box<dyn GroupsAccumulator> {
        Box::new(VarianceGroups {
            name: self.name,
            statistic: self.statistic,
            sample: self.sample,
            output: output.clone(),
            counts: vec![],
            means: vec![],
            m2s: vec![],
        })
    }
}

/// (count, mean, M2) per group.
#[derive(Debug)]
pub struct VarianceGroups {
    name: &'static str,
    statistic: Statistic,
    sample: bool,
    output: DataType,
    counts: Vec<u64>,
    means: Vec<f64>,
    m2s: Vec<f64>,
}

impl VarianceGroups {
    fn resize(&mut self, groups: usize) {
        if self.counts.len() < groups {
            self.counts.resize(groups, 0);
            self.means.resize(groups, 0.0);
            self.m2s.resize(groups, 0.0);
        }
    }

    /// Welford's step, as MariaDB's `variance_fp_recurrence_next`.
    #[inline]
    fn add(&mut self, g: usize, x: f64) {
        let n = self.counts[g] + 1;
        self.counts[g] = n;
        if n == 1 {
            self.means[g] = x;
            self.m2s[g] = 0.0;
        } else {
            let m = self.means[g];
            let d = x - m;
            let m_new = m + d / n as f64;
            self.means[g] = m_new;
            self.m2s[g] += d * (x - m_new);
        }
    }

    /// Chan et al.'s combination of two partial states into group `g`.
    #[inline]
    fn combine(&mut self, g: usize, (nb, mb, sb): (u64, f64, f64)) {
        let na = self.counts[g];
        if nb == 0 {
            return;
        }
        if na == 0 {
            self.counts[g] = nb;
            self.means[g] = mb;
            self.m2s[g] = sb;
            return;
        }
        let n = na + nb;
        let d = mb - self.means[g];
        let (fa, fb, fnn) = (na as f64, nb as f64, n as f64);
        self.means[g] += d * fb / fnn;
        self.m2s[g] += sb + d * d * fa * fb / fnn;
        self.counts[g] = n;
    }
}

impl GroupsAccumulator for VarianceGroups {
    fn update(&mut self, args: &[ArrayRef], ids: &[u32], groups: usize) -> Result<()> {
        self.resize(groups);
        let a = args
            .first()
            .ok_or_else(|| QuiverError::internal("VARIANCE without argument"))?;
        if a.data_type() == &DataType::Null {
            return Ok(());
        }
        let a = a
            .as_primitive_opt::<Float64Type>()
            .ok_or_else(|| QuiverError::internal("VARIANCE of a value not converted to DOUBLE"))?;
        let v = a.values();
        match a.logical_nulls().filter(|n| n.null_count() > 0) {
            None => {
                for (i, g) in ids.iter().enumerate() {
                    self.add(*g as usize, v[i]);
                }
            }
            Some(nulls) => {
                for (i, g) in ids.iter().enumerate() {
                    if nulls.is_valid(i) {
                        self.add(*g as usize, v[i]);
                    }
                }
            }
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
        let o = downcast_state::<VarianceGroups>(other)?;
        for (k, g) in ids.iter().enumerate().take(o.counts.len()) {
            self.combine(*g as usize, (o.counts[k], o.means[k], o.m2s[k]));
        }
        Ok(())
    }

    fn merge_groups(&mut self, pairs: &[(u32, u32)]) -> Result<()> {
        for &(from, into) in pairs {
            let f = from as usize;
            let state = (self.counts[f], self.means[f], self.m2s[f]);
            self.combine(into as usize, state);
        }
        Ok(())
    }

    fn evaluate(mut self: Box<Self>, groups: usize) -> Result<ArrayRef> {
        self.resize(groups);
        let least = if self.sample { 2 } else { 1 };
        let mut values = Vec::with_capacity(groups);
        let mut valid = Vec::with_capacity(groups);
        for g in 0..groups {
            let n = self.counts[g];
            let var = self.m2s[g] / (n - u64::from(self.sample)).max(1) as f64;
            values.push(match self.statistic {
                Statistic::Variance => var,
                // MariaDB's Item_sum_std: an infinite variance gives DBL_MAX.
                Statistic::StdDev if var.is_infinite() => f64::MAX,
                Statistic::StdDev => var.sqrt(),
            });
            valid.push(n >= least);
        }
        doubles_as(values, valid, &self.output, self.name)
    }

    fn memory_size(&self) -> usize {
        self.counts.capacity() * (8 + 8 + 8)
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Float64Array;
    use std::sync::Arc;

    /// A small xorshift generator: tests need no crate for randomness.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn values(acc: Box<dyn GroupsAccumulator>, groups: usize) -> Vec<Option<f64>> {
        let a = acc.evaluate(groups).unwrap();
        let a = a.as_primitive::<Float64Type>();
        (0..groups)
            .map(|g| a.is_valid(g).then(|| a.value(g)))
            .collect()
    }

    /// Splitting rows at random points into partial tables (each with its
    /// own group ids), updating each and merging them gives what one pass
    /// gives, within a tight relative tolerance; counts (and so NULLs) match
    /// exactly.
    #[test]
    fn merged_partial_states_equal_one_pass() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..200 {
            let f = [&VAR_POP, &VAR_SAMP, &STDDEV_POP, &STDDEV_SAMP][round % 4];
            let groups = 1 + rng.below(7) as usize;
            let rows = rng.below(400) as usize;
            let scale = [1.0, 1e-3, 1e9, 1e150][rng.below(4) as usize];
            let offset = [0.0, 1e6, -3.5e12][rng.below(3) as usize];
            let xs: Vec<Option<f64>> = (0..rows)
                .map(|_| {
                    (rng.below(8) != 0)
                        .then(|| offset + (rng.below(2_000_001) as f64 - 1e6) / 1e6 * scale)
                })
                .collect();
            let gs: Vec<u32> = (0..rows).map(|_| rng.below(groups as u64) as u32).collect();
            let array = |r: std::ops::Range<usize>| -> ArrayRef {
                Arc::new(Float64Array::from(xs[r].to_vec()))
            };
            let mut whole = f.accumulator(&DataType::Float64);
            whole.update(&[array(0..rows)], &gs, groups).unwrap();
            let want = values(whole, groups);
            // Cut points, then one table per part with its groups renumbered
            // in first-seen order, as a partition's table numbers them.
            let mut cuts: Vec<usize> = (0..rng.below(5))
                .map(|_| rng.below(rows as u64 + 1) as usize)
                .collect();
            cuts.extend([0, rows]);
            cuts.sort();
            let mut total = f.accumulator(&DataType::Float64);
            for w in cuts.windows(2) {
                let (lo, hi) = (w[0], w[1]);
                let mut local: Vec<u32> = vec![];
                let ids: Vec<u32> = gs[lo..hi]
                    .iter()
                    .map(|g| match local.iter().position(|x| x == g) {
                        Some(p) => p as u32,
                        None => {
                            local.push(*g);
                            local.len() as u32 - 1
                        }
                    })
                    .collect();
                let mut part = f.accumulator(&DataType::Float64);
                part.update(&[array(lo..hi)], &ids, local.len()).unwrap();
                total.merge(part, &local, groups).unwrap();
            }
            let got = values(total, groups);
            for (g, (a, b)) in want.iter().zip(&got).enumerate() {
                // Welford's and Chan's rounding errors both grow with the
                // rows and with the mean against the spread (cancellation):
                // the bound is a few ulps of mean² + variance per row.
                let vals: Vec<f64> = xs
                    .iter()
                    .zip(&gs)
                    .filter(|(_, h)| **h as usize == g)
                    .filter_map(|(x, _)| *x)
                    .collect();
                let n = vals.len() as f64;
                let mean = vals.iter().sum::<f64>() / n.max(1.0);
                let squared = |v: f64| match f.statistic {
                    Statistic::Variance => v,
                    Statistic::StdDev => v * v,
                };
                match (a, b) {
                    (None, None) => {}
                    (Some(a), Some(b)) => {
                        let (a2, b2) = (squared(*a), squared(*b));
                        let tol =
                            8.0 * f64::EPSILON * (n + 1.0) * (mean * mean + a2.abs()) + 1e-300;
                        assert!(
                            (a2 - b2).abs() <= tol,
                            "round {round} group {g}: {a} vs {b} (tolerance {tol})"
                        );
                    }
                    _ => panic!("round {round} group {g}: {a:?} vs {b:?}"),
                }
            }
        }
    }

    /// A running window: folding each group into the next equals updating
    /// one group with every row so far.
    #[test]
    fn merge_groups_accumulates_prefixes() {
        let xs = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        let ids: Vec<u32> = (0..xs.len() as u32).collect();
        let mut acc = VAR_SAMP.accumulator(&DataType::Float64);
        acc.update(&[Arc::new(Float64Array::from(xs.to_vec()))], &ids, xs.len())
            .unwrap();
        let pairs: Vec<(u32, u32)> = (1..xs.len() as u32).map(|g| (g - 1, g)).collect();
        acc.merge_groups(&pairs).unwrap();
        let got = values(acc, xs.len());
        for k in 0..xs.len() {
            let mut one = VAR_SAMP.accumulator(&DataType::Float64);
            one.update(
                &[Arc::new(Float64Array::from(xs[..=k].to_vec()))],
                &vec![0; k + 1],
                1,
            )
            .unwrap();
            let want = values(one, 1)[0];
            match (want, got[k]) {
                (None, None) => {}
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0)),
                other => panic!("prefix {k}: {other:?}"),
            }
        }
    }
}
