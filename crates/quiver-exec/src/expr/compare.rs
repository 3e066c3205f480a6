//! Comparisons into boolean masks, IN lists. Strings compare under the
//! collation the binder resolved: the default utf8mb4_bin (PAD SPACE: trailing
//! spaces do not count) on byte loops here, any other through a loop
//! monomorphized per collation (`with_collator!`).

use hashbrown::HashSet;
use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::{
    cast::AsArray, types::*, Array, ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray,
};
use arrow_buffer::Buffer;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};
use quiver_collation::{with_collator, CollatedConstant, Collation, Collator, RowHints};
use quiver_common::types::{compare_pad_space, comparison_type, trim_pad};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{default_collation, BinaryOp};

use super::cast_array;
use super::value::ColumnarValue;
use crate::bytes::{byte_view, is_binary};

#[inline(always)]
fn test(op: BinaryOp, o: Ordering) -> bool {
    match op {
        BinaryOp::Eq => o == Ordering::Equal,
        BinaryOp::NotEq => o != Ordering::Equal,
        BinaryOp::Lt => o == Ordering::Less,
        BinaryOp::LtEq => o != Ordering::Greater,
        BinaryOp::Gt => o == Ordering::Greater,
        BinaryOp::GtEq => o != Ordering::Less,
        _ => false,
    }
}

pub fn compare(
    op: BinaryOp,
    l: ColumnarValue,
    r: ColumnarValue,
    rows: usize,
    collation: Collation,
) -> Result<ColumnarValue> {
    let t = operand_type(&l.data_type(), &r.data_type());
    let to_t = |v: ColumnarValue| -> Result<ColumnarValue> {
        Ok(match v {
            ColumnarValue::Array(a) if a.data_type() != &t => {
                ColumnarValue::Array(cast_array(&a, &t)?)
            }
            ColumnarValue::Scalar(s, st) if st != t && !s.is_null() => {
                let a = cast_array(&quiver_common::scalar::scalar_to_array(&s, &st, 1)?, &t)?;
                ColumnarValue::Scalar(ScalarValue::from_array(&a, 0)?, t.clone())
            }
            other => other,
        })
    };
    let (l, r) = (to_t(l)?, to_t(r)?);
    match (l, r) {
        (
            ColumnarValue::Scalar(ScalarValue::Utf8(a), _),
            ColumnarValue::Scalar(ScalarValue::Utf8(b), _),
        ) if collation != default_collation() => {
            let o = collation.compare(a.as_bytes(), b.as_bytes());
            Ok(ColumnarValue::Scalar(
                ScalarValue::Boolean(test(op, o)),
                DataType::Boolean,
            ))
        }
        (ColumnarValue::Scalar(a, _), ColumnarValue::Scalar(b, _)) => {
            let v = match a.compare(&b) {
                Some(o) => ScalarValue::Boolean(test(op, o)),
                None => ScalarValue::Null,
            };
            Ok(ColumnarValue::Scalar(v, DataType::Boolean))
        }
        (ColumnarValue::Array(a), ColumnarValue::Scalar(s, _)) => {
            compare_scalar(op, &a, &s, collation)
        }
        (ColumnarValue::Scalar(s, _), ColumnarValue::Array(a)) => {
            compare_scalar(op.swap(), &a, &s, collation)
        }
        (ColumnarValue::Array(a), ColumnarValue::Array(b)) => {
            debug_assert_eq!(a.len(), rows);
            Ok(ColumnarValue::Array(Arc::new(compare_arrays_collated(
                op, &a, &b, collation,
            )?)))
        }
    }
}

/// The type two operands compare in: bytes when one is a binary string and
/// the other a string (the binder makes them agree; this keeps a text
/// operand from turning both into numbers), else MySQL's comparison type.
pub(crate) fn operand_type(l: &DataType, r: &DataType) -> DataType {
    let stringy = |t: &DataType| is_binary(t) || t == &DataType::Utf8 || t == &DataType::Null;
    if (is_binary(l) || is_binary(r)) && stringy(l) && stringy(r) {
        DataType::Binary
    } else {
        comparison_type(l, r)
    }
}

