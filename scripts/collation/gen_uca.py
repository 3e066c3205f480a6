#!/usr/bin/env python3
"""Generate the UCA weight and case tables of crates/quiver-collation
(src/uca_tables.bin) from MariaDB's answers and Unicode's DUCET data.

Sources, never MariaDB's or MySQL's (GPL) code:

  * `utf8mb4_unicode_ci` (UCA 4.0.0), `utf8mb4_unicode_520_ci` (UCA 5.2.0),
    `utf8mb4_uca1400_ai_ci` (UCA 14.0.0): the server's
    HEX(WEIGHT_STRING(_utf8mb4 X'..' COLLATE c)) of every code point
    U+0000..U+10FFFF (surrogates included, as MariaDB's utf8 accepts them),
    checked equal for the utf8mb3 collations over the BMP; contractions:
    every contraction sequence (and prefix) of the DUCET versions pyuca ships
    (5.2.0 .. 10.0.0) and of DUCET 13.0.0 (Unicode's allkeys.txt as Debian's
    perl-modules package ships it for Unicode::Collate, see --allkeys) is
    asked of the server, and kept where its weights differ from what the
    single characters (and shorter contractions) give; DUCET 14.0.0 itself
    is nowhere here, and `--probe` looks for contractions that 14.0.0 added
    (none found on MariaDB 10.11, see probe_new_contractions);
    UPPER/LOWER of every code point per collation;
  * `utf8mb4_0900_ai_ci` (MySQL 8, UCA 9.0.0): allkeys-9.0.0.txt as shipped
    by pyuca, through scripts/collation/uca_ref.py (primary weights, Hangul
    syllables as their jamo, implicit weights by the UCA 9.0.0 rules, DUCET
    contractions). MySQL is not available here: its case mapping is taken as
    uca1400's (MariaDB's), see the crate docs for what that may differ in.

Format of the file (little-endian), read by src/uca.rs:

    b"QUCA", u32 format (1)
    u32 n, u16[n] weight pool (expansions), padded to 4 bytes
    u32 n, u32[n * 256] pages (weight entries or case mappings)
    u32 n_tables, then per table:
      u8[16] name (NUL padded)
      u32 n, (u32 base, u32 start)[n]   implicit weight kinds
      u16[4352] weight page of each 256 code points
      u32 n, (u32 cp0, u32 cp1, u32 cp2 or 0xFFFFFFFF, u32 entry)[n] contractions
      u16[4352] UPPER page, u16[4352] LOWER page (0xFFFF: identity)

A weight entry (u32): bits 31..30 = 2: implicit weights of kind (bits 0..7):
[base + ((cp - start) >> 15), ((cp - start) & 0x7FFF) | 0x8000]; = 1: one
weight (bits 0..15); = 0: bits 24..28 weights at pool offset bits 0..23
(none: ignorable). Bit 29: the code point starts a contraction.

Usage: scripts/collation/gen_uca.py [--out PATH] [--allkeys PATH]   (takes a few minutes)
       scripts/collation/gen_uca.py --probe   (reports 14.0.0-only contractions; 10-15 minutes)
"""

import argparse
import glob
import os
import re
import struct
import sys
import time
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

oracle.ensure_pymysql(__file__)

import uca_ref  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NCP = 0x110000
NPAGES = NCP >> 8

# (table name, MariaDB collation for weights and case, utf8mb3 collation
# checked to have the same BMP weights, DUCET version with its contractions)
MARIADB_TABLES = [
    ("uca400", "utf8mb4_unicode_ci", "utf8mb3_unicode_ci"),
    ("uca520", "utf8mb4_unicode_520_ci", "utf8mb3_unicode_520_ci"),
    ("uca1400", "utf8mb4_uca1400_ai_ci", "utf8mb3_uca1400_ai_ci"),
]

# DUCET 13.0.0 (the newest allkeys on the machine: Unicode's data file in
# Debian's perl-modules-5.36 package, used by Unicode::Collate).
DEFAULT_ALLKEYS = sorted(glob.glob("/usr/share/perl/*/Unicode/Collate/allkeys.txt"))

# Implicit weight kinds recognised in the server's answers: (base, start);
# start 0 means AAAA = base + (cp >> 15). The others are UCA's
# @implicitweights ranges (Tangut, Nushu, Khitan in 14.0.0).
IMPLICIT_KINDS = [(0xFB40, 0), (0xFB80, 0), (0xFBC0, 0), (0xFB00, 0x17000), (0xFB00, 0x18D00),
                  (0xFB01, 0x1B170), (0xFB02, 0x18B00)]

