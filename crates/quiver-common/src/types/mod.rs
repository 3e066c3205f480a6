//! MySQL type rules over Arrow types: names, result types of arithmetic and
//! aggregates, and text conversions of dates, decimals and doubles.
//!
//! Split by job into the files below; everything is re-exported here so
//! `quiver_common::types::X` stays the one path callers use.

pub(crate) mod datetime;
pub(crate) mod decimal;
pub(crate) mod family;
pub(crate) mod integer;
pub(crate) mod members;
pub(crate) mod metadata;
pub(crate) mod number_text;
pub(crate) mod pad_space;
pub(crate) mod result_type;
pub(crate) mod time;
pub(crate) mod value;
pub(crate) mod year;

pub use datetime::*;
pub use decimal::*;
pub use family::*;
pub use integer::*;
pub use members::*;
pub use metadata::*;
pub use number_text::*;
pub use pad_space::*;
pub use result_type::*;
pub use time::*;
pub use value::*;
pub use year::*;

/// A value as an unscaled decimal: defined with the value (scalar.rs).
pub use crate::scalar::{to_decimal, to_decimal256};