/// The bytes of a string constant: a binary value's own, a text's UTF-8,
/// any other value's text.
pub(crate) fn scalar_bytes(s: &ScalarValue) -> std::borrow::Cow<'_, [u8]> {
    match s {
        ScalarValue::Binary(b) => b.as_slice().into(),
        ScalarValue::Utf8(t) => t.as_bytes().into(),
        other => other.to_string().into_bytes().into(),
    }
}

fn kernel_op(op: BinaryOp) -> quiver_kernels::CmpOp {
    match op {
        BinaryOp::Eq => quiver_kernels::CmpOp::Eq,
        BinaryOp::NotEq => quiver_kernels::CmpOp::NotEq,
        BinaryOp::Lt => quiver_kernels::CmpOp::Lt,
        BinaryOp::LtEq => quiver_kernels::CmpOp::LtEq,
        BinaryOp::Gt => quiver_kernels::CmpOp::Gt,
        _ => quiver_kernels::CmpOp::GtEq,
    }
}

/// Column-vs-constant through the SIMD kernels (1/2/4/8-byte types).
fn simd_scalar<T: ArrowPrimitiveType>(op: BinaryOp, a: &dyn Array, c: T::Native) -> BooleanBuffer
where
    T::Native: quiver_kernels::CmpNative,
{
    quiver_kernels::cmp_scalar(a.as_primitive::<T>().values(), kernel_op(op), c)
}

fn simd_columns<T: ArrowPrimitiveType>(op: BinaryOp, a: &dyn Array, b: &dyn Array) -> BooleanBuffer
where
    T::Native: quiver_kernels::CmpNative,
{
    quiver_kernels::cmp_columns(
        a.as_primitive::<T>().values(),
        b.as_primitive::<T>().values(),
        kernel_op(op),
    )
}

/// Fallback for types the SIMD kernels do not cover (128-bit decimals).
fn cmp_prim_scalar<T: ArrowPrimitiveType>(
    op: BinaryOp,
    a: &dyn Array,
    c: T::Native,
) -> BooleanBuffer
where
    T::Native: PartialOrd,
{
    let v = a.as_primitive::<T>().values();
    // One closure per operator keeps the loop branch-free, so it vectorizes.
    match op {
        BinaryOp::Eq => BooleanBuffer::collect_bool(v.len(), |i| v[i] == c),
        BinaryOp::NotEq => BooleanBuffer::collect_bool(v.len(), |i| v[i] != c),
        BinaryOp::Lt => BooleanBuffer::collect_bool(v.len(), |i| v[i] < c),
        BinaryOp::LtEq => BooleanBuffer::collect_bool(v.len(), |i| v[i] <= c),
        BinaryOp::Gt => BooleanBuffer::collect_bool(v.len(), |i| v[i] > c),
        _ => BooleanBuffer::collect_bool(v.len(), |i| v[i] >= c),
    }
}

fn cmp_prim_arrays<T: ArrowPrimitiveType>(
    op: BinaryOp,
    a: &dyn Array,
    b: &dyn Array,
) -> BooleanBuffer
where
    T::Native: PartialOrd,
{
    let (x, y) = (
        a.as_primitive::<T>().values(),
        b.as_primitive::<T>().values(),
    );
    match op {
        BinaryOp::Eq => BooleanBuffer::collect_bool(x.len(), |i| x[i] == y[i]),
        BinaryOp::NotEq => BooleanBuffer::collect_bool(x.len(), |i| x[i] != y[i]),
        BinaryOp::Lt => BooleanBuffer::collect_bool(x.len(), |i| x[i] < y[i]),
        BinaryOp::LtEq => BooleanBuffer::collect_bool(x.len(), |i| x[i] <= y[i]),
        BinaryOp::Gt => BooleanBuffer::collect_bool(x.len(), |i| x[i] > y[i]),
        _ => BooleanBuffer::collect_bool(x.len(), |i| x[i] >= y[i]),
    }
}

