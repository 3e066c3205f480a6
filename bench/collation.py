#!/usr/bin/env python3
"""Collations at TPC-H scale: Quiver vs DuckDB, binary and case-insensitive, in one run.

    python bench/collation.py --sf 1 --threads 2 --runs 5

Eight string queries over lineitem / orders (equality on l_comment (one row
group after zone maps, and all of them), l_shipmode, l_returnflag; MIN/MAX of l_shipmode; MAX(l_comment); LIKE '%pending%deposits%'
on o_comment; GROUP BY l_shipmode), each

  - in Quiver under three collations: `binary` (VARBINARY columns, plain bytes),
    utf8mb4_bin (the default, PAD SPACE) and utf8mb4_general_ci, each from copies
    of the columns made the same way, once (CREATE TABLE ... AS SELECT
    CONVERT(col USING binary) / col COLLATE ... in Quiver's database), so that
    the three differ by collation only, not by how their pages were written;
  - in DuckDB (bench/.venv) binary and NOCASE (columns declared COLLATE NOCASE),
    from in-memory tables of the same parquet data.

Hot medians (1 warm-up + N runs) with the same thread count. Quiver times the
three collations of a query run by run in turn (`quiver sql --runs N --interleave`:
binary, bin, ci, binary, bin, ci, ...), so each run of utf8mb4_bin or general_ci
has a binary run next to it; the ratios to binary are the medians of these paired
per-run ratios over all rounds, which a slow spell of the machine moves much less
than a ratio of two medians timed minutes apart. Every result is
checked against DuckDB's (binary for binary and utf8mb4_bin, NOCASE for
general_ci). Writes bench/results/collation_sf<SF>_<T>t.{csv,png} and
collation_sf<SF>_<T>t_summary.md, with the targets of issue 3 evaluated.
See bench/README.md.
"""
import argparse
import csv
import json
import os
import shutil
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
VENV_PY = BENCH / ".venv" / "bin" / "python"
QUIVER_BIN = ROOT / "target" / "release" / "quiver"

# An l_comment value that exists at SF1 (tpchgen-rs 4.0 data), trailing space included;
# the 'zzle? slyly regular instruc ' is not in this generator's SF1 lineitem.
COMMENT = "zzle? slyly final platelets sleep quickly. "
# One from the middle of the range, so that zone maps skip nothing: every row
# group is scanned (its copy without the trailing space is not in the data, so
# PAD SPACE and binary count alike).
MID_COMMENT = "furiously regular requests wake carefully "

# (name, SQL template, kind): {l} and {o} are the lineitem / orders tables of a collation.
QUERIES = [
    ("eq_comment", f"SELECT COUNT(*) FROM {{l}} WHERE l_comment = '{COMMENT}'", "equality"),
    ("eq_comment_scan", f"SELECT COUNT(*) FROM {{l}} WHERE l_comment = '{MID_COMMENT}'", "equality"),
    ("eq_shipmode", "SELECT COUNT(*) FROM {l} WHERE l_shipmode = 'zzzz'", "equality"),
    ("eq_returnflag", "SELECT COUNT(*) FROM {l} WHERE l_returnflag = 'R'", "equality"),
    ("minmax_shipmode", "SELECT MIN(l_shipmode), MAX(l_shipmode) FROM {l}", "min/max"),
    ("max_comment", "SELECT MAX(l_comment) FROM {l}", "min/max"),
    ("like_ocomment", "SELECT COUNT(*) FROM {o} WHERE o_comment LIKE '%pending%deposits%'", "like"),
    ("groupby_shipmode", "SELECT l_shipmode, COUNT(*) FROM {l} GROUP BY l_shipmode", "group by"),
]

LINEITEM_COLS = ["l_comment", "l_shipmode", "l_returnflag"]
ORDERS_COLS = ["o_comment"]

