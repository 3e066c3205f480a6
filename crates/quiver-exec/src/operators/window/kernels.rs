//! Window aggregate kernels over rows already in window order, walked one
//! of two ways ([`Walk`]). Running: `breaks[i]` says how row i differs from
//! row i-1 (`NEW_PARTITION`, `NEW_PEERS`, `SAME`; the first row of a slice
//! always starts a partition) and every row sees its partition up to the
//! last of its peers (MySQL's default frame; without ORDER BY the whole
//! partition is one peer group). Sliding: each row's frame is given as a
//! range of positions; frames move forward within a partition, so COUNT,
//! SUM and AVG add the rows entering and remove those leaving (O(n) in
//! all), and MIN / MAX keep a monotonic deque of candidates.
//! Each kernel is generic over its value type: no per-row dispatch.

use arrow_array::types::ArrowPrimitiveType;
use arrow_array::{
    Array, ArrowNativeTypeOp, Decimal128Array, Float64Array, Int64Array, PrimitiveArray,
    UInt32Array,
};
use arrow_buffer::NullBuffer;
use quiver_collation::Collator;
use std::collections::VecDeque;
use std::ops::Range;

use crate::operators::sort::sort_keys::{NEW_PARTITION, SAME};

/// How a kernel walks its rows.
#[derive(Clone, Copy)]
pub(super) enum Walk<'a> {
    /// Partition and peer breaks: running frames.
    Running(&'a [u8]),
    /// Each row's frame, moving forward within a partition.
    Frames(&'a [Range<u32>]),
}

impl Walk<'_> {
    pub(super) fn len(&self) -> usize {
        match self {
            Walk::Running(b) => b.len(),
            Walk::Frames(f) => f.len(),
        }
    }
}

/// Runs `add` / `remove` / `emit` over the walk's frames (`remove` only
/// when sliding).
#[inline]
fn walk<S: Clone>(
    w: &Walk,
    init: S,
    add: impl FnMut(&mut S, usize),
    remove: impl FnMut(&mut S, usize),
    emit: impl FnMut(&S, usize),
) {
    match w {
        Walk::Running(breaks) => running(breaks, init, add, emit),
        Walk::Frames(frames) => sliding(frames, init, add, remove, emit),
    }
}

/// Row i's state holds the rows of `frames[i]`: rows entering are added,
/// rows leaving removed. A frame that does not follow the one before (a
/// new partition) starts from `init`.
#[inline]
fn sliding<S: Clone>(
    frames: &[Range<u32>],
    init: S,
    mut add: impl FnMut(&mut S, usize),
    mut remove: impl FnMut(&mut S, usize),
    mut emit: impl FnMut(&S, usize),
) {
    let mut state = init.clone();
    let (mut cs, mut ce) = (0usize, 0usize);
    for (i, f) in frames.iter().enumerate() {
        let (s, e) = (f.start as usize, (f.end as usize).max(f.start as usize));
        if s < cs || e < ce || s > ce {
            state = init.clone();
            (cs, ce) = (s, s);
        }
        while ce < e {
            add(&mut state, ce);
            ce += 1;
        }
        while cs < s {
            remove(&mut state, cs);
            cs += 1;
        }
        emit(&state, i);
    }
}

/// Per row, the position of the best valid row of its frame (`better(a,
/// b)`: a strictly better than b; ties keep the first), NULL where the
/// frame has none: a deque of candidates, each row pushed and popped once.
fn best_in_frames(
    frames: &[Range<u32>],
    valid: impl Fn(usize) -> bool,
    better: impl Fn(usize, usize) -> bool,
) -> UInt32Array {
    let mut out = vec![0u32; frames.len()];
    let mut ok = vec![false; frames.len()];
    let mut deque: VecDeque<usize> = VecDeque::new();
    let (mut cs, mut ce) = (0usize, 0usize);
    for (i, f) in frames.iter().enumerate() {
        let (s, e) = (f.start as usize, (f.end as usize).max(f.start as usize));
        if s < cs || e < ce || s > ce {
            deque.clear();
            ce = s;
        }
        while ce < e {
            if valid(ce) {
                while deque.back().is_some_and(|&b| better(ce, b)) {
                    deque.pop_back();
                }
                deque.push_back(ce);
            }
            ce += 1;
        }
        cs = s;
        while deque.front().is_some_and(|&f| f < cs) {
            deque.pop_front();
        }
        if let Some(&b) = deque.front() {
            out[i] = b as u32;
            ok[i] = true;
        }
    }
    UInt32Array::new(out.into(), Some(NullBuffer::from(ok)))
}

