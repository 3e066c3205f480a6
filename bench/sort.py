#!/usr/bin/env python3
"""Sorts, top-N and window functions at TPC-H scale: Quiver vs DuckDB, side by side.

    bench/.venv/bin/python bench/sort.py --sf 1 --threads 2 --runs 5

Queries over lineitem (6M rows at SF1): a full sort on one integer key, a
top-N with a large OFFSET (k = 5999001: the full-sort path) and a small one,
a full sort on a string key, a running SUM and a ROW_NUMBER over 10000
partitions. Quiver runs from its database folder (bench/data/sf<SF>/quiver-db,
as tpch.py makes it) with `quiver sql --runs N` (one warm-up, N timed runs in
one process, the result materialized but not printed); DuckDB from in-memory
tables of the same parquet files, the result fetched as Arrow. Hot medians,
the same thread count. Queries with a short answer are checked against
DuckDB's; full sorts by row count. Writes bench/results/sort_sf<SF>_<T>t.csv,
.png and .md (with the machine).
"""
import argparse
import csv
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"

# (name, SQL, whether the answer is short enough to compare value by value)
QUERIES = [
    ("sort_int", "SELECT l_extendedprice FROM lineitem ORDER BY l_suppkey", False),
    ("topn_offset", "SELECT l_suppkey, l_shipdate FROM lineitem ORDER BY l_suppkey, l_shipdate "
                    "LIMIT 1 OFFSET 5999000", True),
    ("topn_10", "SELECT l_orderkey, l_linenumber, l_extendedprice FROM lineitem "
                "ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber LIMIT 10", True),
    ("sort_string", "SELECT l_orderkey, l_linenumber FROM lineitem ORDER BY l_comment", False),
    ("window_sum", "SELECT MAX(s) FROM (SELECT SUM(l_extendedprice) OVER (PARTITION BY l_suppkey "
                   "ORDER BY l_shipdate) AS s FROM lineitem) x", True),
    ("window_row_number", "SELECT SUM(r) FROM (SELECT ROW_NUMBER() OVER (PARTITION BY l_suppkey "
                          "ORDER BY l_shipdate, l_orderkey, l_linenumber) AS r FROM lineitem) x", True),
]


def cell(v):
    """A value as comparable text: decimals without trailing zeros, dates as ISO."""
    if v is None:
        return "NULL"
    s = str(v)
    if "." in s and s.replace(".", "").replace("-", "").isdigit():
        s = s.rstrip("0").rstrip(".")
    return s


def run_quiver(args, tmp):
    """Medians and row counts from `quiver sql --runs`, then the short answers."""
    script = Path(tmp) / "sort.sql"
    script.write_text("".join(f"-- name: {name}\n{sql};\n" for name, sql, _ in QUERIES))
    base = [str(args.quiver_bin), "--db", str(args.quiver_db), "--threads", str(args.threads)]
    proc = subprocess.run(base + ["sql", "--runs", str(args.runs), "--format", "csv", "-f", str(script)],
                          capture_output=True, text=True, timeout=args.timeout)
    if proc.returncode != 0:
        sys.exit(f"quiver: {proc.stderr.strip()}")
    timing = {}
    for row in csv.DictReader(proc.stdout.splitlines()):
        timing[row["query"]] = (float(row["median_s"]), int(row["rows"]))
    answers = {}
    for name, sql, short in QUERIES:
        if short:
            out = subprocess.run(base + ["sql", "--format", "csv", f"--execute={sql}"],
                                 capture_output=True, text=True, timeout=args.timeout, check=True).stdout
            rows = list(csv.reader(out.splitlines()))[1:]
            answers[name] = [[cell(v if v != "NULL" else None) for v in r] for r in rows]
    return timing, answers


def run_duckdb(args):
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    con.execute(f"CREATE TABLE lineitem AS SELECT * FROM read_parquet('{args.data / 'lineitem.parquet'}')")
    timing, answers = {}, {}
    for name, sql, short in QUERIES:
        con.execute(sql).to_arrow_table()  # warm-up
        times, rows = [], 0
        for _ in range(args.runs):
            t0 = time.perf_counter()
            table = con.execute(sql).to_arrow_table()
            times.append(time.perf_counter() - t0)
            rows = table.num_rows
        timing[name] = (statistics.median(times), rows)
        if short:
            answers[name] = [[cell(v) for v in r] for r in con.execute(sql).fetchall()]
        print(f"  duckdb {name}: {timing[name][0]:.3f}s", flush=True)
    return timing, answers


