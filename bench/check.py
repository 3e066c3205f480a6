#!/usr/bin/env python3
"""Benchmark: `quiver check` against the speed of light, on a TPC-H SF1 database.

With a warm page cache, in one run:

  * quiver --threads T check --db DIR      (T threads, each reading units of whole
                                           pages of about 4 MiB in file order and
                                           verifying them in place)
  * the same with 16 MiB units, for reference
  * speed of light = the slower of
      (a) a plain sequential read of the same data files into one 8 MiB buffer
          (one thread), and
      (b) CRC-32C over the same bytes in memory, split over T threads
    (crates/quiver-storage/examples/check_speed_of_light.rs)

Each is run --runs times (rotating the order each round); runs wait for the
1-minute load average to drop below --max-load (the 2 cores are shared), up to
--wait seconds. The medians, the ratio and the machine's state are written to
bench/results/check.csv, bench/results/check.png and appended to
bench/results/check.md.

Data (once, kept under bench/data/, which git ignores):
  quiver tpch gen --sf SF --db bench/data/check-sf<SF>

Usage: python3 bench/check.py [--runs 15] [--threads 2] [--sf 1]
"""

from __future__ import annotations

import argparse
import csv
import datetime
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PY = os.path.join(REPO, "bench", ".venv", "bin", "python")
RESULTS = os.path.join(REPO, "bench", "results")
QUIVER = os.path.join(REPO, "target", "release", "quiver")
SOL = os.path.join(REPO, "target", "release", "examples", "check_speed_of_light")

MD_HEADER = """# `quiver check` benchmark

Made by `bench/check.py` (one section per run, newest last). The database is
TPC-H SF1 made by `quiver tpch gen --sf 1` (format 2, docs/STORAGE.md), all
eight tables, read with a warm page cache. Times are wall-clock medians of the
whole command, including process start-up.

- *speed of light*: the slower of a plain sequential `read` of the same data
  files into one page-aligned 8 MiB buffer (one thread) and CRC-32C of the same
  bytes already in memory, split over the same number of threads
  (`crates/quiver-storage/examples/check_speed_of_light.rs`).
- *quiver_check*: the default shape — every thread reads units of whole pages
  of about 4 MiB, claimed in file order, and verifies them while they are in its
  cache (CRC-32C of each page plus its header against the directory).
- *quiver_check_16mib*: the same with 16 MiB units.
- *quiver_check_io_thread_8mib*: one I/O thread reading 8 MiB units in file
  order into a pool of buffers, handing them to T worker threads (the shape of
  seed 002's rewrite), kept for comparison.

Quiver can beat the single-threaded plain read because its threads copy in
parallel. The machine has 2 cores shared with other engineers' builds; runs
wait for a quiet moment and the load averages are recorded.
"""


def timed(cmd) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t, r


def loadavg() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def wait_quiet(max_load: float, wait: float) -> None:
    end = time.time() + wait
    while time.time() < end and float(loadavg().split()[0]) > max_load:
        time.sleep(2)


