#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster for tests and benches, idempotently, and
# print its URL on stdout (logs go to stderr). Loopback only, fixed port.
#
#   export TEST_POSTGRES_URL="$(bash scripts/pg_start.sh)"
#
# Settings (env): MCP_CHAT_PG_DIR (/tmp/mcp-chat-pg), MCP_CHAT_PG_PORT (55432),
# MCP_CHAT_PG_USER (mcp_chat), MCP_CHAT_PG_PASSWORD (mcp_chat_pw), MCP_CHAT_PG_DB (mcp_chat_test).
# As root the cluster belongs to the `postgres` OS user (initdb refuses root);
# Debian's `postgresql` package is installed first when the binaries are missing.
# Fails (non-zero) when the server cannot start: callers must not skip silently.
set -euo pipefail

DIR=${MCP_CHAT_PG_DIR:-/tmp/mcp-chat-pg}
PORT=${MCP_CHAT_PG_PORT:-55432}
ROLE=${MCP_CHAT_PG_USER:-mcp_chat}
PASS=${MCP_CHAT_PG_PASSWORD:-mcp_chat_pw}
DB=${MCP_CHAT_PG_DB:-mcp_chat_test}

log() { echo "pg_start: $*" >&2; }

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
BIN=$(find_bin)
if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing Debian's postgresql package"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        BIN=$(find_bin)
    fi
fi
[ -n "$BIN" ] && [ -x "$BIN/initdb" ] || { log "PostgreSQL server binaries not found (apt-get install postgresql)"; exit 1; }

# Run cluster commands as the cluster's owner.
if [ "$(id -u)" = 0 ]; then
    OWNER=postgres
    as_owner() { runuser -u "$OWNER" -- "$@"; }
else
    OWNER=$(id -un)
    as_owner() { "$@"; }
fi

mkdir -p "$DIR"
chmod 700 "$DIR"
[ "$(id -u)" = 0 ] && chown "$OWNER" "$DIR"
DATA="$DIR/data"

if [ ! -f "$DATA/PG_VERSION" ]; then
    log "initdb in $DATA"
    PWFILE="$DIR/.pw"
    # The superuser has no password: it is reached only over the Unix socket (trust).
    printf '%s\n' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$PWFILE"
    [ "$(id -u)" = 0 ] && chown "$OWNER" "$PWFILE"
    as_owner "$BIN/initdb" -D "$DATA" -U postgres -E UTF8 --no-locale \
        --auth-local=trust --auth-host=scram-sha-256 --pwfile="$PWFILE" >&2
    rm -f "$PWFILE"
fi

if ! as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    log "starting on 127.0.0.1:$PORT"
    # synchronous_commit=off: like SQLite's WAL + synchronous=NORMAL (no fsync per commit).
    as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$DIR -c synchronous_commit=off -c max_connections=200" \
        start >&2 || { log "server did not start; see $DIR/server.log"; tail -n 20 "$DIR/server.log" >&2 || true; exit 1; }
fi

psql_admin() { as_owner psql -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U postgres -d postgres "$@"; }
for _ in $(seq 1 50); do
    psql_admin -tAc "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.2
done

if [ "$(psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname='$ROLE'")" != 1 ]; then
    log "creating role $ROLE"
    psql_admin -c "CREATE ROLE \"$ROLE\" LOGIN CREATEDB PASSWORD '$PASS'"
else
    psql_admin -c "ALTER ROLE \"$ROLE\" PASSWORD '$PASS'"
fi
if [ "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'")" != 1 ]; then
    log "creating database $DB"
    psql_admin -c "CREATE DATABASE \"$DB\" OWNER \"$ROLE\""
fi

URL="postgresql://$ROLE:$PASS@127.0.0.1:$PORT/$DB"
# The URL works over TCP with the password (what the client and tests use).
PGCONNECT_TIMEOUT=10 psql -X -q "$URL" -tAc "SELECT 1" >/dev/null || { log "cannot connect as $ROLE"; exit 1; }
log "ready: postgresql://$ROLE:***@127.0.0.1:$PORT/$DB"
echo "$URL"
