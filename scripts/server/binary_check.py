#!/usr/bin/env python3
"""Binary strings through real clients: VARBINARY and BLOB columns filled
with bytes parameters (PyMySQL sends them escaped in the statement text,
as '..', or _binary'..' with binary_prefix=True; mysql-connector-python's
prepared cursor sends them raw in COM_STMT_EXECUTE), read back as bytes with their type codes and charset 63,
HEX() of the stored bytes, and a text column given bytes that are not UTF-8
refused with MariaDB's 1366. Exits non-zero on the first mismatch.
Usage: binary_check.py HOST PORT [DATABASE] (root without a password; the
database, default quiver, must exist). It passes against MariaDB 10.11 too.
Run by crates/quiver-server/tests/real_clients.rs; set up by setup_clients.sh.
"""
import sys

import mysql.connector
import pymysql

HOST, PORT = sys.argv[1], int(sys.argv[2])
DB = sys.argv[3] if len(sys.argv) > 3 else "quiver"

VAR_STRING, BLOB = 253, 252
BINARY_CHARSET = 63
BINARY_FLAG, BLOB_FLAG = 128, 16
# Every byte; nothing; and the bytes a text escaper must get right
# (NUL, quotes, backslash), with UTF-8 lead bytes left dangling.
VALUES = [bytes(range(256)), b"", b"\x00'\\\"", b"a\x00'\\\"z\xc3\xff\xe2\x82"]


def check(name, got, want):
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        sys.exit(1)


def rows_check(label, rows, kind=bytes):
    """rows: (id, vb, bl, HEX(vb), HEX(bl)) ordered by id; vb and bl of the
    Python type the client makes of a binary column (kind)."""
    check(f"{label} row count", len(rows), len(VALUES))
    for r in rows:
        want = VALUES[r[0]]
        check(f"{label} types of row {r[0]}", (type(r[1]), type(r[2])), (kind, kind))
        check(f"{label} varbinary row {r[0]}", bytes(r[1]), want)
        check(f"{label} blob row {r[0]}", bytes(r[2]), want)
        check(f"{label} HEX row {r[0]}", (r[3], r[4]), (want.hex().upper(), want.hex().upper()))


