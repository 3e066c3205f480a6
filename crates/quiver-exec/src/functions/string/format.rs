//! FORMAT(x, d[, locale]): x rounded to d decimals (0 to 38; a negative d
//! is 0, NULL gives NULL) with its integer digits grouped, as MariaDB's
//! `Item_func_format`.
//!
//! An integer or DECIMAL x is rounded exactly, half away from zero; any
//! other x is read as DOUBLE (a string by its numeric prefix, with warning
//! 1292), rounded as MariaDB's `my_double_round` (half to even on the
//! scaled value) and printed by its shortest digits, padded with zeros
//! (FORMAT(1e20, 3) is 99,999,999,999,999,980,000.000 as in MariaDB).
//!
//! The locale (en_US without one) gives the decimal point, the thousands
//! separator and the grouping; the table [`LOCALES`] holds MariaDB 10.11's
//! locales as its FORMAT shows them. An unknown name (or NULL) formats as
//! en_US with warning 1649; sr_YU as sr_RS with warning 1287.

use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{cast::AsArray, types::*, Array, ArrayRef};
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use crate::expr::cast_array;
use crate::warnings::{raise_with, Level};

/// MariaDB's most decimals FORMAT shows.
const MAX_DECIMALS: i64 = 38;

/// How a locale writes a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rule {
    point: u8,
    /// The thousands separator; None: digits are not grouped.
    separator: Option<u8>,
    /// Groups of 3 then 2 (en_IN) rather than of 3.
    indian: bool,
}

const fn rule(point: u8, separator: Option<u8>) -> Rule {
    Rule {
        point,
        separator,
        indian: false,
    }
}

const EN: Rule = rule(b'.', Some(b','));
const DE: Rule = rule(b',', Some(b'.'));
const FR: Rule = rule(b',', None);
const PLAIN: Rule = rule(b'.', None);
const SPACE: Rule = rule(b',', Some(b' '));
const BG: Rule = rule(b',', Some(0));
const CH: Rule = rule(b'.', Some(b'\''));
const IT_CH: Rule = rule(b',', Some(b'\''));
const IN: Rule = Rule {
    point: b'.',
    separator: Some(b','),
    indian: true,
};

/// MariaDB 10.11's locales by the way FORMAT writes 123456789012345.5 in
/// each (asked of the server, one name at a time).
const LOCALES: &[(&[&str], Rule)] = &[
    (
        &[
            "ar_AE", "ar_BH", "ar_DZ", "ar_EG", "ar_IN", "ar_IQ", "ar_JO", "ar_KW", "ar_LB",
            "ar_LY", "ar_MA", "ar_OM", "ar_QA", "ar_SD", "ar_SY", "ar_TN", "ar_YE", "en_AU",
            "en_CA", "en_GB", "en_NZ", "en_PH", "en_US", "en_ZA", "en_ZW", "es_DO", "es_GT",
            "es_HN", "es_MX", "es_NI", "es_PA", "es_PE", "es_PR", "es_SV", "es_US", "gu_IN",
            "he_IL", "hi_IN", "ja_JP", "ko_KR", "ms_MY", "th_TH", "ur_PK", "zh_CN", "zh_HK",
            "zh_TW",
        ],
        EN,
    ),
    (&["ar_SA", "sr_RS"], PLAIN),
    (
        &[
            "be_BY", "da_DK", "de_BE", "de_DE", "de_LU", "es_AR", "es_BO", "es_CL", "es_CO",
            "es_EC", "es_ES", "es_PY", "es_UY", "es_VE", "fo_FO", "hu_HU", "id_ID", "is_IS",
            "lt_LT", "mn_MN", "nb_NO", "no_NO", "ro_RO", "ru_UA", "sq_AL", "tr_TR", "uk_UA",
            "vi_VN",
        ],
        DE,
    ),
    (&["bg_BG"], BG),
    (
        &[
            "ca_ES", "de_AT", "el_GR", "eu_ES", "fr_BE", "fr_CA", "fr_CH", "fr_FR", "fr_LU",
            "gl_ES", "hr_HR", "it_IT", "nl_BE", "nl_NL", "pl_PL", "pt_BR", "pt_PT", "sl_SI",
        ],
        FR,
    ),
    (
        &[
            "cs_CZ", "es_CR", "et_EE", "fi_FI", "ka_GE", "lv_LV", "mk_MK", "ru_RU", "sk_SK",
            "sv_FI", "sv_SE",
        ],
        SPACE,
    ),
    (&["de_CH"], CH),
    (&["en_IN", "ta_IN", "te_IN"], IN),
    (&["it_CH", "rm_CH"], IT_CH),
];

