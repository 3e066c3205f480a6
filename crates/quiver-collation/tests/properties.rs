//! The fast paths against the plain per-character versions (`naive`), and
//! the consistency of hash and normalized keys with equality and order.

use std::cmp::Ordering;

use proptest::prelude::*;
use quiver_collation::{naive, CollatedConstant, Collation, LikePattern};

/// Byte runs strings are made of: ASCII (long runs too, for the word-at-a-time
/// paths), spaces and controls, accents and their ASCII weights, 4-byte
/// characters, invalid UTF-8, and LIKE's special characters.
const CHUNKS: &[&[u8]] = &[
    b"a",
    b"A",
    b"b",
    b"B",
    b"z",
    b"s",
    b"S",
    b"e",
    b"E",
    b"i",
    b"I",
    b" ",
    b"  ",
    b"\t",
    b"\x00",
    b"\x1f",
    b"_",
    b"%",
    b"\\",
    b"|",
    b"`",
    b"[",
    b"^",
    b"~",
    b"\x7f",
    b"abcdefgh",
    b"ABCDEFGHIJKLMNOP",
    b"pending",
    b"PENDING deposits ",
    "é".as_bytes(),
    "É".as_bytes(),
    "ß".as_bytes(),
    "ı".as_bytes(),
    "İ".as_bytes(),
    "😀".as_bytes(),
    "😁".as_bytes(),
    "\u{fffd}".as_bytes(),
    "\u{ffff}".as_bytes(),
    "\u{a0}".as_bytes(),
    "中".as_bytes(),
    b"\xff",
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xe9",
    b"\xc4",
    b"\xdf",
    b"\xf4\x90\x80\x80",
    // UCA: contraction parts (и + breve, l + middle dot, Tibetan, Kannada),
    // ignorables, expansions, Hangul, Han, unassigned, other spaces.
    "и".as_bytes(),
    "\u{306}".as_bytes(),
    "й".as_bytes(),
    b"l",
    b"L",
    "\u{b7}".as_bytes(),
    "\u{fb2}".as_bytes(),
    "\u{f71}".as_bytes(),
    "\u{f80}".as_bytes(),
    "\u{cc6}".as_bytes(),
    "\u{cc2}".as_bytes(),
    "\u{cd5}".as_bytes(),
    "\u{ad}".as_bytes(),
    b"\x01",
    "\u{301}".as_bytes(),
    "Æ".as_bytes(),
    "ﬃ".as_bytes(),
    "가".as_bytes(),
    "\u{1100}".as_bytes(),
    "\u{1161}".as_bytes(),
    "\u{378}".as_bytes(),
    "\u{3000}".as_bytes(),
    "\u{1f363}".as_bytes(),
];

fn string() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0..CHUNKS.len(), 0..14)
        .prop_map(|ix| ix.iter().flat_map(|&i| CHUNKS[i].to_vec()).collect())
}

/// A string and a variant of it likely to compare equal or close.
fn pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
    (string(), string(), 0..4u8).prop_map(|(a, b, how)| match how {
        0 => (a, b),
        1 => {
            let mut v = a.clone();
            v.extend_from_slice(b" ");
            (a, v)
        }
        2 => (a.clone(), a.to_ascii_uppercase()),
        _ => {
            let mut v = a.clone();
            v.extend_from_slice(&b);
            (a, v)
        }
    })
}

