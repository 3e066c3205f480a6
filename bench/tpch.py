#!/usr/bin/env python3
"""TPC-H side by side: Quiver vs DuckDB, DataFusion and Polars.

    python bench/tpch.py --sf 1 --threads 2 --runs 5 [--engines quiver,duckdb,datafusion,polars] [--queries 1-22]

Every engine runs in its own subprocess (thread settings must be in place before
the engine is imported), on the same tpchgen 4.0 data, with the same thread count,
from in-memory tables: 1 warm-up + N timed runs per query, median reported.
The peers run through `python bench/tpch.py --worker ENGINE ...`, which prints
one JSON line per event; Quiver runs through its own CLI (`quiver tpch run`).
See bench/README.md.
"""
import argparse
import csv
import json
import math
import os
import platform
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
VENV_PY = BENCH / ".venv" / "bin" / "python"
QUERY_DIR = ROOT / "crates" / "quiver-tpch" / "queries"
QUIVER_BIN = ROOT / "target" / "release" / "quiver"
ENGINES = ["quiver", "duckdb", "datafusion", "polars"]
PEERS = ["duckdb", "datafusion", "polars"]
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
PACKAGES = ["duckdb", "datafusion", "polars", "pyarrow", "tpchgen-cli", "matplotlib"]


# ---------------------------------------------------------------- helpers

def sf_name(sf):
    return f"sf{sf:g}"


def parse_queries(spec):
    """'1-5,7,q9' -> [1, 2, 3, 4, 5, 7, 9]"""
    out = []
    for part in spec.split(","):
        part = part.strip().lower().lstrip("q")
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(range(int(lo), int(hi.lstrip("q")) + 1))
        elif part:
            out.append(int(part))
    bad = [q for q in out if not 1 <= q <= 22]
    if bad:
        sys.exit(f"query numbers must be 1..22, got {bad}")
    return sorted(set(out))