/// Strings against a constant under `collation`. Equality runs over the
/// offsets and bytes with the constant prepared once
/// ([`CollatedConstant::eq_column`]: the SIMD byte kernel under the `_bin`
/// collations, the ASCII folding kernel under the `_ci` ones); order one loop
/// monomorphized per collation.
///
/// `s` is a text or binary column as bytes ([`byte_view`]); a binary one
/// comes with the `binary` collation.
fn cmp_str_scalar_collated(
    op: BinaryOp,
    s: &BinaryArray,
    c: &[u8],
    collation: Collation,
) -> Result<BooleanBuffer> {
    if matches!(op, BinaryOp::Eq | BinaryOp::NotEq) {
        let eq = eq_str_scalar(s, c, collation, RowHints::default())?;
        return Ok(if op == BinaryOp::Eq { eq } else { !&eq });
    }
    Ok(with_collator!(collation, |k| BooleanBuffer::collect_bool(
        s.len(),
        |i| test(op, k.compare(s.value(i), c))
    )))
}

/// `s = c` row by row under `collation` (NULL rows unspecified), for rows
/// storage knows what `hints` say of.
fn eq_str_scalar(
    s: &BinaryArray,
    c: &[u8],
    collation: Collation,
    hints: RowHints<'_>,
) -> Result<BooleanBuffer> {
    let prepared = CollatedConstant::new(c);
    let mut words = vec![0u64; s.len().div_ceil(64)];
    with_collator!(collation, |k| prepared.eq_column_shaped(
        k,
        s.value_offsets(),
        s.value_data(),
        hints,
        &mut words
    ))
    .map_err(|e| QuiverError::internal(format!("string equality kernel: {e}")))?;
    Ok(BooleanBuffer::new(Buffer::from_vec(words), 0, s.len()))
}

/// `a = c` for a text column `a` whose rows storage knows what `hints`
/// say of (a scan's pushed-down filter): under PAD SPACE or an ASCII `_ci`
/// collation, rows too long (or, under PAD SPACE, with the wrong trailing
/// space) to match are not read.
pub fn eq_text_shaped(
    a: &ArrayRef,
    c: &[u8],
    collation: Collation,
    hints: RowHints<'_>,
) -> Result<BooleanArray> {
    let v = byte_view(a.as_ref()).expect("a string column");
    let eq = eq_str_scalar(&v, c, collation, hints)?;
    Ok(BooleanArray::new(eq, a.logical_nulls()))
}

fn compare_scalar(
    op: BinaryOp,
    a: &ArrayRef,
    s: &ScalarValue,
    collation: Collation,
) -> Result<ColumnarValue> {
    if s.is_null() {
        return Ok(ColumnarValue::Scalar(ScalarValue::Null, DataType::Boolean));
    }
    let i = || s.as_i64().unwrap_or(0);
    let bits = match a.data_type() {
        DataType::Int8 => simd_scalar::<Int8Type>(op, a, i() as i8),
        DataType::Int16 => simd_scalar::<Int16Type>(op, a, i() as i16),
        DataType::Int32 => simd_scalar::<Int32Type>(op, a, i() as i32),
        DataType::Int64 => simd_scalar::<Int64Type>(op, a, i()),
        DataType::UInt8 => simd_scalar::<UInt8Type>(op, a, i() as u8),
        DataType::UInt16 => simd_scalar::<UInt16Type>(op, a, i() as u16),
        DataType::UInt32 => simd_scalar::<UInt32Type>(op, a, i() as u32),
        DataType::UInt64 => {
            let c = match s {
                ScalarValue::UInt64(u) => *u,
                other => other.as_i64().unwrap_or(0) as u64,
            };
            simd_scalar::<UInt64Type>(op, a, c)
        }
        DataType::Float32 => simd_scalar::<Float32Type>(op, a, s.as_f64().unwrap_or(0.0) as f32),
        DataType::Float64 => simd_scalar::<Float64Type>(op, a, s.as_f64().unwrap_or(0.0)),
        DataType::Date32 => match s {
            ScalarValue::Date(d) => simd_scalar::<Date32Type>(op, a, *d),
            _ => return Err(QuiverError::internal("date compared with a non-date")),
        },
        DataType::Decimal64(..) => match s {
            ScalarValue::Time(t, _) => simd_scalar::<Decimal64Type>(op, a, *t),
            _ => return Err(QuiverError::internal("time compared with a non-time")),
        },
        DataType::Timestamp(TimeUnit::Microsecond, _) => match s {
            ScalarValue::DateTime(t, _) => simd_scalar::<TimestampMicrosecondType>(op, a, *t),
            _ => {
                return Err(QuiverError::internal(
                    "datetime compared with a non-datetime",
                ))
            }
        },
        DataType::Decimal128(_, scale) => {
            let c = quiver_common::types::to_decimal(s, *scale)?;
            cmp_prim_scalar::<Decimal128Type>(op, a, c)
        }
        DataType::Decimal256(_, scale) => {
            let c = quiver_common::types::to_decimal256(s, *scale)?;
            cmp_prim_scalar::<Decimal256Type>(op, a, c)
        }
        DataType::Utf8 => {
            let v = byte_view(a.as_ref()).expect("a string column");
            cmp_str_scalar_collated(op, &v, &scalar_bytes(s), collation)?
        }
        // Bytes, whatever collation the operand carries.
        DataType::Binary => cmp_str_scalar_collated(
            op,
            a.as_binary::<i32>(),
            &scalar_bytes(s),
            Collation::binary(),
        )?,
        DataType::Boolean => {
            let c = s.truth().unwrap_or(false);
            let v = a.as_boolean().values();
            BooleanBuffer::collect_bool(v.len(), |i| test(op, v.value(i).cmp(&c)))
        }
        DataType::Null => return Ok(ColumnarValue::Scalar(ScalarValue::Null, DataType::Boolean)),
        other => return Err(QuiverError::not_supported(format!("comparison of {other}"))),
    };
    Ok(ColumnarValue::Array(Arc::new(BooleanArray::new(
        bits,
        a.logical_nulls(),
    ))))
}