/// Calls `add(state, row)` for the rows of each peer group, then
/// `emit(state, row)` for the same rows; the state restarts with each
/// partition.
#[inline]
fn running<S: Clone>(
    breaks: &[u8],
    init: S,
    mut add: impl FnMut(&mut S, usize),
    mut emit: impl FnMut(&S, usize),
) {
    let n = breaks.len();
    let mut state = init.clone();
    let mut i = 0;
    while i < n {
        if i == 0 || breaks[i] == NEW_PARTITION {
            state = init.clone();
        }
        let mut j = i + 1;
        while j < n && breaks[j] == SAME {
            j += 1;
        }
        for r in i..j {
            add(&mut state, r);
        }
        for r in i..j {
            emit(&state, r);
        }
        i = j;
    }
}

/// COUNT(*) (`nulls` None) or COUNT(x) of the rows valid in `nulls`.
pub(super) fn count(breaks: &Walk, nulls: Option<&NullBuffer>) -> Int64Array {
    let mut out = vec![0i64; breaks.len()];
    match nulls {
        None => walk(
            breaks,
            0i64,
            |c, _| *c += 1,
            |c, _| *c -= 1,
            |c, r| out[r] = *c,
        ),
        Some(v) => walk(
            breaks,
            0i64,
            |c, r| *c += v.is_valid(r) as i64,
            |c, r| *c -= v.is_valid(r) as i64,
            |c, r| out[r] = *c,
        ),
    }
    Int64Array::from(out)
}

/// SUM or AVG (`avg`) of integers or decimals, exactly: values at
/// `in_scale` summed in i128, the result at `out_scale` (AVG rounded half
/// away from zero). `None` when a sum overflows.
pub(super) fn sum_exact<T>(
    breaks: &Walk,
    values: &PrimitiveArray<T>,
    in_scale: i8,
    precision: u8,
    out_scale: i8,
    avg: bool,
) -> Option<Decimal128Array>
where
    T: ArrowPrimitiveType,
    T::Native: Into<i128>,
{
    let n = breaks.len();
    let raw = values.values();
    let nulls = values.nulls();
    let up = 10i128.checked_pow((out_scale - in_scale).max(0) as u32)?;
    let round = avg_rounds(in_scale, out_scale);
    let mut out = vec![0i128; n];
    let mut valid = vec![false; n];
    let overflow = std::cell::Cell::new(false);
    #[derive(Clone)]
    struct Sum {
        total: i128,
        count: i64,
    }
    walk(
        breaks,
        Sum { total: 0, count: 0 },
        |s, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                match s.total.checked_add(raw[r].into()) {
                    Some(t) => s.total = t,
                    None => overflow.set(true),
                }
                s.count += 1;
            }
        },
        |s, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                match s.total.checked_sub(raw[r].into()) {
                    Some(t) => s.total = t,
                    None => overflow.set(true),
                }
                s.count -= 1;
            }
        },
        |s, r| {
            if s.count == 0 {
                return;
            }
            valid[r] = true;
            let value = if avg {
                avg_rounded(s.total, s.count as i128, up, round)
            } else {
                quiver_common::types::rescale(s.total, in_scale, out_scale)
            };
            match value {
                Some(v) => out[r] = v,
                None => overflow.set(true),
            }
        },
    );
    if overflow.get() {
        return None;
    }
    let a = Decimal128Array::new(out.into(), Some(NullBuffer::from(valid)));
    a.with_precision_and_scale(precision, out_scale).ok()
}

/// [`sum_exact`] for a Decimal256 result: values (any integer or decimal
/// already cast to Decimal256 at `in_scale`) summed in i256.
pub(super) fn sum_exact_wide(
    breaks: &Walk,
    values: &PrimitiveArray<arrow_array::types::Decimal256Type>,
    in_scale: i8,
    precision: u8,
    out_scale: i8,
    avg: bool,
) -> Option<arrow_array::Decimal256Array> {
    use arrow_buffer::i256;
    let n = breaks.len();
    let raw = values.values();
    let nulls = values.nulls();
    let shift = (out_scale - in_scale).max(0) as u32;
    let limit = quiver_common::types::pow10(precision as u32)?;
    let mut out = vec![i256::ZERO; n];
    let mut valid = vec![false; n];
    let overflow = std::cell::Cell::new(false);
    walk(
        breaks,
        (i256::ZERO, 0i64),
        |s, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                s.0 = s.0.wrapping_add(raw[r]);
                s.1 += 1;
            }
        },
        |s, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                s.0 = s.0.wrapping_sub(raw[r]);
                s.1 -= 1;
            }
        },
        |s, r| {
            if s.1 == 0 {
                return;
            }
            valid[r] = true;
            let value = if avg {
                crate::expr::scaled_div(
                    s.0,
                    shift,
                    i256::from(s.1),
                    avg_rounds(in_scale, out_scale),
                )
            } else {
                quiver_common::types::rescale256(s.0, in_scale, out_scale)
            };
            match value.filter(|v| v.wrapping_abs() < limit) {
                Some(v) => out[r] = v,
                None => overflow.set(true),
            }
        },
    );
    if overflow.get() {
        return None;
    }
    let a = arrow_array::Decimal256Array::new(out.into(), Some(NullBuffer::from(valid)));
    a.with_precision_and_scale(precision, out_scale).ok()
}

