#!/usr/bin/env bash
# Installs the pinned reference MCP server (@modelcontextprotocol/server-everything)
# into tests/.npm/ for the end-to-end tests. Idempotent: a no-op when the pinned
# lock file is already installed there. Prints the server's entry script path.
#   scripts/install_everything.sh            # install if needed, print path
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/scripts/everything"
DEST="${MCP_TEST_NPM_DIR:-$ROOT/tests/.npm}"
ENTRY="$DEST/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

command -v npm >/dev/null || { echo "npm not found" >&2; exit 127; }
mkdir -p "$DEST"
# One installer at a time (parallel test runs share the directory).
if command -v flock >/dev/null; then
    exec 9>"$DEST/.install.lock"
    flock 9
fi
if [ -f "$ENTRY" ] && cmp -s "$SRC/package-lock.json" "$DEST/package-lock.json"; then
    echo "$ENTRY"
    exit 0
fi
cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
(cd "$DEST" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
[ -f "$ENTRY" ] || { echo "server-everything did not install: $ENTRY missing" >&2; exit 1; }
echo "$ENTRY"
