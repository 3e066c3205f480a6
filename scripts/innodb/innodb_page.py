"""Small, independent Python model of InnoDB/MariaDB page fields and checksums.

Used by make_goldens.py to apply the corruption recipes of tests/innodb/cases.txt
(some recipes re-stamp a checksum so that only a later check can catch the damage)
and by compare_fuzz.py. Written from the documented on-disk format:

FIL header (38 bytes): 0 checksum (or, in full_crc32, the encryption key version),
4 page number, 8 prev, 12 next, 16 LSN (8), 24 page type (2), 26 flush LSN or
key version (8), 34 space id. Legacy trailer (last 8 bytes): old-style checksum,
low 32 bits of the LSN. full_crc32 trailer: low 32 bits of the LSN, CRC-32C of
everything before it.
"""

from __future__ import annotations

import struct

_CRC32C_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC32C_TABLE.append(_c)


def crc32c(data: bytes, crc: int = 0) -> int:
    crc ^= 0xFFFFFFFF
    table = _CRC32C_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def be32(page: bytes, off: int) -> int:
    return struct.unpack_from(">I", page, off)[0]


def put32(page: bytearray, off: int, v: int):
    struct.pack_into(">I", page, off, v & 0xFFFFFFFF)


MASK1 = 1463735687
MASK2 = 1653893711


def fold_binary(data: bytes) -> int:
    """The legacy 'innodb' fold; only the low 32 bits matter, so keep 32 bits."""
    fold = 0
    for b in data:
        fold = (((((fold ^ b ^ MASK2) << 8) + fold) & 0xFFFFFFFF) ^ MASK1) + b
        fold &= 0xFFFFFFFF
    return fold


def legacy_crc32(page: bytes) -> int:
    n = len(page)
    return crc32c(page[4:26]) ^ crc32c(page[38 : n - 8])


def innodb_new(page: bytes) -> int:
    n = len(page)
    return (fold_binary(page[4:26]) + fold_binary(page[38 : n - 8])) & 0xFFFFFFFF


def innodb_old(page: bytes) -> int:
    return fold_binary(page[0:26])


def zip_crc32(page: bytes) -> int:
    return crc32c(page[4:16]) ^ crc32c(page[24:26]) ^ crc32c(page[34:])


def adler32(data: bytes, a: int = 1, b: int = 0) -> int:
    for x in data:
        a = (a + x) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def zip_innodb(page: bytes) -> int:
    a, b = 1, 0
    v = 1
    for part in (page[4:16], page[24:26], page[34:]):
        v = adler32(part, v & 0xFFFF, v >> 16)
    return v


class Layout:
    """Page sizes and format of a tablespace, from the flags of page 0."""

    def __init__(self, flags: int):
        self.flags = flags
        self.full_crc32 = bool(flags & 0x10)
        if self.full_crc32:
            ssize = flags & 0xF
            self.logical = 512 << ssize
            self.physical = self.logical
            self.zip = False
            self.page_compressed = bool((flags >> 5) & 7)
        else:
            ssize = (flags >> 6) & 0xF
            self.logical = 16384 if ssize == 0 else 512 << ssize
            zssize = (flags >> 1) & 0xF
            self.zip = zssize != 0
            self.physical = (512 << zssize) if self.zip else self.logical
            self.page_compressed = bool(flags & (1 << 16))


def layout_of(data: bytes) -> Layout:
    return Layout(be32(data, 54))


def restamp(page: bytearray, lay: Layout, algo: str = "auto"):
    """Recompute the page's checksum in place (algo: auto, crc32, innodb, none)."""
    n = len(page)
    if lay.full_crc32:
        t = struct.unpack_from(">H", page, 24)[0]
        size = n
        if t & 0x8000 and ((t & 0x7FFF) << 8) < n:
            size = (t & 0x7FFF) << 8
        put32(page, size - 4, crc32c(bytes(page[: size - 4])))
        return
    if lay.zip:
        v = {"auto": zip_crc32, "crc32": zip_crc32, "innodb": zip_innodb}.get(algo)
        put32(page, 0, v(bytes(page)) if v else 0xDEADBEEF)
        return
    if algo in ("auto", "crc32"):
        c = legacy_crc32(bytes(page))
        put32(page, 0, c)
        put32(page, n - 8, c)
    elif algo == "innodb":
        put32(page, 0, innodb_new(bytes(page)))
        put32(page, n - 8, innodb_old(bytes(page)))
    elif algo == "none":
        put32(page, 0, 0xDEADBEEF)
        put32(page, n - 8, 0xDEADBEEF)
    else:
        raise ValueError(algo)