def machine(args):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((l.split(":", 1)[1].strip() for l in open("/proc/meminfo") if l.startswith("MemTotal")), "?")
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True).stdout.strip()
    import duckdb
    return [
        f"- date: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
        f"- machine: {cpu}, {os.cpu_count()} cores, {mem} RAM, {platform.platform()}",
        f"- load average before / after: {args.load_before} / {Path('/proc/loadavg').read_text().split()[0]} "
        "(the cores are shared with other work: medians are noisy)",
        f"- quiver: {args.quiver_built}, git HEAD {git('rev-parse', '--short', 'HEAD')}",
        f"- duckdb {duckdb.__version__} (in-memory tables from parquet, results fetched as Arrow)",
        f"- run: sf={args.sf:g} threads={args.threads} runs={args.runs} (1 warm-up each), hot medians",
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--quiver-bin", type=Path, default=ROOT / "target" / "release" / "quiver")
    ap.add_argument("--quiver-db", type=Path, help="default: bench/data/sf<SF>/quiver-db")
    args = ap.parse_args()
    args.data = BENCH / "data" / f"sf{args.sf:g}"
    args.quiver_db = args.quiver_db or args.data / "quiver-db"
    if not (args.data / "lineitem.parquet").exists() or not args.quiver_db.exists():
        sys.exit(f"{args.data}: run bench/tpch.py --sf {args.sf:g} first (parquet files and quiver-db)")
    args.load_before = Path("/proc/loadavg").read_text().split()[0]
    with tempfile.TemporaryDirectory() as tmp:
        # A private copy, so that a rebuild during the run cannot mix two builds.
        copy = Path(tmp) / "quiver"
        shutil.copy2(args.quiver_bin, copy)
        args.quiver_built = f"{args.quiver_bin} built " + time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(args.quiver_bin.stat().st_mtime))
        args.quiver_bin = copy
        print("quiver ...", flush=True)
        q_time, q_ans = run_quiver(args, tmp)
    print("duckdb ...", flush=True)
    d_time, d_ans = run_duckdb(args)

    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / f"sort_sf{args.sf:g}_{args.threads}t"
    lines = []
    with open(f"{stem}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["query", "engine", "median_s", "rows", "status"])
        for name, _, short in QUERIES:
            qs, qr = q_time[name]
            ds, dr = d_time[name]
            ok = qr == dr and (not short or q_ans[name] == d_ans[name])
            status = "ok" if ok else "MISMATCH"
            w.writerow([name, "quiver", f"{qs:.6f}", qr, status])
            w.writerow([name, "duckdb", f"{ds:.6f}", dr, "reference"])
            lines.append(f"| {name} | {qs:.3f} | {ds:.3f} | {qs / ds:.2f}x | {status} |")
            if not ok:
                print(f"MISMATCH {name}: quiver {qr} rows {q_ans.get(name)} / duckdb {dr} rows {d_ans.get(name)}")
    md = ["# Sorts, top-N and windows: Quiver vs DuckDB", "", *machine(args), "",
          "| query | quiver s | duckdb s | quiver / duckdb | check |", "|---|---|---|---|---|", *lines, "",
          "Queries:", "", *[f"- `{name}`: `{sql}`" for name, sql, _ in QUERIES], ""]
    Path(f"{stem}.md").write_text("\n".join(md))
    print("\n".join(md))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [n for n, _, _ in QUERIES]
    x = range(len(names))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    ax.bar([i - 0.2 for i in x], [q_time[n][0] for n in names], 0.4, label="Quiver")
    ax.bar([i + 0.2 for i in x], [d_time[n][0] for n in names], 0.4, label="DuckDB")
    ax.set_xticks(list(x), names, rotation=15)
    ax.set_ylabel("hot median, seconds")
    ax.set_title(f"Sorts and windows, TPC-H SF{args.sf:g} lineitem, {args.threads} threads")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{stem}.png", dpi=120)
    print(f"wrote {stem}.csv, .md, .png")


if __name__ == "__main__":
    main()
