#!/usr/bin/env bash
# The whole test suite on a fresh machine (what CI runs, via .ci/run):
# installs the real MySQL clients the server tests drive (mariadb, PyMySQL,
# mysql-connector-python, go-sql-driver/mysql), then runs every Rust test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/server/setup_clients.sh
cargo test --release --workspace
