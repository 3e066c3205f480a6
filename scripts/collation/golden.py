#!/usr/bin/env python3
"""Generate the golden files of tests/collation/ from MariaDB's answers.

For every collation of crates/quiver-collation, thousands of cases (random
and adversarial: tabs and control characters before trailing spaces, ß/ss,
accents and decomposed forms, Turkish ı/İ, 4-byte characters, invalid UTF-8,
empty strings, strings of only spaces; for the UCA collations also Han,
unassigned and noncharacter code points, emoji, ignorables, expansions,
Hangul syllables and DUCET contractions) are asked of a running MariaDB (the
oracle of /work/shared/oracle), and its answers written as TSV files with
hex-encoded strings. crates/quiver-collation/tests/golden.rs checks them all;
the tests never need the server.

How values reach the server: as exact bytes. utf8 strings are sent as raw
bytes in a literal after an introducer (`_utf8mb4'...'`, quote, backslash
and NUL escaped), which MariaDB keeps byte for byte even when the bytes are
not valid UTF-8 (`_utf8mb4 X'..'` would be rejected with error 1300);
latin1/ascii/binary strings as `_latin1 X'..'` etc. Where a column is
tested, rows are INSERTed with sql_mode='' and the stored bytes read back
with HEX(): MariaDB stores every invalid byte of a utf8 value as '?', and the
files record the stored bytes (`col` rows).

Files (one header line starting with '#'; `-` is the empty string):
  strings.tsv  collation, s, HEX(WEIGHT_STRING(s)), CHAR_LENGTH(s), HEX(UPPER(s)), HEX(LOWER(s)),
               HEX(LEFT(s, 2)), HEX(RIGHT(s, 2)), HEX(SUBSTRING(s, 2, 3))
  compare.tsv  collation, lit|col, a, b, a = b, STRCMP(a, b)
  like.tsv     collation, value, pattern, escape (`default`, or hex), result (0/1, or E<errno>)
  locate.tsv   collation, needle, hay, LOCATE(needle, hay)
  tables.tsv   per collation and value set, rows of a table column (s VARCHAR COLLATE c):
               values <coll> <set> <id>:<stored hex> ...   (in insertion = id order)
               order  <coll> <set> <ids of ORDER BY s, id>
               group  <coll> <set> <HEX(s)>:<ids of the group> ...  (GROUP BY s: the value shown, members)
               minmax <coll> <set> <HEX(MIN(s))> <HEX(MAX(s))>

Usage: scripts/collation/golden.py [--out DIR] [--seed N]
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

oracle.ensure_pymysql(__file__)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

COLLATIONS = [
    "binary",
    "utf8mb4_bin", "utf8mb4_nopad_bin", "utf8mb4_general_ci", "utf8mb4_general_nopad_ci",
    "utf8mb3_bin", "utf8mb3_nopad_bin", "utf8mb3_general_ci", "utf8mb3_general_nopad_ci",
    "latin1_swedish_ci", "latin1_swedish_nopad_ci", "latin1_bin", "latin1_nopad_bin",
    "ascii_general_ci", "ascii_general_nopad_ci", "ascii_bin", "ascii_nopad_bin",
    # part 2: the UCA collations (utf8mb4_0900_*, which MariaDB lacks, are
    # in golden_0900.py)
    "utf8mb4_unicode_ci", "utf8mb4_unicode_520_ci", "utf8mb4_uca1400_ai_ci",
    "utf8mb3_unicode_ci", "utf8mb3_unicode_520_ci",
    # their NO PAD forms, and uca1400 for utf8mb3
    "utf8mb4_unicode_nopad_ci", "utf8mb4_unicode_520_nopad_ci", "utf8mb4_uca1400_nopad_ai_ci",
    "utf8mb3_unicode_nopad_ci", "utf8mb3_unicode_520_nopad_ci", "utf8mb3_uca1400_ai_ci",
    "utf8mb3_uca1400_nopad_ai_ci",
]

# Cases per collation.
N_STRINGS = 160
N_PAIRS_LIT = 320
N_PAIRS_COL = 100
N_LIKE = 320
N_LOCATE = 100
N_SETS = 3
SET_SIZE = 36


def charset_of(coll):
    return "binary" if coll == "binary" else coll.split("_")[0]


# ---------------------------------------------------------------------------
# Pieces strings are made of, per charset.

ASCII_PIECES = [b"a", b"b", b"A", b"B", b"z", b"Z", b"abc", b"ABC", b"Abc", b"hello", b"HELLO", b"x",
                b"_", b"%", b"\\", b"`", b"[", b"]", b"^", b"{", b"~", b"0", b"9", b"-", b".", b"|",
                b" ", b"  ", b"\t", b"\n", b"\x00", b"\x01", b"\x1f", b"\x7f", b"i", b"I", b"s", b"S",
                b"e", b"E", b"ss", b"SS", b"pending", b"deposits"]

UTF8_SPECIAL = ["ß", "ẞ", "é", "É", "e\u0301", "E\u0301", "è", "ê", "ë", "ı", "İ", "ǅ", "ǆ", "Ǆ", "ﬁ",
                "Å", "å", "Ä", "ä", "Æ", "æ", "Ø", "ø", "Ω", "ω", "Σ", "σ", "ς", "Я", "я", "ё", "Ё",
                "ñ", "Ñ", "\u00a0", "\u3000", "\u2028", "€", "£", "¥", "\u0300", "\u0301", "\ufffd",
                "\uffff", "\ufffe", "中", "文", "ア", "한", "µ", "Μ", "ÿ", "Ÿ", "ŉ", "ǰ", "ͅ", "ι", "Ι",
                "ｱ", "Ａ", "ａ", "Ⅻ", "ⅻ", "ⓐ", "Ⓐ"]
UTF8_SUPPLEMENTARY = ["😀", "😁", "𠀀", "𠀁", "𐐀", "𐐨", "🀄", "\U0010FFFF", "\U00010000"]
UTF8_INVALID = [b"\xff", b"\xfe", b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xc0\xaf", b"\xc1\xbf",
                b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x9f\x98", b"\xf4\x90\x80\x80",
                b"\xf5\x80\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xc3\x28", b"\xe2\x28\xa1",
                b"\xf0\x80\x80\x80", b"\xe0\x9f\xbf", b"\xc2"]

LATIN1_HIGH = [bytes([b]) for b in [0xC4, 0xC5, 0xD6, 0xDC, 0xDF, 0xE4, 0xE5, 0xE9, 0xC9, 0xE8, 0xA0,
                                    0x80, 0x8A, 0x9A, 0x8C, 0x9C, 0xFF, 0x9F, 0xD7, 0xF7, 0xD0, 0xF0,
                                    0xDE, 0xFE, 0xC6, 0xE6, 0xD8, 0xF8, 0xB5, 0xAA, 0xBA, 0x81, 0xAD]]


# Extra pieces for the UCA collations: Han (core, extension A/B), unassigned
# and noncharacters (implicit weights), emoji, ignorables (controls, U+00AD,
# U+200B, combining marks), expansions (ligatures, ß, Æ, Hangul syllables),
# contractions of DUCET (Cyrillic и + breve, l + middle dot, Tibetan and
# Kannada three-character ones, Thai), other spaces.
UCA_SPECIAL = ["中", "国", "丂", "\u3400", "\u9fff", "\ua000", "\U00020001", "\U0002a6d6", "\u0378", "\u08ff",
               "\U0003fffd", "\U000e0001", "\U0001f363", "\U0001f37a", "\U0001f600", "\u00ad", "\u200b", "\u0001",
               "\u0000", "\u0301", "\u0306", "\u0308", "и", "й", "И", "Й", "и\u0306", "И\u0306", "е\u0308", "ё",
               "l\u00b7", "L\u00b7", "ŀ", "Ŀ", "ǅ", "ǆ", "dz", "DŽ", "ﬃ", "ffi", "Æ", "æ", "ae", "AE", "Œ", "œ", "oe",
               "ß", "ss", "ẞ", "ı", "İ", "ſ", "Å", "Ä", "ü", "u\u0308", "\u1100\u1161", "가", "각", "\u1100",
               "\u0e40\u0e01", "\u0e40", "\u0e01", "\u0fb2\u0f71\u0f80", "\u0fb2\u0f80", "\u0f71\u0f80",
               "\u0cc6\u0cc2\u0cd5", "\u0cc6\u0cc2", "\uffff", "\ufffd", "\U0010ffff", "\u00a0", "\u3000", "\u2000",
               "\x0b", "\r", "\n", "-", "'", "\u2010", "½", "1", "①", "Ⅰ", "ｶ", "カ", "か", "ﾟ", "ｧ"]
UCA = {"on": False}


def pieces_for(cs):
    if cs in ("utf8mb4", "utf8mb3"):
        p = list(ASCII_PIECES) + [s.encode() for s in UTF8_SPECIAL]
        p += [s.encode() for s in UTF8_SUPPLEMENTARY] + list(UTF8_INVALID)
        if UCA["on"]:
            p += [s.encode() for s in UCA_SPECIAL]
        return p
    if cs == "latin1":
        return list(ASCII_PIECES) + LATIN1_HIGH
    if cs == "ascii":
        return list(ASCII_PIECES) + [b"\x80", b"\xc1", b"\xff", b"\xe9"]
    return list(ASCII_PIECES) + [b"\xff", b"\x80", b"\xc3\xa9", b"\xe9", b"\xfe\xff"]


TAILS = [b"", b"", b"", b" ", b"  ", b"\t", b"\t ", b" \t", b"\x00", b"\x00 ", b"\n ", b"\x1f "]


def random_string(rng, pieces):
    n = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 7])
    s = b"".join(rng.choice(pieces) for _ in range(n))
    if rng.random() < 0.3:
        s += rng.choice(TAILS)
    if rng.random() < 0.05:
        s = b" " * rng.randint(1, 3) + s
    return s


def swapcase(cs, s, rng):
    """A case variant of s (per character, some flipped)."""
    if cs in ("utf8mb4", "utf8mb3"):
        t = s.decode("utf-8", errors="surrogateescape")
        out = "".join(ch.swapcase() if rng.random() < 0.6 and len(ch.swapcase()) == 1 else ch for ch in t)
        return out.encode("utf-8", errors="surrogateescape")
    if cs == "latin1":
        t = s.decode("latin1")
        out = []
        for ch in t:
            sw = ch.swapcase()
            if rng.random() < 0.6 and len(sw) == 1 and ord(sw) < 256:
                out.append(sw)
            else:
                out.append(ch)
        return "".join(out).encode("latin1")
    return bytes(b ^ 0x20 if (0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A) and rng.random() < 0.6 else b for b in s)


EQUIV = [(b"\xc3\x9f", b"ss"), (b"\xc3\x9f", b"s"), ("é".encode(), b"E"), ("é".encode(), "e\u0301".encode()),
         ("ı".encode(), b"I"), ("İ".encode(), b"i"), ("😀".encode(), "😁".encode()),
         ("😀".encode(), "\ufffd".encode()), (b"a", b"A"), (b" ", b"\t"), (b"\xe9", b"E"), (b"\xc4", b"\\"),
         (b"\xc5", b"["), (b"\xd6", b"]"), (b"\xdf", b"s"), (b"\xe4", b"\xc4"), (b"\xff", b"\xfe"),
         (b"\xff", "😀".encode()), (b"\xc3", "é".encode()), (b"\x80", "é".encode())]


def related(cs, a, rng, pieces):
    r = rng.random()
    if r < 0.3:
        return swapcase(cs, a, rng)
    if r < 0.5:
        return a + rng.choice([b" ", b"  ", b"\t", b"\t ", b"\x00", b" \x00", b"\x01", b"a"])
    if r < 0.65:
        for x, y in rng.sample(EQUIV, len(EQUIV)):
            if x in a:
                return a.replace(x, y, 1)
            if y in a:
                return a.replace(y, x, 1)
        return swapcase(cs, a, rng)
    if r < 0.8 and a:
        return a[:rng.randint(0, len(a) - 1)]
    if a:
        i = rng.randrange(len(a))
        return a[:i] + rng.choice(pieces) + a[i + 1:]
    return rng.choice(pieces)


FIXED_PAIRS = [(b"a", b"a "), (b"a", b"a\t"), (b"a\t", b"a "), (b"", b" "), (b"", b"\t"), (b"", b""),
               (b"a", b"A"), (b"a ", b"A  "), (b"a\x00", b"a"), (b"a\x00", b"a "), (b"a\x1f", b"a"),
               (b"  ", b""), (b" a", b"a"), (b"ab", b"a b"),
               ("ß".encode(), b"ss"), ("ß".encode(), b"s"), ("ß".encode(), b"S"), ("é".encode(), b"E"),
               ("é".encode(), "e\u0301".encode()), ("ı".encode(), b"I"), ("İ".encode(), b"i"),
               ("😀".encode(), "😁".encode()), ("😀".encode(), "\ufffd".encode()),
               ("😀".encode(), "\uffff".encode()), ("\U0010FFFF".encode(), "\uffff".encode()),
               (b"a\xff", b"a"), (b"a\xff", b"a\xfe"), (b"a\xff", "a😀".encode()), (b"a\xc3", "aé".encode()),
               (b"a\x80", "aé".encode()), (b"a\xff ", b"a\xff"), (b"\xff", b""), (b"\xff", b" "),
               (b"a\xffb", b"A\xffB"), (b"a\xffb", b"a\xffc"), (b"\xed\xa0\x80", "\ue000".encode()),
               (b"\xed\xa0\x80", "\ud7ff".encode()), (b"\xc3", b"\xc3\xa9"), (b"x\xe2\x82", "x€".encode()),
               ("\u00a0".encode(), b" "), (b"\xa0", b" "), (b"\xe9", b"E"), (b"\xc4", b"\\"), (b"\xe4", b"\xc4"),
               (b"\xdf", b"s"), (b"\xdf", b"ss"), (b"\xff", b"\xfe"), (b"\xff", b"y"), (b"\x80", b"\x81"),
               (b"\t ", b""), (b"a\t ", b"a"), (b"_", b"a"), (b"`", b"a"), (b"[", b"a")]


UCA_PAIRS = [(a.encode(), b.encode()) for a, b in [
    ("ß", "ss"), ("ß", "s"), ("Æ", "AE"), ("æ", "ae"), ("ﬃ", "ffi"), ("ǅ", "dz"), ("Œ", "oe"), ("a\u00ad", "a"),
    ("a\u00adb", "ab"), ("a\u0001b", "ab"), ("a\u200b", "a "), ("a\u00a0", "a"), ("a\u3000", "a"), ("a\u0301", "á"),
    ("é", "e\u0301"), ("и\u0306", "й"), ("И\u0306", "й"), ("е\u0308", "ё"), ("l\u00b7", "l"), ("l\u00b7", "ŀ"),
    ("L\u00b7x", "Lx"), ("\u0fb2\u0f71\u0f80", "\u0fb2\u0f80"), ("\u0cc6\u0cc2\u0cd5", "\u0cc6\u0cc2"),
    ("가", "\u1100\u1161"), ("각", "가"), ("中", "国"), ("中", "\U00020001"), ("\u3400", "\u4e00"), ("\u0378", "\u08ff"),
    ("\U0001f363", "\U0001f37a"), ("\U0001f600", "\ufffd"), ("\uffff", "\U0010ffff"), ("a\t", "a"), ("a\u000b", "a"),
    ("ı", "i"), ("İ", "i"), ("ſ", "s"), ("Å", "A"), ("ü", "u\u0308"), ("\u0e40\u0e01", "\u0e01\u0e40"), ("", "\u0001"),
    ("", "\u00ad "), ("a ", "a\u00ad"), ("ｶ", "カ"), ("カ", "か"), ("1", "①"), ("½", "1/2"), ("-", "\u2010"),
    ("abc", "ABC"), ("abc", "abd"), ("a-b", "ab"), ("a'b", "ab"), ("co-op", "coop"), ("a b", "ab")]]


# Appended to the random cases of every UCA collation (so the others stay as
# they were). Contractions of MariaDB's DUCET 14.0.0 that DUCET 10.0.0 lacks
# (gen_uca.py finds them from DUCET 13.0.0): Lao prevowel + a consonant of
# Unicode 12 weighs as consonant, prevowel ('ເຆ' = 'ຆເ'); Dives Akuru vowel
# sign E + virama is one weight. And trailing spaces, tabs before spaces,
# case and accents for the NO PAD forms.
UCA_NEW_CONTRACTIONS = ["\u0ec0\u0e86", "\u0ec4\u0eac", "\u0ec2\u0e98", "\u0ec1\u0ea0", "\U00011935\U00011930"]
UCA_EXTRA_STRINGS = UCA_NEW_CONTRACTIONS + [
    "\u0e86\u0ec0", "\u0ec0", "\u0e86", "\u0ec0\u0e86 ", "a\u0ec0\u0e86b", "\u0ec0\u0e86\u0ec0\u0e89",
    "\u0ec0\u0ec0\u0e86", "\U00011935", "\U00011930", "\U00011930\U00011935", "x\U00011935\U00011930 ",
    "a \t", "a\t ", " a ", "A\u00a0", "\u00e9 ", "E\u0301 \t"]
UCA_EXTRA_PAIRS = [
    ("\u0ec0\u0e86", "\u0e86\u0ec0"), ("\u0ec0\u0e86", "\u0e86"), ("\u0ec0\u0e86", "\u0e89"),
    ("\u0ec0\u0e86", "\u0ec0\u0e81"), ("\u0ec0\u0e86 ", "\u0e86\u0ec0"), ("a\u0ec0\u0e86", "A\u0e86\u0ec0"),
    ("\u0ec4\u0eac", "\u0eac\u0ec4"), ("\u0ec2\u0e98x", "\u0e98\u0ec2X"), ("\u0ec1\u0ea0", "\u0ea0\u0ec0"),
    ("\u0ec0\u0ec0\u0e86", "\u0ec0\u0e86\u0ec0"), ("\U00011935\U00011930", "\U00011935"),
    ("\U00011935\U00011930", "\U00011930\U00011935"), ("\U00011935\U00011930", "\U0001193b"),
    ("a", "a "), ("a ", "A"), ("a  ", "A "), ("a\t", "a"), ("a\t", "a "), ("a\t ", "a "), ("a \t", "a"),
    ("\u00e9 ", "E"), ("\u00e9", "e\u0301 "), ("\u00df ", "ss"), ("\u00df", "ss "), ("a\u00a0", "a "),
    ("a ", "a\u00ad"), ("a\u0001", "a"), ("a\u0000", "a"), ("ABC  ", "abc "), (" ", ""), ("\t", ""), (" ", "\t"),
    ("\u4e2d ", "\u4e2d"), ("\U0001f600 ", "\U0001f600")]
UCA_EXTRA_LIKE = [("\u0ec0\u0e86", "\u0e86\u0ec0"), ("\u0ec0\u0e86", "\u0ec0_"), ("\u0ec0\u0e86", "_\u0e86"),
                  ("\u0ec0\u0e86", "\u0ec0\u0e86"), ("\U00011935\U00011930", "\U00011935%"),
                  ("\U00011935\U00011930", "_"), ("a ", "a"), ("a", "a "), ("A ", "a_"), ("a\t", "a "),
                  ("\u00e9 ", "E%"), ("\u00e9 ", "E")]
UCA_EXTRA_LOCATE = [("\u0e86", "x\u0ec0\u0e86y"), ("\u0ec0\u0e86", "\u0e86\u0ec0"), ("\u0ec0", "\u0ec0\u0e86"),
                    ("\U00011930", "\U00011935\U00011930"), ("a ", "xA y"), ("a ", "xa"), ("b\t", "ab ")]
# An extra ORDER BY / GROUP BY set: with the Lao contraction 'ເຆ' sorts
# between 'ຆ' and 'ຉ', without it after every Lao consonant.
UCA_EXTRA_SET = ["\u0ec0\u0e86", "\u0e86\u0ec0", "\u0e86", "\u0e89", "\u0ec0\u0e81", "\u0ec0", "\u0ec0\u0e86 ",
                 "\u0e86\u0ec0\t", "\u0ec4\u0eac", "\u0eac", "\U00011935\U00011930", "\U00011935", "\U00011930",
                 "\U0001193b", "a", "a ", "A\t", "a\t ", "\u00e1", "A  ", "a\u0000", "ab", "ss", "\u00df "]


def make_strings(cs, rng, n):
    pieces = pieces_for(cs)
    out = [b"", b" ", b"   ", b"\t", b"\x00"] + [p for p in pieces]
    out += [p + b" " for p in pieces[:20]]
    while len(out) < n:
        out.append(random_string(rng, pieces))
    return out[:max(n, len(pieces) + 25)]


def make_pairs(cs, rng, n):
    pieces = pieces_for(cs)
    pairs = list(FIXED_PAIRS) + (UCA_PAIRS if UCA["on"] else [])
    while len(pairs) < n:
        a = random_string(rng, pieces)
        if rng.random() < 0.3:
            b = random_string(rng, pieces)
        else:
            b = related(cs, a, rng, pieces)
        pairs.append((a, b) if rng.random() < 0.5 else (b, a))
    return pairs


def chars_of(cs, s):
    """Split into characters for pattern making (bytes for 8-bit/binary)."""
    if cs in ("utf8mb4", "utf8mb3"):
        t = s.decode("utf-8", errors="surrogateescape")
        return [ch.encode("utf-8", errors="surrogateescape") for ch in t]
    return [bytes([b]) for b in s]


def make_pattern(cs, value, rng, pieces):
    """A pattern derived from value (often matching), or random."""
    r = rng.random()
    if r < 0.15:
        toks = [rng.choice(pieces + [b"%", b"_", b"%", b"\\%", b"\\_"]) for _ in range(rng.randint(0, 5))]
        return b"".join(toks)
    chars = chars_of(cs, value)
    out = []
    i = 0
    while i < len(chars):
        x = rng.random()
        if x < 0.12:
            out.append(b"_")
            i += 1
        elif x < 0.22:
            out.append(b"%")
            i += rng.randint(0, 3)
        else:
            ch = chars[i]
            if ch in (b"%", b"_", b"\\") and rng.random() < 0.7:
                ch = b"\\" + ch
            out.append(ch)
            i += 1
    p = b"".join(out)
    if rng.random() < 0.3:
        p = swapcase(cs, p, rng)
    y = rng.random()
    if y < 0.1:
        p = b"%" + p
    elif y < 0.2:
        p = p + b"%"
    elif y < 0.25:
        p = p + b"\\"
    elif y < 0.3 and p:
        p = p[:-1]
    return p


FIXED_LIKE = [(b"abc", b"abc"), (b"abc ", b"abc"), (b"abc", b"abc "), (b"abc", b"a%"), (b"abc", b"%c"),
              (b"abc", b"a_c"), (b"abc", b"ab_"), (b"abc", b"a__c"), (b"", b""), (b"", b"%"), (b"", b"_"),
              (b"a\\", b"a\\"), (b"a", b"a\\"), (b"a%", b"a\\%"), (b"ab", b"a\\%"), (b"a\\b", b"a\\\\b"),
              (b"a_", b"a\\_"), (b"ab", b"a\\_"), (b"ab", b"a\\b"),
              ("ß".encode(), b"s"), ("ß".encode(), b"ss"), ("ß".encode(), b"_"), ("é".encode(), b"E"),
              (b"E", "é".encode()), ("é".encode(), b"_"), ("é".encode(), b"__"), ("e\u0301".encode(), "é".encode()),
              ("😀".encode(), "😁".encode()), ("😀".encode(), b"_"), ("😀".encode(), b"____"),
              ("a😀b".encode(), b"a%b"), (b"a\xffb", b"a%"), (b"a\xffb", b"%b"), (b"a\xffb", b"a_b"),
              (b"a\xffb", b"%"), (b"a\xffb", b"a\xff%"), (b"a\xffb", b"a\xffb"), (b"a\xffb", b"A\xffB"),
              (b"a\xffb", b"%\xff%"), (b"a\xffb", b"a__"), (b"a\xffb", b"%_"), (b"a\xffb", b"a%%"),
              (b"a\xffb", b"%a%"), (b"xa\xffb", b"%a%"), (b"a\xffb", b"_%"), (b"a\xffb", b"a_%"),
              ("aé".encode(), b"%\xa9"), ("aé".encode(), b"%\xc3%"), (b"a\xc3", "aé".encode()),
              (b"pending deposits", b"%pending%deposits%"), (b"Pending Deposits", b"%pending%deposits%"),
              (b"xx", b"%x%x%x%"), (b"xxx", b"%x%x%x%"), (b"ab", b"a%%b"), (b"\xe9", b"E"), (b"\xc4", b"\\\\"),
              (b"\xc4", b"\\"), (b"\xc4", b"_"), (b"\xe4", b"\xc4"), (b"\xdf", b"s"), (b"\xdf", b"S")]

ESCAPES = [None, None, None, None, b"|", b"", b"ab", "é".encode(), b"a", b"%", b"_"]


UCA_LIKE = [("ß", "ss"), ("ss", "ß"), ("ß", "s%"), ("Æ", "AE"), ("Æ", "æ"), ("a\u00adb", "ab"), ("ab", "a\u00adb"),
            ("a\u00adb", "a_b"), ("\u0001", "\u00ad"), ("й", "и\u0306"), ("и\u0306", "й"), ("и\u0306", "и_"),
            ("и\u0306", "и%"), ("가", "\u1100\u1161"), ("가", "_"), ("中", "_"), ("中", "国"), ("\U0001f600", "_"),
            ("\U0001f363", "\U0001f37a"), ("a\u00a0", "a "), ("abc", "ABC"), ("ÀBC", "a%c"), ("l\u00b7", "l_"),
            ("l\u00b7", "ŀ"), ("\u0fb2\u0f71\u0f80", "\u0fb2%"), ("x\u0301", "x"), ("x\u0301", "x_"), ("ǅ", "dz"),
            ("ǅ", "Ǆ"), ("\uffff", "\ufffe"), ("\u0378", "\u0379"), ("a\tb", "a b"), ("ı", "I"), ("İ", "i")]


def make_like(cs, rng, n, pool):
    pieces = pieces_for(cs)
    cases = [(v, p, None) for v, p in FIXED_LIKE]
    if UCA["on"]:
        cases += [(v.encode(), p.encode(), None) for v, p in UCA_LIKE]
    cases += [(b"a_", b"a|_", b"|"), (b"ab", b"a|_", b"|"), (b"a|", b"a|", b"|"), (b"a", b"a|", b"|"),
              (b"a\\", b"a\\", b""), (b"a%", b"a\\%", b""), (b"a", b"a", b"ab"), (b"ab", b"Aab", b"a"),
              (b"ab", b"aab", b"A"), ("aé".encode(), "aéé".encode(), "é".encode()),
              ("aé".encode(), "aÉé".encode(), "é".encode()), (b"a%b", b"a%%b", b"%"), (b"a_b", b"a__b", b"_"),
              (b"a\xe9", b"a\xe9\xe9", b"\xe9"), (b"axb", b"a%b", b"%")]
    while len(cases) < n:
        v = rng.choice(pool)
        p = make_pattern(cs, v, rng, pieces)
        e = rng.choice(ESCAPES)
        if e is not None and e not in (b"", b"ab") and rng.random() < 0.6:
            # put the escape to use
            ch = chars_of(cs, p)
            if ch:
                i = rng.randrange(len(ch) + 1)
                ch.insert(i, e + rng.choice([b"%", b"_", e, b"a"]))
                p = b"".join(ch)
        cases.append((v, p, e))
    if UCA["on"]:
        cases += [(v.encode(), p.encode(), None) for v, p in UCA_EXTRA_LIKE]
    return cases


def make_locate(cs, rng, n, pool):
    pieces = pieces_for(cs)
    cases = [(b"", b"abc"), (b"s", "aß".encode()), (b"E", "aé".encode()), ("é".encode(), b"aEb"),
             ("éb".encode(), b"aEb"), ("éb".encode(), "axéB".encode()), (b"b ", b"ab"), (b"B", b"abc"),
             (b"\xa9", "aé".encode()), (b"\xff", b"a\xffb"), (b"b", b"a\xffb"), (b"\xe9", b"aEb"),
             ("😁".encode(), "a😀".encode()), (b"a", b"")]
    if UCA["on"]:
        cases += [(n.encode(), h.encode()) for n, h in [
            ("ss", "aßb"), ("s", "aßb"), ("b", "a\u00adb"), ("\u00adb", "ab"), ("й", "xи\u0306y"), ("и", "xйy"),
            ("ae", "xÆy"), ("\u00ad", "abc"), ("c", "ab\u0301c"), ("中", "a中b"), ("B ", "ab"), ("\U0001f37a", "a\U0001f363")]]
    while len(cases) < n:
        hay = rng.choice(pool)
        ch = chars_of(cs, hay)
        if ch and rng.random() < 0.7:
            i = rng.randrange(len(ch))
            j = rng.randint(i, min(len(ch), i + 3))
            needle = b"".join(ch[i:j])
            if rng.random() < 0.4:
                needle = swapcase(cs, needle, rng)
        else:
            needle = rng.choice(pieces)
        cases.append((needle, hay))
    if UCA["on"]:
        cases += [(n.encode(), h.encode()) for n, h in UCA_EXTRA_LOCATE]
    return cases


def make_sets(cs, rng):
    pieces = pieces_for(cs)
    sets = []
    for _ in range(N_SETS):
        base = [random_string(rng, pieces) for _ in range(SET_SIZE // 3)]
        vals = list(base)
        while len(vals) < SET_SIZE:
            vals.append(related(cs, rng.choice(base), rng, pieces))
        rng.shuffle(vals)
        sets.append(vals)
    if UCA["on"]:
        sets.append([x.encode() for x in UCA_EXTRA_SET])
    return sets


# ---------------------------------------------------------------------------
# SQL


def sql_lit(coll, s):
    """Exactly the bytes s as a string of the collation's charset, with the
    collation (explicit)."""
    cs = charset_of(coll)
    if cs in ("utf8mb4", "utf8mb3"):
        base = b"_" + cs.encode() + oracle.lit(s)
    else:
        base = oracle.hexlit(s, cs)
    if coll == "binary":
        return base
    return base + b" COLLATE " + coll.encode()


def sql_plain(coll, s):
    """The bytes s as a coercible string of the charset (no COLLATE)."""
    cs = charset_of(coll)
    if cs in ("utf8mb4", "utf8mb3"):
        return b"_" + cs.encode() + oracle.lit(s)
    return oracle.hexlit(s, cs)


def run_batched(cur, items, exprs_of, ncols, batch=40):
    """Evaluates a list of cases, several per SELECT; a batch that fails is
    retried one case at a time, and a failing case gets ('E<errno>',) * ncols."""
    import pymysql
    results = []
    for k in range(0, len(items), batch):
        chunk = items[k:k + batch]
        cols = []
        for i, it in enumerate(chunk):
            for j, e in enumerate(exprs_of(it)):
                cols.append(e + b" AS c%d_%d" % (i, j))
        try:
            cur.execute(b"SELECT " + b", ".join(cols))
            row = cur.fetchone()
            for i in range(len(chunk)):
                results.append(row[i * ncols:(i + 1) * ncols])
        except pymysql.MySQLError:
            for it in chunk:
                cols = [e + b" AS c0_%d" % j for j, e in enumerate(exprs_of(it))]
                try:
                    cur.execute(b"SELECT " + b", ".join(cols))
                    results.append(cur.fetchone())
                except pymysql.MySQLError as err:
                    results.append(("E%d" % err.args[0],) * ncols)
    return results


def h(b):
    return b.hex().upper() if b else "-"


def fmt(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return v if v else "-"
    return str(v)


def column_type(coll):
    if coll == "binary":
        return "VARBINARY(400)"
    return "VARCHAR(200) CHARACTER SET %s COLLATE %s" % (charset_of(coll), coll)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "tests/collation"))
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    conn = oracle.connect()
    cur = conn.cursor()
    version = oracle.server_version(conn)
    cur.execute("CREATE DATABASE IF NOT EXISTS quiver_collation_golden")
    cur.execute("USE quiver_collation_golden")

    header = "# generated by scripts/collation/golden.py from MariaDB %s; do not edit\n" % version
    f_strings = open(os.path.join(args.out, "strings.tsv"), "w")
    f_compare = open(os.path.join(args.out, "compare.tsv"), "w")
    f_like = open(os.path.join(args.out, "like.tsv"), "w")
    f_locate = open(os.path.join(args.out, "locate.tsv"), "w")
    f_tables = open(os.path.join(args.out, "tables.tsv"), "w")
    f_strings.write(header + "# collation\ts\tHEX(WEIGHT_STRING(s))\tCHAR_LENGTH(s)\tHEX(UPPER(s))\tHEX(LOWER(s))"
                    "\tHEX(LEFT(s, 2))\tHEX(RIGHT(s, 2))\tHEX(SUBSTRING(s, 2, 3))\n")
    f_compare.write(header + "# collation\tlit|col\ta\tb\ta = b\tSTRCMP(a, b)\n")
    f_like.write(header + "# collation\tvalue\tpattern\tescape\tvalue LIKE pattern [ESCAPE escape]\n")
    f_locate.write(header + "# collation\tneedle\thay\tLOCATE(needle, hay)\n")
    f_tables.write(header + "# values|order|group|minmax\tcollation\tset\t...\n")

    for coll in COLLATIONS:
        UCA["on"] = "unicode" in coll or "uca" in coll
        rng = random.Random("%d/%s" % (args.seed, coll))
        cs = charset_of(coll)
        print(coll, file=sys.stderr)

        strings = make_strings(cs, rng, N_STRINGS)
        # (The extra cases stay out of the pool LIKE and LOCATE draw from, so
        # that the random cases are the same with or without them.)
        pool = list(strings)
        if UCA["on"]:
            strings += [x.encode() for x in UCA_EXTRA_STRINGS]
        res = run_batched(cur, strings, lambda s: [
            b"HEX(WEIGHT_STRING(%s))" % sql_lit(coll, s), b"CHAR_LENGTH(%s)" % sql_lit(coll, s),
            b"HEX(UPPER(%s))" % sql_lit(coll, s), b"HEX(LOWER(%s))" % sql_lit(coll, s),
            b"HEX(LEFT(%s, 2))" % sql_lit(coll, s), b"HEX(RIGHT(%s, 2))" % sql_lit(coll, s),
            b"HEX(SUBSTRING(%s, 2, 3))" % sql_lit(coll, s)], 7)
        for s, r in zip(strings, res):
            f_strings.write("\t".join([coll, h(s)] + [fmt(x) for x in r]) + "\n")

        pairs = make_pairs(cs, rng, N_PAIRS_LIT)
        pool += [a for a, _ in pairs]
        if UCA["on"]:
            pairs += [(a.encode(), b.encode()) for a, b in UCA_EXTRA_PAIRS]
        res = run_batched(cur, pairs, lambda p: [
            b"%s = %s" % (sql_lit(coll, p[0]), sql_plain(coll, p[1])),
            b"STRCMP(%s, %s)" % (sql_lit(coll, p[0]), sql_plain(coll, p[1]))], 2)
        for (a, b), r in zip(pairs, res):
            f_compare.write("\t".join([coll, "lit", h(a), h(b)] + [fmt(x) for x in r]) + "\n")

        # The same comparisons between column values (stored bytes).
        col_pairs = pairs[:N_PAIRS_COL]
        cur.execute("DROP TABLE IF EXISTS p")
        cur.execute("CREATE TABLE p (id INT PRIMARY KEY, a %s, b %s)" % (column_type(coll), column_type(coll)))
        for i, (a, b) in enumerate(col_pairs):
            cur.execute(b"INSERT INTO p VALUES (%d, %s, %s)" % (i, sql_plain(coll, a), sql_plain(coll, b)))
        cur.execute("SELECT HEX(a), HEX(b), a = b, STRCMP(a, b) FROM p ORDER BY id")
        for ha, hb, eq, cmp in cur.fetchall():
            f_compare.write("\t".join([coll, "col", ha or "-", hb or "-", fmt(eq), fmt(cmp)]) + "\n")

        likes = make_like(cs, rng, N_LIKE, pool)

        def like_expr(c):
            v, p, e = c
            x = b"%s LIKE %s" % (sql_lit(coll, v), sql_plain(coll, p))
            if e is not None:
                x += b" ESCAPE " + sql_plain(coll, e)
            return [x]
        res = run_batched(cur, likes, like_expr, 1)
        for (v, p, e), r in zip(likes, res):
            esc = "default" if e is None else ("-" if e == b"" else h(e))
            f_like.write("\t".join([coll, h(v), h(p), esc, fmt(r[0])]) + "\n")

        locs = make_locate(cs, rng, N_LOCATE, pool)
        res = run_batched(cur, locs, lambda c: [
            b"LOCATE(%s, %s)" % (sql_lit(coll, c[0]), sql_plain(coll, c[1]))], 1)
        for (n, hay), r in zip(locs, res):
            f_locate.write("\t".join([coll, h(n), h(hay), fmt(r[0])]) + "\n")

        for set_no, vals in enumerate(make_sets(cs, rng)):
            cur.execute("DROP TABLE IF EXISTS t")
            cur.execute("CREATE TABLE t (id INT PRIMARY KEY, s %s)" % column_type(coll))
            for i, v in enumerate(vals):
                cur.execute(b"INSERT INTO t VALUES (%d, %s)" % (i, sql_plain(coll, v)))
            cur.execute("SELECT id, HEX(s) FROM t ORDER BY id")
            stored = " ".join("%d:%s" % (i, hx or "-") for i, hx in cur.fetchall())
            f_tables.write("values\t%s\t%d\t%s\n" % (coll, set_no, stored))
            cur.execute("SELECT id FROM t ORDER BY s, id")
            f_tables.write("order\t%s\t%d\t%s\n" % (coll, set_no, " ".join(str(r[0]) for r in cur.fetchall())))
            # The value GROUP BY shows for a group: with a temporary table
            # (as here: COUNT, MIN) it is the first row's; with a filesort
            # plan (GROUP_CONCAT) whichever row sorts first, which is not
            # specified. So the groups' members come from a second query.
            cur.execute("SELECT HEX(s), COUNT(*), MIN(id) FROM t GROUP BY s")
            shown = {first: hx for hx, _, first in cur.fetchall()}
            cur.execute("SELECT GROUP_CONCAT(id ORDER BY id) FROM t GROUP BY s")
            members = [r[0] for r in cur.fetchall()]
            groups = " ".join("%s:%s" % (shown[int(ids.split(",")[0])] or "-", ids) for ids in members)
            f_tables.write("group\t%s\t%d\t%s\n" % (coll, set_no, groups))
            cur.execute("SELECT HEX(MIN(s)), HEX(MAX(s)) FROM t")
            mn, mx = cur.fetchone()
            f_tables.write("minmax\t%s\t%d\t%s\t%s\n" % (coll, set_no, mn or "-", mx or "-"))

    cur.execute("DROP DATABASE quiver_collation_golden")
    for f in (f_strings, f_compare, f_like, f_locate, f_tables):
        f.close()
    print("wrote", args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
