//! Scalar functions. String results are built with the output size
//! computed first where it is known, so each result is one allocation.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, BooleanArray, Date32Array, Int64Array, StringArray,
    TimestampMicrosecondArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, TimeUnit};
use quiver_collation::{text, with_collator, Collation, Collator};
use quiver_common::types::{add_months, civil_from_days};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{DatePart, ScalarFunc};

use super::value::ColumnarValue;
use super::{binary_fns, cast_array, string_build};

fn strings(a: &ArrayRef) -> Result<ArrayRef> {
    if a.data_type() == &DataType::Utf8 {
        Ok(a.clone())
    } else {
        cast_array(a, &DataType::Utf8)
    }
}

/// Applies `f` to each non-NULL string, building the result in one buffer
/// sized by `size_hint` bytes.
fn map_strings(
    a: &ArrayRef,
    size_hint: usize,
    mut f: impl FnMut(&str, &mut String),
) -> Result<ArrayRef> {
    let a = strings(a)?;
    let s = a.as_string::<i32>();
    let mut b = StringBuilder::with_capacity(s.len(), size_hint);
    let mut buf = String::new();
    for i in 0..s.len() {
        if s.is_null(i) {
            b.append_null();
        } else {
            buf.clear();
            f(s.value(i), &mut buf);
            b.append_value(&buf);
        }
    }
    Ok(Arc::new(b.finish()))
}

fn counts(a: &ArrayRef) -> Result<ArrayRef> {
    cast_array(a, &DataType::Int64)
}

fn value_bytes(a: &ArrayRef) -> usize {
    match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().values().len(),
        _ => a.len() * 8,
    }
}

