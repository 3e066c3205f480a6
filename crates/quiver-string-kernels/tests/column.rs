//! Column helpers against a per-row loop over the reference kernels, and
//! their errors on malformed input.

use proptest::collection::vec;
use proptest::prelude::*;
use quiver_string_kernels::{
    contains_offsets, ends_in_space, eq_const_folded_offsets, eq_const_folded_offsets_shaped,
    eq_const_offsets, eq_const_offsets_shaped, reference, Isa, Offset, OffsetsError,
    PreparedConstant, PreparedFoldedConstant, RowHints, RowShape, SubstringFinder,
};

fn offsets_of(rows: &[Vec<u8>]) -> (Vec<i32>, Vec<i64>, Vec<u8>) {
    let mut o32 = vec![0i32];
    let mut o64 = vec![0i64];
    let mut values = Vec::new();
    for r in rows {
        values.extend_from_slice(r);
        o32.push(values.len() as i32);
        o64.push(values.len() as i64);
    }
    (o32, o64, values)
}

fn expected(rows: &[Vec<u8>], words: usize, pred: impl Fn(&[u8]) -> bool) -> Vec<u64> {
    let mut out = vec![0u64; words];
    for (i, r) in rows.iter().enumerate() {
        if pred(r) {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    out
}

fn row() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Rows built from the constant's alphabet so matches are common.
        vec(proptest::sample::select(vec![b'a', b'b', b' ']), 0..12),
        vec(any::<u8>(), 0..40),
        Just(b"ab".to_vec()),
        Just(b"ab  ".to_vec()),
    ]
}

/// The tightest true [`RowShape`] of `rows`.
fn shape_of(rows: &[Vec<u8>]) -> RowShape {
    let trailing = |r: &Vec<u8>| r.iter().rev().take_while(|&&b| b == b' ').count();
    RowShape {
        max_trailing_spaces: Some(rows.iter().map(trailing).max().unwrap_or(0)),
        ascii: rows.iter().all(|r| r.is_ascii()),
    }
}

