#!/usr/bin/env bash
# Installs everything the test suite needs, then runs it:
#   1. a virtual environment (.venv) with the project and its test extras
#   2. PostgreSQL (Debian's package, a throwaway cluster on 127.0.0.1:55432)
#   3. the pinned reference MCP servers from the npm registry (tests/.npm), Debian's nginx
#      (tests/deploy run it with deploy/nginx.conf on 127.0.0.1:8080, replicas on :8001/:8002)
#      and tmux for the terminal tests (Debian's packages, like PostgreSQL)
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
bash scripts/nginx_start.sh --install
if ! command -v tmux >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "test.sh: installing Debian's tmux package" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >&2
    fi
    command -v tmux >/dev/null || { echo "test.sh: tmux is required (apt-get install tmux)" >&2; exit 1; }
fi
bash scripts/install_conformance.sh >/dev/null  # the official MCP conformance suite (tests/.npm-conformance)

python -m pytest -q -rs -p no:cacheprovider

if [ "${MCP_CHAT_SKIP_LOCALMODEL:-0}" != "1" ]; then
    python scripts/setup_local_model.py
    python -m pytest -q -rs -p no:cacheprovider -m localmodel tests/localmodel
fi
