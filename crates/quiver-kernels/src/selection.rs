//! Combining selection masks and turning them into selection vectors.
//!
//! Two kinds of boolean data meet here:
//! * a *filter mask*: two-valued, bit set = row passes. WHERE keeps a row only
//!   when its predicate is TRUE, so a NULL predicate result counts as false;
//!   [`filter_mask`] collapses a three-valued result (values + Arrow
//!   [`NullBuffer`]) into one.
//! * a *three-valued* result, for boolean expressions that are projected
//!   rather than filtered: [`and_kleene`] / [`or_kleene`] follow SQL's logic.
//!
//! For filter masks `and`/`or` are exact even though the inputs came from
//! nullable predicates (NULL AND x is never TRUE; NULL OR TRUE is TRUE, and
//! NULL OR FALSE is not), but NOT is not: NOT NULL is NULL, so negate the
//! three-valued result with [`not`], which keeps the NULL rows out.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};

/// Row index type of selection vectors: batches are far below 4G rows, and
/// half-width indices halve the memory traffic of gathers.
pub type RowIndex = u32;

/// Collapses a predicate result to a filter mask: `values & valid`, so NULL
/// rows are not selected whatever their value bit holds.
pub fn filter_mask(values: &BooleanBuffer, nulls: Option<&NullBuffer>) -> BooleanBuffer {
    match nulls {
        Some(nulls) if nulls.null_count() > 0 => {
            check_len(values, nulls.inner());
            values & nulls.inner()
        }
        _ => values.clone(),
    }
}

/// Rows selected by both masks.
pub fn and(lhs: &BooleanBuffer, rhs: &BooleanBuffer) -> BooleanBuffer {
    check_len(lhs, rhs);
    lhs & rhs
}

/// Rows selected by either mask.
pub fn or(lhs: &BooleanBuffer, rhs: &BooleanBuffer) -> BooleanBuffer {
    check_len(lhs, rhs);
    lhs | rhs
}

/// Rows selected by `lhs` but not by `rhs` (`lhs AND NOT rhs` where `rhs`
/// is already a two-valued filter mask).
pub fn and_not(lhs: &BooleanBuffer, rhs: &BooleanBuffer) -> BooleanBuffer {
    check_len(lhs, rhs);
    BooleanBuffer::from_bitwise_binary_op(
        lhs.values(),
        lhs.offset(),
        rhs.values(),
        rhs.offset(),
        lhs.len(),
        |l, r| l & !r,
    )
}

/// Filter mask of `NOT predicate`, given the predicate's three-valued result:
/// rows where the predicate is FALSE (NOT NULL is NULL, so NULL rows stay out).
pub fn not(values: &BooleanBuffer, nulls: Option<&NullBuffer>) -> BooleanBuffer {
    match nulls {
        Some(nulls) if nulls.null_count() > 0 => {
            check_len(values, nulls.inner());
            and_not(nulls.inner(), values)
        }
        _ => !values,
    }
}

/// SQL three-valued AND: FALSE if either side is FALSE, TRUE if both are
/// TRUE, else NULL. Returns the values and the validity (None = no NULLs).
pub fn and_kleene(
    lhs: &BooleanBuffer,
    lhs_nulls: Option<&NullBuffer>,
    rhs: &BooleanBuffer,
    rhs_nulls: Option<&NullBuffer>,
) -> (BooleanBuffer, Option<NullBuffer>) {
    // A valid FALSE on either side decides the result.
    kleene(
        lhs,
        lhs_nulls,
        rhs,
        rhs_nulls,
        |l, r| l & r,
        |l, lv, r, rv| (lv & rv) | (lv & !l) | (rv & !r),
    )
}

/// SQL three-valued OR: TRUE if either side is TRUE, FALSE if both are
/// FALSE, else NULL. Returns the values and the validity (None = no NULLs).
pub fn or_kleene(
    lhs: &BooleanBuffer,
    lhs_nulls: Option<&NullBuffer>,
    rhs: &BooleanBuffer,
    rhs_nulls: Option<&NullBuffer>,
) -> (BooleanBuffer, Option<NullBuffer>) {
    // A valid TRUE on either side decides the result.
    kleene(
        lhs,
        lhs_nulls,
        rhs,
        rhs_nulls,
        |l, r| l | r,
        |l, lv, r, rv| (lv & rv) | (lv & l) | (rv & r),
    )
}

