//! Byte-string kernels for collation-aware string operators.
//!
//! The binary collations (`utf8mb4_bin`, `latin1_bin`, `binary`) reduce string
//! comparison to byte work: memory equality, `memcmp` order, `memchr`,
//! substring search, and the PAD SPACE rule (the shorter operand compares as
//! if padded with 0x20 to the longer one's length). Those are the kernels
//! here; a collation crate builds `=`, `<`, `LIKE` and sort keys on top.
//!
//! # Layout
//! - Free functions ([`bytes_eq`], [`memchr`], [`pad_space_cmp`], …) run on
//!   the best code path for this CPU, chosen once per process ([`Isa::active`],
//!   overridable with `QUIVER_ISA=portable`). The same kernels are methods of
//!   [`Isa`] (`Isa::Portable.bytes_eq(a, b)`), which is how tests and A/B
//!   benchmarks pin a path.
//! - Code paths: `portable` (safe Rust over `u64` words, any target) and
//!   `avx2` (x86_64). All `unsafe` lives in `avx2`, where every load and
//!   store goes through a fixed-size array reference cut from the slice with
//!   bounds-checked indexing, so no kernel can read past the end of a slice.
//! - Operand sizes: values in a database are short (a TPC-H `l_comment` is 10..43
//!   bytes, a shipmode 3..7), so the AVX2 path handles up to 64 bytes
//!   without a loop and with almost no length branches: four 16-byte blocks
//!   at `0`, `min(16, n - 16)`, `max(n - 32, 0)` and `n - 16` cover any
//!   16..=64 byte operand, 8..15 bytes are the first and last 8 in one
//!   vector, 4..7 the first and last 4. Longer operands loop over 32-byte
//!   blocks (unrolled to 128 bytes where that is load-bound) and finish with
//!   a block that ends exactly at the end, overlapping the previous one.
//! - `reference` holds plain per-byte versions that define the semantics;
//!   property tests check both paths against them, and a golden file of
//!   MariaDB `STRCMP` answers checks the semantics themselves.
//! - Prepared operands: [`SubstringFinder`] (a constant needle, e.g. one
//!   `%piece%` of a `LIKE` pattern; probes its two rarest bytes 32 starts at
//!   a time) and [`PreparedConstant`] (the constant side of `col = 'const'`,
//!   compared as fixed-size words when at most 32 bytes) do their
//!   per-constant work once, not per value.
//! - Column helpers ([`eq_const_offsets`], [`contains_offsets`]) run a
//!   prepared operand over an Arrow-style string column (`offsets[i]..
//!   offsets[i + 1]` into one `values` buffer) into a bitmask of `u64` words,
//!   bit `i % 64` of word `i / 64` for row `i`. They validate the offsets
//!   once (bad offsets are an [`OffsetsError`], never a panic), filter rows
//!   by length 64 at a time from the offsets alone before reading any value
//!   (equality), or search the whole values buffer and map hits back to rows
//!   (`contains`), so rows without a hit cost only the scan.
//!
//! Case-insensitive kernels fold ASCII letters only (`a..=z` to `A..=Z`); any
//! other byte compares as itself. On ASCII data that is `utf8mb4_general_ci`
//! order (checked against MariaDB); callers use them for ASCII data.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod column;
mod constant;
mod finder;
mod isa;
mod kernels;
mod portable;
#[doc(hidden)]
pub mod reference;

pub use column::{
    contains_offsets, ends_in_space, eq_const_folded_offsets, eq_const_folded_offsets_shaped,
    eq_const_offsets, eq_const_offsets_shaped, validated as validate_offsets, Offset, OffsetsError,
    RowHints, RowShape,
};
pub use constant::{FoldedMatch, PreparedConstant, PreparedFoldedConstant};
pub use finder::SubstringFinder;
pub use isa::{active_isa, Isa, ISA_ENV_VAR};
pub use kernels::*;
