//! Runtime CPU detection shared by Quiver's kernel crates: whether this CPU
//! runs AVX2, and whether the process uses it (`QUIVER_ISA=portable` says
//! no), decided once per process and cached.
//!
//! The answer is cached so a kernel call pays one load plus a well-predicted
//! branch to pick its code path instead of re-probing CPUID for every batch.
//! One cache for both crates, so `quiver-kernels` and
//! `quiver-string-kernels` always agree on the path. No dependencies: the
//! string kernels do not pull arrow.
//!
//! Each kernel crate keeps its own `Isa` enum (the code paths it has, with
//! its kernels as inherent methods, which a type from another crate could
//! not take) and builds it from these answers.

use std::sync::OnceLock;

/// Environment variable that forces the portable path (`QUIVER_ISA=portable`),
/// for A/B performance runs and for testing the fallback on AVX2 machines.
pub const ISA_ENV_VAR: &str = "QUIVER_ISA";

static USE_AVX2: OnceLock<bool> = OnceLock::new();

/// Whether the dispatching kernels take their AVX2 path: the CPU supports
/// it and [`ISA_ENV_VAR`] does not force the portable one. Detected on first
/// call, then cached for the process.
// #[inline]: called across the crate boundary on every kernel dispatch.
#[inline]
pub fn avx2_active() -> bool {
    *USE_AVX2.get_or_init(detect)
}

fn detect() -> bool {
    let forced_portable = std::env::var(ISA_ENV_VAR)
        .map(|v| v.eq_ignore_ascii_case("portable"))
        .unwrap_or(false);
    !forced_portable && avx2_supported()
}

/// Whether this CPU can run AVX2 code (false off x86_64).
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn avx2_supported() -> bool {
    // std caches the CPUID answer itself; this is a load and a bit test.
    std::arch::is_x86_feature_detected!("avx2")
}

/// Whether this CPU can run AVX2 code (false off x86_64).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub fn avx2_supported() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_implies_supported() {
        assert!(!avx2_active() || avx2_supported());
        let forced_portable =
            std::env::var(ISA_ENV_VAR).is_ok_and(|v| v.eq_ignore_ascii_case("portable"));
        assert_eq!(avx2_active(), avx2_supported() && !forced_portable);
    }
}
