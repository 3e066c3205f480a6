//! String functions over binary strings: each byte is a character, there
//! is no case and no padding (MariaDB: `LEFT(BINARY 'é', 1)` is `X'C3'`,
//! `REVERSE(BINARY 'é')` `X'A9C3'`, `TRIM` removes 0x20 bytes only,
//! `UPPER(BINARY 'abc')` is `'abc'`).
//!
//! [`call`] takes the functions whose result is a binary string (the
//! binder's type on the node says so) and the ones that count or find
//! positions in a binary argument. Text arguments of a binary result give
//! their UTF-8 bytes, other values their text's.

use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::{cast::AsArray, types::Int64Type, Array, ArrayRef, BinaryArray, Int64Array};
use arrow_schema::DataType;
use quiver_collation::Collation;
use quiver_common::Result;
use quiver_plan::ScalarFunc;
use quiver_string_kernels::SubstringFinder;

use super::cast_array;
use super::string_build::MAX_RESULT_BYTES;
use crate::bytes::{byte_view, encode_array, is_binary};

/// Values of any type as bytes: text and binary strings as they are,
/// anything else as its text.
fn bytes_of(a: &ArrayRef) -> Result<BinaryArray> {
    let a = match a.data_type() {
        DataType::Utf8 | DataType::Binary => a.clone(),
        _ => cast_array(a, &DataType::Utf8)?,
    };
    Ok(byte_view(a.as_ref()).expect("a string array"))
}

fn ints(a: &ArrayRef) -> Result<Int64Array> {
    Ok(cast_array(a, &DataType::Int64)?
        .as_primitive::<Int64Type>()
        .clone())
}

/// Builds `rows` binary values: `f(i, out)` writes row i and says whether
/// it is a value (false: NULL). A value beyond `max_allowed_packet` is NULL.
fn build(rows: usize, mut f: impl FnMut(usize, &mut Vec<u8>) -> bool) -> ArrayRef {
    let mut b = BinaryBuilder::with_capacity(rows, rows * 8);
    let mut buf = Vec::new();
    for i in 0..rows {
        buf.clear();
        if f(i, &mut buf) && buf.len() <= MAX_RESULT_BYTES {
            b.append_value(&buf);
        } else {
            b.append_null();
        }
    }
    Arc::new(b.finish())
}

/// Whether `func` over `args` into `t` is a binary string function: its
/// result is binary, or it counts or searches a binary argument.
pub fn applies(func: ScalarFunc, args: &[ArrayRef], t: &DataType) -> bool {
    let any_binary = || args.iter().any(|a| is_binary(a.data_type()));
    match func {
        ScalarFunc::Substring
        | ScalarFunc::Concat
        | ScalarFunc::Upper
        | ScalarFunc::Lower
        | ScalarFunc::Trim
        | ScalarFunc::LTrim
        | ScalarFunc::RTrim
        | ScalarFunc::Replace
        | ScalarFunc::Left
        | ScalarFunc::Right
        | ScalarFunc::Reverse
        | ScalarFunc::Repeat
        | ScalarFunc::Lpad
        | ScalarFunc::Rpad
        | ScalarFunc::ConcatWs
        | ScalarFunc::SubstringIndex
        | ScalarFunc::Insert => is_binary(t),
        ScalarFunc::ToCharset(quiver_collation::Charset::Binary) | ScalarFunc::Unhex => true,
        ScalarFunc::ToCharset(_) => is_binary(args[0].data_type()),
        ScalarFunc::Length | ScalarFunc::CharLength | ScalarFunc::WeightString => {
            is_binary(args[0].data_type())
        }
        ScalarFunc::Locate => any_binary(),
        _ => false,
    }
}