/// Compares two arrays row by row, strings under `collation`.
pub fn compare_arrays_collated(
    op: BinaryOp,
    a: &ArrayRef,
    b: &ArrayRef,
    collation: Collation,
) -> Result<BooleanArray> {
    if collation == default_collation() || a.data_type() != &DataType::Utf8 {
        // Binary strings compare as bytes there.
        return compare_arrays(op, a, b);
    }
    let b = if b.data_type() != &DataType::Utf8 {
        cast_array(b, &DataType::Utf8)?
    } else {
        b.clone()
    };
    let (x, y) = (a.as_string::<i32>(), b.as_string::<i32>());
    let bits = with_collator!(collation, |k| BooleanBuffer::collect_bool(x.len(), |i| {
        test(op, k.compare(x.value(i).as_bytes(), y.value(i).as_bytes()))
    }));
    let nulls = NullBuffer::union(a.logical_nulls().as_ref(), b.logical_nulls().as_ref());
    Ok(BooleanArray::new(bits, nulls))
}

/// Compares two arrays of the same type row by row (strings as utf8mb4_bin).
pub fn compare_arrays(op: BinaryOp, a: &ArrayRef, b: &ArrayRef) -> Result<BooleanArray> {
    let b = if a.data_type() != b.data_type() {
        cast_array(b, a.data_type())?
    } else {
        b.clone()
    };
    let bits = match a.data_type() {
        DataType::Int8 => simd_columns::<Int8Type>(op, a, &b),
        DataType::Int16 => simd_columns::<Int16Type>(op, a, &b),
        DataType::Int32 => simd_columns::<Int32Type>(op, a, &b),
        DataType::Int64 => simd_columns::<Int64Type>(op, a, &b),
        DataType::UInt8 => simd_columns::<UInt8Type>(op, a, &b),
        DataType::UInt16 => simd_columns::<UInt16Type>(op, a, &b),
        DataType::UInt32 => simd_columns::<UInt32Type>(op, a, &b),
        DataType::UInt64 => simd_columns::<UInt64Type>(op, a, &b),
        DataType::Float32 => simd_columns::<Float32Type>(op, a, &b),
        DataType::Float64 => simd_columns::<Float64Type>(op, a, &b),
        DataType::Date32 => simd_columns::<Date32Type>(op, a, &b),
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            simd_columns::<TimestampMicrosecondType>(op, a, &b)
        }
        DataType::Decimal64(..) => simd_columns::<Decimal64Type>(op, a, &b),
        DataType::Decimal128(..) => cmp_prim_arrays::<Decimal128Type>(op, a, &b),
        DataType::Decimal256(..) => cmp_prim_arrays::<Decimal256Type>(op, a, &b),
        DataType::Utf8 => {
            let (x, y) = (a.as_string::<i32>(), b.as_string::<i32>());
            BooleanBuffer::collect_bool(x.len(), |i| {
                test(
                    op,
                    compare_pad_space(x.value(i).as_bytes(), y.value(i).as_bytes()),
                )
            })
        }
        // Plain byte order, no padding: 'a' < 'a\0' < 'a '.
        DataType::Binary => {
            let (x, y) = (a.as_binary::<i32>(), b.as_binary::<i32>());
            BooleanBuffer::collect_bool(x.len(), |i| test(op, x.value(i).cmp(y.value(i))))
        }
        DataType::Boolean => {
            let (x, y) = (a.as_boolean().values(), b.as_boolean().values());
            BooleanBuffer::collect_bool(x.len(), |i| test(op, x.value(i).cmp(&y.value(i))))
        }
        DataType::Null => BooleanBuffer::new_unset(a.len()),
        other => return Err(QuiverError::not_supported(format!("comparison of {other}"))),
    };
    let nulls = NullBuffer::union(a.logical_nulls().as_ref(), b.logical_nulls().as_ref());
    let nulls = if a.data_type() == &DataType::Null {
        Some(NullBuffer::new_null(a.len()))
    } else {
        nulls
    };
    Ok(BooleanArray::new(bits, nulls))
}

