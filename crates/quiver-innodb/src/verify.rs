//! The verdict on one page, as MariaDB 10.11's `innochecksum` reaches it.
//!
//! The order of the checks matters because it decides which damage a page is
//! blamed for, and which pages are not checked at all:
//!
//! 1. An all-zero page is valid (never written).
//! 2. The page must carry its own page number, and the tablespace's space id
//!    (full_crc32 encrypted or page_compressed pages keep the space id field
//!    inside the encrypted / compressed part, so it is not compared there).
//! 3. Encrypted pages (page 0 says the space is encrypted, and the page has a
//!    key version): legacy-format pages carry a second checksum of the encrypted
//!    bytes at offset 30, which is accepted; otherwise the normal checks apply.
//! 4. The normal checks: full_crc32 pages must match their CRC-32C and, unless
//!    page_compressed or encrypted, the LSN copy in the trailer; legacy pages
//!    must have equal LSN copies (torn page check, not for ROW_FORMAT=COMPRESSED)
//!    and a checksum the [`Policy`] accepts.

use std::fmt;

use crate::checksum;
use crate::crc::FixedCrc;
use crate::format::{be16, be32, fil, is_all_zero, page_type, Format, Layout, NO_CHECKSUM_MAGIC};

/// Which legacy-format checksums count as valid. full_crc32 pages have one
/// algorithm and ignore this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// Only `crc32` in both fields: what MariaDB 10.11's innochecksum accepts.
    #[default]
    Crc32,
    /// Only the legacy `innodb` fold (MySQL < 5.7.7, MariaDB < 10.2.2 defaults).
    Innodb,
    /// Only the 0xDEADBEEF magic of `innodb_checksum_algorithm=none`.
    None,
    /// Whatever the MariaDB server accepts when reading with the non-strict
    /// `innodb_checksum_algorithm=crc32`: any of the three, mixed per field.
    Any,
}

impl Policy {
    pub fn parse(s: &str) -> Option<Policy> {
        match s.to_ascii_lowercase().as_str() {
            "crc32" | "strict_crc32" => Some(Policy::Crc32),
            "innodb" | "strict_innodb" => Some(Policy::Innodb),
            "none" | "strict_none" => Some(Policy::None),
            "any" => Some(Policy::Any),
            _ => None,
        }
    }
}

/// A legacy checksum algorithm, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    FullCrc32,
    Crc32,
    Innodb,
    None,
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::FullCrc32 => "full_crc32",
            Algorithm::Crc32 => "crc32",
            Algorithm::Innodb => "innodb",
            Algorithm::None => "none",
        })
    }
}

/// Why a page is considered damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Corruption {
    /// The page does not carry the expected page number or space id
    /// (a misplaced or overwritten page, or garbage).
    PageId {
        expected_page: u32,
        expected_space: u32,
        page: u32,
        space: u32,
    },
    /// The LSN in the header and its low 32 bits in the trailer differ: a torn
    /// (partially written) page.
    Lsn { header: u32, trailer: u32 },
    /// full_crc32: the CRC-32C of the page does not match the stored one.
    FullCrc32 { stored: u32, computed: u32 },
    /// full_crc32 page_compressed page whose length field is not below the page size.
    CompressedLength { type_field: u16 },
    /// Legacy page: the two checksum fields are not what the policy accepts.
    /// `matches` names another algorithm the page does verify with, if any.
    Legacy {
        field1: u32,
        field2: u32,
        crc32: u32,
        matches: Option<Algorithm>,
    },
    /// Page 0's tablespace flags describe no valid page size (garbage on page 0).
    InvalidFlags { flags: u32 },
    /// ROW_FORMAT=COMPRESSED page with a bad checksum.
    Zip {
        stored: u32,
        crc32: u32,
        matches: Option<Algorithm>,
    },
}

