//! Each checksum algorithm against pages a MariaDB 10.11 server wrote (the
//! committed fixtures), and the word-at-a-time helpers against plain versions.

use std::path::Path;

use proptest::prelude::*;
use quiver_innodb::checksum::{
    adler32, fold, full_crc32, innodb_new, innodb_old, legacy_crc32, zip_adler32, zip_crc32,
};
use quiver_innodb::damage::read_gz;
use quiver_innodb::format::{be16, be32, is_all_zero, Layout};
use quiver_innodb::verify::{PageChecker, Policy, Valid};

fn fixture(name: &str) -> (Vec<u8>, Layout) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../tests/innodb/fixtures/{name}.gz"));
    let data = read_gz(&path).unwrap();
    let layout = Layout::from_flags(be32(&data, 54)).unwrap();
    (data, layout)
}

fn pages(data: &[u8], layout: &Layout) -> Vec<Vec<u8>> {
    data.chunks_exact(layout.physical_size)
        .filter(|p| !is_all_zero(p))
        .map(<[u8]>::to_vec)
        .collect()
}

#[test]
fn crc32_matches_both_stored_fields_of_legacy_pages() {
    for name in [
        "crc32_4k.ibd",
        "crc32_8k.ibd",
        "crc32_16k.ibd",
        "crc32_32k.ibd",
        "crc32_64k.ibd",
    ] {
        let (data, layout) = fixture(name);
        let n = layout.physical_size;
        for p in pages(&data, &layout) {
            let c = legacy_crc32(&p);
            assert_eq!(be32(&p, 0), c, "{name}");
            assert_eq!(be32(&p, n - 8), c, "{name}");
        }
    }
}

#[test]
fn full_crc32_matches_the_last_four_bytes() {
    for name in [
        "fcrc32_4k.ibd",
        "fcrc32_16k.ibd",
        "fcrc32_64k.ibd",
        "enc_16k.ibd",
    ] {
        let (data, layout) = fixture(name);
        let n = layout.physical_size;
        for p in pages(&data, &layout) {
            assert_eq!(be32(&p, n - 4), full_crc32(&p, n), "{name}");
        }
    }
    // page_compressed: the checksum ends the compressed data, whose length in
    // 256-byte units is in the page type.
    let (data, layout) = fixture("pc_zlib_16k.ibd");
    let mut compressed = 0;
    for p in pages(&data, &layout) {
        let t = be16(&p, 24);
        let len = if t & 0x8000 != 0 {
            compressed += 1;
            usize::from(t & 0x7FFF) << 8
        } else {
            p.len()
        };
        assert_eq!(be32(&p, len - 4), full_crc32(&p, len));
    }
    assert!(compressed > 10);
}

#[test]
fn zip_crc32_matches_compressed_pages() {
    for name in [
        "zip2_4k.ibd",
        "zip4_8k.ibd",
        "zip4_16k.ibd",
        "zip8_16k.ibd",
        "zip8_crc32_16k.ibd",
    ] {
        let (data, layout) = fixture(name);
        assert!(layout.row_compressed);
        for p in pages(&data, &layout) {
            assert_eq!(be32(&p, 0), zip_crc32(&p), "{name}");
        }
    }
}

#[test]
fn encrypted_legacy_pages_carry_a_crc32_of_the_ciphertext_at_30() {
    for name in ["enc_crc32_16k.ibd", "enc_zip8_16k.ibd"] {
        let (data, layout) = fixture(name);
        for p in pages(&data, &layout).iter().skip(1) {
            let c = if layout.row_compressed {
                zip_crc32(p)
            } else {
                legacy_crc32(p)
            };
            assert_ne!(be32(p, 26), 0, "{name}: key version");
            assert_eq!(be32(p, 30), c, "{name}");
        }
    }
}

