//! String functions whose result size is known from their arguments
//! (REPEAT, LPAD / RPAD, SPACE, REVERSE, CONCAT_WS, SUBSTRING_INDEX): a first
//! pass sums the output bytes, the builder is allocated once at that size,
//! and each value is written into it piece by piece (no per-row String).
//! REPLACE, whose size needs the search, is bounded by its input's instead.
//!
//! Counts are in characters, as MySQL's; a result longer than
//! `max_allowed_packet` is NULL (MySQL's warning 1301), so no argument can
//! make a huge allocation.

use std::fmt::Write;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, Int64Array, StringArray};
use quiver_string_kernels::SubstringFinder;

/// MariaDB's default `max_allowed_packet`: longer results are NULL.
pub const MAX_RESULT_BYTES: usize = 16 * 1024 * 1024;

/// Byte offset of the end of the first `n` characters of `s`.
fn char_prefix_end(s: &str, n: usize) -> usize {
    if s.is_ascii() {
        return n.min(s.len());
    }
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

fn char_count(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Builds `rows` values: `size(i)` gives row i's byte length (None: NULL),
/// `write(i, out)` writes it.
fn build(
    rows: usize,
    size: impl Fn(usize) -> Option<usize>,
    mut write: impl FnMut(usize, &mut StringBuilder),
) -> ArrayRef {
    let total: usize = (0..rows).filter_map(&size).sum();
    let mut b = StringBuilder::with_capacity(rows, total);
    for i in 0..rows {
        match size(i) {
            None => b.append_null(),
            Some(_) => {
                write(i, &mut b);
                b.append_value("");
            }
        }
    }
    Arc::new(b.finish())
}

/// Within the result limit, else None (NULL).
fn limited(bytes: usize) -> Option<usize> {
    (bytes <= MAX_RESULT_BYTES).then_some(bytes)
}

/// REVERSE(s).
pub fn reverse(s: &StringArray) -> ArrayRef {
    build(
        s.len(),
        |i| s.is_valid(i).then(|| s.value(i).len()),
        |i, b| {
            let v = s.value(i);
            for c in v.chars().rev() {
                let _ = b.write_char(c);
            }
        },
    )
}

/// REPEAT(s, n): empty for n < 1.
pub fn repeat(s: &StringArray, n: &Int64Array) -> ArrayRef {
    let times = |i: usize| n.value(i).max(0) as usize;
    build(
        s.len(),
        |i| {
            if s.is_null(i) || n.is_null(i) {
                return None;
            }
            limited(s.value(i).len().checked_mul(times(i))?)
        },
        |i, b| {
            let v = s.value(i);
            for _ in 0..times(i) {
                let _ = b.write_str(v);
            }
        },
    )
}

/// SPACE(n): empty for n < 1.
pub fn space(n: &Int64Array) -> ArrayRef {
    build(
        n.len(),
        |i| {
            n.is_valid(i)
                .then(|| n.value(i).max(0) as usize)
                .and_then(limited)
        },
        |i, b| {
            for _ in 0..n.value(i).max(0) {
                let _ = b.write_char(' ');
            }
        },
    )
}

/// The padding of LPAD / RPAD for `s` to `n` characters with `pad`: the
/// number of pad characters to write and their bytes; None when padding is
/// needed but `pad` is empty (MySQL: NULL).
fn padding(s: &str, n: usize, pad: &str) -> Option<(usize, usize)> {
    let have = char_count(s);
    if have >= n {
        return Some((0, 0));
    }
    let need = n - have;
    if pad.is_empty() {
        return None;
    }
    let pad_chars = char_count(pad);
    let (whole, part) = (need / pad_chars, need % pad_chars);
    let bytes = whole.checked_mul(pad.len())? + char_prefix_end(pad, part);
    Some((need, bytes))
}

/// Writes `need` characters of `pad` repeated; nothing when none are
/// needed, whatever `pad` is (LPAD('abc', 1, '') cuts and pads with none).
fn write_padding(b: &mut StringBuilder, pad: &str, need: usize) {
    let pad_chars = char_count(pad);
    if need == 0 || pad_chars == 0 {
        return;
    }
    for _ in 0..need / pad_chars {
        let _ = b.write_str(pad);
    }
    let _ = b.write_str(&pad[..char_prefix_end(pad, need % pad_chars)]);
}

/// LPAD(s, n, pad) (`left`) / RPAD: s cut to its first n characters, or
/// padded to n with pad; NULL for n < 0 or an empty pad that is needed.
pub fn pad(s: &StringArray, n: &Int64Array, pad: &StringArray, left: bool) -> ArrayRef {
    let shape = |i: usize| -> Option<(usize, usize, usize)> {
        if s.is_null(i) || n.is_null(i) || pad.is_null(i) || n.value(i) < 0 {
            return None;
        }
        let (v, want) = (s.value(i), n.value(i) as usize);
        let keep = char_prefix_end(v, want);
        let (need, pad_bytes) = padding(v, want, pad.value(i))?;
        limited(keep + pad_bytes)?;
        Some((keep, need, keep + pad_bytes))
    };
    build(
        s.len(),
        |i| shape(i).map(|(_, _, bytes)| bytes),
        |i, b| {
            let (keep, need, _) = shape(i).expect("sized");
            let v = &s.value(i)[..keep];
            if left {
                write_padding(b, pad.value(i), need);
                let _ = b.write_str(v);
            } else {
                let _ = b.write_str(v);
                write_padding(b, pad.value(i), need);
            }
        },
    )
}

/// REPLACE(s, from, to): every non-overlapping occurrence of `from`, left
/// to right, byte-exact (MySQL's REPLACE ignores the collation). The result
/// is no longer than `s` when `to` is no longer than `from`, so the builder
/// allocated at the input's size holds it; only a longer `to` grows it (its
/// size is not known before searching). A `from` the same as the row
/// before's keeps its prepared searcher.
pub fn replace(s: &StringArray, from: &StringArray, to: &StringArray) -> ArrayRef {
    let input_bytes = (s.value_offsets()[s.len()] - s.value_offsets()[0]) as usize;
    let mut b = StringBuilder::with_capacity(s.len(), input_bytes);
    let mut finder: Option<SubstringFinder> = None;
    for i in 0..s.len() {
        if s.is_null(i) || from.is_null(i) || to.is_null(i) {
            b.append_null();
            continue;
        }
        let (v, f, t) = (s.value(i), from.value(i), to.value(i));
        if f.is_empty() {
            b.append_value(v);
            continue;
        }
        if finder.as_ref().is_none_or(|x| x.needle() != f.as_bytes()) {
            finder = Some(SubstringFinder::new(f.as_bytes()));
        }
        let finder = finder.as_ref().expect("prepared above");
        let mut rest = v;
        // A match of UTF-8 in UTF-8 starts and ends on character boundaries.
        while let Some(at) = finder.find(rest.as_bytes()) {
            let _ = b.write_str(&rest[..at]);
            let _ = b.write_str(t);
            rest = &rest[at + f.len()..];
        }
        b.append_value(rest);
    }
    Arc::new(b.finish())
}

/// CONCAT_WS(sep, parts...): the non-NULL parts joined by sep; NULL when
/// sep is.
pub fn concat_ws(sep: &StringArray, parts: &[&StringArray]) -> ArrayRef {
    let size = |i: usize| -> Option<usize> {
        if sep.is_null(i) {
            return None;
        }
        let present: Vec<usize> = parts
            .iter()
            .filter(|p| p.is_valid(i))
            .map(|p| p.value(i).len())
            .collect();
        let seps = present.len().saturating_sub(1) * sep.value(i).len();
        limited(present.iter().sum::<usize>() + seps)
    };
    build(sep.len(), size, |i, b| {
        let mut first = true;
        for p in parts.iter().filter(|p| p.is_valid(i)) {
            if !first {
                let _ = b.write_str(sep.value(i));
            }
            first = false;
            let _ = b.write_str(p.value(i));
        }
    })
}

/// The part of `s` SUBSTRING_INDEX keeps: before the `count`-th `delim`
/// from the start (count > 0), after the `-count`-th from the end (count
/// < 0); all of `s` when there are fewer; empty for count 0 or an empty
/// delim. Occurrences do not overlap and are matched byte for byte (case
/// matters whatever the collation, as in MySQL).
pub fn substring_index_of<'a>(s: &'a str, delim: &str, count: i64) -> &'a str {
    if count == 0 || delim.is_empty() {
        return "";
    }
    if count > 0 {
        let mut from = 0;
        for _ in 0..count {
            match s[from..].find(delim) {
                Some(at) => from += at + delim.len(),
                None => return s,
            }
        }
        &s[..from - delim.len()]
    } else {
        // From the end, counting the occurrences found left to right
        // without overlap (MariaDB: SUBSTRING_INDEX('aaa', 'aa', -1) is 'a').
        let starts: Vec<usize> = s.match_indices(delim).map(|(i, _)| i).collect();
        let k = count.unsigned_abs() as usize;
        if k > starts.len() {
            return s;
        }
        &s[starts[starts.len() - k] + delim.len()..]
    }
}

