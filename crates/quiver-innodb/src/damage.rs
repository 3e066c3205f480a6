//! Deterministic damage recipes for tablespace files, shared by the golden
//! generator (`scripts/innodb/make_goldens.py` implements the same recipes in
//! Python) and the tests, which rebuild each damaged file from a committed
//! fixture and compare Quiver's verdict with the recorded MariaDB one.
//!
//! A recipe is a comma-separated list of steps; page numbers are positions in
//! the file in (physical) pages, offsets are bytes within the page (negative:
//! from the end of the page):
//!
//! | step | effect |
//! |---|---|
//! | `xor:P:OFF:HEX` | xor one byte |
//! | `set32:P:OFF:VALUE` | write a big-endian u32 (decimal or 0x..) |
//! | `restamp:P[:ALGO]` | recompute the checksum (ALGO crc32, innodb, none; default: the file's) |
//! | `zero:P` | zero the page |
//! | `garbage:P:SEED` | fill the page with a 32-bit LCG's top bytes |
//! | `copy:FROM:TO` | copy a whole page |
//! | `truncate:BYTES` | cut the file |
//! | `xdesfree:P:0or1` | set page P's free bit in page 0's extent descriptor, re-stamp page 0 |
//! | `xdesfree_at:X:P:0or1` | the same in the descriptor page at position X |
//! | `extend:N` | grow the file with zero pages to N pages |

use std::io::{self, Read};
use std::path::Path;

use crate::checksum;
use crate::format::{be16, be32, fil, fsp, Layout, NO_CHECKSUM_MAGIC};

/// Decompress a `.gz` fixture.
pub fn read_gz(path: &Path) -> io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(f).read_to_end(&mut out)?;
    Ok(out)
}

/// One step of a recipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Xor { page: u64, off: i64, mask: u8 },
    Set32 { page: u64, off: i64, value: u32 },
    Restamp { page: u64, algo: Option<String> },
    Zero { page: u64 },
    Garbage { page: u64, seed: u32 },
    Copy { from: u64, to: u64 },
    Truncate { bytes: u64 },
    XdesFree { xdes: u64, page: u64, free: bool },
    Extend { pages: u64 },
}