# Collations compared: role -> (Quiver collation, Quiver lineitem, orders tables).
# Every role reads copies made by CREATE TABLE ... AS SELECT (the plain tables,
# written by `quiver tpch gen`, are utf8mb4_bin too but laid out by another writer).
QUIVER = {
    "binary": ("binary", "lineitem_binary", "orders_binary"),
    "utf8mb4_bin": ("utf8mb4_bin", "lineitem_bin", "orders_bin"),
    "utf8mb4_general_ci": ("utf8mb4_general_ci", "lineitem_ci", "orders_ci"),
}
# role -> (DuckDB collation, lineitem, orders tables). utf8mb4_bin has no DuckDB
# counterpart (no PAD SPACE collation); it is compared with DuckDB's binary.
DUCKDB = {
    "binary": ("binary", "lineitem", "orders"),
    "utf8mb4_general_ci": ("NOCASE", "lineitem_nocase", "orders_nocase"),
}
# Whose answer each Quiver collation must reproduce.
REFERENCE = {"binary": "binary", "utf8mb4_bin": "binary", "utf8mb4_general_ci": "utf8mb4_general_ci"}
ROLES = list(QUIVER)
BARS = [("quiver", r) for r in QUIVER] + [("duckdb", r) for r in DUCKDB]


def sf_name(sf):
    return f"sf{sf:g}"


def load_avg():
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def wait_quiet(threshold, max_wait):
    """Wait (up to max_wait seconds) for the 1-minute load average to drop below threshold."""
    t0 = time.monotonic()
    while True:
        load = load_avg()
        if load < threshold:
            print(f"load average {load:.2f} < {threshold}: starting", flush=True)
            return load
        waited = time.monotonic() - t0
        if waited >= max_wait:
            print(f"WARNING: load average still {load:.2f} after {waited:.0f}s: running anyway", flush=True)
            return load
        print(f"load average {load:.2f} >= {threshold}: waiting ({waited:.0f}/{max_wait:.0f}s)", flush=True)
        time.sleep(min(30, max_wait - waited))


def normalize(rows):
    """A result as one comparable string: cells joined by '|', rows sorted and joined by '; '."""
    def cell(v):
        if v is None or v == "NULL":
            return "NULL"
        return str(v)
    return "; ".join(sorted("|".join(cell(v) for v in r) for r in rows))


# ---------------------------------------------------------------- Quiver

def snapshot_quiver(args, tmp):
    """A private copy of the quiver binary, so that a rebuild by someone else during the run
    cannot mix two builds; what it was built from is recorded for the machine description."""
    src = Path(args.quiver_bin)
    built = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(src.stat().st_mtime))
    copy = Path(tmp) / "quiver"
    shutil.copy2(src, copy)
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True).stdout
    dirty = [l[3:] for l in git("status", "--porcelain", "--", "crates").splitlines() if l.strip()]
    args.quiver_build = (f"{src} built {built}; git HEAD at run start {git('rev-parse', '--short', 'HEAD').strip()}, "
                         + ("tree clean under crates/" if not dirty else
                            f"{len(dirty)} uncommitted file(s) under crates/: {', '.join(dirty)}"))
    args.quiver_bin = copy


def quiver_cmd(args, *rest):
    return [str(args.quiver_bin), "--db", str(args.quiver_db), "--threads", str(args.threads), *rest]


def run_quiver_sql(args, sql_or_file, fmt="json", extra=(), timeout=None):
    if isinstance(sql_or_file, Path):
        src = ["-f", str(sql_or_file)]
    else:
        src = [f"--execute={sql_or_file}"]  # a leading '--' comment would read as an option
    proc = subprocess.run(quiver_cmd(args, "sql", "--format", fmt, *extra, *src),
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"quiver: {proc.stderr.strip()}")
    return proc.stdout


def json_results(text):
    """The results of several statements printed one after the other as JSON arrays."""
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        value, i = dec.raw_decode(text, i)
        out.append([list(row.values()) for row in value])


