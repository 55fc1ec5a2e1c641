#!/usr/bin/env bash
# Installs the pinned reference MCP servers (@modelcontextprotocol/server-everything,
# server-filesystem and server-memory, one lock file) into tests/.npm/ for the end-to-end
# tests. Idempotent: a no-op when the pinned lock file is already installed there.
# Prints server-everything's entry script path (the others sit beside it:
# node_modules/@modelcontextprotocol/server-{filesystem,memory}/dist/index.js).
#   scripts/install_everything.sh            # install if needed, print path
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/scripts/everything"
DEST="${MCP_TEST_NPM_DIR:-$ROOT/tests/.npm}"
ENTRY="$DEST/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
FS_ENTRY="$DEST/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
MEM_ENTRY="$DEST/node_modules/@modelcontextprotocol/server-memory/dist/index.js"

command -v npm >/dev/null || { echo "npm not found" >&2; exit 127; }
mkdir -p "$DEST"
# One installer at a time (parallel test runs share the directory).
if command -v flock >/dev/null; then
    exec 9>"$DEST/.install.lock"
    flock 9
fi
if [ -f "$ENTRY" ] && [ -f "$FS_ENTRY" ] && [ -f "$MEM_ENTRY" ] && cmp -s "$SRC/package-lock.json" "$DEST/package-lock.json"; then
    echo "$ENTRY"
    exit 0
fi
cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
(cd "$DEST" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
for f in "$ENTRY" "$FS_ENTRY" "$MEM_ENTRY"; do
    [ -f "$f" ] || { echo "a test MCP server did not install: $f missing" >&2; exit 1; }
done
echo "$ENTRY"
