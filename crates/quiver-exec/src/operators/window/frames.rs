//! Each row's frame as a range of positions in window order.
//!
//! ROWS counts rows from the current one, clamped to the partition. RANGE
//! CURRENT ROW is the row's peer group; RANGE offsets compare the one ORDER
//! BY key with the current row's key plus or minus the offset, by binary
//! search among the partition's non-NULL keys (in DESC order the keys are
//! negated, so PRECEDING is always smaller). Integer and decimal keys are
//! compared exactly, as integers at the larger of the key's and the
//! offsets' scales (a price 100.00 away is in a 100 PRECEDING frame);
//! DOUBLE keys as doubles.
//! A row whose key is NULL has its NULL peers as the frame for an offset
//! bound, as in MariaDB. A frame whose end is before its start is empty.

use std::ops::Range;

use arrow_array::{cast::AsArray, types::Float64Type, ArrayRef};
use arrow_schema::DataType;
use quiver_common::{QuiverError, Result};
use quiver_plan::window::{FrameBound, FrameUnits, WindowFrame, NEW_PARTITION, SAME};

use crate::expr::cast_array;

pub(super) fn frames(
    frame: &WindowFrame,
    breaks: &[u8],
    key: Option<&ArrayRef>,
    desc: bool,
) -> Result<Vec<Range<u32>>> {
    if let Some(k) = key {
        if let Some((keys, offsets)) = exact_keys(frame, k) {
            return Ok(all(frame, breaks, Some((&keys, offsets)), desc));
        }
        let keys = cast_array(k, &DataType::Float64)?;
        let keys = keys.as_primitive::<Float64Type>();
        let keys: Vec<Option<f64>> = keys.iter().collect();
        let offsets = (offset(frame.start), offset(frame.end));
        return Ok(all(frame, breaks, Some((&keys, offsets)), desc));
    }
    if frame.units == FrameUnits::Range
        && [frame.start, frame.end]
            .iter()
            .any(|b| matches!(b, FrameBound::Preceding(_) | FrameBound::Following(_)))
    {
        return Err(QuiverError::internal("RANGE offsets without key values"));
    }
    Ok(all::<f64>(frame, breaks, None, desc))
}

fn offset(b: FrameBound) -> f64 {
    match b {
        FrameBound::Preceding(o) | FrameBound::Following(o) => o,
        _ => 0.0,
    }
}

/// Integer and decimal keys as i128 at one scale with the (start, end)
/// offsets; None for other keys or when a value does not fit.
#[allow(clippy::type_complexity)]
fn exact_keys(frame: &WindowFrame, key: &ArrayRef) -> Option<(Vec<Option<i128>>, (i128, i128))> {
    let key_scale = match key.data_type() {
        t if t.is_integer() => 0,
        DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => (*s).max(0) as u32,
        _ => return None,
    };
    // The offsets' decimals, from their shortest text (they were literals).
    let decimals = |o: f64| -> Option<u32> {
        let t = o.to_string();
        if t.contains(['e', 'E']) {
            return None;
        }
        Some(t.split_once('.').map_or(0, |(_, d)| d.len() as u32))
    };
    let scale = key_scale
        .max(decimals(offset(frame.start))?)
        .max(decimals(offset(frame.end))?);
    if scale > 30 {
        return None;
    }
    let up = 10f64.powi(scale as i32);
    let scaled = |o: f64| -> Option<i128> {
        let v = (o * up).round();
        (v.abs() < 1e30).then_some(v as i128)
    };
    let offsets = (scaled(offset(frame.start))?, scaled(offset(frame.end))?);
    let keys = cast_array(key, &DataType::Decimal128(38, scale as i8)).ok()?;
    let keys = keys.as_primitive::<arrow_array::types::Decimal128Type>();
    Some((keys.iter().collect(), offsets))
}

/// A key value RANGE offsets move from.
trait Key: Copy + PartialOrd {
    fn negated(self) -> Self;
    fn plus(self, o: Self) -> Self;
    fn minus(self, o: Self) -> Self;
}

impl Key for f64 {
    fn negated(self) -> Self {
        -self
    }
    fn plus(self, o: Self) -> Self {
        self + o
    }
    fn minus(self, o: Self) -> Self {
        self - o
    }
}

impl Key for i128 {
    fn negated(self) -> Self {
        self.saturating_neg()
    }
    fn plus(self, o: Self) -> Self {
        self.saturating_add(o)
    }
    fn minus(self, o: Self) -> Self {
        self.saturating_sub(o)
    }
}

/// The frames of every partition: `keys` with the (start, end) offsets
/// where RANGE offsets need them.
#[allow(clippy::type_complexity)]
fn all<K: Key>(
    frame: &WindowFrame,
    breaks: &[u8],
    keys: Option<(&[Option<K>], (K, K))>,
    desc: bool,
) -> Vec<Range<u32>> {
    let n = breaks.len();
    let mut out = Vec::with_capacity(n);
    let mut ps = 0;
    while ps < n {
        let mut pe = ps + 1;
        while pe < n && breaks[pe] != NEW_PARTITION {
            pe += 1;
        }
        partition(frame, breaks, keys, desc, ps..pe, &mut out);
        ps = pe;
    }
    out
}

