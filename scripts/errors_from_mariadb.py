#!/usr/bin/env python3
"""Writes tests/errors/messages.txt: what a MariaDB server answers to each
statement of tests/errors/messages.sql -- `ok`, or the error's code, SQLSTATE
and message -- so that Quiver's error messages are checked against the real
ones (crates/quiver-engine/tests/error_messages.rs).

Needs the oracle (../shared/oracle, 127.0.0.1:3307, root) and PyMySQL
(the oracle's venv has it):
    /tmp/mariadb-oracle/venv/bin/python scripts/errors_from_mariadb.py
The statements run in order, in a scratch database named `quiver` in the
output (Quiver's one database). A statement ends with a line ending in ';'."""
import os
import sys

import pymysql
import pymysql.err

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "..", "tests", "errors")
SCRATCH = "quiver_errors"

# PyMySQL drops the SQLSTATE of an error packet; keep the last one seen.
_last_sqlstate = [None]
_raise = pymysql.err.raise_mysql_exception


def _capture(data):
    # errno (2 bytes) after the 0xff marker, then '#' and five characters.
    _last_sqlstate[0] = data[4:9].decode() if data[3:4] == b"#" else "HY000"
    _raise(data)


pymysql.err.raise_mysql_exception = _capture


def statements(path):
    lines = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not lines and (not line.strip() or line.startswith("--")):
            continue
        lines.append(line)
        if line.endswith(";"):
            yield "\n".join(lines)[:-1]
            lines = []
    if lines:
        sys.exit(f"{path}: the last statement has no ';'")


def main():
    port = int(os.environ.get("ORACLE_PORT", "3307"))
    c = pymysql.connect(host="127.0.0.1", port=port, user="root", charset="utf8mb4",
                        collation="utf8mb4_bin")
    cur = c.cursor()
    cur.execute("SELECT VERSION()")
    version = cur.fetchone()[0]
    cur.execute(f"DROP DATABASE IF EXISTS {SCRATCH}")
    cur.execute(f"CREATE DATABASE {SCRATCH}")
    cur.execute(f"USE {SCRATCH}")
    out = [f"# From MariaDB {version} by scripts/errors_from_mariadb.py; do not edit.",
           "# Each record: 'statement', its lines, '----', then 'ok' or",
           "# 'error <code> <sqlstate> <message>'."]
    for sql in statements(os.path.join(DIR, "messages.sql")):
        try:
            cur.execute(sql)
            cur.fetchall()
            answer = "ok"
        except pymysql.err.MySQLError as e:
            code, message = e.args[0], e.args[1]
            message = message.replace(SCRATCH, "quiver")
            answer = f"error {code} {_last_sqlstate[0]} {message}"
        out += ["statement", sql, "----", answer, ""]
    cur.execute(f"DROP DATABASE {SCRATCH}")
    path = os.path.join(DIR, "messages.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out))
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
