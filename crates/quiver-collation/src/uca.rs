//! The UCA collations: `utf8mb4_unicode_ci` (UCA 4.0.0),
//! `utf8mb4_unicode_520_ci` (5.2.0), `utf8mb4_uca1400_ai_ci` (14.0.0), their
//! utf8mb3 and NO PAD forms, and MySQL 8's `utf8mb4_0900_ai_ci` (9.0.0, NO
//! PAD).
//!
//! All of them compare at the primary level only (as MariaDB's `_ci` /
//! `_ai_ci` UCA collations do): a string is the sequence of the primary
//! weights (16 bits each) of its characters, where a character may weigh
//! nothing (ignorable: controls, U+00AD, combining marks), one weight, or
//! several (expansions: 'ß' = 's' 's', 'Æ' = 'A' 'E'), some character
//! sequences weigh as one (contractions: uca1400 and 0900's DUCET ones,
//! 'и' + U+0306 = 'й'), and characters the table does not list get implicit
//! weights (two per character: Han, unassigned). An invalid byte weighs
//! 0xFFFF (above everything), as in MariaDB, and `WEIGHT_STRING` keeps going
//! past it. Under PAD SPACE the shorter weight sequence is extended with the
//! space's weight; under NO PAD (the `_nopad_` forms, 0900) a proper prefix
//! sorts first.
//!
//! The tables are `uca_tables.bin`, written by `scripts/collation/gen_uca.py`
//! (format documented there): MariaDB's `WEIGHT_STRING` of every code point
//! and DUCET contraction for the MariaDB collations, DUCET 9.0.0 through a
//! reference implementation for 0900. They are parsed once, on first use.
//!
//! `LIKE` compares character by character (no contractions, no ignoring):
//! two characters match iff their weight sequences are equal, which is what
//! MariaDB's UCA `LIKE` does ('é' LIKE 'E', not 'ß' LIKE 's').

use std::cmp::Ordering;
use std::sync::OnceLock;

use quiver_string_kernels as sk;

use crate::charset::{decode_utf8, is_bad, push_utf8, utf8_char_length, utf8_len, Charset};
use crate::collator::{Collator, LIKE_POISON};
use crate::collators::common::find_bytes;
use crate::collators::utf8::Utf8Bin;
use crate::constant::CollatedConstant;
use crate::hash::{self, StreamHasher};
use crate::info::CollationKind;
use crate::simple::utf8_boundary_back;

/// Which weight table: the order of the tables in `uca_tables.bin`.
pub const UCA400: u8 = 0;
pub const UCA520: u8 = 1;
pub const UCA1400: u8 = 2;
pub const UCA900: u8 = 3;
const TABLE_NAMES: [&str; 4] = ["uca400", "uca520", "uca1400", "uca900"];

/// The weight of an invalid byte: above every character, as MariaDB weighs it.
pub const BAD_WEIGHT: u16 = 0xFFFF;

const NPAGES: usize = 0x110000 >> 8;
const TAG_SHIFT: u32 = 30;
const TAG_SEQ: u32 = 0;
const TAG_ONE: u32 = 1;
const STARTER: u32 = 1 << 29;
const NO_CP: u32 = u32::MAX;

/// One collation's weight and case tables (see the module doc).
pub(crate) struct Table {
    pool: &'static [u16],
    pages: &'static [u32],
    /// Implicit weight kinds: (base, start of range).
    implicit: Vec<(u32, u32)>,
    weight_page: Vec<u16>,
    /// (cp0, cp1, cp2 or NO_CP) -> entry, sorted.
    contractions: Vec<([u32; 3], u32)>,
    upper_page: Vec<u16>,
    lower_page: Vec<u16>,
    /// The weight of each ASCII byte when it is exactly one weight; 0
    /// otherwise (ignorable, expansion: those take the general path).
    pub(crate) ascii_weight: [u16; 128],
    /// Bit `b`: ASCII byte `b` starts a contraction (then its weight holds
    /// only when an ASCII byte or the end follows: no contraction has an
    /// ASCII second character).
    ascii_starter: u128,
    /// For `LIKE`: per ASCII byte, the smallest ASCII byte with the same
    /// like key (so 'a' -> 'A', every ignorable control -> 0x00).
    like_classes: [u8; 128],
    /// The like keys of ASCII bytes and their classes, sorted by key.
    class_of_key: Vec<(u32, u8)>,
    /// The same for one-weight keys, indexed by the weight (0xFF: none),
    /// so that folding a non-ASCII character is one lookup.
    class_of_weight: Vec<u8>,
    /// The weight of U+0020, which PAD SPACE pads with.
    pub(crate) space: u16,
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> &[u8] {
        let s = self
            .b
            .get(self.pos..self.pos + n)
            .expect("uca_tables.bin is truncated (regenerate it with gen_uca.py)");
        self.pos += n;
        s
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.bytes(4).try_into().expect("4 bytes"))
    }
    fn u16s(&mut self, n: usize) -> Vec<u16> {
        self.bytes(2 * n)
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    }
    fn u32s(&mut self, n: usize) -> Vec<u32> {
        self.bytes(4 * n)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }
}

static TABLE_BYTES: &[u8] = include_bytes!("uca_tables.bin");
static TABLES: OnceLock<Vec<Table>> = OnceLock::new();