fn num(s: &str) -> Option<i64> {
    match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Parse a recipe (`-` or empty: no damage).
pub fn parse_recipe(s: &str) -> Result<Vec<Step>, String> {
    let s = s.trim();
    if s.is_empty() || s == "-" {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|step| {
            let parts: Vec<&str> = step.split(':').collect();
            let bad = || format!("bad damage step '{step}'");
            let n = |i: usize| parts.get(i).and_then(|p| num(p)).ok_or_else(bad);
            let page = |i: usize| n(i).map(|v| v as u64);
            Ok(match parts[0] {
                "xor" => Step::Xor {
                    page: page(1)?,
                    off: n(2)?,
                    mask: u8::from_str_radix(parts.get(3).ok_or_else(bad)?, 16)
                        .map_err(|_| bad())?,
                },
                "set32" => Step::Set32 {
                    page: page(1)?,
                    off: n(2)?,
                    value: n(3)? as u32,
                },
                "restamp" => Step::Restamp {
                    page: page(1)?,
                    algo: parts.get(2).map(|a| a.to_string()),
                },
                "zero" => Step::Zero { page: page(1)? },
                "garbage" => Step::Garbage {
                    page: page(1)?,
                    seed: n(2)? as u32,
                },
                "copy" => Step::Copy {
                    from: page(1)?,
                    to: page(2)?,
                },
                "truncate" => Step::Truncate { bytes: page(1)? },
                "xdesfree" => Step::XdesFree {
                    xdes: 0,
                    page: page(1)?,
                    free: n(2)? != 0,
                },
                "xdesfree_at" => Step::XdesFree {
                    xdes: page(1)?,
                    page: page(2)?,
                    free: n(3)? != 0,
                },
                "extend" => Step::Extend { pages: page(1)? },
                _ => return Err(bad()),
            })
        })
        .collect()
}

/// Recompute a page's checksum in place: full_crc32 (up to the compressed
/// length of a page_compressed page), ROW_FORMAT=COMPRESSED, or a legacy
/// algorithm in both fields.
pub fn restamp(page: &mut [u8], layout: &Layout, algo: Option<&str>) {
    let n = page.len();
    let put = |p: &mut [u8], off: usize, v: u32| p[off..off + 4].copy_from_slice(&v.to_be_bytes());
    if layout.full_crc32() {
        let ty = be16(page, fil::TYPE);
        let mut len = n;
        if ty & 0x8000 != 0 {
            let l = usize::from(ty & 0x7FFF) << 8;
            if l < n && l >= fil::DATA + 4 {
                len = l;
            }
        }
        let c = checksum::full_crc32(page, len);
        put(page, len - 4, c);
        return;
    }
    if layout.row_compressed {
        let c = match algo {
            Some("innodb") => checksum::zip_adler32(page),
            Some("none") => NO_CHECKSUM_MAGIC,
            _ => checksum::zip_crc32(page),
        };
        put(page, 0, c);
        return;
    }
    match algo {
        Some("innodb") => {
            // The trailer's fold covers bytes 0..26, so the header field goes first.
            let new = checksum::innodb_new(page);
            put(page, 0, new);
            let old = checksum::innodb_old(page);
            put(page, n - 8, old);
        }
        Some("none") => {
            put(page, 0, NO_CHECKSUM_MAGIC);
            put(page, n - 8, NO_CHECKSUM_MAGIC);
        }
        _ => {
            let c = checksum::legacy_crc32(page);
            put(page, 0, c);
            put(page, n - 8, c);
        }
    }
}

/// Apply a recipe to a file image. Steps outside the file are errors.
pub fn apply(data: &mut Vec<u8>, steps: &[Step]) -> Result<(), String> {
    let layout = Layout::from_flags(be32(data, fsp::FLAGS)).map_err(|e| e.to_string())?;
    let ps = layout.physical_size;
    for step in steps {
        let range = |p: u64, len: usize| -> Result<std::ops::Range<usize>, String> {
            let a = p as usize * ps;
            if a + ps > len {
                return Err(format!("page {p} is outside the file"));
            }
            Ok(a..a + ps)
        };
        let at = |off: i64| {
            if off < 0 {
                (ps as i64 + off) as usize
            } else {
                off as usize
            }
        };
        match step {
            Step::Xor { page, off, mask } => {
                let r = range(*page, data.len())?;
                data[r][at(*off)] ^= mask;
            }
            Step::Set32 { page, off, value } => {
                let r = range(*page, data.len())?;
                let o = at(*off);
                data[r][o..o + 4].copy_from_slice(&value.to_be_bytes());
            }
            Step::Restamp { page, algo } => {
                let r = range(*page, data.len())?;
                restamp(&mut data[r], &layout, algo.as_deref());
            }
            Step::Zero { page } => {
                let r = range(*page, data.len())?;
                data[r].fill(0);
            }
            Step::Garbage { page, seed } => {
                let r = range(*page, data.len())?;
                let mut x = *seed;
                for b in &mut data[r] {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    *b = (x >> 24) as u8;
                }
            }
            Step::Copy { from, to } => {
                let src = range(*from, data.len())?;
                let dst = range(*to, data.len())?;
                let tmp = data[src].to_vec();
                data[dst].copy_from_slice(&tmp);
            }
            Step::Truncate { bytes } => data.truncate(*bytes as usize),
            Step::XdesFree { xdes, page, free } => {
                let r = range(*xdes, data.len())?;
                let ext = layout.extent_pages() as u64;
                let within = *page % ps as u64;
                let entry = fsp::XDES_ARRAY + layout.xdes_size() * (within / ext) as usize;
                let bit = ((within % ext) * 2) as usize;
                let at = r.start + entry + fsp::XDES_BITMAP + bit / 8;
                if *free {
                    data[at] |= 1 << (bit % 8);
                } else {
                    data[at] &= !(1 << (bit % 8));
                }
                restamp(&mut data[r], &layout, None);
            }
            Step::Extend { pages } => {
                let len = (*pages as usize).saturating_mul(ps);
                if len > 1 << 30 {
                    return Err("extend: at most 1 GiB".into());
                }
                if len > data.len() {
                    data.resize(len, 0);
                }
            }
        }
    }
    Ok(())
}

/// One line of `tests/innodb/cases.txt`: `name fixture recipe [innochecksum options...]`.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub fixture: String,
    pub recipe: Vec<Step>,
    pub args: Vec<String>,
}

/// Parse the cases file (`#` comments, blank lines ignored).
pub fn parse_cases(text: &str) -> Result<Vec<Case>, String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut w = l.split_whitespace();
            let (Some(name), Some(fixture), Some(recipe)) = (w.next(), w.next(), w.next()) else {
                return Err(format!("bad case line '{l}'"));
            };
            Ok(Case {
                name: name.to_string(),
                fixture: fixture.to_string(),
                recipe: parse_recipe(recipe)?,
                args: w.map(str::to_string).collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_parse() {
        let r =
            parse_recipe("xor:4:1000:ff,set32:3:-8:0x10,restamp:3:innodb,truncate:100").unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(
            r[1],
            Step::Set32 {
                page: 3,
                off: -8,
                value: 16
            }
        );
        assert!(parse_recipe("frobnicate:1").is_err());
        assert!(parse_recipe("-").unwrap().is_empty());
    }
}
