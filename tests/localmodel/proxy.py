"""A recording reverse proxy in front of the real llama-server (loopback, background thread);
the server itself listens on a unix socket only (`uds`).

Records each request body as the client sent it, and the raw response (SSE or JSON), so tests
assert on the wire exactly as with the LLM stub. `cap_tokens` bounds each answer's length
(added on the way out only when the client sent no limit lower than it) to keep the suite fast;
what is recorded is the client's own request.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.localmodel.uds import UnixHTTPConnection


class RecordingProxy:
    def __init__(self, upstream: str = "", cap_tokens: int | None = None, uds: str = "") -> None:
        u = urlsplit(upstream)
        self.upstream_host, self.upstream_port = u.hostname or "127.0.0.1", u.port or 80
        self.uds = uds
        self.cap_tokens = cap_tokens
        self.requests: list[dict[str, Any]] = []
        self.responses: list[bytes] = []
        self.times: list[list[float]] = []  # [sent, last byte] per recorded request (monotonic)
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.proxy = self  # type: ignore[attr-defined]
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()
            self.responses.clear()
            self.times.clear()

    # -- views ------------------------------------------------------------------------------
    def chat_requests(self) -> list[dict[str, Any]]:
        """Requests that bind tools (agent turns)."""
        return [r for r in self.requests if "tools" in r]

    def plain_requests(self) -> list[dict[str, Any]]:
        """Requests without tools (summaries)."""
        return [r for r in self.requests if "tools" not in r]

    def stream_of(self, i: int) -> list[dict[str, Any]]:
        """The parsed SSE chunks of response i."""
        out = []
        for line in self.responses[i].decode("utf-8", "replace").splitlines():
            if line.startswith("data: ") and line[6:].strip() != "[DONE]":
                out.append(json.loads(line[6:]))
        return out


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._forward(None)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        self._forward(raw)

    def _forward(self, raw: bytes | None) -> None:
        proxy: RecordingProxy = self.server.proxy  # type: ignore[attr-defined]
        body = raw
        index = None
        if raw and self.path.endswith("/chat/completions"):
            sent = json.loads(raw)
            with proxy._lock:
                proxy.requests.append(sent)
                proxy.responses.append(b"")
                proxy.times.append([time.monotonic(), 0.0])
                index = len(proxy.responses) - 1
            if proxy.cap_tokens and (sent.get("max_tokens") or 10**9) > proxy.cap_tokens:
                body = json.dumps({**sent, "max_tokens": proxy.cap_tokens}).encode()
        conn = (UnixHTTPConnection(proxy.uds, timeout=600) if proxy.uds
                else http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=600))
        headers = {"content-type": "application/json"} if body is not None else {}
        conn.request(self.command, self.path, body=body, headers=headers)
        resp = conn.getresponse()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        while True:
            chunk = resp.read1(65536)
            if not chunk:
                break
            if index is not None:
                with proxy._lock:
                    proxy.responses[index] += chunk
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        if index is not None:
            proxy.times[index][1] = time.monotonic()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        conn.close()
