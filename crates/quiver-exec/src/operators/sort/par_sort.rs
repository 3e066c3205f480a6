//! Sorting of plain key vectors on several threads: the vector is cut into
//! one run per thread, each run is sorted on its own thread (an LSD radix
//! sort for `u64` keys, pdqsort otherwise), and the runs are merged in
//! parallel, each thread producing one range of the output. Items must be
//! distinct under the order (sort keys carry their row id), so that a
//! splitter value cuts every run at one well-defined place.

use std::cmp::Ordering;

/// Below this many items a run is sorted on the calling thread.
const PARALLEL_MIN: usize = 1 << 15;

/// Sorts `v` ascending by `cmp` on up to `threads` threads. With `fetch`,
/// only the first `fetch` items are needed: each run keeps its best `fetch`
/// (selected, then sorted) and the result is truncated to them.
pub(crate) fn par_sort_by<T, F, S>(
    v: Vec<T>,
    threads: usize,
    fetch: Option<usize>,
    sort_run: S,
    cmp: F,
) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
    S: Fn(&mut [T]) + Sync,
{
    let n = v.len();
    let threads = threads.clamp(1, (n / PARALLEL_MIN).max(1));
    // Selecting pays only when it drops most of a run.
    let select = fetch.filter(|k| k.saturating_mul(4) < n / threads);
    // Sorts a run in place and returns how many of its items are kept.
    let sort_one = |run: &mut [T]| -> usize {
        match select {
            Some(0) => 0,
            Some(k) if k < run.len() => {
                run.select_nth_unstable_by(k - 1, &cmp);
                run[..k].sort_unstable_by(&cmp);
                k
            }
            _ => {
                sort_run(run);
                run.len()
            }
        }
    };
    let mut v = v;
    let mut out = if threads == 1 {
        let kept = sort_one(&mut v);
        v.truncate(kept);
        v
    } else {
        let chunk = n.div_ceil(threads);
        let mut runs: Vec<(&mut [T], usize)> = v.chunks_mut(chunk).map(|c| (c, 0)).collect();
        std::thread::scope(|s| {
            for (run, kept) in runs.iter_mut() {
                let sort_one = &sort_one;
                s.spawn(move || *kept = sort_one(run));
            }
        });
        let slices: Vec<&[T]> = runs.iter().map(|(r, kept)| &r[..*kept]).collect();
        par_merge(&slices, threads, &cmp)
    };
    if let Some(k) = fetch {
        out.truncate(k);
    }
    out
}

/// The items of the sorted `runs`, merged, on up to `threads` threads. The
/// output is cut at splitters sampled from the runs; each piece is the merge
/// of the runs' slices between two splitters.
pub(crate) fn par_merge<T, F>(runs: &[&[T]], threads: usize, cmp: &F) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let n: usize = runs.iter().map(|r| r.len()).sum();
    let pieces = threads.clamp(1, (n / PARALLEL_MIN).max(1));
    // Splitters: evenly spaced samples of every run, sorted, at quantiles.
    let mut samples: Vec<T> = Vec::new();
    const PER_RUN: usize = 64;
    for r in runs {
        if r.is_empty() {
            continue;
        }
        for s in 1..=PER_RUN {
            samples.push(r[(s * r.len() / (PER_RUN + 1)).min(r.len() - 1)]);
        }
    }
    samples.sort_unstable_by(cmp);
    samples.dedup_by(|a, b| cmp(a, b).is_eq());
    let splitters: Vec<T> = (1..pieces)
        .filter_map(|p| samples.get(p * samples.len() / pieces).copied())
        .collect();
    // cuts[j][r]: where piece j starts in run r.
    let mut cuts: Vec<Vec<usize>> = vec![vec![0; runs.len()]];
    for s in &splitters {
        cuts.push(
            runs.iter()
                .map(|r| r.partition_point(|x| cmp(x, s).is_lt()))
                .collect(),
        );
    }
    cuts.push(runs.iter().map(|r| r.len()).collect());
    let mut out: Vec<T> = Vec::with_capacity(n);
    if let Some(first) = runs.iter().find_map(|r| r.first()) {
        out.resize(n, *first);
    }
    let mut rest = out.as_mut_slice();
    let mut jobs = Vec::new();
    for j in 0..cuts.len() - 1 {
        let parts: Vec<&[T]> = runs
            .iter()
            .enumerate()
            .map(|(r, run)| &run[cuts[j][r]..cuts[j + 1][r]])
            .collect();
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let (dst, tail) = rest.split_at_mut(len);
        rest = tail;
        jobs.push((parts, dst));
    }
    if jobs.len() == 1 {
        let (parts, dst) = jobs.pop().expect("one job");
        merge_into(&parts, dst, cmp);
    } else {
        std::thread::scope(|s| {
            for (parts, dst) in jobs {
                s.spawn(move || merge_into(&parts, dst, cmp));
            }
        });
    }
    out
}

