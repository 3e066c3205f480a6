//! Every kernel on every code path this CPU supports, checked against the
//! plain per-byte versions in `reference`.
//!
//! Inputs are adversarial on purpose: lengths 0..100 (and 0..300 where the
//! kernel has a wide unrolled loop) straddle the 8/16/32/64-byte block sizes,
//! bytes are drawn mostly from a small set of troublemakers (0x00, 0x09, 0x20,
//! 0x7F, 0x80, 0xFF, letters next to the case-fold range edges) so equal
//! runs, trailing spaces and sign-bit bytes are common, and every slice is cut
//! out of a larger buffer at a random offset so alignment varies.

use std::cmp::Ordering;

use proptest::collection::vec;
use proptest::prelude::*;
use quiver_string_kernels::{reference, Isa, PreparedConstant, SubstringFinder};

/// Bytes that make kernels go wrong: NUL, TAB, space, sign-bit edges, and the
/// neighbours of the `a..=z` / `A..=Z` ranges.
const TRICKY: &[u8] = &[
    0x00, 0x09, 0x20, 0x20, 0x20, 0x7F, 0x80, 0xFF, b'a', b'z', b'A', b'Z', b'`', b'{', b'@', b'[',
    b'_', 0xE1, 0xC1,
];

fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => proptest::sample::select(TRICKY),
        1 => any::<u8>(),
    ]
}

/// A byte string of `len` in `lens`, cut from a larger buffer at a random
/// offset (so the kernels see every alignment).
fn bytes_in(lens: std::ops::Range<usize>) -> impl Strategy<Value = Vec<u8>> {
    vec(byte(), lens)
}

fn isas() -> Vec<Isa> {
    let isas: Vec<Isa> = Isa::supported().collect();
    if !isas.contains(&Isa::Avx2) {
        eprintln!("note: this CPU has no AVX2; only the portable path is tested");
    }
    isas
}

/// How the second operand of a pair is derived from the first, so equal and
/// nearly equal pairs (the interesting ones) are common.
#[derive(Clone, Debug)]
enum Derive {
    Same,
    /// Replace the byte at `pos % len` with `b`.
    Mutate(usize, u8),
    /// Keep the first `pos % (len + 1)` bytes.
    Truncate(usize),
    /// Append `n` bytes `b`.
    Append(usize, u8),
    /// Independent random bytes.
    Other(Vec<u8>),
}

fn derive() -> impl Strategy<Value = Derive> {
    prop_oneof![
        2 => Just(Derive::Same),
        3 => (any::<usize>(), byte()).prop_map(|(p, b)| Derive::Mutate(p, b)),
        2 => any::<usize>().prop_map(Derive::Truncate),
        3 => (0usize..40, byte()).prop_map(|(n, b)| Derive::Append(n, b)),
        1 => (0usize..40).prop_map(|n| Derive::Append(n, b' ')),
        1 => bytes_in(0..100).prop_map(Derive::Other),
    ]
}

fn apply(a: &[u8], d: &Derive) -> Vec<u8> {
    match d {
        Derive::Same => a.to_vec(),
        Derive::Mutate(p, b) => {
            let mut v = a.to_vec();
            if !v.is_empty() {
                let i = p % v.len();
                v[i] = *b;
            }
            v
        }
        Derive::Truncate(p) => a[..p % (a.len() + 1)].to_vec(),
        Derive::Append(n, b) => {
            let mut v = a.to_vec();
            v.extend(std::iter::repeat_n(*b, *n));
            v
        }
        Derive::Other(v) => v.clone(),
    }
}

/// Copies `s` into a fresh buffer at `offset`, with junk before and after,
/// and returns the buffer and the range holding `s`.
fn placed(s: &[u8], offset: usize) -> (Vec<u8>, std::ops::Range<usize>) {
    let mut buf = vec![0xAAu8; offset];
    buf.extend_from_slice(s);
    buf.extend_from_slice(&[0x20, b'a', 0x00]);
    (buf, offset..offset + s.len())
}

