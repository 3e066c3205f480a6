//! Shared vocabulary of Quiver: MySQL-coded errors, scalar values and SQL type rules.
//!
//! Every other crate depends on this one; it depends only on Arrow's type crates.

pub mod columnar;
pub mod error;
pub mod heap;
pub mod scalar;
pub mod types;

/// The unscaled value of a DECIMAL scalar (and of Decimal256 columns).
pub use arrow_buffer::i256;
pub use columnar::ColumnarValue;
pub use error::{QuiverError, Result};
pub use scalar::ScalarValue;