def incorrect_string(table, raw):
    """MariaDB's 1366 text for bytes a utf8mb4 column cannot hold: from the
    first byte that is not UTF-8, at most 6 bytes, each not ASCII printable
    as \\xHH (then ... if more follow)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raw = raw[e.start:]
    shown = "".join(chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02X}" for b in raw[:6])
    if len(raw) > 6:
        shown += "..."
    return f"Incorrect string value: '{shown}' for column `{DB}`.`{table}`.`t` at row 1"


# PyMySQL: parameters interpolated into COM_QUERY text, bytes as '...'
# with backslash escapes and the raw bytes (its default, binary_prefix=False).
conn = pymysql.connect(host=HOST, port=PORT, user="root", password="", database=DB,
                       charset="utf8mb4", autocommit=True)
cur = conn.cursor()
cur.execute("DROP TABLE IF EXISTS bin_py")
cur.execute("CREATE TABLE bin_py (id INT, vb VARBINARY(300), bl BLOB)")
for i, v in enumerate(VALUES):
    n = cur.execute("INSERT INTO bin_py VALUES (%s, %s, %s)", (i, v, v))
    check(f"pymysql insert {i} rowcount", n, 1)
cur.execute("SELECT id, vb, bl, HEX(vb), HEX(bl) FROM bin_py ORDER BY id")
rows_check("pymysql", cur.fetchall())
fields = cur._result.fields
check("pymysql type codes", [d[1] for d in cur.description[:3]], [3, VAR_STRING, BLOB])
check("pymysql charset of vb, bl", [f.charsetnr for f in fields[1:3]], [BINARY_CHARSET, BINARY_CHARSET])
check("pymysql BINARY_FLAG, BLOB_FLAG",
      [(f.flags & BINARY_FLAG, f.flags & BLOB_FLAG) for f in fields[1:3]],
      [(BINARY_FLAG, 0), (BINARY_FLAG, BLOB_FLAG)])
check("pymysql varbinary(300) length", fields[1].length, 300)
# Bytes as a parameter in a WHERE clause: compared as bytes, not as text.
cur.execute("SELECT id FROM bin_py WHERE vb = %s", (VALUES[3],))
check("pymysql bytes parameter in WHERE", cur.fetchall(), ((3,),))
cur.execute("SELECT id FROM bin_py WHERE bl = %s ORDER BY id", (b"",))
check("pymysql empty bytes in WHERE", cur.fetchall(), ((1,),))
cur.execute("SELECT LENGTH(vb), LENGTH(bl) FROM bin_py ORDER BY id")
check("pymysql LENGTH", cur.fetchall(), tuple((len(v), len(v)) for v in VALUES))
# With binary_prefix=True PyMySQL sends _binary'...' (as the mysql client does).
pre = pymysql.connect(host=HOST, port=PORT, user="root", password="", database=DB,
                      charset="utf8mb4", autocommit=True, binary_prefix=True)
pc = pre.cursor()
check("pymysql binary_prefix literal", pc.mogrify("%s", (b"ab",)), "_binary'ab'")
pc.execute("DROP TABLE IF EXISTS bin_pre")
pc.execute("CREATE TABLE bin_pre (id INT, vb VARBINARY(300), bl BLOB)")
for i, v in enumerate(VALUES):
    pc.execute("INSERT INTO bin_pre VALUES (%s, %s, %s)", (i, v, v))
pc.execute("SELECT id, vb, bl, HEX(vb), HEX(bl) FROM bin_pre ORDER BY id")
rows_check("pymysql binary_prefix", pc.fetchall())
pre.close()

# A text column refuses bytes that are not UTF-8 (strict mode, MariaDB's 1366):
# neither stored as '?' nor a dropped connection.
cur.execute("DROP TABLE IF EXISTS txt_py")
cur.execute("CREATE TABLE txt_py (id INT, t VARCHAR(20))")
for raw in [b"\xff\xfe", b"ok\xc3\x28", bytes(range(0x80, 0x88))]:
    try:
        cur.execute("INSERT INTO txt_py VALUES (1, %s)", (raw,))
        print(f"FAIL pymysql 1366 for {raw!r}: no error")
        sys.exit(1)
    except pymysql.err.MySQLError as e:
        check(f"pymysql 1366 for {raw!r}", (e.args[0], e.args[1]), (1366, incorrect_string("txt_py", raw)))
cur.execute("SELECT COUNT(*) FROM txt_py")
check("pymysql nothing stored after 1366", cur.fetchall(), ((0,),))
cur.execute("SELECT 1")
check("pymysql connection alive after 1366", cur.fetchall(), ((1,),))
print("PASS pymysql: bytes into VARBINARY and BLOB and back, HEX, type codes, 1366")

# mysql-connector-python, prepared (COM_STMT_EXECUTE with the bytes raw);
# pure Python and the C extension.
for pure in (True, False):
    label = "connector " + ("pure" if pure else "C extension")
    m = mysql.connector.connect(host=HOST, port=PORT, user="root", password="", database=DB,
                                use_pure=pure, autocommit=True)
    table = f"bin_cn{int(pure)}"
    plain = m.cursor()
    plain.execute(f"DROP TABLE IF EXISTS {table}")
    plain.execute(f"CREATE TABLE {table} (id INT, vb VARBINARY(300), bl BLOB)")
    k = m.cursor(prepared=True)
    for i, v in enumerate(VALUES):
        k.execute(f"INSERT INTO {table} VALUES (?, ?, ?)", (i, v, v))
        check(f"{label} insert {i} rowcount", k.rowcount, 1)
    k.execute(f"SELECT id, vb, bl, HEX(vb), HEX(bl) FROM {table} WHERE id >= ? ORDER BY id", (0,))
    rows = k.fetchall()
    check(f"{label} type codes", [d[1] for d in k.description[:3]], [3, VAR_STRING, BLOB])
    check(f"{label} binary flags", [d[7] & BINARY_FLAG for d in k.description[1:3]], [BINARY_FLAG, BINARY_FLAG])
    # (The C extension gives bytearray for binary columns, from MariaDB too.)
    rows_check(label, rows, bytes if pure else bytearray)
    k.execute(f"SELECT id FROM {table} WHERE vb = ?", (VALUES[0],))
    check(f"{label} bytes parameter in WHERE", k.fetchall(), [(0,)])
    # Rows the server stored from PyMySQL's text read back the same here.
    k.execute("SELECT vb FROM bin_py WHERE id = ?", (3,))
    check(f"{label} reads PyMySQL's bytes", [bytes(r[0]) for r in k.fetchall()], [VALUES[3]])
    plain.execute(f"DROP TABLE IF EXISTS txt_{table}")
    plain.execute(f"CREATE TABLE txt_{table} (id INT, t VARCHAR(20))")
    raw = b"\xff\xfe"
    try:
        k.execute(f"INSERT INTO txt_{table} VALUES (?, ?)", (1, raw))
        print(f"FAIL {label} 1366: no error")
        sys.exit(1)
    except mysql.connector.Error as e:
        # The C extension reports an execute error without the server's code
        # (errno -1, its own prefix); the text is the server's.
        want = incorrect_string(f"txt_{table}", raw)
        want = (1366, want) if pure else (-1, "Error while executing statement: " + want)
        check(f"{label} 1366", (e.errno, e.msg), want)
    k.execute(f"SELECT COUNT(*) FROM txt_{table} WHERE id = ?", (1,))
    check(f"{label} nothing stored after 1366", k.fetchall(), [(0,)])
    m.close()
    print(f"PASS mysql-connector-python ({label}): prepared bytes round trip, type codes, 1366")

print("ALL PASSED")