def read_query(query_dir, n):
    """The statements of qNN.sql, comments stripped (several only if the file holds several)."""
    text = (Path(query_dir) / f"q{n:02d}.sql").read_text()
    lines = [line.split("--", 1)[0] for line in text.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def returns_rows(stmt):
    return stmt.lstrip("( \n\t").split(None, 1)[0].lower() in ("select", "with", "values")


def thread_env(threads):
    """Environment for an engine subprocess: every thread pool we know of capped at `threads`."""
    env = dict(os.environ)
    for var in ("POLARS_MAX_THREADS", "TOKIO_WORKER_THREADS", "DATAFUSION_EXECUTION_TARGET_PARTITIONS",
                "RAYON_NUM_THREADS", "OMP_NUM_THREADS"):
        env[var] = str(threads)
    return env


def python_for_workers():
    return str(VENV_PY) if VENV_PY.exists() else sys.executable


# ---------------------------------------------------------------- data

def ensure_data(sf):
    """Parquet for all 8 tables under bench/data/sf<SF>/, made once with tpchgen-cli."""
    data = BENCH / "data" / sf_name(sf)
    done = data / ".complete"
    if done.exists():
        return data
    tool = shutil.which("tpchgen-cli", path=str(Path(python_for_workers()).parent)) or shutil.which("tpchgen-cli")
    if not tool:
        sys.exit("tpchgen-cli not found: run bench/setup.sh")
    data.mkdir(parents=True, exist_ok=True)
    print(f"generating TPC-H {sf_name(sf)} parquet into {data} ...", flush=True)
    t0 = time.perf_counter()
    subprocess.run([tool, "parquet", "-s", f"{sf:g}", "-o", str(data), "--overwrite"], check=True)
    done.write_text(f"tpchgen-cli parquet -s {sf:g}\n")
    print(f"  done in {time.perf_counter() - t0:.1f}s", flush=True)
    return data


# ---------------------------------------------------------------- peer engines (worker side)
# Each loader returns (run, threads the engine reports it will use), where
# run(sql_statements) runs them all and returns the row count of the last query among them.

def load_duckdb(data, threads):
    import duckdb
    con = duckdb.connect(":memory:")
    con.execute(f"SET threads = {threads}")
    for t in TABLES:
        # tpchgen's parquet already carries DECIMAL(15,2) money, DATE dates, BIGINT keys.
        con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{data / (t + '.parquet')}')")
    money = con.execute("SELECT data_type FROM information_schema.columns "
                        "WHERE table_name = 'lineitem' AND column_name = 'l_extendedprice'").fetchone()[0]
    assert money == "DECIMAL(15,2)", money

    def run(stmts):
        rows = None
        for s in stmts:
            res = con.execute(s)
            if returns_rows(s):
                rows = res.to_arrow_table().num_rows
        return rows
    return run, con.execute("SELECT current_setting('threads')").fetchone()[0]


def load_datafusion(data, threads):
    from datafusion import SessionConfig, SessionContext
    ctx = SessionContext(SessionConfig().with_target_partitions(threads).with_information_schema(True))
    for t in TABLES:
        ctx.register_parquet(f"{t}_parquet", str(data / f"{t}.parquet"))
        # collected into a memory table of `threads` evenly filled partitions
        cached = ctx.table(f"{t}_parquet").repartition(threads).cache()
        ctx.register_table(t, cached)
        ctx.deregister_table(f"{t}_parquet")

    def run(stmts):
        rows = None
        for s in stmts:
            batches = ctx.sql(s).collect()
            if returns_rows(s):
                rows = sum(b.num_rows for b in batches)
        return rows
    setting = ctx.sql("SELECT value FROM information_schema.df_settings "
                      "WHERE name = 'datafusion.execution.target_partitions'").to_pylist()[0]["value"]
    return run, setting


def load_polars(data, threads):
    import polars as pl
    frames = {t: pl.read_parquet(data / f"{t}.parquet") for t in TABLES}
    ctx = pl.SQLContext(frames=frames, eager=True)

    def run(stmts):
        rows = None
        for s in stmts:
            df = ctx.execute(s)
            if returns_rows(s):
                rows = df.height
        return rows
    return run, pl.thread_pool_size()


LOADERS = {"duckdb": load_duckdb, "datafusion": load_datafusion, "polars": load_polars}


def worker(args):
    """Subprocess side: load tables, then time each query; one JSON line per event on stdout."""
    def emit(**kv):
        print(json.dumps(kv), flush=True)

    t0 = time.perf_counter()
    run, threads = LOADERS[args.worker](Path(args.data), args.threads)
    emit(event="loaded", load_s=time.perf_counter() - t0, threads=int(threads))
    for n in parse_queries(args.queries):
        name = f"q{n}"
        emit(event="start", query=name)
        try:
            stmts = read_query(args.query_dir, n)
            rows = run(stmts)  # warm-up
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                run(stmts)
                times.append(time.perf_counter() - t)
            emit(event="result", query=name, status="ok", rows=rows, median_s=statistics.median(times))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # includes pyo3 PanicException
            msg = " ".join(f"{type(e).__name__}: {e}".split())
            emit(event="result", query=name, status="failed", error=msg[:500])


# ---------------------------------------------------------------- runners (parent side)
# Each returns ({query: {"median_s", "rows", "status", "error"}}, extra_info_dict).

def run_peer(engine, args, data, queries):
    """Run ENGINE's worker; a query past --timeout is killed and the worker restarted after it."""
    def command(pending):
        return [python_for_workers(), str(Path(__file__).resolve()), "--worker", engine, "--data", str(data),
                "--threads", str(args.threads), "--runs", str(args.runs), "--query-dir", str(args.query_dir),
                "--queries", ",".join(q[1:] for q in pending)]
    return run_workers(engine, args, [f"q{n}" for n in queries], command)


def run_workers(engine, args, names, command):
    """Run `command(pending)`, a worker printing the JSON events of `worker()` (loaded, start, result)
    for the queries `pending`; a query past --timeout is killed and the worker restarted after it.
    Returns ({query: {"median_s", "rows", "status", "error", ...}}, {"load_s"})."""
    results, info = {}, {}
    pending = list(names)
    while pending:
        cmd = command(pending)
        err = tempfile.TemporaryFile(mode="w+")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=thread_env(args.threads))
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout] + [lines.put(None)], daemon=True).start()
        current, deadline = None, time.monotonic() + args.load_timeout
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                proc.kill()
                proc.wait()
                what = current or "load"
                print(f"  {engine} {what}: timeout after {args.timeout if current else args.load_timeout}s", flush=True)
                for q in ([current] if current else pending):
                    results[q] = dict(status="timeout", error="timeout")
                    pending.remove(q)
                break
            if line is None:  # worker exited
                proc.wait()
                if pending:  # it died: blame the query in flight (or the load)
                    err.seek(0)
                    tail = " ".join(err.read().split()[-60:])
                    print(f"  {engine} {current or 'load'}: worker died (rc {proc.returncode}): {tail[-300:]}", flush=True)
                    for q in ([current] if current else list(pending)):
                        results[q] = dict(status="failed", error=f"worker died rc={proc.returncode}: {tail[-300:]}")
                        pending.remove(q)
                break
            if not line.startswith("{"):
                continue  # stray output from an engine
            ev = json.loads(line)
            if ev["event"] == "loaded":
                info.setdefault("load_s", ev["load_s"])
                print(f"  {engine}: tables loaded in {ev['load_s']:.2f}s, {ev['threads']} threads", flush=True)
                if ev["threads"] != args.threads:
                    print(f"  WARNING: {engine} reports {ev['threads']} threads, not {args.threads}", flush=True)
            elif ev["event"] == "start":
                current, deadline = ev["query"], time.monotonic() + args.timeout
            elif ev["event"] == "result":
                q = ev.pop("query")
                results[q] = ev
                pending.remove(q)
                current = None
                show = f"{ev['median_s']:.4f}s  rows={ev['rows']}" if ev["status"] == "ok" else ev["error"][:200]
                print(f"  {engine} {q}: {show}", flush=True)
        err.close()
    return results, info


