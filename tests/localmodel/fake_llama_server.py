"""Stands in for llama-server in the fast lifecycle tests: takes its options, answers /health.

Like llama-server, `--host NAME.sock` listens on that unix socket (relative to its working
folder) and nothing else; any other host is a TCP address with --port. Like llama-server while
it loads a model, /health answers 503 to its first LOADING polls; GET /polls tells how many
/health requests came in. Like llama-server with an API key (LLAMA_API_KEY), GET /v1/models
needs `Authorization: Bearer KEY` (401 otherwise) and lists the --alias.

FAKE_LLAMA_BIND_GATE=PATH: wait until PATH exists before binding (llama-server binds about a
second after it starts; a test that plays a squatter opens the gate once it has tried)."""

from __future__ import annotations

import argparse
import json
import os
import socketserver
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


LOADING = 3
_polls = 0
_alias = ""


class _Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        global _polls
        status, body = 404, b"{}"
        if self.path == "/health":
            _polls += 1
            status = 200 if _polls > LOADING else 503
            body = b'{"status":"ok"}' if status == 200 else b'{"error":{"code":503,"message":"Loading model"}}'
        elif self.path == "/polls":
            status, body = 200, str(_polls).encode()
        elif self.path == "/v1/models":
            key = os.environ.get("LLAMA_API_KEY")
            if key and self.headers.get("Authorization") != f"Bearer {key}":
                status, body = 401, b'{"error":{"code":401,"message":"Invalid API Key"}}'
            else:
                status, body = 200, json.dumps({"data": [{"id": _alias}]}).encode()
        self.send_response(status)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def address_string(self) -> str:
        return "unix"  # a unix peer has no address

    def log_message(self, *args: object) -> None:
        pass


class _UnixHTTPServer(socketserver.UnixStreamServer):
    def get_request(self):  # type: ignore[no-untyped-def]
        conn, _ = super().get_request()
        return conn, ("unix", 0)  # BaseHTTPRequestHandler wants a (host, port)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--alias", default="")
    args, _ = p.parse_known_args()
    global _alias
    _alias = args.alias
    gate = os.environ.get("FAKE_LLAMA_BIND_GATE")
    while gate and not os.path.exists(gate):
        time.sleep(0.01)
    if args.host.endswith(".sock"):
        _UnixHTTPServer(args.host, _Health).serve_forever()
    else:
        HTTPServer((args.host, args.port), _Health).serve_forever()


if __name__ == "__main__":
    main()
