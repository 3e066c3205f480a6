#!/usr/bin/env python3
"""Before/after: two Quiver binaries on the same TPC-H database, interleaved.

    python bench/ab.py --base /tmp/quiver-old --new target/release/quiver --sf 1 --rounds 5

Each round runs `quiver tpch run --runs N` with the base binary, then with the
new one (the order alternates by round), so that a slow spell of the machine
falls on both. Per query it reports the median over rounds of each binary's
hot median, and the median of the per-round ratios new / base; at the end the
geometric mean of those ratios. Prints a table, or `--format csv`.

The database is bench/data/sf<SF>/quiver-db, made by `bench/tpch.py --sf SF`.
This is for a change's own check (a refactor that should cost nothing); the
comparison with the peers is bench/tpch.py.
"""
import argparse
import csv
import io
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(binary, db, threads, runs, queries):
    env = dict(os.environ, QUIVER_THREADS=str(threads))
    cmd = [str(binary), "tpch", "run", "--db", str(db), "--runs", str(runs),
           "--threads", str(threads), "--format", "csv"]
    if queries:
        cmd += ["--queries", queries]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip() == "query,rows,median_s")
    return {r["query"].strip(): float(r["median_s"]) for r in csv.DictReader(lines[start:])}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", type=Path, required=True, help="the binary before the change")
    p.add_argument("--new", type=Path, default=ROOT / "target" / "release" / "quiver")
    p.add_argument("--sf", type=float, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=3, help="timed runs per query per round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--queries", default="", help="e.g. 1,3,18 (default: all)")
    p.add_argument("--format", choices=["table", "csv"], default="table")
    args = p.parse_args()
    db = ROOT / "bench" / "data" / f"sf{args.sf:g}" / "quiver-db"
    if not db.exists():
        sys.exit(f"{db} does not exist: run bench/tpch.py --sf {args.sf:g} first")
    times = {"base": [], "new": []}
    for r in range(args.rounds):
        order = ["base", "new"] if r % 2 == 0 else ["new", "base"]
        for which in order:
            binary = args.base if which == "base" else args.new
            times[which].append(run(binary, db, args.threads, args.runs, args.queries))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    rows = []
    for q in times["base"][0]:
        base = [t[q] for t in times["base"]]
        new = [t[q] for t in times["new"]]
        ratios = [n / b for n, b in zip(new, base) if b > 0]
        ratio = statistics.median(ratios) if ratios else float("nan")
        rows.append((q, statistics.median(base), statistics.median(new), ratio))
    finite = [r[3] for r in rows if r[3] > 0 and math.isfinite(r[3])]
    geomean = math.exp(sum(map(math.log, finite)) / len(finite)) if finite else float("nan")
    if args.format == "csv":
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["query", "base_s", "new_s", "new_over_base"])
        for q, b, n, r in rows:
            w.writerow([q, f"{b:.5f}", f"{n:.5f}", f"{r:.3f}"])
        w.writerow(["geomean", "", "", f"{geomean:.3f}"])
        print(out.getvalue(), end="")
        return
    print(f"{'query':<8}{'base s':>10}{'new s':>10}{'new/base':>10}")
    for q, b, n, r in rows:
        print(f"{q:<8}{b:>10.4f}{n:>10.4f}{r:>9.3f}x")
    print(f"{'geomean':<28}{geomean:>9.3f}x")


if __name__ == "__main__":
    main()
