#!/usr/bin/env python3
"""Writes crates/quiver-server/tests/golden/column_definitions.txt: the
column definitions (protocol 41) a MariaDB server sends for the result sets
of tests/golden/column_definitions.sql, read through PyMySQL.

Needs the oracle (../shared/oracle, 127.0.0.1:3307, root) and PyMySQL
(the oracle's venv has it):
    /tmp/mariadb-oracle/venv/bin/python scripts/server/column_definitions_from_mariadb.py
The statements run in a scratch database, named `quiver` in the output
(Quiver's one database)."""
import os
import sys

import pymysql

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "crates", "quiver-server", "tests", "golden")
SCRATCH = "quiver_coldefs"


def main():
    port = int(os.environ.get("ORACLE_PORT", "3307"))
    c = pymysql.connect(host="127.0.0.1", port=port, user="root", charset="utf8mb4",
                        collation="utf8mb4_general_ci")
    cur = c.cursor()
    cur.execute("SELECT VERSION()")
    version = cur.fetchone()[0]
    cur.execute(f"DROP DATABASE IF EXISTS {SCRATCH}")
    # Columns without a collation are utf8mb4_general_ci here whatever the
    # server's default: MariaDB flags a _bin column BINARY, which Quiver does
    # on purpose not (column_definitions_known.txt lists it once, for `vb`).
    cur.execute(f"CREATE DATABASE {SCRATCH} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
    cur.execute(f"USE {SCRATCH}")
    out = [f"# From MariaDB {version} by scripts/server/column_definitions_from_mariadb.py;",
           "# do not edit. A 'statement' runs, a 'query' is followed by its columns."]
    for line in open(os.path.join(GOLDEN, "column_definitions.sql"), encoding="utf-8"):
        sql = line.strip()
        if not sql or sql.startswith("--"):
            continue
        cur.execute(sql)
        fields = cur._result.fields if cur.description else None
        cur.fetchall()
        if not fields:
            out.append(f"statement {sql}")
            continue
        out.append(f"query {sql}")
        for f in fields:
            db = f.db.decode() if isinstance(f.db, bytes) else f.db
            db = "quiver" if db == SCRATCH else db
            out.append("  " + "\t".join([
                f"schema={db}", f"table={f.table_name}", f"org_table={f.org_table}",
                f"name={f.name}", f"org_name={f.org_name}", f"charset={f.charsetnr}",
                f"length={f.length}", f"type={f.type_code}", f"flags={f.flags}",
                f"decimals={f.scale}"]))
    cur.execute(f"DROP DATABASE {SCRATCH}")
    path = os.path.join(GOLDEN, "column_definitions.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
