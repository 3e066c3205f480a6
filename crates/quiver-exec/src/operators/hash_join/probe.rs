//! The probe side of a hash join: each probe batch's keys looked up in the
//! build side's index, candidate pairs checked by the join's filter, and the
//! output rows built per join kind (inner, outer, semi, anti, NOT IN, mark,
//! single).

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::SchemaRef;
use quiver_common::{QuiverError, Result};
use quiver_plan::JoinKind;

use crate::expr::PhysicalExpr;
use crate::hash::{any_null, KeyColumn};
use crate::operators::exec_plan::BatchStream;

use super::build_side::{key_columns, BuildSide};

/// Candidate pairs gathered before a batch is emitted.
pub(super) const PAIRS_PER_BATCH: usize = 64 * 1024;

/// Columns of `left` rows `li` next to `right` rows `ri` (None = NULLs).
/// Candidate pairs (row `li[k]` of `left` with row `ri[k]` of `right`, or
/// NULLs) through the join's non-equi `filter`: calls `passed(li[k])` for
/// each pair that passes (all of them without a filter) and, when `keep`,
/// returns the passing pairs as one batch of `schema`.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_pairs(
    schema: &SchemaRef,
    left: &RecordBatch,
    li: &[u32],
    right: &RecordBatch,
    ri: &[Option<u32>],
    filter: Option<&PhysicalExpr>,
    keep: bool,
    mut passed: impl FnMut(u32),
) -> Result<Option<RecordBatch>> {
    if filter.is_none() && !keep {
        li.iter().for_each(|&i| passed(i));
        return Ok(None);
    }
    let pairs = pair_batch(schema, left, li, right, ri)?;
    let mask = filter.map(|f| f.evaluate_mask(&pairs)).transpose()?;
    for (k, &i) in li.iter().enumerate() {
        if mask.as_ref().is_none_or(|m| m.value(k)) {
            passed(i);
        }
    }
    Ok(match (keep, mask) {
        (false, _) => None,
        (true, Some(m)) => Some(arrow_select::filter::filter_record_batch(&pairs, &m)?),
        (true, None) => Some(pairs),
    })
}

pub(super) fn pair_batch(
    schema: &SchemaRef,
    left: &RecordBatch,
    li: &[u32],
    right: &RecordBatch,
    ri: &[Option<u32>],
) -> Result<RecordBatch> {
    let li = UInt32Array::from(li.to_vec());
    let ri = UInt32Array::from(ri.to_vec());
    let mut cols: Vec<ArrayRef> = Vec::with_capacity(left.num_columns() + right.num_columns());
    for c in left.columns() {
        cols.push(arrow_select::take::take(c, &li, None)?);
    }
    for c in right.columns() {
        cols.push(arrow_select::take::take(c, &ri, None)?);
    }
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        cols,
        &RecordBatchOptions::new().with_row_count(Some(li.len())),
    )?)
}

pub(super) struct Prober {
    pub(super) kind: JoinKind,
    pub(super) left_keys: Vec<PhysicalExpr>,
    pub(super) filter: Option<PhysicalExpr>,
    /// Left ++ right columns, for evaluating the filter and for inner/outer output.
    pub(super) pair_schema: SchemaRef,
    pub(super) out_schema: SchemaRef,
    pub(super) build: Arc<BuildSide>,
    pub(super) cancel: crate::context::CancelToken,
}

/// About how many rows a probe yields at a time: a probe batch whose rows
/// find many matches each (a cross join, a key shared by many build rows)
/// is probed a slice at a time, so that what is in flight stays bounded.
pub(super) const OUTPUT_ROWS: usize = 64 * 1024;

/// The probe side's batches, probed lazily a slice at a time; the slice
/// follows the matches per row seen so far.
pub(super) struct ProbeStream {
    pub(super) input: BatchStream,
    pub(super) prober: Prober,
    pub(super) pending: std::collections::VecDeque<RecordBatch>,
    /// The probe batch being worked through, and where its next slice starts.
    pub(super) current: Option<(RecordBatch, usize)>,
    pub(super) slice_rows: usize,
}