/// The rule of locale `name` (None for NULL), with MariaDB's warning for a
/// name it does not know or has deprecated.
fn locale(name: Option<&str>) -> Rule {
    let Some(name) = name else {
        raise_with(Level::Warning, 1649, || "Unknown locale: 'NULL'".into());
        return EN;
    };
    if name.eq_ignore_ascii_case("sr_YU") {
        raise_with(Level::Warning, 1287, || {
            "'sr_YU' is deprecated and will be removed in a future release. Please use sr_RS instead".into()
        });
        return PLAIN;
    }
    for (names, rule) in LOCALES {
        if names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            return *rule;
        }
    }
    raise_with(Level::Warning, 1649, || format!("Unknown locale: '{name}'"));
    EN
}

pub struct Format;

pub static FORMAT: Format = Format;

impl ScalarFunction for Format {
    fn name(&self) -> &'static str {
        "format"
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=3
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let x = match &args[0] {
            t if t.is_unsigned_integer() => DataType::UInt64,
            t if t.is_integer() => DataType::Int64,
            DataType::Boolean => DataType::Int64,
            t @ DataType::Decimal128(..) => t.clone(),
            DataType::Null => DataType::Null,
            t if t.is_numeric() || is_string(t) => DataType::Float64,
            other => return Err(QuiverError::not_supported(format!("FORMAT of {other}"))),
        };
        let mut out = vec![x, DataType::Int64];
        if args.len() == 3 {
            out.push(match &args[2] {
                DataType::Null => DataType::Null,
                _ => DataType::Utf8,
            });
        }
        Ok(out)
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    /// MariaDB's length: the integer digits x may have, a separator per 3
    /// of them, a point, a sign and the decimals (38 when not constant).
    fn max_chars(&self, args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        let digits: u64 = match &args[0].data_type {
            DataType::Int64 => 19,
            DataType::UInt64 => 20,
            DataType::Decimal128(p, s) => (*p as i64 - (*s as i64).max(0)).max(1) as u64,
            _ => 310,
        };
        let dec = match (&args[1].literal, args[1].int_literal()) {
            (Some(_), Some(d)) => d.clamp(0, MAX_DECIMALS) as u64,
            _ => MAX_DECIMALS as u64,
        };
        Some(digits + digits / 3 + u64::from(dec > 0) + 1 + dec)
    }

    fn string_result(&self) -> StringResult {
        StringResult::Coercible
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let x = a.arg(0)?;
        if x.data_type() == &DataType::Null {
            let nulls = arrow_array::new_null_array(&DataType::Utf8, a.rows);
            return a.finish(nulls, call.data_type);
        }
        let decimals = cast_array(a.arg(1)?, &DataType::Int64)?;
        let decimals = decimals.as_primitive::<Int64Type>();
        // A constant locale is looked up once (and warns once per row, as
        // MariaDB does for each row).
        let locales: Option<ArrayRef> = match a.arrays.get(2) {
            Some(l) => Some(cast_array(l, &DataType::Utf8)?),
            None => None,
        };
        let locales = locales.as_ref().map(|l| l.as_string::<i32>());
        let constant_rule = match (args.get(2), locales) {
            (None, _) => Some(EN),
            (Some(ColumnarValue::Scalar(..)), Some(l)) if a.rows > 0 => {
                Some(locale(l.is_valid(0).then(|| l.value(0))))
            }
            _ => None,
        };
        let mut b = StringBuilder::with_capacity(a.rows, a.rows * 16);
        let mut plain = String::new();
        let mut out = Vec::new();
        for i in 0..a.rows {
            // MariaDB reads the locale before it looks at x.
            let rule = match (constant_rule, locales) {
                (Some(r), _) => r,
                (None, Some(l)) => locale(l.is_valid(i).then(|| l.value(i))),
                (None, None) => EN,
            };
            if x.is_null(i) || decimals.is_null(i) {
                b.append_null();
                continue;
            }
            let d = decimals.value(i).clamp(0, MAX_DECIMALS) as usize;
            plain.clear();
            plain_text(x, i, d, &mut plain);
            out.clear();
            group(plain.as_bytes(), rule, &mut out);
            // Digits, a sign, the locale's ASCII marks (or a NUL byte).
            b.append_value(std::str::from_utf8(&out).unwrap_or_default());
        }
        a.finish(Arc::new(b.finish()), call.data_type)
    }
}

/// Row `i` of `x` rounded to `d` decimals, as `-1234.50`.
fn plain_text(x: &ArrayRef, i: usize, d: usize, out: &mut String) {
    use std::fmt::Write;
    match x.data_type() {
        DataType::Int64 => {
            let _ = write!(out, "{}", x.as_primitive::<Int64Type>().value(i));
            pad(out, 0, d);
        }
        DataType::UInt64 => {
            let _ = write!(out, "{}", x.as_primitive::<UInt64Type>().value(i));
            pad(out, 0, d);
        }
        DataType::Decimal128(_, s) => {
            let v = x.as_primitive::<Decimal128Type>().value(i);
            decimal_text(v, (*s).max(0) as usize, d, out);
        }
        _ => {
            let v = x.as_primitive::<Float64Type>().value(i);
            double_text(v, d, out);
        }
    }
}

