//! Each row's frame as a range of positions in window order.
//!
//! ROWS counts rows from the current one, clamped to the partition. RANGE
//! CURRENT ROW is the row's peer group; RANGE offsets compare the one ORDER
//! BY key (numeric, read as DOUBLE) with the current row's key plus or
//! minus the offset, by binary search among the partition's non-NULL keys
//! (in DESC order the keys are negated, so PRECEDING is always smaller).
//! A row whose key is NULL has its NULL peers as the frame for an offset
//! bound, as in MariaDB. A frame whose end is before its start is empty.

use std::ops::Range;

use arrow_array::{cast::AsArray, types::Float64Type, Array, ArrayRef};
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
    let n = breaks.len();
    let keys = match key {
        Some(k) => Some(cast_array(k, &DataType::Float64)?),
        None => None,
    };
    let keys = keys.as_ref().map(|k| k.as_primitive::<Float64Type>());
    let mut out = Vec::with_capacity(n);
    let mut ps = 0;
    while ps < n {
        let mut pe = ps + 1;
        while pe < n && breaks[pe] != NEW_PARTITION {
            pe += 1;
        }
        partition(frame, breaks, keys, desc, ps..pe, &mut out)?;
        ps = pe;
    }
    Ok(out)
}

/// The frames of the rows of partition `p`.
fn partition(
    frame: &WindowFrame,
    breaks: &[u8],
    keys: Option<&arrow_array::Float64Array>,
    desc: bool,
    p: Range<usize>,
    out: &mut Vec<Range<u32>>,
) -> Result<()> {
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
    let mut sorted: Vec<f64> = Vec::new();
    let mut non_null = p.clone();
    if offsets {
        let k = keys.ok_or_else(|| QuiverError::internal("RANGE offsets without key values"))?;
        let valid = |i: usize| k.is_valid(i);
        let first = p.clone().find(|&i| valid(i)).unwrap_or(p.end);
        let last = p.clone().rev().find(|&i| valid(i)).map_or(first, |i| i + 1);
        non_null = first..last;
        sorted = non_null
            .clone()
            .map(|i| if desc { -k.value(i) } else { k.value(i) })
            .collect();
    }
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
                (FrameUnits::Range, FrameBound::Preceding(o) | FrameBound::Following(o)) => {
                    if !non_null.contains(&i) {
                        return match is_start {
                            true => peer_start[at],
                            false => peer_end[at],
                        };
                    }
                    let k = sorted[i - non_null.start];
                    let edge = match b {
                        FrameBound::Preceding(_) => k - o,
                        _ => k + o,
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
    Ok(())
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
        let breaks = [NEW_PARTITION, NEW_PEERS, NEW_PEERS, SAME, NEW_PEERS, NEW_PEERS];
        let f = range(FrameBound::Preceding(1.0), FrameBound::Following(1.0));
        let got = frames(&f, &breaks, Some(&keys), false).unwrap();
        assert_eq!(got, vec![0..1, 1..4, 1..5, 1..5, 2..5, 5..6]);
        let f = range(FrameBound::Following(1.0), FrameBound::Following(3.0));
        let got = frames(&f, &breaks, Some(&keys), false).unwrap();
        assert_eq!(got, vec![0..1, 2..5, 4..6, 4..6, 5..6, 6..6]);
    }
}
