"""An HTTP listener on 127.0.0.1 that records every request (any method) and answers 404.

Stands for an endpoint an attacker controls: a test asserts it received nothing. As HTTPS_PROXY it
records where a client meant to go (CONNECT host:443) and lets nothing through.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Recorder:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        rec = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                rec.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers),
                                     "body": self.rfile.read(length) if length else b""})
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_CONNECT = _any  # CONNECT: as a proxy

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "Recorder":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
