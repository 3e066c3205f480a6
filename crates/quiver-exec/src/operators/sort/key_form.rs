//! A sort key ([`SortKey`]), and how string sort keys are written so that
//! comparing their bytes orders them as their collation does
//! ([`StringKeyForm`]).

use std::sync::Arc;

use arrow_array::{
    builder::{BinaryBuilder, StringBuilder},
    cast::AsArray,
    Array, ArrayRef,
};
use quiver_collation::{with_collator, Collation, Collator};
use quiver_common::Result;
use quiver_plan::default_collation;

use crate::expr::PhysicalExpr;

#[derive(Debug, Clone)]
pub struct SortKey {
    pub expr: PhysicalExpr,
    pub asc: bool,
    pub nulls_first: bool,
}

/// How string sort keys are written for the row format, which compares
/// bytes. Under the default utf8mb4_bin the bytes are the collation's order
/// once trailing spaces are cut, unless a value has a byte below the space
/// (PAD SPACE sorts `'a\t'` before `'a'`): `Bytes` when no value ends in a
/// space either, `Trimmed` when some do (any character after a run of
/// spaces is above the space, so a cut value compares as the padded one).
/// Otherwise, and under every other collation, `Normalized`: the
/// collation's normalized keys, which compare as bytes exactly as the
/// collation compares the strings. All batches of one sort must use one
/// form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StringKeyForm {
    Bytes,
    Trimmed,
    Normalized,
}

/// The form that fits every one of `arrays` (all of one key).
pub(crate) fn string_key_form(arrays: &[&ArrayRef], collation: Collation) -> StringKeyForm {
    if collation != default_collation() {
        return StringKeyForm::Normalized;
    }
    let mut form = StringKeyForm::Bytes;
    for a in arrays {
        let Some(s) = a.as_string_opt::<i32>() else {
            continue;
        };
        let values = s.values().as_slice();
        if values.iter().any(|b| *b < b' ') {
            return StringKeyForm::Normalized;
        }
        let offsets = s.value_offsets();
        if offsets
            .windows(2)
            .any(|w| w[0] != w[1] && values[w[1] as usize - 1] == b' ')
        {
            form = StringKeyForm::Trimmed;
        }
    }
    form
}

/// A sort column written in `form` (other than string columns: as is).
pub(crate) fn string_sort_column(
    a: ArrayRef,
    collation: Collation,
    form: StringKeyForm,
) -> Result<ArrayRef> {
    let Some(s) = a.as_string_opt::<i32>() else {
        return Ok(a);
    };
    match form {
        StringKeyForm::Bytes => Ok(a),
        StringKeyForm::Trimmed => {
            let mut cut = StringBuilder::with_capacity(s.len(), s.values().len());
            for v in s.iter() {
                match v {
                    Some(v) => cut.append_value(v.trim_end_matches(' ')),
                    None => cut.append_null(),
                }
            }
            Ok(Arc::new(cut.finish()))
        }
        StringKeyForm::Normalized => {
            let mut key = Vec::new();
            let mut keys = BinaryBuilder::with_capacity(s.len(), s.values().len());
            with_collator!(collation, |c| {
                for v in s.iter() {
                    match v {
                        Some(v) => {
                            key.clear();
                            c.normalized_key(v.as_bytes(), &mut key);
                            keys.append_value(&key);
                        }
                        None => keys.append_null(),
                    }
                }
            });
            Ok(Arc::new(keys.finish()))
        }
    }
}

/// One array's string sort column, in the form that fits it alone.
pub(crate) fn collated_sort_column(a: ArrayRef, collation: Collation) -> Result<ArrayRef> {
    let form = string_key_form(&[&a], collation);
    string_sort_column(a, collation, form)
}
