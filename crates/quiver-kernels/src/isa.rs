//! Runtime instruction-set selection: the code paths this crate's kernels
//! have, picked by the CPU detection in `quiver-isa` (probed once per
//! process and cached, so a kernel call pays one load plus a well-predicted
//! branch to pick its code path instead of re-probing CPUID for every batch).

/// An instruction set the kernels have a code path for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Plain Rust written so LLVM autovectorizes it for the baseline target.
    Portable,
    /// Hand-written AVX2 (x86_64 only), selected when the CPU supports it.
    Avx2,
}

/// Environment variable that forces the portable path (`QUIVER_ISA=portable`),
/// for A/B performance runs and for testing the fallback on AVX2 machines.
pub use quiver_isa::ISA_ENV_VAR;

impl Isa {
    /// Every ISA, portable first.
    pub const ALL: [Isa; 2] = [Isa::Portable, Isa::Avx2];

    /// The ISA the dispatching kernels use: the best one this CPU supports,
    /// unless overridden by [`ISA_ENV_VAR`]. Detected on first call, then cached.
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

    /// Panics when asked to run a code path this CPU lacks; running AVX2
    /// instructions there would be undefined behaviour, not just slow.
    #[inline]
    pub(crate) fn assert_supported(self) {
        assert!(
            self.is_supported(),
            "ISA {} is not supported by this CPU",
            self.name()
        );
    }
}

/// Name of the ISA the dispatching kernels use (`"avx2"` or `"portable"`).
pub fn active_isa() -> &'static str {
    Isa::active().name()
}
