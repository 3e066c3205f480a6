#!/usr/bin/env python3
"""Regenerate the expected results of sqllogictest (.slt) files from MariaDB.

Quiver's reference for SQL semantics is a real MariaDB server. Test files under
tests/sql/ contain only SQL written by hand; every expected part (the result
rows, the column types, `statement ok` vs `statement error <code>`) is written
by this script from what MariaDB answers.

Usage:
    scripts/slt_from_mariadb.py [--check] [--keep] [PATH ...]

PATH is a .slt file or a directory (searched recursively for *.slt); the
default is tests/sql/ of the repository. For each file, a fresh database
`slt_<name>` is created (DROP + CREATE, default `utf8mb4` / `utf8mb4_bin`) on
one new connection, and the records are run in order.

What is rewritten, per record (everything else -- comments, blank lines,
control lines, record order and the SQL text -- is kept verbatim):
  statement ok | statement error ... | statement count N
      -> `statement ok`, or `statement error <errno>` if MariaDB failed
         (`statement count N` keeps its form with N = affected rows)
  query <types> [sortmode] [label] | query error ...
      -> `query <types> [sortmode] [label]` with the types taken from the
         result metadata (I integer, R decimal/floating, T anything else) and
         the rows below `----`, or `query error <errno>` if MariaDB failed.
Values are the text-protocol strings MariaDB sends (DECIMAL keeps its scale,
DOUBLE in MariaDB's shortest form, DATE as YYYY-MM-DD); SQL NULL is written
`NULL`, the empty string `(empty)`, the file's scratch database `quiver`
(Quiver's one database, as errors in SHOW WARNINGS name it); columns are
separated by one space. With
`rowsort` the rows are sorted, and with `valuesort` the values are sorted one
per line, the same way the Rust `sqllogictest` runner sorts the engine output.

Records under `skipif mysql` / `skipif mariadb`, or under `onlyif <label>`
for a label other than mysql / mariadb, are left untouched and not run.

--check   do not write; exit 1 if any file would change (lists them).
--keep    keep the slt_* databases after the run (default: drop them).

Connection: 127.0.0.1:3307 as root without password (the oracle of
/work/shared/oracle); override with SLT_MARIADB_HOST, SLT_MARIADB_PORT,
SLT_MARIADB_USER, SLT_MARIADB_PASSWORD, or SLT_MARIADB_SOCKET.
Needs PyMySQL; if it is not importable, the script re-executes itself with
the oracle venv's python ($ORACLE_VENV, default ${TMPDIR:-/tmp}/mariadb-oracle/venv).
"""

import argparse
import subprocess
import hashlib
import os
import re
import sys

try:
    import pymysql