def ensure_quiver_db(args):
    """Quiver's TPC-H database, generated once (the same folder and marker as tpch.py)."""
    done = args.data / "quiver-db.complete"  # kept outside quiver's own directory
    if done.exists():
        return
    print(f"  quiver: generating {args.quiver_db} ...", flush=True)
    t0 = time.perf_counter()
    subprocess.run([str(args.quiver_bin), "tpch", "gen", "--sf", f"{args.sf:g}", "--db", str(args.quiver_db)],
                   check=True, timeout=args.timeout)
    done.write_text(f"quiver tpch gen --sf {args.sf:g}: {time.perf_counter() - t0:.1f}s\n")


def ensure_quiver_tables(args):
    """The binary, utf8mb4_bin and general_ci copies of lineitem's and orders' string columns, made once."""
    want = {}
    for role in ROLES:
        coll, li, orders = QUIVER[role]
        want[li] = ("lineitem", LINEITEM_COLS, coll)
        want[orders] = ("orders", ORDERS_COLS, coll)
    for table, (source, cols, coll) in want.items():
        probe = (f"SELECT {', '.join(f'COLLATION({c})' for c in cols)}, "
                 f"(SELECT COUNT(*) FROM {table}) = (SELECT COUNT(*) FROM {source}) FROM {table} LIMIT 1")
        try:
            got = [[str(v) for v in row] for row in json_results(run_quiver_sql(args, probe))[0]]
            ok = got == [[coll] * len(cols) + ["1"]]
            if not ok:
                print(f"  quiver: {table} is {got}, not {coll} with {source}'s row count: recreating", flush=True)
                run_quiver_sql(args, f"DROP TABLE {table}")
        except RuntimeError as e:
            if "1146" not in str(e):  # anything but "table doesn't exist"
                raise
            ok = False
        if ok:
            continue
        if coll == "binary":
            select = ", ".join(f"CONVERT({c} USING binary) AS {c}" for c in cols)
        else:
            select = ", ".join(f"{c} COLLATE {coll} AS {c}" for c in cols)
        print(f"  quiver: CREATE TABLE {table} ({coll}) ...", flush=True)
        t0 = time.perf_counter()
        run_quiver_sql(args, f"CREATE TABLE {table} AS SELECT {select} FROM {source}")
        print(f"    done in {time.perf_counter() - t0:.1f}s", flush=True)
    # The plain tables must be utf8mb4_bin, the default.
    got = json_results(run_quiver_sql(args, "SELECT COLLATION(l_comment), COLLATION(l_shipmode), "
                                      "COLLATION(l_returnflag), (SELECT COLLATION(o_comment) FROM orders LIMIT 1) "
                                      "FROM lineitem LIMIT 1"))[0]
    if got != [["utf8mb4_bin"] * 4]:
        sys.exit(f"quiver: lineitem/orders string columns are {got}, expected utf8mb4_bin")


def quiver_script(with_names):
    """All queries, for each query its three collations back to back (so they share machine conditions)."""
    parts = []
    for name, sql, _ in QUERIES:
        for role in ROLES:
            _, li, orders = QUIVER[role]
            if with_names:
                parts.append(f"-- name: {name}/{role}")
            parts.append(sql.format(l=li, o=orders) + ";")
    return "\n".join(parts) + "\n"


def quiver_answers(args, results):
    """Every query's answer under every collation, from one `quiver sql` run."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "answers.sql"
        script.write_text(quiver_script(False))
        answers = json_results(run_quiver_sql(args, script, timeout=args.timeout))
    keys = [(n, r) for n, _, _ in QUERIES for r in ROLES]
    if len(answers) != len(keys):
        sys.exit(f"quiver printed {len(answers)} results for {len(keys)} queries")
    for key, rows in zip(keys, answers):
        results[("quiver",) + key] = dict(result=normalize(rows), round_medians=[])


def quiver_round(args, results):
    """One round of hot times: one `quiver sql --runs N --interleave` process over all queries,
    each query's collations timed run by run in turn."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "timed.sql"
        script.write_text(quiver_script(True))
        out = run_quiver_sql(args, script, fmt="csv", extra=("--runs", str(args.runs), "--interleave"),
                             timeout=args.timeout)
    for rec in csv.DictReader(out.splitlines()):
        name, role = rec["query"].split("/")
        r = results[("quiver", name, role)]
        r["round_medians"].append(float(rec["median_s"]))
        r.setdefault("runs", []).extend(float(t) for t in rec["runs_s"].split(";"))
        r["rows"] = int(rec["rows"])
        print(f"  quiver {name:<17} {role:<19} {r['round_medians'][-1]:.4f}s  {r['result'][:60]}", flush=True)