fn sign(o: Ordering) -> i8 {
    o as i8
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn compare_eq_hash_keys_agree((a, b) in pair()) {
        for c in Collation::all() {
            let want = naive::compare(c, &a, &b);
            prop_assert_eq!(c.compare(&a, &b), want, "{} compare", c);
            prop_assert_eq!(c.compare(&b, &a), want.reverse(), "{} reversed", c);
            prop_assert_eq!(c.eq(&a, &b), want.is_eq(), "{} eq", c);
            prop_assert_eq!(c.dispatch(EqConst(&a, &b)), want.is_eq(), "{} eq_const", c);
            if want.is_eq() {
                prop_assert_eq!(c.hash(&a, 42), c.hash(&b, 42), "{} hash", c);
            }
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            c.normalized_key(&a, &mut ka);
            c.normalized_key(&b, &mut kb);
            prop_assert_eq!(sign(ka.cmp(&kb)), sign(want), "{} normalized key", c);
        }
    }

    /// The column form of `eq_const` (byte and folding kernels, with their
    /// length tests) gives every row `eq_const`'s answer; the constant is a
    /// row of the column, or one of them uppercased, so matches are common.
    #[test]
    fn eq_column_agrees_with_eq_const(rows in prop::collection::vec(string(), 0..150), pick in any::<prop::sample::Index>(), how in 0..3u8) {
        let c: Vec<u8> = match (rows.is_empty(), how) {
            (true, _) => b"abc".to_vec(),
            (false, 0) => pick.get(&rows).clone(),
            (false, 1) => pick.get(&rows).to_ascii_uppercase(),
            (false, _) => {
                let mut c = pick.get(&rows).to_ascii_lowercase();
                c.extend_from_slice(b"  ");
                c
            }
        };
        let mut offsets = vec![0i32];
        let mut values = Vec::new();
        for r in &rows {
            values.extend_from_slice(r);
            offsets.push(values.len() as i32);
        }
        for coll in Collation::all() {
            let got = coll.dispatch(EqColumn(&c, &offsets, &values));
            for (i, r) in rows.iter().enumerate() {
                let want = coll.dispatch(EqConst(r, &c));
                prop_assert_eq!(got[i / 64] >> (i % 64) & 1 == 1, want, "{} row {:?} = {:?}", coll, r, c);
            }
        }
    }

    #[test]
    fn like_plans_agree_with_char_matcher(v in string(), p in string(), esc in 0..4u8) {
        let escape: Option<&[u8]> = match esc {
            0 => None,
            1 => Some(b"|"),
            2 => Some(b"_"),
            _ => Some(b""),
        };
        for c in Collation::all() {
            let fast = LikePattern::new(c, &p, escape).unwrap();
            let slow = LikePattern::new_char_matcher(c, &p, escape).unwrap();
            prop_assert_eq!(fast.matches(&v), slow.matches(&v), "{} {:?} LIKE {:?}", c, v, p);
            // A pattern made of the value itself, with wildcards, must match
            // it whenever its characters are all valid.
            let mut own = b"%".to_vec();
            own.extend(v.iter().flat_map(|&b| if b == b'%' || b == b'_' || b == b'\\' { vec![b'\\', b] } else { vec![b] }));
            let fast = LikePattern::new(c, &own, None).unwrap();
            let slow = LikePattern::new_char_matcher(c, &own, None).unwrap();
            prop_assert_eq!(fast.matches(&v), slow.matches(&v), "{} own pattern", c);
        }
    }

    /// Where a collation gives prefix keys, their order is never the
    /// opposite of `compare`'s (equal keys decide nothing). Strings of
    /// short ASCII runs (controls, spaces, NUL, letters of both cases) with
    /// an occasional non-ASCII chunk, so both keys exist often.
    #[test]
    fn prefix_keys_agree_with_compare(
        a in prop::collection::vec(0..PREFIX_CHUNKS.len(), 0..6),
        b in prop::collection::vec(0..PREFIX_CHUNKS.len(), 0..6),
        shared in 0usize..6,
    ) {
        let build = |ix: &[usize]| ix.iter().flat_map(|&i| PREFIX_CHUNKS[i].to_vec()).collect::<Vec<u8>>();
        let mut a = build(&a);
        let mut b = build(&b);
        // A common start, so that keys differ late or not at all.
        let head = a[..shared.min(a.len())].to_vec();
        b.splice(0..0, head.iter().copied());
        if shared % 2 == 1 {
            a = a.to_ascii_uppercase();
        }
        for c in Collation::all() {
            let ((ka, kb), (ra, rb)) = c.dispatch(PrefixKeys(&a, &b));
            // First ranks that differ decide, whatever follows.
            if let (Some(ra), Some(rb)) = (ra, rb) {
                let want = c.compare(&a, &b);
                prop_assert!(ra == rb || ra.cmp(&rb) == want, "{} {:?} vs {:?}: first ranks {:x} {:x}, compare {:?}", c, a, b, ra, rb, want);
            }
            if let (Some(ka), Some(kb)) = (ka, kb) {
                let want = c.compare(&a, &b);
                prop_assert!(ka == kb || ka.cmp(&kb) == want, "{} {:?} vs {:?}: keys {:x} {:x}, compare {:?}", c, a, b, ka, kb, want);
                if ka == kb && a.len() == b.len() && a.len() <= 8 {
                    prop_assert!(want.is_eq(), "{} {:?} vs {:?}: equal short keys", c, a, b);
                }
            }
        }
    }

    /// The column form of `LIKE` (one search for the first `%piece%` over
    /// the whole values buffer) gives every row `matches`' answer; patterns
    /// are `prefix%piece%...%suffix` of strings from the chunks, and rows
    /// sometimes contain the pieces (in other cases too).
    #[test]
    fn like_column_agrees_with_matches(
        rows in prop::collection::vec((string(), 0..4u8), 0..120),
        prefix in prop::collection::vec(0..CHUNKS.len(), 0..2),
        pieces in prop::collection::vec(prop::collection::vec(0..CHUNKS.len(), 1..3), 1..3),
        suffix in prop::collection::vec(0..CHUNKS.len(), 0..2),
        skip in 0usize..3,
    ) {
        let text = |ix: &[usize]| -> Vec<u8> {
            ix.iter()
                .flat_map(|&i| CHUNKS[i].to_vec())
                .filter(|&b| b != b'%' && b != b'_' && b != b'\\')
                .collect()
        };
        let pieces: Vec<Vec<u8>> = pieces.iter().map(|p| text(p)).collect();
        let mut pattern = text(&prefix);
        for p in &pieces {
            pattern.push(b'%');
            pattern.extend_from_slice(p);
        }
        pattern.push(b'%');
        pattern.extend(text(&suffix));
        let rows: Vec<Vec<u8>> = rows
            .into_iter()
            .map(|(mut r, how)| {
                match how {
                    0 => r.extend(pieces.concat()),
                    1 => r.extend(pieces.concat().to_ascii_lowercase()),
                    _ => {}
                }
                r
            })
            .collect();
        // Some bytes before the first row: offsets need not start at 0.
        let mut values = vec![b'x'; skip];
        let mut offsets = vec![skip as i32];
        for r in &rows {
            values.extend_from_slice(r);
            offsets.push(values.len() as i32);
        }
        for c in Collation::all() {
            let m = LikePattern::new(c, &pattern, None).unwrap();
            let mut out = vec![u64::MAX; rows.len().div_ceil(64)];
            m.matches_column(&offsets, &values, &mut out).unwrap();
            for (i, r) in rows.iter().enumerate() {
                prop_assert_eq!(out[i / 64] >> (i % 64) & 1 == 1, m.matches(r), "{} row {:?} LIKE {:?}", c, r, pattern);
            }
        }
    }

    #[test]
    fn locate_and_case_mapping(needle in string(), hay in string()) {
        for c in Collation::all() {
            prop_assert_eq!(c.locate(&needle, &hay), naive::locate(c, &needle, &hay), "{} locate", c);
            let (mut up, mut lo) = (Vec::new(), Vec::new());
            c.to_upper(&hay, &mut up);
            c.to_lower(&hay, &mut lo);
            prop_assert_eq!(up.len(), c.upper_len(&hay));
            prop_assert_eq!(lo.len(), c.lower_len(&hay));
            prop_assert!(c.char_length(&hay) <= hay.len());
        }
    }
}

