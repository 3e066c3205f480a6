//! ENUM and SET values: the text of stored codes (`ScalarFunc::MemberText`)
//! and the codes of values being stored, as MariaDB's `Field_enum` /
//! `Field_set` make them.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{cast::AsArray, types::UInt64Type, ArrayRef};
use arrow_schema::DataType;
use quiver_collation::Collation;
use quiver_common::types::{MemberKind, MemberType};
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};

use super::cast_array;

/// `MemberText(codes, 'enum(...)')`: each code's member (ENUM: 0 and codes
/// past the members are ''), or the members of its bits joined by commas
/// in declared order (SET). Built size-first.
pub(crate) fn member_text(args: Vec<ColumnarValue>, rows: usize) -> Result<ColumnarValue> {
    let mut args = args.into_iter();
    let (Some(codes), Some(ColumnarValue::Scalar(ScalarValue::Utf8(text), _))) =
        (args.next(), args.next())
    else {
        return Err(QuiverError::internal("MemberText takes codes and a type"));
    };
    let m = MemberType::parse(&text)
        .ok_or_else(|| QuiverError::internal(format!("not an ENUM / SET type: {text}")))?;
    let scalar = matches!(codes, ColumnarValue::Scalar(..));
    let codes = cast_array(
        &codes.into_array(if scalar { 1 } else { rows })?,
        &DataType::UInt64,
    )?;
    let codes = codes.as_primitive::<UInt64Type>();
    let out = text_of_codes(codes, &m);
    Ok(match scalar {
        true => ColumnarValue::Scalar(ScalarValue::from_array(&out, 0)?, DataType::Utf8),
        false => ColumnarValue::Array(out),
    })
}

/// The text of codes (see [`member_text`]).
pub fn text_of_codes(codes: &arrow_array::UInt64Array, m: &MemberType) -> ArrayRef {
    let member = |k: u64| -> &str {
        usize::try_from(k)
            .ok()
            .and_then(|k| k.checked_sub(1))
            .and_then(|k| m.members.get(k))
            .map_or("", String::as_str)
    };
    let set_bits = |bits: u64| {
        m.members
            .iter()
            .take(64)
            .enumerate()
            .filter(move |(k, _)| bits >> k & 1 == 1)
            .map(|(_, s)| s.as_str())
    };
    let value_len = |c: u64| match m.kind {
        MemberKind::Enum => member(c).len(),
        MemberKind::Set => set_bits(c).map(|s| s.len() + 1).sum::<usize>(),
    };
    let bytes: usize = codes.iter().flatten().map(value_len).sum();
    let mut b = StringBuilder::with_capacity(codes.len(), bytes);
    let mut row = String::new();
    for c in codes.iter() {
        match (c, m.kind) {
            (None, _) => b.append_null(),
            (Some(c), MemberKind::Enum) => b.append_value(member(c)),
            (Some(c), MemberKind::Set) => {
                row.clear();
                for (k, s) in set_bits(c).enumerate() {
                    if k > 0 {
                        row.push(',');
                    }
                    row.push_str(s);
                }
                b.append_value(&row);
            }
        }
    }
    Arc::new(b.finish())
}

/// How a value being stored into an ENUM / SET column reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberCode {
    /// The code.
    Exact(u64),
    /// No member (or, for a SET, some parts none): MariaDB's 1265. The
    /// code is what is stored without strict mode (0, or the SET's valid
    /// members).
    Invalid(u64),
}