/// A set of constants for `x IN (...)`, prepared once. Short lists are
/// scanned linearly (faster than hashing below about eight items).
#[derive(Debug)]
pub struct ScalarSet {
    kind: SetKind,
    has_null: bool,
}

/// `x IN (...)` constants under a non-default collation: normalized keys
/// (equal exactly when the strings are equal under the collation).
#[derive(Debug)]
struct CollatedStrings {
    collation: Collation,
    keys: HashSet<Vec<u8>>,
}

#[derive(Debug)]
enum SetKind {
    Ints(Vec<i128>, HashSet<i128>),
    Floats(Vec<f64>),
    /// A short list of strings under any collation: each constant prepared
    /// once and run over the column with the equality kernel of `=`, the
    /// results OR-ed (2.4x faster than a per-row loop over the list).
    ShortStrings(Collation, Vec<CollatedConstant>),
    Strings(Vec<Vec<u8>>, HashSet<Vec<u8>>),
    Collated(CollatedStrings),
}

const LINEAR_MAX: usize = 8;

impl ScalarSet {
    /// Builds the set of the constants `values` (`has_null`: the list also
    /// holds NULL) when they are all of (or castable to) `t`.
    pub fn from_values(
        values: Vec<ScalarValue>,
        has_null: bool,
        t: &DataType,
        collation: Collation,
    ) -> Option<ScalarSet> {
        // Binary strings: bytes under the `binary` collation (its
        // normalized key is the bytes themselves).
        let collation = if is_binary(t) {
            Collation::binary()
        } else {
            collation
        };
        let kind = match t {
            DataType::Utf8 | DataType::Binary if values.len() <= LINEAR_MAX => {
                SetKind::ShortStrings(
                    collation,
                    values
                        .iter()
                        .map(|v| CollatedConstant::new(&scalar_bytes(v)))
                        .collect(),
                )
            }
            DataType::Utf8 | DataType::Binary if collation != default_collation() => {
                let keys = values
                    .iter()
                    .map(|s| {
                        let mut k = Vec::new();
                        collation.normalized_key(&scalar_bytes(s), &mut k);
                        k
                    })
                    .collect();
                SetKind::Collated(CollatedStrings { collation, keys })
            }
            DataType::Utf8 => {
                let v: Vec<Vec<u8>> = values
                    .iter()
                    .map(|s| trim_pad(s.to_string().as_bytes()).to_vec())
                    .collect();
                let h = v.iter().cloned().collect();
                SetKind::Strings(v, h)
            }
            t if t.is_floating() => {
                SetKind::Floats(values.iter().map(|v| v.as_f64().unwrap_or(0.0)).collect())
            }
            DataType::Decimal128(_, s) => {
                let v: Vec<i128> = values
                    .iter()
                    .map(|x| quiver_common::types::to_decimal(x, *s))
                    .collect::<Result<_>>()
                    .ok()?;
                let h = v.iter().copied().collect();
                SetKind::Ints(v, h)
            }
            t if t.is_integer()
                || matches!(
                    t,
                    DataType::Date32
                        | DataType::Timestamp(..)
                        | DataType::Decimal64(..)
                        | DataType::Boolean
                ) =>
            {
                let v: Vec<i128> = values
                    .iter()
                    .map(|x| match (x, t) {
                        (ScalarValue::Date(d), _) => Some(*d as i128),
                        (ScalarValue::DateTime(d, _), _) => Some(*d as i128),
                        (ScalarValue::Time(d, _), _) => Some(*d as i128),
                        (ScalarValue::UInt64(u), _) => Some(*u as i128),
                        (ScalarValue::Utf8(s), DataType::Date32) => {
                            quiver_common::types::parse_date(s).map(|d| d as i128)
                        }
                        (other, _) => other.as_i64().map(|i| i as i128),
                    })
                    .collect::<Option<_>>()?;
                let h = v.iter().copied().collect();
                SetKind::Ints(v, h)
            }
            _ => return None,
        };
        Some(ScalarSet { kind, has_null })
    }

