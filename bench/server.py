#!/usr/bin/env python3
"""`quiver serve` against MariaDB on the same machine and data.

Usage: bench/.venv/bin/python bench/server.py [--sf 0.1] [--stream-sf 1] [--seconds 10] [--clients 1,8,32]
       [--rounds 3]

- Data: TPC-H `lineitem` and `orders` at --sf (queries/s) and --stream-sf (streaming). Quiver: `quiver tpch gen` into
  bench/data/server-sf<SF> (made once). MariaDB 10.11: a private mariadbd with
  its own datadir bench/data/server-mariadb-sf<SF> (made once: tpchgen-cli tbl,
  LOAD DATA into InnoDB tables with their TPC-H primary keys), started and
  stopped by this script on its own port and socket.
- qps: for `SELECT 1`, TPC-H Q1 and Q6, N connections run the query back to
  back for --seconds; each finishes the query it is in, and qps = completed
  queries / time until the last one finished. `--client go` (the default):
  bench/server_load, one Go process with a goroutine per connection
  (go-sql-driver/mysql, text protocol), built on first use into
  target/server-load (Go must be installed); a compiled client costs a few
  microseconds per query, so the servers are what is measured. `--client
  pymysql`: N Python processes (PyMySQL, one connection each), whose own CPU
  took 1.5 of the 2 cores at 32 clients and decided the trivial query's rate. Both servers run side by side; each cell is
  measured --rounds times, alternating between the servers, and the median is
  reported (all rounds are in the CSV). Client processes' CPU time is recorded,
  and a COM_PING rate (the cheapest thing a server does) is measured as the load
  generator's ceiling on this machine.
- streaming: `SELECT l_orderkey, l_quantity FROM lineitem` (6M rows at SF1) read
  by the `mariadb` C client with --quick (rows as they come, nothing kept),
  piped into `wc -l`; once to warm up, then timed: rows/s = rows / wall time.
  The client side's CPU time and the server's RSS (at start, and its peak over
  both reads) are recorded.
- Writes bench/results/server.csv and server.png; bench/results/server.md discusses a run.
"""

import argparse
import csv
import datetime
import multiprocessing as mp
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "bench")
DATA = os.path.join(BENCH, "data")
RESULTS = os.path.join(BENCH, "results")
QUIVER_BUILD = os.path.join(REPO, "target", "release", "quiver")
TPCHGEN = os.path.join(BENCH, ".venv", "bin", "tpchgen-cli")
QUIVER_PORT, MARIADB_PORT = 13306, 13307

DDL = """
CREATE TABLE orders (
  o_orderkey BIGINT NOT NULL, o_custkey BIGINT NOT NULL, o_orderstatus CHAR(1) NOT NULL,
  o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority CHAR(15) NOT NULL,
  o_clerk CHAR(15) NOT NULL, o_shippriority INT NOT NULL, o_comment VARCHAR(79) NOT NULL,
  PRIMARY KEY (o_orderkey)
) ENGINE=InnoDB;
CREATE TABLE lineitem (
  l_orderkey BIGINT NOT NULL, l_partkey BIGINT NOT NULL, l_suppkey BIGINT NOT NULL,
  l_linenumber INT NOT NULL, l_quantity DECIMAL(15,2) NOT NULL,
  l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL,
  l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, l_linestatus CHAR(1) NOT NULL,
  l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL,
  l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) NOT NULL,
  PRIMARY KEY (l_orderkey, l_linenumber)
) ENGINE=InnoDB;
"""

Q1 = """SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty,
  SUM(l_extendedprice) AS sum_base_price,
  SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
  SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
  AVG(l_quantity) AS avg_qty, AVG(l_extendedprice) AS avg_price, AVG(l_discount) AS avg_disc,
  COUNT(*) AS count_order
FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"""

Q6 = """SELECT SUM(l_extendedprice * l_discount) AS revenue FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24"""

QUERIES = {"select1": "SELECT 1", "q1": Q1, "q6": Q6}
STREAM = "SELECT l_orderkey, l_quantity FROM lineitem"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


# ---------------------------------------------------------------- data

def quiver_db(sf, quiver):
    db = os.path.join(DATA, f"server-sf{sf}")
    done = db + ".complete"
    if not os.path.exists(done):
        shutil.rmtree(db, ignore_errors=True)
        print(f"quiver tpch gen --sf {sf}", flush=True)
        t = time.time()
        sh([quiver, "--db", db, "tpch", "gen", "--sf", str(sf)])
        print(f"  {time.time() - t:.0f} s", flush=True)
        open(done, "w").write("ok\n")
    return db