# ---------------------------------------------------------------- DuckDB

def duckdb_load(args):
    """In-memory tables of the columns the queries read: plain VARCHAR, and declared COLLATE NOCASE."""
    import duckdb
    con = duckdb.connect(":memory:")
    con.execute(f"SET threads = {args.threads}")
    con.execute("SET enable_progress_bar = false")
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    if int(threads) != args.threads:
        print(f"WARNING: duckdb reports {threads} threads, not {args.threads}", flush=True)
    t0 = time.perf_counter()
    for table, cols in (("lineitem", LINEITEM_COLS), ("orders", ORDERS_COLS)):
        src = f"read_parquet('{args.data / (table + '.parquet')}')"
        con.execute(f"CREATE TABLE {table} AS SELECT {', '.join(cols)} FROM {src}")
        decl = ", ".join(f"{c} VARCHAR COLLATE NOCASE" for c in cols)
        con.execute(f"CREATE TABLE {table}_nocase ({decl})")
        con.execute(f"INSERT INTO {table}_nocase SELECT {', '.join(cols)} FROM {src}")
    print(f"  duckdb: tables loaded in {time.perf_counter() - t0:.1f}s, {threads} threads", flush=True)
    return con, duckdb.__version__


def duckdb_round(args, con, results):
    """One round of hot times (1 warm-up + N runs per query); answers and pruning notes on the first."""
    for name, sql, _ in QUERIES:
        for role, (_, li, orders) in DUCKDB.items():
            q = sql.format(l=li, o=orders)
            rows = con.execute(q).fetchall()  # warm-up
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                con.execute(q).fetchall()
                times.append(time.perf_counter() - t)
            key = ("duckdb", name, role)
            if key not in results:
                results[key] = dict(result=normalize(rows), rows=len(rows), note=duckdb_pruning(con, q),
                                    round_medians=[])
            r = results[key]
            r["round_medians"].append(statistics.median(times))
            print(f"  duckdb {name:<17} {DUCKDB[role][0]:<19} {r['round_medians'][-1]:.4f}s  {r['result'][:60]}",
                  flush=True)


def duckdb_pruning(con, sql):
    """Whether DuckDB skipped data by its min/max statistics, from EXPLAIN ANALYZE ('' if not)."""
    try:
        plan = "\n".join(str(r[-1]) for r in con.execute("EXPLAIN ANALYZE " + sql).fetchall())
    except Exception:  # the note is informative only
        return ""
    groups = [(int(a), int(b)) for a, b in re.findall(r"Row Groups Scanned:\s*(\d+)\s*/\s*(\d+)", plan)]
    if "Table Scan" not in plan and "SEQ_SCAN" not in plan and "Empty Result" in plan:
        return "no table scan: the plan is an empty result, decided from column statistics"
    skipped = [(a, b) for a, b in groups if a < b]
    if skipped:
        return "scans " + ", ".join(f"{a} of {b} row groups" for a, b in skipped) + " (min/max statistics)"
    return ""


# ---------------------------------------------------------------- report

