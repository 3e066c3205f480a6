//! The registered aggregates (`quiver_plan::AggregateFunction`): one file
//! per aggregate or small family, each with its grouped accumulator
//! (`quiver_plan::GroupsAccumulator`). The contract and its reasons are in
//! `quiver_plan::aggregate`; the list is `super::AGGREGATES`.

pub mod bit;
pub mod variance;

use std::sync::Arc;

use arrow_array::{ArrayRef, Decimal128Array, Decimal256Array, Float64Array};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use quiver_common::i256;
use quiver_common::{QuiverError, Result};

/// DOUBLE values as a column of `t`: Float64 as they are; a decimal type
/// (a DOUBLE MariaDB shows with fixed decimals) through each value's
/// shortest digits, as MariaDB prints such a double (`5.67e37` with 4
/// decimals is `56700000000000000000000000000000000000.0000`, not the
/// binary value's exact digits).
pub(crate) fn doubles_as(
    values: Vec<f64>,
    valid: Vec<bool>,
    t: &DataType,
    name: &str,
) -> Result<ArrayRef> {
    let nulls = Some(NullBuffer::from(valid.clone()));
    let decimal = |scale: i8| -> Result<Vec<i256>> {
        values
            .iter()
            .zip(&valid)
            .map(|(v, ok)| match ok {
                false => Ok(i256::ZERO),
                true => shortest_decimal(*v, scale)
                    .ok_or_else(|| QuiverError::out_of_range("DOUBLE", name)),
            })
            .collect()
    };
    Ok(match t {
        DataType::Decimal256(p, s) => Arc::new(
            Decimal256Array::new(decimal(*s)?.into(), nulls).with_precision_and_scale(*p, *s)?,
        ),
        DataType::Decimal128(p, s) => {
            let v = decimal(*s)?
                .into_iter()
                .map(|x| {
                    x.to_i128()
                        .ok_or_else(|| QuiverError::out_of_range("DOUBLE", name))
                })
                .collect::<Result<Vec<i128>>>()?;
            Arc::new(Decimal128Array::new(v.into(), nulls).with_precision_and_scale(*p, *s)?)
        }
        _ => Arc::new(Float64Array::new(values.into(), nulls)),
    })
}

/// `v` as an integer of `scale` decimals, from its shortest round-trip
/// digits (digits beyond them are zeros), rounded half away from zero;
/// None for infinities, NaN and values beyond 76 digits.
pub(crate) fn shortest_decimal(v: f64, scale: i8) -> Option<i256> {
    if !v.is_finite() {
        return None;
    }
    // `{:e}` writes the shortest digits that read back as `v`: d.ddde±x.
    let text = format!("{:e}", v.abs());
    let (mantissa, exp) = text.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let digits: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    // The value is 0.d1d2d3... * 10^(exp + 1); keep the digits before
    // position exp + 1 + scale.
    let keep = exp + 1 + scale as i32;
    let ten = i256::from_i128(10);
    let mut out = i256::ZERO;
    for i in 0..keep.max(0) {
        let d = digits.get(i as usize).copied().unwrap_or(0);
        out = out
            .checked_mul(ten)?
            .checked_add(i256::from_i128(d as i128))?;
    }
    let next = if keep >= 0 {
        digits.get(keep as usize).copied().unwrap_or(0)
    } else {
        0
    };
    if next >= 5 {
        out = out.checked_add(i256::ONE)?;
    }
    Some(if v < 0.0 { out.wrapping_neg() } else { out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_decimal_pads_and_rounds() {
        let d = |v: f64, s: i8| shortest_decimal(v, s).map(|x| x.to_string());
        assert_eq!(d(0.816496580927726, 4).as_deref(), Some("8165"));
        assert_eq!(d(-0.816496580927726, 4).as_deref(), Some("-8165"));
        assert_eq!(d(0.400689, 7).as_deref(), Some("4006890"));
        assert_eq!(
            d(5.671372782015641e37, 4).as_deref(),
            Some("567137278201564100000000000000000000000000")
        );
        assert_eq!(d(0.0, 4).as_deref(), Some("0"));
        assert_eq!(d(0.00004, 4).as_deref(), Some("0"));
        assert_eq!(d(0.00005, 4).as_deref(), Some("1"));
        assert_eq!(d(123.0, 0).as_deref(), Some("123"));
        assert_eq!(d(f64::NAN, 0), None);
        assert_eq!(d(1e80, 0), None);
    }
}