def run_quiver(args, data, queries):
    """Quiver through its CLI: `quiver tpch gen` once, then `quiver tpch run --format csv`."""
    names = [f"q{n}" for n in queries]
    quiver = Path(args.quiver_bin)
    if not quiver.exists():
        print(f"  quiver: {quiver} not built (cargo build --release): unavailable", flush=True)
        return {q: dict(status="unavailable") for q in names}, {}
    db, env = data / "quiver-db", thread_env(args.threads)
    done = data / "quiver-db.complete"  # kept outside quiver's own directory
    try:
        if not done.exists():
            print(f"  quiver: generating {db} ...", flush=True)
            t0 = time.perf_counter()
            subprocess.run([str(quiver), "tpch", "gen", "--sf", f"{args.sf:g}", "--db", str(db)],
                           check=True, env=env, timeout=args.load_timeout, capture_output=True, text=True)
            if not db.exists():
                print("  quiver: `tpch gen` made no database (CLI not implemented yet?): unavailable", flush=True)
                return {q: dict(status="unavailable") for q in names}, {}
            done.write_text(f"quiver tpch gen --sf {args.sf:g}: {time.perf_counter() - t0:.1f}s\n")
        cmd = [str(quiver), "tpch", "run", "--db", str(db), "--runs", str(args.runs),
               "--threads", str(args.threads), "--format", "csv"]
        helptext = subprocess.run([str(quiver), "tpch", "run", "--help"], capture_output=True, text=True).stdout
        if "--queries" in helptext:
            cmd += ["--queries", ",".join(str(n) for n in queries)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True,
                             timeout=args.load_timeout + args.timeout * len(queries)).stdout
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        msg = " ".join(str(getattr(e, "stderr", "") or e).split())[-300:]
        print(f"  quiver: failed: {msg}", flush=True)
        return {q: dict(status="failed", error=msg) for q in names}, {}
    lines = out.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip() == "query,rows,median_s"), None)
    if start is None:
        print("  quiver: `tpch run` printed no csv (CLI not implemented yet?): unavailable", flush=True)
        return {q: dict(status="unavailable") for q in names}, {}
    results = {q: dict(status="failed", error="missing from quiver output") for q in names}
    for rec in csv.DictReader(lines[start:]):
        q = rec["query"].strip()
        if q not in results:
            continue
        try:
            results[q] = dict(status="ok", rows=int(rec["rows"]), median_s=float(rec["median_s"]))
        except (TypeError, ValueError):
            results[q] = dict(status="failed", error=f"quiver: {rec}")
        r = results[q]
        print(f"  quiver {q}: " + (f"{r['median_s']:.4f}s  rows={r['rows']}" if r["status"] == "ok" else "failed"), flush=True)
    return results, {}


