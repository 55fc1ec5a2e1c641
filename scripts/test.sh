#!/usr/bin/env bash
# Installs everything the test suite needs, then runs it:
#   1. a virtual environment (.venv) with the project and its test extras
#   2. PostgreSQL (Debian's package, a throwaway cluster on 127.0.0.1:55432)
#   3. the pinned reference MCP server from the npm registry (tests/.npm)
#   4. the fast suite on SQLite and PostgreSQL, then the real-model suite
#      (llama-server + Qwen2.5-Coder-1.5B, built/fetched once into ~/.cache/mcp-chat)
# Set MCP_CHAT_SKIP_LOCALMODEL=1 to skip step 4's real-model suite.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e ".[test]"

TEST_POSTGRES_URL="$(bash scripts/pg_start.sh)"
export TEST_POSTGRES_URL
bash scripts/install_everything.sh >/dev/null
bash scripts/install_conformance.sh >/dev/null  # the official MCP conformance suite (tests/.npm-conformance)

python -m pytest -q -p no:cacheprovider

if [ "${MCP_CHAT_SKIP_LOCALMODEL:-0}" != "1" ]; then
    python scripts/setup_local_model.py
    python -m pytest -q -p no:cacheprovider -m localmodel tests/localmodel
fi