BATCH = 2048


def utf8(cp):
    return chr(cp).encode("utf-8", "surrogatepass")


def parse_weights(hexstr):
    assert len(hexstr) % 4 == 0, hexstr
    return [int(hexstr[i:i + 4], 16) for i in range(0, len(hexstr), 4)]


def fetch_weights(cur, coll, cps):
    out = []
    for k in range(0, len(cps), BATCH):
        chunk = cps[k:k + BATCH]
        cs = coll.split("_")[0]
        cols = [b"HEX(WEIGHT_STRING(" + oracle.hexlit(utf8(cp), cs) + b" COLLATE " + coll.encode() + b"))"
                for cp in chunk]
        cur.execute(b"SELECT " + b",".join(cols))
        out += [parse_weights(x) for x in cur.fetchone()]
    return out


def fetch_seq_weights(cur, coll, seqs):
    out = []
    for k in range(0, len(seqs), 512):
        chunk = seqs[k:k + 512]
        cols = [b"HEX(WEIGHT_STRING(" + oracle.hexlit(b"".join(utf8(c) for c in s), "utf8mb4") + b" COLLATE "
                + coll.encode() + b"))" for s in chunk]
        cur.execute(b"SELECT " + b",".join(cols))
        out += [parse_weights(x) for x in cur.fetchone()]
    return out


def fetch_case(cur, coll):
    """UPPER and LOWER of every code point, 4096 per expression (MariaDB maps
    case character by character, one character to one)."""
    upper, lower = [], []
    step = 4096
    for start in range(0, NCP, step):
        cps = list(range(start, start + step))
        x = oracle.hexlit(b"".join(utf8(cp) for cp in cps), "utf8mb4").decode()
        cur.execute("SELECT HEX(UPPER(%s COLLATE %s)), HEX(LOWER(%s COLLATE %s))" % (x, coll, x, coll))
        u, l = cur.fetchone()
        us = bytes.fromhex(u).decode("utf-8", "surrogatepass")
        ls = bytes.fromhex(l).decode("utf-8", "surrogatepass")
        assert len(us) == len(ls) == step, (coll, hex(start))
        upper += [ord(c) for c in us]
        lower += [ord(c) for c in ls]
    return upper, lower


def implicit_of(kind, cp):
    base, start = kind
    d = cp - start
    return [base + (d >> 15), (d & 0x7FFF) | 0x8000]


class Builder:
    def __init__(self):
        self.pool = []
        self.pool_index = {}
        self.pages = []
        self.page_index = {}

    def seq(self, weights):
        key = tuple(weights)
        if key not in self.pool_index:
            self.pool_index[key] = len(self.pool)
            self.pool += weights
        return self.pool_index[key]

    def entry(self, weights, starter=False, kinds=(), cp=None):
        if cp is not None and len(weights) == 2:
            for i, k in enumerate(kinds):
                if weights == implicit_of(k, cp):
                    assert not starter
                    return (2 << 30) | i
        flag = (1 << 29) if starter else 0
        if len(weights) == 1:
            return (1 << 30) | flag | weights[0]
        assert len(weights) < 32, weights
        off = self.seq(weights) if weights else 0
        assert off < (1 << 24)
        return flag | (len(weights) << 24) | off

    def page(self, vals):
        key = tuple(vals)
        if key not in self.page_index:
            self.page_index[key] = len(self.pages)
            self.pages.append(key)
        return self.page_index[key]


def allkeys_entries(path):
    """(version, {code point sequence: collation element text}) of an
    allkeys.txt file."""
    version, entries = None, {}
    line_re = re.compile(r"^([0-9A-F ]+);\s*((?:\[[.*][0-9A-F.]+\])+)")
    with open(path) as f:
        for line in f:
            if line.startswith("@version"):
                version = line.split()[1]
            m = line_re.match(line)
            if m:
                entries[tuple(int(x, 16) for x in m.group(1).split())] = m.group(2)
    return version, entries


