#!/usr/bin/env python3
"""Generate the collation tables of crates/quiver-collation from MariaDB's answers.

Everything in the generated file comes from a running MariaDB server (the
oracle of /work/shared/oracle), never from MariaDB source code:

  * the registry: id, charset and IS_DEFAULT of each collation the crate
    implements (information_schema.COLLATIONS, or for uca1400
    COLLATION_CHARACTER_SET_APPLICABILITY), the `utf8_*` alias names (as
    the server maps them, checked with COLLATION()), and the pad attribute
    (checked with 'a' = 'a '); the MySQL-only utf8mb4_0900_* rows with
    MySQL 8's ids (the UCA weight tables come from gen_uca.py);
  * utf8 general_ci weights: HEX(WEIGHT_STRING(_utf8mb4 X'..' COLLATE ...))
    for every code point U+0000..U+FFFF (surrogates included: MariaDB's utf8
    accepts ED A0 80 .. ED BF BF), and a check that every supplementary
    character weighs as U+FFFD;
  * UPPER/LOWER of every code point, per collation (verified identical for
    the families that share a table);
  * the 8-bit collations (latin1, ascii): the weight and UPPER/LOWER of
    every byte.

Usage: scripts/collation/gen_tables.py [--out PATH]
(default crates/quiver-collation/src/generated.rs). Takes a few minutes.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

oracle.ensure_pymysql(__file__)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The collations of part 1 (the crate's CollationKind decides how each works).
COLLATIONS = [
    "binary",
    "utf8mb4_bin", "utf8mb4_nopad_bin", "utf8mb4_general_ci", "utf8mb4_general_nopad_ci",
    "utf8mb3_bin", "utf8mb3_nopad_bin", "utf8mb3_general_ci", "utf8mb3_general_nopad_ci",
    "latin1_swedish_ci", "latin1_swedish_nopad_ci", "latin1_bin", "latin1_nopad_bin",
    "ascii_general_ci", "ascii_general_nopad_ci", "ascii_bin", "ascii_nopad_bin",
]
# The UCA collations of part 2: registry rows only (their tables come from
# gen_uca.py). MariaDB lists uca1400 only in
# information_schema.COLLATION_CHARACTER_SET_APPLICABILITY.
UCA_COLLATIONS = [
    "utf8mb4_unicode_ci", "utf8mb4_unicode_520_ci", "utf8mb4_uca1400_ai_ci",
    "utf8mb3_unicode_ci", "utf8mb3_unicode_520_ci",
    # their NO PAD forms, and uca1400 for utf8mb3
    "utf8mb4_unicode_nopad_ci", "utf8mb4_unicode_520_nopad_ci", "utf8mb4_uca1400_nopad_ai_ci",
    "utf8mb3_unicode_nopad_ci", "utf8mb3_unicode_520_nopad_ci", "utf8mb3_uca1400_ai_ci",
    "utf8mb3_uca1400_nopad_ai_ci",
]
# MySQL 8 collations MariaDB 10.11 lacks: (id, charset, pad) as MySQL 8.0's
# SHOW COLLATION lists them (utf8mb4_0900_ai_ci is 255, NO PAD; the NO PAD
# utf8mb4_0900_bin of MySQL 8.0.17, WL#13054, is 309).
MYSQL_COLLATIONS = [
    ("utf8mb4_0900_ai_ci", 255, "utf8mb4"),
    ("utf8mb4_0900_bin", 309, "utf8mb4"),
]
UTF8_COLLATIONS = [c for c in COLLATIONS if c.startswith("utf8")]
BYTE_COLLATIONS = [c for c in COLLATIONS if c.startswith(("latin1", "ascii"))]


def one(cur, sql):
    cur.execute(sql)
    return cur.fetchone()


def fetch_registry(cur):
    rows = []
    for name in COLLATIONS:
        cur.execute("SELECT ID, CHARACTER_SET_NAME, IS_DEFAULT FROM information_schema.COLLATIONS "
                    "WHERE COLLATION_NAME = %s", (name,))
        r = cur.fetchall()
        assert len(r) == 1, (name, r)
        cid, cs, dflt = r[0]
        pad = one(cur, "SELECT _%s 'a' COLLATE `%s` = _%s 'a '" % (cs, name, cs))[0]
        assert bool(pad) == ("nopad" not in name and name != "binary"), (name, pad)
        rows.append((name, int(cid), cs, dflt == "Yes", bool(pad)))
    for name in UCA_COLLATIONS:
        cur.execute("SELECT ID, CHARACTER_SET_NAME, IS_DEFAULT FROM "
                    "information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE FULL_COLLATION_NAME = %s",
                    (name,))
        r = cur.fetchall()
        assert len(r) == 1, (name, r)
        cid, cs, dflt = r[0]
        pad = one(cur, "SELECT _%s 'a' COLLATE `%s` = _%s 'a '" % (cs, name, cs))[0]
        assert bool(pad) == ("nopad" not in name), (name, pad)
        rows.append((name, int(cid), cs, dflt == "Yes", bool(pad)))
    for name, cid, cs in MYSQL_COLLATIONS:
        rows.append((name, cid, cs, False, False))
    aliases = []
    for name in COLLATIONS + UCA_COLLATIONS:
        if name.startswith("utf8mb3_"):
            alias = "utf8_" + name[len("utf8mb3_"):]
            got = one(cur, "SELECT COLLATION(CONVERT('a' USING utf8) COLLATE %s)" % alias)[0]
            assert got == name, (alias, got)
            aliases.append((alias, name))
    assert one(cur, "SELECT COLLATION(CONVERT('a' USING utf8))")[0] == "utf8mb3_general_ci"
    return rows, aliases


def utf8(cp):
    """UTF-8 bytes of a code point, surrogates encoded like any other 3-byte
    value (MariaDB's utf8 accepts them)."""
    if cp < 0x80:
        return bytes([cp])
    if cp < 0x800:
        return bytes([0xC0 | cp >> 6, 0x80 | cp & 0x3F])
    if cp < 0x10000:
        return bytes([0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])
    return bytes([0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])


def decode_one(hexstr):
    """The single code point of a UTF-8 hex answer (asserts it is exactly one)."""
    b = bytes.fromhex(hexstr)
    s = b.decode("utf-8", errors="surrogatepass")
    assert len(s) == 1, (hexstr, s)
    return ord(s)


def fetch_utf8_page(cur, coll, page):
    cs = coll.split("_")[0]
    cols = []
    for lo in range(256):
        x = oracle.hexlit(utf8(page << 8 | lo), cs).decode()
        cols.append("HEX(WEIGHT_STRING(%s COLLATE %s)), HEX(UPPER(%s COLLATE %s)), HEX(LOWER(%s COLLATE %s))"
                    % (x, coll, x, coll, x, coll))
    r = one(cur, "SELECT " + ", ".join(cols))
    weights, upper, lower = [], [], []
    for lo in range(256):
        w, u, l = r[3 * lo:3 * lo + 3]
        weights.append(w)
        upper.append(decode_one(u))
        lower.append(decode_one(l))
    return weights, upper, lower


def check_supplementary(cur, coll):
    """Every supplementary character: general_ci weight U+FFFD, bin weight the
    code point (3 bytes), UPPER/LOWER identity. Checked 4096 characters per
    query; returns the list of code points whose case mapping is not identity."""
    changed = []
    step = 4096
    for start in range(0x10000, 0x110000, step):
        s = b"".join(utf8(cp) for cp in range(start, start + step))
        x = oracle.hexlit(s, "utf8mb4").decode()
        w, up, lo = one(cur, "SELECT HEX(WEIGHT_STRING(%s COLLATE %s)), HEX(UPPER(%s COLLATE %s)) = HEX(%s), "
                        "HEX(LOWER(%s COLLATE %s)) = HEX(%s)" % (x, coll, x, coll, x, x, coll, x))
        if "general" in coll:
            assert w == "FFFD" * step, (coll, hex(start))
        else:
            assert w == "".join("%06X" % cp for cp in range(start, start + step)), (coll, hex(start))
        if not (up and lo):
            changed.append(start)
    return changed


def fetch_byte_tables(cur, coll):
    cs = coll.split("_")[0]
    cols = []
    for b in range(256):
        x = oracle.hexlit(bytes([b]), cs).decode()
        cols.append("HEX(WEIGHT_STRING(%s COLLATE %s)), HEX(UPPER(%s COLLATE %s)), HEX(LOWER(%s COLLATE %s))"
                    % (x, coll, x, coll, x, coll))
    r = one(cur, "SELECT " + ", ".join(cols))
    w, u, l = [], [], []
    for b in range(256):
        ws, us, ls = r[3 * b:3 * b + 3]
        w.append(int(ws, 16)); u.append(int(us, 16)); l.append(int(ls, 16))
        assert len(ws) == len(us) == len(ls) == 2
    return w, u, l


def rust_u16_pages(name, table, doc):
    """A two-level table over U+0000..U+FFFF: pages equal to the identity are
    None (the lookup returns the code point itself)."""
    out = ["/// %s" % doc, "/// Pages that map every code point to itself are `None`.",
           "pub static %s: [Option<&[u16; 256]>; 256] = [" % name]
    pages = []
    for p in range(256):
        vals = table[p * 256:(p + 1) * 256]
        if all(v == p * 256 + i for i, v in enumerate(vals)):
            out.append("    None,")
        else:
            out.append("    Some(&%s_PAGE_%02X)," % (name, p))
            pages.append((p, vals))
    out.append("];")
    for p, vals in pages:
        out.append("static %s_PAGE_%02X: [u16; 256] = [" % (name, p))
        for i in range(0, 256, 16):
            out.append("    " + " ".join("0x%04X," % v for v in vals[i:i + 16]))
        out.append("];")
    return "\n".join(out), len(pages)


def rust_u8_table(name, vals, doc):
    out = ["/// %s" % doc, "pub static %s: [u8; 256] = [" % name]
    for i in range(0, 256, 16):
        out.append("    " + " ".join("0x%02X," % v for v in vals[i:i + 16]))
    out.append("];")
    return "\n".join(out)


def camel(name):
    """`utf8mb4_general_nopad_ci` -> `Utf8mb4GeneralNopadCi` (the Rust enum variant)."""
    return "".join(w[:1].upper() + w[1:] for w in name.split("_"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "crates/quiver-collation/src/generated.rs"))
    args = ap.parse_args()

    conn = oracle.connect()
    cur = conn.cursor()
    version = oracle.server_version(conn)
    registry, aliases = fetch_registry(cur)

    # utf8: weights and case per collation over the BMP.
    per_coll = {}
    for coll in UTF8_COLLATIONS:
        weights, upper, lower = [], [], []
        for page in range(256):
            w, u, l = fetch_utf8_page(cur, coll, page)
            weights += w; upper += u; lower += l
        per_coll[coll] = (weights, upper, lower)
        print("fetched", coll, file=sys.stderr)

    # general_ci: one 16-bit weight per BMP code point, the same for all four.
    general = [c for c in UTF8_COLLATIONS if "general" in c]
    gw = per_coll[general[0]][0]
    for c in general:
        assert per_coll[c][0] == gw, c
    assert all(len(w) == 4 for w in gw)
    general_weights = [int(w, 16) for w in gw]
    # bin: the weight is the code point, in 3 bytes (utf8mb4) or 2 (utf8mb3).
    for c in UTF8_COLLATIONS:
        if "bin" in c:
            fmt = "%06X" if c.startswith("utf8mb4") else "%04X"
            assert per_coll[c][0] == [fmt % cp for cp in range(0x10000)], c

    # Case mapping: the same table for every utf8 collation of part 1.
    up0, lo0 = per_coll[UTF8_COLLATIONS[0]][1:]
    for c in UTF8_COLLATIONS:
        assert per_coll[c][1] == up0 and per_coll[c][2] == lo0, c
    assert all(v < 0x10000 for v in up0 + lo0)

    for coll in ["utf8mb4_general_ci", "utf8mb4_bin"]:
        changed = check_supplementary(cur, coll)
        assert not changed, (coll, [hex(x) for x in changed])

    # 8-bit collations.
    byte_tables = {c: fetch_byte_tables(cur, c) for c in BYTE_COLLATIONS}
    for c in BYTE_COLLATIONS:
        w = byte_tables[c][0]
        if "bin" in c:
            assert w == list(range(256)), c
    for cs in ["latin1", "ascii"]:
        fam = [c for c in BYTE_COLLATIONS if c.startswith(cs)]
        for c in fam:
            assert byte_tables[c][1:] == byte_tables[fam[0]][1:], c
        ci = [c for c in fam if "_ci" in c]
        for c in ci:
            assert byte_tables[c][0] == byte_tables[ci[0]][0], c

    parts = [
        "// @generated by scripts/collation/gen_tables.py from the answers of MariaDB %s." % version,
        "// Do not edit: regenerate with the script.",
        "",
        "/// MariaDB version the tables were taken from.",
        "pub const MARIADB_VERSION: &str = \"%s\";" % version,
        "",
        "use crate::charset::Charset;",
        "use crate::info::{CollationInfo, CollationKind, Pad};",
        "",
        "/// Every collation of the crate, in `CollationKind` order, with MariaDB's",
        "/// id, charset and IS_DEFAULT (information_schema.COLLATIONS).",
        "pub static COLLATIONS: [CollationInfo; %d] = [" % len(registry),
    ]
    for name, cid, cs, dflt, pad in registry:
        parts += [
            "    CollationInfo {",
            "        id: %d," % cid,
            '        name: "%s",' % name,
            "        charset: Charset::%s," % camel(cs),
            "        pad: Pad::%s," % ("Space" if pad else "NoPad"),
            "        is_default: %s," % str(dflt).lower(),
            "        kind: CollationKind::%s," % camel(name),
            "    },",
        ]
    parts += ["];", "", "/// Alias names the server resolves to another collation (`utf8` = `utf8mb3`).",
              "pub static ALIASES: [(&str, &str); %d] = [" % len(aliases)]
    for a, n in aliases:
        parts.append('    ("%s", "%s"),' % (a, n))
    parts += ["];", ""]
    text, n = rust_u16_pages("GENERAL_CI_WEIGHTS", general_weights,
                             "utf8 general_ci: the 16-bit weight of each BMP code point (WEIGHT_STRING).")
    parts += [text, ""]
    text, n2 = rust_u16_pages("UTF8_UPPER", up0, "utf8 UPPER() of each BMP code point (supplementary: identity).")
    parts += [text, ""]
    text, n3 = rust_u16_pages("UTF8_LOWER", lo0, "utf8 LOWER() of each BMP code point (supplementary: identity).")
    parts += [text, ""]
    parts.append(rust_u8_table("LATIN1_SWEDISH_CI_WEIGHTS", byte_tables["latin1_swedish_ci"][0],
                               "latin1_swedish_ci: the weight of each byte."))
    parts.append(rust_u8_table("LATIN1_UPPER", byte_tables["latin1_bin"][1], "latin1 UPPER() of each byte."))
    parts.append(rust_u8_table("LATIN1_LOWER", byte_tables["latin1_bin"][2], "latin1 LOWER() of each byte."))
    parts.append(rust_u8_table("ASCII_GENERAL_CI_WEIGHTS", byte_tables["ascii_general_ci"][0],
                               "ascii_general_ci: the weight of each byte."))
    parts.append(rust_u8_table("ASCII_UPPER", byte_tables["ascii_bin"][1], "ascii UPPER() of each byte."))
    parts.append(rust_u8_table("ASCII_LOWER", byte_tables["ascii_bin"][2], "ascii LOWER() of each byte."))
    with open(args.out, "w") as f:
        f.write("\n".join(parts) + "\n")
    print("wrote %s (%d weight pages, %d upper, %d lower)" % (args.out, n, n2, n3), file=sys.stderr)


if __name__ == "__main__":
    main()
