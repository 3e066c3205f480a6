//! The string hash behind [`Collator::hash`](crate::Collator::hash).
//!
//! One definition for every collation: the hash of a byte stream, consumed
//! as little-endian 8-byte words (the last one zero-filled) and finished
//! with the stream length. What stream a collation feeds decides what
//! is equal: the `_bin` collations feed the bytes (trailing spaces trimmed
//! under PAD SPACE); the `_ci` ones a canonical form of the weights in which
//! an ASCII character's weight is one byte, so an ASCII value hashes its
//! uppercased bytes, a word at a time. [`StreamHasher`] gives the same
//! result however the stream is cut into words and bytes.

const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
const FINISH: u64 = 0xD6E8_FEB8_6659_FD93;
const SEED_MIX: u64 = 0x243F_6A88_85A3_08D3;

/// Multiplies into 128 bits and folds the halves: every input bit reaches
/// many output bits.
#[inline(always)]
fn folded_multiply(x: u64, y: u64) -> u64 {
    let p = u128::from(x) * u128::from(y);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Incremental form of [`hash_bytes`].
#[derive(Clone, Debug)]
pub(crate) struct StreamHasher {
    h: u64,
    /// Pending bytes (little-endian), `pending` of them.
    buf: u64,
    pending: u32,
    len: u64,
}

impl StreamHasher {
    #[inline(always)]
    pub(crate) fn new(seed: u64) -> Self {
        StreamHasher {
            h: seed ^ SEED_MIX,
            buf: 0,
            pending: 0,
            len: 0,
        }
    }

    #[inline(always)]
    fn absorb(&mut self, w: u64) {
        self.h = folded_multiply(self.h ^ w, MUL);
    }

    /// Feeds 8 bytes (as one little-endian word).
    #[inline(always)]
    pub(crate) fn write_word(&mut self, w: u64) {
        self.len += 8;
        if self.pending == 0 {
            self.absorb(w);
        } else {
            let shift = 8 * self.pending;
            self.absorb(self.buf | (w << shift));
            self.buf = w >> (64 - shift);
        }
    }

    /// Feeds the low `n < 8` bytes of `w` (little-endian; the bytes above
    /// them must be zero): the same as `n` calls of `write_byte`.
    #[inline(always)]
    pub(crate) fn write_tail(&mut self, w: u64, n: usize) {
        debug_assert!(n < 8 && (n == 0 || w >> (8 * n) == 0) && (n > 0 || w == 0));
        self.len += n as u64;
        // `pending` < 8, so the shift stays below 64.
        self.buf |= w << (8 * self.pending);
        let total = self.pending as usize + n;
        if total >= 8 {
            let full = self.buf;
            self.absorb(full);
            // The bytes of `w` that did not fit (pending > 0 here, as n < 8).
            self.buf = w >> (8 * (8 - self.pending));
            self.pending = (total - 8) as u32;
        } else {
            self.pending = total as u32;
        }
    }

    #[inline(always)]
    pub(crate) fn write_byte(&mut self, b: u8) {
        self.len += 1;
        self.buf |= u64::from(b) << (8 * self.pending);
        self.pending += 1;
        if self.pending == 8 {
            let w = self.buf;
            self.absorb(w);
            self.buf = 0;
            self.pending = 0;
        }
    }

    #[inline]
    pub(crate) fn write_bytes(&mut self, s: &[u8]) {
        let mut words = s.chunks_exact(8);
        for w in &mut words {
            self.write_word(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        for &b in words.remainder() {
            self.write_byte(b);
        }
    }

    #[inline(always)]
    pub(crate) fn finish(mut self) -> u64 {
        if self.pending > 0 {
            let w = self.buf;
            self.absorb(w);
        }
        folded_multiply(self.h ^ self.len, FINISH)
    }
}

/// The hash of `s` (see the module doc).
#[inline]
pub(crate) fn hash_bytes(s: &[u8], seed: u64) -> u64 {
    let mut h = StreamHasher::new(seed);
    h.write_bytes(s);
    h.finish()
}

/// Uppercases the ASCII letters of a word of ASCII bytes (every byte < 0x80).
#[inline(always)]
pub(crate) fn ascii_upper_word(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Per byte, bit 7 of (b + 0x80 - 'a') is set iff b >= 'a', and bit 7
    // of (b + 0x80 - 'z' - 1) iff b > 'z'; bytes are < 0x80 so no carries.
    let ge_a = w + ONES * (0x80 - u64::from(b'a'));
    let gt_z = w + ONES * (0x80 - u64::from(b'z') - 1);
    let lower = ge_a & !gt_z & (ONES * 0x80);
    w - (lower >> 2)
}

/// Whether every byte of a word is below 0x80.
#[inline(always)]
pub(crate) fn word_is_ascii(w: u64) -> bool {
    w & 0x8080_8080_8080_8080 == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn upper_word_matches_bytewise() {
        for b in 0u8..0x80 {
            let w = u64::from_le_bytes([b, b'a', b'z', b'{', b'`', b'A', b, 0x7F]);
            let up = ascii_upper_word(w).to_le_bytes();
            let expect = w.to_le_bytes().map(|x| x.to_ascii_uppercase());
            assert_eq!(up, expect);
        }
    }

    proptest! {
        #[test]
        fn stream_is_cut_independent(s in proptest::collection::vec(any::<u8>(), 0..80), cut in 0usize..80, seed in any::<u64>()) {
            let cut = cut.min(s.len());
            let mut h = StreamHasher::new(seed);
            for &b in &s[..cut] {
                h.write_byte(b);
            }
            let rest = &s[cut..];
            let mut words = rest.chunks_exact(8);
            for w in &mut words {
                h.write_word(u64::from_le_bytes(w.try_into().unwrap()));
            }
            for &b in words.remainder() {
                h.write_byte(b);
            }
            prop_assert_eq!(h.finish(), hash_bytes(&s, seed));
        }

        #[test]
        fn tails_are_their_bytes(s in proptest::collection::vec(any::<u8>(), 0..40), cuts in proptest::collection::vec(0usize..8, 0..12), seed in any::<u64>()) {
            let mut h = StreamHasher::new(seed);
            let mut at = 0;
            for n in cuts {
                let n = n.min(s.len() - at);
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(&s[at..at + n]);
                h.write_tail(u64::from_le_bytes(w), n);
                at += n;
            }
            for &b in &s[at..] {
                h.write_byte(b);
            }
            prop_assert_eq!(h.finish(), hash_bytes(&s, seed));
        }
    }
}
