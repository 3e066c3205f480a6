//! ASCII case-insensitive substring search: the `%...%` pieces of a `_ci`
//! `LIKE` found in an ASCII value in place, without an uppercased copy.
//!
//! A position matches when every value byte, with `a`..=`z` mapped to upper
//! case (no other byte changes), equals the needle byte; the needle is given
//! in that folded form (the pattern's weights or like classes). The AVX2
//! kernel tests 32 candidate positions at a time by the needle's first and
//! last bytes (both folded in registers) and verifies candidates with the
//! scalar comparison; [`find_scalar`] is the plain version it is tested
//! against. Any bytes are accepted (bytes from 0x80 fold to themselves).
//!
//! [`CiFinder::find_ascii`] also says whether the bytes the answer rests on
//! are ASCII, from the loads the search makes anyway (the `LIKE` plans
//! need that, and a separate pass over the value cost as much as the
//! search).

/// The plain version: the first `i` where `hay[i..i + needle.len()]`
/// folds to `needle`.
pub(crate) fn find_scalar(needle: &[u8], hay: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| folded_eq(w, needle))
}

/// Whether `window` folds to `needle` (same length).
#[inline]
fn folded_eq(window: &[u8], needle: &[u8]) -> bool {
    window
        .iter()
        .zip(needle)
        .all(|(&h, &c)| h.to_ascii_uppercase() == c)
}

/// A needle prepared for [`CiFinder::find`].
#[derive(Clone, Debug)]
pub struct CiFinder {
    needle: Box<[u8]>,
}

impl CiFinder {
    /// `needle` in folded form (ASCII upper case for letters).
    pub fn new(needle: &[u8]) -> CiFinder {
        CiFinder {
            needle: needle.into(),
        }
    }

    pub fn needle(&self) -> &[u8] {
        &self.needle
    }

    /// Byte offset of the first position of `hay` that folds to the needle.
    #[inline]
    #[cfg(test)]
    pub(crate) fn find(&self, hay: &[u8]) -> Option<usize> {
        self.find_ascii(hay).0
    }

    /// [`CiFinder::find`]'s answer, and whether the bytes it depends on
    /// are ASCII: `true` means every byte of `hay` is below 0x80 when the
    /// needle is not found, and every byte of `hay[..at + needle.len()]`
    /// when it is found at `at`. `false` means a byte of 0x80 or more was
    /// seen (possibly past the match). The needle must be ASCII.
    #[inline]
    pub fn find_ascii(&self, hay: &[u8]) -> (Option<usize>, bool) {
        let n = self.needle.len();
        if n == 0 {
            return (Some(0), true);
        }
        if hay.len() < n {
            return (None, hay.is_ascii());
        }
        #[cfg(target_arch = "x86_64")]
        {
            let starts = hay.len() - n + 1;
            let found = if starts >= 32 && std::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 is available (checked just above); the
                // kernel only reads inside `hay` (see its loop bounds).
                Some(unsafe { avx2::find(&self.needle, hay) })
            } else if starts >= 16 {
                Some(sse2::find(&self.needle, hay))
            } else {
                None
            };
            if let Some((at, ascii)) = found {
                // The kernels' loads cover `hay[..starts]` and
                // `hay[n - 1..]` on a miss: a long needle leaves a gap.
                let gap_ascii = at.is_some() || n - 1 <= starts || hay[starts..n - 1].is_ascii();
                return (at, ascii && gap_ascii);
            }
        }
        let at = find_scalar(&self.needle, hay);
        (at, hay[..at.map_or(hay.len(), |a| a + n)].is_ascii())
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::folded_eq;

