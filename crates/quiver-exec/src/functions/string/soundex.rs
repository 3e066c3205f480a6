//! SOUNDEX(s), as MariaDB's `Item_func_soundex`: leading characters that
//! are no letters are skipped; the first letter is kept, upper-cased;
//! every later letter gives its Soundex digit unless it is a vowel-like
//! letter (A E I O U H W Y: no digit, and the previous digit stays the
//! one to compare with) or repeats the previous digit; the result is
//! padded with '0' to four characters and is not cut to four (MariaDB's
//! is as long as the word makes it). Letters are ASCII letters and, for
//! text, every character from U+00C0 on; a non-ASCII first letter is kept
//! as it is (not upper-cased), and a non-ASCII letter after it gives no
//! digit, as in MariaDB. An empty result is not padded.

use std::ops::RangeInclusive;

use arrow_array::builder::BinaryBuilder;
use arrow_array::Array;
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, StringResult};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::{bytes_of, chars_or_zero, finish_bytes, string_arg};

pub struct Soundex;

pub static SOUNDEX: Soundex = Soundex;

impl ScalarFunction for Soundex {
    fn name(&self) -> &'static str {
        "soundex"
    }

    fn family(&self) -> Family {
        Family::String
    }

    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![string_arg("SOUNDEX", &args[0])?])
    }

    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound> {
        Ok(if args[0].is_null() {
            Bound::Constant(ScalarValue::Null, DataType::Binary)
        } else if args[0].data_type == DataType::Binary {
            Bound::Call(DataType::Binary)
        } else {
            Bound::Call(DataType::Utf8)
        })
    }

    fn max_chars(&self, args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        Some(chars_or_zero(&args[0], chars[0])?.max(4))
    }

    fn string_result(&self) -> StringResult {
        StringResult::Operands
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let text = *call.data_type != DataType::Binary;
        let s = bytes_of(a.arg(0)?)?;
        let mut b = BinaryBuilder::with_capacity(s.len(), s.len() * 4);
        let mut row = Vec::new();
        for i in 0..s.len() {
            if s.is_null(i) {
                b.append_null();
                continue;
            }
            row.clear();
            if text {
                soundex_text(s.value(i), &mut row);
            } else {
                soundex_bytes(s.value(i), &mut row);
            }
            b.append_value(&row);
        }
        a.finish(finish_bytes(b.finish(), call.data_type)?, call.data_type)
    }
}

/// The digit of a letter by its upper-case ASCII byte; b'0' for vowels,
/// H, W, Y and anything that is not A-Z.
fn digit(upper: u8) -> u8 {
    const MAP: &[u8; 26] = b"01230120022455012623010202";
    if upper.is_ascii_uppercase() {
        MAP[(upper - b'A') as usize]
    } else {
        b'0'
    }
}

/// The digit of character `c`: none for non-ASCII letters.
fn digit_of_char(c: char) -> u8 {
    if c.is_ascii() {
        digit(c.to_ascii_uppercase() as u8)
    } else {
        b'0'
    }
}

/// Pads to four characters, unless nothing was found.
fn pad(out: &mut Vec<u8>, chars: usize) {
    if chars > 0 {
        out.extend(std::iter::repeat_n(b'0', 4usize.saturating_sub(chars)));
    }
}

fn soundex_text(s: &[u8], out: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(s);
    let is_letter = |c: char| c.is_ascii_alphabetic() || c as u32 >= 0xC0;
    let mut chars = text.chars().skip_while(|c| !is_letter(*c));
    let Some(first) = chars.next() else {
        return;
    };
    let mut buf = [0u8; 4];
    out.extend_from_slice(first.to_ascii_uppercase().encode_utf8(&mut buf).as_bytes());
    let mut last = digit_of_char(first);
    let mut n = 1;
    for c in chars.filter(|c| is_letter(*c)) {
        let d = digit_of_char(c);
        if d != b'0' && d != last {
            out.push(d);
            last = d;
            n += 1;
        }
    }
    pad(out, n);
}

fn soundex_bytes(s: &[u8], out: &mut Vec<u8>) {
    let mut letters = s.iter().copied().filter(u8::is_ascii_alphabetic);
    let Some(first) = letters.next() else {
        return;
    };
    out.push(first.to_ascii_uppercase());
    let mut last = digit(first.to_ascii_uppercase());
    let mut n = 1;
    for c in letters {
        let d = digit(c.to_ascii_uppercase());
        if d != b'0' && d != last {
            out.push(d);
            last = d;
            n += 1;
        }
    }
    pad(out, n);
}
