"""Stands in for llama-server in the fast lifecycle tests: takes its options, answers /health.

Like llama-server while it loads a model, /health answers 503 to its first LOADING polls;
GET /polls tells how many /health requests came in. Like llama-server with an API key
(LLAMA_API_KEY), GET /v1/models needs `Authorization: Bearer KEY` (401 otherwise) and lists
the --alias; GET /env tells whether the key reached the process's environment."""

from __future__ import annotations

import argparse
import json
import os
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

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--alias", default="")
    args, _ = p.parse_known_args()
    global _alias
    _alias = args.alias
    HTTPServer((args.host, args.port), _Health).serve_forever()


if __name__ == "__main__":
    main()