# ---------------------------------------------------------------- reporting

def best_round(before, now):
    """The better of two rounds' results for one query: the faster ok one
    (each keeps the medians of all rounds in `rounds_s`)."""
    if before is None:
        return dict(now, rounds_s=[now["median_s"]] if now["status"] == "ok" else [])
    rounds = before["rounds_s"] + ([now["median_s"]] if now["status"] == "ok" else [])
    if now["status"] == "ok" and (before["status"] != "ok" or now["median_s"] < before["median_s"]):
        return dict(now, rounds_s=rounds)
    return dict(before, rounds_s=rounds)


def check_rows(table, engines):
    """Flag any engine whose row count differs from DuckDB's."""
    if "duckdb" not in engines:
        return
    for q, per in table.items():
        ref = per["duckdb"]
        if ref["status"] != "ok":
            continue
        for e in engines:
            r = per[e]
            if e != "duckdb" and r["status"] == "ok" and r["rows"] != ref["rows"]:
                r["status"] = "rows_mismatch"
                r["error"] = f"{r['rows']} rows, duckdb {ref['rows']}"


def summarize(table, engines, infos):
    """Per-engine totals; 'common' = the queries every available engine answered correctly."""
    avail = [e for e in engines if any(per[e]["status"] != "unavailable" for per in table.values())]
    common = [q for q, per in table.items() if avail and all(per[e]["status"] == "ok" for e in avail)]
    rows = []
    for e in engines:
        ok = [q for q, per in table.items() if per[e]["status"] == "ok"]
        rec = dict(engine=e, queries_ok=len(ok),
                   queries_failed=sum(per[e]["status"] not in ("ok", "unavailable") for per in table.values()),
                   total_s=sum(table[q][e]["median_s"] for q in ok) if ok else None,
                   common_queries=len(common) if e in avail else 0,
                   common_total_s=sum(table[q][e]["median_s"] for q in common) if e in avail else None,
                   ratio_vs_duckdb=None, geomean_ratio_vs_duckdb=None, load_s=infos.get(e, {}).get("load_s"))
        if e in avail and "duckdb" in avail and common:
            rec["ratio_vs_duckdb"] = rec["common_total_s"] / sum(table[q]["duckdb"]["median_s"] for q in common)
            logs = [math.log(table[q][e]["median_s"] / table[q]["duckdb"]["median_s"]) for q in common]
            rec["geomean_ratio_vs_duckdb"] = math.exp(sum(logs) / len(logs))
        rows.append(rec)
    return rows, common


def fmt(v, spec=".4f"):
    return "" if v is None else format(v, spec)


def cell(r):
    return {"ok": fmt(r.get("median_s")), "rows_mismatch": fmt(r.get("median_s")) + "*", "failed": "FAIL",
            "timeout": "T/O", "unavailable": "n/a"}[r["status"]]