/// SUBSTRING_INDEX(s, delim, count).
pub fn substring_index(s: &StringArray, delim: &StringArray, count: &Int64Array) -> ArrayRef {
    let part = |i: usize| -> Option<&str> {
        if s.is_null(i) || delim.is_null(i) || count.is_null(i) {
            return None;
        }
        Some(substring_index_of(
            s.value(i),
            delim.value(i),
            count.value(i),
        ))
    };
    build(
        s.len(),
        |i| part(i).map(str::len),
        |i, b| {
            let _ = b.write_str(part(i).expect("sized"));
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: &[Option<&str>]) -> StringArray {
        StringArray::from(v.to_vec())
    }

    fn values(a: &ArrayRef) -> Vec<Option<String>> {
        let a = a.as_any().downcast_ref::<StringArray>().unwrap();
        a.iter().map(|v| v.map(str::to_string)).collect()
    }

    #[test]
    fn pads_cut_and_fill_in_characters() {
        let s = strs(&[Some("hi"), Some("héllo"), Some("x"), None, Some("ab")]);
        let n = Int64Array::from(vec![5, 3, 4, 2, -1]);
        let p = strs(&[Some("é-"), Some("*"), Some(""), Some("*"), Some("*")]);
        assert_eq!(
            values(&pad(&s, &n, &p, true)),
            [Some("é-éhi".into()), Some("hél".into()), None, None, None]
        );
        assert_eq!(
            values(&pad(&s, &n, &p, false))[0],
            Some("hié-é".to_string())
        );
    }

    #[test]
    fn repeat_space_reverse_and_the_size_limit() {
        let s = strs(&[Some("ab"), Some("é"), None, Some("x")]);
        let n = Int64Array::from(vec![3, 2, 1, i64::MAX]);
        assert_eq!(
            values(&repeat(&s, &n)),
            [Some("ababab".into()), Some("éé".into()), None, None]
        );
        assert_eq!(
            values(&space(&Int64Array::from(vec![2, -1]))),
            [Some("  ".into()), Some("".into())]
        );
        assert_eq!(
            values(&reverse(&strs(&[Some("aé€")])))[0],
            Some("€éa".into())
        );
    }

    #[test]
    fn concat_ws_skips_nulls() {
        let sep = strs(&[Some(","), None, Some("--")]);
        let a = strs(&[Some("a"), Some("a"), None]);
        let b = strs(&[None, Some("b"), Some("b")]);
        let c = strs(&[Some("c"), Some("c"), Some("c")]);
        assert_eq!(
            values(&concat_ws(&sep, &[&a, &b, &c])),
            [Some("a,c".into()), None, Some("b--c".into())]
        );
    }

    #[test]
    fn substring_index_counts_from_either_end() {
        let s = "www.mysql.com";
        assert_eq!(substring_index_of(s, ".", 2), "www.mysql");
        assert_eq!(substring_index_of(s, ".", -2), "mysql.com");
        assert_eq!(substring_index_of(s, ".", 5), s);
        assert_eq!(substring_index_of(s, ".", -5), s);
        assert_eq!(substring_index_of(s, ".", 0), "");
        assert_eq!(substring_index_of(s, "", 1), "");
        assert_eq!(substring_index_of("aaa", "aa", 1), "");
        assert_eq!(substring_index_of("aaa", "aa", -1), "a");
    }

    proptest::proptest! {
        /// REPLACE agrees with the standard library's `str::replace`, row
        /// by row, with the searcher kept across rows of the same `from`.
        #[test]
        fn replace_matches_str_replace(
            rows in proptest::collection::vec(("[abé ]{0,12}", "[abé]{0,3}", "[xé]{0,4}"), 0..20),
            same_from in proptest::bool::ANY,
        ) {
            let s = StringArray::from_iter_values(rows.iter().map(|r| r.0.as_str()));
            let from = StringArray::from_iter_values(rows.iter().map(|r| if same_from { "ab" } else { r.1.as_str() }));
            let to = StringArray::from_iter_values(rows.iter().map(|r| r.2.as_str()));
            let got = replace(&s, &from, &to);
            let got = got.as_any().downcast_ref::<StringArray>().expect("strings");
            for i in 0..s.len() {
                let f = from.value(i);
                let want = if f.is_empty() { s.value(i).to_string() } else { s.value(i).replace(f, to.value(i)) };
                proptest::prop_assert_eq!(got.value(i), want.as_str());
            }
        }
    }

    #[test]
    fn replace_keeps_nulls() {
        let got = replace(
            &strs(&[Some("aXa"), None, Some("aXa"), Some("aXa")]),
            &strs(&[Some("X"), Some("X"), None, Some("X")]),
            &strs(&[Some("yy"), Some("y"), Some("y"), None]),
        );
        let got = got.as_any().downcast_ref::<StringArray>().expect("strings");
        assert_eq!(got.value(0), "ayya");
        assert!(got.is_null(1) && got.is_null(2) && got.is_null(3));
    }
}
