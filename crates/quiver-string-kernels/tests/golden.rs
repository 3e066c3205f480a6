//! The kernels against MariaDB's own STRCMP answers (tests/golden/strcmp.tsv,
//! made by scripts/strcmp_golden.py): binary PAD SPACE (`latin1_bin`), binary
//! strings (NO PAD), and `utf8mb4_general_ci` for ASCII pairs.

use std::cmp::Ordering;

use quiver_string_kernels::{Isa, PreparedConstant};

const GOLDEN: &str = include_str!("golden/strcmp.tsv");

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("golden hex"))
        .collect()
}

fn strcmp(s: &str) -> Option<Ordering> {
    match s {
        "-1" => Some(Ordering::Less),
        "0" => Some(Ordering::Equal),
        "1" => Some(Ordering::Greater),
        _ => None,
    }
}

struct Case {
    a: Vec<u8>,
    b: Vec<u8>,
    latin1_bin: Ordering,
    binary: Ordering,
    general_ci: Option<Ordering>,
}

fn cases() -> Vec<Case> {
    GOLDEN
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "golden line {l:?}");
            Case {
                a: unhex(f[0]),
                b: unhex(f[1]),
                latin1_bin: strcmp(f[2]).expect("latin1_bin answer"),
                binary: strcmp(f[3]).expect("binary answer"),
                general_ci: strcmp(f[4]),
            }
        })
        .collect()
}

#[test]
fn golden_file_is_present() {
    assert!(cases().len() > 1000);
}

#[test]
fn pad_space_cmp_matches_latin1_bin() {
    for isa in Isa::supported() {
        for c in cases() {
            assert_eq!(
                isa.pad_space_cmp(&c.a, &c.b),
                c.latin1_bin,
                "{isa:?} {:?} vs {:?}",
                c.a,
                c.b
            );
            assert_eq!(
                isa.pad_space_eq(&c.a, &c.b),
                c.latin1_bin == Ordering::Equal
            );
            let p = PreparedConstant::with_isa(&c.b, isa);
            assert_eq!(p.pad_space_cmp(&c.a), c.latin1_bin);
            assert_eq!(p.pad_space_eq(&c.a), c.latin1_bin == Ordering::Equal);
        }
    }
}

#[test]
fn bytes_cmp_matches_binary_strings() {
    for isa in Isa::supported() {
        for c in cases() {
            assert_eq!(
                isa.bytes_cmp(&c.a, &c.b),
                c.binary,
                "{isa:?} {:?} vs {:?}",
                c.a,
                c.b
            );
            assert_eq!(isa.bytes_eq(&c.a, &c.b), c.binary == Ordering::Equal);
            let p = PreparedConstant::with_isa(&c.b, isa);
            assert_eq!(p.cmp(&c.a), c.binary);
            assert_eq!(p.eq(&c.a), c.binary == Ordering::Equal);
        }
    }
}

#[test]
fn ascii_pad_space_ignore_case_matches_utf8mb4_general_ci() {
    for isa in Isa::supported() {
        for c in cases() {
            let Some(want) = c.general_ci else { continue };
            assert_eq!(
                isa.ascii_pad_space_cmp_ignore_case(&c.a, &c.b),
                want,
                "{isa:?} {:?} vs {:?}",
                c.a,
                c.b
            );
        }
    }
}