pub fn call(
    func: ScalarFunc,
    args: Vec<ColumnarValue>,
    t: &DataType,
    rows: usize,
    collation: Collation,
    json_args: u64,
    state: Option<&quiver_plan::function::CallState>,
) -> Result<ColumnarValue> {
    if let ScalarFunc::Registered(f) = func {
        let call = quiver_plan::function::Call {
            data_type: t,
            rows,
            collation,
            json_args,
            state,
        };
        return f.invoke(&args, &call);
    }
    if func == ScalarFunc::MemberText {
        // The type text stays one scalar, parsed once per batch.
        return super::members::member_text(args, rows);
    }
    let all_scalar = args.iter().all(|a| matches!(a, ColumnarValue::Scalar(..)));
    let n = if all_scalar { 1 } else { rows };
    let arrays: Vec<ArrayRef> = args
        .into_iter()
        .map(|a| a.into_array(n))
        .collect::<Result<_>>()?;
    let arg = |i: usize| -> Result<&ArrayRef> {
        arrays
            .get(i)
            .ok_or_else(|| QuiverError::wrong_arguments(&format!("{func:?}")))
    };
    let out: ArrayRef = match func {
        // Binary results, and counts or positions in binary arguments: bytes.
        _ if binary_fns::applies(func, &arrays, t) => binary_fns::call(func, &arrays, collation)?,
        ScalarFunc::Substring => {
            let pos = cast_array(arg(1)?, &DataType::Int64)?;
            let pos = pos.as_primitive::<Int64Type>();
            let len = match arrays.get(2) {
                Some(l) => Some(cast_array(l, &DataType::Int64)?),
                None => None,
            };
            let len = len.as_ref().map(|l| l.as_primitive::<Int64Type>());
            let s = strings(arg(0)?)?;
            let s = s.as_string::<i32>();
            let mut b = StringBuilder::with_capacity(n, s.values().len());
            for i in 0..n {
                if s.is_null(i) || pos.is_null(i) || len.is_some_and(|l| l.is_null(i)) {
                    b.append_null();
                    continue;
                }
                b.append_value(substring(s.value(i), pos.value(i), len.map(|l| l.value(i))));
            }
            Arc::new(b.finish())
        }
        ScalarFunc::Extract(part) => extract(arg(0)?, part)?,
        ScalarFunc::DateAdd(part) => date_add(arg(0)?, arg(1)?, part, t)?,
        ScalarFunc::Interval(part) => interval_amount(arg(0)?, part)?,
        ScalarFunc::TimestampDiff(part) => timestamp_diff(arg(0)?, arg(1)?, part)?,
        ScalarFunc::Coalesce => {
            let mut acc = cast_array(arg(0)?, t)?;
            for next in &arrays[1..] {
                if acc.null_count() == 0 {
                    break;
                }
                let next = cast_array(next, t)?;
                let valid = BooleanArray::new(
                    acc.logical_nulls()
                        .map(|n| n.inner().clone())
                        .unwrap_or_else(|| arrow_buffer::BooleanBuffer::new_set(n)),
                    None,
                );
                acc = arrow_select::zip::zip(&valid, &acc, &next)?;
            }
            acc
        }
        ScalarFunc::NullIf => {
            let a = cast_array(arg(0)?, t)?;
            // Compared in the type MySQL compares the pair in, not in the
            // result's: NULLIF(1, 44 / 64) is 1, as 1 = 0.6875 is false.
            let ct =
                quiver_common::types::comparison_type(arg(0)?.data_type(), arg(1)?.data_type());
            let eq = super::compare::compare_arrays(
                quiver_plan::BinaryOp::Eq,
                &cast_array(arg(0)?, &ct)?,
                &cast_array(arg(1)?, &ct)?,
            )?;
            let eq = BooleanArray::new(
                eq.values()
                    & &eq
                        .nulls()
                        .map(|n| n.inner().clone())
                        .unwrap_or_else(|| arrow_buffer::BooleanBuffer::new_set(n)),
                None,
            );
            let nulls = arrow_array::new_null_array(t, n);
            arrow_select::zip::zip(&eq, &nulls, &a)?
        }
        ScalarFunc::Concat => {
            let parts: Vec<ArrayRef> = arrays.iter().map(strings).collect::<Result<_>>()?;
            let total: usize = parts.iter().map(value_bytes).sum();
            let parts: Vec<&StringArray> = parts.iter().map(|p| p.as_string::<i32>()).collect();
            let mut b = StringBuilder::with_capacity(n, total);
            let mut buf = String::new();
            for i in 0..n {
                if parts.iter().any(|p| p.is_null(i)) {
                    b.append_null();
                    continue;
                }
                buf.clear();
                for p in &parts {
                    buf.push_str(p.value(i));
                }
                b.append_value(&buf);
            }
            Arc::new(b.finish())
        }
        ScalarFunc::Length | ScalarFunc::CharLength => {
            let s = strings(arg(0)?)?;
            let s = s.as_string::<i32>();
            let chars = func == ScalarFunc::CharLength;
            let v: Vec<i64> = (0..n)
                .map(|i| {
                    if chars {
                        s.value(i).chars().count() as i64
                    } else {
                        s.value(i).len() as i64
                    }
                })
                .collect();
            Arc::new(Int64Array::new(v.into(), s.logical_nulls()))
        }
        ScalarFunc::Upper => change_case(arg(0)?, collation, true)?,
        ScalarFunc::Lower => change_case(arg(0)?, collation, false)?,
        ScalarFunc::Locate => locate(arg(0)?, arg(1)?, arrays.get(2), collation)?,
        ScalarFunc::Replace => replace(arg(0)?, arg(1)?, arg(2)?)?,
        ScalarFunc::Left | ScalarFunc::Right => {
            left_right(arg(0)?, arg(1)?, func == ScalarFunc::Left)?
        }
        ScalarFunc::WeightString => weight_string(arg(0)?, collation)?,
        ScalarFunc::Reverse => string_build::reverse(strings(arg(0)?)?.as_string::<i32>()),
        ScalarFunc::Repeat => string_build::repeat(
            strings(arg(0)?)?.as_string::<i32>(),
            counts(arg(1)?)?.as_primitive::<Int64Type>(),
        ),
        ScalarFunc::Space => string_build::space(counts(arg(0)?)?.as_primitive::<Int64Type>()),
        ScalarFunc::Lpad | ScalarFunc::Rpad => string_build::pad(
            strings(arg(0)?)?.as_string::<i32>(),
            counts(arg(1)?)?.as_primitive::<Int64Type>(),
            strings(arg(2)?)?.as_string::<i32>(),
            func == ScalarFunc::Lpad,
        ),
        ScalarFunc::ConcatWs => {
            let parts: Vec<ArrayRef> = arrays.iter().map(strings).collect::<Result<_>>()?;
            let parts: Vec<&StringArray> = parts.iter().map(|p| p.as_string::<i32>()).collect();
            string_build::concat_ws(parts[0], &parts[1..])
        }
        ScalarFunc::Insert => {
            let s = strings(arg(0)?)?;
            let new = strings(arg(3)?)?;
            let (pos, len) = (counts(arg(1)?)?, counts(arg(2)?)?);
            let (s, new) = (s.as_string::<i32>(), new.as_string::<i32>());
            let (pos, len) = (
                pos.as_primitive::<Int64Type>(),
                len.as_primitive::<Int64Type>(),
            );
            let mut b = StringBuilder::with_capacity(n, s.values().len() + new.values().len());
            for i in 0..n {
                if s.is_null(i) || pos.is_null(i) || len.is_null(i) || new.is_null(i) {
                    b.append_null();
                    continue;
                }
                let v = s.value(i);
                let chars = v.chars().count();
                let at = |k: usize| v.char_indices().nth(k).map_or(v.len(), |(o, _)| o);
                match super::binary_fns::insert_span(chars, pos.value(i), len.value(i), at) {
                    Some((start, end)) => {
                        b.append_value(format!("{}{}{}", &v[..start], new.value(i), &v[end..]))
                    }
                    None => b.append_value(v),
                }
            }
            Arc::new(b.finish())
        }
        ScalarFunc::SubstringIndex => string_build::substring_index(
            strings(arg(0)?)?.as_string::<i32>(),
            strings(arg(1)?)?.as_string::<i32>(),
            counts(arg(2)?)?.as_primitive::<Int64Type>(),
        ),
        ScalarFunc::Trim | ScalarFunc::LTrim | ScalarFunc::RTrim => {
            let leading = func != ScalarFunc::RTrim;
            let trailing = func != ScalarFunc::LTrim;
            match arrays.get(1) {
                None => map_strings(arg(0)?, value_bytes(arg(0)?), |s, out| {
                    out.push_str(trim_str(s, " ", leading, trailing))
                })?,
                Some(what) => {
                    let what = strings(what)?;
                    let what = what.as_string::<i32>();
                    let s = strings(arg(0)?)?;
                    let s = s.as_string::<i32>();
                    let mut b = StringBuilder::with_capacity(n, s.values().len());
                    for i in 0..n {
                        if s.is_null(i) || what.is_null(i) {
                            b.append_null();
                        } else {
                            b.append_value(trim_str(s.value(i), what.value(i), leading, trailing));
                        }
                    }
                    Arc::new(b.finish())
                }
            }
        }
        ScalarFunc::Hex => hex(arg(0)?, collation)?,
        ScalarFunc::Greatest | ScalarFunc::Least => extreme(func, &arrays, t, collation)?,
        ScalarFunc::Field => field(&arrays, collation)?,
        ScalarFunc::Md5 | ScalarFunc::Sha1 | ScalarFunc::Sha2 => {
            digest(func, arg(0)?, arrays.get(1), collation)?
        }
        // Taken by the binary functions above.
        ScalarFunc::Unhex => binary_fns::call(func, &arrays, collation)?,
        ScalarFunc::Ascii | ScalarFunc::Ord => {
            super::binary_fns::first_code(arg(0)?, collation.charset(), func == ScalarFunc::Ord)?
        }
        ScalarFunc::ToCharset(charset) => map_strings(arg(0)?, value_bytes(arg(0)?), |s, out| {
            text::convert_lossy_str(charset, s, out)
        })?,
        // Decimal rescaling rounds half away from zero, as MySQL shows values.
        ScalarFunc::DeclaredScale => cast_array(arg(0)?, t)?,
        ScalarFunc::SqlCast => super::cast::sql_cast(arg(0)?, t)?,
        ScalarFunc::StrictDivision(op) => {
            super::arith::strict_division(op, arg(0)?.clone(), arg(1)?.clone(), t, n)?
        }
        // Taken before the arguments became arrays.
        ScalarFunc::MemberText => {
            return Err(QuiverError::internal(
                "MemberText reached the enum's kernels",
            ))
        }
        ScalarFunc::Registered(f) => {
            return Err(QuiverError::internal(format!(
                "{f:?} reached the enum's kernels"
            )))
        }
    };
    if all_scalar {
        // Bytes keep their type whatever the node says.
        let t = match out.data_type() {
            DataType::Binary => DataType::Binary,
            _ => t.clone(),
        };
        Ok(ColumnarValue::Scalar(ScalarValue::from_array(&out, 0)?, t))
    } else {
        Ok(ColumnarValue::Array(out))
    }
}

