//! Compares of a column against a scalar, a column against a column, and the
//! fused `lo <= v <= hi` (SQL `BETWEEN`), producing packed selection masks.
//!
//! Every kernel exists twice: a portable version written so LLVM
//! autovectorizes it, and an AVX2 version (x86_64). The free functions
//! ([`cmp_scalar`], [`cmp_columns`], [`between`]) use [`Isa::active`]; the
//! same-named methods on [`Isa`] run a chosen path, for tests and benchmarks.
//!
//! Floats compare as IEEE 754 does (Rust's `PartialOrd`): NaN is unequal to
//! everything including itself, so `NaN != x` is true and every ordering
//! compare with NaN is false; `-0.0 == 0.0`.

use std::fmt::Debug;

use arrow_buffer::BooleanBuffer;

use crate::bitmask::{into_boolean_buffer, word_count};
use crate::isa::Isa;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
pub(crate) mod op;
pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
use op::op_code;
pub use op::CmpOp;

/// Runs `$body` with `$code` bound to the const operator code of `$op`.
#[cfg(target_arch = "x86_64")]
macro_rules! with_op_code {
    ($op:expr, $code:ident => $body:expr) => {
        match $op {
            CmpOp::Eq => {
                const $code: u8 = op_code::EQ;
                $body
            }
            CmpOp::NotEq => {
                const $code: u8 = op_code::NE;
                $body
            }
            CmpOp::Lt => {
                const $code: u8 = op_code::LT;
                $body
            }
            CmpOp::LtEq => {
                const $code: u8 = op_code::LE;
                $body
            }
            CmpOp::Gt => {
                const $code: u8 = op_code::GT;
                $body
            }
            CmpOp::GtEq => {
                const $code: u8 = op_code::GE;
                $body
            }
        }
    };
}

/// Fixed-width native types the compare kernels support: `i8..i64`,
/// `u8..u64`, `f32`, `f64`. Sealed: each type needs hand-written SIMD code.
pub trait CmpNative:
    Copy + Default + PartialOrd + Debug + Send + Sync + 'static + private::Sealed
{
}

pub(crate) mod private {
    /// Crate-internal per-type hooks; on x86_64 this also requires the AVX2
    /// primitives, so generic code can dispatch without naming the type.
    #[cfg(target_arch = "x86_64")]
    pub trait Sealed: super::avx2::Lanes {
        /// A key such that `a == b` iff `eq_key(a) == eq_key(b)`, or `None`
        /// when the value equals nothing (NaN). Used by hashed IN lists.
        fn eq_key(self) -> Option<u64>;
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub trait Sealed {
        /// See the x86_64 definition.
        fn eq_key(self) -> Option<u64>;
    }
}

macro_rules! impl_int_native {
    ($($t:ty),*) => {$(
        impl CmpNative for $t {}
        impl private::Sealed for $t {
            #[inline]
            fn eq_key(self) -> Option<u64> {
                // Sign- or zero-extension is injective per type.
                Some(self as u64)
            }
        }
    )*};
}
impl_int_native!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! impl_float_native {
    ($($t:ty),*) => {$(
        impl CmpNative for $t {}
        impl private::Sealed for $t {
            #[inline]
            fn eq_key(self) -> Option<u64> {
                if self.is_nan() {
                    None
                } else if self == 0.0 {
                    Some(0) // -0.0 == 0.0 but their bit patterns differ
                } else {
                    Some(u64::from(self.to_bits()))
                }
            }
        }
    )*};
}
impl_float_native!(f32, f64);

/// `values[i] <op> rhs` for every `i`, using the active ISA.
pub fn cmp_scalar<T: CmpNative>(values: &[T], op: CmpOp, rhs: T) -> BooleanBuffer {
    Isa::active().cmp_scalar(values, op, rhs)
}

/// `lhs[i] <op> rhs[i]` for every `i`, using the active ISA.
///
/// # Panics
/// If the columns differ in length.
pub fn cmp_columns<T: CmpNative>(lhs: &[T], rhs: &[T], op: CmpOp) -> BooleanBuffer {
    Isa::active().cmp_columns(lhs, rhs, op)
}

/// `lo <= values[i] && values[i] <= hi` for every `i` (SQL `BETWEEN`, fused
/// into one pass), using the active ISA.
pub fn between<T: CmpNative>(values: &[T], lo: T, hi: T) -> BooleanBuffer {
    Isa::active().between(values, lo, hi)
}

impl Isa {
    /// [`cmp_scalar`] on this ISA's code path.
    ///
    /// # Panics
    /// If this CPU does not support `self`.
    pub fn cmp_scalar<T: CmpNative>(self, values: &[T], op: CmpOp, rhs: T) -> BooleanBuffer {
        self.assert_supported();
        let mut words = vec![0u64; word_count(values.len())];
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => with_op_code!(op, OP => {
                // SAFETY: `assert_supported` above checked that the CPU has AVX2.
                unsafe { avx2::cmp_scalar::<T, OP>(values, rhs, &mut words) }
            }),
            _ => portable::cmp_scalar(values, op, rhs, &mut words),
        }
        into_boolean_buffer(words, values.len())
    }

    /// [`cmp_columns`] on this ISA's code path.
    ///
    /// # Panics
    /// If the columns differ in length or this CPU does not support `self`.
    pub fn cmp_columns<T: CmpNative>(self, lhs: &[T], rhs: &[T], op: CmpOp) -> BooleanBuffer {
        assert_eq!(lhs.len(), rhs.len(), "cmp_columns: column lengths differ");
        self.assert_supported();
        let mut words = vec![0u64; word_count(lhs.len())];
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => with_op_code!(op, OP => {
                // SAFETY: `assert_supported` above checked that the CPU has
                // AVX2, and the lengths are equal.
                unsafe { avx2::cmp_columns::<T, OP>(lhs, rhs, &mut words) }
            }),
            _ => portable::cmp_columns(lhs, rhs, op, &mut words),
        }
        into_boolean_buffer(words, lhs.len())
    }

    /// [`between`] on this ISA's code path.
    ///
    /// # Panics
    /// If this CPU does not support `self`.
    pub fn between<T: CmpNative>(self, values: &[T], lo: T, hi: T) -> BooleanBuffer {
        self.assert_supported();
        let mut words = vec![0u64; word_count(values.len())];
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                // SAFETY: `assert_supported` above checked that the CPU has AVX2.
                unsafe { avx2::between(values, lo, hi, &mut words) }
            }
            _ => portable::between(values, lo, hi, &mut words),
        }
        into_boolean_buffer(words, values.len())
    }
}
