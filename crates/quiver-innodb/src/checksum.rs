//! The page checksum algorithms InnoDB and MariaDB have written.
//!
//! * `full_crc32` (MariaDB 10.5+): CRC-32C of the page up to its last 4 bytes,
//!   stored big-endian in those 4 bytes. A page_compressed page is checksummed
//!   only up to its compressed length.
//! * `crc32` (MySQL 5.6+, MariaDB 10.2+ legacy format): CRC-32C of bytes 4..26
//!   XOR CRC-32C of bytes 38..size-8, stored both at offset 0 and at size-8.
//!   The ranges leave out the stored checksums, the LSN's trailer copy and the
//!   flush-LSN / key-version field.
//! * `innodb` (the original): a byte-wise "fold" hash. The header field holds
//!   fold(4..26) + fold(38..size-8); the trailer holds fold(0..26).
//! * `none`: both fields hold 0xDEADBEEF.
//! * ROW_FORMAT=COMPRESSED pages have one checksum at offset 0 over bytes 4..16,
//!   24..26 and 34..end (no trailer): CRC-32C (crc32), Adler-32 (innodb) or the
//!   magic (none).

/// CRC-32C (Castagnoli), hardware-accelerated where the CPU has it.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c::crc32c(data)
}

/// full_crc32 checksum of the first `len` bytes of a page (`len` = page size, or
/// the compressed length of a page_compressed page); stored at `len - 4`.
#[inline]
pub fn full_crc32(page: &[u8], len: usize) -> u32 {
    crc32c(&page[..len - 4])
}

/// The legacy `crc32` checksum of an uncompressed page.
#[inline]
pub fn legacy_crc32(page: &[u8]) -> u32 {
    let n = page.len();
    crc32c(&page[4..26]) ^ crc32c(&page[38..n - 8])
}

const FOLD_MASK1: u32 = 1_463_735_687;
const FOLD_MASK2: u32 = 1_653_893_711;

/// The `innodb` fold over bytes. Only the low 32 bits of InnoDB's (64-bit)
/// arithmetic ever reach the page, and they depend only on the low 32 bits of
/// the inputs (shifts left, adds and xors), so 32-bit wrapping arithmetic is exact.
pub fn fold(bytes: &[u8]) -> u32 {
    let mut f: u32 = 0;
    for &b in bytes {
        let b = u32::from(b);
        f = (((f ^ b ^ FOLD_MASK2) << 8).wrapping_add(f) ^ FOLD_MASK1).wrapping_add(b);
    }
    f
}

/// `innodb` checksum of the header field (offset 0).
pub fn innodb_new(page: &[u8]) -> u32 {
    let n = page.len();
    fold(&page[4..26]).wrapping_add(fold(&page[38..n - 8]))
}

/// `innodb` checksum of the trailer field (offset size-8).
pub fn innodb_old(page: &[u8]) -> u32 {
    fold(&page[..26])
}

/// CRC-32C checksum of a ROW_FORMAT=COMPRESSED page.
pub fn zip_crc32(page: &[u8]) -> u32 {
    crc32c(&page[4..16]) ^ crc32c(&page[24..26]) ^ crc32c(&page[34..])
}

/// Adler-32 continued from `adler` (zlib's definition).
pub fn adler32(mut adler: u32, data: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (adler & 0xFFFF, adler >> 16);
    // 5552 bytes is the most that cannot overflow 32-bit sums before the modulo.
    for block in data.chunks(5552) {
        for &x in block {
            a += u32::from(x);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    adler = (b << 16) | a;
    adler
}

/// `innodb` (Adler-32) checksum of a ROW_FORMAT=COMPRESSED page.
pub fn zip_adler32(page: &[u8]) -> u32 {
    let a = adler32(1, &page[4..16]);
    let a = adler32(a, &page[24..26]);
    adler32(a, &page[34..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_known_value() {
        // RFC 3720 test vector: 32 bytes of zeros.
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn adler32_known_value() {
        assert_eq!(adler32(1, b"Wikipedia"), 0x11E6_0398);
        let big = vec![0xFFu8; 100_000];
        // Chunked and unchunked sums agree.
        let a = adler32(adler32(1, &big[..33_333]), &big[33_333..]);
        assert_eq!(a, adler32(1, &big));
    }

    #[test]
    fn fold_is_stable() {
        // The fold of nothing is 0; one byte b gives ((b ^ M2) << 8 ^ M1) + b.
        assert_eq!(fold(&[]), 0);
        let b = 7u32;
        assert_eq!(
            fold(&[7]),
            (((b ^ FOLD_MASK2) << 8) ^ FOLD_MASK1).wrapping_add(b)
        );
    }
}
