//! Distinct-count estimates for the optimizer: a k-minimum-values sketch
//! over 64-bit hashes (error about 1/sqrt(k)).

use std::collections::BTreeSet;

const K: usize = 1024;

#[derive(Debug, Default, Clone)]
pub struct DistinctSketch {
    mins: BTreeSet<u64>,
}

impl DistinctSketch {
    pub fn insert_hash(&mut self, h: u64) {
        if self.mins.len() < K {
            self.mins.insert(h);
        } else if let Some(&max) = self.mins.last() {
            if h < max && self.mins.insert(h) {
                self.mins.pop_last();
            }
        }
    }

    /// Adds another sketch's values (the sketch of the union).
    pub fn merge(&mut self, other: &DistinctSketch) {
        for &h in &other.mins {
            self.insert_hash(h);
        }
    }

    pub fn estimate(&self) -> usize {
        if self.mins.len() < K {
            return self.mins.len();
        }
        let kth = *self.mins.last().expect("full sketch") as f64 / u64::MAX as f64;
        ((K - 1) as f64 / kth) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_within_ten_percent() {
        let mut s = DistinctSketch::default();
        for i in 0..200_000u64 {
            let h = (i % 50_000)
                .wrapping_mul(0x9e3779b97f4a7c15)
                .rotate_left(17)
                .wrapping_mul(0xbf58476d1ce4e5b9);
            s.insert_hash(h);
        }
        let e = s.estimate() as f64;
        assert!((e - 50_000.0).abs() < 5_000.0, "estimate {e}");
    }
}
