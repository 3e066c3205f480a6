//! Values kept by DISTINCT aggregates, and the parts of
//! COUNT(DISTINCT a, b, ..) compared each under its own collation.

use hashbrown::HashSet;
use std::borrow::Cow;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, RecordBatch};
use arrow_buffer::i256;
use arrow_schema::DataType;
use quiver_collation::Collation;
use quiver_common::types::trim_pad;
use quiver_common::{Result, ScalarValue};
use quiver_plan::ScalarFunc;

use crate::bytes::{byte_view, is_binary};
use crate::expr::{cast_array, PhysicalExpr};

/// A value kept by DISTINCT aggregates.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum DistinctValue {
    Int(i128),
    /// A Decimal256 value.
    Wide(i256),
    Float(u64),
    Bytes(Vec<u8>),
}

/// The parts of COUNT(DISTINCT a, b, ..) from the one argument the binder
/// makes of them: `CASE WHEN <a part is NULL> THEN NULL ELSE CONCAT(
/// CHAR_LENGTH(a), ':', a, CHAR_LENGTH(b), ':', b, .., z) END` (each part a
/// string: a string expression under its collation, anything else cast).
/// That string is one value per tuple, but compared as one string it
/// ignores the parts' collations (`'a'` and `'A'` under `_ci`, trailing
/// spaces under PAD SPACE); the parts let each be compared under its own.
pub(super) fn tuple_parts(e: &PhysicalExpr) -> Option<Vec<PhysicalExpr>> {
    let e = match e {
        PhysicalExpr::Collate(inner, _) => inner.as_ref(),
        e => e,
    };
    let PhysicalExpr::Case {
        branches,
        else_expr: Some(key),
        ..
    } = e
    else {
        return None;
    };
    let [(_, PhysicalExpr::Literal(ScalarValue::Null, _))] = branches.as_slice() else {
        return None;
    };
    let PhysicalExpr::Function {
        func: ScalarFunc::Concat,
        args,
        ..
    } = key.as_ref()
    else {
        return None;
    };
    let same = |a: &PhysicalExpr, b: &PhysicalExpr| format!("{a:?}") == format!("{b:?}");
    let mut parts = vec![];
    let mut rest = args.as_slice();
    loop {
        match rest {
            [last] => {
                parts.push(last.clone());
                break;
            }
            [PhysicalExpr::Cast {
                expr: len,
                to: DataType::Utf8,
            }, PhysicalExpr::Literal(ScalarValue::Utf8(sep), _), part, tail @ ..]
                if sep == ":"
                    && matches!(len.as_ref(), PhysicalExpr::Function {
                        func: ScalarFunc::CharLength,
                        args,
                        ..
                    } if args.len() == 1 && same(&args[0], part)) =>
            {
                parts.push(part.clone());
                rest = tail;
            }
            _ => return None,
        }
    }
    (parts.len() > 1).then_some(parts)
}

/// Adds the tuples of `parts` (rows with no NULL part) to the sets of
/// groups `ids`: each part as its collation's normalized key (trailing
/// spaces removed under the default collation), each preceded by its
/// length so that distinct tuples make distinct values.
pub(super) fn update_tuples(
    parts: &[PhysicalExpr],
    batch: &RecordBatch,
    ids: &[u32],
    sets: &mut [HashSet<DistinctValue>],
    bytes: &mut usize,
) -> Result<()> {
    let arrays = parts
        .iter()
        .map(|p| p.evaluate_array(batch))
        .collect::<Result<Vec<_>>>()?;
    let strings: Vec<arrow_array::BinaryArray> =
        arrays.iter().map(string_bytes).collect::<Result<_>>()?;
    // A binary part is its bytes (the binary collation's key).
    let collations: Vec<Option<Collation>> = parts
        .iter()
        .zip(&arrays)
        .map(|(p, a)| match is_binary(a.data_type()) {
            true => Some(Collation::binary()),
            false => Some(p.collation()).filter(|c| *c != quiver_plan::default_collation()),
        })
        .collect();
    let mut key = Vec::new();
    for (i, g) in ids.iter().enumerate() {
        if strings.iter().any(|s| s.is_null(i)) {
            continue;
        }
        key.clear();
        for (s, c) in strings.iter().zip(&collations) {
            let at = key.len();
            key.extend_from_slice(&[0; 4]);
            let x = s.value(i);
            match c {
                Some(c) => c.normalized_key(x, &mut key),
                None => key.extend_from_slice(trim_pad(x)),
            }
            let len = (key.len() - at - 4) as u32;
            key[at..at + 4].copy_from_slice(&len.to_le_bytes());
        }
        let v = DistinctValue::Bytes(key.clone());
        let size = distinct_value_bytes(&v);
        if sets[*g as usize].insert(v) {
            *bytes += size;
        }
    }
    Ok(())
}

/// String values as bytes: text and binary strings as they are, anything
/// else as its text.
pub(super) fn string_bytes(a: &ArrayRef) -> Result<arrow_array::BinaryArray> {
    let a = match a.data_type() {
        DataType::Utf8 | DataType::Binary => a.clone(),
        _ => cast_array(a, &DataType::Utf8)?,
    };
    Ok(byte_view(a.as_ref()).expect("a string array"))
}

