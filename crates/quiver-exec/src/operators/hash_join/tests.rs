//! Tests of the hash join's indexes and its join-key filter.

use super::*;
use arrow_array::Int64Array;

fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// The scan's join-key filter keeps exactly the rows whose key the
/// build side holds (NULL keys never), everything before the build and
/// when the build keys have no bitmap.
#[test]
fn join_key_filter_keeps_exactly_the_build_keys() {
    let mut st = 3u64;
    // Sparse build keys over a small range: a bitmap.
    let build: Vec<Option<i64>> = (0..50)
        .map(|_| Some(1000 + lcg(&mut st) as i64 % 4000))
        .collect();
    let probe: Vec<Option<i64>> = (0..3000)
        .map(|i| (i % 17 != 0).then(|| 900 + lcg(&mut st) as i64 % 4300))
        .collect();
    let batch =
        RecordBatch::try_from_iter([("k", Arc::new(Int64Array::from(probe.clone())) as ArrayRef)])
            .unwrap();
    let key = PhysicalExpr::Column(0);
    let filter = JoinKeyFilter::default();
    assert_eq!(
        filter
            .may_match(&key_column(&key, &batch), batch.num_rows())
            .true_count(),
        3000
    );
    let index = KeyIndex::build(int_keys(&build), build.len());
    assert!(index.present.is_some() && index.pack.is_none());
    filter.publish(index.present.clone());
    let mask = filter.may_match(&key_column(&key, &batch), batch.num_rows());
    for (i, p) in probe.iter().enumerate() {
        let want = p.is_some_and(|p| build.contains(&Some(p)));
        assert_eq!(mask.value(i), want, "row {i}: {p:?}");
    }
    // Dense build keys: no bitmap, every row may match.
    let dense: Vec<Option<i64>> = (0..5000).map(Some).collect();
    let index = KeyIndex::build(int_keys(&dense), dense.len());
    let filter = JoinKeyFilter::default();
    filter.publish(index.present.clone());
    assert_eq!(
        filter
            .may_match(&key_column(&key, &batch), batch.num_rows())
            .true_count(),
        3000
    );
}

fn int_keys(values: &[Option<i64>]) -> Vec<KeyColumn> {
    let a: ArrayRef = Arc::new(Int64Array::from(values.to_vec()));
    vec![KeyColumn::collated(&a, quiver_plan::default_collation()).unwrap()]
}

#[test]
fn sifted_rows_are_those_a_scan_of_the_build_keys_finds() {
    let mut state = 7;
    for round in 0..50 {
        let span = 1 + lcg(&mut state) % 100_000;
        let base = (lcg(&mut state) % 1000) as i64 - 500;
        let build: Vec<Option<i64>> = (0..1 + round * 7)
            .map(|_| {
                let k = base + (lcg(&mut state) % span) as i64;
                (!lcg(&mut state).is_multiple_of(10)).then_some(k)
            })
            .collect();
        let probe: Vec<i64> = (0..3000)
            .map(|_| base - 50 + (lcg(&mut state) % (span + 100)) as i64)
            .chain([i64::MIN, i64::MAX, base - 1])
            .collect();
        let keys = int_keys(&build);
        let Some(bits) = KeyBitmap::build(&keys, build.len()) else {
            continue;
        };
        let want: Vec<u32> = probe
            .iter()
            .enumerate()
            .filter(|(_, k)| build.contains(&Some(**k)))
            .map(|(i, _)| i as u32)
            .collect();
        assert_eq!(bits.sift(&probe), want, "round {round}");
    }
}

#[test]
fn a_bitmap_only_for_a_sparse_small_range_of_one_integer_key() {
    let sparse: Vec<Option<i64>> = (0..100).map(|i| Some(i * 1000)).collect();
    assert!(KeyBitmap::build(&int_keys(&sparse), 100).is_some());
    let dense: Vec<Option<i64>> = (0..100).map(|i| Some(i * 2)).collect();
    assert!(KeyBitmap::build(&int_keys(&dense), 100).is_none());
    let wide = vec![Some(0), Some(1 << 40)];
    assert!(KeyBitmap::build(&int_keys(&wide), 2).is_none());
    let nulls = vec![None, None];
    assert!(KeyBitmap::build(&int_keys(&nulls), 2).is_none());
}

fn key_column(key: &PhysicalExpr, batch: &RecordBatch) -> KeyColumn {
    KeyColumn::collated(&key.evaluate_array(batch).unwrap(), key.collation()).unwrap()
}
