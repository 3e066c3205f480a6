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

/// The sum, the count of non-NULL values and the scale of an exact column
/// when every row goes to one group (SUM without GROUP BY), read in its own
/// type: no widened copy, and the narrow types add in i64 lanes the
/// compiler vectorizes (a batch of under 2^31 values of under 2^32 cannot
/// overflow them). None for the types the general path widens.
pub(super) fn sum_one_group(a: &ArrayRef) -> Option<(i128, i64, i8)> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_array::{Array, ArrowPrimitiveType};

    fn narrow<T: ArrowPrimitiveType>(a: &ArrayRef) -> i128
    where
        T::Native: Into<i64>,
    {
        let p = a.as_primitive::<T>();
        let v = p.values();
        match p.nulls() {
            None => v.iter().map(|&x| x.into()).sum::<i64>() as i128,
            Some(n) => v
                .iter()
                .zip(n.iter())
                .map(|(&x, ok)| if ok { x.into() } else { 0 })
                .sum::<i64>() as i128,
        }
    }
    fn wide<T: ArrowPrimitiveType>(a: &ArrayRef) -> i128
    where
        T::Native: Into<i128>,
    {
        let p = a.as_primitive::<T>();
        let v = p.values();
        let fold = |s: i128, x: i128| s.wrapping_add(x);
        match p.nulls() {
            None => v.iter().map(|&x| x.into()).fold(0, fold),
            Some(n) => v
                .iter()
                .zip(n.iter())
                .map(|(&x, ok)| if ok { x.into() } else { 0 })
                .fold(0, fold),
        }
    }
    if a.len() >= 1 << 31 {
        return None;
    }
    let sum = match a.data_type() {
        DataType::Int8 => narrow::<Int8Type>(a),
        DataType::Int16 => narrow::<Int16Type>(a),
        DataType::Int32 => narrow::<Int32Type>(a),
        DataType::UInt8 => narrow::<UInt8Type>(a),
        DataType::UInt16 => narrow::<UInt16Type>(a),
        DataType::UInt32 => narrow::<UInt32Type>(a),
        DataType::Int64 => wide::<Int64Type>(a),
        DataType::UInt64 => wide::<UInt64Type>(a),
        DataType::Decimal128(..) => wide::<Decimal128Type>(a),
        _ => return None,
    };
    let scale = match a.data_type() {
        DataType::Decimal128(_, s) => *s,
        _ => 0,
    };
    Some((sum, (a.len() - a.null_count()) as i64, scale))
}

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

#[cfg(test)]
mod one_group_tests {
    use super::*;
    use arrow_array::types::*;
    use arrow_array::{Array, Decimal128Array, PrimitiveArray};

    /// The one-group sum in the column's own type equals the sum of the
    /// values widened to i128 one by one, NULLs skipped, for every type it
    /// takes, extreme values included.
    #[test]
    fn one_group_sums_equal_a_widened_plain_loop() {
        let mut state = 3u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        };
        fn check<T: arrow_array::ArrowPrimitiveType>(
            values: Vec<Option<T::Native>>,
            widen: impl Fn(T::Native) -> i128,
        ) {
            let want: i128 = values.iter().flatten().map(|v| widen(*v)).sum();
            let count = values.iter().flatten().count() as i64;
            let a: ArrayRef = Arc::new(values.into_iter().collect::<PrimitiveArray<T>>());
            let (sum, n, scale) = sum_one_group(&a).expect("an exact type");
            assert_eq!((sum, n, scale), (want, count, 0), "{:?}", a.data_type());
        }
        for round in 0..30 {
            let rows = (next() % 3000) as usize + round;
            let null = |x: u64| x.is_multiple_of(7);
            macro_rules! ints {
                ($t:ty, $n:ty, $extreme:expr) => {
                    check::<$t>(
                        (0..rows)
                            .map(|i| {
                                let x = next();
                                (!null(x)).then(|| if i % 97 == 0 { $extreme } else { x as $n })
                            })
                            .collect(),
                        |v| v as i128,
                    )
                };
            }
            ints!(Int8Type, i8, i8::MIN);
            ints!(Int16Type, i16, i16::MIN);
            ints!(Int32Type, i32, i32::MIN);
            ints!(Int64Type, i64, i64::MIN);
            ints!(UInt8Type, u8, u8::MAX);
            ints!(UInt16Type, u16, u16::MAX);
            ints!(UInt32Type, u32, u32::MAX);
            ints!(UInt64Type, u64, u64::MAX);
            let d: Vec<Option<i128>> = (0..rows)
                .map(|_| {
                    let x = next();
                    (!null(x)).then_some(x as i128 * 1_000_003)
                })
                .collect();
            let want: i128 = d.iter().flatten().sum();
            let a: ArrayRef = Arc::new(
                Decimal128Array::from(d)
                    .with_precision_and_scale(30, 4)
                    .unwrap(),
            );
            assert_eq!(sum_one_group(&a).unwrap().0, want);
            assert_eq!(sum_one_group(&a).unwrap().2, 4);
            assert_eq!(
                sum_one_group(&a).unwrap().1,
                (a.len() - a.null_count()) as i64
            );
        }
    }
}