fn parse_tables() -> Vec<Table> {
    let mut r = Reader {
        b: TABLE_BYTES,
        pos: 0,
    };
    assert_eq!(r.bytes(4), b"QUCA", "uca_tables.bin: bad magic");
    assert_eq!(r.u32(), 1, "uca_tables.bin: unknown format");
    let n = r.u32() as usize;
    let pool: &'static [u16] = Box::leak(r.u16s(n).into_boxed_slice());
    r.pos = r.pos.next_multiple_of(4);
    let n = r.u32() as usize;
    let pages: &'static [u32] = Box::leak(r.u32s(n * 256).into_boxed_slice());
    let ntables = r.u32() as usize;
    assert_eq!(ntables, TABLE_NAMES.len(), "uca_tables.bin: tables");
    let mut tables = Vec::with_capacity(ntables);
    for want in TABLE_NAMES {
        let name = r.bytes(16);
        assert!(
            name.starts_with(want.as_bytes()),
            "uca_tables.bin: table {want} expected"
        );
        let nk = r.u32() as usize;
        let implicit = (0..nk).map(|_| (r.u32(), r.u32())).collect();
        let weight_page = r.u16s(NPAGES);
        let nc = r.u32() as usize;
        let mut contractions: Vec<([u32; 3], u32)> = (0..nc)
            .map(|_| ([r.u32(), r.u32(), r.u32()], r.u32()))
            .collect();
        contractions.sort_unstable();
        let upper_page = r.u16s(NPAGES);
        let lower_page = r.u16s(NPAGES);
        let mut t = Table {
            pool,
            pages,
            implicit,
            weight_page,
            contractions,
            upper_page,
            lower_page,
            ascii_weight: [0; 128],
            ascii_starter: 0,
            like_classes: [0; 128],
            class_of_key: Vec::new(),
            class_of_weight: vec![0xFF; 0x1_0000],
            space: 0,
        };
        for b in 0..128u32 {
            let e = t.entry(b);
            if e >> TAG_SHIFT == TAG_ONE {
                t.ascii_weight[b as usize] = e as u16;
                if e & STARTER != 0 {
                    t.ascii_starter |= 1 << b;
                }
            }
        }
        t.space = t.ascii_weight[usize::from(b' ')];
        for b in 0..128u32 {
            let key = t.key_of(t.entry(b), b);
            let class = (0..=b)
                .find(|&x| t.key_of(t.entry(x), x) == key)
                .unwrap_or(b) as u8;
            t.like_classes[b as usize] = class;
            if class == b as u8 {
                t.class_of_key.push((key, class));
                if key < 0x1_0000 {
                    t.class_of_weight[key as usize] = class;
                }
            }
        }
        t.class_of_key.sort_unstable();
        assert!(
            t.space != 0,
            "uca_tables.bin: the space must weigh one weight"
        );
        tables.push(t);
    }
    tables
}

/// The weight table `T` (parsed on first use).
#[inline(always)]
pub(crate) fn table(t: u8) -> &'static Table {
    &TABLES.get_or_init(parse_tables)[usize::from(t)]
}

/// The weights one table entry stands for, at most two of them inline.
enum Weights {
    None,
    One(u16),
    Two(u16, u16),
    Seq(&'static [u16]),
}

impl Table {
    #[inline(always)]
    fn entry(&self, cp: u32) -> u32 {
        let page = usize::from(self.weight_page[(cp >> 8) as usize]);
        self.pages[page * 256 + (cp & 0xFF) as usize]
    }

    #[inline(always)]
    fn weights(&self, e: u32, cp: u32) -> Weights {
        match e >> TAG_SHIFT {
            TAG_ONE => Weights::One(e as u16),
            TAG_SEQ => {
                let n = ((e >> 24) & 0x1F) as usize;
                let off = (e & 0xFF_FFFF) as usize;
                match n {
                    0 => Weights::None,
                    _ => Weights::Seq(&self.pool[off..off + n]),
                }
            }
            _ => {
                let (base, start) = self.implicit[(e & 0xFF) as usize];
                let d = cp.wrapping_sub(start);
                Weights::Two((base + (d >> 15)) as u16, ((d & 0x7FFF) | 0x8000) as u16)
            }
        }
    }

    /// The contraction starting with `cp0` followed by the characters at the
    /// start of `rest`, longest first: its entry and how many bytes of
    /// `rest` it takes.
    #[cold]
    fn contraction<const MB4: bool>(&self, cp0: u32, rest: &[u8]) -> Option<(u32, usize)> {
        if rest.is_empty() {
            return None;
        }
        let (cp1, l1) = decode_utf8::<MB4>(rest);
        if is_bad(cp1) {
            return None;
        }
        if l1 < rest.len() {
            let (cp2, l2) = decode_utf8::<MB4>(&rest[l1..]);
            if !is_bad(cp2) {
                if let Some(e) = self.find_contraction([cp0, cp1, cp2]) {
                    return Some((e, l1 + l2));
                }
            }
        }
        self.find_contraction([cp0, cp1, NO_CP]).map(|e| (e, l1))
    }

    fn find_contraction(&self, key: [u32; 3]) -> Option<u32> {
        self.contractions
            .binary_search_by(|(k, _)| k.cmp(&key))
            .ok()
            .map(|i| self.contractions[i].1)
    }