/// MySQL truncates an average at its internal digits (the declared scale is
/// rounded to later) and rounds where only the declared scale is kept.
fn avg_rounds(in_scale: i8, out_scale: i8) -> bool {
    out_scale < quiver_common::types::division_internal_scale(in_scale, 0)
}

/// `total * up / count`, truncated or (`round`) rounded half away from zero, by long division so
/// that a sum near the i128 limit still averages.
#[inline]
fn avg_rounded(total: i128, count: i128, up: i128, round: bool) -> Option<i128> {
    let (q, r) = (total / count, total % count);
    let scaled = r.checked_mul(up)?;
    let (q2, r2) = (scaled / count, scaled % count);
    let round = if round && r2.abs() * 2 >= count {
        total.signum()
    } else {
        0
    };
    q.checked_mul(up)?.checked_add(q2 + round)
}

/// SUM or AVG (`avg`) of doubles.
pub(super) fn sum_float(breaks: &Walk, values: &Float64Array, avg: bool) -> Float64Array {
    let n = breaks.len();
    let raw = values.values();
    let nulls = values.nulls();
    let mut out = vec![0f64; n];
    let mut valid = vec![false; n];
    walk(
        breaks,
        (0f64, 0i64),
        |s, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                s.0 += raw[r];
                s.1 += 1;
            }
        },
        |s, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                s.1 -= 1;
                // An empty frame sums to exactly nothing, not to rounding residue.
                s.0 = if s.1 == 0 { 0.0 } else { s.0 - raw[r] };
            }
        },
        |s, r| {
            if s.1 > 0 {
                valid[r] = true;
                out[r] = if avg { s.0 / s.1 as f64 } else { s.0 };
            }
        },
    );
    Float64Array::new(out.into(), Some(NullBuffer::from(valid)))
}

/// MIN (`min`) or MAX of primitive values (ties keep the first seen).
pub(super) fn min_max_primitive<T: ArrowPrimitiveType>(
    breaks: &Walk,
    values: &PrimitiveArray<T>,
    min: bool,
) -> PrimitiveArray<T> {
    let n = breaks.len();
    let raw = values.values();
    let nulls = values.nulls();
    let breaks = match breaks {
        Walk::Running(b) => *b,
        Walk::Frames(frames) => {
            let at = best_in_frames(
                frames,
                |r| nulls.is_none_or(|v| v.is_valid(r)),
                |a, b| match min {
                    true => raw[a].compare(raw[b]).is_lt(),
                    false => raw[a].compare(raw[b]).is_gt(),
                },
            );
            let out: Vec<T::Native> = at.values().iter().map(|&i| raw[i as usize]).collect();
            return PrimitiveArray::<T>::new(out.into(), at.nulls().cloned())
                .with_data_type(values.data_type().clone());
        }
    };
    let mut out = vec![T::Native::default(); n];
    let mut valid = vec![false; n];
    running(
        breaks,
        None::<T::Native>,
        |best, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                let x = raw[r];
                let better = match best {
                    None => true,
                    Some(b) if min => x.compare(*b).is_lt(),
                    Some(b) => x.compare(*b).is_gt(),
                };
                if better {
                    *best = Some(x);
                }
            }
        },
        |best, r| {
            if let Some(b) = best {
                out[r] = *b;
                valid[r] = true;
            }
        },
    );
    PrimitiveArray::<T>::new(out.into(), Some(NullBuffer::from(valid)))
        .with_data_type(values.data_type().clone())
}