def contraction_candidates(allkeys):
    seqs = set()
    for v in uca_ref.available_versions():
        d = uca_ref.Ducet(v)
        for c in d.contractions:
            for n in range(2, len(c) + 1):
                seqs.add(c[:n])
    version, entries = allkeys_entries(allkeys)
    assert version == "13.0.0", (allkeys, version)
    for c in entries:
        for n in range(2, len(c) + 1):
            seqs.add(c[:n])
    return sorted(seqs, key=lambda s: (len(s), s))


def probe_new_contractions(cur, allkeys, coll="utf8mb4_uca1400_ai_ci"):
    """Looks for contractions of the server's DUCET (14.0.0) that DUCET
    13.0.0 lacks: a pair whose WEIGHT_STRING is not the concatenation of its
    characters' is one. Pairs tried: every combining mark (and every `Lo`
    VOWEL SIGN, the prevowels of the Lao/Thai kind) with every character of
    its block and the neighbouring ones, both orders; and every character
    new in Unicode 14.0 (assigned in Python's unicodedata 14.0.0, absent from
    DUCET 13.0.0) with every character of its block and with every
    character a 13.0.0 contraction has. Prints what it finds."""
    assert unicodedata.unidata_version == "14.0.0", unicodedata.unidata_version
    _, entries = allkeys_entries(allkeys)
    c13 = {c for c in entries if len(c) > 1}
    single13 = {c[0] for c in entries if len(c) == 1}

    def assigned(cp):
        if unicodedata.category(chr(cp)) in ("Cn", "Cs", "Co"):
            return False
        name = unicodedata.name(chr(cp), "")
        # Han, Tangut, Khitan: implicit weights, no contractions.
        return not (0xAC00 <= cp <= 0xD7A3 or "CJK" in name or "TANGUT" in name or "KHITAN" in name)

    def block_of(cp):
        base = cp & ~0x7F
        return [y for y in range(max(0, base - 128), base + 256) if assigned(y)]

    marks = [cp for cp in range(NCP) if assigned(cp) and (
        unicodedata.category(chr(cp)).startswith("M")
        or (unicodedata.category(chr(cp)) == "Lo" and "VOWEL" in unicodedata.name(chr(cp), "")))]
    new14 = [cp for cp in range(NCP) if assigned(cp) and cp not in single13]
    in_contractions = sorted({x for c in c13 for x in c})
    pairs = set()
    for m in marks:
        for y in block_of(m):
            pairs.update([(m, y), (y, m)])
    for x in new14:
        for y in block_of(x) + in_contractions:
            pairs.update([(x, y), (y, x)])
    pairs = sorted(p for p in pairs if p not in c13)
    chars = sorted({x for p in pairs for x in p})
    print("probing %d pairs (%d marks, %d characters new in 14.0.0)" % (len(pairs), len(marks), len(new14)),
          file=sys.stderr)
    t = time.time()
    single = dict(zip(chars, fetch_seq_weights(cur, coll, [(c,) for c in chars])))
    found = []
    for k in range(0, len(pairs), 1 << 16):
        chunk = pairs[k:k + (1 << 16)]
        for p, w in zip(chunk, fetch_seq_weights(cur, coll, chunk)):
            if w != single[p[0]] + single[p[1]]:
                found.append((p, w))
    print("%d pairs in %.0f s: %d contractions DUCET 13.0.0 lacks" % (len(pairs), time.time() - t, len(found)),
          file=sys.stderr)
    for p, w in found:
        print(" ".join("%04X" % x for x in p), " ".join("%04X" % x for x in w))
    return found


