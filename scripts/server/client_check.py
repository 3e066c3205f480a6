#!/usr/bin/env python3
"""Drives a running `quiver serve` with PyMySQL and mysql-connector-python
(pure Python and its C extension): accounts with both password plugins,
wrong passwords, DDL/DML, result types, prepared statements with every
parameter type, errors and multi-statements, DATETIME(n) through both
protocols (that part checked against MariaDB 10.11 too). Exits non-zero on the first
mismatch. Usage: client_check.py HOST PORT (the server's root has no password).
Run by crates/quiver-server/tests/real_clients.rs; set up by setup_clients.sh.
"""
import datetime
import sys
from decimal import Decimal

import mysql.connector
import pymysql

HOST, PORT = sys.argv[1], int(sys.argv[2])


def check(name, got, want):
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        sys.exit(1)


def expect_error(name, code, fn):
    try:
        fn()
    except (pymysql.err.MySQLError, mysql.connector.Error) as e:
        got = e.args[0] if isinstance(e, pymysql.err.MySQLError) else e.errno
        check(name, got, code)
        return
    print(f"FAIL {name}: no error, expected {code}")
    sys.exit(1)


root = pymysql.connect(host=HOST, port=PORT, user="root", password="", database="quiver", autocommit=True)
cur = root.cursor()
cur.execute("CREATE USER sha IDENTIFIED WITH caching_sha2_password BY 'sha-pw'")
cur.execute("CREATE USER nat IDENTIFIED WITH mysql_native_password BY 'nat-pw'")
cur.execute(
    "CREATE TABLE items (id INT NOT NULL, name VARCHAR(40), price DECIMAL(10,2), ratio DOUBLE,"
    " born DATE, seen DATETIME, big BIGINT UNSIGNED)"
)
rows = [
    (1, "a'b\\c \"q\" ;--", Decimal("9.99"), 0.5, datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5), 2**64 - 1),
    (2, None, None, None, None, None, None),
    (3, "Grüße 🎉", Decimal("-0.01"), -1e-300, datetime.date(1970, 1, 1), datetime.datetime(1999, 12, 31, 23, 59, 59), 0),
]
n = cur.executemany("INSERT INTO items VALUES (%s, %s, %s, %s, %s, %s, %s)", rows)
check("pymysql executemany rowcount", n, 3)
cur.execute("SELECT * FROM items ORDER BY id")
check("pymysql rows", cur.fetchall(), tuple(rows))
check(
    "pymysql description types",
    [d[1] for d in cur.description],
    [3, 253, 246, 5, 10, 12, 8],
)
check("pymysql null_ok of NOT NULL id", cur.description[0][6], False)  # NOT_NULL_FLAG, as MariaDB sends it
check("pymysql null_ok of nullable name", cur.description[1][6], True)
cur.execute("SELECT name FROM items WHERE name = %s", ("a'b\\c \"q\" ;--",))
check("pymysql escaping round trip", cur.fetchall(), (("a'b\\c \"q\" ;--",),))
expect_error("pymysql 1146", 1146, lambda: cur.execute("SELECT * FROM nope"))
expect_error("pymysql 1064", 1064, lambda: cur.execute("SELEC 1"))
print("PASS pymysql root: DDL, DML, types, errors")

for user, pw in [("sha", "sha-pw"), ("nat", "nat-pw")]:
    c = pymysql.connect(host=HOST, port=PORT, user=user, password=pw, database="quiver")
    k = c.cursor()
    k.execute("SELECT count(*) FROM items")
    check(f"pymysql {user}", k.fetchall(), ((3,),))
    c.close()
    expect_error(f"pymysql {user} wrong password", 1045,
                 lambda: pymysql.connect(host=HOST, port=PORT, user=user, password=pw + "x"))
print("PASS pymysql caching_sha2_password and mysql_native_password accounts")

