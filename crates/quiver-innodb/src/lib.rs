//! InnoDB / MariaDB tablespace pages, and a page checksum verifier that reaches
//! the same verdicts as MariaDB 10.11's `innochecksum` at the speed of the disk.
//!
//! Written from the documented on-disk format and from experiments on files a
//! MariaDB 10.11 server wrote (see `scripts/innodb/`), not from server code.
//!
//! # The format, briefly
//!
//! A tablespace file (`.ibd`, `ibdata*`) is an array of pages. Every page starts
//! with a 38-byte FIL header: checksum or key version (0..4), page number
//! (4..8), previous and next page (8..16), LSN of the last change (16..24), page
//! type (24..26), flush LSN or encryption key version and checksum (26..34),
//! space id (34..38). Page 0 continues with the FSP header, whose flags word
//! (at byte 54) gives the page size and the checksum format:
//!
//! * **full_crc32** (MariaDB 10.5+ default, flag bit 4): page size 512 << bits
//!   0-3 (4K..64K), page compression algorithm in bits 5-7. The last 4 bytes are
//!   the CRC-32C of everything before them; the 4 before those repeat the low 32
//!   bits of the LSN (torn page check). Bytes 0..4 hold the encryption key
//!   version (0: not encrypted). A page_compressed page sets bit 15 of its type
//!   and keeps its compressed length (in 256-byte units) in the other 15 bits;
//!   its checksum sits at the end of the compressed data.
//! * **legacy** (MySQL and MariaDB before 10.5; `innodb_checksum_algorithm=crc32`):
//!   page size from bits 6-9 (0 means 16K), ROW_FORMAT=COMPRESSED page size from
//!   bits 1-4 (512 << n; the file then holds 1K..16K compressed pages), bit 16 for
//!   PAGE_COMPRESSED. The checksum is stored at offset 0 and again in the
//!   trailer (size-8), followed by the LSN's low word. `crc32` is CRC-32C of
//!   bytes 4..26 XOR CRC-32C of 38..size-8; `innodb` is an older byte fold (see
//!   [`checksum`]); `none` writes 0xDEADBEEF. ROW_FORMAT=COMPRESSED pages have a
//!   single checksum over 4..16, 24..26 and 34..end and no trailer.
//!   PAGE_COMPRESSED pages get types 34354 / 37401 (encrypted) and carry no
//!   checksum at all. Encrypted pages keep the key version at 26 and a CRC-32C
//!   of the encrypted bytes at 30.
//! * Page 0 also holds the extent descriptors (2 bits per page; bit 0 = free)
//!   for the first `page size` pages; later descriptor pages repeat every
//!   `page size` pages. Encryption metadata (magic `s\x0e\x0cREt`, scheme 1 =
//!   encrypted) follows the descriptor array.
//!
//! # What is checked, and what MariaDB's innochecksum does differently
//!
//! [`verify::PageChecker::check`] gives the verdict on one page and
//! [`check::Checker`] walks files with innochecksum's rules (page 0 first, the
//! `-s/-e/-p` range semantics, free pages and legacy page_compressed pages not
//! checked, the page number and space id compared, `-a` counted across files).
//! MariaDB 10.11's innochecksum accepts only `crc32` on legacy pages; the
//! default [`verify::Policy::Crc32`] does the same, and a page that carries a
//! valid `innodb` or `none` checksum is reported with that fact. Quiver also
//! warns, without failing, about all-zero pages the extent descriptors say are in
//! use, which innochecksum lets pass.
//!
//! # Supported
//!
//! Page sizes 4K-64K; full_crc32 and legacy tablespaces; checksums `crc32`,
//! `innodb`, `none` (see [`verify::Policy`]) and `full_crc32`; ROW_FORMAT=COMPRESSED
//! (1K-16K pages); PAGE_COMPRESSED (full_crc32: verified up to the compressed
//! length; legacy: no checksum exists, skipped as innochecksum does); encrypted
//! tablespaces (full_crc32: the normal CRC; legacy: the checksum of the encrypted
//! bytes at offset 30, else the normal checks); all-zero pages; the torn-page
//! LSN check; page number and space id checks; the system tablespace
//! (`ibdata1`, with its doublewrite buffer). `quiver innochecksum` takes
//! innochecksum's `-c -s -e -p -a -S -f -m -i -D -r -l -v --tablespace-flags`,
//! plus `-C` (accepted legacy algorithms), `--format json` and the global
//! `--threads`; `-w`/`-n` (rewriting checksums) are refused.
//!
//! # Speed
//!
//! [`scan`] reads 2 MiB chunks, claimed in file order by reader threads, into
//! page-aligned reused buffers, and verifies whole chunks in parallel; results
//! come back in page order. Measurements on a 2-core AMD EPYC VM with a warm
//! page cache (bench/innochecksum.py) decided the shape: the kernel's copy into
//! a misaligned buffer ran at 1.2 GB/s against 8 GB/s page-aligned; the copy,
//! not the CRC, is most of the work (about two thirds of the CPU time; the page
//! CRC of [`crc`] runs at about 22 GB/s per core), so a single I/O thread caps
//! the speed at one core's copy rate, and 8 MiB hand-over buffers spill out of
//! the caches. Every thread therefore reads and then checks its own chunk while
//! it is hot in its cache, and the reads of one thread overlap the checking of
//! the others. One I/O thread feeding workers remains available ([`ScanConfig`]).

pub mod check;
pub mod checksum;
pub mod crc;
pub mod damage;
pub mod format;
pub mod scan;
pub mod summary;
pub mod verify;

pub use check::{CheckOptions, Checker, Event, FileError, FileReport, Outcome};
pub use format::Layout;
pub use scan::ScanConfig;
pub use verify::{Corruption, PageChecker, Policy};