    pub fn contains_array(&self, a: &ArrayRef) -> Result<BooleanArray> {
        let n = a.len();
        let bits = match &self.kind {
            SetKind::Ints(list, set) => {
                let get = int_getter(a)?;
                if list.len() <= LINEAR_MAX {
                    BooleanBuffer::collect_bool(n, |i| list.contains(&get(i)))
                } else {
                    BooleanBuffer::collect_bool(n, |i| set.contains(&get(i)))
                }
            }
            SetKind::Floats(list) => {
                let f = cast_array(a, &DataType::Float64)?;
                let v = f.as_primitive::<Float64Type>().values().clone();
                BooleanBuffer::collect_bool(n, |i| list.contains(&v[i]))
            }
            SetKind::ShortStrings(collation, items) => {
                let s = set_operand(a)?;
                let mut any = vec![0u64; n.div_ceil(64)];
                let mut eq = vec![0u64; n.div_ceil(64)];
                for item in items {
                    with_collator!(*collation, |k| item.eq_column(
                        k,
                        s.value_offsets(),
                        s.value_data(),
                        &mut eq
                    ))
                    .map_err(|e| QuiverError::internal(format!("string IN kernel: {e}")))?;
                    any.iter_mut().zip(&eq).for_each(|(a, e)| *a |= *e);
                }
                BooleanBuffer::new(Buffer::from_vec(any), 0, n)
            }
            SetKind::Strings(list, set) => {
                let s = set_operand(a)?;
                if list.len() <= LINEAR_MAX {
                    BooleanBuffer::collect_bool(n, |i| {
                        let v = trim_pad(s.value(i));
                        list.iter().any(|x| x.as_slice() == v)
                    })
                } else {
                    BooleanBuffer::collect_bool(n, |i| set.contains(trim_pad(s.value(i))))
                }
            }
            SetKind::Collated(c) => {
                let s = set_operand(a)?;
                let mut key = Vec::new();
                with_collator!(c.collation, |k| BooleanBuffer::collect_bool(n, |i| {
                    key.clear();
                    k.normalized_key(s.value(i), &mut key);
                    c.keys.contains(&key)
                }))
            }
        };
        // x IN (..., NULL) is NULL when x matches nothing.
        let mut nulls = a.logical_nulls();
        if self.has_null {
            let unmatched = !&bits;
            let valid = match &nulls {
                Some(n) => n.inner() & &(!&unmatched),
                None => !&unmatched,
            };
            nulls = Some(NullBuffer::new(valid));
        }
        Ok(BooleanArray::new(bits, nulls))
    }
}

