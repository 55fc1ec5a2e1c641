"""What an attacker on the network can do to an HTTP replica, played on real sockets: forge log
lines with the bytes of a request, hold connections with half-sent requests, fill it with MCP
sessions that are never closed (issue 29)."""

from __future__ import annotations

import re
import resource
import selectors
import socket
import subprocess
import sys
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp.types import LATEST_PROTOCOL_VERSION

from tests.server.helpers import reported_port, server_env, stop_process

TOKEN = "tok-hygiene-5150"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
WAIT = 60.0  # seconds: the bound for every sign waited for
LINE_START = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARNING) (server\.access|uvicorn\.error): ")


class Replica:
    def __init__(self, tmp: Path, name: str, *args: str, files: int | None = None, **env: str) -> None:
        """`files`: its descriptor limit (soft and hard), like a service's usual 1,024."""
        self.log_path = tmp / f"{name}.log"

        def limit() -> None:
            if files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

        with open(self.log_path, "w") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "server", "--port", "0", *args],
                                         env=server_env(None, **env), cwd=tmp, stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=out, preexec_fn=limit)
        try:
            self.port = reported_port(self.log_path, self.proc)
        except BaseException:
            stop_process(self.proc)
            raise
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def log_bytes(self) -> bytes:
        return self.log_path.read_bytes()

    def wait_log(self, offset: int, pattern: str, count: int = 1) -> str:
        """The log after `offset` once `pattern` occurs `count` times in it."""
        deadline = time.monotonic() + WAIT
        while True:
            text = self.log_bytes()[offset:].decode("utf-8")
            if len(re.findall(pattern, text)) >= count or time.monotonic() > deadline:
                return text
            time.sleep(0.05)

    def post(self, body: dict, session: str | None = None, token: bool = True) -> httpx.Response:
        headers = dict(HEADERS)
        if token:
            headers["Authorization"] = f"Bearer {TOKEN}"
        if session:
            headers["Mcp-Session-Id"] = session
        return httpx.post(self.url, json=body, headers=headers, timeout=WAIT)


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replica]:
    """Token, at most 2 sessions (never idle-expired within the tests), 2 s for a request head."""
    r = Replica(tmp_path_factory.mktemp("hygiene"), "replica", "--auth-token", TOKEN, "--max-sessions", "2",
                "--session-idle-timeout", "3600", "--header-timeout", "2")
    yield r
    stop_process(r.proc)