def check_answers(results):
    """Quiver's answer under each collation against DuckDB's reference answer; mismatches listed."""
    problems = []
    for name, _, _ in QUERIES:
        for role in ROLES:
            q = results.get(("quiver", name, role))
            ref = results.get(("duckdb", name, REFERENCE[role]))
            if not q or not ref:
                continue
            q["status"] = "ok" if q["result"] == ref["result"] else "MISMATCH"
            if q["status"] != "ok":
                problems.append(f"{name} under {role}: quiver {q['result']!r} but duckdb "
                                f"({DUCKDB[REFERENCE[role]][0]}) {ref['result']!r}")
        for role in DUCKDB:
            if ("duckdb", name, role) in results:
                results[("duckdb", name, role)]["status"] = "ok"
    return problems


def ratio(a, b):
    return a / b if a is not None and b else None


def quartiles(values):
    """(first quartile, median, third quartile) of values."""
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def paired_ratios(results):
    """Per query and Quiver collation: the quartiles of run i's time over binary's run i, over
    every run of every round (the runs were interleaved, so each pair ran back to back)."""
    for name, _, _ in QUERIES:
        base = results.get(("quiver", name, "binary"), {}).get("runs")
        for role in ROLES:
            r = results.get(("quiver", name, role), {})
            if base and r.get("runs") and len(r["runs"]) == len(base):
                r["paired"] = quartiles([t / b for t, b in zip(r["runs"], base)])


def paired(results, name, role):
    """The median paired ratio to binary, or None."""
    q = results.get(("quiver", name, role), {}).get("paired")
    return q[1] if q else None


def paired_cells(r):
    """The CSV cells median, first and third quartile of a result's paired ratios ('' when none)."""
    q = r.get("paired")
    return ["", "", ""] if not q else [f"{q[1]:.4f}", f"{q[0]:.4f}", f"{q[2]:.4f}"]


def fmt_paired(results, name, role):
    q = results.get(("quiver", name, role), {}).get("paired")
    return "" if not q else f"{q[1]:.2f}x ({q[0]:.2f}-{q[2]:.2f})"


def fmt_s(v):
    return "" if v is None else f"{v:.4f}"


def fmt_x(v):
    return "" if v is None else f"{v:.2f}x"


def evaluate(results):
    """The targets of issue 3, query by query: (target, query, value, limit, met)."""
    med = lambda e, n, r: results.get((e, n, r), {}).get("median_s")
    rows = []
    for name, _, kind in QUERIES:
        x = paired(results, name, "utf8mb4_bin")
        if x is not None:
            rows.append(("utf8mb4_bin within 5% of binary", name, x, 1.05, x <= 1.05))
    for name, _, kind in QUERIES:
        if kind in ("equality", "like"):
            x = paired(results, name, "utf8mb4_general_ci")
            if x is not None:
                rows.append(("utf8mb4_general_ci equality and LIKE within 1.5x of binary", name, x, 1.5, x <= 1.5))
    for name, _, _ in QUERIES:
        for role in ROLES:
            x = ratio(med("quiver", name, role), med("duckdb", name, REFERENCE[role]))
            if x is not None:
                rows.append((f"faster than DuckDB", f"{name} ({role} vs duckdb {DUCKDB[REFERENCE[role]][0]})",
                             x, 1.0, x < 1.0))
    return rows


def fmt_loads(loads):
    return ", ".join(f"{e} " + " ".join(f"{v:.2f}" for v in vs) for e, vs in loads.items())


