#!/usr/bin/env python3
"""Record MariaDB innochecksum's verdicts on the damage cases of tests/innodb/cases.txt.

For every case: decompress tests/innodb/fixtures/<fixture>.gz, apply the damage
recipe (the same deterministic steps as crates/quiver-innodb/src/damage.rs),
write it as <case>.ibd into a scratch directory, run MariaDB's `innochecksum
<options> <case>.ibd` there (a relative name, so `-S` prints `File::<case>.ibd`)
and write tests/innodb/golden/<case>.txt:

    # innochecksum <options> <case>.ibd    (MariaDB version)
    exit <status>            (or: exit crash <signal>)
    fail <page>              one line per "Fail: page::N invalid"
    count <n>                "Number of pages:n" (-c)
    error <text>             each "Error..." line
    --- stdout
    <stdout verbatim>
    --- stderr
    <stderr verbatim>

Usage: python3 scripts/innodb/make_goldens.py [--check]
  --check: do not write; exit 1 if any golden file would change.
Needs /usr/bin/innochecksum (MariaDB 10.11); no server.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import innodb_page as ip  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = os.path.join(REPO, "tests", "innodb", "cases.txt")
FIX = os.path.join(REPO, "tests", "innodb", "fixtures")
GOLDEN = os.path.join(REPO, "tests", "innodb", "golden")


def num(s: str) -> int:
    return int(s, 16) if s.startswith("0x") else int(s)


def apply(data: bytearray, recipe: str) -> bytearray:
    if recipe in ("", "-"):
        return data
    lay = ip.layout_of(data)
    ps = lay.physical

    def page(p):
        if (p + 1) * ps > len(data):
            raise SystemExit(f"page {p} outside the file in recipe {recipe}")
        return slice(p * ps, (p + 1) * ps)

    def at(off):
        return ps + off if off < 0 else off

    for step in recipe.split(","):
        a = step.split(":")
        op = a[0]
        if op == "xor":
            s = page(num(a[1]))
            data[s.start + at(num(a[2]))] ^= int(a[3], 16)
        elif op == "set32":
            s = page(num(a[1]))
            o = s.start + at(num(a[2]))
            data[o:o + 4] = (num(a[3]) & 0xFFFFFFFF).to_bytes(4, "big")
        elif op == "restamp":
            s = page(num(a[1]))
            pg = bytearray(data[s])
            ip.restamp(pg, lay, a[2] if len(a) > 2 else "auto")
            data[s] = pg
        elif op == "zero":
            s = page(num(a[1]))
            data[s] = bytes(ps)
        elif op == "garbage":
            s = page(num(a[1]))
            x = num(a[2])
            out = bytearray(ps)
            for i in range(ps):
                x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
                out[i] = x >> 24
            data[s] = out
        elif op == "copy":
            src, dst = page(num(a[1])), page(num(a[2]))
            data[dst] = bytes(data[src])
        elif op == "truncate":
            del data[num(a[1]):]
        elif op in ("xdesfree", "xdesfree_at"):
            if op == "xdesfree":
                x, p, free = 0, num(a[1]), num(a[2])
            else:
                x, p, free = num(a[1]), num(a[2]), num(a[3])
            s = page(x)
            within = p % ps
            ext = 1048576 // lay.logical if lay.logical <= 16384 else 64
            xs = 24 + (ext * 2 + 7) // 8
            o = s.start + 150 + xs * (within // ext) + 24 + ((within % ext) * 2) // 8
            bit = ((within % ext) * 2) % 8
            if free:
                data[o] |= 1 << bit
            else:
                data[o] &= ~(1 << bit) & 0xFF
            pg = bytearray(data[s])
            ip.restamp(pg, lay)
            data[s] = pg
        elif op == "extend":
            want = num(a[1]) * ps
            if want > len(data):
                data.extend(bytes(want - len(data)))
        else:
            raise SystemExit(f"unknown step {step}")
    return data


def parse_cases():
    for line in open(CASES):
        line = line.split("#")[0].strip()
        if not line:
            continue
        w = line.split()
        yield w[0], w[1], w[2], w[3:]


def golden_text(name, args, version, rc, out, err):
    lines = [f"# innochecksum {' '.join(args + [name + '.ibd'])}    ({version})"]
    lines.append(f"exit crash {-rc}" if rc < 0 else f"exit {rc}")
    text = out + err
    for m in re.finditer(r"^Fail: page::(\d+) invalid", text, re.M):
        lines.append(f"fail {m.group(1)}")
    for m in re.finditer(r"^Number of pages:(\d+)", text, re.M):
        lines.append(f"count {m.group(1)}")
    for m in re.finditer(r"^(Error.*)$", err, re.M):
        lines.append(f"error {m.group(1)}")
    if "All are zero-filled pages." in err:
        lines.append("all_zero")
    lines.append("--- stdout")
    body = "\n".join(lines) + "\n" + out
    if not out.endswith("\n") and out:
        body += "\n"
    body += "--- stderr\n" + err
    if err and not err.endswith("\n"):
        body += "\n"
    return body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    version = subprocess.run(["innochecksum", "-V"], capture_output=True, text=True).stdout.strip()
    os.makedirs(GOLDEN, exist_ok=True)
    cache = {}
    changed = 0
    wanted = set()
    with tempfile.TemporaryDirectory(prefix="quiver-innodb-golden-") as tmp:
        for name, fixture, recipe, opts in parse_cases():
            wanted.add(name + ".txt")
            if fixture not in cache:
                cache[fixture] = gzip.open(os.path.join(FIX, fixture + ".gz")).read()
            data = apply(bytearray(cache[fixture]), recipe)
            fname = name + ".ibd"
            with open(os.path.join(tmp, fname), "wb") as f:
                f.write(data)
            r = subprocess.run(["innochecksum", *opts, fname], cwd=tmp, capture_output=True)
            out = r.stdout.decode("utf-8", "replace")
            err = r.stderr.decode("utf-8", "replace")
            text = golden_text(name, opts, version, r.returncode, out, err)
            path = os.path.join(GOLDEN, name + ".txt")
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                changed += 1
                if not args.check:
                    with open(path, "w") as f:
                        f.write(text)
                print(("would change " if args.check else "wrote ") + path)
            os.unlink(os.path.join(tmp, fname))
    stale = [f for f in os.listdir(GOLDEN) if f.endswith(".txt") and f not in wanted]
    for f in stale:
        print(f"stale golden (no case): {f}")
    print(f"{len(wanted)} cases, {changed} changed")
    if args.check and (changed or stale):
        sys.exit(1)


if __name__ == "__main__":
    main()
