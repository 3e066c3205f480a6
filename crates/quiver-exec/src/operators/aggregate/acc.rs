//! The accumulator of one aggregate function over every group of a table:
//! its state in flat vectors indexed by group id, updated a batch at a time.

use hashbrown::HashSet;
use std::sync::Arc;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef};
use arrow_buffer::{i256, NullBuffer};
use arrow_schema::DataType;
use quiver_collation::{with_collator, Collation};
use quiver_common::types::{is_decimal, rescale, trim_pad};
use quiver_common::{QuiverError, Result};
use quiver_plan::AggFunc;

use super::min_max_str::min_max_strs;
use crate::bytes::is_binary;
use crate::expr::{cast_array, scaled_div, PhysicalExpr};
use crate::hash::{KeyColumn, KeyValues};
use crate::operators::group_concat::{GroupConcatAcc, GroupConcatSpec};

use super::distinct::{
    distinct_value_bytes, exact_values, string_bytes, tuple_parts, DistinctValue,
};
use super::distinct_pairs::DistinctPairs;
use super::first_seen::is_exact;
use super::first_seen::{Position, UNSEEN};
use super::kernels::{
    add_exact, avg_rounds, beats, fold_min_max, for_valid_rows, merge_min_max, sum_few_groups,
    sum_one_group, wide_decimal_out, FEW_GROUPS,
};
use super::spec::AggregateSpec;

#[derive(Debug)]
pub(super) enum Acc {
    Count {
        counts: Vec<i64>,
        star: bool,
    },
    /// Exact sums of integers and decimals at the input's scale.
    SumExact {
        sums: Vec<i128>,
        /// Added to `sums` where a group's i128 sum would overflow, and the
        /// sums of Decimal256 inputs; empty until first needed.
        wide: Vec<i256>,
        /// A bound on every |sum| from the input types' digits and the rows
        /// added: while it is below i128::MAX, adds need no overflow check.
        bound: u128,
        seen: Vec<bool>,
        scale: i8,
        avg: Option<Vec<i64>>,
    },
    SumFloat {
        sums: Vec<f64>,
        seen: Vec<bool>,
        avg: Option<Vec<i64>>,
    },
    /// MIN/MAX over anything with an exact i128 view (ints, decimals, dates).
    MinMaxExact {
        vals: Vec<i128>,
        seen: Vec<bool>,
        min: bool,
        input: Option<DataType>,
    },
    MinMaxFloat {
        vals: Vec<f64>,
        seen: Vec<bool>,
        min: bool,
    },
    /// MIN/MAX of Decimal256 values (`t` is their type).
    MinMaxWide {
        vals: Vec<i256>,
        seen: Vec<bool>,
        min: bool,
        t: DataType,
    },
    MinMaxStr {
        /// Bytes of text (UTF-8) or of binary strings, as the output type.
        vals: Vec<Option<Vec<u8>>>,
        min: bool,
        collation: Collation,
        /// Under a collation where distinct strings tie, with several
        /// partitions: the position of each group's value (see
        /// [`AggregateExec::run`](super::AggregateExec::run)), so that the
        /// merge keeps the first of tied values, as one scan does.
        first: Option<Vec<Position>>,
    },
    Distinct {
        func: AggFunc,
        sets: Vec<HashSet<DistinctValue>>,
        input: Option<DataType>,
        /// COUNT(DISTINCT) of strings under a non-default collation keeps
        /// normalized keys.
        collation: Option<Collation>,
        /// COUNT(DISTINCT a, b, ..): the parts, each compared under its own
        /// collation (see [`tuple_parts`]).
        tuple: Option<Vec<PhysicalExpr>>,
        /// Bytes the sets hold: entries (with the table's spare room) and
        /// string bytes.
        bytes: usize,
    },
    /// COUNT(DISTINCT x) of an integer-like `x`: what `Distinct` of COUNT
    /// becomes at its first batch of such values (see [`DistinctPairs`]).
    DistinctCount(DistinctPairs),
    GroupConcat(Box<GroupConcatAcc>),
    /// An aggregate of the registry: its own grouped state, told the
    /// table's group count.
    Registered {
        acc: Box<dyn quiver_plan::GroupsAccumulator>,
        groups: usize,
    },
}

pub(super) fn valid(a: &ArrayRef) -> Option<NullBuffer> {
    a.logical_nulls().filter(|n| n.null_count() > 0)
}

