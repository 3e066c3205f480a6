//! On-disk layout of InnoDB / MariaDB tablespace pages: field offsets, page types,
//! tablespace flags and the two page-0 structures the verifier needs (the extent
//! descriptor bitmap and the encryption metadata).

use std::fmt;

/// Offsets in the 38-byte FIL header every page starts with.
pub mod fil {
    /// Checksum (legacy formats) or encryption key version (full_crc32).
    pub const SPACE_OR_CHKSUM: usize = 0;
    /// The page's own number.
    pub const OFFSET: usize = 4;
    pub const PREV: usize = 8;
    pub const NEXT: usize = 12;
    /// LSN of the newest change (8 bytes).
    pub const LSN: usize = 16;
    pub const TYPE: usize = 24;
    /// Legacy formats: encryption key version (4 bytes) then the post-encryption
    /// checksum (4 bytes); page 0 of ibdata1: the flushed LSN.
    pub const FLUSH_LSN_OR_KEY_VERSION: usize = 26;
    pub const SPACE_ID: usize = 34;
    /// End of the FIL header, start of the page body.
    pub const DATA: usize = 38;
    /// Legacy trailer: old-style checksum (4 bytes) then the low 32 LSN bits.
    pub const TRAILER: usize = 8;
}

/// Offsets in the FSP header on page 0 (it starts at [`fil::DATA`]).
pub mod fsp {
    pub const SPACE_ID: usize = 38;
    /// Pages the tablespace has (may be below the file size).
    pub const SIZE: usize = 38 + 8;
    /// Pages below this have initialised extent descriptors.
    pub const FREE_LIMIT: usize = 38 + 12;
    pub const FLAGS: usize = 38 + 16;
    /// Extent descriptors follow the FSP header.
    pub const XDES_ARRAY: usize = 150;
    /// In a descriptor: 8-byte segment id, 12-byte list node, 4-byte state, then the bitmap.
    pub const XDES_BITMAP: usize = 24;
}

/// Page types (`FIL_PAGE_TYPE`).
pub mod page_type {
    pub const ALLOCATED: u16 = 0;
    pub const UNDO_LOG: u16 = 2;
    pub const INODE: u16 = 3;
    pub const IBUF_FREE_LIST: u16 = 4;
    pub const IBUF_BITMAP: u16 = 5;
    pub const SYS: u16 = 6;
    pub const TRX_SYS: u16 = 7;
    pub const FSP_HDR: u16 = 8;
    pub const XDES: u16 = 9;
    pub const BLOB: u16 = 10;
    pub const ZBLOB: u16 = 11;
    pub const ZBLOB2: u16 = 12;
    pub const INSTANT: u16 = 18;
    pub const RTREE: u16 = 17854;
    pub const INDEX: u16 = 17855;
    /// Legacy-format PAGE_COMPRESSED page (no checksum of its own).
    pub const PAGE_COMPRESSED: u16 = 34354;
    /// Legacy-format PAGE_COMPRESSED and encrypted page.
    pub const PAGE_COMPRESSED_ENCRYPTED: u16 = 37401;
    /// full_crc32: bit 15 of the type marks a page_compressed page, whose
    /// stored length in 256-byte units is in the low 15 bits.
    pub const FCRC32_COMPRESSED_MARKER: u16 = 0x8000;

    /// A short English name, as `innochecksum -S` words it where it has one.
    pub fn name(t: u16) -> &'static str {
        match t {
            ALLOCATED => "Freshly allocated page",
            UNDO_LOG => "Undo log page",
            INODE => "Inode page",
            IBUF_FREE_LIST => "Insert buffer free list page",
            IBUF_BITMAP => "Insert buffer bitmap",
            SYS => "System page",
            TRX_SYS => "Transaction system page",
            FSP_HDR => "File Space Header",
            XDES => "Extent descriptor page",
            BLOB => "BLOB page",
            ZBLOB => "Compressed BLOB page",
            ZBLOB2 => "Subsequent compressed BLOB page",
            INSTANT => "Instant ALTER metadata page",
            RTREE => "R-tree index page",
            INDEX => "Index page",
            PAGE_COMPRESSED => "Page compressed page",
            PAGE_COMPRESSED_ENCRYPTED => "Page compressed encrypted page",
            t if t & FCRC32_COMPRESSED_MARKER != 0 => "Page compressed page (full_crc32)",
            _ => "Other type of page",
        }
    }
}

/// Value of a checksum field that means "no checksum" (`innodb_checksum_algorithm=none`).
pub const NO_CHECKSUM_MAGIC: u32 = 0xDEAD_BEEF;
/// "No page" in prev/next links.
pub const FIL_NULL: u32 = 0xFFFF_FFFF;
/// The smallest page (ROW_FORMAT=COMPRESSED, KEY_BLOCK_SIZE=1).
pub const MIN_PAGE_SIZE: usize = 1024;
pub const MAX_PAGE_SIZE: usize = 65536;

#[inline]
pub fn be16(b: &[u8], off: usize) -> u16 {
    u16::from_be_bytes([b[off], b[off + 1]])
}

