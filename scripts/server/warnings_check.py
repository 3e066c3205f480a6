#!/usr/bin/env python3
"""Warnings over the wire: the count a statement's OK packet or the EOF /
OK that ends its rows carries (PyMySQL's `warning_count`, both cursors of
mysql-connector-python), and SHOW WARNINGS through the clients after it.
Exits non-zero on the first mismatch.
Usage: warnings_check.py HOST PORT [DATABASE] (root without a password; the
database, default quiver, must exist). It passes against MariaDB 10.11 too.
Run by crates/quiver-server/tests/real_clients.rs; set up by setup_clients.sh.
"""
import sys

import mysql.connector
import pymysql

HOST, PORT = sys.argv[1], int(sys.argv[2])
DB = sys.argv[3] if len(sys.argv) > 3 else "quiver"
DIV0 = ("Warning", 1365, "Division by 0")


def check(name, got, want):
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        sys.exit(1)


conn = pymysql.connect(host=HOST, port=PORT, user="root", password="", database=DB,
                       autocommit=True)
cur = conn.cursor()


def run(sql):
    """Runs `sql` and gives (rows, the count of its last packet)."""
    cur.execute(sql)
    rows = cur.fetchall()
    return rows, conn._result.warning_count


def warnings():
    cur.execute("SHOW WARNINGS")
    return list(cur.fetchall())


run("DROP TABLE IF EXISTS wc")
run("CREATE TABLE wc (id INT, a INT, s VARCHAR(10))")
run("INSERT INTO wc VALUES (1, 1, '1a'), (2, 0, 'x'), (3, NULL, '2')")

# Rows ended by EOF: the statement's count.
check("1/0 count", run("SELECT 1/0")[1], 1)
check("1/0 warnings", warnings(), [DIV0])
check("SHOW WARNINGS raises none", run("SHOW WARNINGS")[1], 0)
check("per row", run("SELECT 10/a FROM wc ORDER BY id")[1], 1)
check("per row, strings", run("SELECT s + 0 FROM wc ORDER BY id")[1], 2)
check(
    "string messages",
    warnings(),
    [("Warning", 1292, "Truncated incorrect DOUBLE value: '1a'"),
     ("Warning", 1292, "Truncated incorrect DOUBLE value: 'x'")],
)
check("none", run("SELECT a FROM wc ORDER BY id")[1], 0)
check("none left", warnings(), [])
# A statement that raises nothing and reads no table keeps the list, but
# its own packet counts none.
run("SELECT 1/0, 2/0")
check("SELECT 1 counts none", run("SELECT 1")[1], 0)
check("SELECT 1 keeps the list", warnings(), [DIV0, DIV0])
check("@@warning_count", run("SELECT @@warning_count")[0], ((2,),))
check("show_warnings()", [tuple(w) for w in conn.show_warnings()], [DIV0, DIV0])

# OK packets: notes of DDL.
check("DROP TABLE IF EXISTS count", run("DROP TABLE IF EXISTS wc_missing")[1], 1)
check("DROP TABLE IF EXISTS note", warnings(),
      [("Note", 1051, f"Unknown table '{DB}.wc_missing'")])
check("CREATE TABLE IF NOT EXISTS count", run("CREATE TABLE IF NOT EXISTS wc (a INT)")[1], 1)
check("CREATE TABLE IF NOT EXISTS note", warnings(),
      [("Note", 1050, "Table 'wc' already exists")])
check("CREATE DATABASE IF NOT EXISTS count", run(f"CREATE DATABASE IF NOT EXISTS {DB}")[1], 1)
check("CREATE DATABASE IF NOT EXISTS note", warnings(),
      [("Note", 1007, f"Can't create database '{DB}'; database exists")])
check("DROP DATABASE IF EXISTS count", run("DROP DATABASE IF EXISTS wc_no_database")[1], 1)
check("DROP DATABASE IF EXISTS note", warnings(),
      [("Note", 1008, "Can't drop database 'wc_no_database'; database doesn't exist")])
check("SET counts none", run("SET @x = 1")[1], 0)

# An error: the list, SHOW ERRORS and @@error_count.
try:
    cur.execute("SELECT * FROM wc_missing")
    check("error", "no error", 1146)
except pymysql.err.MySQLError as e:
    check("error code", e.args[0], 1146)
check("error in SHOW WARNINGS", warnings(),
      [("Error", 1146, f"Table '{DB}.wc_missing' doesn't exist")])
check("@@error_count", run("SELECT @@warning_count, @@error_count")[0], ((1, 1),))

# More than max_error_count: all counted, 64 kept.
many = " UNION ALL ".join(f"SELECT {i}/0" for i in range(70))
check("70 warnings", run(many)[1], 70)
check("64 kept", len(warnings()), 64)
check("SHOW COUNT(*) WARNINGS", run("SHOW COUNT(*) WARNINGS")[0], ((70,),))

# mysql-connector-python, pure and C (rows end with an OK under
# DEPRECATE_EOF where the client asks for it).
for pure in (True, False):
    try:
        c = mysql.connector.connect(host=HOST, port=PORT, user="root", password="",
                                    database=DB, use_pure=pure)
    except (ImportError, mysql.connector.Error) as e:
        if pure:
            raise
        print(f"skip C extension: {e}")
        continue
    # The C extension's prepared cursor does not read the count (0 from
    # MariaDB too).
    for prepared in (False, True) if pure else (False,):
        label = f"connector pure={pure} prepared={prepared}"
        k = c.cursor(prepared=prepared)
        k.execute("SELECT 10/a FROM wc ORDER BY id")
        k.fetchall()
        check(f"{label} rows count", k.warning_count, 1)
        k.execute("SELECT a FROM wc ORDER BY id")
        k.fetchall()
        check(f"{label} none", k.warning_count, 0)
        k.close()
    k = c.cursor()
    k.execute("DROP TABLE IF EXISTS wc_missing")
    check(f"connector pure={pure} OK count", k.warning_count, 1)
    k.close()
    c.close()

run("DROP TABLE wc")
print("ALL PASSED")