/// The code of text `v` in an ENUM / SET column under `collation`: ENUM
/// finds the member equal to `v` without trailing spaces, else reads `v`
/// as an index; SET finds each comma-separated part, else reads `v` as a
/// bitmask. As MariaDB's `find_type2` / `find_set`.
pub fn code_of_text(m: &MemberType, v: &str, collation: Collation) -> MemberCode {
    let find = |part: &str| {
        let part = part.trim_end_matches(' ');
        m.members
            .iter()
            .position(|s| collation.eq(s.as_bytes(), part.as_bytes()))
    };
    match m.kind {
        MemberKind::Enum => match find(v) {
            Some(k) => MemberCode::Exact(k as u64 + 1),
            None => match whole_number(v) {
                Some(n) => code_of_number(m, n),
                None => MemberCode::Invalid(0),
            },
        },
        MemberKind::Set => {
            if v.is_empty() {
                return MemberCode::Exact(0);
            }
            let mut bits = 0u64;
            let mut bad = false;
            for part in v.split(',') {
                match find(part) {
                    Some(k) if k < 64 => bits |= 1 << k,
                    _ => bad = true,
                }
            }
            match (bad, whole_number(v)) {
                (false, _) => MemberCode::Exact(bits),
                (true, Some(n)) => code_of_number(m, n),
                (true, None) => MemberCode::Invalid(bits),
            }
        }
    }
}

/// The code of number `n`: an ENUM's index (1 .. members), a SET's bitmask
/// (no bit past its members).
pub fn code_of_number(m: &MemberType, n: i128) -> MemberCode {
    let count = m.members.len() as i128;
    match m.kind {
        MemberKind::Enum if (1..=count).contains(&n) => MemberCode::Exact(n as u64),
        MemberKind::Enum => MemberCode::Invalid(0),
        MemberKind::Set => {
            let all = if count >= 64 {
                u64::MAX
            } else {
                (1u64 << count) - 1
            };
            match u64::try_from(n) {
                Ok(b) if b & !all == 0 => MemberCode::Exact(b),
                Ok(b) => MemberCode::Invalid(b & all),
                Err(_) => MemberCode::Invalid(0),
            }
        }
    }
}

/// Text that is wholly an unsigned integer (spaces around it allowed).
fn whole_number(v: &str) -> Option<i128> {
    let t = v.trim_matches(' ');
    if t.is_empty() || t.len() > 30 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enum_of(members: &[&str]) -> MemberType {
        MemberType {
            kind: MemberKind::Enum,
            members: members.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn enum_codes() {
        let m = enum_of(&["x", "b", "A"]);
        let ci = Collation::utf8mb4_general_ci();
        assert_eq!(code_of_text(&m, "B  ", ci), MemberCode::Exact(2));
        assert_eq!(code_of_text(&m, "3", ci), MemberCode::Exact(3));
        assert_eq!(code_of_text(&m, "4", ci), MemberCode::Invalid(0));
        assert_eq!(code_of_text(&m, "zz", ci), MemberCode::Invalid(0));
        assert_eq!(
            code_of_text(&m, "B", Collation::utf8mb4_bin()),
            MemberCode::Invalid(0)
        );
        let codes = arrow_array::UInt64Array::from(vec![Some(0), Some(3), None, Some(9)]);
        let t = text_of_codes(&codes, &m);
        let t = t.as_string::<i32>();
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            [Some(""), Some("A"), None, Some("")]
        );
    }

    #[test]
    fn set_codes() {
        let m = MemberType {
            kind: MemberKind::Set,
            members: vec!["a".into(), "b".into(), "c".into()],
        };
        let bin = Collation::utf8mb4_bin();
        assert_eq!(code_of_text(&m, "c,a", bin), MemberCode::Exact(5));
        assert_eq!(code_of_text(&m, "", bin), MemberCode::Exact(0));
        assert_eq!(code_of_text(&m, "a,zz", bin), MemberCode::Invalid(1));
        assert_eq!(code_of_text(&m, "7", bin), MemberCode::Exact(7));
        assert_eq!(code_of_number(&m, 9), MemberCode::Invalid(1));
        let codes = arrow_array::UInt64Array::from(vec![Some(5), Some(0)]);
        let t = text_of_codes(&codes, &m);
        let t = t.as_string::<i32>();
        assert_eq!(t.iter().collect::<Vec<_>>(), [Some("a,c"), Some("")]);
    }
}
