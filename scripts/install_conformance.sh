#!/usr/bin/env bash
# Installs the pinned official MCP conformance suite (@modelcontextprotocol/conformance 0.1.12,
# the last release that runs on Node 20) into tests/.npm-conformance/. Idempotent: a no-op when the
# pinned lock file is already installed there. Prints the suite's CLI entry script path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/scripts/conformance"
DEST="${MCP_CONFORMANCE_NPM_DIR:-$ROOT/tests/.npm-conformance}"
ENTRY="$DEST/node_modules/@modelcontextprotocol/conformance/dist/index.js"

command -v npm >/dev/null || { echo "npm not found" >&2; exit 127; }
mkdir -p "$DEST"
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
[ -f "$ENTRY" ] || { echo "conformance suite did not install: $ENTRY missing" >&2; exit 1; }
echo "$ENTRY"
