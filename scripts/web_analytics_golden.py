#!/usr/bin/env python3
"""Produce the web-analytics golden answers in tests/web_analytics/golden/ with DuckDB.

What it does:
  1. Runs under bench/.venv (bench/setup.sh), which pins DuckDB.
  2. Generates 100,000 rows of `hits` with Quiver's own generator
     (`quiver web gen --rows 100000 --parquet ...`; the data depends only on
     the row count), into a temporary directory.
  3. Loads the Parquet file into an in-memory DuckDB and runs every query of
     crates/quiver-clickstream/queries.sql as DuckDB spells it (`quiver web
     queries --engine duckdb`), writing golden/<name>.csv.

The Rust test crates/quiver-clickstream/tests/clickstream_answers.rs compares
Quiver's answers on the same rows with these files: numbers within rounding
of Quiver's printed scale, and, for queries marked `compare: folded`, strings
lowercased and right-trimmed (each engine shows its own member of a group of
equal strings under utf8mb4_general_ci).

Usage (from anywhere, after `cargo build --release`):
  python3 scripts/web_analytics_golden.py

CSV format: as scripts/tpch_golden.py writes it; DATETIME as 'YYYY-MM-DD hh:mm:ss'.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / "bench" / ".venv" / "bin" / "python"
QUIVER = ROOT / "target" / "release" / "quiver"
GOLDEN = ROOT / "tests" / "web_analytics" / "golden"
ROWS = 100_000
DUCKDB_VERSION = "2.0.0"

sys.path.insert(0, str(ROOT / "scripts"))
import tpch_golden  # noqa: E402  (fmt_value, write_csv)


def fmt(v):
    if isinstance(v, datetime.datetime):
        return v.isoformat(sep=" ")
    return tpch_golden.fmt_value(v)


def main():
    if VENV_PY.exists() and Path(sys.prefix).resolve() != VENV_PY.parent.parent.resolve():
        os.execv(str(VENV_PY), [str(VENV_PY), __file__, *sys.argv[1:]])
    import duckdb
    from importlib.metadata import version
    if version("duckdb") != DUCKDB_VERSION:
        sys.exit(f"duckdb {version('duckdb')} found, {DUCKDB_VERSION} pinned: run bench/setup.sh")
    if not QUIVER.exists():
        sys.exit(f"{QUIVER} is missing: cargo build --release")
    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        parquet = Path(tmp) / "hits.parquet"
        subprocess.run([str(QUIVER), "web", "gen", "--rows", str(ROWS), "--parquet", str(parquet)], check=True)
        con = duckdb.connect(":memory:")
        con.execute(f"CREATE TABLE hits AS SELECT * FROM read_parquet('{parquet}')")
        out = subprocess.run([str(QUIVER), "web", "queries", "--engine", "duckdb"], check=True,
                             capture_output=True, text=True).stdout
        queries = [json.loads(line) for line in out.splitlines() if line.strip()]
        for old in GOLDEN.glob("*.csv"):
            old.unlink()
        for q in queries:
            cur = con.execute(q["sql"])
            header = [d[0] for d in cur.description]
            rows = [[fmt(v) for v in r] for r in cur.fetchall()]
            tpch_golden.write_csv(str(GOLDEN / f"{q['name']}.csv"), header, rows)
        print(f"wrote {len(queries)} answers to {GOLDEN}")


if __name__ == "__main__":
    main()