def exchange(port: int, request: bytes) -> bytes:
    """Send raw bytes, read the answer to EOF (the requests say Connection: close)."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
        s.sendall(request)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def test_request_bytes_never_break_the_log_line(replica: Replica) -> None:
    offset = len(replica.log_bytes())
    forged = b"%0d%0a2026-01-01%2000:00:00,000%20INFO%20server.access:%20GET%20/forged%20200"
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    json_headers = b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    host = f"Host: 127.0.0.1:{replica.port}\r\n".encode()
    requests = [
        # the measured attack: no token, a line break in the path, control bytes in a header
        (b"POST /mcp%0aINJECTED" + forged + b" HTTP/1.1\r\n" + host
         + b"X-Evil: a\x1b[2Jb\x85c\xe2\x80\xae\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", b" 401 "),
        # with the token: ESC, NEL, bidi override, zero-width space, line separator in the path
        (b"GET /mcp%1b%5b31m%c2%85%e2%80%ae%e2%80%8b%e2%80%a8x HTTP/1.1\r\n" + host + auth
         + b"Connection: close\r\n\r\n", b" 404 "),
        # the SDK refuses the Host and the Origin; both are logged, escaped
        (b"POST /mcp HTTP/1.1\r\nHost: evil\x1b[2J\x85\r\n" + auth + json_headers
         + b"Content-Length: 2\r\nConnection: close\r\n\r\n{}", b" 421 "),
        (b"POST /mcp HTTP/1.1\r\n" + host + b"Origin: http://x\x1b]0;pwned\x07\xe2\x80\xae\r\n" + auth + json_headers
         + b"Content-Length: 2\r\nConnection: close\r\n\r\n{}", b" 403 "),
        # an Upgrade request (no WebSocket endpoint here) is an ordinary request with one line
        (b"GET /mcp%0d%0aX HTTP/1.1\r\n" + host + auth + b"Connection: Upgrade, close\r\nUpgrade: websocket\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", b" 404 "),
        # a raw control byte in the request line: h11 refuses it before the app
        (b"GET /a\x1bb HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n", b" 400 "),
    ]
    for raw, status in requests:
        assert status in exchange(replica.port, raw).split(b"\r\n", 1)[0] + b" "
    text = replica.wait_log(offset, r"server\.access: ", 5)  # the 400 never reaches the app

    data = replica.log_bytes()[offset:]
    assert not [b for b in data if (b < 0x20 and b != 0x0A) or b == 0x7F], data
    assert not [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")], text
    lines = text.splitlines()
    assert lines == text.rstrip("\n").split("\n")  # no other character ends a line either
    assert len(lines) == 6, lines  # exactly one line per request
    assert all(LINE_START.match(line) for line in lines), lines
    assert sum(line.endswith(" WARNING uvicorn.error: Invalid HTTP request received.") for line in lines) == 1
    access = [line for line in lines if " server.access: " in line]
    assert len(access) == 5

    def one(part: str) -> str:
        found = [line for line in access if part in line]
        assert len(found) == 1, (part, access)
        return found[0]

    assert one(f"WARNING server.access: POST /mcp%0aINJECTED{forged.decode()} 401 ").endswith("(missing token)")
    one("INFO server.access: GET /mcp%1b%5b31m%c2%85%e2%80%ae%e2%80%8b%e2%80%a8x 404 ")
    one("INFO server.access: GET /mcp%0d%0aX 404 ")  # the Upgrade request
    assert one(" 421 ").endswith(r"(Host not allowed: evil\x1b[2J\x85)")
    # header bytes are latin-1 to the SDK: the UTF-8 bidi override arrives as the inert "â\x80®"
    assert one(" 403 ").endswith(r"(Origin not allowed: http://x\x1b]0;pwned\x07â\x80®)")
    assert "X-Evil" not in text and "[2Jb" not in text  # other headers are never logged


def wait_closed(socks: list[socket.socket]) -> dict[socket.socket, bytes]:
    """What each socket received until the server closed it; fails when one stays open past WAIT."""
    got = {s: b"" for s in socks}
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    deadline = time.monotonic() + WAIT
    while sel.get_map():
        left = deadline - time.monotonic()
        assert left > 0, f"{len(sel.get_map())} of {len(socks)} connections still open after {WAIT}s"
        for key, _ in sel.select(left):
            try:
                chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except ConnectionResetError:
                chunk = b""
            got[key.fileobj] += chunk  # type: ignore[index]
            if not chunk:
                sel.unregister(key.fileobj)
    return got


def test_half_sent_requests_are_closed(replica: Replica) -> None:
    offset = len(replica.log_bytes())
    partial = [b"POST /mcp HT", b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n"]
    sent, silent = [], []
    for i in range(20):
        s = socket.create_connection(("127.0.0.1", replica.port), timeout=WAIT)
        s.sendall(partial[i % 2])
        sent.append(s)
    for _ in range(5):
        silent.append(socket.create_connection(("127.0.0.1", replica.port), timeout=WAIT))
    # a keep-alive connection: a whole request, then half of the next one
    keep = socket.create_connection(("127.0.0.1", replica.port), timeout=WAIT)
    keep.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    first = b""
    while not first.endswith(b"ok\n"):
        first += keep.recv(65536)
    assert first.startswith(b"HTTP/1.1 200 ")
    keep.sendall(b"GET /healthz HTTP/1.1\r\nHo")
    # the server answers others meanwhile
    assert httpx.get(f"http://127.0.0.1:{replica.port}/healthz", timeout=WAIT).text == "ok\n"

    got = wait_closed([*sent, *silent, keep])
    for s in [*sent, *silent, keep]:
        s.close()
    timeouts = [got[s] for s in [*sent, keep] if got[s]]
    assert all(answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n") for answer in timeouts), timeouts
    assert timeouts, "no connection with part of a request got a 408"
    assert all(got[s] == b"" for s in silent)  # nothing sent, nothing answered: closed like an idle keep-alive
    text = replica.wait_log(offset, r" 408 ", len(timeouts))
    assert len(re.findall(r"INFO server\.access: - - 408 \S+ 127\.0\.0\.1 \(request head not complete within 2s\)",
                          text)) == len(timeouts)
    assert httpx.get(f"http://127.0.0.1:{replica.port}/healthz", timeout=WAIT).status_code == 200


def test_session_cap_refuses_new_sessions_and_keeps_open_ones(replica: Replica) -> None:
    offset = len(replica.log_bytes())
    first, second = replica.post(INIT), replica.post(INIT)
    assert first.status_code == second.status_code == 200
    ids = [first.headers["mcp-session-id"], second.headers["mcp-session-id"]]
    refused = replica.post(INIT)
    assert refused.status_code == 503 and "mcp-session-id" not in refused.headers
    assert refused.json()["error"]["message"] == "Too many open sessions"
    for sid in ids:  # the open sessions go on
        assert replica.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid).status_code == 202
        tools = replica.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sid)
        assert tools.status_code == 200 and "web_search" in tools.text
    headers = {"Authorization": f"Bearer {TOKEN}", "Mcp-Session-Id": ids[0]}
    assert httpx.delete(replica.url, headers=headers, timeout=WAIT).status_code == 200
    assert replica.post(INIT).status_code == 200  # a closed session makes room
    text = replica.wait_log(offset, r"server\.access: ", 9)
    refusal = [line for line in text.splitlines() if " 503 " in line]
    assert len(refusal) == 1 and refusal[0].endswith("(too many open MCP sessions)")
    assert " WARNING server.access: POST /mcp 503 " in refusal[0]
    assert "mcp.server" not in text  # the SDK's own lines for it are off: one line per request


def test_idle_sessions_expire_from_env(tmp_path: Path) -> None:
    r = Replica(tmp_path, "idle", MCP_MAX_SESSIONS="1", MCP_SESSION_IDLE_TIMEOUT="1")
    try:
        assert "MCP sessions: at most 1; a session closes after 1s without a request" in r.log_bytes().decode()
        opened = r.post(INIT, token=False)
        assert opened.status_code == 200
        sid = opened.headers["mcp-session-id"]
        # Only new sessions are tried (a request to `sid` would keep it alive): refused while it lives.
        deadline = time.monotonic() + WAIT
        while (again := r.post(INIT, token=False)).status_code == 503:
            assert time.monotonic() < deadline, "the idle session was never closed"
            time.sleep(0.2)
        assert again.status_code == 200
        gone = r.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sid, token=False)
        assert gone.status_code == 404
    finally:
        stop_process(r.proc)


def test_every_log_message_is_one_line_whatever_it_carries() -> None:
    """Defence in depth under the access line's %XX path: any message (a refused Host header the SDK
    logs, an exception text with a client's bytes) leaves the formatter as one visible line."""
    import logging

    from server.logsafe import OneLineFormatter

    record = logging.LogRecord("mcp", logging.WARNING, __file__, 1, "refused %s", ("x\nINJECTED 200\x1b[2J\u202e",),
                               None)
    line = OneLineFormatter("%(levelname)s %(message)s").format(record)
    assert "\n" not in line and "\x1b" not in line and "\u202e" not in line
    assert line.startswith("WARNING refused x") and "INJECTED 200" in line  # shown, escaped, on the same line
