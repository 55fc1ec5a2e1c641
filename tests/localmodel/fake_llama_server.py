"""Stands in for llama-server in the fast lifecycle tests: takes its options, answers /health.

Like llama-server while it loads a model, /health answers 503 to its first LOADING polls;
GET /polls tells how many /health requests came in."""

from __future__ import annotations

import argparse
from http.server import BaseHTTPRequestHandler, HTTPServer


LOADING = 3
_polls = 0


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
    args, _ = p.parse_known_args()
    HTTPServer((args.host, args.port), _Health).serve_forever()


if __name__ == "__main__":
    main()
