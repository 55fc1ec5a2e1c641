#!/usr/bin/env bash
# Debian's nginx for tests and benches, run in the foreground with everything in one directory.
#
#   bash scripts/nginx_start.sh --install      # only make sure nginx is installed (scripts/test.sh)
#   bash scripts/nginx_start.sh DIR [SITE]     # write DIR/nginx.conf including SITE
#                                              # (default deploy/nginx.conf), check it, then
#                                              # exec nginx: the caller owns the master process
#
# The main config is the minimal one a site file gets on Debian: an `http {}` block that
# includes it. pid, logs and temp files stay in DIR; `daemon off` keeps the master as this
# process (SIGTERM/SIGQUIT stop it). As root the workers run as root (no other user needed).
# Debian's `nginx` package is installed first when the binary is missing (as root, apt-get).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "nginx_start: $*" >&2; }

NGINX=$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null || true)
if [ -z "$NGINX" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing Debian's nginx package"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >&2
        # The package may start a system nginx on port 80; this project never uses it.
        NGINX=$(command -v nginx || echo /usr/sbin/nginx)
    fi
fi
[ -x "$NGINX" ] || { log "nginx not found (apt-get install nginx)"; exit 1; }
[ "${1:-}" = "--install" ] && { log "$("$NGINX" -v 2>&1)"; exit 0; }

DIR=${1:?usage: nginx_start.sh DIR [SITE] | --install}
SITE=$(realpath "${2:-deploy/nginx.conf}")
mkdir -p "$DIR/tmp"
DIR=$(realpath "$DIR")
USER_LINE=""
[ "$(id -u)" = 0 ] && USER_LINE="user root;"

cat >"$DIR/nginx.conf" <<CONF
$USER_LINE
worker_processes 1;
daemon off;
pid $DIR/nginx.pid;
error_log $DIR/error.log info;
events { worker_connections 512; }
http {
    # when the answer ended, how long it took, which replica(s) nginx tried and what each said
    log_format upstreams '\$msec \$request_time \$status "\$request" \$upstream_addr \$upstream_status';
    access_log $DIR/access.log upstreams;
    client_body_temp_path $DIR/tmp/body;
    proxy_temp_path $DIR/tmp/proxy;
    fastcgi_temp_path $DIR/tmp/fastcgi;
    uwsgi_temp_path $DIR/tmp/uwsgi;
    scgi_temp_path $DIR/tmp/scgi;
    include $SITE;
}
CONF

"$NGINX" -t -q -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/error.log"
exec "$NGINX" -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/error.log"