#[inline]
pub fn be32(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

#[inline]
pub fn be64(b: &[u8], off: usize) -> u64 {
    (u64::from(be32(b, off)) << 32) | u64::from(be32(b, off + 4))
}

/// True if every byte is zero. Word-at-a-time; the compiler vectorises the loop.
pub fn is_all_zero(b: &[u8]) -> bool {
    let mut words = b.chunks_exact(16);
    for w in &mut words {
        let mut a = [0u8; 16];
        a.copy_from_slice(w);
        if u128::from_ne_bytes(a) != 0 {
            return false;
        }
    }
    words.remainder().iter().all(|&x| x == 0)
}

/// Page compression algorithm recorded in full_crc32 tablespace flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Zlib,
    Lz4,
    Lzo,
    Lzma,
    Bzip2,
    Snappy,
    /// Legacy-format PAGE_COMPRESSED tablespace: the algorithm is per page.
    PerPage,
    Unknown(u8),
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Compression::None => "none",
            Compression::Zlib => "zlib",
            Compression::Lz4 => "lz4",
            Compression::Lzo => "lzo",
            Compression::Lzma => "lzma",
            Compression::Bzip2 => "bzip2",
            Compression::Snappy => "snappy",
            Compression::PerPage => "per page",
            Compression::Unknown(n) => return write!(f, "unknown ({n})"),
        };
        f.write_str(s)
    }
}

/// The checksum format family a tablespace uses, from its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MariaDB 10.5+ default: CRC-32C of the whole page but its last 4 bytes.
    FullCrc32,
    /// Pre-10.5 format (MySQL 5.x, MariaDB 10.x): checksum in the header and the
    /// trailer, written by `innodb_checksum_algorithm` crc32, innodb or none.
    Legacy,
}

/// What the tablespace flags on page 0 say about page sizes and format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub flags: u32,
    pub format: Format,
    /// In-memory page size (`innodb_page_size`).
    pub logical_size: usize,
    /// Bytes per page in the file: the compressed size for ROW_FORMAT=COMPRESSED.
    pub physical_size: usize,
    /// ROW_FORMAT=COMPRESSED (the `KEY_BLOCK_SIZE` pages).
    pub row_compressed: bool,
    /// PAGE_COMPRESSED=1.
    pub page_compression: Compression,
}

/// Tablespace flags that describe no page size MariaDB can write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadFlags {
    pub flags: u32,
    pub why: &'static str,
}

impl fmt::Display for BadFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tablespace flags 0x{:x} on page 0 are not valid: {}",
            self.flags, self.why
        )
    }
}

impl Layout {
    /// Decode `FSP_SPACE_FLAGS`.
    ///
    /// full_crc32 flags (bit 4 set): bits 0-3 page size shift (page = 512 << n),
    /// bits 5-7 page compression algorithm. Legacy flags: bit 0 post-Antelope,
    /// bits 1-4 ROW_FORMAT=COMPRESSED size shift (512 << n, 0 = not compressed),
    /// bit 5 atomic blobs, bits 6-9 page size shift (0 = 16K), bit 16 PAGE_COMPRESSED.
    pub fn from_flags(flags: u32) -> Result<Layout, BadFlags> {
        let bad = |why| Err(BadFlags { flags, why });
        if flags & 0x10 != 0 {
            let ssize = flags & 0xF;
            if !(3..=7).contains(&ssize) {
                return bad("full_crc32 page size shift outside 4K..64K");
            }
            let size = 512usize << ssize;
            let page_compression = match (flags >> 5) & 7 {
                0 => Compression::None,
                1 => Compression::Zlib,
                2 => Compression::Lz4,
                3 => Compression::Lzo,
                4 => Compression::Lzma,
                5 => Compression::Bzip2,
                6 => Compression::Snappy,
                n => Compression::Unknown(n as u8),
            };
            return Ok(Layout {
                flags,
                format: Format::FullCrc32,
                logical_size: size,
                physical_size: size,
                row_compressed: false,
                page_compression,
            });
        }
        let ssize = (flags >> 6) & 0xF;
        let logical_size = match ssize {
            0 => 16384,
            3..=7 => 512usize << ssize,
            _ => return bad("page size shift outside 4K..64K"),
        };
        let zssize = (flags >> 1) & 0xF;
        let physical_size = match zssize {
            0 => logical_size,
            1..=5 => 512usize << zssize,
            _ => return bad("ROW_FORMAT=COMPRESSED page size shift outside 1K..16K"),
        };
        if physical_size > logical_size {
            return bad("ROW_FORMAT=COMPRESSED page larger than the page size");
        }
        let page_compression = if flags & (1 << 16) != 0 {
            Compression::PerPage
        } else {
            Compression::None
        };
        Ok(Layout {
            flags,
            format: Format::Legacy,
            logical_size,
            physical_size,
            row_compressed: zssize != 0,
            page_compression,
        })
    }

    pub fn full_crc32(&self) -> bool {
        self.format == Format::FullCrc32
    }

