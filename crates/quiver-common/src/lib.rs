//! Shared vocabulary of Quiver: MySQL-coded errors, scalar values and SQL type rules.
//!
//! Every other crate depends on this one; it depends only on Arrow's type crates.

pub mod error;
pub mod scalar;
pub mod types;

pub use error::{QuiverError, Result};
pub use scalar::ScalarValue;