/// HEX: upper-case digits of a string's bytes, or of an integer as a
/// 64-bit two's-complement number (MySQL: HEX(-1) is 16 F's).
/// UPPER / LOWER with the collation's case mapping (MariaDB's tables): the
/// output size is computed first, then built in one allocation.
fn change_case(a: &ArrayRef, collation: Collation, upper: bool) -> Result<ArrayRef> {
    let a = strings(a)?;
    let s = a.as_string::<i32>();
    let (offsets, values) = with_collator!(collation, |c| {
        let mut total = 0usize;
        for v in s.iter().flatten() {
            total += if upper {
                c.upper_len(v.as_bytes())
            } else {
                c.lower_len(v.as_bytes())
            };
        }
        let mut values = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(s.len() + 1);
        offsets.push(0i32);
        for v in s.iter() {
            if let Some(v) = v {
                if upper {
                    c.to_upper(v.as_bytes(), &mut values);
                } else {
                    c.to_lower(v.as_bytes(), &mut values);
                }
            }
            offsets.push(values.len() as i32);
        }
        (offsets, values)
    });
    let out = arrow_array::StringArray::try_new(
        arrow_buffer::OffsetBuffer::new(offsets.into()),
        values.into(),
        s.logical_nulls(),
    )?;
    Ok(Arc::new(out))
}

/// LOCATE(sub, s [, pos]) under `collation`; 0 when absent.
fn locate(
    sub: &ArrayRef,
    s: &ArrayRef,
    pos: Option<&ArrayRef>,
    collation: Collation,
) -> Result<ArrayRef> {
    let (sub, s) = (strings(sub)?, strings(s)?);
    let (sub, s) = (sub.as_string::<i32>(), s.as_string::<i32>());
    let pos = pos.map(|p| cast_array(p, &DataType::Int64)).transpose()?;
    let pos = pos.as_ref().map(|p| p.as_primitive::<Int64Type>());
    let out: Int64Array = (0..s.len())
        .map(|i| {
            if sub.is_null(i) || s.is_null(i) || pos.is_some_and(|p| p.is_null(i)) {
                return None;
            }
            let (needle, hay) = (sub.value(i), s.value(i));
            let start = pos.map(|p| p.value(i)).unwrap_or(1);
            if start < 1 {
                return Some(0);
            }
            // Search from the start-th character on.
            let skip = (start - 1) as usize;
            let from = match hay.char_indices().nth(skip) {
                Some((b, _)) => b,
                None if hay.chars().count() == skip => hay.len(),
                None => return Some(0),
            };
            let found = collation.locate_position(needle.as_bytes(), &hay.as_bytes()[from..]);
            Some(if found == 0 { 0 } else { (found + skip) as i64 })
        })
        .collect();
    Ok(Arc::new(out))
}

/// REPLACE(s, from, to) over string arrays of any kind.
fn replace(s: &ArrayRef, from: &ArrayRef, to: &ArrayRef) -> Result<ArrayRef> {
    let (s, from, to) = (strings(s)?, strings(from)?, strings(to)?);
    Ok(super::string_build::replace(
        s.as_string::<i32>(),
        from.as_string::<i32>(),
        to.as_string::<i32>(),
    ))
}

/// LEFT / RIGHT: the first or last n characters.
fn left_right(s: &ArrayRef, n: &ArrayRef, left: bool) -> Result<ArrayRef> {
    let s = strings(s)?;
    let s = s.as_string::<i32>();
    let n = cast_array(n, &DataType::Int64)?;
    let n = n.as_primitive::<Int64Type>();
    let mut b = StringBuilder::with_capacity(s.len(), s.values().len());
    for i in 0..s.len() {
        if s.is_null(i) || n.is_null(i) {
            b.append_null();
            continue;
        }
        let v = s.value(i);
        let k = n.value(i).max(0) as usize;
        let out = if left {
            match v.char_indices().nth(k) {
                Some((end, _)) => &v[..end],
                None => v,
            }
        } else {
            let chars = v.chars().count();
            match v.char_indices().nth(chars.saturating_sub(k)) {
                Some((start, _)) => &v[start..],
                None => "",
            }
        };
        b.append_value(out);
    }
    Ok(Arc::new(b.finish()))
}