def longest_match(single, contractions, cps):
    out, i = [], 0
    while i < len(cps):
        for n in (3, 2):
            w = contractions.get(tuple(cps[i:i + n])) if i + n <= len(cps) else None
            if w is not None:
                out += w
                i += n
                break
        else:
            out += single[cps[i]]
            i += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "crates/quiver-collation/src/uca_tables.bin"))
    ap.add_argument("--allkeys", default=(DEFAULT_ALLKEYS or [None])[-1],
                    help="DUCET 13.0.0 allkeys.txt (default: perl's Unicode::Collate copy)")
    ap.add_argument("--probe", action="store_true", help="only look for contractions DUCET 13.0.0 lacks")
    args = ap.parse_args()
    if not args.allkeys or not os.path.exists(args.allkeys):
        sys.exit("DUCET 13.0.0 allkeys.txt not found: apt-get install perl-modules-5.36, or pass --allkeys")
    conn = oracle.connect()
    cur = conn.cursor()
    version = oracle.server_version(conn)
    if args.probe:
        probe_new_contractions(cur, args.allkeys)
        return
    candidates = contraction_candidates(args.allkeys)
    print("%d contraction candidates" % len(candidates), file=sys.stderr)

    tables = []  # (name, single weights per cp, contractions dict, upper, lower, kinds)
    for name, coll, coll3 in MARIADB_TABLES:
        single = fetch_weights(cur, coll, list(range(NCP)))
        print("fetched", coll, file=sys.stderr)
        if coll3:
            bmp = fetch_weights(cur, coll3, list(range(0x10000)))
            assert bmp == single[:0x10000], coll3
        contractions = {}
        answers = fetch_seq_weights(cur, coll, candidates)
        for seq, w in zip(candidates, answers):
            if w != longest_match(single, contractions, list(seq)):
                contractions[seq] = w
        print("%s: %d contractions" % (coll, len(contractions)), file=sys.stderr)
        upper, lower = fetch_case(cur, coll)
        tables.append((name, single, contractions, upper, lower))

    d = uca_ref.Ducet("9.0.0")
    single = [d.char_weights(cp) for cp in range(NCP)]
    contractions = {c: w for c, w in d.contractions.items()}
    # The crate's matcher tries 3 then 2 characters: every contraction must
    # be found that way (true of DUCET 9.0.0: at most 3 characters).
    assert d.max_contraction <= 3
    up1400, lo1400 = tables[2][3], tables[2][4]
    tables.append(("uca900", single, contractions, up1400, lo1400))

    b = Builder()
    out_tables = []
    for name, single, contractions, upper, lower in tables:
        for c in contractions:
            assert len(c) <= 3
            # ASCII fast paths rely on this: no contraction has an ASCII
            # second or third character (so an ASCII character only joins a
            # contraction as its first).
            assert all(x >= 0x80 for x in c[1:]), (name, c)
        starters = {c[0] for c in contractions}
        kinds = [k for k in IMPLICIT_KINDS]
        wpages = []
        for p in range(NPAGES):
            vals = [b.entry(single[cp], cp in starters, kinds, cp) for cp in range(p << 8, (p + 1) << 8)]
            wpages.append(b.page(vals))
        cont = []
        for c, w in sorted(contractions.items()):
            cps = list(c) + [0xFFFFFFFF] * (3 - len(c))
            cont.append((cps, b.entry(w)))

        def case_pages(table):
            idx = []
            for p in range(NPAGES):
                vals = table[p << 8:(p + 1) << 8]
                if all(v == (p << 8) + i for i, v in enumerate(vals)):
                    idx.append(0xFFFF)
                else:
                    idx.append(b.page(vals))
            return idx
        out_tables.append((name, kinds, wpages, cont, case_pages(upper), case_pages(lower)))
        print("%s: %d pages so far, pool %d" % (name, len(b.pages), len(b.pool)), file=sys.stderr)

    assert len(b.pages) < 0xFFFF
    blob = bytearray(b"QUCA")
    blob += struct.pack("<I", 1)
    blob += struct.pack("<I", len(b.pool)) + struct.pack("<%dH" % len(b.pool), *b.pool)
    while len(blob) % 4:
        blob += b"\0"
    blob += struct.pack("<I", len(b.pages))
    for pg in b.pages:
        blob += struct.pack("<256I", *pg)
    blob += struct.pack("<I", len(out_tables))
    for name, kinds, wpages, cont, up, lo in out_tables:
        blob += name.encode().ljust(16, b"\0")
        blob += struct.pack("<I", len(kinds))
        for base, start in kinds:
            blob += struct.pack("<II", base, start)
        blob += struct.pack("<%dH" % NPAGES, *wpages)
        blob += struct.pack("<I", len(cont))
        for cps, e in cont:
            blob += struct.pack("<4I", cps[0], cps[1], cps[2], e)
        blob += struct.pack("<%dH" % NPAGES, *up)
        blob += struct.pack("<%dH" % NPAGES, *lo)
    with open(args.out, "wb") as f:
        f.write(bytes(blob))
    print("wrote %s: %d bytes (%d pages, pool %d) from MariaDB %s and DUCET 9.0.0"
          % (args.out, len(blob), len(b.pages), len(b.pool), version), file=sys.stderr)


if __name__ == "__main__":
    main()
