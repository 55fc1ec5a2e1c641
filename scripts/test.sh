#!/usr/bin/env bash
# Installs what the test suite needs, then runs it. Tiers (README "테스트"):
#
#   bash scripts/test.sh          everything, as CI runs it (.ci/run):
#                                 1. a virtual environment (.venv) with the project and its test extras
#                                 2. PostgreSQL (Debian's package, a throwaway cluster on 127.0.0.1:55432),
#                                    the pinned npm MCP servers (tests/.npm), the MCP conformance suite
#                                    (tests/.npm-conformance), Debian's nginx, tmux, bash and zsh
#                                 3. the real-model tier (llama-server + Qwen2.5-Coder-1.5B, built or
#                                    fetched once into ~/.cache/mcp-chat), started in the background
#                                 4. meanwhile the main tier: every test but the real model's, on parallel
#                                    workers (SQLite and PostgreSQL, tmux, conformance, nginx on fixed ports)
#                                 The two run side by side: the real-model tier is one long sequence that
#                                 leaves about a third of the two cores idle (client starts, waits on the
#                                 terminal), which the main tier's workers fill. Its log follows the main's.
#   bash scripts/test.sh fast     the fast tier, before every commit: step 1, the npm servers, then
#                                 `pytest -m "not slow"` on parallel workers (SQLite only)
#
# MCP_CHAT_SKIP_LOCALMODEL=1 skips step 3; MCP_CHAT_TEST_WORKERS sets the number of workers
# (default 3 for everything, 4 for the fast tier: the tests spend much of their time waiting for
# child processes; on 2 cores the fast tier took 128 s with 4 against 137 s with 3, and 179 against
# 197 s beside two CPU burners; the main tier keeps 3 for its tmux and PostgreSQL tests). Each step's
# duration is printed as it ends and in a table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

TIER=${1:-all}
case "$TIER" in all | fast) ;; *) echo "usage: bash scripts/test.sh [fast]" >&2; exit 2 ;; esac
DEFAULT_WORKERS=3
[ "$TIER" = fast ] && DEFAULT_WORKERS=4
WORKERS=${MCP_CHAT_TEST_WORKERS:-$DEFAULT_WORKERS}
START=$SECONDS
STEP_START=$SECONDS
TIMES=()

step_done() {  # step_done NAME: record and print how long the step took
    local took=$((SECONDS - STEP_START))
    TIMES+=("$(printf '%-44s %5ds' "$1" "$took")")
    echo "test.sh: $1 took ${took}s" >&2
    STEP_START=$SECONDS
}

yardstick() {  # the machine's speed today: seconds for 10^7 additions in CPython (1.3 s on a slow day here)
    "${PYTHON:-python3}" -c 'import time
t = time.perf_counter(); s = 0
for i in range(10**7): s += i
print(f"{time.perf_counter() - t:.2f}")' 2>/dev/null || echo "?"
}
YARDSTICK_START=$(yardstick)

report() {  # on stderr: pytest's own closing line stays the last line on stdout
    local rc=$?
    if [ -n "${REAL_PID:-}" ] && kill -0 "$REAL_PID" 2>/dev/null; then  # stopped early: take the tier along
        pkill -INT -P "$REAL_PID" 2>/dev/null || true  # pytest tears its fixtures down on SIGINT
    fi
    {
        echo "test.sh: durations (tier $TIER, $WORKERS workers, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
            "10^7 additions ${YARDSTICK_START} s at the start, $(yardstick) s at the end)"
        for line in "${TIMES[@]}"; do echo "  $line"; done
        printf '  %-44s %5ds\n' "total" "$((SECONDS - START))"
    } >&2
    exit "$rc"
}
trap report EXIT

debian_install() {  # debian_install COMMAND PACKAGE: Debian's package when the command is missing
    command -v "$1" >/dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "test.sh: installing Debian's $2 package" >&2
        if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq >&2; APT_UPDATED=1; fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2
    fi
    command -v "$1" >/dev/null || { echo "test.sh: $1 is required (apt-get install $2)" >&2; exit 1; }
}