fn kleene(
    lhs: &BooleanBuffer,
    lhs_nulls: Option<&NullBuffer>,
    rhs: &BooleanBuffer,
    rhs_nulls: Option<&NullBuffer>,
    value: impl Fn(u64, u64) -> u64,
    valid: impl Fn(u64, u64, u64, u64) -> u64,
) -> (BooleanBuffer, Option<NullBuffer>) {
    check_len(lhs, rhs);
    let len = lhs.len();
    let lhs_nulls = lhs_nulls.filter(|n| n.null_count() > 0);
    let rhs_nulls = rhs_nulls.filter(|n| n.null_count() > 0);
    let values = BooleanBuffer::from_bitwise_binary_op(
        lhs.values(),
        lhs.offset(),
        rhs.values(),
        rhs.offset(),
        len,
        value,
    );
    if lhs_nulls.is_none() && rhs_nulls.is_none() {
        return (values, None);
    }
    let all_valid = BooleanBuffer::new_set(len);
    let lhs_valid = lhs_nulls.map_or(&all_valid, |n| n.inner());
    let rhs_valid = rhs_nulls.map_or(&all_valid, |n| n.inner());
    check_len(lhs, lhs_valid);
    check_len(rhs, rhs_valid);
    let validity: Vec<u64> = lhs
        .bit_chunks()
        .iter_padded()
        .zip(lhs_valid.bit_chunks().iter_padded())
        .zip(rhs.bit_chunks().iter_padded())
        .zip(rhs_valid.bit_chunks().iter_padded())
        .map(|(((l, lv), r), rv)| valid(l, lv, r, rv))
        .collect();
    let validity = BooleanBuffer::new(Buffer::from_vec(validity), 0, len);
    (values, Some(NullBuffer::new(validity)))
}

/// Number of selected rows.
pub fn count_set_bits(mask: &BooleanBuffer) -> usize {
    let chunks = mask.bit_chunks();
    let full: usize = chunks.iter().map(|w| w.count_ones() as usize).sum();
    full + chunks.remainder_bits().count_ones() as usize
}

/// Indices of the selected rows, ascending.
///
/// # Panics
/// If the mask is longer than `u32::MAX` rows.
pub fn to_selection(mask: &BooleanBuffer) -> Vec<RowIndex> {
    let mut selection = Vec::new();
    to_selection_into(mask, &mut selection);
    selection
}

/// Like [`to_selection`], but reuses `out` (cleared first) to avoid an
/// allocation per batch.
///
/// # Panics
/// If the mask is longer than `u32::MAX` rows.
pub fn to_selection_into(mask: &BooleanBuffer, out: &mut Vec<RowIndex>) {
    assert!(
        RowIndex::try_from(mask.len()).is_ok(),
        "mask of {} rows does not fit u32 row indices",
        mask.len()
    );
    out.clear();
    // One popcount pass (1/64 of a value pass) sizes the output exactly.
    out.reserve(count_set_bits(mask));
    let chunks = mask.bit_chunks();
    let mut base: RowIndex = 0;
    for word in chunks.iter() {
        push_word(out, word, base);
        base += 64;
    }
    push_word(out, chunks.remainder_bits(), base);
}

/// Appends `base + i` for every set bit `i` of `word`.
#[inline]
fn push_word(out: &mut Vec<RowIndex>, mut word: u64, base: RowIndex) {
    if word == u64::MAX {
        // Dense batches are common (e.g. `l_shipdate <= date '1998-09-02'`
        // keeps ~98% of lineitem): emit the run without bit-twiddling.
        out.extend(base..base + 64);
        return;
    }
    while word != 0 {
        out.push(base + word.trailing_zeros());
        word &= word - 1; // clear the lowest set bit
    }
}

fn check_len(lhs: &BooleanBuffer, rhs: &BooleanBuffer) {
    assert_eq!(lhs.len(), rhs.len(), "selection masks differ in length");
}
