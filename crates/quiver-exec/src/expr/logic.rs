//! AND / OR / NOT with SQL's three-valued logic over packed bitmaps.

use std::sync::Arc;

use arrow_array::{cast::AsArray, Array, BooleanArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;
use quiver_common::{Result, ScalarValue};
use quiver_plan::BinaryOp;

use super::{cast_array, ColumnarValue};

fn to_bool(v: ColumnarValue, rows: usize) -> Result<BooleanArray> {
    let a = v.into_array(rows)?;
    let a = if a.data_type() == &DataType::Boolean {
        a
    } else {
        cast_array(&a, &DataType::Boolean)?
    };
    Ok(a.as_boolean().clone())
}

/// Splits a boolean array into (known true, known false) bitmaps.
fn true_false(a: &BooleanArray) -> (BooleanBuffer, BooleanBuffer) {
    let v = a.values();
    match a.nulls() {
        Some(n) => (v & n.inner(), &!v & n.inner()),
        None => (v.clone(), !v),
    }
}

/// The rows whose `l op r` needs `r`: `l` not FALSE for AND, not TRUE for
/// OR (None: every row).
pub(crate) fn undecided(
    op: BinaryOp,
    l: &ColumnarValue,
    rows: usize,
) -> Result<Option<BooleanArray>> {
    // Reading `l` as a truth value again must not warn again.
    let mark = crate::warnings::mark();
    let (t, f) = true_false(&to_bool(l.clone(), rows)?);
    crate::warnings::rollback(mark);
    let decided = if op == BinaryOp::And { f } else { t };
    Ok(Some(BooleanArray::new(!&decided, None)))
}

pub fn and_or(
    op: BinaryOp,
    l: ColumnarValue,
    r: ColumnarValue,
    rows: usize,
) -> Result<ColumnarValue> {
    if let (ColumnarValue::Scalar(a, _), ColumnarValue::Scalar(b, _)) = (&l, &r) {
        let (a, b) = (a.truth(), b.truth());
        let v = match op {
            BinaryOp::And => match (a, b) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            _ => match (a, b) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        };
        return Ok(ColumnarValue::Scalar(
            v.map(ScalarValue::Boolean).unwrap_or(ScalarValue::Null),
            DataType::Boolean,
        ));
    }
    let (a, b) = (to_bool(l, rows)?, to_bool(r, rows)?);
    if a.null_count() == 0 && b.null_count() == 0 {
        let bits = match op {
            BinaryOp::And => a.values() & b.values(),
            _ => a.values() | b.values(),
        };
        return Ok(ColumnarValue::Array(Arc::new(BooleanArray::new(
            bits, None,
        ))));
    }
    let (at, af) = true_false(&a);
    let (bt, bf) = true_false(&b);
    let (t, f) = match op {
        BinaryOp::And => (&at & &bt, &af | &bf),
        _ => (&at | &bt, &af & &bf),
    };
    let valid = &t | &f;
    Ok(ColumnarValue::Array(Arc::new(BooleanArray::new(
        t,
        Some(NullBuffer::new(valid)),
    ))))
}

pub fn not_array(a: &BooleanArray) -> BooleanArray {
    BooleanArray::new(!a.values(), a.nulls().cloned())
}

pub fn not(v: ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    if let ColumnarValue::Scalar(s, _) = &v {
        let out = s
            .truth()
            .map(|b| ScalarValue::Boolean(!b))
            .unwrap_or(ScalarValue::Null);
        return Ok(ColumnarValue::Scalar(out, DataType::Boolean));
    }
    Ok(ColumnarValue::Array(Arc::new(not_array(&to_bool(
        v, rows,
    )?))))
}