/// WEIGHT_STRING(s): the collation's sort key bytes.
fn weight_string(s: &ArrayRef, collation: Collation) -> Result<ArrayRef> {
    let s = strings(s)?;
    let s = s.as_string::<i32>();
    let mut key = Vec::new();
    let out: arrow_array::BinaryArray = with_collator!(collation, |c| s
        .iter()
        .map(|v| {
            v.map(|v| {
                key.clear();
                c.sort_key(v.as_bytes(), &mut key);
                key.clone()
            })
        })
        .collect());
    Ok(Arc::new(out))
}

/// HEX of a string shows its bytes in its charset: latin1 and ascii text
/// (kept as UTF-8) is converted first.
/// GREATEST / LEAST row by row: an argument replaces the best so far only
/// when it beats it (of equal values the first stays, as in MariaDB); NULL
/// where any argument is NULL.
fn extreme(
    func: ScalarFunc,
    arrays: &[ArrayRef],
    t: &DataType,
    collation: Collation,
) -> Result<ArrayRef> {
    let op = if func == ScalarFunc::Greatest {
        quiver_plan::BinaryOp::Gt
    } else {
        quiver_plan::BinaryOp::Lt
    };
    let mut best = cast_array(&arrays[0], t)?;
    let mut nulls = best.logical_nulls();
    for next in &arrays[1..] {
        let next = cast_array(next, t)?;
        let beats = super::compare::compare_arrays_collated(op, &next, &best, collation)?;
        // A NULL comparison does not replace (the row is NULL anyway).
        let beats = match beats.nulls() {
            Some(n) => BooleanArray::new(beats.values() & n.inner(), None),
            None => beats,
        };
        best = arrow_select::zip::zip(&beats, &next, &best)?;
        nulls = NullBuffer::union(nulls.as_ref(), next.logical_nulls().as_ref());
    }
    match nulls {
        Some(nulls) if nulls.null_count() > 0 => {
            let is_null = BooleanArray::new(!nulls.inner(), None);
            let null = arrow_array::new_null_array(best.data_type(), best.len());
            Ok(arrow_select::zip::zip(&is_null, &null, &best)?)
        }
        _ => Ok(best),
    }
}

/// FIELD(x, a, ...) row by row: the 1-based position of the first `a`
/// equal to `x`, else 0 (also where `x` is NULL: NULL equals nothing).
fn field(arrays: &[ArrayRef], collation: Collation) -> Result<ArrayRef> {
    let x = &arrays[0];
    let mut pos = vec![0i64; x.len()];
    for (k, a) in arrays[1..].iter().enumerate() {
        if a.data_type() == &DataType::Null {
            continue;
        }
        let eq =
            super::compare::compare_arrays_collated(quiver_plan::BinaryOp::Eq, x, a, collation)?;
        for (p, hit) in pos.iter_mut().zip(eq.iter()) {
            if *p == 0 && hit == Some(true) {
                *p = k as i64 + 1;
            }
        }
    }
    Ok(Arc::new(Int64Array::from(pos)))
}

/// MD5 / SHA1 / SHA2(s, bits) of each string's bytes in its charset, as
/// lower-case hex digits: the length is known, so the result is allocated
/// once.
fn digest(
    func: ScalarFunc,
    s: &ArrayRef,
    bits: Option<&ArrayRef>,
    collation: Collation,
) -> Result<ArrayRef> {
    use sha2::Digest as _;
    let bytes = match s.data_type() {
        DataType::Binary => s.clone(),
        _ => crate::bytes::encode_array(collation.charset(), strings(s)?.as_string::<i32>()),
    };
    let bytes = bytes.as_binary::<i32>();
    let bits = match bits {
        Some(b) => Some(cast_array(b, &DataType::Int64)?),
        None => None,
    };
    let bits = bits.as_ref().map(|b| b.as_primitive::<Int64Type>());
    let n = bytes.len();
    let widest = match func {
        ScalarFunc::Md5 => 32,
        ScalarFunc::Sha1 => 40,
        _ => 128,
    };
    let mut b = StringBuilder::with_capacity(n, n * widest);
    let mut hex = String::with_capacity(widest);
    for i in 0..n {
        if bytes.is_null(i) {
            b.append_null();
            continue;
        }
        let v = bytes.value(i);
        let sum: Vec<u8> = match func {
            ScalarFunc::Md5 => md5::Md5::digest(v).to_vec(),
            ScalarFunc::Sha1 => sha1::Sha1::digest(v).to_vec(),
            // A NULL bit count was made 0 by the binder.
            _ => match bits.map_or(0, |b| if b.is_null(i) { 0 } else { b.value(i) }) {
                0 | 256 => sha2::Sha256::digest(v).to_vec(),
                224 => sha2::Sha224::digest(v).to_vec(),
                384 => sha2::Sha384::digest(v).to_vec(),
                512 => sha2::Sha512::digest(v).to_vec(),
                _ => {
                    b.append_null();
                    continue;
                }
            },
        };
        hex.clear();
        for byte in sum {
            const DIGITS: &[u8; 16] = b"0123456789abcdef";
            hex.push(DIGITS[usize::from(byte >> 4)] as char);
            hex.push(DIGITS[usize::from(byte & 15)] as char);
        }
        b.append_value(&hex);
    }
    Ok(Arc::new(b.finish()))
}

