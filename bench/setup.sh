#!/usr/bin/env bash
# Create bench/.venv with the pinned peer engines (see requirements.txt).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
if [ ! -x "$here/.venv/bin/python" ]; then
    "$python" -m venv "$here/.venv"
fi
"$here/.venv/bin/python" -m pip install --quiet --upgrade pip
"$here/.venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
echo "ready: $here/.venv/bin/python $here/tpch.py --help"