/// The column of a string IN list as bytes (text or binary as it is,
/// anything else as text).
fn set_operand(a: &ArrayRef) -> Result<BinaryArray> {
    let s = match a.data_type() {
        DataType::Utf8 | DataType::Binary => a.clone(),
        _ => cast_array(a, &DataType::Utf8)?,
    };
    Ok(byte_view(s.as_ref()).expect("a string column"))
}

fn int_getter(a: &ArrayRef) -> Result<Box<dyn Fn(usize) -> i128 + '_>> {
    Ok(match a.data_type() {
        DataType::Int8 => {
            let v = a.as_primitive::<Int8Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::Int16 => {
            let v = a.as_primitive::<Int16Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::Int32 => {
            let v = a.as_primitive::<Int32Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::Int64 => {
            let v = a.as_primitive::<Int64Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::UInt8 => {
            let v = a.as_primitive::<UInt8Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::UInt16 => {
            let v = a.as_primitive::<UInt16Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::UInt32 => {
            let v = a.as_primitive::<UInt32Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::UInt64 => {
            let v = a.as_primitive::<UInt64Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::Date32 => {
            let v = a.as_primitive::<Date32Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::Timestamp(..) => {
            let v = a.as_primitive::<TimestampMicrosecondType>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::Decimal64(..) => {
            let v = a.as_primitive::<Decimal64Type>();
            Box::new(move |i| v.value(i) as i128)
        }
        DataType::Decimal128(..) => {
            let v = a.as_primitive::<Decimal128Type>();
            Box::new(move |i| v.value(i))
        }
        DataType::Boolean => {
            let v = a.as_boolean();
            Box::new(move |i| v.value(i) as i128)
        }
        other => return Err(QuiverError::internal(format!("IN over {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{in_list_dynamic, literal_values, PhysicalExpr};
    use super::*;
    use arrow_array::{BinaryArray, RecordBatch, StringArray};

    /// The set `x IN (items)` gets when its items are literals.
    fn from_literals(
        items: &[PhysicalExpr],
        t: &DataType,
        collation: Collation,
    ) -> Option<ScalarSet> {
        let (values, has_null) = literal_values(items)?;
        ScalarSet::from_values(values, has_null, t, collation)
    }
    use arrow_schema::{Field, Schema};

    /// Binary strings compare as plain bytes (no padding: 'a' < 'a\0' <
    /// 'a '), column against column and against a constant, and IN lists
    /// (short and hashed) agree with a scalar memcmp reference.
    #[test]
    fn binary_compares_are_plain_byte_order() {
        let words: [&[u8]; 10] = [
            b"",
            b"a",
            b"a ",
            b"a\0",
            b"A",
            b"\xFF",
            b"\xC3\xA9",
            b"ab",
            b"a\xFF",
            b" ",
        ];
        let n = 120;
        let col = |k: usize| -> Vec<Option<&[u8]>> {
            (0..n)
                .map(|i| (i % 13 != 5).then(|| words[(i * k + i / 7) % words.len()]))
                .collect()
        };
        let (xs, ys) = (col(3), col(7));
        let x: ArrayRef = Arc::new(BinaryArray::from(xs.clone()));
        let y: ArrayRef = Arc::new(BinaryArray::from(ys.clone()));
        let ops = [
            BinaryOp::Eq,
            BinaryOp::NotEq,
            BinaryOp::Lt,
            BinaryOp::LtEq,
            BinaryOp::Gt,
            BinaryOp::GtEq,
        ];
        let reference = |op, a: &Option<&[u8]>, b: &Option<&[u8]>| match (a, b) {
            (Some(a), Some(b)) => Some(test(op, a.cmp(b))),
            _ => None,
        };
        for op in ops {
            // Whatever collation the operands carry, bytes decide.
            for collation in [default_collation(), Collation::binary()] {
                let got = compare(
                    op,
                    ColumnarValue::Array(x.clone()),
                    ColumnarValue::Array(y.clone()),
                    n,
                    collation,
                )
                .unwrap()
                .into_array(n)
                .unwrap();
                let want: BooleanArray = xs
                    .iter()
                    .zip(&ys)
                    .map(|(a, b)| reference(op, a, b))
                    .collect();
                assert_eq!(got.as_boolean(), &want, "{op:?} columns");
                for c in words {
                    let got = compare(
                        op,
                        ColumnarValue::Array(x.clone()),
                        ColumnarValue::Scalar(ScalarValue::Binary(c.to_vec()), DataType::Binary),
                        n,
                        collation,
                    )
                    .unwrap()
                    .into_array(n)
                    .unwrap();
                    let want: BooleanArray =
                        xs.iter().map(|a| reference(op, a, &Some(c))).collect();
                    assert_eq!(got.as_boolean(), &want, "{op:?} {c:?}");
                }
            }
        }
        // A text constant meets a binary column as its UTF-8 bytes.
        let got = compare(
            BinaryOp::Eq,
            ColumnarValue::Array(x.clone()),
            ColumnarValue::Scalar(ScalarValue::Utf8("a".into()), DataType::Utf8),
            n,
            default_collation(),
        )
        .unwrap()
        .into_array(n)
        .unwrap();
        let want: BooleanArray = xs.iter().map(|a| a.map(|a| a == b"a")).collect();
        assert_eq!(got.as_boolean(), &want);
        // IN lists: short (kernel per constant) and long (hashed).
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("b", DataType::Binary, true)])),
            vec![x.clone()],
        )
        .unwrap();
        for list in [&words[1..3], &words[..], &[&b"a "[..], b"\xFF"][..]] {
            let items: Vec<PhysicalExpr> = list
                .iter()
                .map(|w| PhysicalExpr::Literal(ScalarValue::Binary(w.to_vec()), DataType::Binary))
                .collect();
            let set = from_literals(&items, &DataType::Binary, default_collation()).unwrap();
            let got = set.contains_array(&x).unwrap();
            let want: BooleanArray = xs.iter().map(|a| a.map(|a| list.contains(&a))).collect();
            assert_eq!(got, want, "{list:?}");
            let dynamic = in_list_dynamic(&x, &items, &batch, default_collation()).unwrap();
            assert_eq!(dynamic, want, "{list:?} dynamic");
        }
    }

    /// A short string IN-list (the equality kernel per constant, OR-ed) gives
    /// what `x = c1 OR x = c2 ...` gives, row by row, under collations that
    /// differ in case, accents and trailing spaces; also on a sliced column.
    #[test]
    fn short_string_in_lists_equal_ors_of_equalities() {
        let words = [
            "", " ", "a", "a ", "A", "a\t", "b", "ab", "é", "E", "e  ", "ß", "ss", "Straße",
            "strasse", "zz", "mail", "MAIL ", "x",
        ];
        let column: Vec<String> = (0..300)
            .map(|i| words[(i * 7 + i / 5) % words.len()].to_string())
            .collect();
        let a: ArrayRef = Arc::new(StringArray::from(column));
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)])),
            vec![a.clone()],
        )
        .unwrap();
        for name in [
            "utf8mb4_bin",
            "utf8mb4_nopad_bin",
            "utf8mb4_general_ci",
            "utf8mb4_unicode_ci",
            "utf8mb4_0900_ai_ci",
        ] {
            let collation = Collation::from_name(name).unwrap();
            for list in [vec!["a", "mail"], vec!["e", "ss", " ", ""], vec!["straße"]] {
                let items: Vec<PhysicalExpr> = list
                    .iter()
                    .map(|w| {
                        PhysicalExpr::Literal(ScalarValue::Utf8(w.to_string()), DataType::Utf8)
                    })
                    .collect();
                let set = from_literals(&items, &DataType::Utf8, collation).unwrap();
                for (off, len) in [(0, 300), (13, 200)] {
                    let part = a.slice(off, len);
                    let got = set.contains_array(&part).unwrap();
                    let want =
                        in_list_dynamic(&part, &items, &batch.slice(off, len), collation).unwrap();
                    assert_eq!(got, want, "{name} {list:?} at {off}");
                }
            }
        }
    }
}
