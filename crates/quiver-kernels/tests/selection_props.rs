//! Mask combinators, selection vectors and counts against plain `Vec<bool>` /
//! `Option<bool>` references, on masks with non-zero bit offsets.

use arrow_buffer::{BooleanBuffer, NullBuffer};
use proptest::prelude::*;
use quiver_kernels::selection::{and, and_kleene, and_not, not, or, or_kleene};
use quiver_kernels::{count_set_bits, filter_mask, to_selection, to_selection_into};

/// A buffer holding `bits`, sliced so it starts `offset` bits into its storage.
fn sliced(bits: &[bool], offset: usize) -> BooleanBuffer {
    let padded: Vec<bool> = std::iter::repeat_n(true, offset)
        .chain(bits.iter().copied())
        .collect();
    BooleanBuffer::from(padded).slice(offset, bits.len())
}

/// A three-valued column: values, validity and the slice offset to store it at.
fn tri_column(len: usize) -> impl Strategy<Value = (Vec<Option<bool>>, usize)> {
    (
        prop::collection::vec(prop::option::of(any::<bool>()), len),
        0usize..70,
    )
}

/// Splits a three-valued column into Arrow values + nulls. NULL rows get
/// random-looking value bits, since Arrow leaves them unspecified.
fn split(column: &[Option<bool>], offset: usize) -> (BooleanBuffer, Option<NullBuffer>) {
    let values: Vec<bool> = column
        .iter()
        .enumerate()
        .map(|(i, v)| v.unwrap_or(i % 3 == 0))
        .collect();
    let validity: Vec<bool> = column.iter().map(Option::is_some).collect();
    (
        sliced(&values, offset),
        Some(NullBuffer::new(sliced(&validity, offset))),
    )
}

fn to_bools(mask: &BooleanBuffer) -> Vec<bool> {
    mask.iter().collect()
}

fn join(values: &BooleanBuffer, nulls: Option<&NullBuffer>) -> Vec<Option<bool>> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| nulls.is_none_or(|n| n.is_valid(i)).then_some(v))
        .collect()
}

proptest! {
    #[test]
    fn selection_vector_lists_set_bits(
        bits in prop::collection::vec(prop::bool::weighted(0.7), 0..400),
        offset in 0usize..70,
        dense_run in 0usize..200,
    ) {
        // A run of set bits makes whole all-ones words (the dense fast path).
        let mut bits = bits;
        bits.extend(std::iter::repeat_n(true, dense_run));
        let mask = sliced(&bits, offset);
        let expected: Vec<u32> = (0..bits.len() as u32).filter(|&i| bits[i as usize]).collect();
        prop_assert_eq!(to_selection(&mask), expected.clone());
        let mut reused = vec![7, 7, 7];
        to_selection_into(&mask, &mut reused);
        prop_assert_eq!(reused, expected.clone());
        prop_assert_eq!(count_set_bits(&mask), expected.len());
    }

    #[test]
    fn filter_combinators_follow_sql((a, a_off) in tri_column(150), (b, b_off) in tri_column(150)) {
        let (a_values, a_nulls) = split(&a, a_off);
        let (b_values, b_nulls) = split(&b, b_off);
        let a_mask = filter_mask(&a_values, a_nulls.as_ref());
        let b_mask = filter_mask(&b_values, b_nulls.as_ref());
        let is_true = |v: &Option<bool>| *v == Some(true);
        prop_assert_eq!(to_bools(&a_mask), a.iter().map(is_true).collect::<Vec<_>>());

        let both: Vec<bool> = a.iter().zip(&b).map(|(x, y)| is_true(x) && is_true(y)).collect();
        prop_assert_eq!(to_bools(&and(&a_mask, &b_mask)), both);
        let either: Vec<bool> = a.iter().zip(&b).map(|(x, y)| is_true(x) || is_true(y)).collect();
        prop_assert_eq!(to_bools(&or(&a_mask, &b_mask)), either);
        let a_not_b: Vec<bool> = a.iter().zip(&b).map(|(x, y)| is_true(x) && !is_true(y)).collect();
        prop_assert_eq!(to_bools(&and_not(&a_mask, &b_mask)), a_not_b);

        // NOT NULL is NULL: only rows whose predicate is FALSE pass.
        let negated: Vec<bool> = a.iter().map(|v| *v == Some(false)).collect();
        prop_assert_eq!(to_bools(&not(&a_values, a_nulls.as_ref())), negated);
        // Without a null buffer NOT is a plain complement.
        let plain: Vec<bool> = to_bools(&a_values).iter().map(|v| !v).collect();
        prop_assert_eq!(to_bools(&not(&a_values, None)), plain);
    }

    #[test]
    fn kleene_logic_matches_sql_truth_tables(
        (a, a_off) in tri_column(150),
        (b, b_off) in tri_column(150),
        drop_a_nulls in any::<bool>(),
    ) {
        // Also cover one side having no null buffer at all.
        let a: Vec<Option<bool>> =
            if drop_a_nulls { a.iter().map(|v| Some(v.unwrap_or(true))).collect() } else { a };
        let (a_values, a_nulls) = split(&a, a_off);
        let a_nulls = a_nulls.filter(|_| !drop_a_nulls);
        let (b_values, b_nulls) = split(&b, b_off);

        let sql_and = |x: Option<bool>, y: Option<bool>| match (x, y) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        };
        let sql_or = |x: Option<bool>, y: Option<bool>| match (x, y) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        };
        let (values, nulls) = and_kleene(&a_values, a_nulls.as_ref(), &b_values, b_nulls.as_ref());
        let expected: Vec<_> = a.iter().zip(&b).map(|(&x, &y)| sql_and(x, y)).collect();
        prop_assert_eq!(join(&values, nulls.as_ref()), expected);
        let (values, nulls) = or_kleene(&a_values, a_nulls.as_ref(), &b_values, b_nulls.as_ref());
        let expected: Vec<_> = a.iter().zip(&b).map(|(&x, &y)| sql_or(x, y)).collect();
        prop_assert_eq!(join(&values, nulls.as_ref()), expected);
    }
}

#[test]
fn kleene_without_nulls_has_no_null_buffer() {
    let a = BooleanBuffer::from(vec![true, false, true]);
    let b = BooleanBuffer::from(vec![true, true, false]);
    let (values, nulls) = and_kleene(&a, None, &b, None);
    assert!(nulls.is_none());
    assert_eq!(to_bools(&values), vec![true, false, false]);
}