    /// The like key of a character with entry `e` (see `Collator::like_key`).
    #[inline]
    fn key_of(&self, e: u32, cp: u32) -> u32 {
        match self.weights(e, cp) {
            Weights::None => KEY_IGNORABLE,
            Weights::One(w) => u32::from(w),
            Weights::Two(w1, w2) => KEY_IMPLICIT | (u32::from(w1 & 0xFF) << 16) | u32::from(w2),
            // Expansions are stored once per distinct sequence: its pool
            // offset names it.
            Weights::Seq(seq) => {
                KEY_SEQ + (seq.as_ptr() as usize - self.pool.as_ptr() as usize) as u32 / 2
            }
        }
    }

    fn has_contractions(&self) -> bool {
        !self.contractions.is_empty()
    }

    /// The weight of the ASCII byte `s[i]` when it is one weight on its own
    /// there (not the start of a contraction with what follows); 0 if not.
    #[inline(always)]
    pub(crate) fn ascii_weight_at(&self, s: &[u8], i: usize) -> u16 {
        let b = s[i];
        let w = self.ascii_weight[usize::from(b)];
        if self.ascii_starter >> b & 1 != 0 && s.get(i + 1).is_some_and(|&n| n >= 0x80) {
            return 0;
        }
        w
    }

    /// Whether the character at `s[p..]` starts a contraction.
    fn starts_contraction<const MB4: bool>(&self, s: &[u8], p: usize) -> bool {
        let (cp, _) = decode_utf8::<MB4>(&s[p..]);
        !is_bad(cp) && self.entry(cp) & STARTER != 0 && self.entry(cp) >> TAG_SHIFT < 2
    }

    /// The entry of the first character (or contraction) of a non-empty `s`
    /// and its length in bytes; `None` for an invalid byte.
    #[inline(always)]
    fn char_entry<const MB4: bool>(&self, s: &[u8]) -> (Option<(u32, u32)>, usize) {
        let (cp, len) = decode_utf8::<MB4>(s);
        if is_bad(cp) {
            return (None, 1);
        }
        let e = self.entry(cp);
        if e & STARTER != 0 && e >> TAG_SHIFT < 2 {
            if let Some((ce, extra)) = self.contraction::<MB4>(cp, &s[len..]) {
                return (Some((ce, cp)), len + extra);
            }
        }
        (Some((e, cp)), len)
    }

    #[inline]
    fn case(&self, pages: &[u16], cp: u32) -> u32 {
        match pages.get((cp >> 8) as usize) {
            Some(&p) if p != u16::MAX => self.pages[usize::from(p) * 256 + (cp & 0xFF) as usize],
            _ => cp,
        }
    }
}

/// The primary weights of a string, one at a time.
pub(crate) struct Scanner<'a, const MB4: bool> {
    t: &'static Table,
    s: &'a [u8],
    pos: usize,
    /// The rest of an expansion being read.
    pend: &'static [u16],
    /// The second weight of an implicit pair being read (0: none; implicit
    /// second weights have bit 15 set).
    pend2: u16,
}

impl<'a, const MB4: bool> Scanner<'a, MB4> {
    #[inline(always)]
    pub(crate) fn new(t: &'static Table, s: &'a [u8], pos: usize) -> Self {
        Scanner {
            t,
            s,
            pos,
            pend: &[],
            pend2: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn next(&mut self) -> Option<u16> {
        if let Some((&w, rest)) = self.pend.split_first() {
            self.pend = rest;
            return Some(w);
        }
        if self.pend2 != 0 {
            let w = self.pend2;
            self.pend2 = 0;
            return Some(w);
        }
        loop {
            let s = self.s;
            let &b = s.get(self.pos)?;
            if b < 0x80 {
                let w = self.t.ascii_weight_at(s, self.pos);
                if w != 0 {
                    self.pos += 1;
                    return Some(w);
                }
            }
            let (entry, len) = self.t.char_entry::<MB4>(&s[self.pos..]);
            self.pos += len;
            let Some((e, cp)) = entry else {
                return Some(BAD_WEIGHT);
            };
            match self.t.weights(e, cp) {
                Weights::None => continue,
                Weights::One(w) => return Some(w),
                Weights::Two(w1, w2) => {
                    self.pend2 = w2;
                    return Some(w1);
                }
                Weights::Seq(seq) => {
                    self.pend = &seq[1..];
                    return Some(seq[0]);
                }
            }
        }
    }
}

/// Order of the rest of a scanner (whose next weight is `first`) against
/// endless padding spaces.
#[inline]
fn rest_vs_pad<const MB4: bool>(first: u16, sc: &mut Scanner<'_, MB4>, space: u16) -> Ordering {
    let mut w = first;
    loop {
        if w != space {
            return w.cmp(&space);
        }
        match sc.next() {
            Some(x) => w = x,
            None => return Ordering::Equal,
        }
    }
}

/// Order of the weights of `a[i..]` and `b[j..]`, with the pad rule.
#[inline]
fn cmp_scanners<const MB4: bool, const PAD: bool>(
    mut sa: Scanner<'_, MB4>,
    mut sb: Scanner<'_, MB4>,
) -> Ordering {
    let space = sa.t.space;
    loop {
        match (sa.next(), sb.next()) {
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
            }
            (None, None) => return Ordering::Equal,
            (Some(x), None) => {
                return if PAD {
                    rest_vs_pad(x, &mut sa, space)
                } else {
                    Ordering::Greater
                }
            }
            (None, Some(y)) => {
                return if PAD {
                    rest_vs_pad(y, &mut sb, space).reverse()
                } else {
                    Ordering::Less
                }
            }
        }
    }
}

/// Start of the character before the boundary `q` of `s` (`q > 0`), as the
/// forward decoder splits `s`: a lead byte always starts a character, so
/// the previous character is the one whose lead decodes to end at `q`, else
/// the single (invalid or ASCII) byte before `q`.
fn prev_char<const MB4: bool>(s: &[u8], q: usize) -> usize {
    if s[q - 1] < 0x80 {
        return q - 1;
    }
    for k in 2..=4.min(q) {
        if decode_utf8::<MB4>(&s[q - k..q]).1 == k {
            return q - k;
        }
    }
    q - 1
}

/// Where to start comparing `a` and `b`, equal in their first `m` bytes: a
/// character boundary at or before `m` that no contraction crosses (0 when
/// the characters before it could start one that reaches past `m`).
#[inline]
fn safe_start<const MB4: bool>(t: &Table, a: &[u8], b: &[u8], m: usize) -> usize {
    let q = utf8_boundary_back(&a[..m]);
    if q == 0 || !t.has_contractions() {
        return q;
    }
    // No contraction has an ASCII second or third character (checked by
    // the generator), so an ASCII character (or the end) at q in both ends
    // any contraction before it.
    let ascii_at = |s: &[u8]| s.get(q).is_none_or(|&x| x < 0x80);
    if ascii_at(a) && ascii_at(b) {
        return q;
    }
    let p1 = prev_char::<MB4>(a, q);
    let p2 = if p1 > 0 { prev_char::<MB4>(a, p1) } else { p1 };
    if t.starts_contraction::<MB4>(a, p1) || t.starts_contraction::<MB4>(a, p2) {
        0
    } else {
        q
    }
}

/// The UCA collations: `T` selects the weight table ([`UCA400`],
/// [`UCA520`], [`UCA1400`], [`UCA900`]), `MB4` utf8mb4 (else utf8mb3), `PAD`
/// PAD SPACE (else NO PAD).
#[derive(Clone, Copy, Debug, Default)]
pub struct Uca<const T: u8, const MB4: bool, const PAD: bool>;

impl<const T: u8, const MB4: bool, const PAD: bool> Uca<T, MB4, PAD> {
    #[inline(always)]
    fn t() -> &'static Table {
        table(T)
    }