/// Bytes of one distinct value in a set: the slot, its control byte and
/// the table's spare room (load factor 7/8), plus a string's own bytes.
pub(super) fn distinct_value_bytes(v: &DistinctValue) -> usize {
    let slot = (std::mem::size_of::<DistinctValue>() + 1) * 8 / 7;
    match v {
        DistinctValue::Bytes(b) => slot + b.capacity(),
        _ => slot,
    }
}

/// The values of an exact column as i128 at its scale: Decimal128's own
/// buffer, other types widened.
pub(super) fn exact_values(a: &ArrayRef) -> Option<(Cow<'_, [i128]>, i8)> {
    macro_rules! v {
        ($t:ty) => {
            Cow::Owned(
                a.as_primitive::<$t>()
                    .values()
                    .iter()
                    .map(|x| *x as i128)
                    .collect(),
            )
        };
    }
    Some(match a.data_type() {
        DataType::Int8 => (v!(Int8Type), 0),
        DataType::Int16 => (v!(Int16Type), 0),
        DataType::Int32 => (v!(Int32Type), 0),
        DataType::Int64 => (v!(Int64Type), 0),
        DataType::UInt8 => (v!(UInt8Type), 0),
        DataType::UInt16 => (v!(UInt16Type), 0),
        DataType::UInt32 => (v!(UInt32Type), 0),
        DataType::UInt64 => (v!(UInt64Type), 0),
        DataType::Date32 => (v!(Date32Type), 0),
        DataType::Timestamp(..) => (v!(TimestampMicrosecondType), 0),
        DataType::Decimal64(..) => (v!(Decimal64Type), 0),
        DataType::Boolean => (
            Cow::Owned(a.as_boolean().values().iter().map(|b| b as i128).collect()),
            0,
        ),
        DataType::Decimal128(_, s) => (
            Cow::Borrowed(&a.as_primitive::<Decimal128Type>().values()[..]),
            *s,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tuple_tests {
    use super::super::group_table::GroupTable;
    use super::super::spec::AggregateSpec;
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{Field, Schema};
    use quiver_plan::AggFunc;
    use std::sync::Arc;

    /// COUNT(DISTINCT a, b) as the binder builds it: each part compared
    /// under its own collation, NULL parts skipped.
    #[test]
    fn count_distinct_tuples_compare_parts_under_their_collations() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let a = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let b = PhysicalExpr::Column(2);
        let len = |p: &PhysicalExpr| PhysicalExpr::Cast {
            expr: Box::new(PhysicalExpr::Function {
                func: ScalarFunc::CharLength,
                args: vec![p.clone()],
                data_type: DataType::Int64,
                state: None,
            }),
            to: DataType::Utf8,
        };
        let is_null = |p: &PhysicalExpr| PhysicalExpr::Unary {
            op: quiver_plan::UnaryOp::IsNull,
            expr: Box::new(p.clone()),
        };
        let key = PhysicalExpr::Case {
            branches: vec![(
                PhysicalExpr::Binary {
                    op: quiver_plan::BinaryOp::Or,
                    left: Box::new(is_null(&a)),
                    right: Box::new(is_null(&b)),
                    data_type: DataType::Boolean,
                    collation: quiver_plan::default_collation(),
                },
                PhysicalExpr::Literal(ScalarValue::Null, DataType::Utf8),
            )],
            else_expr: Some(Box::new(PhysicalExpr::Function {
                func: ScalarFunc::Concat,
                args: vec![
                    len(&a),
                    PhysicalExpr::Literal(ScalarValue::Utf8(":".into()), DataType::Utf8),
                    a.clone(),
                    b.clone(),
                ],
                data_type: DataType::Utf8,
                state: None,
            })),
            data_type: DataType::Utf8,
        };
        assert_eq!(tuple_parts(&key).map(|p| p.len()), Some(2));
        let spec = AggregateSpec {
            func: AggFunc::Count,
            arg: Some(key),
            distinct: true,
            output_type: DataType::Int64,
            text: String::new(),
            concat: None,
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("a", DataType::Utf8, true),
            Field::new("b", DataType::Utf8, true),
        ]));
        let rows = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![0; 8])),
                Arc::new(StringArray::from(vec![
                    Some("a"),
                    Some("A"),
                    Some("a "),
                    Some("é"),
                    Some("a"),
                    None,
                    Some("ab"),
                    Some("a"),
                ])),
                Arc::new(StringArray::from(vec![
                    Some("x"),
                    Some("x"),
                    Some("x  "),
                    Some("x"),
                    Some("X"),
                    Some("x"),
                    Some("c"),
                    Some("bc"),
                ])),
            ],
        )
        .unwrap();
        let aggs = vec![spec];
        let mut t = GroupTable::new(&[], &aggs);
        t.update(&rows, &[], &aggs).unwrap();
        let out = t.accs.pop().unwrap().finish(&DataType::Int64, 1).unwrap();
        // (a, x) thrice, (é, x), (a, X), (ab, c), (a, bc); NULL skipped.
        assert_eq!(out.as_primitive::<Int64Type>().value(0), 5);
    }
}
