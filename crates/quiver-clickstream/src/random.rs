//! Stateless randomness: every value is a hash of (row, salt), so a chunk
//! of rows generates the same values on any thread, in any order, and the
//! data depends only on the row count.

/// The SplitMix64 finaliser: a bijection on u64 with good avalanche.
pub fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The random word of `row` for the purpose `salt`.
pub fn hash(row: u64, salt: u64) -> u64 {
    mix(row.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ mix(salt.wrapping_add(0x632B_E59B_D9B4_E019)))
}

/// A uniform number in [0, 1).
pub fn unit(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// A power-law rank in [0, n): rank k comes with probability about
/// 1 / ((k + 1) ln n), as popularity does on the web (Zipf, s = 1).
pub fn zipf(x: u64, n: u64) -> u64 {
    let n = n.max(1);
    let r = ((n + 1) as f64).powf(unit(x)) as u64;
    r.saturating_sub(1).min(n - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_favours_low_ranks_and_stays_in_range() {
        let n = 1000;
        let mut counts = vec![0u32; n as usize];
        for row in 0..200_000 {
            counts[zipf(hash(row, 7), n) as usize] += 1;
        }
        assert!(counts[0] > counts[10] && counts[10] > counts[500]);
        assert!(counts.iter().filter(|&&c| c > 0).count() > 900);
    }
}