impl fmt::Display for Corruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Corruption::PageId {
                expected_page,
                expected_space,
                page,
                space,
            } => {
                if page != expected_page {
                    write!(f, "page number field says {page}, expected {expected_page}")?;
                    if space != expected_space {
                        write!(f, " (space id {space}, expected {expected_space})")?;
                    }
                    Ok(())
                } else {
                    write!(f, "space id field says {space}, expected {expected_space}")
                }
            }
            Corruption::Lsn { header, trailer } => write!(
                f,
                "torn page: LSN low word 0x{header:08x} in the header, 0x{trailer:08x} in the trailer"
            ),
            Corruption::FullCrc32 { stored, computed } => write!(
                f,
                "full_crc32 checksum mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}"
            ),
            Corruption::CompressedLength { type_field } => write!(
                f,
                "page_compressed length in the page type field (0x{type_field:04x}) is not below the page size"
            ),
            Corruption::Legacy {
                field1,
                field2,
                crc32,
                matches,
            } => {
                write!(
                    f,
                    "checksum mismatch: stored 0x{field1:08x} / 0x{field2:08x}, crc32 0x{crc32:08x}"
                )?;
                if let Some(a) = matches {
                    write!(f, " (the page carries a valid `{a}` checksum, which the selected policy does not accept; -C any accepts it)")?;
                }
                Ok(())
            }
            Corruption::InvalidFlags { flags } => write!(
                f,
                "tablespace flags 0x{flags:x} describe no valid page size (page 0 is damaged, or this is not a tablespace)"
            ),
            Corruption::Zip {
                stored,
                crc32,
                matches,
            } => {
                write!(
                    f,
                    "ROW_FORMAT=COMPRESSED checksum mismatch: stored 0x{stored:08x}, crc32 0x{crc32:08x}"
                )?;
                if let Some(a) = matches {
                    write!(f, " (the page carries a valid `{a}` checksum, which the selected policy does not accept; -C any accepts it)")?;
                }
                Ok(())
            }
        }
    }
}

/// How a page passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Valid {
    /// Checksum (and LSN) verified.
    Checksum,
    /// Every byte zero: never written.
    Zero,
    /// Legacy encrypted page: its post-encryption checksum verified.
    Encrypted,
    /// Legacy page_compressed page: the format has no checksum to verify.
    Unverifiable,
}

pub type Verdict = Result<Valid, Corruption>;

/// What one tablespace's pages are checked against.
#[derive(Debug, Clone, Copy)]
pub struct PageChecker {
    pub layout: Layout,
    /// From page 0 (or the first non-zero page).
    pub space_id: u32,
    /// Page 0 holds CRYPT_SCHEME_1 encryption metadata.
    pub encrypted: bool,
    pub policy: Policy,
    /// CRC-32C of a whole page but its last 4 bytes (full_crc32).
    full_page: FixedCrc,
    /// CRC-32C of bytes 38..size-8 (the long range of the legacy crc32).
    legacy_body: FixedCrc,
}

impl PageChecker {
    pub fn new(layout: Layout, space_id: u32, encrypted: bool, policy: Policy) -> PageChecker {
        let ps = layout.physical_size;
        PageChecker {
            layout,
            space_id,
            encrypted,
            policy,
            full_page: FixedCrc::new(ps - 4),
            legacy_body: FixedCrc::new(ps - fil::DATA - fil::TRAILER),
        }
    }

    /// The legacy `crc32` checksum of an uncompressed page.
    fn legacy_crc32(&self, page: &[u8]) -> u32 {
        let n = page.len();
        checksum::crc32c(&page[4..26]) ^ self.legacy_body.crc(&page[fil::DATA..n - fil::TRAILER])
    }

    /// Verdict on `page` (exactly `physical_size` bytes) expected to be page `page_no`.
    pub fn check(&self, page: &[u8], page_no: u32) -> Verdict {
        if is_all_zero(page) {
            return Ok(Valid::Zero);
        }
        let lay = &self.layout;
        let full = lay.full_crc32();
        let compressed = lay.is_page_compressed();
        let stored_page = be32(page, fil::OFFSET);
        let stored_space = be32(page, fil::SPACE_ID);
        let space_checked = !full || (!self.encrypted && !compressed);
        if stored_page != page_no || (space_checked && stored_space != self.space_id) {
            return Err(Corruption::PageId {
                expected_page: page_no,
                expected_space: self.space_id,
                page: stored_page,
                space: stored_space,
            });
        }
        let ty = be16(page, fil::TYPE);
        if compressed
            && (ty == page_type::PAGE_COMPRESSED
                || (ty == page_type::PAGE_COMPRESSED_ENCRYPTED && self.encrypted))
        {
            return Ok(Valid::Unverifiable);
        }
        if self.encrypted && !full && be32(page, fil::FLUSH_LSN_OR_KEY_VERSION) != 0 {
            // A second checksum, of the encrypted bytes, follows the key version.
            let stored = be32(page, fil::FLUSH_LSN_OR_KEY_VERSION + 4);
            let computed = if lay.row_compressed {
                checksum::zip_crc32(page)
            } else {
                self.legacy_crc32(page)
            };
            if stored == computed || (self.policy == Policy::Any && stored == NO_CHECKSUM_MAGIC) {
                return Ok(Valid::Encrypted);
            }
        }
        match lay.format {
            Format::FullCrc32 => self.check_full_crc32(page),
            Format::Legacy => self.check_legacy(page, ty),
        }
    }

