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

use std::cmp::Ordering;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod column;
mod constant;
mod finder;
mod isa;
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

/// Runs kernel `$f` on the code path of `$isa`, which must already be a
/// supported ISA (from [`Isa::active`] or [`Isa::checked`]).
macro_rules! run_on {
    ($isa:expr, $f:ident($($arg:expr),*)) => {
        match $isa {
            #[cfg(target_arch = "x86_64")]
            $crate::Isa::Avx2 => {
                // SAFETY: the ISA is `Isa::active()` or `Isa::checked()`, both
                // of which yield `Avx2` only on CPUs that support AVX2.
                unsafe { $crate::avx2::$f($($arg),*) }
            }
            _ => $crate::portable::$f($($arg),*),
        }
    };
}
pub(crate) use run_on;

/// Defines each kernel twice: as a free function on the active ISA and as an
/// [`Isa`] method that runs a chosen code path.
macro_rules! kernels {
    ($(
        $(#[$doc:meta])*
        fn $f:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
    )*) => {
        $(
            $(#[$doc])*
            #[inline]
            pub fn $f($($arg: $ty),*) -> $ret {
                run_on!(Isa::active(), $f($($arg),*))
            }
        )*

        impl Isa {
            $(
                #[doc = concat!("[`", stringify!($f), "`] on this code path (portable if the CPU lacks it).")]
                #[inline]
                pub fn $f(self, $($arg: $ty),*) -> $ret {
                    run_on!(self.checked(), $f($($arg),*))
                }
            )*
        }
    };
}

kernels! {
    /// Whether `a` and `b` hold the same bytes (memory equality).
    fn bytes_eq(a: &[u8], b: &[u8]) -> bool;

    /// Three-way `memcmp` order; on a common prefix the shorter is less.
    fn bytes_cmp(a: &[u8], b: &[u8]) -> Ordering;

    /// Length of the common prefix of `a` and `b`.
    fn mismatch(a: &[u8], b: &[u8]) -> usize;

    /// Position of the first `needle` byte in `hay`.
    fn memchr(needle: u8, hay: &[u8]) -> Option<usize>;

    /// Position of the last `needle` byte in `hay`.
    fn memrchr(needle: u8, hay: &[u8]) -> Option<usize>;

    /// Position of the first byte of `s` that is not 0x20.
    fn first_non_space(s: &[u8]) -> Option<usize>;

    /// `s` without its trailing 0x20 bytes; tabs, NULs and other bytes are
    /// kept, as the PAD SPACE rule pads with 0x20 only.
    fn trim_end_spaces(s: &[u8]) -> &[u8];

    /// Whether every byte of `s` is 0x20 (true for the empty slice).
    fn is_all_spaces(s: &[u8]) -> bool;

    /// Binary PAD SPACE compare (MySQL `utf8mb4_bin` / `latin1_bin`): the
    /// shorter operand is compared as if padded with 0x20 to the longer one's
    /// length. So `b"a\t" < b"a"` (0x09 < 0x20) and `b"a" == b"a  "`.
    fn pad_space_cmp(a: &[u8], b: &[u8]) -> Ordering;

    /// `pad_space_cmp(a, b) == Equal`: equal once trailing 0x20s are ignored.
    fn pad_space_eq(a: &[u8], b: &[u8]) -> bool;

    /// Whether every byte is below 0x80.
    fn is_ascii(s: &[u8]) -> bool;

    /// Maps `a..=z` to `A..=Z` in place; every other byte is left alone.
    fn ascii_upper_in_place(s: &mut [u8]) -> ();

    /// Equality with ASCII letters folded to upper case. Meant for ASCII
    /// bytes (the caller checks); other bytes compare as themselves.
    fn ascii_eq_ignore_case(a: &[u8], b: &[u8]) -> bool;

    /// `memcmp` order of the uppercased bytes (so `'_'` (0x5F) sorts after
    /// `'a'`, which compares as `'A'` (0x41)); shorter is less on a common prefix.
    fn ascii_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering;

    /// Length of the common prefix once ASCII letters are uppercased.
    fn mismatch_ignore_case(a: &[u8], b: &[u8]) -> usize;

    /// PAD SPACE compare of the uppercased bytes, for case-insensitive
    /// PAD SPACE collations over ASCII data.
    fn ascii_pad_space_cmp_ignore_case(a: &[u8], b: &[u8]) -> Ordering;

    /// Two bitmasks of 64 bytes (bit `i` for byte `i`): where the byte is
    /// `x` or `y`, and where it is 0x80 or more. A column of one-byte
    /// values compared with a one-byte constant is this, 64 rows at a time
    /// (`x == y` for a byte compare, the two cases of a letter under `_ci`).
    fn eq2_masks64(s: &[u8; 64], x: u8, y: u8) -> [u64; 2];
}

/// `ascii_pad_space_cmp_ignore_case(a, b) == Equal`.
#[inline]
pub fn ascii_pad_space_eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    ascii_pad_space_cmp_ignore_case(a, b) == Ordering::Equal
}