/// `func` over binary strings (see [`applies`]); `collation` is the text
/// argument's (the charset `ToCharset(binary)` encodes it in).
pub fn call(func: ScalarFunc, args: &[ArrayRef], collation: Collation) -> Result<ArrayRef> {
    let rows = args[0].len();
    let arg = |i: usize| bytes_of(&args[i]);
    Ok(match func {
        ScalarFunc::Length | ScalarFunc::CharLength => {
            let s = arg(0)?;
            let v: Vec<i64> = (0..rows).map(|i| s.value_length(i) as i64).collect();
            Arc::new(Int64Array::new(v.into(), s.logical_nulls()))
        }
        // The binary collation's key is the bytes.
        ScalarFunc::WeightString | ScalarFunc::Upper | ScalarFunc::Lower => Arc::new(arg(0)?),
        ScalarFunc::ToCharset(quiver_collation::Charset::Binary) => match args[0].data_type() {
            DataType::Utf8 => encode_array(collation.charset(), args[0].as_string::<i32>()),
            _ => Arc::new(arg(0)?),
        },
        ScalarFunc::ToCharset(charset) => {
            crate::bytes::decode_array(charset, args[0].as_binary::<i32>())
        }
        ScalarFunc::Unhex => {
            let s = arg(0)?;
            build(rows, |i, out| s.is_valid(i) && unhex(s.value(i), out))
        }
        ScalarFunc::Locate => {
            let (sub, s) = (arg(0)?, arg(1)?);
            let pos = args.get(2).map(ints).transpose()?;
            let out: Int64Array = (0..rows)
                .map(|i| {
                    if sub.is_null(i) || s.is_null(i) || pos.as_ref().is_some_and(|p| p.is_null(i))
                    {
                        return None;
                    }
                    let start = pos.as_ref().map_or(1, |p| p.value(i));
                    Some(locate(sub.value(i), s.value(i), start))
                })
                .collect();
            Arc::new(out)
        }
        ScalarFunc::Substring => {
            let s = arg(0)?;
            let pos = ints(&args[1])?;
            let len = args.get(2).map(ints).transpose()?;
            build(rows, |i, out| {
                if s.is_null(i) || pos.is_null(i) || len.as_ref().is_some_and(|l| l.is_null(i)) {
                    return false;
                }
                let l = len.as_ref().map(|l| l.value(i));
                out.extend_from_slice(substring(s.value(i), pos.value(i), l));
                true
            })
        }
        ScalarFunc::Left | ScalarFunc::Right => {
            let (s, n) = (arg(0)?, ints(&args[1])?);
            let left = func == ScalarFunc::Left;
            build(rows, |i, out| {
                if s.is_null(i) || n.is_null(i) {
                    return false;
                }
                let v = s.value(i);
                let k = (n.value(i).max(0) as usize).min(v.len());
                out.extend_from_slice(if left { &v[..k] } else { &v[v.len() - k..] });
                true
            })
        }
        ScalarFunc::Concat => {
            let parts: Vec<BinaryArray> = (0..args.len()).map(arg).collect::<Result<_>>()?;
            build(rows, |i, out| {
                if parts.iter().any(|p| p.is_null(i)) {
                    return false;
                }
                parts.iter().for_each(|p| out.extend_from_slice(p.value(i)));
                true
            })
        }
        ScalarFunc::ConcatWs => {
            let parts: Vec<BinaryArray> = (0..args.len()).map(arg).collect::<Result<_>>()?;
            let (sep, parts) = parts.split_first().expect("CONCAT_WS has a separator");
            build(rows, |i, out| {
                if sep.is_null(i) {
                    return false;
                }
                for (k, p) in parts.iter().filter(|p| p.is_valid(i)).enumerate() {
                    if k > 0 {
                        out.extend_from_slice(sep.value(i));
                    }
                    out.extend_from_slice(p.value(i));
                }
                true
            })
        }
        ScalarFunc::Trim | ScalarFunc::LTrim | ScalarFunc::RTrim => {
            let s = arg(0)?;
            let what = args.get(1).map(bytes_of).transpose()?;
            let (leading, trailing) = (func != ScalarFunc::RTrim, func != ScalarFunc::LTrim);
            build(rows, |i, out| {
                if s.is_null(i) || what.as_ref().is_some_and(|w| w.is_null(i)) {
                    return false;
                }
                let w = what.as_ref().map_or(&b" "[..], |w| w.value(i));
                out.extend_from_slice(trim(s.value(i), w, leading, trailing));
                true
            })
        }
        ScalarFunc::Replace => {
            let (s, from, to) = (arg(0)?, arg(1)?, arg(2)?);
            build(rows, |i, out| {
                if s.is_null(i) || from.is_null(i) || to.is_null(i) {
                    return false;
                }
                replace(s.value(i), from.value(i), to.value(i), out);
                true
            })
        }
        ScalarFunc::Reverse => {
            let s = arg(0)?;
            build(rows, |i, out| {
                out.extend(s.value(i).iter().rev());
                s.is_valid(i)
            })
        }
        ScalarFunc::Repeat => {
            let (s, n) = (arg(0)?, ints(&args[1])?);
            build(rows, |i, out| {
                if s.is_null(i) || n.is_null(i) {
                    return false;
                }
                let (v, times) = (s.value(i), n.value(i).max(0) as usize);
                // Too long is NULL before anything is written.
                if v.len().saturating_mul(times) > MAX_RESULT_BYTES {
                    return false;
                }
                (0..times).for_each(|_| out.extend_from_slice(v));
                true
            })
        }
        ScalarFunc::Lpad | ScalarFunc::Rpad => {
            let (s, n, pad) = (arg(0)?, ints(&args[1])?, arg(2)?);
            let left = func == ScalarFunc::Lpad;
            build(rows, |i, out| {
                if s.is_null(i) || n.is_null(i) || pad.is_null(i) || n.value(i) < 0 {
                    return false;
                }
                let want = n.value(i) as usize;
                if want > MAX_RESULT_BYTES {
                    return false;
                }
                pad_bytes(s.value(i), want, pad.value(i), left, out)
            })
        }
        ScalarFunc::Insert => {
            let (s, pos, len, new) = (arg(0)?, ints(&args[1])?, ints(&args[2])?, arg(3)?);
            build(rows, |i, out| {
                if s.is_null(i) || pos.is_null(i) || len.is_null(i) || new.is_null(i) {
                    return false;
                }
                let v = s.value(i);
                match insert_span(v.len(), pos.value(i), len.value(i), |k| k) {
                    Some((start, end)) => {
                        out.extend_from_slice(&v[..start]);
                        out.extend_from_slice(new.value(i));
                        out.extend_from_slice(&v[end..]);
                    }
                    None => out.extend_from_slice(v),
                }
                true
            })
        }
        ScalarFunc::SubstringIndex => {
            let (s, delim, count) = (arg(0)?, arg(1)?, ints(&args[2])?);
            build(rows, |i, out| {
                if s.is_null(i) || delim.is_null(i) || count.is_null(i) {
                    return false;
                }
                out.extend_from_slice(substring_index(s.value(i), delim.value(i), count.value(i)));
                true
            })
        }
        other => {
            return Err(quiver_common::QuiverError::internal(format!(
                "{other:?} over binary strings"
            )))
        }
    })
}