    /// The order of the first weights when both strings start with ASCII
    /// characters of one weight each that differ (then the strings order
    /// so, padding or not).
    #[inline(always)]
    fn first_ascii_order(t: &Table, a: &[u8], b: &[u8]) -> Option<Ordering> {
        let (&x, &y) = (a.first()?, b.first()?);
        if x == y || x >= 0x80 || y >= 0x80 {
            return None;
        }
        let (wx, wy) = (t.ascii_weight_at(a, 0), t.ascii_weight_at(b, 0));
        (wx != 0 && wy != 0 && wx != wy).then(|| wx.cmp(&wy))
    }

    /// Compare from the first difference: common bytes are skipped with the
    /// SIMD kernel, ASCII characters that weigh one weight each are compared
    /// through the byte map, the rest by the weight scanners.
    #[inline]
    fn cmp(a: &[u8], b: &[u8]) -> Ordering {
        let t = Self::t();
        if let Some(o) = Self::first_ascii_order(t, a, b) {
            return o;
        }
        let m = sk::mismatch(a, b);
        if m == a.len() && m == b.len() {
            return Ordering::Equal;
        }
        let mut i = safe_start::<MB4>(t, a, b, m);
        // Both sides have produced the same weights so far, one per byte.
        while i < a.len() && i < b.len() {
            let (x, y) = (a[i], b[i]);
            if x >= 0x80 || y >= 0x80 {
                break;
            }
            let (wx, wy) = (t.ascii_weight_at(a, i), t.ascii_weight_at(b, i));
            if wx == 0 || wy == 0 {
                break;
            }
            if wx != wy {
                return wx.cmp(&wy);
            }
            i += 1;
        }
        cmp_scanners::<MB4, PAD>(Scanner::new(t, a, i), Scanner::new(t, b, i))
    }

    /// Equality of the weights with NO PAD (what `LOCATE` compares).
    fn eq_nopad(a: &[u8], b: &[u8]) -> bool {
        if a == b {
            return true;
        }
        let t = Self::t();
        let (mut sa, mut sb) = (Scanner::<MB4>::new(t, a, 0), Scanner::<MB4>::new(t, b, 0));
        loop {
            match (sa.next(), sb.next()) {
                (Some(x), Some(y)) if x == y => {}
                (None, None) => return true,
                _ => return false,
            }
        }
    }

    /// Calls `f` with every weight of `s`, trailing padding-equivalent
    /// weights dropped under PAD SPACE (the stream equality hashes).
    #[inline]
    fn for_each_weight(s: &[u8], f: impl FnMut(u16)) {
        let s = if PAD { sk::trim_end_spaces(s) } else { s };
        Self::for_each_weight_from(s, 0, f);
    }

    /// [`Self::for_each_weight`] of `s[i..]` (`s` already trimmed of 0x20).
    #[inline]
    fn for_each_weight_from(s: &[u8], i: usize, mut f: impl FnMut(u16)) {
        let t = Self::t();
        let mut sc = Scanner::<MB4>::new(t, s, i);
        let mut spaces = 0usize;
        while let Some(w) = sc.next() {
            if PAD && w == t.space {
                spaces += 1;
                continue;
            }
            for _ in 0..spaces {
                f(t.space);
            }
            spaces = 0;
            f(w);
        }
    }

