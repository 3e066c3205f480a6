#!/usr/bin/env bash
# Installs the real MySQL clients that crates/quiver-server/tests/real_clients.rs
# drives: the `mariadb` command-line client (Debian package); in a venv at
# $QUIVER_CLIENT_VENV (default: target/server-clients-venv), PyMySQL and
# mysql-connector-python; and Go's go-sql-driver/mysql, built with
# scripts/server/go_check into target/server-go-check/gocheck (Go must be
# installed). Idempotent; run it before `cargo test` on a fresh machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${QUIVER_CLIENT_VENV:-$root/target/server-clients-venv}"

if ! command -v mariadb >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq mariadb-client >/dev/null
fi

if ! "$venv/bin/python" -c "import pymysql, mysql.connector" >/dev/null 2>&1; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "PyMySQL==1.1.1" "mysql-connector-python==9.1.0"
fi
gocheck="$root/target/server-go-check/gocheck"
(cd "$root/scripts/server/go_check" && go build -o "$gocheck" .)

echo "clients ready: $(command -v mariadb), $venv/bin/python (PyMySQL, mysql-connector-python), $gocheck (go-sql-driver/mysql)"
