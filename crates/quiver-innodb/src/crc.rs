//! CRC-32C of fixed-length buffers (whole pages), faster than the general
//! routine of the `crc32c` crate.
//!
//! A page is cut into three equal runs whose CRCs are computed in one loop
//! with the SSE 4.2 `crc32` instruction (three independent dependency chains
//! keep the instruction's pipeline full; one chain would wait 3 cycles per 8
//! bytes), then joined: the register of a run is "shifted" past the bytes that
//! follow it, which is a multiplication by x^(8n) modulo the CRC polynomial,
//! done with one carry-less multiply by a constant computed once per length and
//! one more `crc32` instruction for the reduction. The crate (also 3-way) joins
//! its runs every 768 bytes through lookup tables; one join per page is cheaper.
//!
//! Without SSE 4.2 and PCLMULQDQ (or off x86-64) it is the crate's routine.

/// CRC-32C (Castagnoli) of `len`-byte buffers.
#[derive(Debug, Clone, Copy)]
pub struct FixedCrc {
    len: usize,
    /// Bytes per run (a multiple of 8); 0: use the general routine.
    run: usize,
    /// Shift constants for one and two runs (see [`shift_constant`]).
    k_one: u64,
    k_two: u64,
}

/// The CRC-32C polynomial without its x^32 term, bit i = coefficient of x^i.
const POLY: u32 = 0x1EDC_6F41;

/// x^e mod P, bit i = coefficient of x^i.
fn xpow_mod(e: u64) -> u32 {
    // Multiply two remainders modulo P (schoolbook carry-less, reduced bit by bit).
    fn mulmod(a: u32, b: u32) -> u32 {
        let mut r: u32 = 0;
        for i in (0..32).rev() {
            let carry = r & 0x8000_0000 != 0;
            r <<= 1;
            if carry {
                r ^= POLY;
            }
            if b & (1 << i) != 0 {
                r ^= a;
            }
        }
        r
    }
    let mut result: u32 = 1;
    let mut base: u32 = 2; // x
    let mut e = e;
    while e > 0 {
        if e & 1 == 1 {
            result = mulmod(result, base);
        }
        base = mulmod(base, base);
        e >>= 1;
    }
    result
}

/// The constant K with which `crc32(0, clmul(s, K))` equals the register `s`
/// advanced over `n` zero bytes: K = x^(8n-33) mod P, bit-reflected as the
/// CRC register is (the reflected carry-less product lands one bit low, and
/// the `crc32` instruction multiplies by x^32, hence 8n - 32 - 1).
fn shift_constant(n: usize) -> u64 {
    u64::from(xpow_mod(8 * n as u64 - 33).reverse_bits())
}

impl FixedCrc {
    pub fn new(len: usize) -> FixedCrc {
        let run = (len / 24) * 8;
        let usable = run >= 64 && hw::available();
        FixedCrc {
            len,
            run: if usable { run } else { 0 },
            k_one: if usable { shift_constant(run) } else { 0 },
            k_two: if usable { shift_constant(2 * run) } else { 0 },
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// CRC-32C of `data`; any length works, the fast path needs `len` bytes.
    #[inline]
    pub fn crc(&self, data: &[u8]) -> u32 {
        if self.run == 0 || data.len() != self.len {
            return crc32c::crc32c(data);
        }
        hw::crc3(data, self.run, self.k_one, self.k_two)
    }
}

#[cfg(target_arch = "x86_64")]
mod hw {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_crc32_u64, _mm_crc32_u8, _mm_cvtsi128_si64, _mm_cvtsi64_si128,
    };

    pub fn available() -> bool {
        is_x86_feature_detected!("sse4.2") && is_x86_feature_detected!("pclmulqdq")
    }

    /// Three-run CRC; callers checked [`available`] (through `FixedCrc::new`).
    pub fn crc3(data: &[u8], run: usize, k_one: u64, k_two: u64) -> u32 {
        debug_assert!(available() && 3 * run <= data.len());
        // SAFETY: FixedCrc only sets a non-zero run after `available()` returned
        // true, so the CPU has the SSE 4.2 and PCLMULQDQ instructions the kernel
        // is compiled for; the kernel touches memory only through safe slices.
        unsafe { crc3_kernel(data, run, k_one, k_two) }
    }

    #[inline(always)]
    fn le64(s: &[u8]) -> u64 {
        // Callers pass 8-byte chunks; this compiles to one load.
        let mut w = [0u8; 8];
        w.copy_from_slice(s);
        u64::from_le_bytes(w)
    }

    /// The register `crc` advanced over the zero bytes that `k` stands for.
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    unsafe fn shift(crc: u64, k: u64) -> u64 {
        // Both operands are below 2^32: the carry-less product fits in 64 bits.
        let p = _mm_clmulepi64_si128(
            _mm_cvtsi64_si128(crc as i64),
            _mm_cvtsi64_si128(k as i64),
            0x00,
        );
        _mm_crc32_u64(0, _mm_cvtsi128_si64(p) as u64)
    }

    #[target_feature(enable = "sse4.2,pclmulqdq")]
    unsafe fn crc3_kernel(data: &[u8], run: usize, k_one: u64, k_two: u64) -> u32 {
        let (a, rest) = data.split_at(run);
        let (b, rest) = rest.split_at(run);
        let (c, tail) = rest.split_at(run);
        let (mut ca, mut cb, mut cc) = (0xFFFF_FFFFu64, 0u64, 0u64);
        for ((x, y), z) in a
            .chunks_exact(8)
            .zip(b.chunks_exact(8))
            .zip(c.chunks_exact(8))
        {
            ca = _mm_crc32_u64(ca, le64(x));
            cb = _mm_crc32_u64(cb, le64(y));
            cc = _mm_crc32_u64(cc, le64(z));
        }
        let mut crc = shift(ca, k_two) ^ shift(cb, k_one) ^ cc;
        let mut words = tail.chunks_exact(8);
        for w in &mut words {
            crc = _mm_crc32_u64(crc, le64(w));
        }
        let mut crc = crc as u32;
        for &byte in words.remainder() {
            crc = _mm_crc32_u8(crc, byte);
        }
        !crc
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod hw {
    pub fn available() -> bool {
        false
    }

    pub fn crc3(data: &[u8], _run: usize, _k_one: u64, _k_two: u64) -> u32 {
        crc32c::crc32c(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xpow_small_powers() {
        assert_eq!(xpow_mod(0), 1);
        assert_eq!(xpow_mod(31), 0x8000_0000);
        // x^32 = P's lower terms.
        assert_eq!(xpow_mod(32), POLY);
    }

    #[test]
    fn page_lengths_match_the_crate() {
        let data: Vec<u8> = (0..70_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in [
            16380, 16338, 4092, 4050, 65532, 8188, 32764, 1020, 100, 64, 0,
        ] {
            let f = FixedCrc::new(len);
            assert_eq!(
                f.crc(&data[..len]),
                crc32c::crc32c(&data[..len]),
                "len {len}"
            );
            assert_eq!(
                f.crc(&data[7..7 + len]),
                crc32c::crc32c(&data[7..7 + len]),
                "len {len}"
            );
        }
    }
}