/// Merges the sorted `parts` into `dst` (of their total length): pairwise,
/// halving the number of parts per pass.
fn merge_into<T: Copy, F: Fn(&T, &T) -> Ordering>(parts: &[&[T]], dst: &mut [T], cmp: &F) {
    let parts: Vec<&[T]> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    match parts.len() {
        0 => {}
        1 => dst.copy_from_slice(parts[0]),
        2 => merge_two(parts[0], parts[1], dst, cmp),
        k => {
            let half = k / 2;
            let left_len: usize = parts[..half].iter().map(|p| p.len()).sum();
            let mut left = dst[..left_len].to_vec();
            let mut right = dst[left_len..].to_vec();
            merge_into(&parts[..half], &mut left, cmp);
            merge_into(&parts[half..], &mut right, cmp);
            merge_two(&left, &right, dst, cmp);
        }
    }
}

fn merge_two<T: Copy, F: Fn(&T, &T) -> Ordering>(a: &[T], b: &[T], dst: &mut [T], cmp: &F) {
    let (mut i, mut j) = (0, 0);
    for slot in dst.iter_mut() {
        let take_a = j == b.len() || (i < a.len() && cmp(&a[i], &b[j]).is_le());
        if take_a {
            *slot = a[i];
            i += 1;
        } else {
            *slot = b[j];
            j += 1;
        }
    }
}

/// Sorts `v` ascending: LSD radix over the bytes in which its values differ
/// (byte digits; a byte equal in every value costs nothing).
pub(crate) fn radix_sort_u64(v: &mut [u64]) {
    let n = v.len();
    if n < 256 {
        v.sort_unstable();
        return;
    }
    let first = v[0];
    let diff = v.iter().fold(0u64, |d, x| d | (x ^ first));
    let digits: Vec<u32> = (0..8).filter(|b| (diff >> (8 * b)) & 0xff != 0).collect();
    if digits.is_empty() {
        return;
    }
    let mut counts = vec![[0usize; 256]; digits.len()];
    for x in v.iter() {
        for (c, b) in counts.iter_mut().zip(&digits) {
            c[((x >> (8 * b)) & 0xff) as usize] += 1;
        }
    }
    let mut buf = vec![0u64; n];
    // Each pass scatters from one buffer into the other.
    let mut in_buf = false;
    for (c, b) in counts.iter().zip(&digits) {
        let mut pos = [0usize; 256];
        let mut sum = 0;
        for d in 0..256 {
            pos[d] = sum;
            sum += c[d];
        }
        let shift = 8 * b;
        let (src, dst): (&[u64], &mut [u64]) = if in_buf { (&buf, v) } else { (v, &mut buf) };
        for &x in src {
            let d = ((x >> shift) & 0xff) as usize;
            dst[pos[d]] = x;
            pos[d] += 1;
        }
        in_buf = !in_buf;
    }
    if in_buf {
        v.copy_from_slice(&buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn radix_matches_std(mut v in proptest::collection::vec(any::<u64>(), 0..2000), mask in any::<u64>()) {
            for x in v.iter_mut() { *x &= mask; }
            let mut want = v.clone();
            want.sort_unstable();
            radix_sort_u64(&mut v);
            prop_assert_eq!(v, want);
        }

        #[test]
        fn par_sort_matches_std(v in proptest::collection::vec(0u32..500, 0..120_000), threads in 1usize..5, fetch in proptest::option::of(0usize..130_000)) {
            // Distinct items as the sort requires: (key, position).
            let items: Vec<u64> = v.iter().enumerate().map(|(i, k)| ((*k as u64) << 32) | i as u64).collect();
            let mut want = items.clone();
            want.sort_unstable();
            if let Some(k) = fetch { want.truncate(k); }
            let got = par_sort_by(items, threads, fetch, radix_sort_u64, |a: &u64, b: &u64| a.cmp(b));
            prop_assert_eq!(got, want);
        }

        #[test]
        fn par_merge_matches_std(runs in proptest::collection::vec(proptest::collection::vec(any::<u16>(), 0..40_000), 0..6), threads in 1usize..5) {
            let mut owned: Vec<Vec<(u16, usize)>> = runs.iter().enumerate().map(|(r, run)| {
                let mut v: Vec<(u16, usize)> = run.iter().enumerate().map(|(i, k)| (*k, r * 100_000 + i)).collect();
                v.sort_unstable();
                v
            }).collect();
            let mut want: Vec<(u16, usize)> = owned.iter().flatten().copied().collect();
            want.sort_unstable();
            owned.retain(|r| !r.is_empty());
            let slices: Vec<&[(u16, usize)]> = owned.iter().map(|r| r.as_slice()).collect();
            let got = par_merge(&slices, threads, &|a: &(u16, usize), b: &(u16, usize)| a.cmp(b));
            prop_assert_eq!(got, want);
        }
    }
}
