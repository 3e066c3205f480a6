"""A plain reference implementation of the UCA primary level from a DUCET
`allkeys-X.Y.Z.txt` file (Unicode's data, as shipped by the `pyuca` package
on PyPI), written from UTS #10 and independent of the Rust code:

  * each code point or contiguous contraction listed in the file maps to its
    collation elements; only the primary weights matter here (the `_ai_ci`
    collations compare at the primary level), `*` (variable) elements count
    as non-ignorable, as in MySQL's collations;
  * Hangul syllables (not listed in DUCET) decompose into their conjoining
    jamo (UTS #10, section 7.1.5 / Unicode chapter 3.12);
  * everything else gets implicit weights (UTS #10, section 10.1.3): ranges
    given by `@implicitweights` lines (Tangut in 9.0.0), core Han
    (Unified_Ideograph in the CJK Unified / Compatibility Ideographs blocks)
    base FB40, other Unified_Ideograph base FB80, anything else FBC0;
    AAAA = base + (cp >> 15), BBBB = (cp & 0x7FFF) | 0x8000 (for the
    `@implicitweights` ranges, cp - range start and AAAA = base).

Used by gen_uca.py (the utf8mb4_0900_ai_ci table) and golden_0900.py
(expected sort keys computed independently of the crate).
"""

import glob
import os
import re


def pyuca_dir():
    import pyuca
    return os.path.dirname(pyuca.__file__)


def allkeys_path(version):
    return os.path.join(pyuca_dir(), "allkeys-%s.txt" % version)


# Unified_Ideograph ranges of Unicode 9.0.0 (PropList-9.0.0.txt).
UNIFIED_IDEOGRAPH_9 = [
    (0x3400, 0x4DB5), (0x4E00, 0x9FD5), (0xFA0E, 0xFA0F), (0xFA11, 0xFA11), (0xFA13, 0xFA14),
    (0xFA1F, 0xFA1F), (0xFA21, 0xFA21), (0xFA23, 0xFA24), (0xFA27, 0xFA29), (0x20000, 0x2A6D6),
    (0x2A700, 0x2B734), (0x2B740, 0x2B81D), (0x2B820, 0x2CEA1),
]


class Ducet:
    def __init__(self, version, unified_ideograph=UNIFIED_IDEOGRAPH_9):
        self.version = version
        self.single = {}        # cp -> [primary weights]
        self.contractions = {}  # tuple of cps (len >= 2) -> [primary weights]
        self.implicit_ranges = []  # (lo, hi, base)
        self.unified = unified_ideograph
        line_re = re.compile(r"^([0-9A-F ]+);\s*((?:\[[.*][0-9A-F.]+\])+)")
        with open(allkeys_path(version)) as f:
            for line in f:
                if line.startswith("@implicitweights"):
                    m = re.match(r"@implicitweights\s+([0-9A-F]+)\.\.([0-9A-F]+);\s*([0-9A-F]+)", line)
                    self.implicit_ranges.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
                    continue
                m = line_re.match(line)
                if not m:
                    continue
                cps = tuple(int(x, 16) for x in m.group(1).split())
                prim = []
                for ce in re.findall(r"\[[.*]([0-9A-F.]+)\]", m.group(2)):
                    p = int(ce.split(".")[0], 16)
                    if p:
                        prim.append(p)
                if len(cps) == 1:
                    self.single[cps[0]] = prim
                else:
                    self.contractions[cps] = prim
        self.max_contraction = max((len(c) for c in self.contractions), default=1)
        self.starters = {c[0] for c in self.contractions}

    def implicit(self, cp):
        for lo, hi, base in self.implicit_ranges:
            if lo <= cp <= hi:
                return [base, ((cp - lo) & 0x7FFF) | 0x8000]
        base = 0xFBC0
        for lo, hi in self.unified:
            if lo <= cp <= hi:
                core = 0x4E00 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF
                base = 0xFB40 if core else 0xFB80
                break
        return [base + (cp >> 15), (cp & 0x7FFF) | 0x8000]

    def hangul(self, cp):
        """Jamo of a Hangul syllable, or None."""
        s = cp - 0xAC00
        if not 0 <= s < 11172:
            return None
        l, v, t = 0x1100 + s // 588, 0x1161 + (s % 588) // 28, 0x11A7 + s % 28
        return [l, v] + ([t] if t != 0x11A7 else [])

    def char_weights(self, cp):
        """Primary weights of one code point on its own."""
        if cp in self.single:
            return list(self.single[cp])
        jamo = self.hangul(cp)
        if jamo is not None:
            out = []
            for j in jamo:
                out += self.char_weights(j)
            return out
        return self.implicit(cp)

    def primaries(self, cps):
        """Primary weights of a sequence of code points: longest contiguous
        contraction first, else the single character."""
        out = []
        i = 0
        while i < len(cps):
            if cps[i] in self.starters:
                for n in range(min(self.max_contraction, len(cps) - i), 1, -1):
                    w = self.contractions.get(tuple(cps[i:i + n]))
                    if w is not None:
                        out += w
                        i += n
                        break
                else:
                    out += self.char_weights(cps[i])
                    i += 1
            else:
                out += self.char_weights(cps[i])
                i += 1
        return out


def available_versions():
    return sorted(re.search(r"allkeys-(.*)\.txt", p).group(1) for p in glob.glob(os.path.join(pyuca_dir(), "allkeys-*.txt")))
