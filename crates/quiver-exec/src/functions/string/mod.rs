//! String functions of the registry, and what they share: arguments read
//! as byte strings whatever their kind, and the argument conversions of
//! functions that take strings.

pub mod base64;
pub mod chr;
pub mod elt;
pub mod find_in_set;
pub mod format;
pub mod quote;
pub mod soundex;

use arrow_array::{Array, ArrayRef, BinaryArray};
use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{QuiverError, Result};

use crate::expr::cast_array;

/// A string argument's type as the function takes it: a string stays what
/// it is (text or bytes), NULL stays NULL, and anything else is converted
/// to text as MySQL prints it.
pub(crate) fn string_arg(name: &str, t: &DataType) -> Result<DataType> {
    match t {
        t if is_string(t) => Ok(t.clone()),
        DataType::Null => Ok(DataType::Null),
        t if t.is_numeric()
            || matches!(
                t,
                DataType::Boolean | DataType::Date32 | DataType::Timestamp(..)
            ) =>
        {
            Ok(DataType::Utf8)
        }
        other => Err(QuiverError::not_supported(format!("{name} of {other}"))),
    }
}

/// The result type of a function whose result is one of its string
/// arguments (or made of them): bytes when any of them is bytes.
pub(crate) fn text_or_bytes<'a>(args: impl IntoIterator<Item = &'a DataType>) -> DataType {
    if args
        .into_iter()
        .any(|t| matches!(t, DataType::Binary | DataType::LargeBinary))
    {
        DataType::Binary
    } else {
        DataType::Utf8
    }
}

/// An argument's values as byte strings over the same buffers (a NULL
/// argument: all NULL).
pub(crate) fn bytes_of(a: &ArrayRef) -> Result<BinaryArray> {
    if let Some(b) = crate::bytes::byte_view(a.as_ref()) {
        return Ok(b);
    }
    let b = cast_array(a, &DataType::Binary)?;
    crate::bytes::byte_view(b.as_ref())
        .ok_or_else(|| QuiverError::internal(format!("bytes of {}", a.data_type())))
}

/// Bytes made by a kernel as a result of type `t` (text results are UTF-8
/// by construction: pieces of UTF-8 arguments joined at ASCII bytes).
pub(crate) fn finish_bytes(out: BinaryArray, t: &DataType) -> Result<ArrayRef> {
    Ok(match t {
        DataType::Binary => std::sync::Arc::new(out),
        _ => {
            let (offsets, values, nulls) = out.into_parts();
            std::sync::Arc::new(arrow_array::StringArray::try_new(offsets, values, nulls)?)
        }
    })
}

/// The most characters of an argument (0 for a NULL literal, None when
/// unknown).
pub(crate) fn chars_or_zero(
    info: &quiver_plan::function::ArgInfo,
    chars: Option<u64>,
) -> Option<u64> {
    if info.is_null() {
        Some(0)
    } else {
        chars
    }
}