    /// `a`..=`z` to upper case in every lane (other bytes unchanged: bytes
    /// from 0x80 are negative as `i8`, below `'a'`).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn fold(v: __m256i) -> __m256i {
        let ge_a = _mm256_cmpgt_epi8(v, _mm256_set1_epi8(b'a' as i8 - 1));
        let le_z = _mm256_cmpgt_epi8(_mm256_set1_epi8(b'z' as i8 + 1), v);
        let lower = _mm256_and_si256(ge_a, le_z);
        _mm256_sub_epi8(v, _mm256_and_si256(lower, _mm256_set1_epi8(0x20)))
    }

    /// [`super::CiFinder::find`] with AVX2; `needle` non-empty, at most
    /// `hay.len()` bytes. Also whether every byte loaded was ASCII: the
    /// loads at the candidate starts cover `hay[..=at]` before a hit at
    /// `at` (whose `n` bytes matched the ASCII needle, so are ASCII), and
    /// on a miss `hay[..starts]` and `hay[n - 1..]`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find(needle: &[u8], hay: &[u8]) -> (Option<usize>, bool) {
        let n = needle.len();
        let first = _mm256_set1_epi8(needle[0] as i8);
        let last = _mm256_set1_epi8(needle[n - 1] as i8);
        // Candidate starts are 0..starts; a block tests i..i + 32, reading
        // hay[i..i + 32] and hay[i + n - 1..i + n + 31], inside hay while
        // i + 32 <= starts = hay.len() - n + 1.
        let starts = hay.len() - n + 1;
        let mut seen = _mm256_setzero_si256();
        let ascii = |seen: __m256i| _mm256_movemask_epi8(seen) == 0;
        let mut i = 0;
        while i + 32 <= starts {
            // SAFETY: i + 32 <= hay.len() and i + n - 1 + 32 <= hay.len()
            // (see above); unaligned loads.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(hay.as_ptr().add(i).cast::<__m256i>()),
                    _mm256_loadu_si256(hay.as_ptr().add(i + n - 1).cast::<__m256i>()),
                )
            };
            seen = _mm256_or_si256(seen, _mm256_or_si256(a, b));
            // SAFETY: this function requires AVX2, as `fold` does.
            let (a, b) = unsafe { (fold(a), fold(b)) };
            let hits = _mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last));
            let mut mask = _mm256_movemask_epi8(hits) as u32;
            while mask != 0 {
                let at = i + mask.trailing_zeros() as usize;
                if folded_eq(&hay[at..at + n], needle) {
                    return (Some(at), ascii(seen));
                }
                mask &= mask - 1;
            }
            i += 32;
        }
        if i < starts {
            // The last candidates: one block ending at the last start,
            // overlapping the ones already tested (their lanes masked off).
            let j = starts - 32;
            // SAFETY: j + 32 = starts <= hay.len() and j + n - 1 + 32 =
            // hay.len(); unaligned loads.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(hay.as_ptr().add(j).cast::<__m256i>()),
                    _mm256_loadu_si256(hay.as_ptr().add(j + n - 1).cast::<__m256i>()),
                )
            };
            seen = _mm256_or_si256(seen, _mm256_or_si256(a, b));
            // SAFETY: this function requires AVX2, as `fold` does.
            let (a, b) = unsafe { (fold(a), fold(b)) };
            let hits = _mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last));
            let mut mask = (_mm256_movemask_epi8(hits) as u32) >> (i - j) << (i - j);
            while mask != 0 {
                let at = j + mask.trailing_zeros() as usize;
                if folded_eq(&hay[at..at + n], needle) {
                    return (Some(at), ascii(seen));
                }
                mask &= mask - 1;
            }
        }
        (None, ascii(seen))
    }
}