/// MIN (`min`) or MAX of strings under collator `c`: the position of each
/// row's answer (ties keep the first seen), NULL where there is none.
pub(super) fn min_max_str<C: Collator>(
    c: C,
    breaks: &Walk,
    values: &arrow_array::BinaryArray,
    min: bool,
) -> UInt32Array {
    let nulls = values.nulls();
    let breaks = match breaks {
        Walk::Running(b) => *b,
        Walk::Frames(frames) => {
            return best_in_frames(
                frames,
                |r| nulls.is_none_or(|v| v.is_valid(r)),
                |a, b| {
                    let o = c.compare(values.value(a), values.value(b));
                    if min {
                        o.is_lt()
                    } else {
                        o.is_gt()
                    }
                },
            )
        }
    };
    let mut out = vec![0u32; breaks.len()];
    let mut valid = vec![false; breaks.len()];
    running(
        breaks,
        None::<usize>,
        |best, r| {
            if nulls.is_none_or(|v| v.is_valid(r)) {
                let better = match best {
                    None => true,
                    Some(b) => {
                        let o = c.compare(values.value(r), values.value(*b));
                        if min {
                            o.is_lt()
                        } else {
                            o.is_gt()
                        }
                    }
                };
                if better {
                    *best = Some(r);
                }
            }
        },
        |best, r| {
            if let Some(b) = best {
                out[r] = *b as u32;
                valid[r] = true;
            }
        },
    );
    UInt32Array::new(out.into(), Some(NullBuffer::from(valid)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::window::test_rows::{breaks_of, sorted_rows};
    use proptest::prelude::*;

    /// The rows of row i's frame: its partition up to its last peer.
    fn frame(rows: &[(u8, u8)], i: usize) -> Vec<usize> {
        (0..rows.len())
            .filter(|&j| rows[j].0 == rows[i].0 && rows[j].1 <= rows[i].1)
            .collect()
    }

    proptest! {
        #[test]
        fn aggregates_match_frames(rows in sorted_rows(), vals in proptest::collection::vec(proptest::option::of(-1000i64..1000), 60)) {
            let b = breaks_of(&rows);
            let b = Walk::Running(&b);
            let n = rows.len();
            let values = arrow_array::Int64Array::from(vals[..n].to_vec());
            let sum = sum_exact(&b, &values, 0, 38, 2, false).unwrap();
            let avg = sum_exact(&b, &values, 0, 38, 4, true).unwrap();
            let cnt = count(&b, values.nulls());
            let mn = min_max_primitive(&b, &values, true);
            let mx = min_max_primitive(&b, &values, false);
            for i in 0..n {
                let f: Vec<i64> = frame(&rows, i).into_iter().filter_map(|j| vals[j]).collect();
                prop_assert_eq!(cnt.value(i), f.len() as i64);
                if f.is_empty() {
                    prop_assert!(sum.is_null(i) && avg.is_null(i) && mn.is_null(i) && mx.is_null(i));
                    continue;
                }
                let s: i128 = f.iter().map(|x| *x as i128).sum();
                prop_assert_eq!(sum.value(i), s * 100);
                let c = f.len() as i128;
                let exact = s * 10_000;
                let want = (exact as f64 / c as f64).round() as i128;
                prop_assert_eq!(avg.value(i), want);
                prop_assert_eq!(mn.value(i), *f.iter().min().unwrap());
                prop_assert_eq!(mx.value(i), *f.iter().max().unwrap());
            }
        }

        #[test]
        fn sliding_frames_match_brute_force(
            parts in proptest::collection::vec(0usize..12, 1..6),
            before in 0u32..4,
            after in 0u32..4,
            vals in proptest::collection::vec(proptest::option::of(-1000i64..1000), 60),
        ) {
            // ROWS BETWEEN `before` PRECEDING AND `after` FOLLOWING over partitions of these sizes.
            let mut frames = Vec::new();
            let mut start = 0u32;
            for len in parts {
                let end = start + len as u32;
                for i in start..end {
                    frames.push(i.saturating_sub(before).max(start)..(i + after + 1).min(end));
                }
                start = end;
            }
            let n = frames.len();
            let values = arrow_array::Int64Array::from(vals[..n].to_vec());
            let w = Walk::Frames(&frames);
            let sum = sum_exact(&w, &values, 0, 38, 0, false).unwrap();
            let cnt = count(&w, values.nulls());
            let mn = min_max_primitive(&w, &values, true);
            let mx = min_max_primitive(&w, &values, false);
            let floats = Float64Array::from(vals[..n].iter().map(|v| v.map(|x| x as f64)).collect::<Vec<_>>());
            let fsum = sum_float(&w, &floats, false);
            for (i, frame) in frames.iter().enumerate() {
                let f: Vec<i64> = frame.clone().filter_map(|j| vals[j as usize]).collect();
                prop_assert_eq!(cnt.value(i), f.len() as i64);
                if f.is_empty() {
                    prop_assert!(sum.is_null(i) && mn.is_null(i) && mx.is_null(i) && fsum.is_null(i));
                    continue;
                }
                let s: i128 = f.iter().map(|x| *x as i128).sum();
                prop_assert_eq!(sum.value(i), s);
                prop_assert_eq!(fsum.value(i), s as f64);
                prop_assert_eq!(mn.value(i), *f.iter().min().unwrap());
                prop_assert_eq!(mx.value(i), *f.iter().max().unwrap());
            }
        }
    }
}
