//! The latin1 and ascii collations over UTF-8 text against "convert the
//! text to the charset's bytes, then the byte collation", and the
//! consistency of their hash and normalized keys with equality and order.

use std::cmp::Ordering;

use proptest::prelude::*;
use quiver_collation::text;
use quiver_collation::{naive, Collation, LikePattern};

/// Characters strings are made of: ASCII letters and their case pairs,
/// spaces and controls, latin1 letters with accents (some weighing as ASCII
/// under latin1_swedish_ci), the cp1252 characters of 0x80..0x9F (€, Ÿ, the
/// undefined bytes as U+0081..), characters latin1 cannot hold (U+0080, CJK,
/// emoji), and LIKE's special characters.
const CHARS: &[&str] = &[
    "a", "A", "b", "e", "E", "y", "Y", "z", "s", " ", "  ", "\t", "\0", "\x1f", "_", "%", "\\",
    "abcdefgh", "é", "É", "è", "Ä", "Æ", "ä", "ß", "ÿ", "Ÿ", "×", "÷", "€", "‚", "\u{81}",
    "\u{9d}", "\u{a0}", "Ø", "ü", "Ü", "\u{80}", "中", "😀", "ı",
];

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(CHARS), 0..12).prop_map(|v| v.concat())
}

fn text_collations() -> Vec<(Collation, Collation)> {
    Collation::all()
        .filter(|c| c.over_utf8() != *c)
        .map(|c| (c.over_utf8(), c))
        .collect()
}

fn bytes(c: Collation, s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    text::encode(c.charset(), s.as_bytes(), &mut out);
    out
}

fn decoded(c: Collation, b: &[u8]) -> Vec<u8> {
    let mut s = String::new();
    text::decode(c.charset(), b, &mut s);
    s.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn same_answers_as_the_byte_collation(a in text_strategy(), b in text_strategy()) {
        for (t, byte) in text_collations() {
            let (ea, eb) = (bytes(byte, &a), bytes(byte, &b));
            let (a, b) = (a.as_bytes(), b.as_bytes());
            prop_assert_eq!(t.compare(a, b), byte.compare(&ea, &eb), "{}", t);
            prop_assert_eq!(t.eq(a, b), byte.eq(&ea, &eb), "{}", t);
            prop_assert_eq!(naive::compare(t, a, b), t.compare(a, b), "naive {}", t);
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            t.sort_key(a, &mut ka);
            byte.sort_key(&ea, &mut kb);
            prop_assert_eq!(&ka, &kb, "WEIGHT_STRING {}", t);
            prop_assert_eq!(t.char_length(a), ea.len());
            let mut up = Vec::new();
            t.to_upper(a, &mut up);
            let mut bup = Vec::new();
            byte.to_upper(&ea, &mut bup);
            prop_assert_eq!(&up, &decoded(byte, &bup), "UPPER {}", t);
            prop_assert_eq!(t.upper_len(a), up.len());
            let mut low = Vec::new();
            t.to_lower(a, &mut low);
            let mut blow = Vec::new();
            byte.to_lower(&ea, &mut blow);
            prop_assert_eq!(&low, &decoded(byte, &blow), "LOWER {}", t);
            prop_assert_eq!(t.lower_len(a), low.len());
            prop_assert_eq!(
                t.locate_position(b, a),
                byte.locate_position(&eb, &ea),
                "LOCATE {}", t
            );
        }
    }

    #[test]
    fn hash_and_keys_agree_with_equality(a in text_strategy(), b in text_strategy()) {
        for (t, _) in text_collations() {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            let ord = t.compare(a, b);
            if ord == Ordering::Equal {
                prop_assert_eq!(t.hash(a, 7), t.hash(b, 7), "{}", t);
            }
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            t.normalized_key(a, &mut ka);
            t.normalized_key(b, &mut kb);
            prop_assert_eq!(ka.cmp(&kb), ord, "normalized key {}", t);
            prop_assert_eq!(t.min(a, b), if ord == Ordering::Greater { b } else { a });
        }
    }

    #[test]
    fn like_as_the_byte_collation(v in text_strategy(), p in text_strategy()) {
        for (t, byte) in text_collations() {
            let got = LikePattern::new(t, p.as_bytes(), None).map(|l| l.matches(v.as_bytes())).ok();
            let want = LikePattern::new(byte, &bytes(byte, &p), None)
                .map(|l| l.matches(&bytes(byte, &v)));
            prop_assert_eq!(got, want.ok(), "{} LIKE {} under {}", v, p, t);
            let chars = LikePattern::new_char_matcher(t, p.as_bytes(), None)
                .map(|l| l.matches(v.as_bytes()));
            prop_assert_eq!(chars.ok(), got, "char matcher {} LIKE {} under {}", v, p, t);
        }
    }
}

#[test]
fn mariadb_examples() {
    // SELECT 'é€' = 'E€' COLLATE latin1_swedish_ci ... as MariaDB answers.
    let ci = Collation::from_name("latin1_swedish_ci")
        .unwrap()
        .over_utf8();
    assert_eq!(ci.name(), "latin1_swedish_ci");
    assert_eq!(ci.id(), 8);
    assert!(ci.eq("é€".as_bytes(), "E€ ".as_bytes()));
    assert!(!ci.eq("ß".as_bytes(), b"ss"));
    assert!(LikePattern::new(ci, "%É_".as_bytes(), None)
        .unwrap()
        .matches("caféX".as_bytes()));
    let ascii = Collation::from_name("ascii_general_ci")
        .unwrap()
        .over_utf8();
    assert!(ascii.eq(b"ABC", b"abc"));
}