#[test]
fn innodb_fold_known_values() {
    // Values from the independent Python model (scripts/innodb/innodb_page.py).
    let (data, layout) = fixture("crc32_16k.ibd");
    let p = &data[3 * 16384..4 * 16384];
    assert_eq!(innodb_new(p), 0x20d7_f851);
    assert_eq!(innodb_old(p), 0xd085_213f);
    assert_eq!(legacy_crc32(p), 0xe5f1_cca0);
    let (data, _) = fixture("zip8_16k.ibd");
    let z = &data[3 * 8192..4 * 8192];
    assert_eq!(zip_adler32(z), 0xfa0f_1ae1);
    assert_eq!(zip_crc32(z), 0x9f71_1ee8);

    // A page re-stamped with each legacy algorithm passes under that policy only
    // (and under Any).
    for (algo, policy) in [
        ("innodb", Policy::Innodb),
        ("none", Policy::None),
        ("crc32", Policy::Crc32),
    ] {
        let mut page = p.to_vec();
        quiver_innodb::damage::restamp(&mut page, &layout, Some(algo));
        for other in [Policy::Crc32, Policy::Innodb, Policy::None, Policy::Any] {
            let checker = PageChecker::new(layout, be32(p, 34), false, other);
            let ok = checker.check(&page, 3) == Ok(Valid::Checksum);
            assert_eq!(
                ok,
                other == policy || other == Policy::Any,
                "{algo} under {other:?}"
            );
        }
    }
}

/// InnoDB's fold in 64-bit arithmetic, masked at the end (as a 64-bit server computes it).
fn fold64(bytes: &[u8]) -> u32 {
    let mut f: u64 = 0;
    for &b in bytes {
        let b = u64::from(b);
        f = (((f ^ b ^ 1_653_893_711) << 8).wrapping_add(f) ^ 1_463_735_687).wrapping_add(b);
    }
    f as u32
}

fn adler_plain(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

proptest! {
    #[test]
    fn fold_32_bit_equals_64_bit(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
        prop_assert_eq!(fold(&bytes), fold64(&bytes));
    }

    #[test]
    fn adler_blocks_equal_plain(bytes in proptest::collection::vec(any::<u8>(), 0..20000)) {
        prop_assert_eq!(adler32(1, &bytes), adler_plain(&bytes));
    }

    #[test]
    fn zero_check_equals_plain(len in 0usize..300, at in 0usize..300, v in any::<u8>()) {
        let mut b = vec![0u8; len];
        if at < len { b[at] = v; }
        prop_assert_eq!(is_all_zero(&b), b.iter().all(|&x| x == 0));
    }
}

/// Random bytes, with and without a plausible page 0, never panic the checker.
#[test]
fn garbage_files_never_panic() {
    let dir = std::env::temp_dir().join(format!("quiver-innodb-garbage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut x = 7u32;
    let mut next = || {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x
    };
    for round in 0..60 {
        let len = match round % 4 {
            0 => (next() % 3000) as usize,
            1 => (next() % 200_000) as usize,
            2 => 16384 * (1 + (next() % 8) as usize),
            _ => 4096 * (1 + (next() % 40) as usize) + (next() % 100) as usize,
        };
        let mut data: Vec<u8> = (0..len).map(|_| (next() >> 24) as u8).collect();
        if round % 2 == 0 && len >= 64 {
            // Page number 0 and flags picked from valid and invalid values.
            data[4..8].fill(0);
            let flags = [0x15u32, 0x13, 0x17, 0x21, 0x27, 0xe5, 0x10021, next()][round % 8];
            data[54..58].copy_from_slice(&flags.to_be_bytes());
        }
        let path = dir.join("g.ibd");
        std::fs::write(&path, &data).unwrap();
        for threads in [1, 3] {
            let mut opts = quiver_innodb::CheckOptions {
                scan: quiver_innodb::ScanConfig::with_threads(threads),
                allow_mismatches: u64::MAX,
                summary: true,
                every_page: true,
                ..Default::default()
            };
            opts.scan.chunk_bytes = 8192;
            let mut checker = quiver_innodb::Checker::new(opts);
            let rep = checker.check_file(&path, &mut |_| {});
            if let Some(s) = rep.summary {
                let _ = s.render(true, true, 3);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bit-at-a-time CRC-32C: the plain scalar reference for the kernels.
fn crc32c_bitwise(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82F6_3B78 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

proptest! {
    /// The three-run page CRC kernel equals the bitwise definition and the crate.
    #[test]
    fn fixed_crc_kernel_equals_scalar(
        len in 0usize..20_000,
        offset in 0usize..16,
        seed in any::<u32>(),
    ) {
        let mut x = seed;
        let data: Vec<u8> = (0..len + offset)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect();
        let slice = &data[offset..];
        let f = quiver_innodb::crc::FixedCrc::new(len);
        let want = crc32c_bitwise(slice);
        prop_assert_eq!(f.crc(slice), want);
        prop_assert_eq!(quiver_innodb::checksum::crc32c(slice), want);
    }
}