impl Acc {
    /// The state of `spec`; with `track`, string MIN/MAX note positions.
    pub(super) fn new(spec: &AggregateSpec, track: bool) -> Acc {
        if let Some(c) = &spec.concat {
            return Acc::GroupConcat(Box::new(GroupConcatAcc::new(c.clone())));
        }
        if let AggFunc::Registered(f) = spec.func {
            return Acc::Registered {
                acc: f.accumulator(&spec.output_type),
                groups: 0,
            };
        }
        let input = spec.arg.as_ref().map(|_| spec.output_type.clone());
        let collation = spec
            .arg
            .as_ref()
            .map(|a| a.collation())
            .filter(|c| *c != quiver_plan::default_collation());
        if spec.distinct && spec.func != AggFunc::Min && spec.func != AggFunc::Max {
            let count = spec.func == AggFunc::Count;
            return Acc::Distinct {
                func: spec.func,
                sets: vec![],
                input: None,
                collation: collation.filter(|_| count),
                tuple: spec.arg.as_ref().filter(|_| count).and_then(tuple_parts),
                bytes: 0,
            };
        }
        let exact_out = is_decimal(&spec.output_type);
        match spec.func {
            AggFunc::CountStar => Acc::Count {
                counts: vec![],
                star: true,
            },
            AggFunc::Count => Acc::Count {
                counts: vec![],
                star: false,
            },
            AggFunc::Sum | AggFunc::Avg => {
                let avg = (spec.func == AggFunc::Avg).then(Vec::new);
                if exact_out {
                    Acc::SumExact {
                        sums: vec![],
                        wide: vec![],
                        bound: 0,
                        seen: vec![],
                        scale: 0,
                        avg,
                    }
                } else {
                    Acc::SumFloat {
                        sums: vec![],
                        seen: vec![],
                        avg,
                    }
                }
            }
            AggFunc::Min | AggFunc::Max => {
                let min = spec.func == AggFunc::Min;
                match &spec.output_type {
                    // Binary strings: bytes in plain order.
                    DataType::Binary => Acc::MinMaxStr {
                        vals: vec![],
                        min,
                        collation: Collation::binary(),
                        first: None,
                    },
                    DataType::Utf8 => {
                        let collation = collation.unwrap_or_else(quiver_plan::default_collation);
                        Acc::MinMaxStr {
                            vals: vec![],
                            min,
                            collation,
                            first: (track && !is_exact(collation)).then(Vec::new),
                        }
                    }
                    DataType::Float64 | DataType::Float32 => Acc::MinMaxFloat {
                        vals: vec![],
                        seen: vec![],
                        min,
                    },
                    DataType::Decimal256(..) => Acc::MinMaxWide {
                        vals: vec![],
                        seen: vec![],
                        min,
                        t: spec.output_type.clone(),
                    },
                    _ => Acc::MinMaxExact {
                        vals: vec![],
                        seen: vec![],
                        min,
                        input,
                    },
                }
            }
            AggFunc::Registered(f) => Acc::Registered {
                acc: f.accumulator(&spec.output_type),
                groups: 0,
            },
            // (The planner always gives the clauses: else MySQL's defaults.)
            AggFunc::GroupConcat => {
                Acc::GroupConcat(Box::new(GroupConcatAcc::new(Arc::new(GroupConcatSpec {
                    args: spec.arg.iter().cloned().collect(),
                    distinct_keys: vec![],
                    order_by: vec![],
                    separator: b",".to_vec(),
                    max_len: 1 << 20,
                    collation: quiver_plan::default_collation(),
                    limit: None,
                    wrap: None,
                }))))
            }
        }
    }

