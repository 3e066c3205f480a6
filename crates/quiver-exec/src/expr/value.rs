//! The value of an expression over a batch ([`ColumnarValue`]), defined in
//! `quiver-common` so that the function registry's kernels share it.

pub use quiver_common::ColumnarValue;