/// UNHEX: each pair of hex digits one byte, an odd count read as if led by
/// a 0 (MariaDB: UNHEX('F') is X'0F'); false (NULL) at a non-digit.
fn unhex(s: &[u8], out: &mut Vec<u8>) -> bool {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let (head, pairs) = s.split_at(s.len() % 2);
    if let [c] = head {
        match digit(*c) {
            Some(d) => out.push(d),
            None => return false,
        }
    }
    for p in pairs.chunks_exact(2) {
        match (digit(p[0]), digit(p[1])) {
            (Some(h), Some(l)) => out.push(h << 4 | l),
            _ => return false,
        }
    }
    true
}

/// LOCATE in bytes: the 1-based position of `sub` in `s` from byte
/// `start` on, 0 when absent.
fn locate(sub: &[u8], s: &[u8], start: i64) -> i64 {
    if start < 1 || start as usize > s.len() + 1 {
        return 0;
    }
    let from = start as usize - 1;
    match SubstringFinder::new(sub).find(&s[from..]) {
        Some(at) => (from + at + 1) as i64,
        None => 0,
    }
}

/// SUBSTRING in bytes: 1-based, negative positions from the end, position
/// 0 the empty string.
fn substring(s: &[u8], pos: i64, len: Option<i64>) -> &[u8] {
    let count = s.len() as i64;
    let start = match pos {
        0 => return &[],
        p if p > 0 => p - 1,
        p => count + p,
    };
    if start < 0 || start >= count {
        return &[];
    }
    let take = match len {
        Some(l) if l <= 0 => return &[],
        Some(l) => l.min(count - start),
        None => count - start,
    };
    &s[start as usize..(start + take) as usize]
}

/// TRIM of whole repetitions of `what` (MySQL's TRIM removes a string, not a
/// set of characters); an empty `what` removes nothing.
pub(crate) fn trim<'a>(s: &'a [u8], what: &[u8], leading: bool, trailing: bool) -> &'a [u8] {
    if what.is_empty() {
        return s;
    }
    let mut out = s;
    if leading {
        while let Some(rest) = out.strip_prefix(what) {
            out = rest;
        }
    }
    if trailing {
        while let Some(rest) = out.strip_suffix(what) {
            out = rest;
        }
    }
    out
}

