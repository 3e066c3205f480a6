//! The type rules that read a value: the digits of an integer literal.
//! Apart from integer.rs because scalar.rs uses the decimal rules, which
//! use integer.rs: a rule reading a `ScalarValue` there would close a loop.
//! (A value as an unscaled decimal, `to_decimal`, is in scalar.rs.)

use crate::ScalarValue;

/// The precision MySQL gives an integer literal: its digits, the sign not
/// counted (MariaDB's `Item_int::decimal_precision`), so that with `a`
/// DECIMAL(18,2) `a * 2` is DECIMAL(19,2) rather than BIGINT's 19 digits more.
pub fn integer_literal_digits(v: &ScalarValue) -> Option<u8> {
    let n = match v {
        ScalarValue::Int64(i) => i.unsigned_abs(),
        ScalarValue::UInt64(u) => *u,
        _ => return None,
    };
    Some(n.checked_ilog10().map_or(1, |l| l as u8 + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_literal_digits_count_the_value() {
        let digits = |v| integer_literal_digits(&v);
        assert_eq!(digits(ScalarValue::Int64(0)), Some(1));
        assert_eq!(digits(ScalarValue::Int64(-2)), Some(1));
        assert_eq!(digits(ScalarValue::Int64(12345)), Some(5));
        assert_eq!(digits(ScalarValue::Int64(i64::MIN)), Some(19));
        assert_eq!(digits(ScalarValue::UInt64(u64::MAX)), Some(20));
        assert_eq!(digits(ScalarValue::Float64(2.0)), None);
    }
}