fn hex(a: &ArrayRef, collation: Collation) -> Result<ArrayRef> {
    let charset = collation.charset();
    if text::is_single_byte_text(charset) && quiver_common::types::is_string(a.data_type()) {
        let s = strings(a)?;
        return hex_of(&crate::bytes::encode_array(charset, s.as_string::<i32>()));
    }
    hex_of(a)
}

fn hex_of(a: &ArrayRef) -> Result<ArrayRef> {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    if let Some(bin) = a.as_binary_opt::<i32>() {
        let mut b = StringBuilder::with_capacity(bin.len(), bin.values().len() * 2);
        let mut buf = String::new();
        for v in bin.iter() {
            match v {
                None => b.append_null(),
                Some(v) => {
                    buf.clear();
                    for byte in v {
                        buf.push(DIGITS[(byte >> 4) as usize] as char);
                        buf.push(DIGITS[(byte & 15) as usize] as char);
                    }
                    b.append_value(&buf);
                }
            }
        }
        return Ok(Arc::new(b.finish()));
    }
    if a.data_type().is_integer() {
        let i = cast_array(a, &DataType::Decimal128(38, 0))?;
        let i = i.as_primitive::<Decimal128Type>();
        let mut b = StringBuilder::with_capacity(i.len(), i.len() * 8);
        for k in 0..i.len() {
            if i.is_null(k) {
                b.append_null();
            } else {
                b.append_value(format!("{:X}", i.value(k) as u64));
            }
        }
        return Ok(Arc::new(b.finish()));
    }
    let s = strings(a)?;
    let s = s.as_string::<i32>();
    let mut b = StringBuilder::with_capacity(s.len(), s.values().len() * 2);
    let mut buf = String::new();
    for k in 0..s.len() {
        if s.is_null(k) {
            b.append_null();
            continue;
        }
        buf.clear();
        for byte in s.value(k).bytes() {
            buf.push(DIGITS[(byte >> 4) as usize] as char);
            buf.push(DIGITS[(byte & 15) as usize] as char);
        }
        b.append_value(&buf);
    }
    Ok(Arc::new(b.finish()))
}

/// MySQL's TRIM removes whole repetitions of `what` (not a set of
/// characters); an empty `what` removes nothing.
fn trim_str<'a>(s: &'a str, what: &str, leading: bool, trailing: bool) -> &'a str {
    // Whole UTF-8 strings come off whole UTF-8 strings: the rest starts and
    // ends at character boundaries.
    let kept = super::binary_fns::trim(s.as_bytes(), what.as_bytes(), leading, trailing);
    let start = kept.as_ptr() as usize - s.as_ptr() as usize;
    &s[start..start + kept.len()]
}

/// SUBSTRING in characters: 1-based, negative positions count from the end,
/// position 0 gives the empty string (MySQL).
pub(super) fn substring(s: &str, pos: i64, len: Option<i64>) -> &str {
    let count = if s.is_ascii() {
        s.len() as i64
    } else {
        s.chars().count() as i64
    };
    let start = if pos > 0 {
        pos - 1
    } else if pos < 0 {
        count + pos
    } else {
        return "";
    };
    if start < 0 || start >= count {
        return "";
    }
    let take = match len {
        Some(l) if l <= 0 => return "",
        Some(l) => l.min(count - start),
        None => count - start,
    };
    if s.is_ascii() {
        return &s[start as usize..(start + take) as usize];
    }
    let mut idx = s
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()));
    let b = idx.nth(start as usize).unwrap_or(s.len());
    let e = if take == 0 {
        b
    } else {
        idx.nth(take as usize - 1).unwrap_or(s.len())
    };
    &s[b..e]
}

fn days_and_micros(a: &ArrayRef) -> Result<(Vec<i32>, Vec<i64>)> {
    Ok(match a.data_type() {
        DataType::Date32 => (
            a.as_primitive::<Date32Type>().values().to_vec(),
            vec![0; a.len()],
        ),
        DataType::Timestamp(TimeUnit::Microsecond, _) => a
            .as_primitive::<TimestampMicrosecondType>()
            .values()
            .iter()
            .map(|t| {
                (
                    t.div_euclid(86_400_000_000) as i32,
                    t.rem_euclid(86_400_000_000),
                )
            })
            .unzip(),
        _ => return days_and_micros(&cast_array(a, &quiver_common::types::datetime_type(6))?),
    })
}

/// A time-of-day part of strings (each a DATETIME or else a TIME, as
/// MariaDB reads them for HOUR and its kin); NULL with warning 1292 for
/// neither, and a TIME past 838:59:59 is that, with 1292 too.
fn extract_time_of_strings(a: &ArrayRef, part: DatePart) -> Result<ArrayRef> {
    use crate::warnings::{raise_with, Level};
    use quiver_common::types::{parse_datetime, parse_time_fields};
    let strings = a.as_string::<i32>();
    let v: Vec<Option<i64>> = strings
        .iter()
        .map(|s| {
            let s = s?;
            let (h, mi, sec, f) = match parse_datetime(s) {
                Some(t) => clock(t.rem_euclid(86_400_000_000)),
                None => match parse_time_fields(s) {
                    Some(t) => {
                        if t.clamped {
                            raise_with(Level::Warning, 1292, || {
                                format!("Truncated incorrect time value: '{s}'")
                            });
                        }
                        (t.hours, t.minutes, t.seconds, t.micros)
                    }
                    None => {
                        raise_with(Level::Warning, 1292, || {
                            format!("Incorrect time value: '{s}'")
                        });
                        return None;
                    }
                },
            };
            Some(time_part(part, h, mi, sec, f))
        })
        .collect();
    Ok(Arc::new(Int64Array::from(v)))
}

