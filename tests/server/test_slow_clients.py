"""Issue 50 item 7: slow clients cannot stop the search server. Played on real sockets against a real
replica: a body trickled a byte at a time, more slow-body connections than the server may hold at a
low descriptor limit while a normal client asks, a flood of failed accepts; and the gate's wait for
a whole body. 1,100 connections at the usual limit of 1,024: bench/slow_clients.py."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.gate import WholeBody
from server.limits import accept_slack
from tests.server.helpers import REPO_ROOT, stop_process
from tests.server.test_hygiene import INIT, WAIT, Replica, wait_closed


def slow_head(port: int, length: int = 100_000) -> bytes:
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n").encode()


class SlowBodies:
    """`n` connections that each send a request head, then one body byte every `every` seconds; one
    the server closes is opened again at once. Runs on its own thread until `stop()`."""

    def __init__(self, port: int, n: int, every: float = 0.5) -> None:
        self.port, self.n, self.every = port, n, every
        self.closed_by_server = 0
        self._loop = asyncio.new_event_loop()
        self._done = asyncio.Event()
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._main(),), daemon=True)
        self._thread.start()

    async def _main(self) -> None:
        await asyncio.gather(*(self._one() for _ in range(self.n)))

    async def _one(self) -> None:
        while not self._done.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                await asyncio.sleep(self.every)
                continue
            try:
                writer.write(slow_head(self.port))
                while not self._done.is_set():
                    writer.write(b" ")
                    await writer.drain()
                    try:
                        if await asyncio.wait_for(reader.read(65536), self.every) == b"":
                            self.closed_by_server += 1
                            break
                    except asyncio.TimeoutError:
                        pass
            except OSError:
                self.closed_by_server += 1
            finally:
                writer.close()

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._done.set)
        self._thread.join(WAIT)


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_a_body_trickled_a_byte_at_a_time_is_closed_with_408(tmp_path: Path) -> None:
    replica = Replica(tmp_path, "body", "--header-timeout", "2", "--body-timeout", "2")
    try:
        offset = len(replica.log_bytes())
        s = socket.create_connection(("127.0.0.1", replica.port), timeout=WAIT)
        s.sendall(slow_head(replica.port, 1000))
        stop = threading.Event()

        def trickle() -> None:  # never idle: only a bound on the whole body can end it
            while not stop.wait(0.3):
                try:
                    s.sendall(b" ")
                except OSError:
                    return

        threading.Thread(target=trickle, daemon=True).start()
        try:
            got = wait_closed([s])[s]
        finally:
            stop.set()
            s.close()
        assert got.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
        text = replica.wait_log(offset, r" 408 ")
        assert len(re.findall(r"INFO server\.access: - - 408 \S+ 127\.0\.0\.1 \(request body not complete within 2s\)",
                              text)) == 1
        assert "Traceback" not in text and "POST /mcp" not in text  # one line: the SDK never saw the request
        assert replica.post(INIT).status_code == 200
    finally:
        stop_process(replica.proc)


def test_more_slow_clients_than_descriptors_and_a_normal_request_still_answered(tmp_path: Path) -> None:
    # the attack scaled down: a 256-descriptor server, 150 slow bodies, a cap asked above the limit
    replica = Replica(tmp_path, "cap", "--max-connections", "100000", files=256)
    try:
        line = replica.wait_log(0, r"at most \d+ connections")
        cap = int(re.search(r"at most (\d+) connections \(not 100000: the descriptor limit leaves room for", line)[1])
        assert cap == 64  # a quarter of a small limit
        idle = open_files(replica.proc.pid)
        offset = len(replica.log_bytes())
        started = time.monotonic()
        attack = SlowBodies(replica.port, 150)
        try:
            replica.wait_log(offset, r"more than 64 connections: \d+ slowest evicted")
            most = open_files(replica.proc.pid)
            answer = replica.post(INIT)  # a whole request: never the slowest, never evicted
            assert answer.status_code == 200 and "serverInfo" in answer.text
            most = max(most, open_files(replica.proc.pid))
        finally:
            attack.stop()
        lasted = time.monotonic() - started
        assert attack.closed_by_server > 0
        assert most <= idle + cap + accept_slack(cap)  # every descriptor the connections may take, no more
        text = replica.log_bytes()[offset:].decode()
        assert "Traceback" not in text and "cannot accept" not in text
        assert 1 <= len(re.findall(r"more than 64 connections", text)) <= lasted + 1  # a summary a second at most
    finally:
        stop_process(replica.proc)


ACCEPTOR = """
import asyncio, logging, resource, sys
from server.logsafe import quiet_accept_errors
resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
async def main():
    loop = asyncio.get_running_loop()
    quiet_accept_errors(loop)
    server = await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.sleep(3600)
asyncio.run(main())
"""


def test_failed_accepts_are_one_line_a_second_not_a_traceback_each(tmp_path: Path) -> None:
    """The server's own handler (server.logsafe) on a real asyncio server out of descriptors."""
    log = tmp_path / "acceptor.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-c", ACCEPTOR], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                                stderr=err, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, text=True)
    socks: list[socket.socket] = []
    try:
        port = int(proc.stdout.readline())  # type: ignore[union-attr]
        socks = [socket.create_connection(("127.0.0.1", port), timeout=WAIT) for _ in range(60)]
        deadline = time.monotonic() + WAIT
        while log.read_text().count("cannot accept a connection") < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        text = log.read_text()
    finally:
        stop_process(proc)
        for s in socks:
            s.close()
    stamps = [time.mktime(time.strptime(m[0], "%Y-%m-%d %H:%M:%S")) + int(m[1]) / 1000
              for m in re.findall(r"(\S+ \S+),(\d{3}) ERROR cannot accept a connection: \[Errno 24\]", text)]
    assert len(stamps) >= 3 and "Traceback" not in text
    assert all(b - a >= 0.9 for a, b in zip(stamps, stamps[1:]))  # the throttle's second, on the log's clock
    assert re.search(r"\(\d+ failed accepts since the last line\)", text)


async def test_the_sdk_sees_a_request_only_once_its_body_is_whole() -> None:
    calls: list[bytes] = []

    async def app(scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        calls.append((await receive())["body"])

    def feed(*messages: dict):  # noqa: ANN202
        queue = list(messages)

        async def receive() -> dict:
            return queue.pop(0)
        return receive

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
    await WholeBody(app)(scope, feed({"type": "http.request", "body": b"{", "more_body": True},
                                     {"type": "http.disconnect"}), None)
    assert calls == []  # the client went mid-body: no session, no work, no traceback
    await WholeBody(app)(scope, feed({"type": "http.request", "body": b"{", "more_body": True},
                                     {"type": "http.request", "body": b"}", "more_body": False}), None)
    assert calls == [b"{}"]
    await WholeBody(app, limit=2)(scope, feed({"type": "http.request", "body": b"abc", "more_body": True}), None)
    assert calls[-1] == b"abc"  # past the limit it is handed on as it comes (the SDK answers 413)