say() { echo "test.sh: $*" >&2; }  # what a step does, as it starts: nothing looks like a hang

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || { say "creating the virtual environment .venv"; "$PY" -m venv .venv; }
. .venv/bin/activate
# pip only when pyproject.toml changed since the last install into this .venv
STAMP=.venv/.mcp-chat-installed
if ! cmp -s pyproject.toml "$STAMP" 2>/dev/null; then
    say "installing the project and its test packages into .venv (uv; about a minute the first time)"
    # uv resolves the same pinned ranges as pip in a fraction of the time (8 s against 45 s here);
    # pip does it when uv cannot be had or fails
    if python -m pip install -q uv && python -m uv pip install -q --python "$(command -v python)" -e ".[test]"; then
        :
    else
        echo "test.sh: installing with pip" >&2
        python -m pip install -q --upgrade pip
        python -m pip install -q -e ".[test]"
    fi
    cp pyproject.toml "$STAMP"
fi
# the sources compiled once, before the workers start side by side: with PYTHONDONTWRITEBYTECODE=1
# (as in some shells) every client, server and daemon process the suite starts would compile them again
python -m compileall -q -j 0 client server plumbing tests init_db.py >/dev/null
step_done "setup: .venv and pip"

say "installing the npm MCP servers the tests use (tests/.npm; once)"
bash scripts/install_everything.sh >/dev/null
if [ "$TIER" = fast ]; then
    step_done "setup: npm MCP servers"
    python -m pytest -q -rs -p no:cacheprovider -n "$WORKERS" --dist loadgroup -m "not slow"
    step_done "fast tier: pytest -m 'not slow'"
    exit 0
fi

say "starting PostgreSQL and nginx, installing tmux, zsh, jq and the MCP conformance suite where missing"
TEST_POSTGRES_URL="$(bash scripts/pg_start.sh)"
export TEST_POSTGRES_URL
bash scripts/nginx_start.sh --install
debian_install tmux tmux  # both tiers drive the interactive client in tmux
debian_install zsh zsh  # tests/e2e/test_cli_habits.py checks the completion script's syntax
debian_install jq jq  # the README's scripts block pipes into jq (tests/e2e/test_readme.py runs it)
bash scripts/install_conformance.sh >/dev/null  # the official MCP conformance suite (tests/.npm-conformance)
step_done "setup: PostgreSQL, npm, nginx, tmux, zsh"

REAL_PID=""
if [ "${MCP_CHAT_SKIP_LOCALMODEL:-0}" != "1" ]; then
    say "preparing the local model (llama-server and its weights, built and fetched once into ~/.cache/mcp-chat)"
    python scripts/setup_local_model.py
    step_done "setup: local model"
    REAL_DIR=$(mktemp -d /tmp/mcp-chat-real-tier.XXXXXX)  # its own pytest folders and log
    (
        started=$SECONDS
        rc=0
        python -m pytest -q -rs -p no:cacheprovider --basetemp "$REAL_DIR/tmp" --durations=8 \
            -m localmodel tests/localmodel >"$REAL_DIR/log" 2>&1 || rc=$?
        echo "$rc $((SECONDS - started))" >"$REAL_DIR/done"
    ) &
    REAL_PID=$!
    echo "test.sh: real-model tier started in the background (log: $REAL_DIR/log)" >&2
fi

MAIN_RC=0
python -m pytest -q -rs -p no:cacheprovider -n "$WORKERS" --dist loadgroup --durations=15 || MAIN_RC=$?
step_done "main tier: pytest (all but the real model)"

if [ -n "$REAL_PID" ]; then
    wait "$REAL_PID" || true
    read -r REAL_RC REAL_TOOK <"$REAL_DIR/done" || { REAL_RC=1; REAL_TOOK=0; }
    echo "===== real-model tier (pytest -m localmodel tests/localmodel, alongside the main tier) =====" >&2
    cat "$REAL_DIR/log"
    step_done "waiting for the real-model tier after the main"
    TIMES+=("$(printf '%-44s %5ds' "real-model tier (alongside the main tier)" "$REAL_TOOK")")
    [ "$REAL_RC" = 0 ] && rm -rf "$REAL_DIR"
    [ "$MAIN_RC" = 0 ] || exit "$MAIN_RC"
    exit "$REAL_RC"
fi
exit "$MAIN_RC"
