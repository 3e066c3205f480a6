#!/usr/bin/env python3
"""Function families over TPC-H columns: Quiver vs DuckDB (and MariaDB), in one run.

    python bench/functions.py --sf 1 --threads 2 --runs 5 [--engines quiver,duckdb,mariadb] [--families regexp,datetime]

The queries are in bench/functions/<family>.sql, one block each:

    -- name: <short_name>
    -- duckdb: <DuckDB's equivalent on one line, or: none>
    <the Quiver / MariaDB SQL, ending with ;>

Each is a small-result query (an aggregate over a function of a column), so the
time is the function's, not the output's. Engines, one after the other:

  - Quiver: `quiver sql --db bench/data/sf<SF>/quiver-db --runs N --threads T
    --format csv` over all blocks (1 warm-up + N timed runs each, in-process);
  - DuckDB (bench/.venv): in-memory tables of the same tpchgen parquet, `SET
    threads`, 1 warm-up + N runs of the `-- duckdb:` form;
  - MariaDB, when asked for and reachable (the oracle of ../shared/oracle/, or
    BENCH_MARIADB_HOST/PORT/USER/PASSWORD): InnoDB tables loaded once into the
    database `quiver_bench_sf<SF>` from the same parquet (through CSV and LOAD
    DATA LOCAL INFILE); 1 warm-up + min(N, 3) runs, as it is much slower.

Answers are compared between engines (numbers to 6 significant digits); a
mismatch is reported, not hidden. Writes bench/results/functions_sf<SF>_<T>t.csv,
.png and _summary.md. See bench/README.md.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tpch  # noqa: E402  (the TPC-H runner's data, DuckDB loading and machine description)

ROOT, BENCH, VENV_PY = tpch.ROOT, tpch.BENCH, tpch.VENV_PY
FAMILY_DIR = BENCH / "functions"


def parse_family(path):
    """[(name, duckdb_sql or None, quiver_sql)] of one family file."""
    blocks, name, duck, sql = [], None, None, []
    for line in path.read_text().splitlines():
        m = re.match(r"--\s*name:\s*(\S+)", line)
        if m:
            name, duck, sql = m.group(1), None, []
            continue
        m = re.match(r"--\s*duckdb:\s*(.*)$", line)
        if m:
            duck = None if m.group(1).strip().lower() == "none" else m.group(1).strip().rstrip(";")
            continue
        if line.startswith("--") or name is None:
            continue
        sql.append(line)
        if line.rstrip().endswith(";"):
            blocks.append((name, duck, "\n".join(sql).strip().rstrip(";")))
            name = None
    return blocks


def load_queries(families):
    out = []
    for path in sorted(FAMILY_DIR.glob("*.sql")):
        if families and path.stem not in families:
            continue
        for name, duck, sql in parse_family(path):
            out.append(dict(family=path.stem, name=name, id=f"{path.stem}/{name}", duckdb=duck, sql=sql))
    return out


def normalize(rows):
    def cell(v):
        if v is None:
            return "NULL"
        try:
            f = float(v)
            return f"{f:.6g}"
        except (TypeError, ValueError):
            return str(v)
    return sorted(tuple(cell(v) for v in row) for row in rows)


# ---------------------------------------------------------------- Quiver

def quiver_db(args, data):
    db, done = data / "quiver-db", data / "quiver-db.complete"
    if not done.exists():
        print(f"  quiver: generating {db} ...", flush=True)
        subprocess.run([args.quiver_bin, "tpch", "gen", "--sf", f"{args.sf:g}", "--db", str(db)],
                       check=True, capture_output=True, text=True)
        done.write_text(f"quiver tpch gen --sf {args.sf:g}\n")
    return db


def run_quiver(args, data, queries):
    if not Path(args.quiver_bin).exists():
        print("  quiver: not built (cargo build --release): unavailable", flush=True)
        return {}
    db = quiver_db(args, data)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for q in queries:
            # Answers: one plain run, json.
            script = Path(tmp) / "q.sql"
            script.write_text(q["sql"] + ";\n")
            base = [args.quiver_bin, "sql", "--db", str(db), "--threads", str(args.threads), "-f", str(script)]
            p = subprocess.run(base + ["--format", "json"], capture_output=True, text=True, timeout=args.timeout)
            if p.returncode != 0:
                results[q["id"]] = dict(status="failed", error=p.stderr.strip()[-300:])
                print(f"  quiver {q['id']}: failed: {p.stderr.strip()[-200:]}", flush=True)
                continue
            answer = json_rows(p.stdout)
            script.write_text(f"-- name: {q['name']}\n{q['sql']};\n")
            p = subprocess.run(base + ["--format", "csv", "--runs", str(args.runs)],
                               capture_output=True, text=True, timeout=args.timeout)
            rec = next(csv.DictReader(p.stdout[p.stdout.index("query,"):].splitlines()), None) \
                if "query," in p.stdout else None
            if p.returncode != 0 or rec is None:
                results[q["id"]] = dict(status="failed", error=p.stderr.strip()[-300:])
                continue
            results[q["id"]] = dict(status="ok", median_s=float(rec["median_s"]), answer=normalize(answer))
            print(f"  quiver {q['id']}: {float(rec['median_s']):.4f}s", flush=True)
    return results


def json_rows(text):
    """The rows (lists of values) of the last result of `quiver sql --format json`."""
    dec, pos, last = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return [list(r.values()) for r in last]
        last, pos = dec.raw_decode(text, pos)


# ---------------------------------------------------------------- DuckDB

def run_duckdb(args, data, queries):
    import duckdb
    con = duckdb.connect(":memory:")
    con.execute(f"SET threads = {args.threads}")
    for t in tpch.TABLES:
        if any(re.search(rf"\b{t}\b", q["duckdb"] or "") for q in queries):
            con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{data / (t + '.parquet')}')")
    results = {}
    for q in queries:
        if not q["duckdb"]:
            continue
        try:
            answer = con.execute(q["duckdb"]).fetchall()
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                con.execute(q["duckdb"]).fetchall()
                times.append(time.perf_counter() - t0)
            results[q["id"]] = dict(status="ok", median_s=statistics.median(times), answer=normalize(answer))
            print(f"  duckdb {q['id']}: {statistics.median(times):.4f}s", flush=True)
        except Exception as e:  # noqa: BLE001  (a query DuckDB refuses is reported, the rest go on)
            results[q["id"]] = dict(status="failed", error=str(e)[:300])
            print(f"  duckdb {q['id']}: failed: {str(e)[:200]}", flush=True)
    return results


# ---------------------------------------------------------------- MariaDB

MARIADB_TYPES = {
    "lineitem": "l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity DECIMAL(15,2), "
                "l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag CHAR(1), "
                "l_linestatus CHAR(1), l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, "
                "l_shipinstruct VARCHAR(25), l_shipmode VARCHAR(10), l_comment VARCHAR(44)",
    "orders": "o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus CHAR(1), o_totalprice DECIMAL(15,2), "
              "o_orderdate DATE, o_orderpriority VARCHAR(15), o_clerk VARCHAR(15), o_shippriority INT, "
              "o_comment VARCHAR(79)",
    "customer": "c_custkey BIGINT, c_name VARCHAR(25), c_address VARCHAR(40), c_nationkey INT, c_phone VARCHAR(15), "
                "c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR(10), c_comment VARCHAR(117)",
    "part": "p_partkey BIGINT, p_name VARCHAR(55), p_mfgr VARCHAR(25), p_brand VARCHAR(10), p_type VARCHAR(25), "
            "p_size INT, p_container VARCHAR(10), p_retailprice DECIMAL(15,2), p_comment VARCHAR(23)",
}


def mariadb_connect(args, database=None):
    import pymysql
    return pymysql.connect(host=os.environ.get("BENCH_MARIADB_HOST", "127.0.0.1"),
                           port=int(os.environ.get("BENCH_MARIADB_PORT", "3307")),
                           user=os.environ.get("BENCH_MARIADB_USER", "root"),
                           password=os.environ.get("BENCH_MARIADB_PASSWORD", ""),
                           database=database, local_infile=True, autocommit=True,
                           read_timeout=args.timeout)


def run_mariadb(args, data, queries):
    try:
        con = mariadb_connect(args)
    except Exception as e:  # noqa: BLE001
        print(f"  mariadb: not reachable ({e}): skipped", flush=True)
        return {}
    db = f"quiver_bench_{tpch.sf_name(args.sf)}".replace(".", "_")
    cur = con.cursor()
    cur.execute(f"CREATE DATABASE IF NOT EXISTS {db}")
    cur.execute(f"USE {db}")
    cur.execute("SET GLOBAL local_infile = 1")
    needed = {t for q in queries for t in MARIADB_TYPES if re.search(rf"\b{t}\b", q["sql"])}
    import duckdb
    for t in sorted(needed):
        cur.execute("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
                    (db, t))
        if cur.fetchone()[0]:
            continue
        print(f"  mariadb: loading {t} ...", flush=True)
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{t}.csv"
            duckdb.sql(f"COPY (SELECT * FROM read_parquet('{data / (t + '.parquet')}')) TO '{path}' "
                       "(HEADER false, DELIMITER '|', QUOTE '')")
            cur.execute(f"CREATE TABLE {t}_loading ({MARIADB_TYPES[t]}) ENGINE=InnoDB")
            cur.execute(f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE {t}_loading FIELDS TERMINATED BY '|'")
            cur.execute(f"RENAME TABLE {t}_loading TO {t}")
        print(f"  mariadb: {t} in {time.perf_counter() - t0:.0f}s", flush=True)
    results = {}
    runs = min(args.runs, 3)
    for q in queries:
        try:
            cur.execute(q["sql"])
            answer = cur.fetchall()
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                cur.execute(q["sql"])
                cur.fetchall()
                times.append(time.perf_counter() - t0)
            results[q["id"]] = dict(status="ok", median_s=statistics.median(times), answer=normalize(answer))
            print(f"  mariadb {q['id']}: {statistics.median(times):.4f}s", flush=True)
        except Exception as e:  # noqa: BLE001
            results[q["id"]] = dict(status="failed", error=str(e)[:300])
            print(f"  mariadb {q['id']}: failed: {str(e)[:200]}", flush=True)
    return results


# ---------------------------------------------------------------- report

def report(args, queries, by_engine, machine):
    engines = [e for e in args.engines.split(",") if by_engine.get(e)]
    tag = f"{tpch.sf_name(args.sf)}_{args.threads}t"
    out_dir = Path(args.results_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows, mismatches = [], []
    for q in queries:
        r = {"family": q["family"], "query": q["name"]}
        base = by_engine.get("quiver", {}).get(q["id"], {})
        for e in engines:
            res = by_engine[e].get(q["id"], {})
            r[f"{e}_s"] = f"{res['median_s']:.5f}" if res.get("status") == "ok" else res.get("status", "n/a")
            if e != "quiver" and res.get("status") == "ok" and base.get("status") == "ok":
                r[f"quiver_vs_{e}"] = f"{base['median_s'] / res['median_s']:.3f}"
                if res["answer"] != base["answer"]:
                    mismatches.append(f"{q['id']}: quiver {base['answer'][:3]} vs {e} {res['answer'][:3]}")
        rows.append(r)
    fields = ["family", "query"] + [f"{e}_s" for e in engines] + [f"quiver_vs_{e}" for e in engines if e != "quiver"]
    with open(out_dir / f"functions_{tag}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(rows)
    lines = [f"# Function families, TPC-H {tpch.sf_name(args.sf)}, {args.threads} threads", "",
             f"Hot medians of {args.runs} runs after 1 warm-up (MariaDB: {min(args.runs, 3)}), seconds; "
             "ratio = Quiver / peer (below 1: Quiver is faster).", "",
             "| " + " | ".join(fields) + " |", "|" + "---|" * len(fields)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(k, "")) for k in fields) + " |")
    lines += ["", "Answers: " + ("every engine agrees on every query." if not mismatches else "MISMATCHES:"), ""]
    lines += [f"- {m}" for m in mismatches]
    lines += ["", "Machine:", "", "```", machine.rstrip(), "```", ""]
    (out_dir / f"functions_{tag}_summary.md").write_text("\n".join(lines))
    print("\n".join(lines[:len(rows) + 6]))
    if mismatches:
        print("\n".join(["answer mismatches:"] + mismatches))
    plot(rows, engines, out_dir / f"functions_{tag}.png", args)


def plot(rows, engines, path, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['family']}/{r['query']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.9), 5))
    width = 0.8 / max(1, len(engines))
    for k, e in enumerate(engines):
        vals = [float(r[f"{e}_s"]) if re.match(r"^[0-9.]+$", str(r.get(f"{e}_s", ""))) else 0 for r in rows]
        ax.bar([i + k * width for i in range(len(rows))], vals, width, label=e)
    ax.set_xticks([i + width * (len(engines) - 1) / 2 for i in range(len(rows))])
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("seconds (hot median)")
    ax.set_yscale("log")
    ax.set_title(f"Function families, TPC-H {tpch.sf_name(args.sf)}, {args.threads} threads")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", type=float, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--engines", default="quiver,duckdb,mariadb")
    p.add_argument("--families", default="", help="comma-separated file stems of bench/functions/ (default: all)")
    p.add_argument("--timeout", type=int, default=600)
    p.add_argument("--quiver-bin", default=str(tpch.QUIVER_BIN))
    p.add_argument("--results-dir", default=str(BENCH / "results"))
    args = p.parse_args()
    if VENV_PY.exists() and Path(sys.prefix).resolve() != (BENCH / ".venv").resolve():
        os.execv(str(VENV_PY), [str(VENV_PY), str(Path(__file__).resolve()), *sys.argv[1:]])
    queries = load_queries([f for f in args.families.split(",") if f])
    if not queries:
        sys.exit("no queries in bench/functions/")
    data = tpch.ensure_data(args.sf)
    by_engine = {}
    for e in args.engines.split(","):
        print(f"{e}:", flush=True)
        run = {"quiver": run_quiver, "duckdb": run_duckdb, "mariadb": run_mariadb}[e]
        by_engine[e] = run(args, data, queries)
    args.rounds, args.queries = 1, ",".join(q["id"] for q in queries)
    report(args, queries, by_engine, tpch.machine_info(args))


if __name__ == "__main__":
    main()
