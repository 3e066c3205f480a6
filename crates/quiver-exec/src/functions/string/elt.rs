//! The functions that pick among their string arguments by a number:
//! ELT(n, s1, s2, ...) (the n-th string), MAKE_SET(bits, s1, s2, ...)
//! (the strings whose bit is set, joined by commas, NULLs left out) and
//! EXPORT_SET(bits, on, off [, separator [, count]]) (`on` or `off` for
//! each of the first `count` bits, lowest first). As MariaDB's
//! `Item_func_elt`, `Item_func_make_set` and `Item_func_export_set`: the
//! number is read as an integer (rounded), the result is text unless a
//! string argument is binary, its collation is the strings' combined
//! (IMPLICIT), and it may be NULL.
//!
//! Results are built size-first: each row's pieces are measured, the
//! value buffer reserved, then filled.

use std::ops::RangeInclusive;

use arrow_array::builder::BinaryBuilder;
use arrow_array::{cast::AsArray, types::Int64Type, types::UInt64Type, Array, ArrayRef};
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::{bytes_of, chars_or_zero, finish_bytes, string_arg, text_or_bytes};

/// Which of the three.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pick {
    Elt,
    MakeSet,
    ExportSet,
}

pub struct PickString(Pick);

pub static ELT: PickString = PickString(Pick::Elt);
pub static MAKE_SET: PickString = PickString(Pick::MakeSet);
pub static EXPORT_SET: PickString = PickString(Pick::ExportSet);

impl ScalarFunction for PickString {
    fn name(&self) -> &'static str {
        match self.0 {
            Pick::Elt => "elt",
            Pick::MakeSet => "make_set",
            Pick::ExportSet => "export_set",
        }
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        match self.0 {
            Pick::Elt | Pick::MakeSet => 2..=usize::MAX,
            Pick::ExportSet => 3..=5,
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name().to_uppercase();
        let strings: Vec<DataType> = args[1..]
            .iter()
            .map(|t| string_arg(&name, t))
            .collect::<Result<_>>()?;
        // Every string in the result's kind (EXPORT_SET's count is a number).
        let string_count = if self.0 == Pick::ExportSet {
            strings.len().min(3)
        } else {
            strings.len()
        };
        let kind = text_or_bytes(&strings[..string_count]);
        let mut out = vec![number_type(&args[0])];
        for (i, t) in strings.iter().enumerate() {
            out.push(if i >= string_count {
                DataType::Int64
            } else if *t == DataType::Null {
                DataType::Null
            } else {
                kind.clone()
            });
        }
        Ok(out)
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        let strings = match self.0 {
            Pick::ExportSet => &args[1..args.len().min(4)],
            _ => &args[1..],
        };
        Ok(Bound::Call(text_or_bytes(
            strings.iter().map(|a| &a.data_type),
        )))
    }

    fn string_result(&self) -> StringResult {
        StringResult::Operands
    }

    fn max_chars(&self, args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        let mut lengths = Vec::with_capacity(args.len());
        for (a, c) in args.iter().zip(chars).skip(1) {
            lengths.push(chars_or_zero(a, *c)?);
        }
        match self.0 {
            Pick::Elt => lengths.iter().copied().max(),
            Pick::MakeSet => Some(lengths.iter().sum::<u64>() + lengths.len() as u64 - 1),
            Pick::ExportSet => {
                let widest = lengths[0].max(lengths[1]);
                let separator = if args.len() > 3 { lengths[2] } else { 1 };
                Some(widest * 64 + separator * 63)
            }
        }
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let numbers = read_numbers(a.arg(0)?)?;
        let out = match self.0 {
            Pick::Elt => elt(&a, &numbers)?,
            Pick::MakeSet => make_set(&a, &numbers)?,
            Pick::ExportSet => export_set(&a, &numbers)?,
        };
        a.finish(finish_bytes(out, call.data_type)?, call.data_type)
    }
}

/// The number argument's type: an integer as it is, anything else read
/// as a signed integer (rounded, as MariaDB's `val_int`).
fn number_type(t: &DataType) -> DataType {
    match t {
        DataType::UInt64 => DataType::UInt64,
        DataType::Null => DataType::Null,
        _ => DataType::Int64,
    }
}

