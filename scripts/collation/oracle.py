"""Connection to the MariaDB oracle for the collation generator scripts.

The server is the one of /work/shared/oracle (127.0.0.1:3307, user root, no
password); override with COLL_MARIADB_HOST / COLL_MARIADB_PORT /
COLL_MARIADB_USER / COLL_MARIADB_PASSWORD. PyMySQL comes from the oracle's
venv: if it is not importable, `ensure_pymysql` re-executes the calling script
with that venv's python.
"""

import os
import sys


def ensure_pymysql(script):
    try:
        import pymysql  # noqa: F401
    except ImportError:
        venv = os.environ.get("ORACLE_VENV") or os.path.join(
            os.environ.get("TMPDIR", "/tmp"), "mariadb-oracle", "venv")
        py = os.path.join(venv, "bin", "python")
        if os.path.exists(py) and not os.environ.get("COLL_ORACLE_REEXEC"):
            os.environ["COLL_ORACLE_REEXEC"] = "1"
            os.execv(py, [py, os.path.abspath(script)] + sys.argv[1:])
        sys.exit("PyMySQL is not installed; run /work/shared/oracle/setup.sh")


def connect(database=None):
    import pymysql
    conn = pymysql.connect(
        host=os.environ.get("COLL_MARIADB_HOST", "127.0.0.1"),
        port=int(os.environ.get("COLL_MARIADB_PORT", "3307")),
        user=os.environ.get("COLL_MARIADB_USER", "root"),
        password=os.environ.get("COLL_MARIADB_PASSWORD", ""),
        database=database,
        charset="utf8mb4",
        autocommit=True,
    )
    with conn.cursor() as cur:
        # '' so that invalid bytes reach the collation functions with a
        # warning instead of an error where MariaDB allows it at all.
        cur.execute("SET sql_mode=''")
    return conn


def server_version(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT VERSION()")
        return cur.fetchone()[0]


def lit(b):
    """A string literal carrying the raw bytes `b` in the connection charset
    (utf8mb4). Invalid UTF-8 stays as it is: MariaDB keeps such bytes in a
    literal (it rejects them after an introducer like _utf8mb4 X'..')."""
    return b"'" + b.replace(b"\\", b"\\\\").replace(b"'", b"\\'").replace(b"\x00", b"\\0") + b"'"


def hexlit(b, charset):
    """`_charset X'..'`: exactly the bytes `b` as a string of that charset."""
    if not b:
        return ("_%s ''" % charset).encode()
    return ("_%s X'%s'" % (charset, b.hex().upper())).encode()
