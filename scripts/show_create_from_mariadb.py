#!/usr/bin/env python3
"""Regenerate tests/show_create/golden.txt from MariaDB.

For each case of tests/show_create/cases.sql (a `-- table: NAME` line, then
its statements), a fresh database (utf8mb4 / utf8mb4_bin, as Quiver's
default) runs the statements and answers SHOW CREATE TABLE NAME. The text
is written as MariaDB gives it, with one change: ` ENGINE=InnoDB` is cut,
because Quiver has no storage engines and names none (MariaDB takes its
default engine for such a text). The Rust test
crates/quiver-engine/tests/show_create.rs compares Quiver's answers with
these and runs each of Quiver's texts again.

Usage: scripts/show_create_from_mariadb.py [--check]
Connection: 127.0.0.1:3307 as root (../shared/oracle/ starts one).
"""
import pathlib
import sys

import pymysql

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "tests/show_create/cases.sql"
GOLDEN = ROOT / "tests/show_create/golden.txt"


def cases(text):
    """(table, [statements]) per case."""
    out = []
    for line in text.splitlines():
        if line.startswith("-- table: "):
            out.append((line[len("-- table: "):].strip(), []))
        elif line.startswith("--") or not line.strip():
            continue
        elif out:
            out[-1][1].append(line)
    return [(t, [s.rstrip(";") for s in "\n".join(lines).split(";\n") if s.strip()]) for t, lines in out]


def main():
    check = "--check" in sys.argv
    conn = pymysql.connect(host="127.0.0.1", port=3307, user="root", autocommit=True)
    cur = conn.cursor()
    version = (cur.execute("SELECT VERSION()"), cur.fetchone()[0])[1]
    blocks = [f"# MariaDB {version}; written by scripts/show_create_from_mariadb.py\n"]
    for table, statements in cases(CASES.read_text()):
        cur.execute("DROP DATABASE IF EXISTS show_create")
        cur.execute("CREATE DATABASE show_create CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        cur.execute("USE show_create")
        for s in statements:
            cur.execute(s)
        cur.execute(f"SHOW CREATE TABLE {table}")
        text = cur.fetchone()[1].replace(" ENGINE=InnoDB", "")
        blocks.append("==== " + table + "\n" + ";\n".join(statements) + ";\n----\n" + text + "\n")
    cur.execute("DROP DATABASE IF EXISTS show_create")
    golden = "\n".join(blocks)
    if check:
        if GOLDEN.exists() and GOLDEN.read_text() == golden:
            return 0
        print(f"{GOLDEN} would change")
        return 1
    GOLDEN.write_text(golden)
    print(f"wrote {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
