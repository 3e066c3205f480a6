#!/usr/bin/env python3
"""Web analytics: Quiver side by side with DuckDB, DataFusion and chDB, in one run.

    python bench/web_analytics/run.py --rows 10000000 --threads 2 --runs 3
    python bench/web_analytics/run.py --rows 1000000 --engines quiver,duckdb --queries top_phrases,wide_sums

The table `hits` (100 columns of page views; see crates/quiver-clickstream)
is made once per row count by `quiver web gen --rows N --db ... --parquet
...` into bench/data/web_<N>/: Quiver reads its own database, the peers the
Parquet file of the same rows, loaded into memory first:

  - DuckDB: CREATE TABLE hits AS SELECT * FROM read_parquet(...), SET threads;
  - DataFusion: the Parquet registered, repartitioned into N partitions, cached;
  - chDB: CREATE TABLE hits ENGINE = Memory AS SELECT * FROM file(..., Parquet),
    max_threads = N, session_timezone = 'UTC'.

The queries are the crate's queries.sql, spelled for each engine by `quiver web
queries --engine E` (the collation-aware ones ask byte-comparing engines for
lower(rtrim(x)), which is the same meaning on this data). Each query: 1
warm-up, then --runs timed runs; the median is reported. Answers are compared
between engines (strings folded where the query says so, numbers to 6
significant digits) and mismatches are reported, not hidden.

Writes bench/results/web_analytics_<rows>_<T>t.csv, .png and _summary.md.
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCH))
import tpch  # noqa: E402  (thread caps, machine description, the venv)

ENGINES = ["quiver", "duckdb", "datafusion", "chdb"]
PACKAGES = ["duckdb", "datafusion", "chdb", "pyarrow", "matplotlib"]


def rows_name(rows):
    return f"{rows // 1_000_000}m" if rows % 1_000_000 == 0 else f"{rows // 1000}k" if rows % 1000 == 0 else str(rows)


def ensure_data(args):
    data = BENCH / "data" / f"web_{rows_name(args.rows)}"
    done = data / ".complete"
    if not done.exists():
        data.mkdir(parents=True, exist_ok=True)
        print(f"generating {args.rows} rows of hits into {data} ...", flush=True)
        t0 = time.perf_counter()
        subprocess.run([args.quiver_bin, "--db", str(data / "quiver-db"), "web", "gen", "--rows", str(args.rows),
                        "--parquet", str(data / "hits.parquet")], check=True)
        done.write_text(f"quiver web gen --rows {args.rows}: {time.perf_counter() - t0:.0f}s\n")
    return data


def queries_for(args, engine):
    out = subprocess.run([args.quiver_bin, "web", "queries", "--engine", engine],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def normalize(rows, folded):
    def cell(v):
        if v is None:
            return "NULL"
        if isinstance(v, (int, float)) or hasattr(v, "as_tuple"):
            return f"{float(v):.6g}"
        s = str(v)
        try:
            return f"{float(s):.6g}"
        except ValueError:
            return s.rstrip(" ").lower() if folded else s
    return [tuple(cell(v) for v in row) for row in rows]


# ---------------------------------------------------------------- peers (worker side)

def load_duckdb(data, threads):
    import duckdb
    con = duckdb.connect(":memory:")
    con.execute(f"SET threads = {threads}")
    con.execute(f"CREATE TABLE hits AS SELECT * FROM read_parquet('{data / 'hits.parquet'}')")
    return (lambda sql: con.execute(sql).fetchall()), con.execute("SELECT current_setting('threads')").fetchone()[0]


def load_datafusion(data, threads):
    from datafusion import SessionConfig, SessionContext
    ctx = SessionContext(SessionConfig().with_target_partitions(threads))
    ctx.register_parquet("hits_parquet", str(data / "hits.parquet"))
    ctx.register_table("hits", ctx.table("hits_parquet").repartition(threads).cache())
    ctx.deregister_table("hits_parquet")

    def run(sql):
        return [tuple(r.values()) for r in ctx.sql(sql).to_pylist()]
    return run, threads


def load_chdb(data, threads):
    from chdb import session
    sess = session.Session()
    settings = f"SETTINGS max_threads = {threads}, session_timezone = 'UTC'"
    # Second-precision DATETIMEs, as the table declares them (Parquet says microseconds).
    sess.query("CREATE TABLE hits ENGINE = Memory AS SELECT * REPLACE (toDateTime(event_time) AS event_time, "
               f"toDateTime(local_time) AS local_time) FROM file('{data / 'hits.parquet'}', Parquet) {settings}")

    def run(sql):
        res = sess.query(f"{sql} {settings}", "JSONCompact")
        return [tuple(r) for r in json.loads(res.bytes() or b'{"data": []}')["data"]]
    n = json.loads(sess.query(f"SELECT getSetting('max_threads') {settings}", "JSONCompact").bytes())["data"][0][0]
    return run, int(n)


LOADERS = {"duckdb": load_duckdb, "datafusion": load_datafusion, "chdb": load_chdb}


def worker(args):
    def emit(**kv):
        print(json.dumps(kv, default=str), flush=True)

    t0 = time.perf_counter()
    run, threads = LOADERS[args.worker](Path(args.data), args.threads)
    emit(event="loaded", load_s=time.perf_counter() - t0, threads=int(threads))
    wanted = set(args.only.split(","))
    for q in queries_for(args, args.worker):
        if q["name"] not in wanted:
            continue
        emit(event="start", query=q["name"])
        try:
            answer = run(q["sql"])
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                run(q["sql"])
                times.append(time.perf_counter() - t)
            emit(event="result", query=q["name"], status="ok", rows=len(answer), median_s=statistics.median(times),
                 answer=normalize(answer, q["folded"]))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # noqa: BLE001  (pyo3 panics included: the query fails, the rest go on)
            emit(event="result", query=q["name"], status="failed", error=" ".join(f"{type(e).__name__}: {e}".split())[:500])


# ---------------------------------------------------------------- runners (parent side)

def run_peer(engine, args, data, names):
    """The engine's worker, through the TPC-H runner's loop (timeouts, restarts, crashes)."""
    def command(pending):
        return [tpch.python_for_workers(), str(Path(__file__).resolve()), "--worker", engine, "--data", str(data),
                "--threads", str(args.threads), "--runs", str(args.runs), "--only", ",".join(pending),
                "--quiver-bin", args.quiver_bin]
    results, _ = tpch.run_workers(engine, args, names, command)
    return results


def json_results(text):
    """The successive JSON results printed by `quiver sql --format json`."""
    dec, pos, out = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        value, pos = dec.raw_decode(text, pos)
        out.append(value)


def run_quiver(args, data, names):
    qs = [q for q in queries_for(args, "quiver") if q["name"] in names]
    db, env = data / "quiver-db", tpch.thread_env(args.threads)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "web.sql"
        script.write_text("".join(f"-- name: {q['name']}\n{q['sql']};\n" for q in qs))
        base = [args.quiver_bin, "sql", "--db", str(db), "--threads", str(args.threads), "-f", str(script)]
        p = subprocess.run(base + ["--format", "csv", "--runs", str(args.runs)], capture_output=True, text=True,
                           env=env, timeout=args.load_timeout + args.timeout * len(qs))
        if p.returncode != 0:
            print(f"  quiver: failed: {p.stderr.strip()[-300:]}", flush=True)
        text = p.stdout
        if "query,rows,median_s" in text:
            for rec in csv.DictReader(text[text.index("query,rows,median_s"):].splitlines()):
                results[rec["query"]] = dict(status="ok", rows=int(rec["rows"]), median_s=float(rec["median_s"]))
                print(f"  quiver {rec['query']}: {float(rec['median_s']):.4f}s rows={rec['rows']}", flush=True)
        # Answers: each query once more, as JSON.
        for q in qs:
            if q["name"] not in results:
                results[q["name"]] = dict(status="failed", error=p.stderr.strip()[-300:])
                continue
            one = Path(tmp) / "one.sql"
            one.write_text(q["sql"] + ";\n")
            a = subprocess.run(base[:-1] + [str(one), "--format", "json"], capture_output=True, text=True, env=env,
                               timeout=args.load_timeout + args.timeout)
            got = json_results(a.stdout)
            rows = [list(r.values()) for r in got[-1]] if got else []
            results[q["name"]]["answer"] = normalize(rows, q["folded"])
    return results


# ---------------------------------------------------------------- report

def report(args, names, by_engine, machine):
    engines = [e for e in args.engines.split(",") if e in by_engine]
    tag = f"{rows_name(args.rows)}_{args.threads}t"
    out = Path(args.results_dir)
    out.mkdir(parents=True, exist_ok=True)
    table, mismatches = [], []
    for n in names:
        r = {"query": n}
        for e in engines:
            res = by_engine[e].get(n, {})
            r[f"{e}_s"] = f"{res['median_s']:.4f}" if res.get("status") == "ok" else res.get("status", "n/a")
        mine = by_engine.get("quiver", {}).get(n, {})
        for e in engines[1:]:
            res = by_engine[e].get(n, {})
            if mine.get("status") == "ok" and res.get("status") == "ok":
                r[f"quiver_vs_{e}"] = f"{mine['median_s'] / res['median_s']:.2f}"
                if "answer" in mine and [list(x) for x in mine["answer"]] != [list(x) for x in res["answer"]]:
                    mismatches.append(f"{n}: quiver {mine['answer'][:2]} vs {e} {res['answer'][:2]}")
        table.append(r)
    fields = ["query"] + [f"{e}_s" for e in engines] + [f"quiver_vs_{e}" for e in engines[1:]]
    with open(out / f"web_analytics_{tag}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(table)
    summary = []
    for e in engines[1:]:
        pairs = [(by_engine["quiver"][n]["median_s"], by_engine[e][n]["median_s"]) for n in names
                 if by_engine.get("quiver", {}).get(n, {}).get("status") == "ok"
                 and by_engine[e].get(n, {}).get("status") == "ok"]
        if pairs:
            total = sum(a for a, _ in pairs) / sum(b for _, b in pairs)
            geo = math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs))
            worst = max(pairs, key=lambda p: p[0] / p[1])
            summary.append(f"- vs {e}: total {total:.2f}x, geomean {geo:.2f}x over {len(pairs)} queries "
                           f"(Quiver faster on {sum(a < b for a, b in pairs)}), worst {worst[0] / worst[1]:.1f}x")
    best = []
    for n in names:
        mine = by_engine.get("quiver", {}).get(n, {})
        peers = [by_engine[e][n]["median_s"] for e in engines[1:] if by_engine[e].get(n, {}).get("status") == "ok"]
        if mine.get("status") == "ok" and peers and mine["median_s"] > 2 * min(peers):
            best.append(f"{n} ({mine['median_s'] / min(peers):.1f}x the best peer)")
    lines = [f"# Web analytics, {args.rows:,} rows of hits, {args.threads} threads", "",
             f"Hot medians of {args.runs} runs after 1 warm-up, seconds; ratio = Quiver / peer (below 1: Quiver "
             "is faster).", ""] + summary + [
        "", "Queries above 2x the best peer: " + (", ".join(best) if best else "none"), "",
        "| " + " | ".join(fields) + " |", "|" + "---|" * len(fields)]
    lines += ["| " + " | ".join(str(r.get(k, "")) for k in fields) + " |" for r in table]
    lines += ["", "Answers: " + ("every engine agrees on every query." if not mismatches else "MISMATCHES:"), ""]
    lines += [f"- {m}" for m in mismatches]
    lines += ["", "Machine:", "", "```", machine.rstrip(), "```", ""]
    (out / f"web_analytics_{tag}_summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    plot(table, engines, out / f"web_analytics_{tag}.png", args)


def plot(table, engines, path, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(max(10, len(table) * 0.45), 5.5))
    width = 0.8 / max(1, len(engines))
    for k, e in enumerate(engines):
        vals = []
        for r in table:
            try:
                vals.append(float(r[f"{e}_s"]))
            except (KeyError, ValueError):
                vals.append(0)
        ax.bar([i + k * width for i in range(len(table))], vals, width, label=e)
    ax.set_xticks([i + width * (len(engines) - 1) / 2 for i in range(len(table))])
    ax.set_xticklabels([r["query"] for r in table], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("seconds (hot median, log scale)")
    ax.set_yscale("log")
    ax.set_title(f"Web analytics, {args.rows:,} rows, {args.threads} threads")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--queries", default="", help="comma-separated query names (default: all)")
    p.add_argument("--timeout", type=int, default=300, help="seconds per query (warm-up + runs)")
    p.add_argument("--load-timeout", type=int, default=900)
    p.add_argument("--quiver-bin", default=str(tpch.QUIVER_BIN))
    p.add_argument("--results-dir", default=str(BENCH / "results"))
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--only", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        return worker(args)
    if tpch.VENV_PY.exists() and Path(sys.prefix).resolve() != (BENCH / ".venv").resolve():
        os.execv(str(tpch.VENV_PY), [str(tpch.VENV_PY), str(Path(__file__).resolve()), *sys.argv[1:]])
    if not Path(args.quiver_bin).exists():
        sys.exit(f"{args.quiver_bin} is missing: cargo build --release")
    data = ensure_data(args)
    names = [q["name"] for q in queries_for(args, "quiver")]
    if args.queries:
        wanted = args.queries.split(",")
        names = [n for n in names if n in wanted]
    by_engine = {}
    for e in args.engines.split(","):
        print(f"{e}:", flush=True)
        by_engine[e] = run_quiver(args, data, names) if e == "quiver" else run_peer(e, args, data, names)
    tpch.PACKAGES[:] = PACKAGES
    args.sf, args.rounds, args.queries = 0, 1, f"{len(names)} web-analytics queries"
    machine = tpch.machine_info(args).replace("run: sf=0 ", f"run: rows={args.rows} ")
    report(args, names, by_engine, machine)


if __name__ == "__main__":
    main()