    fn case_len(s: &[u8], upper: bool) -> usize {
        if sk::is_ascii(s) {
            return s.len();
        }
        let t = Self::t();
        let pages = if upper { &t.upper_page } else { &t.lower_page };
        let mut n = 0;
        let mut i = 0;
        while i < s.len() {
            let (cp, l) = decode_utf8::<MB4>(&s[i..]);
            if is_bad(cp) {
                break;
            }
            n += utf8_len(t.case(pages, cp));
            i += l;
        }
        n
    }

    fn case_map(s: &[u8], upper: bool, out: &mut Vec<u8>) {
        let t = Self::t();
        let pages = if upper { &t.upper_page } else { &t.lower_page };
        if sk::is_ascii(s) && (0..128u32).all(|b| t.case(pages, b) == ascii_case(b, upper)) {
            let start = out.len();
            out.extend_from_slice(s);
            if upper {
                sk::ascii_upper_in_place(&mut out[start..]);
            } else {
                out[start..].make_ascii_lowercase();
            }
            return;
        }
        out.reserve(Self::case_len(s, upper));
        let mut i = 0;
        while i < s.len() {
            let (cp, l) = decode_utf8::<MB4>(&s[i..]);
            if is_bad(cp) {
                break;
            }
            push_utf8(out, t.case(pages, cp));
            i += l;
        }
    }
}

fn ascii_case(b: u32, upper: bool) -> u32 {
    let c = b as u8;
    u32::from(if upper {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    })
}

/// Like keys of characters that do not weigh exactly one weight.
const KEY_IGNORABLE: u32 = 0x0100_0000;
const KEY_IMPLICIT: u32 = 0x0200_0000;
const KEY_SEQ: u32 = 0x0400_0000;
/// Like key of a supplementary character under UCA 4.0.0 (`| cp`).
const KEY_SUPPLEMENTARY: u32 = 0x0800_0000;

impl<const T: u8, const MB4: bool, const PAD: bool> Collator for Uca<T, MB4, PAD> {
    const KIND: CollationKind = match (T, MB4, PAD) {
        (UCA400, true, true) => CollationKind::Utf8mb4UnicodeCi,
        (UCA400, false, true) => CollationKind::Utf8mb3UnicodeCi,
        (UCA520, true, true) => CollationKind::Utf8mb4Unicode520Ci,
        (UCA520, false, true) => CollationKind::Utf8mb3Unicode520Ci,
        (UCA1400, true, true) => CollationKind::Utf8mb4Uca1400AiCi,
        (UCA1400, false, true) => CollationKind::Utf8mb3Uca1400AiCi,
        (UCA400, true, false) => CollationKind::Utf8mb4UnicodeNopadCi,
        (UCA400, false, false) => CollationKind::Utf8mb3UnicodeNopadCi,
        (UCA520, true, false) => CollationKind::Utf8mb4Unicode520NopadCi,
        (UCA520, false, false) => CollationKind::Utf8mb3Unicode520NopadCi,
        (UCA1400, true, false) => CollationKind::Utf8mb4Uca1400NopadAiCi,
        (UCA1400, false, false) => CollationKind::Utf8mb3Uca1400NopadAiCi,
        (UCA900, true, false) => CollationKind::Utf8mb40900AiCi,
        _ => panic!("no such UCA collation"),
    };
    const PAD_SPACE: bool = PAD;
    const CHARSET: Charset = if MB4 {
        Charset::Utf8mb4
    } else {
        Charset::Utf8mb3
    };

    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        Self::cmp(a, b)
    }

    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        if Self::first_ascii_order(Self::t(), a, b).is_some() {
            return false;
        }
        let (ta, tb) = if PAD {
            (sk::trim_end_spaces(a), sk::trim_end_spaces(b))
        } else {
            (a, b)
        };
        if ta.len() == tb.len() && sk::bytes_eq(ta, tb) {
            return true;
        }
        Self::cmp(a, b).is_eq()
    }

    fn hash(&self, s: &[u8], seed: u64) -> u64 {
        // The stream: every weight as two bytes (high first), trailing
        // padding-equivalent weights dropped under PAD SPACE. A leading run
        // of ASCII characters of one weight each goes in four weights (one
        // word) at a time, as long as a word does not end in a space weight
        // (which could turn out to be trailing).
        let t = Self::t();
        let s = if PAD { sk::trim_end_spaces(s) } else { s };
        let mut h = StreamHasher::new(seed);
        let mut i = 0;
        while i + 4 <= s.len()
            && hash::word_is_ascii(u64::from(u32::from_le_bytes([
                s[i],
                s[i + 1],
                s[i + 2],
                s[i + 3],
            ])))
        {
            let w = [
                t.ascii_weight_at(s, i),
                t.ascii_weight_at(s, i + 1),
                t.ascii_weight_at(s, i + 2),
                t.ascii_weight_at(s, i + 3),
            ];
            if w.contains(&0) || (PAD && w[3] == t.space) {
                break;
            }
            let word = w.iter().enumerate().fold(0u64, |acc, (k, &x)| {
                acc | u64::from(x.swap_bytes()) << (16 * k)
            });
            h.write_word(word);
            i += 4;
        }
        Self::for_each_weight_from(s, i, |w| {
            h.write_byte((w >> 8) as u8);
            h.write_byte(w as u8);
        });
        h.finish()
    }

    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>) {
        // WEIGHT_STRING: every primary weight, big-endian, trailing spaces
        // and invalid bytes (0xFFFF) included.
        out.reserve(2 * s.len());
        let mut sc = Scanner::<MB4>::new(Self::t(), s, 0);
        while let Some(w) = sc.next() {
            out.extend_from_slice(&w.to_be_bytes());
        }
    }

    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        // Weights big-endian. Under PAD SPACE a space weight is followed by a
        // byte saying whether the next other weight sorts below (0) or above
        // (2) the space, the end by the space and 1 (the padding); trailing
        // spaces are dropped. Units stay aligned: two units that differ in
        // their first two bytes decide, equal space units compare flags.
        if !PAD {
            self.sort_key(s, out);
            return;
        }
        let t = Self::t();
        let space = t.space.to_be_bytes();
        let mut spaces = 0usize;
        Self::for_each_weight(s, |w| {
            if w == t.space {
                spaces += 1;
                return;
            }
            let flag = if w < t.space { 0 } else { 2 };
            for _ in 0..spaces {
                out.extend_from_slice(&[space[0], space[1], flag]);
            }
            spaces = 0;
            out.extend_from_slice(&w.to_be_bytes());
        });
        out.extend_from_slice(&[space[0], space[1], 1]);
    }

    fn char_length(&self, s: &[u8]) -> usize {
        utf8_char_length::<MB4>(s)
    }

    fn upper_len(&self, s: &[u8]) -> usize {
        Self::case_len(s, true)
    }
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        Self::case_map(s, true, out);
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        Self::case_len(s, false)
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        Self::case_map(s, false, out);
    }

    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        // As MariaDB: at each character boundary of hay (decoded within the
        // bytes that can still start a match), the next needle.len() bytes
        // equal to needle by weights with NO PAD.
        if needle.is_empty() {
            return Some(0);
        }
        let n = needle.len();
        if n > hay.len() {
            return None;
        }
        let limit = hay.len() - n + 1;
        let mut i = 0;
        while i < limit {
            if Self::eq_nopad(&hay[i..i + n], needle) {
                return Some(i);
            }
            i += decode_utf8::<MB4>(&hay[i..limit]).1;
        }
        None
    }

    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        let t = Self::t();
        let (cp, len) = decode_utf8::<MB4>(s);
        if is_bad(cp) {
            return (LIKE_POISON, 1);
        }
        if T == UCA400 && cp > 0xFFFF {
            // MariaDB's 4.0.0 table covers the BMP: beyond it every
            // character weighs 0xFFFD in comparisons, but LIKE matches a
            // supplementary character only with itself.
            return (KEY_SUPPLEMENTARY | cp, len);
        }
        (t.key_of(t.entry(cp), cp), len)
    }

    fn like_ascii_classes(&self) -> Option<&'static [u8; 128]> {
        Some(&Self::t().like_classes)
    }

    #[inline]
    fn like_class_of_key(&self, key: u32) -> Option<u8> {
        let t = Self::t();
        if let Some(&class) = t.class_of_weight.get(key as usize) {
            return (class != 0xFF).then_some(class);
        }
        let m = &t.class_of_key;
        m.binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|i| m[i].1)
    }

    fn eq_const(&self, c: &CollatedConstant, v: &[u8]) -> bool {
        self.eq(v, c.bytes())
    }
}