def summary_markdown(args, results, problems, targets, loads, machine):
    med = lambda e, n, r: results.get((e, n, r), {}).get("median_s")
    rounds = (f", then the median of {args.rounds} such rounds (the engines alternating between rounds)"
              if args.rounds > 1 else "")
    out = [f"# Collation benchmark, TPC-H {sf_name(args.sf)}, {args.threads} threads",
           "",
           f"Hot medians of {args.runs} runs after 1 warm-up{rounds}, seconds. Quiver through `quiver sql --runs "
           f"{args.runs} --interleave` on its database ({args.quiver_db.relative_to(ROOT) if args.quiver_db.is_relative_to(ROOT) else args.quiver_db}), "
           "DuckDB on in-memory tables of the same tpchgen 4.0 parquet data, same thread count.",
           "",
           "- **binary** in Quiver is VARBINARY columns (plain bytes, with zone maps like the others). "
           "`utf8mb4_bin` (PAD SPACE) is Quiver's default. Each of Quiver's three collations reads copies of the "
           "string columns made the same way, with `CREATE TABLE ... AS SELECT CONVERT(col USING binary)` or "
           "`... AS SELECT col COLLATE ...`, so that they differ by collation only.",
           "- **bin / binary** and **ci / binary** are paired: Quiver timed a query's three collations run "
           "by run in turn (binary, bin, ci, binary, ...), and the ratio is the median over all runs of all "
           "rounds of run i's time over binary's run i (first-third quartile in brackets). The targets "
           "within Quiver use these; the seconds columns are medians of the rounds' medians.",
           "- DuckDB: `binary` is plain VARCHAR; NOCASE columns are declared `VARCHAR COLLATE NOCASE`. "
           "DuckDB has no PAD SPACE collation, so Quiver's `utf8mb4_bin` is compared with DuckDB's binary.",
           f"- `eq_comment` looks for `'{COMMENT}'`, a value that exists in this SF1 data (the issue's "
           "`'zzle? slyly regular instruc '` does not); zone maps leave one row group of it. "
           f"`eq_comment_scan` looks for `'{MID_COMMENT}'`, from the middle of the range: every row "
           "group is read.",
           f"- 1-minute load average when each engine's timed runs started (per round) and at the end: "
           + fmt_loads(loads) + ".",
           "",
           "| query | quiver binary | quiver utf8mb4_bin | bin / binary | quiver general_ci | ci / binary "
           "| duckdb binary | duckdb NOCASE | bin / duckdb | ci / duckdb NOCASE | answers |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, _, _ in QUERIES:
        qb, qbin, qci = (med("quiver", name, r) for r in ROLES)
        db, dci = med("duckdb", name, "binary"), med("duckdb", name, "utf8mb4_general_ci")
        st = [results.get(("quiver", name, r), {}).get("status", "?") for r in ROLES]
        answers = ("**MISMATCH**" if "MISMATCH" in st else "same" if all(s == "ok" for s in st)
                   else "not checked")
        out.append(f"| {name} | {fmt_s(qb)} | {fmt_s(qbin)} | {fmt_paired(results, name, 'utf8mb4_bin')} | "
                   f"{fmt_s(qci)} | {fmt_paired(results, name, 'utf8mb4_general_ci')} | {fmt_s(db)} | {fmt_s(dci)} | {fmt_x(ratio(qbin, db))} | "
                   f"{fmt_x(ratio(qci, dci))} | {answers} |")
    notes = [(n, DUCKDB[r][0], results[("duckdb", n, r)]["note"]) for n, _, _ in QUERIES for r in DUCKDB
             if results.get(("duckdb", n, r), {}).get("note")]
    if notes:
        out += ["", "DuckDB skipped data by its table statistics (seen in its EXPLAIN ANALYZE):", ""]
        out += [f"- {n} ({c}): {note}" for n, c, note in notes]
    out += ["", "## Targets (issue 3)", ""]
    by_target = {}
    for t in targets:
        by_target.setdefault(t[0], []).append(t)
    for target, rows in by_target.items():
        met = sum(r[4] for r in rows)
        out.append(f"- **{target}**: {met} of {len(rows)} met.")
        for _, q, x, limit, ok in rows:
            if not ok:
                out.append(f"  - MISS {q}: {x:.2f}x (limit {limit:.2f}x)")
    out += ["", "## Answers", ""]
    if problems:
        out.append("**Quiver's answers differ from DuckDB's:**")
        out += [f"- {p}" for p in problems]
    elif not any(e == "duckdb" for e, _, _ in results) or not any(e == "quiver" for e, _, _ in results):
        out.append("Not checked: both engines must run.")
    else:
        out.append("Every Quiver answer (counts, MIN/MAX values, groups) equals DuckDB's: binary and "
                   "utf8mb4_bin against DuckDB binary, utf8mb4_general_ci against DuckDB NOCASE.")
    out += ["", "Answers (quiver binary / utf8mb4_bin / general_ci | duckdb binary / NOCASE):", ""]
    for name, _, _ in QUERIES:
        vals = [results.get(("quiver", name, r), {}).get("result", "?") for r in ROLES]
        vals += [results.get(("duckdb", name, r), {}).get("result", "?") for r in DUCKDB]
        shown = vals[0] if len(set(vals)) == 1 else " / ".join(vals)
        out.append(f"- {name}: `{shown}`")
    out += ["", "## Machine", "", "```", machine.rstrip(), "```", ""]
    return "\n".join(out)


def plot(args, results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no chart")
        return
    names = [n for n, _, _ in QUERIES]
    labels = {("quiver", "binary"): "quiver binary (VARBINARY)",
              ("quiver", "utf8mb4_bin"): "quiver utf8mb4_bin",
              ("quiver", "utf8mb4_general_ci"): "quiver utf8mb4_general_ci",
              ("duckdb", "binary"): "duckdb binary",
              ("duckdb", "utf8mb4_general_ci"): "duckdb NOCASE"}
    colors = {("quiver", "binary"): "#1f4e79", ("quiver", "utf8mb4_bin"): "#2e75b6",
              ("quiver", "utf8mb4_general_ci"): "#9dc3e6", ("duckdb", "binary"): "#c55a11",
              ("duckdb", "utf8mb4_general_ci"): "#f4b183"}
    fig, ax = plt.subplots(figsize=(13, 5.5))
    width = 0.8 / len(BARS)
    for i, (engine, role) in enumerate(BARS):
        xs = [j + (i - (len(BARS) - 1) / 2) * width for j in range(len(names))]
        ys = [results.get((engine, n, role), {}).get("median_s") or 0 for n in names]
        ax.bar(xs, ys, width, label=labels[(engine, role)], color=colors[(engine, role)])
        for x, n in zip(xs, names):
            if results.get((engine, n, role), {}).get("status") == "MISMATCH":
                ax.annotate("!", (x, 0), ha="center", va="bottom", color="red", annotation_clip=False)
    ax.set_xticks(range(len(names)), names, fontsize=9)
    ax.set_ylabel("median seconds (hot)")
    if not args.linear:
        ax.set_yscale("log")
    rounds = f", median of {args.rounds} rounds" if args.rounds > 1 else ""
    ax.set_title(f"String collations, TPC-H {sf_name(args.sf)}, {args.threads} threads, median of {args.runs} "
                 f"hot runs{rounds} (! = answer differs from DuckDB)", fontsize=10)
    ax.legend(fontsize=8, ncol=len(BARS), loc="upper center", bbox_to_anchor=(0.5, -0.07), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def machine_info(args, duckdb_version, loads):
    """tpch.py's machine description, with this run's parameters."""
    import tpch
    info = tpch.machine_info(argparse.Namespace(quiver_bin=str(args.quiver_bin), sf=args.sf, threads=args.threads,
                                                runs=args.runs, rounds=args.rounds, rounds_rule="median of the rounds",
                                                engines=args.engines, queries="collation"))
    lines = [l for l in info.splitlines() if not l.startswith(("datafusion:", "polars:", "tpchgen-cli:"))]
    lines = [l if not l.startswith("duckdb:") else f"duckdb: {duckdb_version}" for l in lines]
    if getattr(args, "quiver_build", None):
        lines.append(f"quiver binary: {args.quiver_build}")
    lines.append("load average (1 min) at start of timed runs: " + fmt_loads(loads))
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", type=float, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5, help="timed runs per query, after 1 warm-up")
    p.add_argument("--rounds", type=int, default=1,
                   help="repeat the timing, engines alternating; the median of the rounds' medians is reported")
    p.add_argument("--engines", default="quiver,duckdb", help="quiver,duckdb (both needed to check answers)")
    p.add_argument("--quiver-bin", type=Path, default=QUIVER_BIN)
    p.add_argument("--results-dir", type=Path, default=BENCH / "results")
    p.add_argument("--max-load", type=float, default=1.5,
                   help="wait for the 1-minute load average to drop below this before timing")
    p.add_argument("--max-wait", type=float, default=1800, help="seconds to wait for a quiet machine, then run anyway")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per Quiver process")
    p.add_argument("--linear", action="store_true", help="linear y axis in the chart (default: log)")
    args = p.parse_args()

    if VENV_PY.exists() and Path(sys.prefix).resolve() != (BENCH / ".venv").resolve():
        os.execv(str(VENV_PY), [str(VENV_PY), str(Path(__file__).resolve()), *sys.argv[1:]])

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if set(engines) - {"quiver", "duckdb"}:
        sys.exit(f"unknown engines: {sorted(set(engines) - {'quiver', 'duckdb'})}")
    sys.path.insert(0, str(BENCH))
    import tpch
    args.data = tpch.ensure_data(args.sf)  # parquet, made once with tpchgen-cli as tpch.py does
    args.quiver_db = args.data / "quiver-db"
    tmp = tempfile.TemporaryDirectory()
    if "quiver" in engines:
        if not args.quiver_bin.exists():
            sys.exit(f"{args.quiver_bin} missing: cargo build --release -p quiver-cli")
        snapshot_quiver(args, tmp.name)
        ensure_quiver_db(args)
        print("== quiver tables", flush=True)
        ensure_quiver_tables(args)

    results, loads, duckdb_version = {}, {}, "not run"
    if "quiver" in engines:
        quiver_answers(args, results)
    if "duckdb" in engines:
        print("== duckdb tables", flush=True)
        con, duckdb_version = duckdb_load(args)
    wait_quiet(args.max_load, args.max_wait)
    # Rounds alternate the engines, so that a burst of load from elsewhere hits one round of each
    # rather than all of one engine's measurements.
    for rnd in range(1, args.rounds + 1):
        if "quiver" in engines:
            print(f"== quiver, round {rnd} of {args.rounds}", flush=True)
            loads.setdefault("quiver", []).append(load_avg())
            quiver_round(args, results)
        if "duckdb" in engines:
            print(f"== duckdb, round {rnd} of {args.rounds}", flush=True)
            loads.setdefault("duckdb", []).append(load_avg())
            duckdb_round(args, con, results)
    loads["end"] = [load_avg()]
    for r in results.values():
        if r.get("round_medians"):
            r["median_s"] = statistics.median(r["round_medians"])

    paired_ratios(results)
    problems = check_answers(results)
    targets = evaluate(results)
    machine = machine_info(args, duckdb_version, loads)

    out = args.results_dir
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"collation_{sf_name(args.sf)}_{args.threads}t"
    with open(f"{stem}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["query", "collation", "engine", "median_s", "result", "engine_collation", "status",
                    "round_medians_s", "paired_ratio_to_binary", "paired_ratio_q1", "paired_ratio_q3"])
        for name, _, _ in QUERIES:
            for engine, role in BARS:
                r = results.get((engine, name, role))
                if r is None:
                    continue
                engine_coll = QUIVER[role][0] if engine == "quiver" else DUCKDB[role][0]
                w.writerow([name, role, engine, f"{r['median_s']:.6f}" if "median_s" in r else "", r["result"],
                            engine_coll, r.get("status", ""),
                            ";".join(f"{m:.6f}" for m in r.get("round_medians", [])), *paired_cells(r)])
    summary = summary_markdown(args, results, problems, targets, loads, machine)
    Path(f"{stem}_summary.md").write_text(summary)
    plot(args, results, f"{stem}.png")

    print()
    print(summary)
    if problems:
        print("\n!!! ANSWERS DIFFER FROM DUCKDB !!!", file=sys.stderr)
        for line in problems:
            print("  " + line, file=sys.stderr)
    print(f"wrote {stem}.csv, {stem}.png, {stem}_summary.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
