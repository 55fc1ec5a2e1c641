"""`mcp-search-server --stateless` behind a load balancer: two replicas on two
ports, a round-robin HTTP proxy in front (the same rules as deploy/nginx.conf;
this proxy also tells which replica a call is in flight on), the client given
the proxy's URL. One replica is killed mid-session; the session's next search
turns still get real tool results. The real nginx with the shipped config is
tested in tests/deploy/."""

from __future__ import annotations

import asyncio
import itertools
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT
from tests.server.helpers import reported_port, stop_process
from tests.waits import HANG


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0

HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host", "content-length"}


class RoundRobinProxy:
    """Each HTTP request to the next replica, as nginx's default upstream does:
    a replica that refuses the connection is skipped (proxy_next_upstream
    error); a request already sent to one that dies gets 502 (nginx does not
    resend a POST). Counts what each replica served."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.sock = socket.create_server(("127.0.0.1", 0))  # bound now: its port cannot be taken meanwhile
        self.port = self.sock.getsockname()[1]
        self.hits = {p: 0 for p in ports}
        self.inflight = {p: 0 for p in ports}
        self._next = itertools.cycle(range(len(ports)))
        self._server: Any = None
        self._thread: threading.Thread | None = None

    async def app(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            msg = await receive()
            body += msg.get("body", b"")
            if not msg.get("more_body"):
                break
        headers = [(k.decode(), v.decode()) for k, v in scope["headers"] if k.decode().lower() not in HOP]
        path = scope["path"] + (("?" + scope["query_string"].decode()) if scope["query_string"] else "")
        async with httpx.AsyncClient(timeout=httpx.Timeout(60, connect=2)) as client:
            for _ in self.ports:
                port = self.ports[next(self._next)]
                req = client.build_request(scope["method"], f"http://127.0.0.1:{port}{path}", headers=headers, content=body)
                self.inflight[port] += 1
                try:
                    resp = await client.send(req, stream=True)
                except httpx.ConnectError:
                    self.inflight[port] -= 1
                    continue  # a dead replica: the next one gets the request
                except httpx.HTTPError:
                    self.inflight[port] -= 1
                    break  # sent, then the replica died: 502
                self.hits[port] += 1
                try:
                    out = [(k.encode(), v.encode()) for k, v in resp.headers.items() if k.lower() not in HOP]
                    await send({"type": "http.response.start", "status": resp.status_code, "headers": out})
                    try:
                        async for chunk in resp.aiter_raw():
                            await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    except httpx.HTTPError:
                        pass  # the replica died mid-answer: end the response here
                    await send({"type": "http.response.body", "body": b""})
                finally:
                    self.inflight[port] -= 1
                    await resp.aclose()
                return
        await send({"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"bad gateway"})

    def __enter__(self) -> "RoundRobinProxy":
        import uvicorn

        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off",
                                interface="asgi3")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(self._server.serve(sockets=[self.sock])),
                                        daemon=True)
        self._thread.start()
        _wait(lambda: _listening(self.port), 20)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.sock.close()


def _replica(naver, log_path) -> tuple[subprocess.Popen, int]:
    """A stateless replica on a port it chose (port 0, reported in its log)."""
    env = {"PATH": "", "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "NAVER_API_BASE_URL": naver.base_url,
           "NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret}
    with open(log_path, "w") as log:
        p = subprocess.Popen([sys.executable, "-m", "server", "--stateless", "--port", "0"],
                             env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        return p, reported_port(log_path, p)
    except BaseException:
        stop_process(p)
        raise


def _wait(pred, timeout: float = HANG, proc: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"client exited {proc.returncode}: {err.decode()}{out.decode()[-2000:]}")
        time.sleep(0.05)


def _tool_results(llm) -> list[str]:
    """The tool message content of each model call that followed a tool call."""
    return [q["messages"][-1]["content"] for q in llm.chat_requests() if q["messages"][-1]["role"] == "tool"]


@pytest.fixture
def replicas(naver, tmp_path):
    started = [_replica(naver, tmp_path / f"replica-{i}.log") for i in range(2)]
    procs = {port: proc for proc, port in started}
    try:
        with RoundRobinProxy(list(procs)) as proxy:
            yield proxy, procs
    finally:
        for p in procs.values():
            stop_process(p)


def _client(chat, proxy: RoundRobinProxy) -> subprocess.Popen:
    argv = [sys.executable, "-m", "client", "--thread", "lb", "--db", chat.db,
            "--server-url", f"http://127.0.0.1:{proxy.port}/mcp", "--require-tools"]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=chat.tmp, env=chat.env)


@pytest.mark.sqlite_only  # the balancer, not the storage, is under test
def test_replica_killed_between_turns(chat, llm, naver, replicas):
    proxy, procs = replicas
    client = _client(chat, proxy)
    assert client.stdin is not None
    client.stdin.write("서울 검색\n".encode())
    client.stdin.flush()
    _wait(lambda: len(_tool_results(llm)) >= 1, proc=client)
    assert all(n > 0 for n in proxy.hits.values()), proxy.hits  # the session spans both replicas
    victim = next(iter(procs))
    procs[victim].send_signal(signal.SIGKILL)
    procs[victim].wait(10)
    served = dict(proxy.hits)
    client.stdin.write("부산 검색\n대구 검색\n광주 검색\n".encode())
    out, err = client.communicate(timeout=120)
    assert client.returncode == 0, err.decode()
    results = _tool_results(llm)
    assert len(results) == 4
    for city, text in zip(("서울", "부산", "대구", "광주"), results):
        assert city in text, text  # real search results, not a tool error
    assert proxy.hits[victim] == served[victim]  # the rest went to the survivor
    assert len(naver.requests) == 4


@pytest.mark.sqlite_only
def test_replica_killed_during_a_call_then_the_client_reconnects(chat, llm, naver, replicas):
    """The call in flight fails (the balancer answers 502, as nginx does for a
    POST); the session goes on, and the next search turn gets results again."""
    proxy, procs = replicas
    client = _client(chat, proxy)
    assert client.stdin is not None
    client.stdin.write("서울 검색\n".encode())
    client.stdin.flush()
    _wait(lambda: len(_tool_results(llm)) >= 1, proc=client)
    naver.set_mode("slow", delay=8)
    client.stdin.write("부산 검색\n".encode())
    client.stdin.flush()
    _wait(lambda: any(proxy.inflight.values()) and len(naver.requests) >= 2, proc=client)
    victim = next(p for p, n in proxy.inflight.items() if n)
    procs[victim].send_signal(signal.SIGKILL)
    procs[victim].wait(10)
    naver.reset()
    _wait(lambda: len(_tool_results(llm)) >= 2, proc=client)  # that turn ended (with a tool error)
    # Within the hub's reconnect back-off a search is a tool error again; repeat it until
    # the reconnect shows as real results (bounded).
    for _ in range(50):
        n = len(_tool_results(llm))
        client.stdin.write("대구 검색\n".encode())
        client.stdin.flush()
        _wait(lambda: len(_tool_results(llm)) > n, proc=client)
        if '"items"' in _tool_results(llm)[-1]:
            break
    client.stdin.write("광주 검색\n".encode())
    out, err = client.communicate(timeout=120)
    assert client.returncode == 0, err.decode()
    results = _tool_results(llm)
    assert "서울" in results[0]
    assert '"items"' not in results[1]  # that call failed (a tool error), yet its turn ended normally
    assert all('"items"' not in r for r in results[2:-2])  # tries within the back-off
    assert "대구" in results[-2] and "광주" in results[-1], results  # reconnected: real results again