/// MySQL 8's `utf8mb4_0900_bin`: code point order, NO PAD, and a
/// `WEIGHT_STRING` that is the UTF-8 bytes themselves (MySQL WL#13054);
/// otherwise `utf8mb4_nopad_bin`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Utf8mb40900Bin;

type NopadBin = Utf8Bin<true, false>;

impl Collator for Utf8mb40900Bin {
    const KIND: CollationKind = CollationKind::Utf8mb40900Bin;
    const PAD_SPACE: bool = false;
    const CHARSET: Charset = Charset::Utf8mb4;
    const BINARY_EQ: bool = true;

    #[inline]
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        NopadBin::default().compare(a, b)
    }
    #[inline]
    fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        NopadBin::default().eq(a, b)
    }
    #[inline]
    fn hash(&self, s: &[u8], seed: u64) -> u64 {
        NopadBin::default().hash(s, seed)
    }
    fn sort_key(&self, s: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(s);
    }
    fn normalized_key(&self, s: &[u8], out: &mut Vec<u8>) {
        NopadBin::default().normalized_key(s, out)
    }
    fn char_length(&self, s: &[u8]) -> usize {
        utf8_char_length::<true>(s)
    }
    fn upper_len(&self, s: &[u8]) -> usize {
        Uca::<UCA900, true, false>.upper_len(s)
    }
    fn to_upper(&self, s: &[u8], out: &mut Vec<u8>) {
        Uca::<UCA900, true, false>.to_upper(s, out)
    }
    fn lower_len(&self, s: &[u8]) -> usize {
        Uca::<UCA900, true, false>.lower_len(s)
    }
    fn to_lower(&self, s: &[u8], out: &mut Vec<u8>) {
        Uca::<UCA900, true, false>.to_lower(s, out)
    }
    fn locate(&self, needle: &[u8], hay: &[u8]) -> Option<usize> {
        match needle.first() {
            Some(&b) if b & 0xC0 != 0x80 => find_bytes(needle, hay),
            _ => NopadBin::default().locate(needle, hay),
        }
    }
    #[inline]
    fn like_key(&self, s: &[u8]) -> (u32, usize) {
        NopadBin::default().like_key(s)
    }
    #[inline]
    fn eq_const(&self, c: &CollatedConstant, v: &[u8]) -> bool {
        NopadBin::default().eq_const(c, v)
    }
}