def data_files(db: str) -> list[str]:
    files = []
    for meta in sorted(glob.glob(os.path.join(db, "tables", "*", "table.meta"))):
        lines = open(meta).read().splitlines()
        data = next((l.split(" ", 1)[1] for l in lines if l.startswith("data ")), None)
        assert data, f"{meta} is not a format 2 manifest: reload the database"
        files.append(os.path.join(os.path.dirname(meta), data))
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sf", default="1")
    ap.add_argument("--max-load", type=float, default=0.7)
    ap.add_argument("--wait", type=float, default=60)
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if os.path.exists(VENV_PY) and os.path.realpath(sys.executable) != os.path.realpath(VENV_PY):
        os.execv(VENV_PY, [VENV_PY] + sys.argv)

    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "quiver-cli"], cwd=REPO, check=True)
        subprocess.run(["cargo", "build", "--release", "-p", "quiver-storage", "--example",
                        "check_speed_of_light"], cwd=REPO, check=True)
    db = os.path.join(REPO, "bench", "data", f"check-sf{args.sf}")
    if not os.path.exists(os.path.join(db, "tables", "lineitem", "table.meta")) or \
            not open(os.path.join(db, "tables", "lineitem", "table.meta")).read().startswith("quiver-table 2"):
        subprocess.run([QUIVER, "tpch", "gen", "--sf", args.sf, "--db", db], check=True)
    files = data_files(db)
    size = sum(os.path.getsize(f) for f in files)

    r = subprocess.run([QUIVER, "check", "--db", db], capture_output=True, text=True)
    assert r.returncode == 0, f"the database must be sound before timing: {r.stderr}"
    for f in files:  # warm the page cache
        with open(f, "rb") as fh:
            while fh.read(64 << 20):
                pass

    t = str(args.threads)
    tools = {
        "quiver_check": [QUIVER, "--threads", t, "check", "--db", db],
        "quiver_check_16mib": [QUIVER, "--threads", t, "check", "--db", db, "--chunk", "16M"],
        "quiver_check_io_thread_8mib": [QUIVER, "--threads", t, "check", "--db", db, "--io-thread",
                                        "--chunk", "8M"],
        "sol_read": [SOL, "read"] + files + ["--buf-mib", "8"],
        "sol_crc": [SOL, "crc"] + files + ["--threads", t],
    }
    rows = []
    load_before = loadavg()
    for run in range(args.runs):
        wait_quiet(args.max_load, args.wait)
        names = list(tools)
        names = names[run % len(names):] + names[:run % len(names)]
        for name in names:
            wall, r = timed(tools[name])
            if r.returncode != 0:
                raise SystemExit(f"{name} failed: {r.stderr}")
            secs = json.loads(r.stdout)["seconds"] if name.startswith("sol_") else wall
            rows.append({"run": run + 1, "tool": name, "seconds": round(secs, 4),
                         "gb_per_s": round(size / secs / 1e9, 3), "loadavg": loadavg()})
            print(f"run {run + 1} {name:20} {secs:7.3f} s  {size / secs / 1e9:6.2f} GB/s  load {loadavg()}",
                  flush=True)
    load_after = loadavg()

    med = {n: statistics.median(r["seconds"] for r in rows if r["tool"] == n) for n in tools}
    sol = max(med["sol_read"], med["sol_crc"])
    vs_sol = med["quiver_check"] / sol
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "check.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["run", "tool", "seconds", "gb_per_s", "loadavg"])
        w.writeheader()
        w.writerows(rows)
        for n in tools:
            w.writerow({"run": "median", "tool": n, "seconds": round(med[n], 4),
                        "gb_per_s": round(size / med[n] / 1e9, 3), "loadavg": ""})
        w.writerow({"run": "median", "tool": "speed_of_light", "seconds": round(sol, 4),
                    "gb_per_s": round(size / sol / 1e9, 3), "loadavg": ""})

    chart(med, sol, size, args, vs_sol)

    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((l.split(":", 1)[1].strip() for l in open("/proc/meminfo") if l.startswith("MemTotal")), "?")
    loads = [float(r["loadavg"].split()[0]) for r in rows]
    noisy = max(loads + [float(load_before.split()[0])]) > 0.5 * os.cpu_count()
    md = [
        f"\n## {datetime.datetime.now().isoformat(timespec='seconds')} — TPC-H SF{args.sf}, "
        f"{len(files)} data files, {size / 1e9:.3f} GB, {args.threads} threads, {args.runs} runs (median)\n",
        f"- machine: {cpu}, {os.cpu_count()} cores, {mem} RAM, {platform.platform()}",
        f"- quiver git {rev}; warm page cache",
        f"- load average before / after: {load_before} / {load_after}; 1-minute load during runs "
        f"{min(loads):.2f}..{max(loads):.2f}"
        + (" — **noisy: the 2 cores were shared with other work**" if noisy else ""),
        "",
        "| | median s | GB/s |",
        "|---|---:|---:|",
    ]
    for n in tools:
        md.append(f"| {n} | {med[n]:.4f} | {size / med[n] / 1e9:.2f} |")
    md.append(f"| speed of light (slower of read, crc) | {sol:.4f} | {size / sol / 1e9:.2f} |")
    md += [
        "",
        f"- `quiver check` takes **{vs_sol:.2f}x** the speed-of-light time, {100 * (vs_sol - 1):+.1f}% "
        f"(target within +10%).",
        "",
    ]
    md_path = os.path.join(RESULTS, "check.md")
    if not os.path.exists(md_path):
        with open(md_path, "w") as f:
            f.write(MD_HEADER)
    with open(md_path, "a") as f:
        f.write("\n".join(md))
    print("\n".join(md))


def chart(med, sol, size, args, vs_sol):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no chart")
        return
    labels = [f"quiver check\n({args.threads} threads, 4 MiB)", "quiver check\n16 MiB units",
              f"quiver check, 1 I/O\nthread + {args.threads} workers", "plain read\n(8 MiB buffer)",
              f"CRC-32C in memory\n({args.threads} threads)"]
    keys = ["quiver_check", "quiver_check_16mib", "quiver_check_io_thread_8mib", "sol_read", "sol_crc"]
    vals = [size / med[k] / 1e9 for k in keys]
    fig, ax = plt.subplots(figsize=(9.5, 4.8))
    bars = ax.bar(labels, vals, color=["#1f77b4", "#aec7e8", "#c6dbef", "#2ca02c", "#98df8a"])
    ax.axhline(size / sol / 1e9, color="red", linestyle="--", linewidth=1,
               label=f"speed of light {size / sol / 1e9:.2f} GB/s")
    for b, v in zip(bars, vals):
        ax.text(b.get_x() + b.get_width() / 2, v, f"{v:.2f}", ha="center", va="bottom")
    ax.set_ylabel("GB/s (median, warm page cache)")
    ax.set_title(f"quiver check on TPC-H SF{args.sf} ({size / 1e9:.2f} GB): "
                 f"{vs_sol:.2f}x the speed-of-light time", fontsize=10)
    ax.set_ylim(0, max(vals) * 1.25)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "check.png"), dpi=110)


if __name__ == "__main__":
    main()
