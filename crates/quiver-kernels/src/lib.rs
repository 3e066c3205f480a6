//! Vectorized, type-specialized kernels for Quiver's executor.
//!
//! # Filters produce masks
//!
//! A predicate over a column of fixed-width values (`i8`..`i64`,
//! `u8`..`u64`, `f32`, `f64`) is evaluated into a packed bitmask, one bit
//! per row, in Arrow's [`BooleanBuffer`](arrow_buffer::BooleanBuffer) layout
//! (LSB-first, 64 rows per `u64` word). Masks rather than selection vectors
//! because:
//! * SIMD compares yield a bit per lane for free (`movemask`), so a kernel is
//!   a branch-free streaming loop whose cost does not depend on selectivity;
//! * conjunctions and disjunctions of predicates are word-wide AND/OR, 64
//!   rows per instruction;
//! * the mask is exactly what Arrow's `filter` kernels and null buffers use,
//!   so there is no conversion at the boundary.
//!
//! When a later operator wants row indices (gather, hash probe), [`selection`]
//! turns a mask into a `u32` selection vector with a trailing-zeros loop.
//!
//! ```
//! use arrow_buffer::NullBuffer;
//! use quiver_kernels::{between, cmp_scalar, filter_mask, selection, to_selection, CmpOp};
//!
//! // WHERE l_quantity < 24 AND l_discount BETWEEN 5 AND 7 (discount nullable)
//! let quantity = [5i32, 30, 12, 20, 1];
//! let discount = [6i64, 6, 9, 5, 7];
//! let discount_nulls = NullBuffer::from(vec![true, true, true, true, false]);
//! let mask = selection::and(
//!     &cmp_scalar(&quantity, CmpOp::Lt, 24),
//!     &filter_mask(&between(&discount, 5, 7), Some(&discount_nulls)),
//! );
//! assert_eq!(to_selection(&mask), vec![0, 3]);
//! ```
//!
//! # Dispatch once
//!
//! Each kernel has a portable path (plain Rust shaped for LLVM's
//! autovectorizer) and an AVX2 path. [`Isa::active`] probes the CPU on first
//! use and caches the answer, so dispatch costs one predictable branch per
//! call on a batch, never per value, and one binary runs on any x86_64 CPU.
//! Every method on [`Isa`] runs a chosen path, which the tests use to check
//! each path against a scalar reference and the benchmark uses to compare
//! them. `QUIVER_ISA=portable` forces the portable path process-wide.
//!
//! All `unsafe` code lives in this crate, in the AVX2 module and at its
//! dispatch sites, each guarded by the CPU feature check.
//!
//! # Modules
//! * [`compare`]: [`cmp_scalar`], [`cmp_columns`], [`between`].
//! * [`in_list`](mod@in_list): [`in_list()`](fn@in_list), linear SIMD scan for short
//!   lists, hash set for long ones.
//! * [`selection`]: combining masks (with SQL NULL semantics), counting,
//!   mask → selection vector.
//! * [`isa`]: the runtime ISA choice.

mod bitmask;
pub mod compare;
pub mod in_list;
pub mod isa;
pub mod selection;

pub use compare::{between, cmp_columns, cmp_scalar, CmpNative, CmpOp};
pub use in_list::{in_list, InListStrategy};
pub use isa::{active_isa, Isa};
pub use selection::{count_set_bits, filter_mask, to_selection, to_selection_into, RowIndex};