/// `utf8mb4_unicode_ci`.
pub type Utf8mb4UnicodeCi = Uca<UCA400, true, true>;
/// `utf8mb3_unicode_ci` (`utf8_unicode_ci`).
pub type Utf8mb3UnicodeCi = Uca<UCA400, false, true>;
/// `utf8mb4_unicode_520_ci`.
pub type Utf8mb4Unicode520Ci = Uca<UCA520, true, true>;
/// `utf8mb3_unicode_520_ci` (`utf8_unicode_520_ci`).
pub type Utf8mb3Unicode520Ci = Uca<UCA520, false, true>;
/// `utf8mb4_uca1400_ai_ci` (MariaDB 10.10+).
pub type Utf8mb4Uca1400AiCi = Uca<UCA1400, true, true>;
/// `utf8mb3_uca1400_ai_ci` (`utf8_uca1400_ai_ci`).
pub type Utf8mb3Uca1400AiCi = Uca<UCA1400, false, true>;
/// `utf8mb4_unicode_nopad_ci`: `utf8mb4_unicode_ci` with NO PAD.
pub type Utf8mb4UnicodeNopadCi = Uca<UCA400, true, false>;
/// `utf8mb3_unicode_nopad_ci`.
pub type Utf8mb3UnicodeNopadCi = Uca<UCA400, false, false>;
/// `utf8mb4_unicode_520_nopad_ci`.
pub type Utf8mb4Unicode520NopadCi = Uca<UCA520, true, false>;
/// `utf8mb3_unicode_520_nopad_ci`.
pub type Utf8mb3Unicode520NopadCi = Uca<UCA520, false, false>;
/// `utf8mb4_uca1400_nopad_ai_ci`.
pub type Utf8mb4Uca1400NopadAiCi = Uca<UCA1400, true, false>;
/// `utf8mb3_uca1400_nopad_ai_ci`.
pub type Utf8mb3Uca1400NopadAiCi = Uca<UCA1400, false, false>;
/// `utf8mb4_0900_ai_ci` (MySQL 8).
pub type Utf8mb40900AiCi = Uca<UCA900, true, false>;

/// The plain version for the `naive` module and the tests: every primary
/// weight of `s`, one character (or contraction) at a time, without the
/// ASCII map.
pub(crate) fn naive_weights(t: u8, mb4: bool, s: &[u8]) -> Vec<u16> {
    let t = table(t);
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let (entry, len) = if mb4 {
            t.char_entry::<true>(&s[i..])
        } else {
            t.char_entry::<false>(&s[i..])
        };
        i += len;
        match entry {
            None => out.push(BAD_WEIGHT),
            Some((e, cp)) => match t.weights(e, cp) {
                Weights::None => {}
                Weights::One(w) => out.push(w),
                Weights::Two(a, b) => out.extend([a, b]),
                Weights::Seq(seq) => out.extend_from_slice(seq),
            },
        }
    }
    out
}