def print_table(table, engines, summary, common):
    others = [e for e in engines if e != "duckdb"] if "duckdb" in engines else []
    head = ["query"] + [f"{e} s" for e in engines] + [f"{e}/duckdb" for e in others]
    body = []
    for q, per in table.items():
        ratios = []
        for e in others:
            a, b = per[e], per["duckdb"]
            ratios.append(f"{a['median_s'] / b['median_s']:.2f}x" if a["status"] == "ok" and b["status"] == "ok" else "")
        body.append([q] + [cell(per[e]) for e in engines] + ratios)
    s = {r["engine"]: r for r in summary}
    body.append(None)
    body.append([f"total ({len(common)} common)"] + [fmt(s[e]["common_total_s"], ".3f") for e in engines]
                + [fmt(s[e]["ratio_vs_duckdb"], ".2f") + ("x" if s[e]["ratio_vs_duckdb"] else "") for e in others])
    body.append(["geomean ratio"] + [""] * len(engines)
                + [fmt(s[e]["geomean_ratio_vs_duckdb"], ".2f") + ("x" if s[e]["geomean_ratio_vs_duckdb"] else "")
                   for e in others])
    body.append(["total (own ok)"] + [fmt(s[e]["total_s"], ".3f") + f" ({s[e]['queries_ok']})" if s[e]["queries_ok"]
                                      else "n/a" for e in engines]
                + [""] * len(others))
    width = [max(len(str(r[i])) for r in [head] + [b for b in body if b]) for i in range(len(head))]
    line = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, width)))
    print()
    print(line(head))
    print("-" * len(line(head)))
    for r in body:
        print("-" * len(line(head)) if r is None else line(r))
    print("times are medians in seconds;  * = row count differs from duckdb;  FAIL/T/O = failed/timed out;"
          "  n/a = engine unavailable")


