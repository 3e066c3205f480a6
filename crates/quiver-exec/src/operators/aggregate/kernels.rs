//! Typed loops the accumulators share: MIN/MAX folds, exact sums with
//! overflow into 256 bits, sums over few groups, AVG rounding.

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_buffer::{i256, NullBuffer};
use arrow_schema::DataType;
use quiver_collation::Collation;
use quiver_common::types::{pow10, rescale256};
use quiver_common::{QuiverError, Result};

use crate::expr::cast_array;

/// `x` replaces the current MIN (`min`) or MAX string under `collation`
/// (ties keep the value seen first).
pub(super) fn beats(x: &[u8], current: Option<&[u8]>, min: bool, collation: Collation) -> bool {
    match current {
        None => true,
        Some(cur) => {
            let o = collation.compare(x, cur);
            if min {
                o.is_lt()
            } else {
                o.is_gt()
            }
        }
    }
}

/// Merges another partial MIN (`min`) or MAX state (`ov`, `os`: value and
/// whether seen, per row of the other side) into the slots of groups `ids`.
pub(super) fn merge_min_max<T: PartialOrd + Copy>(
    ids: &[u32],
    vals: &mut [T],
    seen: &mut [bool],
    ov: &[T],
    os: &[bool],
    min: bool,
) {
    fold_min_max(ids, vals, seen, min, |k| os[k].then(|| ov[k]));
}

/// Folds `value(k)` (None: NULL) into the MIN or MAX of group `ids[k]`.
#[inline(always)]
pub(super) fn fold_min_max<T: PartialOrd + Copy>(
    ids: &[u32],
    vals: &mut [T],
    seen: &mut [bool],
    min: bool,
    value: impl Fn(usize) -> Option<T>,
) {
    for (k, g) in ids.iter().enumerate() {
        let g = *g as usize;
        if let Some(x) = value(k) {
            if !seen[g] || (min && x < vals[g]) || (!min && x > vals[g]) {
                vals[g] = x;
                seen[g] = true;
            }
        }
    }
}

/// Whether AVG of values at `scale` computed at `out_scale` rounds: MySQL
/// truncates the quotient at its internal digits (the binder rounds that to
/// the declared scale later) and rounds where only the declared scale is kept.
pub(super) fn avg_rounds(scale: i8, out_scale: i8) -> bool {
    out_scale < quiver_common::types::division_internal_scale(scale, 0)
}

/// Adds `x` to group `g`'s exact sum; what would overflow the i128 sum
/// moves to the group's i256 part.
#[inline(always)]
pub(super) fn add_exact(sums: &mut [i128], wide: &mut Vec<i256>, g: usize, x: i128) {
    match sums[g].checked_add(x) {
        Some(v) => sums[g] = v,
        None => spill(sums, wide, g, x),
    }
}

/// Calls `add(group, row)` for each row `is_valid` accepts, and marks its
/// group seen and counted (for AVG).
#[inline(always)]
pub(super) fn for_valid_rows(
    ids: &[u32],
    is_valid: impl Fn(usize) -> bool,
    seen: &mut [bool],
    avg: &mut Option<Vec<i64>>,
    mut add: impl FnMut(usize, usize),
) {
    for (i, g) in ids.iter().enumerate() {
        if is_valid(i) {
            let g = *g as usize;
            add(g, i);
            seen[g] = true;
            if let Some(c) = avg {
                c[g] += 1;
            }
        }
    }
}

/// At most this many groups take [`sum_few_groups`].
pub(super) const FEW_GROUPS: usize = 64;