/// A date part of strings some of which are dates with a zero month or
/// day ('2019-00-03'), which MariaDB's date functions read as written (its
/// default sql_mode allows them): those rows from their fields, the others
/// as DATETIMEs.
fn extract_date_of_strings(a: &ArrayRef, part: DatePart) -> Result<Option<ArrayRef>> {
    use quiver_common::types::parse_zero_part_date;
    let strings = a.as_string::<i32>();
    let zero: Vec<Option<(i32, u32, u32)>> = strings
        .iter()
        .map(|s| s.and_then(parse_zero_part_date))
        .collect();
    if zero.iter().all(Option::is_none) {
        return Ok(None);
    }
    if !is_date_only(part) {
        return Ok(None);
    }
    // The other rows as DATETIMEs (with their warnings), these left out.
    let rest: StringArray = strings
        .iter()
        .zip(&zero)
        .map(|(s, z)| if z.is_some() { None } else { s })
        .collect();
    let rest = extract(&(Arc::new(rest) as ArrayRef), part)?;
    let rest = rest.as_primitive::<Int64Type>();
    let v: Vec<Option<i64>> = zero
        .iter()
        .enumerate()
        .map(|(i, z)| match z {
            Some((y, m, d)) => Some(date_part(part, *y, *m, *d)),
            None => rest.is_valid(i).then(|| rest.value(i)),
        })
        .collect();
    Ok(Some(Arc::new(Int64Array::from(v))))
}

/// (hour, minute, second, microsecond) of microseconds into a day.
fn clock(us: i64) -> (i64, i64, i64, i64) {
    (
        us / 3_600_000_000,
        us / 60_000_000 % 60,
        us / 1_000_000 % 60,
        us % 1_000_000,
    )
}

/// Whether `part` is one of a date alone (no week, no time).
fn is_date_only(part: DatePart) -> bool {
    matches!(
        part,
        DatePart::Year | DatePart::Quarter | DatePart::Month | DatePart::Day | DatePart::YearMonth
    )
}

/// A date-only part ([`is_date_only`]) of y-m-d; a zero month is quarter 0.
fn date_part(part: DatePart, y: i32, m: u32, d: u32) -> i64 {
    match part {
        DatePart::Year => y as i64,
        DatePart::Quarter => m.div_ceil(3) as i64,
        DatePart::Month => m as i64,
        DatePart::Day => d as i64,
        _ => y as i64 * 100 + m as i64,
    }
}

/// A time-of-day part ([`DatePart::is_time_of_day`]) of h:mi:s.f; the
/// compound units concatenate their fields' decimal digits.
fn time_part(part: DatePart, h: i64, mi: i64, s: i64, f: i64) -> i64 {
    match part {
        DatePart::Hour => h,
        DatePart::Minute => mi,
        DatePart::Second => s,
        DatePart::Microsecond => f,
        DatePart::HourMinute => h * 100 + mi,
        DatePart::HourSecond => (h * 100 + mi) * 100 + s,
        DatePart::HourMicrosecond => ((h * 100 + mi) * 100 + s) * 1_000_000 + f,
        DatePart::MinuteSecond => mi * 100 + s,
        DatePart::MinuteMicrosecond => (mi * 100 + s) * 1_000_000 + f,
        _ => s * 1_000_000 + f,
    }
}

pub(crate) fn extract(a: &ArrayRef, part: DatePart) -> Result<ArrayRef> {
    if quiver_common::types::is_time(a.data_type()) {
        return extract_of_time(a, part);
    }
    if a.data_type() == &DataType::Utf8 && part.is_time_of_day() {
        return extract_time_of_strings(a, part);
    }
    let read;
    let a = match a.data_type() {
        DataType::Utf8 => {
            if let Some(r) = extract_date_of_strings(a, part)? {
                return Ok(r);
            }
            // Read as DATETIMEs here, so that the NULLs below are theirs.
            read = cast_array(a, &quiver_common::types::datetime_type(6))?;
            &read
        }
        _ => a,
    };
    let (days, micros) = days_and_micros(a)?;
    let v: Vec<i64> = days
        .iter()
        .zip(&micros)
        .map(|(d, us)| {
            let (y, m, dd) = civil_from_days(*d);
            let (h, mi, s, f) = clock(*us);
            let day = dd as i64;
            // The compound units concatenate their fields' decimal digits.
            match part {
                DatePart::Week => week_mode0(*d, y),
                DatePart::DayHour => day * 100 + h,
                DatePart::DayMinute => (day * 100 + h) * 100 + mi,
                DatePart::DaySecond => ((day * 100 + h) * 100 + mi) * 100 + s,
                DatePart::DayMicrosecond => {
                    (((day * 100 + h) * 100 + mi) * 100 + s) * 1_000_000 + f
                }
                p if p.is_time_of_day() => time_part(p, h, mi, s, f),
                p => date_part(p, y, m, dd),
            }
        })
        .collect();
    Ok(Arc::new(Int64Array::new(v.into(), a.logical_nulls())))
}

/// EXTRACT(part FROM time), as MariaDB: the fields of the magnitude with
/// the hours below 24 (the rest are days), each signed as the time is;
/// a date part is 0.
fn extract_of_time(a: &ArrayRef, part: DatePart) -> Result<ArrayRef> {
    let v = a.as_primitive::<arrow_array::types::Decimal64Type>();
    Ok(Arc::new(v.unary::<_, Int64Type>(|t| {
        let sign = if t < 0 { -1 } else { 1 };
        let m = t.unsigned_abs() as i64;
        let (h, mi, s, f) = clock(m);
        let (day, h) = (h / 24, h % 24);
        sign * match part {
            DatePart::Day => day,
            DatePart::DayHour => day * 100 + h,
            DatePart::DayMinute => (day * 100 + h) * 100 + mi,
            DatePart::DaySecond => ((day * 100 + h) * 100 + mi) * 100 + s,
            DatePart::DayMicrosecond => (((day * 100 + h) * 100 + mi) * 100 + s) * 1_000_000 + f,
            p if p.is_time_of_day() => time_part(p, h, mi, s, f),
            _ => 0,
        }
    })))
}

