#!/usr/bin/env bash
# Stop the throwaway cluster started by scripts/pg_start.sh.
#   bash scripts/pg_stop.sh [--purge]    # --purge also removes its directory
set -euo pipefail

DIR=${MCP_CHAT_PG_DIR:-/tmp/mcp-chat-pg}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ "$(id -u)" = 0 ]; then
    as_owner() { runuser -u postgres -- "$@"; }
else
    as_owner() { "$@"; }
fi

if [ -n "$BIN" ] && [ -f "$DIR/data/PG_VERSION" ] && as_owner "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >&2
fi
if [ "${1:-}" = "--purge" ]; then
    rm -rf "$DIR"
fi