/// REPLACE: every non-overlapping occurrence, left to right.
fn replace(s: &[u8], from: &[u8], to: &[u8], out: &mut Vec<u8>) {
    if from.is_empty() {
        out.extend_from_slice(s);
        return;
    }
    let finder = SubstringFinder::new(from);
    let mut rest = s;
    while let Some(at) = finder.find(rest) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
}

/// LPAD / RPAD in bytes: `s` cut to `want` bytes or padded with `pad`;
/// false (NULL) when padding is needed and `pad` is empty.
fn pad_bytes(s: &[u8], want: usize, pad: &[u8], left: bool, out: &mut Vec<u8>) -> bool {
    if s.len() >= want {
        out.extend_from_slice(&s[..want]);
        return true;
    }
    if pad.is_empty() {
        return false;
    }
    let need = want - s.len();
    let fill = pad.iter().cycle().take(need);
    if left {
        out.extend(fill);
        out.extend_from_slice(s);
    } else {
        out.extend_from_slice(s);
        out.extend(fill);
    }
    true
}

/// SUBSTRING_INDEX in bytes (see `string_build::substring_index_of`).
fn substring_index<'a>(s: &'a [u8], delim: &[u8], count: i64) -> &'a [u8] {
    if count == 0 || delim.is_empty() {
        return &[];
    }
    let finder = SubstringFinder::new(delim);
    // Occurrences left to right, without overlap.
    let mut starts = vec![];
    let mut from = 0;
    while let Some(at) = finder.find(&s[from..]) {
        starts.push(from + at);
        from += at + delim.len();
        if count > 0 && starts.len() == count as usize {
            break;
        }
    }
    let k = count.unsigned_abs() as usize;
    if k > starts.len() {
        return s;
    }
    if count > 0 {
        &s[..starts[k - 1]]
    } else {
        &s[starts[starts.len() - k] + delim.len()..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::string_build::substring_index_of;

    fn bin(v: &[Option<&[u8]>]) -> ArrayRef {
        Arc::new(BinaryArray::from(v.to_vec()))
    }

    fn values(a: &ArrayRef) -> Vec<Option<Vec<u8>>> {
        a.as_binary::<i32>()
            .iter()
            .map(|v| v.map(<[u8]>::to_vec))
            .collect()
    }

    fn one(func: ScalarFunc, args: &[ArrayRef]) -> Vec<Option<Vec<u8>>> {
        values(&call(func, args, Collation::binary()).unwrap())
    }

    fn ints_of(v: &[i64]) -> ArrayRef {
        Arc::new(Int64Array::from(v.to_vec()))
    }

    /// MariaDB's answers over `BINARY 'é'` (X'C3A9') and friends.
    #[test]
    fn byte_functions_as_mariadb() {
        let e = bin(&[Some("é".as_bytes()), None]);
        let b = |v: &[u8]| Some(v.to_vec());
        assert_eq!(
            one(ScalarFunc::Left, &[e.clone(), ints_of(&[1, 1])])[0],
            b(b"\xC3")
        );
        assert_eq!(
            one(ScalarFunc::Right, &[e.clone(), ints_of(&[1, 1])])[0],
            b(b"\xA9")
        );
        assert_eq!(
            one(ScalarFunc::Reverse, &[e.clone()]),
            [b(b"\xA9\xC3"), None]
        );
        assert_eq!(
            one(ScalarFunc::Substring, &[e.clone(), ints_of(&[2, 2])])[0],
            b(b"\xA9")
        );
        let lengths = call(ScalarFunc::CharLength, &[e.clone()], Collation::binary()).unwrap();
        assert_eq!(lengths.as_primitive::<Int64Type>().value(0), 2);
        let hay = bin(&[Some(b"\xC3\xA9"), Some(b"abcabc")]);
        let needle = bin(&[Some(b"\xA9"), Some(b"c")]);
        let at = call(
            ScalarFunc::Locate,
            &[needle, hay, ints_of(&[1, 4])],
            Collation::binary(),
        )
        .unwrap();
        assert_eq!(at.as_primitive::<Int64Type>().values().to_vec(), [2, 6]);
        let t = bin(&[Some(b" \0a \0"), Some(b"  a  "), Some(b"\0\0a")]);
        assert_eq!(
            one(ScalarFunc::Trim, &[t.clone()]),
            [b(b"\0a \0"), b(b"a"), b(b"\0\0a")]
        );
        assert_eq!(one(ScalarFunc::RTrim, &[t.clone()])[1], b(b"  a"));
        assert_eq!(
            one(ScalarFunc::LTrim, &[t.clone(), bin(&[Some(&b"\0"[..]); 3])])[2],
            b(b"a")
        );
        let abc = bin(&[Some(b"abc")]);
        assert_eq!(one(ScalarFunc::Upper, &[abc.clone()])[0], b(b"abc"));
        assert_eq!(
            one(
                ScalarFunc::Lpad,
                &[bin(&[Some(b"A")]), ints_of(&[3]), bin(&[Some(b"\0")])]
            )[0],
            b(b"\0\0A")
        );
        assert_eq!(
            one(
                ScalarFunc::Rpad,
                &[abc.clone(), ints_of(&[2]), bin(&[Some(b"")])]
            )[0],
            b(b"ab")
        );
        assert_eq!(
            one(
                ScalarFunc::Rpad,
                &[abc.clone(), ints_of(&[4]), bin(&[Some(b"")])]
            )[0],
            None
        );
        // CONCAT of a binary and a text argument: the text's UTF-8 bytes.
        let text: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["é"]));
        assert_eq!(
            one(ScalarFunc::Concat, &[bin(&[Some(b"\xFF")]), text])[0],
            b(b"\xFF\xC3\xA9")
        );
        assert_eq!(
            one(
                ScalarFunc::Replace,
                &[
                    e.clone(),
                    bin(&[Some(&b"\xA9"[..]); 2]),
                    bin(&[Some(&b"A"[..]); 2])
                ]
            ),
            [b(b"\xC3A"), None]
        );
        assert_eq!(
            one(ScalarFunc::Repeat, &[bin(&[Some(b"\xFF")]), ints_of(&[2])])[0],
            b(b"\xFF\xFF")
        );
        assert_eq!(
            one(
                ScalarFunc::Repeat,
                &[bin(&[Some(b"\xFF")]), ints_of(&[i64::MAX])]
            )[0],
            None
        );
        assert_eq!(
            one(
                ScalarFunc::ConcatWs,
                &[bin(&[Some(b"\0")]), abc.clone(), bin(&[None]), abc.clone()]
            )[0],
            b(b"abc\0abc")
        );
    }

    /// The byte SUBSTRING_INDEX against the text one over ASCII, where
    /// bytes are characters.
    #[test]
    fn substring_index_in_bytes_matches_the_text_version() {
        let words = ["", "a", "aa", "aaa", "a.b.c", "..", "www.mysql.com", "x.y"];
        for s in words {
            for delim in ["", ".", "a", "aa", "w.", "com"] {
                for count in -4..=4 {
                    assert_eq!(
                        substring_index(s.as_bytes(), delim.as_bytes(), count),
                        substring_index_of(s, delim, count).as_bytes(),
                        "{s:?} {delim:?} {count}"
                    );
                }
            }
        }
    }

    /// Byte SUBSTRING against the text one over ASCII.
    #[test]
    fn substring_in_bytes_matches_the_text_version() {
        let s = "Quadratically";
        for pos in -15..=15 {
            for len in [None, Some(-1), Some(0), Some(1), Some(4), Some(40)] {
                assert_eq!(
                    substring(s.as_bytes(), pos, len),
                    super::super::functions::substring(s, pos, len).as_bytes(),
                    "{pos} {len:?}"
                );
            }
        }
    }

    /// MariaDB's UNHEX answers; a number is read as its text.
    #[test]
    fn unhex_as_mariadb() {
        let text: ArrayRef = Arc::new(arrow_array::StringArray::from(vec![
            Some("F"),
            Some("4142"),
            Some("GG"),
            Some(""),
            Some("a1B"),
            None,
            Some(" 41"),
            Some("4G"),
        ]));
        let b = |v: &[u8]| Some(v.to_vec());
        assert_eq!(
            one(ScalarFunc::Unhex, &[text]),
            [
                b(b"\x0F"),
                b(b"AB"),
                None,
                b(b""),
                b(b"\x0A\x1B"),
                None,
                None,
                None
            ]
        );
        let n: ArrayRef = Arc::new(Int64Array::from(vec![12, -1]));
        assert_eq!(one(ScalarFunc::Unhex, &[n]), [b(b"\x12"), None]);
    }

    #[test]
    fn to_charset_both_ways() {
        let latin1 = Collation::from_name("latin1_swedish_ci")
            .unwrap()
            .over_utf8();
        let text: ArrayRef = Arc::new(arrow_array::StringArray::from(vec![Some("é€"), None]));
        let to_bin = call(
            ScalarFunc::ToCharset(quiver_collation::Charset::Binary),
            &[text.clone()],
            latin1,
        )
        .unwrap();
        assert_eq!(values(&to_bin), [Some(vec![0xE9, 0x80]), None]);
        let utf8 = call(
            ScalarFunc::ToCharset(quiver_collation::Charset::Binary),
            &[text],
            Collation::utf8mb4_bin(),
        )
        .unwrap();
        assert_eq!(values(&utf8)[0], Some("é€".as_bytes().to_vec()));
        let back = call(
            ScalarFunc::ToCharset(quiver_collation::Charset::Utf8mb4),
            &[bin(&[Some(b"\xC3\xFF\x41\xE2\x82")])],
            Collation::binary(),
        )
        .unwrap();
        assert_eq!(back.as_string::<i32>().value(0), "??A??");
    }
}