/// Appends the point (if none yet and `d` > 0) and zeros up to `d`
/// decimals; `have` is how many decimals `out` already has.
fn pad(out: &mut String, have: usize, d: usize) {
    if d == 0 {
        return;
    }
    if have == 0 {
        out.push('.');
    }
    out.extend(std::iter::repeat_n('0', d.saturating_sub(have)));
}

/// A DECIMAL's unscaled `v` of scale `s` rounded half away from zero to `d`
/// decimals.
fn decimal_text(v: i128, s: usize, d: usize, out: &mut String) {
    let (m, keep) = if d < s {
        let unit = 10u128.pow((s - d) as u32);
        let a = v.unsigned_abs();
        let q = a / unit + u128::from(a % unit >= unit / 2);
        (q, d)
    } else {
        (v.unsigned_abs(), s)
    };
    if v < 0 && m != 0 {
        out.push('-');
    }
    let digits = m.to_string();
    if keep == 0 {
        out.push_str(&digits);
        pad(out, 0, d);
        return;
    }
    let digits = format!("{digits:0>width$}", width = keep + 1);
    let (int, frac) = digits.split_at(digits.len() - keep);
    out.push_str(int);
    out.push('.');
    out.push_str(frac);
    pad(out, keep, d);
}

/// MariaDB's `my_double_round(v, d)` printed by its shortest digits and
/// padded to `d` decimals.
fn double_text(v: f64, d: usize, out: &mut String) {
    let scale = 10f64.powi(d as i32);
    let scaled = v * scale;
    let r = if scaled.is_infinite() {
        v
    } else {
        scaled.round_ties_even() / scale
    };
    let r = if r == 0.0 { 0.0 } else { r };
    let text = format!("{r}");
    let frac = text.find('.').map_or(0, |p| text.len() - p - 1);
    if frac > d {
        // More digits than asked (the division left some): cut by rounding.
        out.push_str(&format!("{r:.d$}"));
        return;
    }
    out.push_str(&text);
    pad(out, frac, d);
}

/// `plain` (`-1234.50`) with its integer digits grouped and its point as
/// the locale writes them.
fn group(plain: &[u8], rule: Rule, out: &mut Vec<u8>) {
    let (sign, rest) = match plain.first() {
        Some(b'-') => (true, &plain[1..]),
        _ => (false, plain),
    };
    let int_len = rest.iter().position(|c| *c == b'.').unwrap_or(rest.len());
    let (int, frac) = rest.split_at(int_len);
    out.reserve(plain.len() + int_len / 2 + 1);
    if sign {
        out.push(b'-');
    }
    match rule.separator {
        None => out.extend_from_slice(int),
        Some(sep) => {
            // Where separators go, counted from the right: after 3 digits,
            // then every 3 (or every 2 in the Indian grouping).
            let n = int.len();
            for (k, c) in int.iter().enumerate() {
                let right = n - k;
                if k > 0 {
                    let cut = if rule.indian {
                        right >= 3 && (right - 3) % 2 == 0
                    } else {
                        right % 3 == 0
                    };
                    if cut {
                        out.push(sep);
                    }
                }
                out.push(*c);
            }
        }
    }
    if let Some((_, f)) = frac.split_first() {
        out.push(rule.point);
        out.extend_from_slice(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(plain: &str, rule: Rule) -> String {
        let mut out = Vec::new();
        group(plain.as_bytes(), rule, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn groups_as_mariadb() {
        assert_eq!(fmt("123456789012345.5", EN), "123,456,789,012,345.5");
        assert_eq!(fmt("123456789012345.5", IN), "12,34,56,78,90,12,345.5");
        assert_eq!(fmt("-1234567.89", DE), "-1.234.567,89");
        assert_eq!(fmt("123", EN), "123");
        assert_eq!(fmt("1234", IN), "1,234");
    }

    #[test]
    fn rounds_as_mariadb() {
        let d = |v: i128, s, d| {
            let mut o = String::new();
            decimal_text(v, s, d, &mut o);
            o
        };
        assert_eq!(d(25, 1, 0), "3");
        assert_eq!(d(-5, 1, 0), "-1");
        assert_eq!(d(-1, 4, 2), "0.00");
        assert_eq!(d(12345, 1, 3), "1234.500");
        let f = |v: f64, d| {
            let mut o = String::new();
            double_text(v, d, &mut o);
            o
        };
        assert_eq!(f(2.5, 0), "2");
        assert_eq!(f(0.1 + 0.2, 20), "0.30000000000000004000");
        assert_eq!(f(1e20, 3), "99999999999999980000.000");
    }
}