    pub(super) fn resize(&mut self, n: usize) {
        match self {
            Acc::Count { counts, .. } => counts.resize(n, 0),
            Acc::SumExact {
                sums,
                wide,
                seen,
                avg,
                ..
            } => {
                sums.resize(n, 0);
                if !wide.is_empty() {
                    wide.resize(n, i256::ZERO);
                }
                seen.resize(n, false);
                if let Some(c) = avg {
                    c.resize(n, 0)
                }
            }
            Acc::SumFloat { sums, seen, avg } => {
                sums.resize(n, 0.0);
                seen.resize(n, false);
                if let Some(c) = avg {
                    c.resize(n, 0)
                }
            }
            Acc::MinMaxExact { vals, seen, .. } => {
                vals.resize(n, 0);
                seen.resize(n, false);
            }
            Acc::MinMaxFloat { vals, seen, .. } => {
                vals.resize(n, 0.0);
                seen.resize(n, false);
            }
            Acc::MinMaxWide { vals, seen, .. } => {
                vals.resize(n, i256::ZERO);
                seen.resize(n, false);
            }
            Acc::MinMaxStr { vals, first, .. } => {
                vals.resize(n, None);
                if let Some(f) = first {
                    f.resize(n, UNSEEN);
                }
            }
            Acc::Distinct { sets, .. } => sets.resize_with(n, HashSet::new),
            Acc::DistinctCount(p) => p.resize(n),
            Acc::GroupConcat(c) => c.resize(n),
            Acc::Registered { groups, .. } => *groups = n,
        }
    }

    /// Puts the positions of a partial state in `class` (see
    /// [`order_classes`](super::first_seen::order_classes)).
    pub(super) fn set_class(&mut self, class: Position) {
        if let Acc::MinMaxStr { first: Some(f), .. } = self {
            for p in f.iter_mut().filter(|p| **p != UNSEEN) {
                *p |= class;
            }
        }
        if let Acc::GroupConcat(c) = self {
            c.set_class(class);
        }
    }