    fn check_full_crc32(&self, page: &[u8]) -> Verdict {
        let size = page.len();
        let ty = be16(page, fil::TYPE);
        let mut len = size;
        let mut compressed = false;
        if ty & page_type::FCRC32_COMPRESSED_MARKER != 0 {
            let l = usize::from(ty & !page_type::FCRC32_COMPRESSED_MARKER) << 8;
            // MariaDB reads the checksum at len - 4; a length too small to hold
            // the header is as damaged as one past the end.
            if l >= size || l < fil::DATA + 4 {
                return Err(Corruption::CompressedLength { type_field: ty });
            }
            len = l;
            compressed = true;
        }
        let stored = be32(page, len - 4);
        // FixedCrc falls back to the general routine for compressed lengths.
        let computed = self.full_page.crc(&page[..len - 4]);
        if stored != computed {
            return Err(Corruption::FullCrc32 { stored, computed });
        }
        // The key version is in the first 4 bytes; an encrypted trailer LSN is ciphertext.
        if !compressed && be32(page, 0) == 0 {
            let header = be32(page, fil::LSN + 4);
            let trailer = be32(page, size - fil::TRAILER);
            if header != trailer {
                return Err(Corruption::Lsn { header, trailer });
            }
        }
        Ok(Valid::Checksum)
    }

    fn check_legacy(&self, page: &[u8], ty: u16) -> Verdict {
        if ty == page_type::PAGE_COMPRESSED || ty == page_type::PAGE_COMPRESSED_ENCRYPTED {
            return Ok(Valid::Unverifiable);
        }
        let size = page.len();
        if self.layout.row_compressed {
            return self.check_zip(page);
        }
        let header = be32(page, fil::LSN + 4);
        let trailer = be32(page, size - 4);
        if header != trailer {
            return Err(Corruption::Lsn { header, trailer });
        }
        let field1 = be32(page, 0);
        let field2 = be32(page, size - fil::TRAILER);
        let crc32 = self.legacy_crc32(page);
        let is_crc32 = field1 == field2 && field1 == crc32;
        let ok = match self.policy {
            Policy::Crc32 => is_crc32,
            Policy::Innodb => is_innodb(page, field1, field2),
            Policy::None => field1 == NO_CHECKSUM_MAGIC && field2 == NO_CHECKSUM_MAGIC,
            Policy::Any => server_accepts(page, field1, field2, crc32),
        };
        if ok {
            return Ok(Valid::Checksum);
        }
        let matches = if self.policy != Policy::Crc32 && is_crc32 {
            Some(Algorithm::Crc32)
        } else if self.policy != Policy::Innodb && is_innodb(page, field1, field2) {
            Some(Algorithm::Innodb)
        } else if self.policy != Policy::None
            && field1 == NO_CHECKSUM_MAGIC
            && field2 == NO_CHECKSUM_MAGIC
        {
            Some(Algorithm::None)
        } else {
            None
        };
        Err(Corruption::Legacy {
            field1,
            field2,
            crc32,
            matches,
        })
    }

    fn check_zip(&self, page: &[u8]) -> Verdict {
        let stored = be32(page, 0);
        let crc32 = checksum::zip_crc32(page);
        let is = |a: Algorithm| match a {
            Algorithm::Crc32 => stored == crc32,
            Algorithm::Innodb => stored == checksum::zip_adler32(page),
            Algorithm::None => stored == NO_CHECKSUM_MAGIC,
            Algorithm::FullCrc32 => false,
        };
        let ok = match self.policy {
            Policy::Crc32 => is(Algorithm::Crc32),
            Policy::Innodb => is(Algorithm::Innodb),
            Policy::None => is(Algorithm::None),
            Policy::Any => is(Algorithm::Crc32) || is(Algorithm::Innodb) || is(Algorithm::None),
        };
        if ok {
            return Ok(Valid::Checksum);
        }
        let matches = [Algorithm::Crc32, Algorithm::Innodb, Algorithm::None]
            .into_iter()
            .find(|&a| is(a));
        Err(Corruption::Zip {
            stored,
            crc32,
            matches,
        })
    }
}

fn is_innodb(page: &[u8], field1: u32, field2: u32) -> bool {
    field2 == checksum::innodb_old(page) && field1 == checksum::innodb_new(page)
}

/// The MariaDB server's non-strict reading rule: the trailer field may hold the
/// LSN's high word (very old files), crc32 or the old fold; the header field 0,
/// the magic, crc32 or the new fold; both fields the magic is fine too.
fn server_accepts(page: &[u8], field1: u32, field2: u32, crc32: u32) -> bool {
    if field1 == NO_CHECKSUM_MAGIC && field2 == NO_CHECKSUM_MAGIC {
        return true;
    }
    if field2 != be32(page, fil::LSN) && field2 != crc32 && field2 != checksum::innodb_old(page) {
        return false;
    }
    field1 == 0
        || field1 == NO_CHECKSUM_MAGIC
        || field1 == crc32
        || field1 == checksum::innodb_new(page)
}