/// The same search 16 positions at a time with SSE2 (always available on
/// x86_64), for values too short for the AVX2 blocks.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    use super::folded_eq;

    /// [`super::avx2`]'s `fold` on 16 lanes.
    #[inline]
    fn fold(v: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe {
            let ge_a = _mm_cmpgt_epi8(v, _mm_set1_epi8(b'a' as i8 - 1));
            let le_z = _mm_cmpgt_epi8(_mm_set1_epi8(b'z' as i8 + 1), v);
            let lower = _mm_and_si128(ge_a, le_z);
            _mm_sub_epi8(v, _mm_and_si128(lower, _mm_set1_epi8(0x20)))
        }
    }

    /// Candidate mask of the 16 starts from `i` (lane k: start i + k), and
    /// the top bits of the 32 bytes loaded.
    #[inline]
    fn block(needle: &[u8], hay: &[u8], i: usize) -> (u32, u32) {
        let n = needle.len();
        assert!(i + n - 1 + 16 <= hay.len());
        // SAFETY: SSE2 is baseline; the two unaligned 16-byte loads end at
        // i + 16 <= i + n - 1 + 16 <= hay.len() (asserted above).
        unsafe {
            let a = _mm_loadu_si128(hay.as_ptr().add(i).cast::<__m128i>());
            let b = _mm_loadu_si128(hay.as_ptr().add(i + n - 1).cast::<__m128i>());
            let high = _mm_movemask_epi8(_mm_or_si128(a, b)) as u32;
            let hits = _mm_and_si128(
                _mm_cmpeq_epi8(fold(a), _mm_set1_epi8(needle[0] as i8)),
                _mm_cmpeq_epi8(fold(b), _mm_set1_epi8(needle[n - 1] as i8)),
            );
            (_mm_movemask_epi8(hits) as u32, high)
        }
    }

    /// [`super::CiFinder::find`] for `hay.len() - needle.len() + 1 >= 16`
    /// starts (`needle` non-empty), with whether the loaded bytes were
    /// ASCII, as [`super::avx2`]'s `find`.
    pub(super) fn find(needle: &[u8], hay: &[u8]) -> (Option<usize>, bool) {
        let n = needle.len();
        let starts = hay.len() - n + 1;
        let verify = |base: usize, mut mask: u32| {
            while mask != 0 {
                let at = base + mask.trailing_zeros() as usize;
                if folded_eq(&hay[at..at + n], needle) {
                    return Some(at);
                }
                mask &= mask - 1;
            }
            None
        };
        let mut high = 0;
        let mut i = 0;
        while i + 16 <= starts {
            let (mask, h) = block(needle, hay, i);
            high |= h;
            if let Some(at) = verify(i, mask) {
                return (Some(at), high == 0);
            }
            i += 16;
        }
        if i < starts {
            let j = starts - 16;
            let (mask, h) = block(needle, hay, j);
            high |= h;
            return (verify(j, mask >> (i - j) << (i - j)), high == 0);
        }
        (None, high == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bytes that exercise the folding: letters of both cases, the bytes
    /// around the letter ranges, and high bytes.
    fn byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            Just(b'a'),
            Just(b'A'),
            Just(b'b'),
            Just(b'B'),
            Just(b'z'),
            Just(b'Z'),
            Just(b'`'),
            Just(b'{'),
            Just(b'@'),
            Just(b'['),
            Just(b' '),
            Just(0x80u8),
            Just(0xE1u8),
            Just(0xFFu8),
            any::<u8>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn kernel_matches_scalar(
            hay in proptest::collection::vec(byte(), 0..200),
            needle in proptest::collection::vec(byte(), 0..6),
            plant in any::<prop::sample::Index>(),
        ) {
            let needle: Vec<u8> = needle.iter().map(u8::to_ascii_uppercase).collect();
            let f = CiFinder::new(&needle);
            prop_assert_eq!(f.find(&hay), find_scalar(&needle, &hay));
            // The ASCII report: never true when a byte it covers is not
            // ASCII, and always true for ASCII input.
            if needle.is_ascii() {
                let (at, ascii) = f.find_ascii(&hay);
                let covered = &hay[..at.map_or(hay.len(), |a| a + needle.len())];
                prop_assert!(!ascii || covered.is_ascii(), "ascii claimed over {:?}", covered);
                prop_assert!(ascii || !hay.is_ascii());
                // ASCII input, then one non-ASCII byte planted in it; long
                // needles too (their loads leave a gap the check must fill).
                let ascii_hay: Vec<u8> = hay.iter().map(|&b| b & 0x7F).collect();
                let mut one_odd = ascii_hay.clone();
                if !one_odd.is_empty() {
                    let at = plant.index(one_odd.len());
                    one_odd[at] = 0xC3;
                }
                for n in [&needle[..], &needle.repeat(8)[..]] {
                    let f = CiFinder::new(n);
                    for h in [&hay[..], &ascii_hay[..], &one_odd[..]] {
                        let (at, ascii) = f.find_ascii(h);
                        prop_assert_eq!(at, find_scalar(n, h));
                        let covered = &h[..at.map_or(h.len(), |a| a + n.len())];
                        prop_assert!(!ascii || covered.is_ascii(), "ascii claimed over {:?}", covered);
                        prop_assert!(ascii || !h.is_ascii());
                    }
                }
            }
            // Each SIMD kernel on its own, where its length rule allows it.
            #[cfg(target_arch = "x86_64")]
            if !needle.is_empty() && hay.len() + 1 >= needle.len() + 16 {
                prop_assert_eq!(sse2::find(&needle, &hay).0, find_scalar(&needle, &hay));
                if hay.len() + 1 >= needle.len() + 32 && std::is_x86_feature_detected!("avx2") {
                    // SAFETY: AVX2 checked just above.
                    let got = unsafe { avx2::find(&needle, &hay) }.0;
                    prop_assert_eq!(got, find_scalar(&needle, &hay));
                }
            }
            // With the needle planted (in lower case) somewhere.
            if hay.len() >= needle.len() {
                let at = plant.index(hay.len() - needle.len() + 1);
                let mut h = hay.clone();
                for (k, &c) in needle.iter().enumerate() {
                    h[at + k] = c.to_ascii_lowercase();
                }
                prop_assert_eq!(f.find(&h), find_scalar(&needle, &h));
                prop_assert!(f.find(&h).is_some_and(|p| p <= at));
            }
        }
    }

    #[test]
    fn finds_across_blocks() {
        let mut hay = vec![b'x'; 100];
        hay[70..77].copy_from_slice(b"PeNdInG");
        let f = CiFinder::new(b"PENDING");
        assert_eq!(f.find(&hay), Some(70));
        assert_eq!(f.find(&hay[..76]), None);
        assert_eq!(CiFinder::new(b"").find(b"abc"), Some(0));
        assert_eq!(CiFinder::new(b"A").find(&[b'a'; 40]), Some(0));
    }
}