/// The space weight of a table (for the `naive` module).
pub(crate) fn space_weight(t: u8) -> u16 {
    table(t).space
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(t: u8, s: &str) -> Vec<u16> {
        naive_weights(t, true, s.as_bytes())
    }

    #[test]
    fn tables_parse_and_agree_with_mariadb_samples() {
        // Samples seen on MariaDB 10.11 (WEIGHT_STRING).
        assert_eq!(ws(UCA400, "a"), [0x0E33]);
        assert_eq!(ws(UCA520, "a"), [0x120F]);
        assert_eq!(ws(UCA1400, "a"), [0x2075]);
        assert_eq!(ws(UCA400, "中"), [0xFB40, 0xCE2D]);
        assert_eq!(ws(UCA400, "😀"), [0xFFFD]);
        assert_eq!(ws(UCA520, "😀"), [0xFBC3, 0xF600]);
        assert_eq!(ws(UCA1400, "😀"), [0x196C]);
        assert_eq!(ws(UCA1400, "и\u{306}"), ws(UCA1400, "й"));
        assert_ne!(ws(UCA400, "и\u{306}"), ws(UCA400, "й"));
        // Contractions newer than DUCET 10.0.0 (from 13.0.0): Lao prevowel
        // + a Unicode 12 consonant, Dives Akuru vowel sign E + virama.
        assert_eq!(ws(UCA1400, "\u{ec0}\u{e86}"), [0x337D, 0x33B3]);
        assert_eq!(ws(UCA1400, "\u{e86}\u{ec0}"), [0x337D, 0x33B3]);
        assert_eq!(ws(UCA1400, "\u{11935}\u{11930}").len(), 1);
        // DUCET 9.0.0: 'a' is [.1C47.0020.0002].
        assert_eq!(ws(UCA900, "a"), [0x1C47]);
        assert_eq!(ws(UCA900, "ß"), ws(UCA900, "ss"));
        for t in [UCA400, UCA520, UCA1400, UCA900] {
            assert_eq!([table(t).space], *ws(t, " "));
            assert_eq!(ws(t, "\u{1}"), Vec::<u16>::new());
        }
        // U+00AD weighs in 4.0.0 and 5.2.0 (MariaDB's tables), not later.
        assert_eq!(ws(UCA400, "\u{ad}"), [0x0220]);
        assert_eq!(ws(UCA1400, "\u{ad}"), Vec::<u16>::new());
    }

    /// Every pair of short strings over contraction parts: the fast compare
    /// (byte prefix skip, contraction-safe restart, ASCII map) against the
    /// plain weight sequences.
    #[test]
    fn compare_matches_plain_weights_around_contractions() {
        use crate::naive;
        use crate::Collation;
        let alphabet: [&str; 10] = [
            "a", "и", "\u{306}", "l", "\u{b7}", "\u{fb2}", "\u{f71}", " ", "\u{ec0}", "\u{e86}",
        ];
        let mut strings = vec![String::new()];
        for len in 1..=3 {
            let mut next = Vec::new();
            for s in strings.iter().filter(|s| s.chars().count() == len - 1) {
                for c in alphabet {
                    next.push(format!("{s}{c}"));
                }
            }
            strings.extend(next);
        }
        for name in [
            "utf8mb4_uca1400_ai_ci",
            "utf8mb4_uca1400_nopad_ai_ci",
            "utf8mb4_0900_ai_ci",
            "utf8mb4_unicode_ci",
        ] {
            let c = Collation::from_name(name).unwrap();
            for a in &strings {
                for b in &strings {
                    let (a, b) = (a.as_bytes(), b.as_bytes());
                    assert_eq!(
                        c.compare(a, b),
                        naive::compare(c, a, b),
                        "{name} {:?} {:?}",
                        std::str::from_utf8(a),
                        std::str::from_utf8(b)
                    );
                }
            }
        }
    }

    /// The hash is the stream of the plain weights (trailing space weights
    /// dropped under PAD SPACE), whichever path feeds it.
    #[test]
    fn hash_is_the_plain_weight_stream() {
        fn reference<const T: u8, const MB4: bool, const PAD: bool>(s: &[u8]) -> u64 {
            let mut w = naive_weights(T, MB4, s);
            while PAD && w.last() == Some(&table(T).space) {
                w.pop();
            }
            let mut h = StreamHasher::new(9);
            for x in w {
                h.write_byte((x >> 8) as u8);
                h.write_byte(x as u8);
            }
            h.finish()
        }
        let parts: [&str; 12] = [
            "abcd", "ABCD", " ", "  x", "\u{1}", "l", "\u{b7}", "é", "\u{a0}", "ß", "\t", "wxyz",
        ];
        let mut n = 0u32;
        for a in parts {
            for b in parts {
                for c in parts {
                    let s = format!("{a}{b}{c}");
                    let s = s.as_bytes();
                    assert_eq!(
                        Utf8mb4UnicodeCi::default().hash(s, 9),
                        reference::<UCA400, true, true>(s)
                    );
                    assert_eq!(
                        Utf8mb4Uca1400AiCi::default().hash(s, 9),
                        reference::<UCA1400, true, true>(s)
                    );
                    assert_eq!(
                        Utf8mb40900AiCi::default().hash(s, 9),
                        reference::<UCA900, true, false>(s)
                    );
                    n += 1;
                }
            }
        }
        assert_eq!(n, 1728);
    }

    /// The NO PAD forms: the same weights, trailing spaces count (seen on
    /// MariaDB 10.11: `'a' = 'a '` is 0, `STRCMP('a', 'a\t')` is -1, and
    /// `'a' = 'a\0'` is 1, U+0000 being ignorable).
    #[test]
    fn nopad_forms_count_trailing_spaces() {
        use crate::Collation;
        for (pad, nopad) in [
            ("utf8mb4_unicode_ci", "utf8mb4_unicode_nopad_ci"),
            ("utf8mb3_unicode_520_ci", "utf8_unicode_520_nopad_ci"),
            ("utf8mb4_uca1400_ai_ci", "utf8mb4_uca1400_nopad_ai_ci"),
            ("utf8mb3_uca1400_ai_ci", "utf8mb3_uca1400_nopad_ai_ci"),
        ] {
            let (p, n) = (
                Collation::from_name(pad).unwrap(),
                Collation::from_name(nopad).unwrap(),
            );
            assert!(p.is_pad_space() && !n.is_pad_space(), "{nopad}");
            assert!(p.eq(b"a", b"A ") && !n.eq(b"a", b"A "), "{nopad}");
            assert_eq!(p.compare(b"a", b"a\t"), Ordering::Greater);
            assert_eq!(n.compare(b"a", b"a\t"), Ordering::Less);
            assert_eq!(n.compare(b"a ", b"A"), Ordering::Greater);
            assert!(n.eq(b"a", b"a\0") && n.eq("\u{e9}".as_bytes(), b"E"));
            assert_ne!(n.hash(b"a", 1), n.hash(b"a ", 1));
            assert_eq!(n.hash(b"a", 1), n.hash(b"A\0", 1));
            let (mut kp, mut kn) = (Vec::new(), Vec::new());
            p.sort_key(b"a ", &mut kp);
            n.sort_key(b"a ", &mut kn);
            assert_eq!(kp, kn, "{nopad}: WEIGHT_STRING is the PAD SPACE form's");
        }
    }

    #[test]
    fn prev_char_follows_the_forward_decoder() {
        let s = "aé😀\u{4e2d}".as_bytes();
        let mut bounds = vec![0];
        let mut i = 0;
        while i < s.len() {
            i += decode_utf8::<true>(&s[i..]).1;
            bounds.push(i);
        }
        for w in bounds.windows(2) {
            assert_eq!(prev_char::<true>(s, w[1]), w[0]);
        }
        assert_eq!(prev_char::<true>(b"a\xc3\xa9\xa9", 4), 3);
        assert_eq!(prev_char::<true>(b"a\xe2\x82", 3), 2);
    }
}
