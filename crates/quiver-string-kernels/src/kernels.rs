//! The byte-string kernels, each twice: a free function on the active ISA
//! and an [`Isa`] method on a chosen one; and `run_on!`, the dispatch to a
//! code path that the prepared operands (constant.rs, finder.rs, column.rs)
//! use too. Apart from lib.rs, which only re-exports, so those files need
//! not reach the crate root.

use std::cmp::Ordering;

use crate::isa::Isa;

/// Runs kernel `$f` on the code path of `$isa`, which must already be a
/// supported ISA (from [`Isa::active`] or [`Isa::checked`]).
macro_rules! run_on {
    ($isa:expr, $f:ident($($arg:expr),*)) => {
        match $isa {
            #[cfg(target_arch = "x86_64")]
            $crate::isa::Isa::Avx2 => {
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
