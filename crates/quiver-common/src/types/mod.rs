//! MySQL type rules over Arrow types: names, result types of arithmetic and
//! aggregates, and text conversions of dates, decimals and doubles.
//!
//! Split by job into the files below; everything is re-exported here so
//! `quiver_common::types::X` stays the one path callers use.

mod datetime;
mod decimal;
mod family;
mod integer;
mod metadata;
mod number_text;
mod pad_space;
mod result_type;
mod value;

pub use datetime::*;
pub use decimal::*;
pub use family::*;
pub use integer::*;
pub use metadata::*;
pub use number_text::*;
pub use pad_space::*;
pub use result_type::*;
pub use value::*;

/// A value as an unscaled decimal: defined with the value (scalar.rs).
pub use crate::scalar::{to_decimal, to_decimal256};