/// The number argument as 64 bits (NULL: None).
fn read_numbers(a: &ArrayRef) -> Result<Vec<Option<u64>>> {
    Ok(match a.data_type() {
        DataType::UInt64 => a.as_primitive::<UInt64Type>().iter().collect(),
        DataType::Int64 => a
            .as_primitive::<Int64Type>()
            .iter()
            .map(|v| v.map(|v| v as u64))
            .collect(),
        DataType::Null => vec![None; a.len()],
        other => return Err(QuiverError::internal(format!("number argument {other}"))),
    })
}

fn elt(a: &Arrays, numbers: &[Option<u64>]) -> Result<arrow_array::BinaryArray> {
    let strings = a.arrays[1..]
        .iter()
        .map(bytes_of)
        .collect::<Result<Vec<_>>>()?;
    let pick = |i: usize| -> Option<&[u8]> {
        let n = numbers[i]? as i64;
        let s = strings.get(usize::try_from(n).ok()?.checked_sub(1)?)?;
        s.is_valid(i).then(|| s.value(i))
    };
    let bytes: usize = (0..a.rows).map(|i| pick(i).map_or(0, <[u8]>::len)).sum();
    let mut b = BinaryBuilder::with_capacity(a.rows, bytes);
    for i in 0..a.rows {
        b.append_option(pick(i));
    }
    Ok(b.finish())
}

fn make_set(a: &Arrays, numbers: &[Option<u64>]) -> Result<arrow_array::BinaryArray> {
    let strings = a.arrays[1..]
        .iter()
        .map(bytes_of)
        .collect::<Result<Vec<_>>>()?;
    // The chosen strings of row i, in argument order.
    let chosen = |i: usize, bits: u64| {
        strings
            .iter()
            .enumerate()
            .filter(move |(k, s)| *k < 64 && bits >> k & 1 == 1 && s.is_valid(i))
            .map(move |(_, s)| s.value(i))
    };
    let bytes: usize = (0..a.rows)
        .filter_map(|i| Some(chosen(i, numbers[i]?).map(|s| s.len() + 1).sum::<usize>()))
        .sum();
    let mut b = BinaryBuilder::with_capacity(a.rows, bytes);
    let mut row = Vec::new();
    for (i, bits) in numbers.iter().enumerate() {
        let Some(bits) = *bits else {
            b.append_null();
            continue;
        };
        row.clear();
        for (k, s) in chosen(i, bits).enumerate() {
            if k > 0 {
                row.push(b',');
            }
            row.extend_from_slice(s);
        }
        b.append_value(&row);
    }
    Ok(b.finish())
}

fn export_set(a: &Arrays, numbers: &[Option<u64>]) -> Result<arrow_array::BinaryArray> {
    let on = bytes_of(a.arg(1)?)?;
    let off = bytes_of(a.arg(2)?)?;
    let separator = a.arrays.get(3).map(bytes_of).transpose()?;
    let count = match a.arrays.get(4) {
        Some(c) => read_numbers(c)?,
        None => vec![Some(64); a.rows],
    };
    let mut b = BinaryBuilder::with_capacity(a.rows, 0);
    let mut row = Vec::new();
    for i in 0..a.rows {
        let sep: Option<&[u8]> = match &separator {
            Some(s) => s.is_valid(i).then(|| s.value(i)),
            None => Some(b","),
        };
        let (Some(bits), Some(count), true, true, Some(sep)) =
            (numbers[i], count[i], on.is_valid(i), off.is_valid(i), sep)
        else {
            b.append_null();
            continue;
        };
        // A count past 64, or negative, is 64.
        let count = if count > 64 { 64 } else { count as u32 };
        let (on, off) = (on.value(i), off.value(i));
        row.clear();
        row.reserve(on.len().max(off.len()) * count as usize + sep.len() * count as usize);
        for k in 0..count {
            if k > 0 {
                row.extend_from_slice(sep);
            }
            row.extend_from_slice(if bits >> k & 1 == 1 { on } else { off });
        }
        b.append_value(&row);
    }
    Ok(b.finish())
}
