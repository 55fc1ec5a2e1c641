"""HTTP over a unix socket for the tests (the local model's servers listen on nothing else)."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path

from plumbing.unixsock import lasting_name


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str | Path, timeout: float = 10) -> None:
        super().__init__("llama-server", timeout=timeout)
        self.uds = lasting_name(Path(path))[0]

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.uds)


def get(path: str | Path, url: str, key: str | None = None, timeout: float = 10) -> tuple[int, bytes]:
    """GET `url` (a path: /health) from the server at the socket `path`: (status, body)."""
    conn = UnixHTTPConnection(path, timeout)
    try:
        conn.request("GET", url, headers={"Authorization": f"Bearer {key}"} if key else {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()