fn pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, usize, usize)> {
    (bytes_in(0..100), derive(), 0usize..32, 0usize..32).prop_map(|(a, d, oa, ob)| {
        let b = apply(&a, &d);
        (a, b, oa, ob)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn pair_kernels_match_reference((a, b, oa, ob) in pair()) {
        let (abuf, ar) = placed(&a, oa);
        let (bbuf, br) = placed(&b, ob);
        let (a, b) = (&abuf[ar], &bbuf[br]);
        for isa in isas() {
            for (x, y) in [(a, b), (b, a)] {
                prop_assert_eq!(isa.bytes_eq(x, y), reference::bytes_eq(x, y), "{:?} bytes_eq", isa);
                prop_assert_eq!(isa.mismatch(x, y), reference::mismatch(x, y), "{:?} mismatch", isa);
                prop_assert_eq!(isa.bytes_cmp(x, y), reference::bytes_cmp(x, y), "{:?} bytes_cmp", isa);
                prop_assert_eq!(isa.pad_space_cmp(x, y), reference::pad_space_cmp(x, y), "{:?} pad_space_cmp", isa);
                prop_assert_eq!(isa.pad_space_eq(x, y), reference::pad_space_eq(x, y), "{:?} pad_space_eq", isa);
                prop_assert_eq!(isa.mismatch_ignore_case(x, y), reference::mismatch_ignore_case(x, y), "{:?} mismatch_ignore_case", isa);
                prop_assert_eq!(isa.ascii_eq_ignore_case(x, y), reference::ascii_eq_ignore_case(x, y), "{:?} ascii_eq_ignore_case", isa);
                prop_assert_eq!(isa.ascii_cmp_ignore_case(x, y), reference::ascii_cmp_ignore_case(x, y), "{:?} ascii_cmp_ignore_case", isa);
                prop_assert_eq!(
                    isa.ascii_pad_space_cmp_ignore_case(x, y),
                    reference::ascii_pad_space_cmp_ignore_case(x, y),
                    "{:?} ascii_pad_space_cmp_ignore_case", isa
                );
            }
        }
    }

    /// Case-insensitive kernels on pairs that differ only in letter case.
    #[test]
    fn case_folded_pairs_match_reference(a in bytes_in(0..100), flips in vec(any::<bool>(), 100), tail in 0usize..3) {
        let mut b: Vec<u8> = a
            .iter()
            .zip(&flips)
            .map(|(&c, &f)| if f && c.is_ascii_alphabetic() { c ^ 0x20 } else { c })
            .collect();
        b.extend(std::iter::repeat_n(b' ', tail));
        for isa in isas() {
            for (x, y) in [(&a[..], &b[..]), (&b[..], &a[..])] {
                prop_assert_eq!(isa.mismatch_ignore_case(x, y), reference::mismatch_ignore_case(x, y), "{:?}", isa);
                prop_assert_eq!(isa.ascii_eq_ignore_case(x, y), reference::ascii_eq_ignore_case(x, y), "{:?}", isa);
                prop_assert_eq!(isa.ascii_cmp_ignore_case(x, y), reference::ascii_cmp_ignore_case(x, y), "{:?}", isa);
                prop_assert_eq!(
                    isa.ascii_pad_space_cmp_ignore_case(x, y),
                    reference::ascii_pad_space_cmp_ignore_case(x, y),
                    "{:?}", isa
                );
            }
        }
    }

    #[test]
    fn single_kernels_match_reference(s in bytes_in(0..300), off in 0usize..32, needle in byte(), spaces in 0usize..70) {
        let mut s = s;
        // Trailing-space runs of every length, crossing block boundaries.
        s.extend(std::iter::repeat_n(b' ', spaces));
        let (buf, r) = placed(&s, off);
        let s = &buf[r];
        for isa in isas() {
            prop_assert_eq!(isa.memchr(needle, s), reference::memchr(needle, s), "{:?} memchr", isa);
            prop_assert_eq!(isa.memrchr(needle, s), reference::memrchr(needle, s), "{:?} memrchr", isa);
            prop_assert_eq!(isa.trim_end_spaces(s), reference::trim_end_spaces(s), "{:?} trim_end_spaces", isa);
            prop_assert_eq!(isa.is_all_spaces(s), reference::is_all_spaces(s), "{:?} is_all_spaces", isa);
            prop_assert_eq!(isa.first_non_space(s), s.iter().position(|&b| b != b' '), "{:?} first_non_space", isa);
            prop_assert_eq!(isa.is_ascii(s), reference::is_ascii(s), "{:?} is_ascii", isa);
            let mut up = s.to_vec();
            isa.ascii_upper_in_place(&mut up);
            let mut want = s.to_vec();
            reference::ascii_upper_in_place(&mut want);
            prop_assert_eq!(up, want, "{:?} ascii_upper_in_place", isa);
        }
    }

    /// The 64-byte two-value compare, with the values often present.
    #[test]
    fn eq2_masks64_matches_reference(s in vec(byte(), 64), x in byte(), y in byte()) {
        let s: &[u8; 64] = s.as_slice().try_into().unwrap();
        for isa in isas() {
            prop_assert_eq!(isa.eq2_masks64(s, x, y), reference::eq2_masks64(s, x, y), "{:?}", isa);
            prop_assert_eq!(isa.eq2_masks64(s, x, x), reference::eq2_masks64(s, x, x), "{:?}", isa);
        }
    }

    /// All-space and all-ASCII inputs with at most one odd byte, so the
    /// "everything matches" paths run to the end.
    #[test]
    fn uniform_runs_match_reference(len in 0usize..300, fill in proptest::sample::select(vec![b' ', b'a', 0x7F]), odd in proptest::option::of((any::<usize>(), byte())), off in 0usize..32) {
        let mut s = vec![fill; len];
        if let (Some((p, b)), true) = (odd, len > 0) {
            s[p % len] = b;
        }
        let (buf, r) = placed(&s, off);
        let s = &buf[r];
        for isa in isas() {
            prop_assert_eq!(isa.is_all_spaces(s), reference::is_all_spaces(s), "{:?}", isa);
            prop_assert_eq!(isa.first_non_space(s), s.iter().position(|&b| b != b' '), "{:?}", isa);
            prop_assert_eq!(isa.trim_end_spaces(s), reference::trim_end_spaces(s), "{:?}", isa);
            prop_assert_eq!(isa.is_ascii(s), reference::is_ascii(s), "{:?}", isa);
            prop_assert_eq!(isa.memchr(fill, s), reference::memchr(fill, s), "{:?}", isa);
            prop_assert_eq!(isa.memrchr(fill, s), reference::memrchr(fill, s), "{:?}", isa);
            if let Some((_, b)) = odd {
                prop_assert_eq!(isa.memchr(b, s), reference::memchr(b, s), "{:?}", isa);
                prop_assert_eq!(isa.memrchr(b, s), reference::memrchr(b, s), "{:?}", isa);
            }
        }
    }

    /// Needles over a two-letter alphabet give repeated prefixes (`aaab` in
    /// `aaaaaaab`) and many partial matches; the needle is also planted at
    /// the very start or end.
    #[test]
    fn finder_matches_reference(
        needle in vec(proptest::sample::select(vec![b'a', b'b']), 0..12),
        hay in vec(proptest::sample::select(vec![b'a', b'a', b'b', b' ']), 0..300),
        plant in 0u8..4,
        off in 0usize..32,
    ) {
        let mut hay = hay;
        match plant {
            0 => {}
            1 => hay.splice(0..0, needle.iter().copied()).for_each(drop),
            2 => hay.extend_from_slice(&needle),
            _ => {
                let mid = hay.len() / 2;
                hay.splice(mid..mid, needle.iter().copied()).for_each(drop);
            }
        }
        let (buf, r) = placed(&hay, off);
        let hay = &buf[r];
        for isa in isas() {
            let f = SubstringFinder::with_isa(&needle, isa);
            prop_assert_eq!(f.find(hay), reference::find(&needle, hay), "{:?} needle {:?}", isa, needle);
        }
    }

    /// Arbitrary needles (tricky bytes, up to 70 long) in arbitrary haystacks,
    /// and needles cut out of the haystack itself.
    #[test]
    fn finder_matches_reference_any_bytes(
        hay in bytes_in(0..300),
        needle in bytes_in(0..70),
        cut in (any::<usize>(), 0usize..70),
        from_hay in any::<bool>(),
    ) {
        let needle = if from_hay && !hay.is_empty() {
            let start = cut.0 % hay.len();
            let end = (start + cut.1).min(hay.len());
            hay[start..end].to_vec()
        } else {
            needle
        };
        for isa in isas() {
            let f = SubstringFinder::with_isa(&needle, isa);
            prop_assert_eq!(f.find(&hay), reference::find(&needle, &hay), "{:?} needle {:?}", isa, needle);
        }
    }

    /// Needles nearly as long as the haystack (few candidate starts, so the
    /// kernels' short-range paths), cut from the haystack at any offset and
    /// sometimes with one byte changed.
    #[test]
    fn finder_long_needles(
        hay in vec(proptest::sample::select(vec![b'a', b'a', b'a', b'b']), 1..200),
        // Rare bytes ('z', 'q') planted anywhere become the probe bytes, so
        // probes land anywhere in the needle, including its last 32 bytes.
        rare in vec((any::<usize>(), proptest::sample::select(vec![b'z', b'q'])), 0..3),
        slack in 0usize..40,
        start in any::<usize>(),
        change in proptest::option::of((any::<usize>(), byte())),
    ) {
        let mut hay = hay;
        for (p, b) in rare {
            let i = p % hay.len();
            hay[i] = b;
        }
        let m = hay.len().saturating_sub(slack).max(1);
        let start = start % (hay.len() - m + 1);
        let mut needle = hay[start..start + m].to_vec();
        if let Some((p, b)) = change {
            let i = p % needle.len();
            needle[i] = b;
        }
        for isa in isas() {
            let f = SubstringFinder::with_isa(&needle, isa);
            prop_assert_eq!(f.find(&hay), reference::find(&needle, &hay), "{:?} needle {:?}", isa, needle);
        }
    }

    #[test]
    fn prepared_constant_matches_reference(c in bytes_in(0..70), d in derive(), trailing in 0usize..4, off in 0usize..32) {
        let mut c = c;
        c.extend(std::iter::repeat_n(b' ', trailing));
        let v = apply(&c, &d);
        let (buf, r) = placed(&v, off);
        let v = &buf[r];
        for isa in isas() {
            let p = PreparedConstant::with_isa(&c, isa);
            prop_assert_eq!(p.eq(v), reference::bytes_eq(v, &c), "{:?} eq", isa);
            prop_assert_eq!(p.pad_space_eq(v), reference::pad_space_eq(v, &c), "{:?} pad_space_eq", isa);
            prop_assert_eq!(p.cmp(v), reference::bytes_cmp(v, &c), "{:?} cmp", isa);
            prop_assert_eq!(p.pad_space_cmp(v), reference::pad_space_cmp(v, &c), "{:?} pad_space_cmp", isa);
        }
    }
}

#[test]
fn pad_space_examples_from_the_docs() {
    for isa in isas() {
        // 0x09 < 0x20, so "a\t" sorts before "a" (= "a ").
        assert_eq!(isa.pad_space_cmp(b"a\t", b"a"), Ordering::Less);
        assert_eq!(isa.pad_space_cmp(b"a", b"a\t"), Ordering::Greater);
        assert!(isa.pad_space_eq(b"a", b"a  "));
        assert!(isa.pad_space_eq(b"", b"   "));
        assert!(!isa.pad_space_eq(b"a", b"a \0"));
        assert_eq!(isa.bytes_cmp(b"a", b"a "), Ordering::Less);
        assert_eq!(isa.trim_end_spaces(b"ab \t  "), b"ab \t");
    }
}

#[test]
fn empty_needle_is_found_at_zero() {
    for isa in isas() {
        let f = SubstringFinder::with_isa(b"", isa);
        assert_eq!(f.find(b""), Some(0));
        assert_eq!(f.find(b"abc"), Some(0));
        assert_eq!(SubstringFinder::with_isa(b"x", isa).find(b""), None);
    }
}

#[test]
fn prepared_constant_keeps_and_trims() {
    let p = PreparedConstant::new(b"zzle? slyly regular instruc ");
    assert_eq!(p.bytes().len(), 28);
    assert_eq!(p.trimmed(), b"zzle? slyly regular instruc");
    assert!(p.eq(b"zzle? slyly regular instruc "));
    assert!(!p.eq(b"zzle? slyly regular instruc"));
    assert!(p.pad_space_eq(b"zzle? slyly regular instruc"));
    assert!(p.pad_space_eq(b"zzle? slyly regular instruc    "));
    assert!(!p.pad_space_eq(b"zzle? slyly regular instru"));
}
