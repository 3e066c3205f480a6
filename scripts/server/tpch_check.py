#!/usr/bin/env python3
"""Runs TPC-H queries through PyMySQL against a running `quiver serve` and
compares every row with the answers of an embedded session, which the caller
wrote to FILE as JSON: [{"n": 1, "sql": "...", "rows": [["A", "1.00", null], ...]}, ...].

PyMySQL runs with no converters, so each value arrives as the server's text
(the text protocol's bytes), the same text the embedded session's rows give.
Prints one PASS/FAIL line per query, then ALL PASSED or exits 1.
Usage: tpch_check.py HOST PORT FILE. Run by crates/quiver-server/tests/real_clients.rs.
"""

import json
import sys

import pymysql

HOST, PORT, FILE = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(FILE, encoding="utf-8") as f:
    cases = json.load(f)

conn = pymysql.connect(host=HOST, port=PORT, user="root", password="", database="quiver", conv={})
cur = conn.cursor()
failed = 0
for case in cases:
    cur.execute(case["sql"])
    # Columns of charset binary (numbers, dates) come as bytes without a converter.
    got = [[v.decode() if isinstance(v, bytes) else v for v in row] for row in cur.fetchall()]
    if got == case["rows"]:
        print(f"PASS Q{case['n']}: {len(got)} rows")
    else:
        failed += 1
        diff = next((i for i, (a, b) in enumerate(zip(got, case["rows"])) if a != b), min(len(got), len(case["rows"])))
        print(f"FAIL Q{case['n']}: {len(got)} rows, want {len(case['rows'])}; first difference at row {diff}: "
              f"{got[diff] if diff < len(got) else None} vs {case['rows'][diff] if diff < len(case['rows']) else None}")
conn.close()
if failed:
    sys.exit(1)
print("ALL PASSED")