/// EXTRACT(WEEK ...) is WEEK(d, 0) under the default default_week_format:
/// weeks start on Sunday, and days before the year's first Sunday are week 0.
fn week_mode0(day: i32, year: i32) -> i64 {
    let jan1 = quiver_common::types::days_from_civil(year, 1, 1);
    // 1970-01-01 was a Thursday: weekday 4 counting from Sunday.
    let jan1_weekday = (jan1 as i64 + 4).rem_euclid(7);
    let first_sunday = (7 - jan1_weekday) % 7;
    let doy = (day - jan1) as i64;
    if doy < first_sunday {
        0
    } else {
        (doy - first_sunday) / 7 + 1
    }
}

/// TIMESTAMPDIFF as MariaDB computes it: the time between a and b in
/// whole units, negative when b is earlier; months (and quarters, years)
/// count calendar months, one less when b's day and time of month have not
/// reached a's.
fn timestamp_diff(a: &ArrayRef, b: &ArrayRef, part: DatePart) -> Result<ArrayRef> {
    const DAY: i64 = 86_400_000_000;
    let (da, ua) = days_and_micros(a)?;
    let (db, ub) = days_and_micros(b)?;
    let nulls = NullBuffer::union(a.logical_nulls().as_ref(), b.logical_nulls().as_ref());
    let v: Vec<i64> = (0..da.len())
        .map(|i| {
            let (ta, tb) = (da[i] as i64 * DAY + ua[i], db[i] as i64 * DAY + ub[i]);
            // Counted from the earlier to the later, then signed.
            let (neg, beg, end) = if tb < ta {
                (-1, (db[i], ub[i]), (da[i], ua[i]))
            } else {
                (1, (da[i], ua[i]), (db[i], ub[i]))
            };
            let diff = (tb - ta).abs();
            let months = || {
                let (y1, m1, d1) = civil_from_days(beg.0);
                let (y2, m2, d2) = civil_from_days(end.0);
                let mut months = (y2 as i64 * 12 + m2 as i64) - (y1 as i64 * 12 + m1 as i64);
                if d2 < d1 || (d2 == d1 && end.1 < beg.1) {
                    months -= 1;
                }
                months
            };
            neg * match part {
                DatePart::Year => months() / 12,
                DatePart::Quarter => months() / 3,
                DatePart::Month => months(),
                DatePart::Week => diff / DAY / 7,
                DatePart::Day => diff / DAY,
                DatePart::Hour => diff / 3_600_000_000,
                DatePart::Minute => diff / 60_000_000,
                DatePart::Second => diff / 1_000_000,
                _ => diff,
            }
        })
        .collect();
    Ok(Arc::new(Int64Array::new(v.into(), nulls)))
}

/// `ScalarFunc::Interval`: each string read as an interval of `part`.
fn interval_amount(a: &ArrayRef, part: DatePart) -> Result<ArrayRef> {
    let a = strings(a)?;
    let s = a.as_string::<i32>();
    let v: Int64Array = (0..s.len())
        .map(|i| {
            if s.is_null(i) {
                None
            } else {
                part.parse_interval(s.value(i))
            }
        })
        .collect();
    Ok(Arc::new(v))
}

/// 0001-01-01 as days since 1970-01-01.
const FIRST_DAY_NUMBER: i64 = -719_162;

