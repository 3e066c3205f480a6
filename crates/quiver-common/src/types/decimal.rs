//! DECIMAL rules and values: precision / scale limits, the Arrow type of a
//! DECIMAL(p, s), and converting, rescaling, parsing and printing unscaled
//! decimals (i128 and i256).

use std::cmp::Ordering;

use arrow_buffer::i256;
use arrow_schema::DataType;

use super::integer::integer_digits;

/// MySQL's largest DECIMAL precision; results that would need more are capped here.
pub const MAX_DECIMAL_PRECISION: u8 = 65;
/// Largest precision kept in Arrow's Decimal128 (and its i128 kernels);
/// wider decimals are Decimal256.
pub const MAX_DECIMAL128_PRECISION: u8 = 38;
/// Digits of a quotient kept inside an expression (Decimal256's 76).
pub const MAX_INTERNAL_PRECISION: u8 = 76;
/// MariaDB's largest DECIMAL scale (declared and computed).
pub const MAX_DECIMAL_SCALE: i8 = 38;
/// MySQL's `div_precision_increment` default: `/` adds this many digits of scale.
pub const DIV_PRECISION_INCREMENT: i8 = 4;

/// The Arrow type of DECIMAL(p, s): Decimal128 up to 38 digits, Decimal256 beyond.
pub fn decimal_type(p: u8, s: i8) -> DataType {
    if p <= MAX_DECIMAL128_PRECISION {
        DataType::Decimal128(p, s)
    } else {
        DataType::Decimal256(p, s)
    }
}

/// (precision, scale) of a numeric type seen as a decimal.
pub fn decimal_shape(t: &DataType) -> (u8, i8) {
    match t {
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => (*p, *s),
        other => (integer_digits(other), 0),
    }
}

pub(super) fn capped(p: i32, s: i8) -> DataType {
    let s = s.clamp(0, MAX_DECIMAL_SCALE);
    let p = p.clamp(s.max(1) as i32, MAX_DECIMAL_PRECISION as i32) as u8;
    decimal_type(p, s)
}

/// A double at `scale`, rounded half away from zero; None beyond i256.
pub fn float_to_decimal256(f: f64, scale: i8) -> Option<i256> {
    let x = (f * 10f64.powi(scale as i32)).round();
    if x.abs() < 1e38 {
        return Some(i256::from_i128(x as i128));
    }
    if !f.is_finite() {
        return None;
    }
    // Large values from the double's shortest decimal text, as MySQL reads
    // them (1e65 is 10^65, not the binary value just below it).
    let text = format!("{f:e}");
    let (mantissa, exp) = text.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let (m, frac) = parse_decimal256(mantissa)?;
    let shift = exp + scale as i32 - frac as i32;
    if shift >= 0 {
        m.checked_mul(pow10(shift as u32)?)
    } else {
        rescale256(m, (-shift).min(76) as i8, 0)
    }
}

/// 10^0 ..= 10^76, the powers an i256 holds.
static POW10: [i256; 77] = {
    let mut t = [i256::ONE; 77];
    let mut i = 1;
    while i < 77 {
        t[i] = t[i - 1].wrapping_mul(i256::from_i128(10));
        i += 1;
    }
    t
};

/// 10^n as an i256 (None past 10^76).
#[inline]
pub fn pow10(n: u32) -> Option<i256> {
    POW10.get(n as usize).copied()
}

/// An i256 as the nearest double.
pub fn i256_to_f64(v: i256) -> f64 {
    match v.to_i128() {
        Some(x) => x as f64,
        None => {
            let (low, high) = v.to_parts();
            high as f64 * 2f64.powi(128) + low as f64
        }
    }
}