except ImportError:  # re-exec under the oracle venv, once
    _venv = os.environ.get("ORACLE_VENV") or os.path.join(
        os.environ.get("TMPDIR", "/tmp"), "mariadb-oracle", "venv")
    _py = os.path.join(_venv, "bin", "python")
    if os.path.exists(_py) and not os.environ.get("SLT_FROM_MARIADB_REEXEC"):
        os.environ["SLT_FROM_MARIADB_REEXEC"] = "1"
        os.execv(_py, [_py, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("PyMySQL is not installed; run /work/shared/oracle/setup.sh "
             "or set ORACLE_VENV")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.join(REPO, "tests", "sql")

# Session setup run on every fresh connection. The database default collation
# and the connection collation are utf8mb4_bin (Quiver's default), so string
# literals and columns compare byte-wise (PAD SPACE).
SQL_MODE = ("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,"
            "NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION")
SESSION_SETUP = [
    "SET NAMES utf8mb4 COLLATE utf8mb4_bin",
    "SET SESSION sql_mode = '%s'" % SQL_MODE,
    "SET SESSION time_zone = '+00:00'",
    "SET SESSION div_precision_increment = 4",
]

# MySQL protocol column types (pymysql.constants.FIELD_TYPE)
INT_TYPES = {1, 2, 3, 8, 9, 13, 16}          # TINY SHORT LONG LONGLONG INT24 YEAR BIT
REAL_TYPES = {0, 4, 5, 246}                  # DECIMAL FLOAT DOUBLE NEWDECIMAL

SORT_MODES = ("nosort", "rowsort", "valuesort")


class SltError(Exception):
    pass


# --------------------------------------------------------------------------
# parsing: a file is a list of items; a record is regenerated, any other line
# (comment, blank, control/condition/...) is copied verbatim.
# --------------------------------------------------------------------------

class Record:
    def __init__(self, kind, header, sql_lines, line_no, conditions):
        self.kind = kind              # "statement" | "query"
        self.header = header          # tokens of the first line
        self.sql_lines = sql_lines
        self.line_no = line_no        # 1-based line of the header
        self.conditions = conditions  # [(skipif|onlyif, label)] preceding it
        self.terminated = False       # followed by a blank line in the source

    @property
    def sql(self):
        return "\n".join(self.sql_lines)


def parse(text, path):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    items = []
    conditions = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        tokens = line.split()
        if line.startswith("#") or not tokens:
            items.append(line)
            i += 1
            continue
        if tokens[0] in ("skipif", "onlyif") and len(tokens) == 2:
            conditions.append((tokens[0], tokens[1]))
            items.append(line)
            i += 1
            continue
        if tokens[0] not in ("statement", "query"):
            # control, hash-threshold, halt, subtest, include, ...: keep as is
            items.append(line)
            i += 1
            continue
        start = i
        i += 1
        sql_lines = []
        has_delim = False
        while i < n and lines[i] != "":
            if lines[i] == "----":
                has_delim = True
                i += 1
                break
            sql_lines.append(lines[i])
            i += 1
        if not sql_lines:
            raise SltError("%s:%d: record without SQL" % (path, start + 1))
        if has_delim:  # old results / multiline error: skip up to blank line
            while i < n and lines[i] != "":
                i += 1
        rec = Record(tokens[0], tokens[1:], sql_lines, start + 1, conditions)
        conditions = []
        if i < n and lines[i] == "":
            rec.terminated = True
            i += 1
        items.append(rec)
    return items


# --------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------

def connect(database=None):
    kw = dict(user=os.environ.get("SLT_MARIADB_USER", "root"),
              password=os.environ.get("SLT_MARIADB_PASSWORD", ""),
              charset="utf8mb4", autocommit=True,
              # encoders only, no decoders: values stay the text-protocol strings
              conv=dict(pymysql.converters.encoders))
    sock = os.environ.get("SLT_MARIADB_SOCKET")
    if sock:
        kw["unix_socket"] = sock
    else:
        kw["host"] = os.environ.get("SLT_MARIADB_HOST", "127.0.0.1")
        kw["port"] = int(os.environ.get("SLT_MARIADB_PORT", "3307"))
    if database:
        kw["database"] = database
    return pymysql.connect(**kw)


def ensure_time_zones(conn):
    """Loads the system tz database into the server's time zone tables when
    they are empty (a fresh server has none, and CONVERT_TZ of a named zone
    is then NULL): `mariadb-tzinfo-to-sql /usr/share/zoneinfo`, run by the
    `mariadb` client on the same connection settings."""
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM mysql.time_zone_name")
        if int(cur.fetchone()[0]) > 0:
            return
    script = subprocess.run(["mariadb-tzinfo-to-sql", "/usr/share/zoneinfo"],
                            check=True, capture_output=True).stdout
    client = ["mariadb", "-u", os.environ.get("SLT_MARIADB_USER", "root")]
    if os.environ.get("SLT_MARIADB_PASSWORD"):
        client.append("-p" + os.environ["SLT_MARIADB_PASSWORD"])
    if os.environ.get("SLT_MARIADB_SOCKET"):
        client += ["-S", os.environ["SLT_MARIADB_SOCKET"]]
    else:
        client += ["-h", os.environ.get("SLT_MARIADB_HOST", "127.0.0.1"),
                   "-P", os.environ.get("SLT_MARIADB_PORT", "3307")]
    subprocess.run(client + ["mysql"], input=script, check=True)
    print("loaded the time zone tables from /usr/share/zoneinfo", file=sys.stderr)


def db_name_for(path):
    try:
        rel = os.path.relpath(os.path.abspath(path), DEFAULT_DIR)
    except ValueError:
        rel = os.path.basename(path)
    if rel.startswith(".."):
        rel = os.path.basename(path)
    rel = re.sub(r"\.slt$", "", rel)
    name = "slt_" + re.sub(r"[^0-9A-Za-z]+", "_", rel).strip("_").lower()
    if len(name) > 64:
        name = name[:55] + "_" + hashlib.sha1(name.encode()).hexdigest()[:8]
    return name


# The scratch database of the file being run: Quiver's one database is
# `quiver`, so values naming it (an error in SHOW WARNINGS: "Table
# 'slt_x.t' doesn't exist") name `quiver` instead.
SCRATCH_DB = [None]


def fmt_value(v, where):
    if v is None:
        return "NULL"
    if isinstance(v, (bytes, bytearray)):
        v = bytes(v).decode("utf-8", errors="backslashreplace")
    else:
        v = str(v)
    if SCRATCH_DB[0]:
        v = v.replace(SCRATCH_DB[0], "quiver")
    if v == "":
        return "(empty)"
    if "\n" in v or "\r" in v:
        raise SltError("%s: value %r contains a line break; wrap it in HEX() or "
                       "REPLACE()" % (where, v))
    if v != v.strip() or "  " in v or "\t" in v:
        warn("%s: value %r has whitespace that the runner normalizes away; "
             "consider a marker like CONCAT('[', x, ']') or HEX(x)" % (where, v))
    return v


def col_type(type_code):
    if type_code in INT_TYPES:
        return "I"
    if type_code in REAL_TYPES:
        return "R"
    return "T"


WARNINGS = []


def warn(msg):
    WARNINGS.append(msg)
    print("warning: " + msg, file=sys.stderr)


def error_code(exc):
    if exc.args and isinstance(exc.args[0], int):
        return exc.args[0]
    raise exc


def skipped(rec):
    for kind, label in rec.conditions:
        label = label.lower()
        if kind == "skipif" and label in ("mysql", "mariadb"):
            return True
        if kind == "onlyif" and label not in ("mysql", "mariadb"):
            return True
    return False


def run_record(cur, rec, sort_mode_default, hash_threshold, where):
    """Run one record; return its regenerated text (without trailing blank)."""
    sql = rec.sql
    try:
        cur.execute(sql)
    except pymysql.err.MySQLError as exc:
        code = error_code(exc)
        if code in (2006, 2013):  # server gone / lost connection
            raise SltError("%s: lost the MariaDB connection: %s" % (where, exc))
        expected_error = rec.header[:1] == ["error"]
        if not expected_error:
            warn("%s: MariaDB error %d: %s" % (where, code, exc.args[1]))
        return "%s error %d\n%s" % (rec.kind, code, sql)

    if rec.kind == "statement":
        if rec.header[:1] == ["error"]:
            warn("%s: expected an error but MariaDB succeeded" % where)
        if rec.header[:1] == ["count"]:
            rest = rec.header[2:]
            head = " ".join(["statement", "count", str(cur.rowcount)] + rest)
        else:
            head = "statement ok"
        if cur.description is not None:
            cur.fetchall()
        return "%s\n%s" % (head, sql)

    # query
    old = rec.header
    sort_mode = None
    label = None
    extra = []
    if old and old[0] != "error":
        rest = old[1:]
        if rest and rest[0] in SORT_MODES:
            sort_mode = rest[0]
            rest = rest[1:]
        if rest and rest[0] != "retry":
            label = rest[0]
            rest = rest[1:]
        extra = rest
    if cur.description is None:
        warn("%s: query returned no result set" % where)
        types = old[0] if old and old[0] != "error" else "I"
        rows = []
    else:
        types = "".join(col_type(d[1]) for d in cur.description)
        rows = [[fmt_value(v, where) for v in row] for row in cur.fetchall()]
    mode = sort_mode or sort_mode_default
    if mode == "rowsort":
        rows.sort()
    elif mode == "valuesort":
        rows = sorted([v] for row in rows for v in row)
    elif len(rows) > 1 and not re.search(r"\border\s+by\b", sql, re.I):
        warn("%s: %d rows without ORDER BY under nosort" % (where, len(rows)))
    nvalues = len(rows) if mode == "valuesort" else len(rows) * len(types)
    if hash_threshold > 0 and nvalues > hash_threshold:
        md5 = hashlib.md5()
        for r in rows:
            for v in r:
                md5.update(v.encode("utf-8"))
                md5.update(b"\n")
        rows = [["%d values hashing to %s" % (nvalues, md5.hexdigest())]]
    head = ["query", types]
    if sort_mode:
        head.append(sort_mode)
    if label:
        head.append(label)
    head += extra
    out = [" ".join(head), sql, "----"]
    out += [" ".join(r) for r in rows]
    return "\n".join(out)


def process_file(conn, path, keep):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    items = parse(text, path)
    db = db_name_for(path)
    SCRATCH_DB[0] = db
    cur = conn.cursor()
    cur.execute("DROP DATABASE IF EXISTS `%s`" % db)
    cur.execute("CREATE DATABASE `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" % db)
    cur.execute("USE `%s`" % db)
    for s in SESSION_SETUP:
        cur.execute(s)

    out = []
    sort_mode_default = None
    hash_threshold = 0
    halted = False
    for idx, item in enumerate(items):
        if isinstance(item, str):
            out.append(item)
            tokens = item.split()
            if item.startswith("#"):
                continue
            if tokens[:2] == ["control", "sortmode"] and len(tokens) == 3:
                sort_mode_default = tokens[2]
            elif len(tokens) == 2 and tokens[0] == "hash-threshold":
                hash_threshold = int(tokens[1])
            elif tokens == ["halt"]:
                halted = True
            continue
        where = "%s:%d" % (os.path.relpath(path), item.line_no)
        if halted or skipped(item):
            # keep the record exactly as it was written: re-serialize the
            # original lines from the source
            out.append(original_text(text, item))
        else:
            out.append(run_record(cur, item, sort_mode_default, hash_threshold,
                                  where))
        is_last = all(isinstance(x, str) and x == "" for x in items[idx + 1:])
        if item.terminated or not is_last:
            out.append("")
    cur.close()
    if not keep:
        c2 = conn.cursor()
        c2.execute("DROP DATABASE IF EXISTS `%s`" % db)
        c2.close()
    # normalize the end of the file: exactly one newline
    while out and out[-1] == "":
        out.pop()
    return text, "\n".join(out) + "\n"


def original_text(text, rec):
    lines = text.split("\n")
    i = rec.line_no - 1
    j = i
    while j < len(lines) and lines[j] != "":
        j += 1
    return "\n".join(lines[i:j])


def collect(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(".slt"):
                        files.append(os.path.join(root, name))
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise SltError("no such file or directory: %s" % p)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", default=[DEFAULT_DIR])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if any file would change; write nothing")
    ap.add_argument("--keep", action="store_true",
                    help="keep the slt_* databases after the run")
    args = ap.parse_args()

    try:
        files = collect(args.paths)
        changed = []
        admin = connect()
        with admin.cursor() as cur:
            cur.execute("SELECT VERSION()")
            version = cur.fetchone()[0]
        ensure_time_zones(admin)
        admin.close()
        print("MariaDB %s, %d file(s)" % (version, len(files)), file=sys.stderr)
        for path in files:
            conn = connect()
            try:
                old, new = process_file(conn, path, args.keep)
            finally:
                conn.close()
            if old != new:
                changed.append(path)
                if not args.check:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(new)
    except SltError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    verb = "would change" if args.check else "updated"
    for path in changed:
        print("%s: %s" % (verb, os.path.relpath(path)))
    print("%d file(s), %d %s, %d warning(s)"
          % (len(files), len(changed), verb, len(WARNINGS)), file=sys.stderr)
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