    /// PAGE_COMPRESSED=1 in the flags.
    pub fn is_page_compressed(&self) -> bool {
        self.page_compression != Compression::None
    }

    /// Pages per extent: 1 MiB of pages up to 16K pages, 64 pages above.
    pub fn extent_pages(&self) -> usize {
        if self.logical_size <= 16384 {
            (1 << 20) / self.logical_size
        } else {
            64
        }
    }

    /// Bytes of one extent descriptor: header plus 2 bits per page.
    pub fn xdes_size(&self) -> usize {
        fsp::XDES_BITMAP + (self.extent_pages() * 2).div_ceil(8)
    }

    /// Where the encryption metadata sits on page 0: after the descriptor array.
    pub fn crypt_data_offset(&self) -> usize {
        fil::DATA + fsp::XDES_ARRAY + self.xdes_size() * (self.physical_size / self.extent_pages())
    }

    /// Whether the descriptor page `xdes` marks page `page_no` free. Each
    /// descriptor page covers `physical_size` pages.
    pub fn xdes_page_is_free(&self, xdes: &[u8], page_no: u64) -> bool {
        let ext = self.extent_pages() as u64;
        let within = page_no & (self.physical_size as u64 - 1);
        let entry = fsp::XDES_ARRAY + self.xdes_size() * (within / ext) as usize;
        let bit = ((page_no % ext) * 2) as usize;
        let at = entry + fsp::XDES_BITMAP + bit / 8;
        at < xdes.len() && (xdes[at] >> (bit % 8)) & 1 == 1
    }

    pub fn describe(&self) -> String {
        let mut s = match self.format {
            Format::FullCrc32 => format!("full_crc32, {} pages", size_name(self.logical_size)),
            Format::Legacy => format!(
                "crc32/innodb format, {} pages",
                size_name(self.logical_size)
            ),
        };
        if self.row_compressed {
            s += &format!(", ROW_FORMAT=COMPRESSED {}", size_name(self.physical_size));
        }
        if self.is_page_compressed() {
            s += &format!(", PAGE_COMPRESSED ({})", self.page_compression);
        }
        s
    }
}

fn size_name(n: usize) -> String {
    format!("{}K", n / 1024)
}

/// The encryption scheme recorded on page 0 (`CRYPT_SCHEME_1` = encrypted).
pub fn page0_is_encrypted(page0: &[u8], layout: &Layout) -> bool {
    const MAGIC: &[u8; 6] = b"s\x0e\x0cREt";
    let off = layout.crypt_data_offset();
    if off + 6 + 2 + 16 + 8 > page0.len() || &page0[off..off + 6] != MAGIC {
        return false;
    }
    // Scheme 1 with a 16-byte IV; scheme 0 means "unencrypted" metadata.
    page0[off + 6] == 1 && page0[off + 7] == 16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_decode_page_sizes() {
        let l = Layout::from_flags(0x15).unwrap();
        assert_eq!(
            (l.format, l.logical_size, l.physical_size),
            (Format::FullCrc32, 16384, 16384)
        );
        let l = Layout::from_flags(0x13).unwrap();
        assert_eq!(l.logical_size, 4096);
        let l = Layout::from_flags(0x17).unwrap();
        assert_eq!(l.logical_size, 65536);
        let l = Layout::from_flags(0x55).unwrap();
        assert_eq!(l.page_compression, Compression::Lz4);
        let l = Layout::from_flags(0x21).unwrap();
        assert_eq!((l.format, l.logical_size), (Format::Legacy, 16384));
        let l = Layout::from_flags(0x1e1).unwrap();
        assert_eq!(l.logical_size, 65536);
        let l = Layout::from_flags(0x27).unwrap();
        assert_eq!(
            (l.logical_size, l.physical_size, l.row_compressed),
            (16384, 4096, true)
        );
        let l = Layout::from_flags(0xe5).unwrap();
        assert_eq!((l.logical_size, l.physical_size), (4096, 2048));
        let l = Layout::from_flags(0x10021).unwrap();
        assert_eq!(l.page_compression, Compression::PerPage);
        assert!(Layout::from_flags(0xFFFF_FFFF).is_err());
        assert!(Layout::from_flags(0x1F).is_err());
        assert!(Layout::from_flags(0x40).is_err());
        // 16K ROW_FORMAT=COMPRESSED pages inside 8K pages cannot exist.
        assert!(Layout::from_flags(0x12B).is_err());
    }

    #[test]
    fn crypt_data_offsets_match_real_files() {
        assert_eq!(Layout::from_flags(0x15).unwrap().crypt_data_offset(), 10428);
        assert_eq!(Layout::from_flags(0x29).unwrap().crypt_data_offset(), 5308);
    }

    #[test]
    fn zero_check() {
        let mut v = vec![0u8; 16387];
        assert!(is_all_zero(&v));
        v[16386] = 1;
        assert!(!is_all_zero(&v));
        v[16386] = 0;
        v[5] = 1;
        assert!(!is_all_zero(&v));
        assert!(is_all_zero(&[]));
    }
}