/// Changes the scale of an unscaled decimal, rounding half away from zero.
pub fn rescale(v: i128, from: i8, to: i8) -> Option<i128> {
    match to.cmp(&from) {
        Ordering::Equal => Some(v),
        Ordering::Greater => v.checked_mul(10i128.checked_pow((to - from) as u32)?),
        Ordering::Less => {
            let Some(d) = 10i128.checked_pow((from - to) as u32) else {
                return Some(0);
            };
            let q = v / d;
            let r = (v % d).abs() * 2;
            Some(if r >= d { q + v.signum() } else { q })
        }
    }
}

/// [`rescale`] of an i256.
pub fn rescale256(v: i256, from: i8, to: i8) -> Option<i256> {
    // Most values and results fit an i128, whose arithmetic is much cheaper.
    if let Some(r) = v.to_i128().and_then(|x| rescale(x, from, to)) {
        return Some(i256::from_i128(r));
    }
    match to.cmp(&from) {
        Ordering::Equal => Some(v),
        Ordering::Greater => v.checked_mul(pow10((to - from) as u32)?),
        Ordering::Less => {
            let Some(d) = pow10((from - to) as u32) else {
                return Some(i256::ZERO);
            };
            let (q, r) = v.checked_div_rem(d)?;
            let r2 = r.wrapping_abs().wrapping_mul(i256::from_i128(2));
            Some(if r2 >= d {
                q.wrapping_add(v.signum())
            } else {
                q
            })
        }
    }
}

/// Parses `[-+]digits[.digits]` into (unscaled, scale).
pub fn parse_decimal(s: &str) -> Option<(i128, i8)> {
    let (v, scale) = parse_decimal256(s)?;
    if scale > 30 {
        return None;
    }
    Some((v.to_i128()?, scale))
}

/// [`parse_decimal`] with room for 76 digits (and a fraction of up to 76).
pub fn parse_decimal256(s: &str) -> Option<(i256, i8)> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if (int_part.is_empty() && frac.is_empty())
        || !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 76
    {
        return None;
    }
    // Digits in chunks of 18 through i128 before the slower i256 steps.
    let mut v = i256::ZERO;
    let digits: Vec<u8> = int_part.bytes().chain(frac.bytes()).collect();
    for chunk in digits.chunks(18) {
        let mut c: i128 = 0;
        for b in chunk {
            c = c * 10 + (b - b'0') as i128;
        }
        v = v
            .checked_mul(pow10(chunk.len() as u32)?)?
            .checked_add(i256::from_i128(c))?;
    }
    Some((if neg { v.wrapping_neg() } else { v }, frac.len() as i8))
}

pub fn format_decimal(v: i128, scale: i8) -> String {
    if scale <= 0 {
        return v.to_string();
    }
    place_point(v < 0, v.unsigned_abs().to_string(), scale)
}

/// [`format_decimal`] of an i256.
pub fn format_decimal256(v: i256, scale: i8) -> String {
    if let Some(x) = v.to_i128() {
        return format_decimal(x, scale);
    }
    if scale <= 0 {
        return v.to_string();
    }
    // i256::MIN has no absolute value, and no DECIMAL(65) holds it.
    let digits = v.wrapping_abs().to_string();
    place_point(
        v.is_negative(),
        digits.trim_start_matches('-').to_string(),
        scale,
    )
}

fn place_point(neg: bool, digits: String, scale: i8) -> String {
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{}", "0".repeat(scale + 1 - digits.len()), digits)
    } else {
        digits
    };
    let (i, f) = padded.split_at(padded.len() - scale);
    format!("{}{}.{}", if neg { "-" } else { "" }, i, f)
}

#[cfg(test)]
mod tests {
    use crate::types::*;

    #[test]
    fn decimal_text() {
        assert_eq!(format_decimal(-5, 2), "-0.05");
        assert_eq!(format_decimal(12345, 2), "123.45");
        assert_eq!(parse_decimal("-1.50"), Some((-150, 2)));
        assert_eq!(rescale(125, 2, 1), Some(13));
        assert_eq!(rescale(-125, 2, 1), Some(-13));
    }
}