/// Adds `v[i]` to the sum of group `ids[i]` for every row (none NULL) when
/// the groups are few (Q1's four): consecutive rows then often add to one
/// sum, and each add would wait for the previous one's store. Four banks of
/// sums, taken in turn, make four independent chains; they are added up at
/// the end. Sums may wrap: the caller's bound says they do not.
pub(super) fn sum_few_groups(
    ids: &[u32],
    v: &[i128],
    sums: &mut [i128],
    seen: &mut [bool],
    avg: Option<&mut [i64]>,
) {
    let groups = sums.len();
    let mut banks = [[0i128; FEW_GROUPS]; 4];
    let mut counts = [[0i64; FEW_GROUPS]; 4];
    let (id_quads, id_rest) = ids.as_chunks::<4>();
    let (v_quads, v_rest) = v[..ids.len()].as_chunks::<4>();
    for (g4, x4) in id_quads.iter().zip(v_quads) {
        for lane in 0..4 {
            let g = g4[lane] as usize % FEW_GROUPS;
            banks[lane][g] = banks[lane][g].wrapping_add(x4[lane]);
            counts[lane][g] += 1;
        }
    }
    for (g, x) in id_rest.iter().zip(v_rest) {
        let g = *g as usize % FEW_GROUPS;
        banks[0][g] = banks[0][g].wrapping_add(*x);
        counts[0][g] += 1;
    }
    let mut avg = avg;
    for g in 0..groups {
        let n: i64 = counts.iter().map(|c| c[g]).sum();
        if n == 0 {
            continue;
        }
        let total = banks.iter().fold(0i128, |t, b| t.wrapping_add(b[g]));
        sums[g] = sums[g].wrapping_add(total);
        seen[g] = true;
        if let Some(c) = avg.as_deref_mut() {
            c[g] += n;
        }
    }
}

#[cold]
pub(super) fn spill(sums: &mut [i128], wide: &mut Vec<i256>, g: usize, x: i128) {
    wide.resize(sums.len(), i256::ZERO);
    wide[g] = wide[g].wrapping_add(i256::from_i128(sums[g]));
    sums[g] = x;
}

/// Exact totals at scale `from` as an array of `t` (a decimal of a scale at
/// least `from`, or another type they are cast to).
pub(super) fn wide_decimal_out(
    v: Vec<i256>,
    seen: Vec<bool>,
    from: i8,
    t: &DataType,
) -> Result<ArrayRef> {
    let nulls = Some(NullBuffer::from(seen));
    let (p, s) = match t {
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => (*p, *s),
        _ => (76, from),
    };
    let limit = pow10(p as u32).unwrap_or(i256::MAX);
    let v = v
        .into_iter()
        .map(|x| {
            rescale256(x, from, s)
                .filter(|x| x.checked_abs().is_some_and(|a| a < limit))
                .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "SUM"))
        })
        .collect::<Result<Vec<_>>>()?;
    if let DataType::Decimal128(..) = t {
        let v: Vec<i128> = v.into_iter().map(|x| x.as_i128()).collect();
        return Ok(Arc::new(
            arrow_array::Decimal128Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
        ));
    }
    let a: ArrayRef = Arc::new(
        arrow_array::Decimal256Array::new(v.into(), nulls).with_precision_and_scale(p, s)?,
    );
    if matches!(t, DataType::Decimal256(..)) {
        Ok(a)
    } else {
        cast_array(&a, t)
    }
}

#[cfg(test)]
mod few_group_tests {
    use super::*;

    #[test]
    fn banked_sums_equal_a_plain_loop() {
        let mut state = 11u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 17
        };
        for round in 0..40 {
            let groups = 1 + (next() % FEW_GROUPS as u64) as usize;
            let rows = (next() % 1000) as usize + round;
            let ids: Vec<u32> = (0..rows).map(|_| (next() % groups as u64) as u32).collect();
            let v: Vec<i128> = (0..rows)
                .map(|_| (next() as i128 - (1 << 46)) * (next() as i128))
                .collect();
            let mut want = (vec![7i128; groups], vec![false; groups], vec![3i64; groups]);
            for (g, x) in ids.iter().zip(&v) {
                let g = *g as usize;
                want.0[g] = want.0[g].wrapping_add(*x);
                want.1[g] = true;
                want.2[g] += 1;
            }
            let mut got = (vec![7i128; groups], vec![false; groups], vec![3i64; groups]);
            sum_few_groups(&ids, &v, &mut got.0, &mut got.1, Some(&mut got.2));
            assert_eq!(got, want, "round {round}");
        }
    }
}