/// ASCII(s) (`ord` false): the first byte of `s` in its charset; ORD(s):
/// the first character's bytes as one big-endian number. 0 for ''.
pub fn first_code(a: &ArrayRef, charset: quiver_collation::Charset, ord: bool) -> Result<ArrayRef> {
    let s = bytes_of(a)?;
    let text = !is_binary(a.data_type());
    let single = quiver_collation::text::is_single_byte_text(charset);
    let out: Int64Array = s
        .iter()
        .map(|v| {
            v.map(|v| {
                let Some(&first) = v.first() else { return 0 };
                if text && single && first >= 0x80 {
                    // latin1 / ascii text is kept as UTF-8: its own byte.
                    let mut b = Vec::with_capacity(1);
                    let len = utf8_len(first).min(v.len());
                    quiver_collation::text::encode(charset, &v[..len], &mut b);
                    return b.first().copied().unwrap_or(b'?') as i64;
                }
                if !ord || !text || first < 0x80 {
                    return first as i64;
                }
                let len = utf8_len(first).min(v.len());
                v[..len].iter().fold(0i64, |n, &b| n << 8 | b as i64)
            })
        })
        .collect();
    Ok(Arc::new(out))
}

/// The length of the UTF-8 sequence `first` starts (1 for a stray byte).
pub(crate) fn utf8_len(first: u8) -> usize {
    match first {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod code_tests {
    use super::*;
    use arrow_array::StringArray;

    fn ints_of(a: ArrayRef) -> Vec<Option<i64>> {
        a.as_primitive::<Int64Type>().iter().collect()
    }

    #[test]
    fn ascii_and_ord_read_the_charsets_bytes() {
        use quiver_collation::Charset;
        let a: ArrayRef = Arc::new(StringArray::from(vec![
            Some("é"),
            Some("a"),
            Some(""),
            None,
        ]));
        assert_eq!(
            ints_of(first_code(&a, Charset::Utf8mb4, false).unwrap()),
            vec![Some(0xC3), Some(97), Some(0), None]
        );
        assert_eq!(
            ints_of(first_code(&a, Charset::Utf8mb4, true).unwrap()),
            vec![Some(0xC3A9), Some(97), Some(0), None]
        );
        assert_eq!(
            ints_of(first_code(&a, Charset::Latin1, true).unwrap()),
            vec![Some(0xE9), Some(97), Some(0), None]
        );
        let b: ArrayRef = Arc::new(BinaryArray::from(vec![&b"\xC3\xA9"[..]]));
        assert_eq!(
            ints_of(first_code(&b, Charset::Binary, true).unwrap()),
            vec![Some(0xC3)]
        );
    }
}

/// INSERT's replaced span of a string of `n` characters, as offsets
/// (`offset(k)`: where character k starts): MySQL replaces `len` characters
/// from 1-based `pos` (to the end for a negative or long `len`); `None` when
/// `pos` is outside the string, which then stays as it is.
pub fn insert_span(
    n: usize,
    pos: i64,
    len: i64,
    offset: impl Fn(usize) -> usize,
) -> Option<(usize, usize)> {
    if pos < 1 || pos as u64 > n as u64 {
        return None;
    }
    let first = pos as usize - 1;
    let last = if len < 0 || len as u64 >= (n - first) as u64 {
        n
    } else {
        first + len as usize
    };
    Some((offset(first), offset(last)))
}