    /// Adds the rows of a batch at position `at` (of groups `ids`).
    pub(super) fn update(
        &mut self,
        ids: &[u32],
        arg: Option<&ArrayRef>,
        at: Position,
    ) -> Result<()> {
        let nulls = arg.and_then(valid);
        let is_valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
        // Integer-like values (as a group key takes them: `KeyValues::Int`)
        // go to one set of (group, value) pairs.
        let ints = match arg {
            Some(a)
                if matches!(self, Acc::DistinctCount(_)) || self.counts_distinct_nothing_yet() =>
            {
                match KeyColumn::new(a)?.values {
                    KeyValues::Int(v) => Some(v),
                    _ => None,
                }
            }
            _ => None,
        };
        if ints.is_some() && self.counts_distinct_nothing_yet() {
            let mut pairs = DistinctPairs::default();
            pairs.resize(self.groups_held());
            *self = Acc::DistinctCount(pairs);
        }
        match self {
            Acc::DistinctCount(pairs) => {
                let values = ints
                    .ok_or_else(|| QuiverError::internal("COUNT(DISTINCT) values changed type"))?;
                pairs.insert(ids, &values, is_valid);
            }
            Acc::GroupConcat(_) => {
                return Err(QuiverError::internal("GROUP_CONCAT reads its batch"))
            }
            Acc::Registered { acc, groups } => {
                let a = arg.ok_or_else(|| QuiverError::internal("aggregate without argument"))?;
                acc.update(std::slice::from_ref(a), ids, *groups)?;
            }
            Acc::Count { counts, star } => {
                if *star || nulls.is_none() {
                    for g in ids {
                        counts[*g as usize] += 1;
                    }
                } else {
                    for (i, g) in ids.iter().enumerate() {
                        counts[*g as usize] += is_valid(i) as i64;
                    }
                }
            }
            Acc::SumExact {
                sums,
                wide,
                bound,
                seen,
                scale,
                avg,
            } => {
                let a = arg.ok_or_else(|| QuiverError::internal("SUM without argument"))?;
                if let DataType::Decimal256(_, s) = a.data_type() {
                    *scale = *s;
                    wide.resize(sums.len(), i256::ZERO);
                    let v = a.as_primitive::<Decimal256Type>().values();
                    for_valid_rows(ids, is_valid, seen, avg, |g, i| {
                        wide[g] = wide[g].wrapping_add(v[i])
                    });
                    return Ok(());
                }
                // Values of p digits over n rows move a sum by less than n * 10^p.
                let digits = |t: &DataType| match t {
                    DataType::Decimal128(p, _) => *p as u32,
                    _ => 20,
                };
                let grown = |bound: u128| {
                    bound.saturating_add(
                        10u128
                            .saturating_pow(digits(a.data_type()))
                            .saturating_mul(ids.len() as u128),
                    )
                };
                if sums.len() == 1 && grown(*bound) <= i128::MAX as u128 {
                    if let Some((sum, n, s)) = sum_one_group(a) {
                        *bound = grown(*bound);
                        *scale = s;
                        sums[0] = sums[0].wrapping_add(sum);
                        seen[0] |= n > 0;
                        if let Some(c) = avg.as_deref_mut() {
                            c[0] += n;
                        }
                        return Ok(());
                    }
                }
                let cast;
                let (v, s) = match exact_values(a) {
                    Some(x) => x,
                    None => {
                        cast = cast_array(a, &DataType::Decimal128(38, 6))?;
                        exact_values(&cast).expect("decimal")
                    }
                };
                *scale = s;
                let grown = grown(*bound);
                if grown <= i128::MAX as u128 {
                    *bound = grown;
                    if sums.len() <= FEW_GROUPS && nulls.is_none() {
                        sum_few_groups(ids, &v, sums, seen, avg.as_deref_mut());
                        return Ok(());
                    }
                    for_valid_rows(ids, is_valid, seen, avg, |g, i| {
                        sums[g] = sums[g].wrapping_add(v[i])
                    });
                } else {
                    *bound = u128::MAX;
                    for_valid_rows(ids, is_valid, seen, avg, |g, i| {
                        add_exact(sums, wide, g, v[i])
                    });
                }
            }
            Acc::SumFloat { sums, seen, avg } => {
                let a = arg.ok_or_else(|| QuiverError::internal("SUM without argument"))?;
                let f = cast_array(a, &DataType::Float64)?;
                let v = f.as_primitive::<Float64Type>().values();
                for (i, g) in ids.iter().enumerate() {
                    if is_valid(i) {
                        let g = *g as usize;
                        sums[g] += v[i];
                        seen[g] = true;
                        if let Some(c) = avg {
                            c[g] += 1;
                        }
                    }
                }
            }
            Acc::MinMaxExact {
                vals,
                seen,
                min,
                input,
            } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                *input = Some(a.data_type().clone());
                if a.data_type() == &DataType::Null {
                    // MIN(NULL): every row is NULL, nothing to fold.
                    return Ok(());
                }
                let (v, _) = exact_values(a)
                    .ok_or_else(|| QuiverError::internal("MIN over an unexpected type"))?;
                fold_min_max(ids, vals, seen, *min, |i| is_valid(i).then(|| v[i]));
            }
            Acc::MinMaxWide { vals, seen, min, t } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                let a = cast_array(a, t)?;
                let v = a.as_primitive::<Decimal256Type>().values();
                fold_min_max(ids, vals, seen, *min, |i| is_valid(i).then(|| v[i]));
            }
            Acc::MinMaxFloat { vals, seen, min } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                let f = cast_array(a, &DataType::Float64)?;
                let v = f.as_primitive::<Float64Type>().values();
                fold_min_max(ids, vals, seen, *min, |i| is_valid(i).then(|| v[i]));
            }
            Acc::MinMaxStr {
                vals,
                min,
                collation,
                first,
            } => {
                let a = arg.ok_or_else(|| QuiverError::internal("MIN without argument"))?;
                let s = string_bytes(a)?;
                let s = &s;
                let min = *min;
                let first = first.as_deref_mut().map(|f| (f, at));
                with_collator!(*collation, |k| min_max_strs(
                    k,
                    s,
                    ids,
                    nulls.as_ref(),
                    vals,
                    min,
                    first
                ));
            }
            Acc::Distinct {
                sets,
                input,
                collation,
                bytes,
                ..
            } => {
                let a = arg
                    .ok_or_else(|| QuiverError::internal("DISTINCT aggregate without argument"))?;
                *input = Some(a.data_type().clone());
                let vals: Vec<DistinctValue> = if let Some((v, _)) = exact_values(a) {
                    v.iter().map(|x| DistinctValue::Int(*x)).collect()
                } else if let DataType::Decimal256(..) = a.data_type() {
                    a.as_primitive::<Decimal256Type>()
                        .values()
                        .iter()
                        .map(|x| DistinctValue::Wide(*x))
                        .collect()
                } else if a.data_type().is_floating() {
                    let f = cast_array(a, &DataType::Float64)?;
                    f.as_primitive::<Float64Type>()
                        .values()
                        .iter()
                        .map(|x| DistinctValue::Float((x + 0.0).to_bits()))
                        .collect()
                } else if is_binary(a.data_type()) {
                    // Binary strings: distinct bytes (no padding).
                    string_bytes(a)?
                        .iter()
                        .map(|x| DistinctValue::Bytes(x.unwrap_or(b"").to_vec()))
                        .collect()
                } else if let Some(c) = collation {
                    string_bytes(a)?
                        .iter()
                        .map(|x| {
                            let mut k = Vec::new();
                            c.normalized_key(x.unwrap_or(b""), &mut k);
                            DistinctValue::Bytes(k)
                        })
                        .collect()
                } else {
                    string_bytes(a)?
                        .iter()
                        .map(|x| DistinctValue::Bytes(trim_pad(x.unwrap_or(b"")).to_vec()))
                        .collect()
                };
                for (i, (g, v)) in ids.iter().zip(vals).enumerate() {
                    if is_valid(i) {
                        let size = distinct_value_bytes(&v);
                        if sets[*g as usize].insert(v) {
                            *bytes += size;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// A COUNT(DISTINCT) state that has seen no value yet (it may still
    /// become a `DistinctCount`).
    fn counts_distinct_nothing_yet(&self) -> bool {
        matches!(self, Acc::Distinct { func: AggFunc::Count, tuple: None, sets, bytes: 0, .. }
            if sets.iter().all(HashSet::is_empty))
    }

    /// Groups a `Distinct` state has room for.
    fn groups_held(&self) -> usize {
        match self {
            Acc::Distinct { sets, .. } => sets.len(),
            _ => 0,
        }
    }

    /// Folds `other`'s groups into ours; `ids[k]` is our id of its group k,
    /// `class` the class of its positions (it is of a later partition).
    pub(super) fn merge(&mut self, other: Acc, ids: &[u32], class: Position) -> Result<()> {
        // A partial table that saw no value keeps the general state.
        if other.counts_distinct_nothing_yet() && matches!(self, Acc::DistinctCount(_)) {
            return Ok(());
        }
        if matches!(other, Acc::DistinctCount(_)) && self.counts_distinct_nothing_yet() {
            let mut pairs = DistinctPairs::default();
            pairs.resize(self.groups_held());
            *self = Acc::DistinctCount(pairs);
        }
        match (self, other) {
            (Acc::DistinctCount(p), Acc::DistinctCount(o)) => p.merge(o, ids),
            (Acc::GroupConcat(c), Acc::GroupConcat(o)) => c.merge(*o, ids, class)?,
            (Acc::Count { counts, .. }, Acc::Count { counts: o, .. }) => {
                for (k, g) in ids.iter().enumerate() {
                    counts[*g as usize] += o[k];
                }
            }
            (
                Acc::SumExact {
                    sums,
                    wide,
                    bound,
                    seen,
                    scale,
                    avg,
                },
                Acc::SumExact {
                    sums: os,
                    wide: owide,
                    bound: obound,
                    seen: oseen,
                    scale: oscale,
                    avg: oavg,
                },
            ) => {
                *bound = bound.saturating_add(obound);
                if oseen.iter().any(|s| *s) {
                    *scale = oscale;
                }
                if !owide.is_empty() {
                    wide.resize(sums.len(), i256::ZERO);
                    for (k, g) in ids.iter().enumerate() {
                        let g = *g as usize;
                        wide[g] = wide[g].wrapping_add(owide[k]);
                    }
                }
                for (k, g) in ids.iter().enumerate() {
                    let g = *g as usize;
                    add_exact(sums, wide, g, os[k]);
                    seen[g] |= oseen[k];
                    if let (Some(c), Some(oc)) = (avg.as_mut(), oavg.as_ref()) {
                        c[g] += oc[k];
                    }
                }
            }
            (
                Acc::SumFloat { sums, seen, avg },
                Acc::SumFloat {
                    sums: os,
                    seen: oseen,
                    avg: oavg,
                },
            ) => {
                for (k, g) in ids.iter().enumerate() {
                    let g = *g as usize;
                    sums[g] += os[k];
                    seen[g] |= oseen[k];
                    if let (Some(c), Some(oc)) = (avg.as_mut(), oavg.as_ref()) {
                        c[g] += oc[k];
                    }
                }
            }
            (
                Acc::MinMaxExact {
                    vals,
                    seen,
                    min,
                    input,
                },
                Acc::MinMaxExact {
                    vals: ov,
                    seen: os,
                    input: oi,
                    ..
                },
            ) => {
                if input.is_none() {
                    *input = oi;
                }
                merge_min_max(ids, vals, seen, &ov, &os, *min);
            }
            (
                Acc::MinMaxWide {
                    vals, seen, min, ..
                },
                Acc::MinMaxWide {
                    vals: ov, seen: os, ..
                },
            ) => {
                merge_min_max(ids, vals, seen, &ov, &os, *min);
            }
            (
                Acc::MinMaxFloat { vals, seen, min },
                Acc::MinMaxFloat {
                    vals: ov, seen: os, ..
                },
            ) => {
                merge_min_max(ids, vals, seen, &ov, &os, *min);
            }
            (
                Acc::MinMaxStr {
                    vals,
                    min,
                    collation,
                    first,
                },
                Acc::MinMaxStr {
                    vals: ov,
                    first: of,
                    ..
                },
            ) => {
                for (k, v) in ov.into_iter().enumerate() {
                    let Some(x) = v else { continue };
                    let g = ids[k] as usize;
                    let slot = &mut vals[g];
                    match (first.as_deref_mut(), of.as_deref()) {
                        // Of tied values the one seen first.
                        (Some(f), Some(of)) => {
                            let p = of[k] | class;
                            let take = match slot.as_deref() {
                                None => true,
                                Some(cur) => {
                                    let o = collation.compare(&x, cur);
                                    (if *min { o.is_lt() } else { o.is_gt() })
                                        || (o.is_eq() && p < f[g])
                                }
                            };
                            if take {
                                *slot = Some(x);
                                f[g] = p;
                            }
                        }
                        _ => {
                            if beats(&x, slot.as_deref(), *min, *collation) {
                                *slot = Some(x);
                            }
                        }
                    }
                }
            }
            (
                Acc::Distinct {
                    sets, input, bytes, ..
                },
                Acc::Distinct {
                    sets: os,
                    input: oi,
                    bytes: ob,
                    ..
                },
            ) => {
                // At most the sum: values in both sets are counted twice.
                *bytes += ob;
                if input.is_none() {
                    *input = oi;
                }
                for (k, set) in os.into_iter().enumerate() {
                    sets[ids[k] as usize].extend(set);
                }
            }
            (Acc::Registered { acc, groups }, Acc::Registered { acc: other, .. }) => {
                acc.merge(other, ids, *groups)?;
            }
            _ => return Err(QuiverError::internal("mismatched aggregate states")),
        }
        Ok(())
    }

    /// Values kept by a DISTINCT aggregate, over all groups.
    pub(super) fn distinct_entries(&self) -> usize {
        match self {
            Acc::Distinct { sets, .. } => sets.iter().map(HashSet::len).sum(),
            Acc::DistinctCount(p) => p.pairs(),
            _ => 0,
        }
    }

    /// Bytes held beyond the fixed per-group slots (DISTINCT sets).
    pub(super) fn held_bytes(&self) -> usize {
        match self {
            Acc::Distinct { sets, bytes, .. } => {
                bytes + sets.len() * std::mem::size_of::<HashSet<DistinctValue>>()
            }
            Acc::DistinctCount(p) => p.memory_size(),
            Acc::GroupConcat(c) => c.held_bytes(),
            Acc::Registered { acc, .. } => acc.memory_size(),
            _ => 0,
        }
    }

    pub(super) fn finish(self, t: &DataType, groups: usize) -> Result<ArrayRef> {
        let decimal = |v: Vec<i128>, seen: Vec<bool>, from: i8| -> Result<ArrayRef> {
            let (p, s) = match t {
                DataType::Decimal128(p, s) => (*p, *s),
                _ => (38, from),
            };
            let v: Vec<i128> = v
                .into_iter()
                .map(|x| rescale(x, from, s).unwrap_or(0))
                .collect();
            let a: ArrayRef = Arc::new(
                arrow_array::Decimal128Array::new(v.into(), Some(NullBuffer::from(seen)))
                    .with_precision_and_scale(p, s)?,
            );
            if matches!(t, DataType::Decimal128(..)) {
                Ok(a)
            } else {
                cast_array(&a, t)
            }
        };
        Ok(match self {
            Acc::GroupConcat(c) => c.finish(t, groups)?,
            Acc::Registered { acc, .. } => cast_array(&acc.evaluate(groups)?, t)?,
            Acc::Count { mut counts, .. } => {
                counts.resize(groups, 0);
                Arc::new(arrow_array::Int64Array::from(counts))
            }
            Acc::SumExact {
                sums,
                wide,
                seen,
                scale,
                avg,
                ..
            } if !wide.is_empty() || matches!(t, DataType::Decimal256(..)) => {
                let mut totals: Vec<i256> = sums.iter().map(|x| i256::from_i128(*x)).collect();
                for (t, w) in totals.iter_mut().zip(&wide) {
                    *t = t.wrapping_add(*w);
                }
                match avg {
                    None => wide_decimal_out(totals, seen, scale, t)?,
                    Some(counts) => {
                        // AVG = SUM / COUNT at the output scale, rounded half away from zero.
                        let out_scale = match t {
                            DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => *s,
                            _ => scale,
                        };
                        let shift = (out_scale - scale).max(0) as u32;
                        let round = avg_rounds(scale, out_scale);
                        let v = totals
                            .iter()
                            .zip(&counts)
                            .map(|(x, c)| {
                                if *c == 0 {
                                    return Ok(i256::ZERO);
                                }
                                scaled_div(*x, shift, i256::from(*c), round)
                                    .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "AVG"))
                            })
                            .collect::<Result<Vec<_>>>()?;
                        wide_decimal_out(v, seen, out_scale.max(scale), t)?
                    }
                }
            }
            Acc::SumExact {
                sums,
                seen,
                scale,
                avg: None,
                ..
            } => decimal(sums, seen, scale)?,
            Acc::SumExact {
                sums,
                seen,
                scale,
                avg: Some(counts),
                ..
            } => {
                // AVG = SUM / COUNT at the output scale (see avg_rounds).
                let out_scale = match t {
                    DataType::Decimal128(_, s) => *s,
                    _ => scale,
                };
                let round = avg_rounds(scale, out_scale);
                let shift = (out_scale - scale).max(0) as u32;
                let f = 10i128.pow(shift);
                let v: Vec<i128> = sums
                    .iter()
                    .zip(&counts)
                    .map(|(s, c)| {
                        if *c == 0 {
                            return Ok(0);
                        }
                        let c = *c as i128;
                        let Some(num) = s.checked_mul(f) else {
                            return scaled_div(
                                i256::from_i128(*s),
                                shift,
                                i256::from_i128(c),
                                round,
                            )
                            .and_then(|q| q.to_i128())
                            .ok_or_else(|| QuiverError::out_of_range("DECIMAL", "AVG"));
                        };
                        let q = num / c;
                        Ok(if round && (num % c).abs() * 2 >= c {
                            q + num.signum()
                        } else {
                            q
                        })
                    })
                    .collect::<Result<_>>()?;
                decimal(v, seen, out_scale)?
            }
            Acc::SumFloat { sums, seen, avg } => {
                let v: Vec<f64> = match avg {
                    None => sums,
                    Some(c) => sums
                        .iter()
                        .zip(&c)
                        .map(|(s, c)| s / (*c).max(1) as f64)
                        .collect(),
                };
                let a: ArrayRef = Arc::new(arrow_array::Float64Array::new(
                    v.into(),
                    Some(NullBuffer::from(seen)),
                ));
                cast_array(&a, t)?
            }
            Acc::MinMaxExact {
                vals, seen, input, ..
            } => {
                let input = input.unwrap_or_else(|| t.clone());
                let nulls = Some(NullBuffer::from(seen));
                let a: ArrayRef = match &input {
                    DataType::Decimal128(p, s) => Arc::new(
                        arrow_array::Decimal128Array::new(vals.into(), nulls)
                            .with_precision_and_scale(*p, *s)?,
                    ),
                    DataType::Date32 => Arc::new(arrow_array::Date32Array::new(
                        vals.iter().map(|x| *x as i32).collect::<Vec<_>>().into(),
                        nulls,
                    )),
                    t @ DataType::Decimal64(..) => Arc::new(
                        arrow_array::Decimal64Array::new(
                            vals.iter().map(|x| *x as i64).collect::<Vec<_>>().into(),
                            nulls,
                        )
                        .with_data_type(t.clone()),
                    ),
                    DataType::Timestamp(_, fsp) => Arc::new(
                        arrow_array::TimestampMicrosecondArray::new(
                            vals.iter().map(|x| *x as i64).collect::<Vec<_>>().into(),
                            nulls,
                        )
                        .with_timezone_opt(fsp.clone()),
                    ),
                    DataType::UInt64 => Arc::new(arrow_array::UInt64Array::new(
                        vals.iter().map(|x| *x as u64).collect::<Vec<_>>().into(),
                        nulls,
                    )),
                    _ => Arc::new(arrow_array::Int64Array::new(
                        vals.iter().map(|x| *x as i64).collect::<Vec<_>>().into(),
                        nulls,
                    )),
                };
                cast_array(&a, t)?
            }
            Acc::MinMaxWide { vals, seen, t, .. } => {
                let DataType::Decimal256(p, s) = t else {
                    return Err(QuiverError::internal("MIN of a wide decimal"));
                };
                Arc::new(
                    arrow_array::Decimal256Array::new(vals.into(), Some(NullBuffer::from(seen)))
                        .with_precision_and_scale(p, s)?,
                )
            }
            Acc::MinMaxFloat { vals, seen, .. } => {
                let a: ArrayRef = Arc::new(arrow_array::Float64Array::new(
                    vals.into(),
                    Some(NullBuffer::from(seen)),
                ));
                cast_array(&a, t)?
            }
            Acc::MinMaxStr { vals, .. } if t == &DataType::Binary => {
                Arc::new(arrow_array::BinaryArray::from_iter(vals))
            }
            Acc::MinMaxStr { vals, .. } => {
                // Values of text are whole UTF-8 values (checked).
                let vals = vals
                    .into_iter()
                    .map(|v| v.map(String::from_utf8).transpose())
                    .collect::<std::result::Result<Vec<Option<String>>, _>>()
                    .map_err(|e| QuiverError::internal(format!("MIN/MAX of text: {e}")))?;
                let a: ArrayRef = Arc::new(arrow_array::StringArray::from(vals));
                cast_array(&a, t)?
            }
            Acc::DistinctCount(p) => {
                let mut counts = p.counts;
                counts.resize(groups, 0);
                Arc::new(arrow_array::Int64Array::from(counts))
            }
            Acc::Distinct {
                func, sets, input, ..
            } => {
                let mut sets = sets;
                sets.resize_with(groups, HashSet::new);
                match func {
                    AggFunc::Count | AggFunc::CountStar => Arc::new(arrow_array::Int64Array::from(
                        sets.iter().map(|s| s.len() as i64).collect::<Vec<_>>(),
                    )),
                    _ => {
                        let scale = match &input {
                            Some(DataType::Decimal128(_, s) | DataType::Decimal256(_, s)) => *s,
                            _ => 0,
                        };
                        let avg = func == AggFunc::Avg;
                        if sets
                            .iter()
                            .flatten()
                            .any(|v| matches!(v, DistinctValue::Float(_)))
                        {
                            let mut sums = vec![];
                            let mut seen = vec![];
                            for s in &sets {
                                let vals: Vec<f64> = s
                                    .iter()
                                    .map(|v| match v {
                                        DistinctValue::Float(b) => f64::from_bits(*b),
                                        DistinctValue::Int(i) => *i as f64,
                                        _ => 0.0,
                                    })
                                    .collect();
                                let total: f64 = vals.iter().sum();
                                sums.push(if avg {
                                    total / vals.len().max(1) as f64
                                } else {
                                    total
                                });
                                seen.push(!vals.is_empty());
                            }
                            let a: ArrayRef = Arc::new(arrow_array::Float64Array::new(
                                sums.into(),
                                Some(NullBuffer::from(seen)),
                            ));
                            cast_array(&a, t)?
                        } else {
                            let mut acc = Acc::SumExact {
                                sums: vec![],
                                wide: vec![],
                                bound: u128::MAX,
                                seen: vec![],
                                scale,
                                avg: avg.then(Vec::new),
                            };
                            acc.resize(groups);
                            if let Acc::SumExact {
                                sums,
                                wide,
                                seen,
                                avg,
                                ..
                            } = &mut acc
                            {
                                for (g, s) in sets.iter().enumerate() {
                                    for v in s {
                                        match v {
                                            DistinctValue::Int(i) => add_exact(sums, wide, g, *i),
                                            DistinctValue::Wide(w) => {
                                                wide.resize(sums.len(), i256::ZERO);
                                                wide[g] = wide[g].wrapping_add(*w);
                                            }
                                            _ => continue,
                                        }
                                        seen[g] = true;
                                        if let Some(c) = avg.as_mut() {
                                            c[g] += 1;
                                        }
                                    }
                                }
                            }
                            acc.finish(t, groups)?
                        }
                    }
                }
            }
        })
    }
}