/// Which rows end in a space, one row at a time.
fn ends_in_space_of(rows: &[Vec<u8>]) -> Vec<u64> {
    expected(rows, rows.len().div_ceil(64), |r| r.last() == Some(&b' '))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Constants of every size class (0..=3, 4..=7, 8..=16, 17..=32, longer)
    /// against rows that are the constant, its prefixes, it with extra
    /// spaces or one byte changed, or unrelated; the constant itself may end
    /// in spaces.
    #[test]
    fn eq_const_matches_rows(
        c in vec(proptest::sample::select(vec![b'a', b'b', b' ', 0x00, 0xFF]), 0..70),
        trailing in 0usize..3,
        kinds in vec((0u8..5, any::<usize>(), 0usize..4), 0..200),
        pad in any::<bool>(),
    ) {
        let mut c = c;
        c.extend(std::iter::repeat_n(b' ', trailing));
        let rows: Vec<Vec<u8>> = kinds
            .iter()
            .map(|&(kind, x, k)| {
                let mut r = c.clone();
                match kind {
                    0 => {}
                    1 => r.truncate(x % (c.len() + 1)),
                    2 => r.extend(std::iter::repeat_n(b' ', k)),
                    3 if !r.is_empty() => {
                        let i = x % r.len();
                        r[i] = r[i].wrapping_add(1);
                    }
                    _ => r = vec![b'a'; x % 40],
                }
                r
            })
            .collect();
        let (o32, o64, values) = offsets_of(&rows);
        // One spare word: it must stay untouched.
        let words = rows.len().div_ceil(64) + 1;
        let want = expected(&rows, words, |v| {
            if pad { reference::pad_space_eq(v, &c) } else { v == &c[..] }
        });
        for isa in Isa::supported() {
            let p = PreparedConstant::with_isa(&c, isa);
            let mut out = vec![0u64; words];
            eq_const_offsets(&o32, &values, &p, pad, &mut out).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i32", isa);
            let mut out = vec![u64::MAX; words];
            eq_const_offsets(&o64, &values, &p, pad, &mut out).unwrap();
            let mut want_spare = want.clone();
            *want_spare.last_mut().unwrap() = u64::MAX;
            prop_assert_eq!(&out, &want_spare, "{:?} i64", isa);
            // Told the rows' true shape (as tight as it gets), and which
            // rows end in a space, the same answer.
            let shape = shape_of(&rows);
            let spaced = ends_in_space_of(&rows);
            for bits in [None, Some(&spaced[..])] {
                let hints = RowHints { shape, ends_in_space: bits };
                let mut out = vec![0u64; words];
                eq_const_offsets_shaped(&o32, &values, &p, pad, hints, &mut out).unwrap();
                prop_assert_eq!(&out, &want, "{:?} i32 {:?}", isa, hints);
                let mut out = vec![0u64; words];
                eq_const_offsets_shaped(&o64, &values, &p, pad, hints, &mut out).unwrap();
                prop_assert_eq!(&out, &want, "{:?} i64 {:?}", isa, hints);
            }
        }
    }

    /// The case-insensitive helper against its documented rules, written
    /// per row with the reference kernels; `not_ascii` answers by a parity
    /// of the row, so a call where the rules do not ask for one shows.
    #[test]
    fn eq_const_folded_matches_rows(
        c in vec(proptest::sample::select(vec![b'a', b'B', b'z', b'_', b'@', b' ', b'\t']), 0..70),
        trailing in 0usize..3,
        kinds in vec((0u8..7, any::<usize>(), 0usize..4), 0..200),
        pad in any::<bool>(),
    ) {
        let mut c = c;
        c.extend(std::iter::repeat_n(b' ', trailing));
        let rows: Vec<Vec<u8>> = kinds
            .iter()
            .map(|&(kind, x, k)| {
                let mut r = c.clone();
                match kind {
                    0 => {}
                    1 => r.truncate(x % (c.len() + 1)),
                    2 => r.extend(std::iter::repeat_n(b' ', k)),
                    // Flip the case of one byte (or change a non-letter).
                    3 if !r.is_empty() => {
                        let i = x % r.len();
                        r[i] ^= 0x20;
                    }
                    // A non-ASCII byte somewhere, or appended.
                    4 => {
                        let i = x % (r.len() + 1);
                        r.insert(i, [0xC3, 0xA9, 0xFF, 0x80][k]);
                    }
                    5 => r = r.to_ascii_lowercase(),
                    _ => r = vec![b'a'; x % 40],
                }
                r
            })
            .collect();
        let (o32, o64, values) = offsets_of(&rows);
        let not_ascii = |v: &[u8]| v.iter().map(|&b| u32::from(b)).sum::<u32>() % 2 == 1;
        let upper = c.to_ascii_uppercase();
        let k_const = if pad { reference::trim_end_spaces(&upper) } else { &upper[..] };
        let k = k_const.len();
        let words = rows.len().div_ceil(64) + 1;
        let want = expected(&rows, words, |v| {
            if v.len() < k {
                return false;
            }
            if let (Some(&f), Some(&b)) = (k_const.first(), v.first()) {
                if b < 0x80 && b.to_ascii_uppercase() != f {
                    return false;
                }
            }
            if reference::is_ascii(&v[..k]) {
                v[..k].to_ascii_uppercase() == k_const
                    && (v.len() == k || (pad && reference::is_all_spaces(&v[k..])))
            } else {
                not_ascii(v)
            }
        });
        for isa in Isa::supported() {
            let p = PreparedFoldedConstant::with_isa(&c, isa).unwrap();
            let mut out = vec![0u64; words];
            eq_const_folded_offsets(&o32, &values, &p, pad, &mut out, not_ascii).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i32", isa);
            let mut out = vec![u64::MAX; words];
            eq_const_folded_offsets(&o64, &values, &p, pad, &mut out, not_ascii).unwrap();
            let mut want_spare = want.clone();
            *want_spare.last_mut().unwrap() = u64::MAX;
            prop_assert_eq!(&out, &want_spare, "{:?} i64", isa);
            let shape = shape_of(&rows);
            let spaced = ends_in_space_of(&rows);
            for bits in [None, Some(&spaced[..])] {
                let hints = RowHints { shape, ends_in_space: bits };
                let mut out = vec![0u64; words];
                eq_const_folded_offsets_shaped(&o32, &values, &p, pad, hints, &mut out, not_ascii)
                    .unwrap();
                prop_assert_eq!(&out, &want, "{:?} i32 {:?}", isa, hints);
                let mut out = vec![0u64; words];
                eq_const_folded_offsets_shaped(&o64, &values, &p, pad, hints, &mut out, not_ascii)
                    .unwrap();
                prop_assert_eq!(&out, &want, "{:?} i64 {:?}", isa, hints);
            }
        }
    }

    #[test]
    fn contains_matches_rows(rows in vec(row(), 0..200), needle in vec(proptest::sample::select(vec![b'a', b'b', b' ']), 0..6)) {
        let (o32, o64, values) = offsets_of(&rows);
        let words = rows.len().div_ceil(64);
        let want = expected(&rows, words, |v| reference::find(&needle, v).is_some());
        for isa in Isa::supported() {
            let f = SubstringFinder::with_isa(&needle, isa);
            let mut out = vec![u64::MAX; words];
            contains_offsets(&o32, &values, &f, &mut out).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i32", isa);
            let mut out = vec![u64::MAX; words];
            contains_offsets(&o64, &values, &f, &mut out).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i64", isa);
        }
    }

    /// Long columns (more blocks than the prefetch distance), rows from a
    /// few shipmode-like values, some with trailing spaces.
    #[test]
    fn eq_const_long_columns(
        picks in vec((0usize..9, 0usize..3), 600..1500),
        c in 0usize..9,
        pad in any::<bool>(),
    ) {
        const VALUES: [&[u8]; 9] = [b"REG AIR", b"AIR", b"RAIL", b"SHIP", b"TRUCK", b"MAIL", b"FOB", b"", b"MAIL\t"];
        let rows: Vec<Vec<u8>> = picks
            .iter()
            .map(|&(v, spaces)| {
                let mut r = VALUES[v].to_vec();
                r.extend(std::iter::repeat_n(b' ', spaces));
                r
            })
            .collect();
        let c = VALUES[c];
        let (o32, o64, values) = offsets_of(&rows);
        let want = expected(&rows, rows.len().div_ceil(64), |v| {
            if pad { reference::pad_space_eq(v, c) } else { v == c }
        });
        for isa in Isa::supported() {
            let p = PreparedConstant::with_isa(c, isa);
            let mut out = vec![0u64; want.len()];
            eq_const_offsets(&o32, &values, &p, pad, &mut out).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i32", isa);
            eq_const_offsets(&o64, &values, &p, pad, &mut out).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i64", isa);
        }
    }

    /// Columns of mostly one-byte rows (`l_returnflag`), so that whole
    /// 64-row blocks take the one-vector compare; a few longer or empty
    /// rows and non-ASCII bytes break some blocks. The constant is one byte
    /// (with trailing spaces sometimes), compared as bytes and folded.
    #[test]
    fn eq_const_one_byte_columns(
        picks in vec((0usize..8, 0u16..1000), 100..700),
        rate in 5u16..1000,
        c in proptest::sample::select(vec![b'R', b'r', b'A', b'1', b' ', 0xC3]),
        trailing in 0usize..2,
        pad in any::<bool>(),
    ) {
        const BYTES: [u8; 8] = [b'R', b'r', b'A', b'N', b'1', b' ', 0xC3, 0xFF];
        let rows: Vec<Vec<u8>> = picks
            .iter()
            // One row in `rate` is odd (empty, longer, or maybe non-ASCII).
            .map(|&(b, odd)| match odd % rate {
                0 => Vec::new(),
                1 => vec![BYTES[b], b' '],
                2 => vec![BYTES[b], b'x'],
                3 => vec![BYTES[b]],
                _ => vec![BYTES[b % 6]],
            })
            .collect();
        let mut c = vec![c];
        c.extend(std::iter::repeat_n(b' ', trailing));
        let (o32, o64, values) = offsets_of(&rows);
        let words = rows.len().div_ceil(64);
        let want = expected(&rows, words, |v| {
            if pad { reference::pad_space_eq(v, &c) } else { v == &c[..] }
        });
        for isa in Isa::supported() {
            let p = PreparedConstant::with_isa(&c, isa);
            let mut out = vec![0u64; words];
            eq_const_offsets(&o32, &values, &p, pad, &mut out).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i32", isa);
            eq_const_offsets(&o64, &values, &p, pad, &mut out).unwrap();
            prop_assert_eq!(&out, &want, "{:?} i64", isa);
        }
        if c[0] < 0x80 {
            // Folded: a row equals when its bytes fold to the constant's;
            // rows with non-ASCII bytes answer through `not_ascii` (here:
            // never equal).
            let upper = c.to_ascii_uppercase();
            let k_const = if pad { reference::trim_end_spaces(&upper) } else { &upper[..] };
            let want = expected(&rows, words, |v| {
                reference::is_ascii(v)
                    && v.len() >= k_const.len()
                    && v[..k_const.len()].to_ascii_uppercase() == k_const
                    && (v.len() == k_const.len() || (pad && reference::is_all_spaces(&v[k_const.len()..])))
            });
            for isa in Isa::supported() {
                let p = PreparedFoldedConstant::with_isa(&c, isa).unwrap();
                let mut out = vec![0u64; words];
                eq_const_folded_offsets(&o32, &values, &p, pad, &mut out, |_| false).unwrap();
                prop_assert_eq!(&out, &want, "{:?} folded i32", isa);
                eq_const_folded_offsets(&o64, &values, &p, pad, &mut out, |_| false).unwrap();
                prop_assert_eq!(&out, &want, "{:?} folded i64", isa);
            }
        }
    }

    /// The vector length filter of a 64-row block against a per-row loop,
    /// for both offset widths, exact and at-least tests, and lengths that
    /// do not fit the offset type.
    #[test]
    fn length_bits_match_rows(
        lens in vec(0usize..6, 64),
        base in 0i64..1000,
        k in prop_oneof![0usize..7, Just(usize::MAX), Just(i32::MAX as usize), Just(u32::MAX as usize + 3)],
        at_least in any::<bool>(),
        minus in any::<u64>(),
    ) {
        let mut o64 = vec![base];
        for l in &lens {
            o64.push(o64.last().unwrap() + *l as i64);
        }
        let o32: Vec<i32> = o64.iter().map(|&o| o as i32).collect();
        let want = lens.iter().enumerate().fold(0u64, |bits, (i, &l)| {
            bits | (u64::from(if at_least { l >= k } else { l == k }) << i)
        });
        for isa in Isa::supported() {
            prop_assert_eq!(i32::length_bits(&o32, k, at_least, isa), want, "{:?} i32", isa);
            prop_assert_eq!(i64::length_bits(&o64, k, at_least, isa), want, "{:?} i64", isa);
        }
        // One pass for k and k + 1 (odd and even k take different paths).
        let of = |k: usize| lens.iter().enumerate().fold(0u64, |bits, (i, &l)| bits | (u64::from(l == k) << i));
        let either = of(k) | k.checked_add(1).map_or(0, of);
        // Lengths less one where `minus` has the row's bit.
        let trimmed = lens.iter().enumerate().fold(0u64, |bits, (i, &l)| {
            let l = l.checked_sub(usize::from(minus >> i & 1 == 1));
            bits | (u64::from(l == Some(k)) << i)
        });
        for isa in Isa::supported() {
            prop_assert_eq!(i32::length_bits_k_or_next(&o32, k, isa), either, "{:?} i32 k or k + 1", isa);
            prop_assert_eq!(i64::length_bits_k_or_next(&o64, k, isa), either, "{:?} i64 k or k + 1", isa);
            prop_assert_eq!(i32::length_minus_bits(&o32, k, minus, isa), trimmed, "{:?} i32 minus", isa);
            prop_assert_eq!(i64::length_minus_bits(&o64, k, minus, isa), trimmed, "{:?} i64 minus", isa);
        }
    }

    /// The trailing-space bitmap against a per-row loop, over sliced
    /// offsets (not starting at 0) and blocks of every fill.
    #[test]
    fn ends_in_space_matches_rows(
        rows in vec(vec(proptest::sample::select(vec![b'a', b' ', 0x80]), 0..4), 0..200),
        skip in 0usize..3,
    ) {
        let (o32, o64, values) = offsets_of(&rows);
        let skip = skip.min(rows.len());
        let want = ends_in_space_of(&rows[skip..]);
        let words = want.len();
        let mut out = vec![u64::MAX; words + 1];
        ends_in_space(&o32[skip..], &values, &mut out).unwrap();
        prop_assert_eq!(&out[..words], &want[..]);
        prop_assert_eq!(out[words], u64::MAX, "a word past the rows is left alone");
        let mut out = vec![0; words];
        ends_in_space(&o64[skip..], &values, &mut out).unwrap();
        prop_assert_eq!(&out, &want);
    }

    /// Columns whose values buffer starts later (a sliced column): offsets
    /// need not start at 0.
    #[test]
    fn sliced_columns(rows in vec(row(), 1..100), skip in 0usize..100, needle in vec(proptest::sample::select(vec![b'a', b'b']), 1..3)) {
        let (o32, _, values) = offsets_of(&rows);
        let skip = skip % rows.len();
        let o = &o32[skip..];
        let want = expected(&rows[skip..], (rows.len() - skip).div_ceil(64), |v| reference::find(&needle, v).is_some());
        let f = SubstringFinder::new(&needle);
        let mut out = vec![0u64; want.len()];
        contains_offsets(o, &values, &f, &mut out).unwrap();
        prop_assert_eq!(out, want);
    }
}

