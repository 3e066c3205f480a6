//! Runtime instruction-set selection: the code paths the string kernels
//! have, picked by the CPU detection in `quiver-isa` (probed once per
//! process and cached, so a kernel call pays one load plus a well-predicted
//! branch to pick its code path instead of re-probing CPUID per value). The
//! detection and the `QUIVER_ISA` override are shared with `quiver-kernels`.

/// An instruction set the string kernels have a code path for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Safe Rust, eight bytes at a time in `u64` words (SWAR); runs anywhere.
    Portable,
    /// Hand-written AVX2 (x86_64 only), with SSE2 for 16..31-byte operands.
    Avx2,
}

/// Environment variable that forces the portable path (`QUIVER_ISA=portable`),
/// for A/B performance runs and for testing the fallback on AVX2 machines.
pub use quiver_isa::ISA_ENV_VAR;

impl Isa {
    /// Every ISA, portable first.
    pub const ALL: [Isa; 2] = [Isa::Portable, Isa::Avx2];

    /// The ISA the free-function kernels use: the best one this CPU supports,
    /// unless overridden by [`ISA_ENV_VAR`]. Detected on first call, then cached.
    #[inline]
    pub fn active() -> Isa {
        if quiver_isa::avx2_active() {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }

    /// Whether this CPU can run the code path for `self`.
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Portable => true,
            Isa::Avx2 => quiver_isa::avx2_supported(),
        }
    }

    /// The ISAs this CPU can run, portable first.
    pub fn supported() -> impl Iterator<Item = Isa> {
        Isa::ALL.into_iter().filter(|isa| isa.is_supported())
    }

    /// Short lower-case name, e.g. `"avx2"`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
        }
    }

    /// `self` if this CPU can run it, else [`Isa::Portable`]. Running AVX2
    /// instructions on a CPU without them would be undefined behaviour, so an
    /// explicit request for an unsupported ISA degrades instead of trusting it.
    #[inline]
    pub(crate) fn checked(self) -> Isa {
        match self {
            Isa::Avx2 if quiver_isa::avx2_supported() => Isa::Avx2,
            _ => Isa::Portable,
        }
    }
}

/// Name of the ISA the free-function kernels use (`"avx2"` or `"portable"`).
pub fn active_isa() -> &'static str {
    Isa::active().name()
}