class MariaDB:
    def __init__(self, sf):
        self.root = os.path.join(DATA, f"server-mariadb-sf{sf}")
        self.datadir = os.path.join(self.root, "data")
        self.sock = os.path.join(self.root, "mysqld.sock")
        self.sf = sf
        self.proc = None
        self.common = ["--innodb-buffer-pool-size=4G", "--innodb-log-file-size=1G",
                       "--innodb-file-per-table=1", "--innodb-flush-log-at-trx-commit=0"]

    def client(self):
        return ["mariadb", "--no-defaults", f"--socket={self.sock}", "-uroot"]

    def start(self):
        fresh = not os.path.exists(os.path.join(self.root, "loaded"))
        if fresh:
            shutil.rmtree(self.root, ignore_errors=True)
            os.makedirs(self.root)
            with open(os.path.join(self.root, "install.log"), "w") as log:
                sh(["mariadb-install-db", "--no-defaults", f"--datadir={self.datadir}", "--user=root",
                    "--auth-root-authentication-method=normal", "--skip-test-db"] + self.common,
                   stdout=log, stderr=subprocess.STDOUT)
        self.proc = subprocess.Popen(
            ["mariadbd", "--no-defaults", f"--datadir={self.datadir}", f"--socket={self.sock}",
             f"--pid-file={self.root}/mysqld.pid", f"--log-error={self.root}/mysqld.err",
             f"--port={MARIADB_PORT}", "--bind-address=127.0.0.1", "--user=root",
             "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
             "--max-connections=200", "--secure-file-priv=", "--local-infile=1"] + self.common,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        for _ in range(240):
            if subprocess.run(["mariadb-admin", "--no-defaults", f"--socket={self.sock}", "-uroot",
                               "ping"], capture_output=True).returncode == 0:
                break
            time.sleep(0.5)
        else:
            raise SystemExit("mariadbd did not start")
        if fresh:
            self.load()

    def load(self):
        tbl = os.path.join(self.root, "tbl")
        os.makedirs(tbl, exist_ok=True)
        print(f"tpchgen-cli tbl -s {self.sf} lineitem,orders", flush=True)
        sh([TPCHGEN, "tbl", "-s", str(self.sf), "--tables=lineitem,orders", f"--output-dir={tbl}"])
        t = time.time()
        sql = "CREATE DATABASE quiver; USE quiver;" + DDL + "SET unique_checks=0, foreign_key_checks=0;"
        for table in ("orders", "lineitem"):
            sql += (f"LOAD DATA INFILE '{tbl}/{table}.tbl' INTO TABLE {table} FIELDS TERMINATED BY '|' "
                    "LINES TERMINATED BY '|\\n';")
        sql += "ANALYZE TABLE orders, lineitem;"
        print("loading into MariaDB", flush=True)
        sh(self.client(), input=sql.encode(), stdout=subprocess.DEVNULL)
        self.load_seconds = time.time() - t
        print(f"  loaded in {self.load_seconds:.0f} s", flush=True)
        shutil.rmtree(tbl)
        open(os.path.join(self.root, "loaded"), "w").write(f"{self.load_seconds:.0f}\n")

    def stop(self):
        if self.proc:
            subprocess.run(["mariadb-admin", "--no-defaults", f"--socket={self.sock}", "-uroot",
                            "shutdown"], capture_output=True)
            self.proc.wait(timeout=600)
            self.proc = None


class Quiver:
    def __init__(self, binary, db):
        self.binary, self.db, self.proc = binary, db, None

    def start(self):
        self.proc = subprocess.Popen(
            [self.binary, "--db", self.db, "serve", "--port", str(QUIVER_PORT),
             "--max-connections", "200"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import pymysql
        for _ in range(200):
            try:
                pymysql.connect(host="127.0.0.1", port=QUIVER_PORT, user="root").close()
                return
            except Exception:
                time.sleep(0.1)
        raise SystemExit("quiver serve did not start")

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


# ---------------------------------------------------------------- load

CLIENT = "go"


def worker(port, sql, seconds, barrier, out):
    import pymysql
    c = pymysql.connect(host="127.0.0.1", port=port, user="root", database="quiver")
    cur = c.cursor()
    ping = sql == "PING"
    barrier.wait()
    deadline = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < deadline:
        if ping:
            c.ping(reconnect=False)
        else:
            cur.execute(sql)
            cur.fetchall()
        n += 1
    end = time.perf_counter()
    c.close()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out.put((n, end, ru.ru_utime + ru.ru_stime))


SERVER_LOAD = os.path.join(REPO, "target", "server-load", "serverload")


def build_server_load():
    """Builds bench/server_load (Go) into target/server-load once."""
    if not os.path.exists(SERVER_LOAD):
        subprocess.run(["go", "build", "-o", SERVER_LOAD, "."], check=True,
                       cwd=os.path.join(REPO, "bench", "server_load"))


def qps_go(port, sql, clients, seconds):
    out = subprocess.run([SERVER_LOAD, "-port", str(port), "-sql", sql, "-clients", str(clients),
                          "-seconds", str(seconds)], capture_output=True, text=True, check=True)
    n, wall, cpu = out.stdout.split()
    n, wall, cpu = int(n), float(wall), float(cpu)
    return n / wall, n, wall, cpu


def qps(port, sql, clients, seconds):
    if CLIENT == "go":
        return qps_go(port, sql, clients, seconds)
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(clients + 1), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(port, sql, seconds, barrier, out)) for _ in range(clients)]
    for p in procs:
        p.start()
    barrier.wait()
    start = time.perf_counter()
    res = [out.get() for _ in procs]
    for p in procs:
        p.join()
    n = sum(r[0] for r in res)
    wall = max(r[1] for r in res) - start
    cpu = sum(r[2] for r in res)
    return n / wall, n, wall, cpu


def stream(port, server_pid):
    """One read of the whole result by `mariadb --quick` piped into `wc -l`;
    returns rows, wall seconds, the client side's CPU seconds, the server's peak RSS."""
    peak = [0.0]
    done = threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib(server_pid))
            time.sleep(0.02)

    threading.Thread(target=watch, daemon=True).start()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(
        f"mariadb --no-defaults -h127.0.0.1 -P{port} -uroot quiver --quick -B -N "
        f"-e '{STREAM}' | wc -l", shell=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    done.set()
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    rows = int(p.stdout.strip() or 0)
    if p.returncode != 0 or p.stderr.strip():
        print(f"  stream failed: {p.stderr.strip()}", flush=True)
    return rows, wall, cpu, peak[0], p.returncode == 0 and not p.stderr.strip()


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="0.1")
    ap.add_argument("--stream-sf", default="1")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--clients", default="1,8,32")
    ap.add_argument("--queries", default="select1,q1,q6")
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds per cell; the median is reported")
    ap.add_argument("--client", choices=["go", "pymysql"], default="go",
                    help="load generator for queries/s (see the module docstring)")
    args = ap.parse_args()
    global CLIENT
    CLIENT = args.client
    if CLIENT == "go":
        build_server_load()
    clients = [int(c) for c in args.clients.split(",")]
    os.makedirs(DATA, exist_ok=True)
    # A private copy: others rebuild target/release/quiver while this runs.
    quiver_bin = os.path.join(DATA, "quiver-server-bench")
    shutil.copyfile(QUIVER_BUILD, quiver_bin)
    os.chmod(quiver_bin, 0o755)
    version = subprocess.run([quiver_bin, "--version"], capture_output=True, text=True).stdout.strip()
    git = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    mdb_version = subprocess.run(["mariadbd", "--version"], capture_output=True, text=True).stdout.strip()

    def servers(sf):
        return [("quiver", Quiver(quiver_bin, quiver_db(sf, quiver_bin)), QUIVER_PORT),
                ("mariadb", MariaDB(sf), MARIADB_PORT)]

    class Rows(list):
        def append(self, r):
            r["load1"] = round(os.getloadavg()[0], 2)
            super().append(r)

    rows = Rows()
    print(f"load average at start {os.getloadavg()[0]:.2f}", flush=True)
    # Both servers run side by side and each cell is measured in rounds that
    # alternate between them (which one goes first alternates too): a noisy
    # minute then touches both, and the median of the rounds is reported.
    running = servers(args.sf)
    try:
        for name, srv, port in running:
            srv.start()
            # Warm-up: each query once (MariaDB's buffer pool, Quiver's page cache).
            for q in args.queries.split(","):
                qps(port, QUERIES[q], 1, 0.01)
        cells = [("ping", "PING", 8, args.seconds / 2)]
        cells += [(q, QUERIES[q], k, args.seconds) for q in args.queries.split(",") for k in clients]
        for test, sql, k, seconds in cells:
            results = {name: [] for name, _, _ in running}
            for rnd in range(args.rounds):
                order = running if rnd % 2 == 0 else running[::-1]
                for name, _, port in order:
                    results[name].append(qps(port, sql, k, seconds))
            for name, _, _ in running:
                runs = sorted(results[name], key=lambda x: x[0])
                r, n, wall, cpu = runs[len(runs) // 2]
                each = " ".join(f"{x[0]:.0f}" for x in results[name])
                unit = "ops/s" if test == "ping" else "q/s"
                print(f"{name:8} {test:9} {k:2} clients {r:9.1f} {unit} median of [{each}] "
                      f"(client CPU {cpu / wall:.2f} cores)", flush=True)
                rows.append(dict(server=name, sf=args.sf, test=test, clients=k, client=args.client,
                                 value=round(r, 2),
                                 unit=unit, count=n, seconds=round(wall, 3),
                                 client_cpu_cores=round(cpu / wall, 2),
                                 rounds=" ".join(f"{x[0]:.2f}" for x in results[name])))
    finally:
        for _, srv, _ in running:
            srv.stop()
    for name, srv, port in servers(args.stream_sf):
        srv.start()
        try:
            pid = srv.proc.pid
            rss0 = rss_mib(pid)
            for attempt in ("warm", "timed"):
                n, wall, cpu, peak, ok = stream(port, pid)
            print(f"{name:8} stream    {n} rows in {wall:.2f} s = {n / wall:,.0f} rows/s (client CPU "
                  f"{cpu:.2f} s); server RSS {rss0:.0f} MiB at start, peak {peak:.0f} MiB"
                  f"{'' if ok else ' (FAILED)'}", flush=True)
            rows.append(dict(server=name, sf=args.stream_sf, test="stream", clients=1, client="mariadb",
                             value=round(n / wall) if ok else 0, unit="rows/s", count=n,
                             seconds=round(wall, 3), client_cpu_cores=round(cpu / wall, 2),
                             server_rss_start_mib=round(rss0), server_rss_peak_mib=round(peak)))
        finally:
            srv.stop()

    fields = ["server", "sf", "test", "clients", "client", "value", "unit", "count", "seconds", "client_cpu_cores",
              "rounds", "server_rss_start_mib", "server_rss_peak_mib", "load1"]
    with open(os.path.join(RESULTS, "server.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})
    plot(rows, args)
    load1, load5, _ = os.getloadavg()
    print(f"sf={args.sf} stream_sf={args.stream_sf} client={args.client} {version} git {git}; {mdb_version}; "
          f"load average now {load1:.2f} {load5:.2f}")


def plot(rows, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    qs = args.queries.split(",")
    fig, axes = plt.subplots(1, len(qs) + 1, figsize=(4 * (len(qs) + 1), 3.6))
    for ax, q in zip(axes, qs):
        ks = sorted({r["clients"] for r in rows if r["test"] == q})
        for i, srv in enumerate(["quiver", "mariadb"]):
            vals = [next((r["value"] for r in rows if r["server"] == srv and r["test"] == q
                          and r["clients"] == k), 0) for k in ks]
            ax.bar([j + i * 0.4 for j in range(len(ks))], vals, 0.4, label=srv)
        ax.set_xticks([j + 0.2 for j in range(len(ks))], [str(k) for k in ks])
        ax.set_xlabel("clients")
        ax.set_title(f"{q} (queries/s)")
        ax.legend(fontsize=8)
    ax = axes[-1]
    vals = [next((r["value"] for r in rows if r["server"] == s and r["test"] == "stream"), 0)
            for s in ["quiver", "mariadb"]]
    ax.bar(["quiver", "mariadb"], [v / 1e6 for v in vals], color=["C0", "C1"])
    ax.set_title(f"stream SF{args.stream_sf} lineitem (M rows/s)", fontsize=9)
    fig.suptitle(f"quiver serve vs MariaDB 10.11: queries/s at TPC-H SF{args.sf} ({args.client} clients), "
                 f"streaming at SF{args.stream_sf} (mariadb --quick); 2 cores", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "server.png"), dpi=110)


if __name__ == "__main__":
    main()