#[test]
fn malformed_offsets_are_errors_not_panics() {
    let values = b"abcdef";
    let f = SubstringFinder::new(b"c");
    let c = PreparedConstant::new(b"abc");
    let mut out = [0u64; 1];
    let bad: [&[i32]; 4] = [&[0, 7], &[-1, 2], &[3, 2], &[0, 3, 2]];
    for o in bad {
        let e = contains_offsets(o, values, &f, &mut out).unwrap_err();
        assert!(matches!(e, OffsetsError::BadRange { .. }), "{o:?}: {e}");
        let e = eq_const_offsets(o, values, &c, true, &mut out).unwrap_err();
        assert!(matches!(e, OffsetsError::BadRange { .. }), "{o:?}: {e}");
    }
    let o: Vec<i64> = (0..=65).map(|_| 0).collect();
    let e = eq_const_offsets(&o, values, &c, false, &mut out).unwrap_err();
    assert_eq!(
        e,
        OffsetsError::OutputTooShort {
            needed_words: 2,
            words: 1
        }
    );
    assert!(e.to_string().contains("needs 2"));
    // No offsets at all, or just one: an empty column.
    let empty: [i32; 0] = [];
    assert!(contains_offsets(&empty, values, &f, &mut []).is_ok());
    assert!(contains_offsets(&[3i32], values, &f, &mut []).is_ok());
}

#[test]
fn contains_ignores_hits_that_straddle_rows() {
    // Every position of the values buffer starts an "aaaa", but only rows
    // with at least four bytes hold one.
    let rows: Vec<Vec<u8>> = (0..1000)
        .map(|i| vec![b'a'; [3, 0, 4, 1, 3, 5][i % 6]])
        .collect();
    let (o32, _, values) = offsets_of(&rows);
    let want = expected(&rows, rows.len().div_ceil(64), |v| v.len() >= 4);
    for isa in Isa::supported() {
        let f = SubstringFinder::with_isa(b"aaaa", isa);
        let mut out = vec![0u64; want.len()];
        contains_offsets(&o32, &values, &f, &mut out).unwrap();
        assert_eq!(out, want, "{isa:?}");
    }
}