/// The frames of the rows of partition `p`.
#[allow(clippy::type_complexity)]
fn partition<K: Key>(
    frame: &WindowFrame,
    breaks: &[u8],
    keys: Option<(&[Option<K>], (K, K))>,
    desc: bool,
    p: Range<usize>,
    out: &mut Vec<Range<u32>>,
) {
    // Peer groups: where each row's group starts and ends.
    let mut peer_start = Vec::with_capacity(p.len());
    let mut peer_end = vec![0usize; p.len()];
    for i in p.clone() {
        let s = if i == p.start || breaks[i] != SAME {
            i
        } else {
            peer_start[i - 1 - p.start]
        };
        peer_start.push(s);
    }
    let mut end = p.end;
    for i in p.clone().rev() {
        peer_end[i - p.start] = end;
        if i == p.start || breaks[i] != SAME {
            end = i;
        }
    }
    // RANGE offsets: the keys (negated in DESC order) and where the
    // non-NULL ones lie (NULLs sort first ascending, last descending).
    let offsets = frame.units == FrameUnits::Range
        && [frame.start, frame.end]
            .iter()
            .any(|b| matches!(b, FrameBound::Preceding(_) | FrameBound::Following(_)));
    let mut sorted: Vec<K> = Vec::new();
    let mut non_null = p.clone();
    let (start_offset, end_offset) = match keys {
        Some((k, o)) if offsets => {
            let first = p.clone().find(|&i| k[i].is_some()).unwrap_or(p.end);
            let last = p
                .clone()
                .rev()
                .find(|&i| k[i].is_some())
                .map_or(first, |i| i + 1);
            non_null = first..last;
            // (A NULL inside cannot happen: NULLs sort together at one end.)
            sorted = non_null
                .clone()
                .filter_map(|i| k[i].map(|v| if desc { v.negated() } else { v }))
                .collect();
            (Some(o.0), Some(o.1))
        }
        _ => (None, None),
    };
    let clamp = |x: i64| x.clamp(p.start as i64, p.end as i64) as usize;
    for i in p.clone() {
        let at = i - p.start;
        let bound = |b: FrameBound, is_start: bool| -> usize {
            match (frame.units, b) {
                (_, FrameBound::UnboundedPreceding) => p.start,
                (_, FrameBound::UnboundedFollowing) => p.end,
                (FrameUnits::Rows, FrameBound::CurrentRow) => i + !is_start as usize,
                (FrameUnits::Rows, FrameBound::Preceding(o)) => {
                    clamp((i as i64).saturating_sub(o as i64) + !is_start as i64)
                }
                (FrameUnits::Rows, FrameBound::Following(o)) => {
                    clamp((i as i64).saturating_add(o as i64) + !is_start as i64)
                }
                (FrameUnits::Range, FrameBound::CurrentRow) => match is_start {
                    true => peer_start[at],
                    false => peer_end[at],
                },
                (FrameUnits::Range, FrameBound::Preceding(_) | FrameBound::Following(_)) => {
                    if !non_null.contains(&i) {
                        return match is_start {
                            true => peer_start[at],
                            false => peer_end[at],
                        };
                    }
                    let Some(o) = (if is_start { start_offset } else { end_offset }) else {
                        return i;
                    };
                    let k = sorted[(i - non_null.start).min(sorted.len() - 1)];
                    let edge = match b {
                        FrameBound::Preceding(_) => k.minus(o),
                        _ => k.plus(o),
                    };
                    // Start: the first key >= edge; end: the first key > edge.
                    let pos = match is_start {
                        true => sorted.partition_point(|&x| x < edge),
                        false => sorted.partition_point(|&x| x <= edge),
                    };
                    non_null.start + pos
                }
            }
        };
        let s = bound(frame.start, true);
        let e = bound(frame.end, false).max(s);
        out.push(s as u32..e as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Float64Array;
    use quiver_plan::window::NEW_PEERS;
    use std::sync::Arc;

    fn range(start: FrameBound, end: FrameBound) -> WindowFrame {
        WindowFrame {
            units: FrameUnits::Range,
            start,
            end,
        }
    }

    #[test]
    fn range_offsets_follow_the_keys() {
        // Keys NULL, 1, 2, 2, 3, 5 in one partition (MariaDB's answers:
        // SUM over 1 PRECEDING .. 1 FOLLOWING is NULL, 5, 8, 8, 7, 5).
        let keys: ArrayRef = Arc::new(Float64Array::from(vec![
            None,
            Some(1.0),
            Some(2.0),
            Some(2.0),
            Some(3.0),
            Some(5.0),
        ]));
        let breaks = [
            NEW_PARTITION,
            NEW_PEERS,
            NEW_PEERS,
            SAME,
            NEW_PEERS,
            NEW_PEERS,
        ];
        let f = range(FrameBound::Preceding(1.0), FrameBound::Following(1.0));
        let got = frames(&f, &breaks, Some(&keys), false).unwrap();
        assert_eq!(got, vec![0..1, 1..4, 1..5, 1..5, 2..5, 5..6]);
        let f = range(FrameBound::Following(1.0), FrameBound::Following(3.0));
        let got = frames(&f, &breaks, Some(&keys), false).unwrap();
        assert_eq!(got, vec![0..1, 2..5, 4..6, 4..6, 5..6, 6..6]);
    }
}