def plot(table, engines, summary, common, args, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no chart")
        return
    avail = [e for e in engines if any(per[e]["status"] == "ok" for per in table.values())]
    qs = list(table)
    fig, ax = plt.subplots(figsize=(min(18, max(8, 0.7 * len(qs) + 2)), 5.5))
    width = 0.8 / max(1, len(avail))
    for i, e in enumerate(avail):
        xs = [j + (i - (len(avail) - 1) / 2) * width for j in range(len(qs))]
        ys = [table[q][e]["median_s"] if table[q][e]["status"] == "ok" else 0 for q in qs]
        ax.bar(xs, ys, width, label=e)
        for x, q in zip(xs, qs):
            if table[q][e]["status"] not in ("ok", "unavailable"):
                ax.annotate("x", (x, 0), ha="center", va="bottom", color="red", annotation_clip=False)
    ax.set_xticks(range(len(qs)), qs)
    ax.set_ylabel("median seconds (hot)")
    if args.log:
        ax.set_yscale("log")
    s = {r["engine"]: r for r in summary}
    totals = ", ".join(f"{e} {s[e]['common_total_s']:.2f}s" for e in avail if s[e]["common_total_s"] is not None)
    ax.set_title(f"TPC-H {sf_name(args.sf)}, {args.threads} threads, median of {args.runs} hot runs\n"
                 f"total over {len(common)} common queries: {totals}   (x = failed)"
                 + "".join(f", {e}: no results" for e in engines if e not in avail), fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def machine_info(args):
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                if l.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else platform.processor()
    mem = next((l.split(":", 1)[1].strip() for l in Path("/proc/meminfo").read_text().splitlines()
                if l.startswith("MemTotal")), "?") if Path("/proc/meminfo").exists() else "?"
    os_name = platform.platform()
    if Path("/etc/os-release").exists():
        rel = dict(l.split("=", 1) for l in Path("/etc/os-release").read_text().splitlines() if "=" in l)
        os_name = f"{rel.get('PRETTY_NAME', '').strip(chr(34))} ({platform.platform()})"
    out = [f"date: {datetime.now(timezone.utc).isoformat(timespec='seconds')}", f"cpu: {cpu}",
           f"cores: {os.cpu_count()}", f"memory: {mem}", f"os: {os_name}", f"python: {platform.python_version()}"]
    for pkg in PACKAGES:  # main() runs in bench/.venv, as the workers do
        try:
            out.append(f"{pkg}: {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            out.append(f"{pkg}: not installed")
    if Path(args.quiver_bin).exists():
        v = subprocess.run([args.quiver_bin, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
        out.append(f"quiver: {v or '?'}")
    else:
        out.append("quiver: not built")
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    out.append(f"quiver git: {rev.stdout.strip() or 'no commit'}")
    out.append(f"run: sf={args.sf:g} threads={args.threads} runs={args.runs} (1 warm-up each) "
               f"rounds={args.rounds} ({getattr(args, 'rounds_rule', 'best round per query')}) "
               f"engines={args.engines} queries={args.queries}")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", type=float, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5, help="timed runs per query, after 1 warm-up")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every engine this many times in turn (order rotating); the best round's median counts")
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--queries", default="1-22", help="e.g. 1-22 or 1,3,6")
    p.add_argument("--timeout", type=float, default=600, help="seconds per query (warm-up + runs)")
    p.add_argument("--load-timeout", type=float, default=1800, help="seconds to load/generate data")
    p.add_argument("--log", action="store_true", help="log-scale y axis in the chart")
    p.add_argument("--query-dir", default=str(QUERY_DIR))
    p.add_argument("--quiver-bin", default=str(QUIVER_BIN), help="the quiver binary (default: release build)")
    p.add_argument("--results-dir", default=str(BENCH / "results"))
    p.add_argument("--worker", choices=PEERS, help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        return worker(args)

    # Use bench/.venv when it exists and we are not already in it.
    if VENV_PY.exists() and Path(sys.prefix).resolve() != (BENCH / ".venv").resolve():
        os.execv(str(VENV_PY), [str(VENV_PY), str(Path(__file__).resolve()), *sys.argv[1:]])

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if unknown := set(engines) - set(ENGINES):
        sys.exit(f"unknown engines: {sorted(unknown)}")
    queries = parse_queries(args.queries)
    missing = [n for n in queries if not (Path(args.query_dir) / f"q{n:02d}.sql").exists()]
    if missing:
        sys.exit(f"query files missing in {args.query_dir}: {missing}")
    data = ensure_data(args.sf)

    table = {f"q{n}": {} for n in queries}
    infos = {}
    # This machine's speed drifts with its neighbours (the same loop takes
    # 0.2 s or 0.36 s minutes apart): each round runs every engine in turn,
    # the order rotating, and an engine's time for a query is its best
    # round's median.
    for r in range(args.rounds):
        order = engines[r % len(engines):] + engines[:r % len(engines)]
        for e in order:
            print(f"== {e}" + (f" (round {r + 1} of {args.rounds})" if args.rounds > 1 else ""), flush=True)
            res, info = run_quiver(args, data, queries) if e == "quiver" else run_peer(e, args, data, queries)
            infos.setdefault(e, info)
            for q in table:
                got = res.get(q, dict(status="failed", error="no result"))
                table[q][e] = best_round(table[q].get(e), got)
    check_rows(table, engines)
    summary, common = summarize(table, engines, infos)

    out = Path(args.results_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"tpch_{sf_name(args.sf)}_{args.threads}t"
    with open(f"{stem}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["query", "engine", "median_s", "rows", "status", "round_medians_s"])
        for q, per in table.items():
            for e in engines:
                r = per[e]
                rounds = " ".join(fmt(x, ".6f") for x in r.get("rounds_s", []))
                w.writerow([q, e, fmt(r.get("median_s"), ".6f"), r.get("rows", ""), r["status"], rounds])
    with open(f"{stem}_summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary[0]))
        w.writeheader()
        for r in summary:
            w.writerow({k: fmt(v, ".6f") if isinstance(v, float) else v for k, v in r.items()})
    errors = [f"{q} {e} {per[e]['status']}: {per[e]['error']}" for q, per in table.items() for e in engines
              if per[e].get("error")]
    err_path = Path(f"{stem}_errors.txt")
    if errors:
        err_path.write_text("\n".join(errors) + "\n")
    elif err_path.exists():
        err_path.unlink()
    (out / "machine.txt").write_text(machine_info(args))
    plot(table, engines, summary, common, args, f"{stem}.png")

    print_table(table, engines, summary, common)
    if errors:
        print("\nproblems:")
        for line in errors:
            print("  " + line[:300])
    print(f"\nwrote {stem}.csv, {stem}_summary.csv, {stem}.png, {out / 'machine.txt'}"
          + (f", {err_path}" if errors else ""))


if __name__ == "__main__":
    main()