fn date_add(a: &ArrayRef, n: &ArrayRef, part: DatePart, t: &DataType) -> Result<ArrayRef> {
    let (days, micros) = days_and_micros(a)?;
    let n = cast_array(n, &DataType::Int64)?;
    let nv = n.as_primitive::<Int64Type>();
    let nulls = NullBuffer::union(a.logical_nulls().as_ref(), n.logical_nulls().as_ref());
    let len = days.len();
    let mut out_days = Vec::with_capacity(len);
    let mut out_us = Vec::with_capacity(len);
    let mut bad = Vec::new();
    for i in 0..len {
        let k = nv.value(i);
        let day = days[i] as i64;
        // A count too large for the arithmetic is out of range (NULL) too.
        let (d, us) = match part {
            DatePart::Day => (day.checked_add(k), micros[i]),
            DatePart::Week => (k.checked_mul(7).and_then(|k| day.checked_add(k)), micros[i]),
            DatePart::Month => (add_months(days[i], k).map(|d| d as i64), micros[i]),
            DatePart::Quarter => (
                k.checked_mul(3)
                    .and_then(|k| add_months(days[i], k))
                    .map(|d| d as i64),
                micros[i],
            ),
            DatePart::Year => (
                k.checked_mul(12)
                    .and_then(|k| add_months(days[i], k))
                    .map(|d| d as i64),
                micros[i],
            ),
            DatePart::Hour | DatePart::Minute | DatePart::Second | DatePart::Microsecond => {
                let unit = match part {
                    DatePart::Hour => 3_600_000_000i64,
                    DatePart::Minute => 60_000_000,
                    DatePart::Second => 1_000_000,
                    _ => 1,
                };
                match k
                    .checked_mul(unit)
                    .and_then(|k| (day * 86_400_000_000 + micros[i]).checked_add(k))
                {
                    Some(total) => (
                        Some(total.div_euclid(86_400_000_000)),
                        total.rem_euclid(86_400_000_000),
                    ),
                    None => (None, 0),
                }
            }
            // The binder counts a compound interval in months or microseconds.
            other => {
                return Err(QuiverError::internal(format!(
                    "DateAdd of a compound unit {}",
                    other.name()
                )))
            }
        };
        // MySQL: counting days or time reaches no date before 0001-01-01
        // (a day number in year 0 is invalid); months and years reach 0000.
        let first = match part {
            DatePart::Month | DatePart::Quarter | DatePart::Year => -719_528,
            _ => FIRST_DAY_NUMBER,
        };
        match d {
            Some(d) if (first..=2_932_896).contains(&d) => {
                out_days.push(d as i32);
                out_us.push(us);
            }
            _ => {
                bad.push(i);
                out_days.push(0);
                out_us.push(0);
            }
        }
    }
    let nulls = if bad.is_empty() {
        nulls
    } else {
        let mut valid: Vec<bool> = (0..len)
            .map(|i| nulls.as_ref().is_none_or(|n| n.is_valid(i)))
            .collect();
        for i in bad {
            valid[i] = false;
        }
        Some(NullBuffer::from(valid))
    };
    Ok(match t {
        DataType::Date32 => Arc::new(Date32Array::new(out_days.into(), nulls)),
        _ => {
            let v: Vec<i64> = out_days
                .iter()
                .zip(&out_us)
                .map(|(d, us)| *d as i64 * 86_400_000_000 + us)
                .collect();
            let fsp = match t {
                DataType::Timestamp(_, fsp) => fsp.clone(),
                _ => None,
            };
            Arc::new(TimestampMicrosecondArray::new(v.into(), nulls).with_timezone_opt(fsp))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::PhysicalExpr;
    use super::substring;
    use super::*;
    use arrow_array::{BinaryArray, RecordBatch};
    use arrow_schema::{Field, Schema};
    use quiver_plan::{BinaryOp, UnaryOp};

    /// Binary values through HEX, CASE, COALESCE, IS NULL and casts to
    /// numbers (MariaDB: HEX(X'41FF') is '41FF', CAST(X'3132' AS SIGNED)
    /// is 12, X'41' + 0 is 0).
    #[test]
    fn binary_values_through_expressions() {
        let b: ArrayRef = Arc::new(BinaryArray::from(vec![
            Some(&b"\x41\xFF"[..]),
            None,
            Some(b"12"),
            Some(b"A"),
        ]));
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("b", DataType::Binary, true)])),
            vec![b.clone()],
        )
        .unwrap();
        let col = || Box::new(PhysicalExpr::Column(0));
        let hex = PhysicalExpr::Function {
            func: ScalarFunc::Hex,
            args: vec![PhysicalExpr::Column(0)],
            data_type: DataType::Utf8,
            state: None,
        };
        let h = hex.evaluate_array(&batch).unwrap();
        let h: Vec<Option<&str>> = h.as_string::<i32>().iter().collect();
        assert_eq!(h, [Some("41FF"), None, Some("3132"), Some("41")]);
        let lit =
            |v: &[u8]| PhysicalExpr::Literal(ScalarValue::Binary(v.to_vec()), DataType::Binary);
        let coalesce = PhysicalExpr::Function {
            func: ScalarFunc::Coalesce,
            args: vec![PhysicalExpr::Column(0), lit(b"\0")],
            data_type: DataType::Binary,
            state: None,
        };
        let c = coalesce.evaluate_array(&batch).unwrap();
        assert_eq!(c.as_binary::<i32>().value(1), b"\0");
        assert_eq!(c.as_binary::<i32>().value(0), b"\x41\xFF");
        // CASE WHEN b = X'41' THEN X'FF' ELSE b END
        let case = PhysicalExpr::Case {
            branches: vec![(
                PhysicalExpr::Binary {
                    op: BinaryOp::Eq,
                    left: col(),
                    right: Box::new(lit(b"A")),
                    data_type: DataType::Boolean,
                    collation: Collation::binary(),
                },
                lit(b"\xFF"),
            )],
            else_expr: Some(col()),
            data_type: DataType::Binary,
        };
        let c = case.evaluate_array(&batch).unwrap();
        let c: Vec<Option<&[u8]>> = c.as_binary::<i32>().iter().collect();
        assert_eq!(
            c,
            [Some(&b"\x41\xFF"[..]), None, Some(b"12"), Some(b"\xFF")]
        );
        let is_null = PhysicalExpr::Unary {
            op: UnaryOp::IsNull,
            expr: col(),
        };
        let n = is_null.evaluate_array(&batch).unwrap();
        assert_eq!(
            n.as_boolean(),
            &BooleanArray::from(vec![false, true, false, false])
        );
        let cast = super::super::cast::sql_cast(&b, &DataType::Int64).unwrap();
        let cast = cast.as_primitive::<Int64Type>();
        assert_eq!(
            (cast.value(2), cast.value(3), cast.is_null(1)),
            (12, 0, true)
        );
        let f = cast_array(&b, &DataType::Float64).unwrap();
        assert_eq!(f.as_primitive::<Float64Type>().value(2), 12.0);
        let text = cast_array(&b, &DataType::Utf8).unwrap();
        assert_eq!(text.as_string::<i32>().value(0), "A?");
    }

    #[test]
    fn substring_mysql_positions() {
        assert_eq!(substring("Quadratically", 5, None), "ratically");
        assert_eq!(substring("Quadratically", 5, Some(6)), "ratica");
        assert_eq!(substring("Sakila", -3, None), "ila");
        assert_eq!(substring("Sakila", 0, None), "");
        assert_eq!(substring("héllo", 2, Some(3)), "éll");
        assert_eq!(substring("13-123", 1, Some(2)), "13");
    }
}
