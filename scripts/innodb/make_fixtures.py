#!/usr/bin/env python3
"""Make the InnoDB tablespace fixtures in tests/innodb/fixtures/ with a real MariaDB.

What it does:
  1. For each page size (4K, 8K, 16K, 32K, 64K) initialises a private,
     throw-away MariaDB datadir under $TMPDIR/quiver-innodb-fixtures/ (never the
     shared oracle's) and starts `mariadbd` on a Unix socket only (no TCP port),
     with file_key_management (a fixed key file) and provider_lz4 loaded.
  2. Creates small tables in each on-disk format the instance supports, by
     setting innodb_checksum_algorithm / innodb_compression_algorithm before
     each CREATE TABLE (MariaDB picks the tablespace format when the file is
     created): full_crc32, crc32 (the pre-10.5 format), ROW_FORMAT=COMPRESSED
     KEY_BLOCK_SIZE 4 and 8 (2 on 4K pages), PAGE_COMPRESSED with zlib and LZ4,
     ENCRYPTED=YES, and encrypted + page-compressed. Rows are generated with the
     SEQUENCE engine so the tables get leaf and non-leaf index pages, a
     secondary index, BLOB pages (long TEXT values stored off-page) and, after a
     DELETE + purge, freed pages.
  3. Shuts the server down slowly (innodb_fast_shutdown=0: purge done, every
     dirty page flushed) and copies each .ibd, plus the 4K instance's ibdata1,
     to tests/innodb/fixtures/<name>.gz (gzip, no timestamp in the header).
  4. Checks that MariaDB's own innochecksum accepts every fixture and writes
     tests/innodb/fixtures/MANIFEST (name, page size, flags, pages).

The goldens are made from these committed files by scripts/innodb/make_goldens.py;
re-running this script makes new files (new LSNs), so re-run make_goldens.py after.

Usage:  python3 scripts/innodb/make_fixtures.py [--keep]   (--keep: leave the datadirs)
Needs:  mariadbd, mariadb-install-db, mariadb, mariadb-admin, innochecksum (MariaDB 10.11).
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import struct
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(REPO, "tests", "innodb", "fixtures")
ROOT = os.path.join(os.environ.get("TMPDIR", "/tmp"), "quiver-innodb-fixtures")
# A fixed, published test key: the fixtures hold no secrets.
KEY_LINE = "1;" + "0123456789abcdef" * 4 + "\n"

# Table bodies. Rows are deterministic (SEQUENCE engine); `b` has a secondary index;
# every 200th row carries a long TEXT stored off-page (BLOB / compressed BLOB pages).
COLUMNS = "(id INT PRIMARY KEY, a VARCHAR(200), b INT, c MEDIUMTEXT, KEY kb (b))"


def fill_sql(table: str, rows: int, blob_len: int) -> str:
    return (
        f"INSERT INTO {table} SELECT seq, "
        f"CONCAT(REPEAT(CHAR(65 + seq % 26), 20 + seq % 60), seq), "
        f"(seq * 7919) % 1000, "
        f"IF(seq % 200 = 0, REPEAT(MD5(seq), {blob_len} DIV 32), NULL) "
        f"FROM seq_1_to_{rows};\n"
        # Free some pages: rows in the middle go, purge frees their pages at slow shutdown.
        f"DELETE FROM {table} WHERE id BETWEEN {rows // 3} AND {rows // 2};\n"
    )


# (file name, checksum algorithm, table options, rows, blob length) per instance.
# KEY_BLOCK_SIZE must be below the page size; ROW_FORMAT=COMPRESSED needs <= 16K pages.
def tables_for(page_kb: int):
    # About five leaf pages of the primary key, a few BLOBs of 1.5 pages each.
    rows = min(250 * page_kb // 4, 1200)
    blob = 1536 * page_kb
    t = [
        ("fcrc32", "full_crc32", "", None),
        ("crc32", "crc32", "", None),
    ]
    if page_kb == 16:
        t += [
            ("zip4", "full_crc32", "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4", None),
            ("zip8", "full_crc32", "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8", None),
            ("zip8_crc32", "crc32", "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8", None),
            ("pc_zlib", "full_crc32", "PAGE_COMPRESSED=1", "zlib"),
            ("pc_lz4", "full_crc32", "PAGE_COMPRESSED=1", "lz4"),
            ("pc_zlib_crc32", "crc32", "PAGE_COMPRESSED=1", "zlib"),
            ("pc_lz4_crc32", "crc32", "PAGE_COMPRESSED=1", "lz4"),
            ("enc", "full_crc32", "ENCRYPTED=YES ENCRYPTION_KEY_ID=1", None),
            ("enc_crc32", "crc32", "ENCRYPTED=YES ENCRYPTION_KEY_ID=1", None),
            ("enc_pc", "full_crc32", "ENCRYPTED=YES ENCRYPTION_KEY_ID=1 PAGE_COMPRESSED=1", "zlib"),
            ("enc_pc_crc32", "crc32", "ENCRYPTED=YES ENCRYPTION_KEY_ID=1 PAGE_COMPRESSED=1", "zlib"),
            ("enc_zip8", "crc32", "ENCRYPTED=YES ENCRYPTION_KEY_ID=1 ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8", None),
        ]
    if page_kb == 4:
        t += [("zip2", "full_crc32", "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=2", None)]
    if page_kb == 8:
        t += [("zip4", "full_crc32", "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4", None)]
    # Encrypted pages do not compress: keep those files smaller.
    return [(name, algo, opts, comp, rows // 2 if "ENCRYPTED" in opts else rows, blob)
            for (name, algo, opts, comp) in t]


PAGE_SIZES = [4, 8, 16, 32, 64]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


class Server:
    def __init__(self, page_kb: int):
        self.page_kb = page_kb
        self.dir = os.path.join(ROOT, f"p{page_kb}k")
        self.datadir = os.path.join(self.dir, "data")
        self.sock = os.path.join(self.dir, "mysqld.sock")
        self.pidfile = os.path.join(self.dir, "mysqld.pid")
        self.keyfile = os.path.join(self.dir, "keys.txt")
        self.proc = None

    def common_args(self):
        return [
            f"--innodb-page-size={self.page_kb}k",
            "--innodb-file-per-table=1",
            "--innodb-buffer-pool-size=64M" if self.page_kb < 64 else "--innodb-buffer-pool-size=128M",
            "--innodb-log-file-size=32M",
            # Small system tablespace so ibdata1 can be a fixture too.
            "--innodb-data-file-path=ibdata1:1M:autoextend" if self.page_kb == 4 else "--innodb-data-file-path=ibdata1:12M:autoextend",
            "--innodb-undo-tablespaces=0",
            "--innodb-autoextend-increment=1",
            "--plugin-load-add=file_key_management",
            f"--file-key-management-filename={self.keyfile}",
            "--file-key-management-encryption-algorithm=aes_cbc",
            "--plugin-load-add=provider_lz4",
        ]

    def start(self):
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        with open(self.keyfile, "w") as f:
            f.write(KEY_LINE)
        with open(os.path.join(self.dir, "install.log"), "w") as log:
            run(
                ["mariadb-install-db", "--no-defaults", f"--datadir={self.datadir}", "--user=root",
                 "--auth-root-authentication-method=normal", "--skip-test-db"] + self.common_args(),
                stdout=log, stderr=subprocess.STDOUT,
            )
        log = open(os.path.join(self.dir, "mysqld.out"), "w")
        self.proc = subprocess.Popen(
            ["mariadbd", "--no-defaults", f"--datadir={self.datadir}", f"--socket={self.sock}",
             f"--pid-file={self.pidfile}", f"--log-error={self.dir}/mysqld.err", "--skip-networking",
             "--user=root"] + self.common_args(),
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        for _ in range(240):
            ok = subprocess.run(["mariadb-admin", "--no-defaults", f"--socket={self.sock}", "-uroot", "ping"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
            if ok:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.5)
        sys.stderr.write(open(f"{self.dir}/mysqld.err").read()[-3000:])
        raise SystemExit(f"server for {self.page_kb}K pages did not start")

    def sql(self, text: str):
        run(["mariadb", "--no-defaults", f"--socket={self.sock}", "-uroot"], input=text.encode())

    def stop(self):
        self.sql("SET GLOBAL innodb_fast_shutdown = 0;")
        run(["mariadb-admin", "--no-defaults", f"--socket={self.sock}", "-uroot", "shutdown"])
        self.proc.wait(timeout=600)


def make_instance(page_kb: int, out: list):
    srv = Server(page_kb)
    print(f"== {page_kb}K pages: {srv.dir}", flush=True)
    srv.start()
    try:
        script = "CREATE DATABASE fx; USE fx;\n"
        for (name, algo, opts, comp, rows, blob) in tables_for(page_kb):
            script += f"SET GLOBAL innodb_checksum_algorithm = {algo};\n"
            script += f"SET GLOBAL innodb_compression_algorithm = {comp or 'zlib'};\n"
            script += f"CREATE TABLE {name} {COLUMNS} ENGINE=InnoDB {opts};\n"
            script += fill_sql(name, rows, blob)
        srv.sql(script)
    finally:
        srv.stop()
    for (name, *_rest) in tables_for(page_kb):
        out.append((f"{name}_{page_kb}k.ibd", os.path.join(srv.datadir, "fx", f"{name}.ibd")))
    if page_kb == 4:
        out.append(("ibdata1_4k", os.path.join(srv.datadir, "ibdata1")))


def fsp_flags(data: bytes) -> int:
    return struct.unpack(">I", data[54:58])[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", action="store_true", help="keep the datadirs under $TMPDIR/quiver-innodb-fixtures")
    ap.add_argument("--page-sizes", default=",".join(map(str, PAGE_SIZES)), help="e.g. 4,16")
    args = ap.parse_args()
    os.makedirs(OUT_DIR, exist_ok=True)
    files: list = []
    for kb in [int(x) for x in args.page_sizes.split(",")]:
        make_instance(kb, files)
    manifest = []
    for (name, path) in files:
        data = open(path, "rb").read()
        rc = subprocess.run(["innochecksum", path], capture_output=True, text=True)
        first = (rc.stderr.strip().splitlines() or [""])[0]
        status = "ok" if rc.returncode == 0 else f"innochecksum exit {rc.returncode}: {first}"
        dest = os.path.join(OUT_DIR, name + ".gz")
        with open(dest, "wb") as f:
            # mtime=0 and no file name: the .gz is a function of the bytes only.
            with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as gz:
                gz.write(data)
        manifest.append(f"{name}\tbytes={len(data)}\tflags=0x{fsp_flags(data):x}\tgz={os.path.getsize(dest)}\t{status}")
        print(manifest[-1], flush=True)
    with open(os.path.join(OUT_DIR, "MANIFEST"), "w") as f:
        f.write("# made by scripts/innodb/make_fixtures.py with " +
                subprocess.run(["mariadbd", "--version"], capture_output=True, text=True).stdout.strip() + "\n")
        f.write("\n".join(manifest) + "\n")
    if not args.keep:
        shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