/// Chunks for the prefix keys: ASCII mostly.
const PREFIX_CHUNKS: &[&[u8]] = &[
    b"a",
    b"A",
    b"b",
    b"Z",
    b"z",
    b"_",
    b" ",
    b"  ",
    b"\t",
    b"\x00",
    b"\x1f",
    b"~",
    b"\x7f",
    b"abc",
    b"AIR",
    b"REG AIR",
    b"0123456789",
    "é".as_bytes(),
    b"\xff",
    b"\xc0\xaf",
];

/// Both values' [`Collator::prefix_key`](quiver_collation::Collator::prefix_key),
/// and their first ranks (the key's top byte for the first byte alone).
struct PrefixKeys<'a>(&'a [u8], &'a [u8]);

impl quiver_collation::CollatorFn for PrefixKeys<'_> {
    type Output = ((Option<u64>, Option<u64>), (Option<u64>, Option<u64>));
    fn call<C: quiver_collation::Collator>(self, c: C) -> Self::Output {
        // Keys from a head word whose bytes past the value are garbage (as
        // an 8-byte load from a values buffer gives) are the same.
        for s in [self.0, self.1] {
            let mut head = [0xA5u8; 8];
            let n = s.len().min(8);
            head[..n].copy_from_slice(&s[..n]);
            let garbage = c.prefix_key_of_head(u64::from_le_bytes(head), s.len());
            assert_eq!(garbage, c.prefix_key(s), "{:?} head with garbage", s);
        }
        let rank = |s: &[u8]| c.prefix_key(&s[..s.len().min(1)]).map(|k| k >> 56);
        (
            (c.prefix_key(self.0), c.prefix_key(self.1)),
            (rank(self.0), rank(self.1)),
        )
    }
}

/// `eq_const` through the monomorphized entry point.
struct EqConst<'a>(&'a [u8], &'a [u8]);

impl quiver_collation::CollatorFn for EqConst<'_> {
    type Output = bool;
    fn call<C: quiver_collation::Collator>(self, c: C) -> bool {
        c.eq_const(&CollatedConstant::new(self.1), self.0)
    }
}

/// `CollatedConstant::eq_column` through the monomorphized entry point.
struct EqColumn<'a>(&'a [u8], &'a [i32], &'a [u8]);

impl quiver_collation::CollatorFn for EqColumn<'_> {
    type Output = Vec<u64>;
    fn call<C: quiver_collation::Collator>(self, c: C) -> Vec<u64> {
        let mut out = vec![0u64; (self.1.len() - 1).div_ceil(64)];
        CollatedConstant::new(self.0)
            .eq_column(c, self.1, self.2, &mut out)
            .unwrap();
        out
    }
}

#[test]
fn min_max_keep_the_first_of_equals() {
    let c = Collation::utf8mb4_general_ci();
    assert_eq!(c.min(b"a", b"A"), b"a");
    assert_eq!(c.max(b"a", b"A"), b"a");
    assert_eq!(c.min(b"b", b"A"), b"A");
    assert_eq!(c.max(b"B ", b"b"), b"B ");
}