impl Iterator for ProbeStream {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if let Some(b) = self.pending.pop_front() {
                return Some(Ok(b));
            }
            let (batch, at) = match self.current.take() {
                Some(c) => c,
                None => match self.input.next()? {
                    Ok(b) => (b, 0),
                    Err(e) => return Some(Err(e)),
                },
            };
            let len = self.slice_rows.min(batch.num_rows() - at);
            let slice = if at == 0 && len == batch.num_rows() {
                batch.clone()
            } else {
                batch.slice(at, len)
            };
            match self.prober.probe(slice) {
                Ok((out, used)) => {
                    // The probe may stop early: what it left is next.
                    if at + used < batch.num_rows() {
                        self.current = Some((batch, at + used));
                    }
                    let rows: usize = out.iter().map(|b| b.num_rows()).sum();
                    // Size the next slice to yield about OUTPUT_ROWS rows.
                    let per_row = rows.div_ceil(used.max(1)).max(1);
                    self.slice_rows = (OUTPUT_ROWS / per_row).max(1);
                    self.pending
                        .extend(out.into_iter().filter(|b| b.num_rows() > 0));
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// What a probe row found on the build side, for NOT IN and mark joins.
pub(super) const NO_MATCH: u8 = 0;
/// A row of its subquery equals it but for NULLs: IN is NULL.
pub(super) const POSSIBLE_MATCH: u8 = 1;
pub(super) const MATCH: u8 = 2;

impl Prober {
    /// The output for a prefix of `left`'s rows, and how many rows that
    /// is: all of them, unless their pairs passed [`OUTPUT_ROWS`] first
    /// (then the rows up to the one that did).
    fn probe(&self, left: RecordBatch) -> Result<(Vec<RecordBatch>, usize)> {
        if matches!(
            self.kind,
            JoinKind::NullAwareAnti { .. } | JoinKind::Mark { .. }
        ) {
            let n = left.num_rows();
            return Ok((self.probe_null_aware(left)?, n));
        }
        let n = left.num_rows();
        let build = &self.build;
        let keys = build.main.probe_key_columns(&self.left_keys, &left)?;
        let probe = build.main.probe_keys(&keys, n);
        let probe = &probe;
        let null_key = |i: usize| probe.is_null(i);
        let mut out = Vec::new();
        match (self.kind, &self.filter) {
            (JoinKind::Semi | JoinKind::Anti, None) => {
                let want = self.kind == JoinKind::Semi;
                if let Some(found) = build.main.matches_exactly(probe, n) {
                    // A NULL key matches nothing: semi drops it, anti keeps it.
                    let found = match keys[0].nulls.as_ref() {
                        Some(valid) => &found & valid.inner(),
                        None => found,
                    };
                    let keep = if want { found } else { !&found };
                    let mask = BooleanArray::new(keep, None);
                    out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
                    return Ok((self.with_out_schema(out)?, n));
                }
                let mask: BooleanArray = (0..n)
                    .map(|i| {
                        Some(
                            !null_key(i) && build.main.has_match(probe, i) == want
                                || (!want && null_key(i)),
                        )
                    })
                    .collect();
                out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
            }
            _ => {
                // Gather candidate pairs, check the filter, then shape the output by kind.
                let mut matched = vec![0u32; n];
                let mut li: Vec<u32> = Vec::new();
                let mut ri: Vec<Option<u32>> = Vec::new();
                let flush = |li: &mut Vec<u32>,
                             ri: &mut Vec<Option<u32>>,
                             matched: &mut [u32],
                             out: &mut Vec<RecordBatch>|
                 -> Result<()> {
                    if li.is_empty() {
                        return Ok(());
                    }
                    self.cancel.check()?;
                    // Only these kinds output the pairs; the others count matches.
                    let keep = matches!(
                        self.kind,
                        JoinKind::Inner | JoinKind::Left | JoinKind::Single
                    );
                    let pairs = check_pairs(
                        &self.pair_schema,
                        &left,
                        li,
                        &build.batch,
                        ri,
                        self.filter.as_ref(),
                        keep,
                        |i| matched[i as usize] += 1,
                    )?;
                    if let Some(pairs) = pairs.filter(|p| p.num_rows() > 0) {
                        out.push(pairs);
                    }
                    li.clear();
                    ri.clear();
                    Ok(())
                };
                // Pairs made so far; past OUTPUT_ROWS the rest of the rows
                // wait for the next call.
                let mut paired = 0usize;
                let mut used = n;
                let mut visit = |i: usize| -> Result<bool> {
                    if null_key(i) {
                        return Ok(true);
                    }
                    let before = li.len();
                    build.main.for_each_match(probe, i, |j| {
                        li.push(i as u32);
                        ri.push(Some(j as u32));
                        true
                    });
                    paired += li.len() - before;
                    if li.len() >= PAIRS_PER_BATCH {
                        flush(&mut li, &mut ri, &mut matched, &mut out)?;
                    }
                    Ok(paired < OUTPUT_ROWS)
                };
                let sifted = build.main.sift(probe);
                let rows: Box<dyn Iterator<Item = usize>> = match &sifted {
                    Some(rows) => Box::new(rows.iter().map(|&i| i as usize)),
                    None => Box::new(0..n),
                };
                for i in rows {
                    if !visit(i)? {
                        used = i + 1;
                        break;
                    }
                }
                flush(&mut li, &mut ri, &mut matched, &mut out)?;
                let left = if used < n { left.slice(0, used) } else { left };
                let matched = &matched[..used];
                let n = used;
                match self.kind {
                    JoinKind::Inner => {}
                    JoinKind::Left | JoinKind::Single => {
                        if self.kind == JoinKind::Single && matched.iter().any(|m| *m > 1) {
                            return Err(QuiverError::subquery_rows());
                        }
                        let lonely: Vec<u32> = (0..n as u32)
                            .filter(|i| matched[*i as usize] == 0)
                            .collect();
                        if !lonely.is_empty() {
                            let none = vec![None; lonely.len()];
                            out.push(pair_batch(
                                &self.pair_schema,
                                &left,
                                &lonely,
                                &build.batch,
                                &none,
                            )?);
                        }
                    }
                    JoinKind::Semi => {
                        let mask: BooleanArray = matched.iter().map(|m| Some(*m > 0)).collect();
                        out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
                    }
                    JoinKind::Anti => {
                        let mask: BooleanArray = matched.iter().map(|m| Some(*m == 0)).collect();
                        out.push(arrow_select::filter::filter_record_batch(&left, &mask)?);
                    }
                    JoinKind::NullAwareAnti { .. } | JoinKind::Mark { .. } => {
                        unreachable!("probed by probe_null_aware")
                    }
                }
                return Ok((self.with_out_schema(out)?, n));
            }
        }
        Ok((self.with_out_schema(out)?, n))
    }

    /// NOT IN keeps the rows with no match, possible or exact; a mark join
    /// appends TRUE / NULL / FALSE for match / possible match / none.
    fn probe_null_aware(&self, left: RecordBatch) -> Result<Vec<RecordBatch>> {
        let state = self.match_states(&left)?;
        let out = match self.kind {
            JoinKind::Mark { .. } => {
                let mark: BooleanArray = state
                    .iter()
                    .map(|s| match *s {
                        MATCH => Some(true),
                        POSSIBLE_MATCH => None,
                        _ => Some(false),
                    })
                    .collect();
                let mut cols = left.columns().to_vec();
                cols.push(Arc::new(mark));
                vec![RecordBatch::try_new_with_options(
                    self.out_schema.clone(),
                    cols,
                    &RecordBatchOptions::new().with_row_count(Some(left.num_rows())),
                )?]
            }
            _ => {
                let keep: BooleanArray = state.iter().map(|s| Some(*s == NO_MATCH)).collect();
                vec![arrow_select::filter::filter_record_batch(&left, &keep)?]
            }
        };
        self.with_out_schema(out)
    }

    /// For each probe row: MATCH if a build row equals it on every key (none
    /// NULL) and passes the filter; else POSSIBLE_MATCH if a build row of its
    /// correlation group (strict keys equal, filter true) is, on each IN key,
    /// NULL on either side or equal; else NO_MATCH.
    fn match_states(&self, left: &RecordBatch) -> Result<Vec<u8>> {
        let n = left.num_rows();
        let build = &self.build;
        let mut state = vec![NO_MATCH; n];
        if build.batch.num_rows() == 0 {
            return Ok(state);
        }
        let all_keys = key_columns(&self.left_keys, left)?;
        let mut pairs = PairMarks::default();
        {
            let packed;
            let keys: &[KeyColumn] = match &build.main.pack {
                Some(p) => {
                    packed = [p.pack(&all_keys, n)];
                    &packed
                }
                None => &all_keys,
            };
            let probe = build.main.probe_keys(keys, n);
            for i in 0..n {
                if probe.is_null(i) {
                    continue;
                }
                if self.filter.is_none() {
                    if build.main.has_match(&probe, i) {
                        state[i] = MATCH;
                    }
                    continue;
                }
                build.main.for_each_match(&probe, i, |j| {
                    pairs.push(i, j);
                    true
                });
                if pairs.len() >= PAIRS_PER_BATCH {
                    self.flush_marks(left, &mut pairs, &mut state, MATCH)?;
                }
            }
            self.flush_marks(left, &mut pairs, &mut state, MATCH)?;
        }
        let Some(na) = &build.null_aware else {
            return Ok(state);
        };
        let (probe_in, probe_group) = all_keys.split_at(na.in_keys);
        let probe_has_null = probe_in
            .iter()
            .any(|k| k.nulls.as_ref().is_some_and(|b| b.null_count() > 0));
        // Without NULLs in the IN keys on either side, exact is all there is.
        if na.with_null.is_none() && !probe_has_null {
            return Ok(state);
        }
        let build_in = &build.main.keys[..na.in_keys];
        let group_keys = na.group.shape_probe_keys(probe_group.to_vec(), n);
        let group = na.group.probe_keys(&group_keys, n);
        for i in 0..n {
            // No correlation group (a NULL correlation key): the subquery is empty.
            if state[i] != NO_MATCH || group.is_null(i) {
                continue;
            }
            let index = if any_null(probe_in, i) {
                &na.group.index
            } else {
                match &na.with_null {
                    Some(index) => index,
                    None => continue,
                }
            };
            let mut found = false;
            index.for_each_match(&na.group.keys, &group, i, |j| {
                let possible = probe_in
                    .iter()
                    .zip(build_in)
                    .all(|(p, b)| p.is_null(i) || b.is_null(j) || p.eq(i, b, j));
                if possible {
                    if self.filter.is_none() {
                        found = true;
                        return false;
                    }
                    pairs.push(i, j);
                }
                true
            });
            if found {
                state[i] = POSSIBLE_MATCH;
            }
            if pairs.len() >= PAIRS_PER_BATCH {
                self.flush_marks(left, &mut pairs, &mut state, POSSIBLE_MATCH)?;
            }
        }
        self.flush_marks(left, &mut pairs, &mut state, POSSIBLE_MATCH)?;
        Ok(state)
    }

    /// Sets `state` of the probe rows of `pairs` that pass the filter to `to`
    /// (unless already set), then empties `pairs`.
    fn flush_marks(
        &self,
        left: &RecordBatch,
        pairs: &mut PairMarks,
        state: &mut [u8],
        to: u8,
    ) -> Result<()> {
        if pairs.li.is_empty() {
            return Ok(());
        }
        self.cancel.check()?;
        check_pairs(
            &self.pair_schema,
            left,
            &pairs.li,
            &self.build.batch,
            &pairs.ri,
            self.filter.as_ref(),
            false,
            |i| {
                let s = &mut state[i as usize];
                *s = (*s).max(to);
            },
        )?;
        pairs.li.clear();
        pairs.ri.clear();
        Ok(())
    }

    fn with_out_schema(&self, out: Vec<RecordBatch>) -> Result<Vec<RecordBatch>> {
        // Output columns are exactly the pair columns or the left columns.
        out.into_iter()
            .filter(|b| b.num_rows() > 0)
            .map(|b| {
                Ok(RecordBatch::try_new_with_options(
                    self.out_schema.clone(),
                    b.columns().to_vec(),
                    &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
                )?)
            })
            .collect()
    }
}

/// Candidate (probe row, build row) pairs waiting for the filter.
#[derive(Default)]
pub(super) struct PairMarks {
    li: Vec<u32>,
    ri: Vec<Option<u32>>,
}

impl PairMarks {
    fn push(&mut self, i: usize, j: usize) {
        self.li.push(i as u32);
        self.ri.push(Some(j as u32));
    }

    fn len(&self) -> usize {
        self.li.len()
    }
}