multi = pymysql.connect(host=HOST, port=PORT, user="root", password="", database="quiver",
                        client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
k = multi.cursor()
k.execute("SELECT 1; SELECT 'two'; SELECT id FROM items WHERE id > 1 ORDER BY id")
sets = [k.fetchall()]
while k.nextset():
    sets.append(k.fetchall())
check("pymysql multi-statements", sets, [((1,),), (("two",),), ((2,), (3,))])
print("PASS pymysql multi-statements")

params = [
    0, -1, 127, -32768, 2147483647, -(2**63), 2**63 - 1,
    # The C extension sends floats as FLOAT (32 bits): values exact in both.
    1.5, -0.375, Decimal("12345.6789"), Decimal("-0.5"),
    "plain", "it's \\ \"quoted\" ; --", "Grüße 🎉", None,
    datetime.date(2024, 2, 29), datetime.datetime(2024, 12, 31, 23, 59, 58),
    datetime.datetime(2024, 12, 31, 23, 59, 58, 250000),
]
for pure in (True, False):
    label = "pure" if pure else "C extension"
    for user, pw in [("sha", "sha-pw"), ("nat", "nat-pw")]:
        m = mysql.connector.connect(host=HOST, port=PORT, user=user, password=pw, database="quiver", use_pure=pure)
        k = m.cursor()
        k.execute("SELECT id, name FROM items WHERE id = 3")
        check(f"connector {label} {user} text", k.fetchall(), [(3, "Grüße 🎉")])
        m.close()
    expect_error(f"connector {label} wrong password", 1045,
                 lambda: mysql.connector.connect(host=HOST, port=PORT, user="sha", password="no", use_pure=pure))
    m = mysql.connector.connect(host=HOST, port=PORT, user="sha", password="sha-pw", database="quiver", use_pure=pure)
    k = m.cursor(prepared=True)
    k.execute("SELECT " + ", ".join(["?"] * len(params)), params)
    got = list(k.fetchall()[0])
    check(f"connector {label} prepared parameters", got, params)
    k.execute("INSERT INTO items (id, name, price, born) VALUES (?, ?, ?, ?)",
              (10 + int(pure), "prepared", Decimal("1.25"), datetime.date(2000, 1, 1)))
    check(f"connector {label} prepared insert rowcount", k.rowcount, 1)
    k.execute("SELECT id, name, price, born, seen FROM items WHERE id = ?", (10 + int(pure),))
    check(f"connector {label} prepared select", k.fetchall(),
          [(10 + int(pure), "prepared", Decimal("1.25"), datetime.date(2000, 1, 1), None)])
    try:
        k.execute("SELECT * FROM nope WHERE a = ?", (1,))
        print(f"FAIL connector {label} prepared 1146: no error")
        sys.exit(1)
    except mysql.connector.Error as e:
        # The C extension reports prepare errors as InterfaceError without the
        # server's code (errno -1); the message is the server's.
        check(f"connector {label} prepared 1146", (e.errno if pure else 1146, e.msg),
              (1146, "Table 'quiver.nope' doesn't exist"))
    m.close()
    print(f"PASS mysql-connector-python ({label}): both plugins, prepared statements with every parameter type")

# A latin1 client (its handshake asks for latin1_swedish_ci, as SET NAMES
# latin1): statements and parameters are read as latin1 and result strings
# sent in it; what it stores reads back unchanged through a utf8mb4 client,
# and a character latin1 cannot hold reaches it as '?'.
lat = pymysql.connect(host=HOST, port=PORT, user="root", password="", database="quiver",
                      charset="latin1", autocommit=True)
lc = lat.cursor()
lc.execute("SELECT @@character_set_client, @@character_set_results, @@collation_connection")
check("latin1 client variables", lc.fetchall(), (("latin1", "latin1", "latin1_swedish_ci"),))
lc.execute("CREATE TABLE lat (id INT, u VARCHAR(10), l VARCHAR(10) CHARACTER SET latin1)")
lc.execute("INSERT INTO lat VALUES (1, 'café €', %s)", ("naïve ×",))
lc.execute("SELECT u, l FROM lat")
check("latin1 client reads", lc.fetchall(), (("café €", "naïve ×"),))
check("latin1 result charset id", [f.charsetnr for f in lc._result.fields], [8, 8])
cur.execute("INSERT INTO lat VALUES (2, '中文', 'x')")
cur.execute("SELECT u, l FROM lat ORDER BY id")
check("utf8mb4 client reads latin1 client's text", cur.fetchall(), (("café €", "naïve ×"), ("中文", "x")))
lc.execute("SELECT u FROM lat WHERE id = 2")
check("latin1 client gets ? for what latin1 cannot hold", lc.fetchall(), (("??",),))
lc.execute("SELECT COUNT(*) FROM lat WHERE l = 'NAÏVE ×'")
check("latin1 literal under latin1_swedish_ci", lc.fetchall(), ((1,),))
lat.close()
# The pure-Python connector: its C extension sends parameters in UTF-8 even
# on a latin1 connection (MariaDB then finds no row either).
for pure in (True,):
    m = mysql.connector.connect(host=HOST, port=PORT, user="root", password="", database="quiver",
                                charset="latin1", use_pure=pure)
    k = m.cursor(prepared=True)
    k.execute("SELECT id FROM lat WHERE l = ?", ("naïve ×",))
    check(f"connector latin1 prepared parameter (pure={pure})", k.fetchall(), [(1,)])
    k.execute("SELECT l FROM lat WHERE id = ?", (1,))
    check(f"connector latin1 prepared result (pure={pure})", k.fetchall(), [("naïve ×",)])
    m.close()
print("PASS latin1 client: statements, parameters and results in latin1")

# DATETIME(n): a parameter's microseconds are cut to the column's digits when
# stored; the column reads back at its precision in the text protocol
# (PyMySQL) and the binary one (a prepared cursor, MYSQL_TIME); NOW(3) has
# milliseconds only.
cur.execute("CREATE TABLE dtp (id INT, a DATETIME(3), b DATETIME)")
cur.execute("INSERT INTO dtp VALUES (1, %s, %s)",
            (datetime.datetime(2024, 5, 6, 7, 8, 9, 123456), datetime.datetime(2024, 5, 6, 7, 8, 9, 999999)))
want_dt = [(1, datetime.datetime(2024, 5, 6, 7, 8, 9, 123000), datetime.datetime(2024, 5, 6, 7, 8, 9))]
cur.execute("SELECT id, a, b FROM dtp")
check("pymysql DATETIME(3) text", [tuple(r) for r in cur.fetchall()], want_dt)
check("pymysql DATETIME(3) decimals", [f.scale for f in cur._result.fields], [0, 3, 0])
for pure in (True, False):
    m = mysql.connector.connect(host=HOST, port=PORT, user="root", password="", database="quiver", use_pure=pure)
    k = m.cursor(prepared=True)
    k.execute("INSERT INTO dtp VALUES (?, ?, ?)",
              (2 + int(pure), datetime.datetime(2024, 5, 6, 7, 8, 9, 654321), datetime.datetime(2024, 5, 6, 7, 8, 9, 5)))
    k.execute("SELECT id, a, b FROM dtp WHERE id = ?", (2 + int(pure),))
    check(f"connector DATETIME(3) prepared (pure={pure})", [tuple(r) for r in k.fetchall()],
          [(2 + int(pure), datetime.datetime(2024, 5, 6, 7, 8, 9, 654000), datetime.datetime(2024, 5, 6, 7, 8, 9))])
    k.execute("SELECT NOW(3), CAST(? AS DATETIME(2))", (datetime.datetime(2024, 5, 6, 7, 8, 9, 987654),))
    now3, cast2 = k.fetchall()[0]
    check(f"connector NOW(3) milliseconds (pure={pure})", now3.microsecond % 1000, 0)
    check(f"connector CAST AS DATETIME(2) (pure={pure})", cast2, datetime.datetime(2024, 5, 6, 7, 8, 9, 980000))
    m.close()
print("PASS DATETIME(n) through text and binary protocols")

# TIME parameters (datetime.timedelta, MYSQL_TYPE_TIME in COM_STMT_EXECUTE):
# hours past 24 and microseconds, read back as text. The pure-Python
# connector only: its C extension sends TIME parameters MariaDB reads as
# zeros too, and the pure one encodes a negative timedelta (days=-1) as
# MariaDB reads -47:59:00 for -1 minute.
for pure in (True,):
    m = mysql.connector.connect(host=HOST, port=PORT, user="root", password="", database="quiver", use_pure=pure)
    k = m.cursor(prepared=True)
    k.execute("SELECT CONCAT(?, ''), CONCAT(?, '')",
              (datetime.timedelta(hours=1, minutes=2, seconds=3),
               datetime.timedelta(days=1, seconds=5, microseconds=250000)))
    check(f"connector TIME parameters (pure={pure})", [tuple(r) for r in k.fetchall()],
          [("01:02:03", "24:00:05.250000")])
    m.close()
print("PASS TIME parameters through the binary protocol")

print("ALL PASSED")
