"""Helpers for the search server tests: server processes, ports, and MCP sessions usable from sync tests.

Each MCP session lives in its own event loop on a background thread (`SessionThread`), so one
session can be shared by many plain (sync) tests without pytest-asyncio loop-scope juggling.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, Tool

from tests.stubs.naver_stub import NaverStub
from tests.waits import HANG

REPO_ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID = "iD-Value-4711"
CLIENT_SECRET = "sEcReT-Value-0815"
NAVER_TIMEOUT = 10.0  # seconds: the calls meant to succeed never race a timer on a busy machine
SHORT_NAVER_TIMEOUT = 0.5  # only for the server that tests the timeout itself ("slow" stub mode)
CALL_TIMEOUT = 15.0


def free_port() -> int:
    """A port nobody listens on right now (for "nothing answers there"; a server child binds
    port 0 instead and reports its port: start_http_server)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(stub: NaverStub | None, **extra: str) -> dict[str, str]:
    """Environment for a server child: explicit NAVER_* plus what Python needs to find `server`."""
    # a true cold start: these tests are about the server process itself, not the pre-imported
    # process that serves it by default (tests/launch proves that one); nothing shared between tests
    # and no folder is trusted unless a test says so (trust_folder): the developer's own record is never read
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO_ROOT), "PYTHONUNBUFFERED": "1",
           "MCP_CHAT_DAEMON": "0", "XDG_CONFIG_HOME": "/nonexistent/mcp-chat-test-config"}
    if stub is not None:
        env.update(
            NAVER_API_BASE_URL=stub.base_url,
            NAVER_CLIENT_ID=stub.client_id,
            NAVER_CLIENT_SECRET=stub.client_secret,
            NAVER_TIMEOUT=str(NAVER_TIMEOUT),
        )
    env.update(extra)
    return env


def trust_folder(folder: Path, config_home: Path | None = None) -> dict[str, str]:
    """Record `folder` (its .env as it is now) as trusted by its user, the way `mcp-chat trust`
    does (plumbing/trust_record.py); the environment that makes a server child read that record."""
    import hashlib

    from plumbing.private import write_json

    home = config_home or folder.parent / f"{folder.name}-config"
    env_bytes = (folder / ".env").read_bytes()
    write_json(home / "mcp-chat" / "trusted-folders.json", {"version": 2, "folders": [
        {"path": os.path.realpath(folder), "env_sha256": hashlib.sha256(env_bytes).hexdigest()}]})
    return {"XDG_CONFIG_HOME": str(home)}


class SessionThread:
    """An initialized `ClientSession` owned by a background event loop; sync methods with timeouts."""

    def __init__(self, open_streams: Callable[[], Any]) -> None:
        self._open_streams = open_streams
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._task: Any = None
        self.session: ClientSession | None = None

    def start(self, timeout: float = 20.0) -> SessionThread:
        self._thread.start()
        self._task = asyncio.run_coroutine_threadsafe(self._main(), self._loop)
        if not self._ready.wait(timeout):
            self.close()
            raise TimeoutError("MCP session did not initialize in time")
        if self._error is not None:
            self.close()
            raise RuntimeError(f"MCP session failed to start: {self._error!r}")
        return self

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with self._open_streams() as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    self.session = session
                    self._ready.set()
                    await self._stop.wait()
        except BaseException as exc:  # report start-up failures to start()
            self._error = exc
        finally:
            self._ready.set()

    def run(self, coro_factory: Callable[[ClientSession], Any], timeout: float = CALL_TIMEOUT) -> Any:
        assert self.session is not None, "session not started"
        future = asyncio.run_coroutine_threadsafe(coro_factory(self.session), self._loop)
        return future.result(timeout)

    def list_tools(self) -> list[Tool]:
        return self.run(lambda s: s.list_tools()).tools

    def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        return self.run(lambda s: s.call_tool(name, arguments))

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._task is not None:
            with contextlib.suppress(Exception):
                self._task.result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


def stdio_session(env: dict[str, str], cwd: Path, errlog: Any, *args: str) -> SessionThread:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "server", "--transport", "stdio", *args], env=env, cwd=str(cwd)
    )
    return SessionThread(lambda: stdio_client(params, errlog=errlog)).start()


def http_session(url: str) -> SessionThread:
    return SessionThread(lambda: streamable_http_client(url)).start()


def wait_for_port(port: int, proc: subprocess.Popen[Any], timeout: float = HANG) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with code {proc.returncode}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"server did not listen on port {port}")


PORT_LINE = re.compile(r"Uvicorn running on http://\S+?:(\d+)")


def reported_port(log_path: Path, proc: subprocess.Popen[Any], timeout: float = 60.0) -> int:
    """The port a server started with `--port 0` chose, from uvicorn's start-up line in its log
    (no free-port race: nothing else can take the port between choosing and binding)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = PORT_LINE.search(log_path.read_text(encoding="utf-8", errors="replace"))
        if m:
            return int(m.group(1))
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with code {proc.returncode}")
        time.sleep(0.05)
    raise TimeoutError(f"server did not report its port in {log_path}")


def start_http_server(env: dict[str, str], cwd: Path, stderr: Any, *args: str) -> tuple[subprocess.Popen[Any], int]:
    """`python -m server --port 0 ARGS` with output to the file `stderr` (opened by path)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", "0", *args],
        env=env, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr,
    )
    try:
        port = reported_port(Path(stderr.name), proc)
    except BaseException:
        stop_process(proc)
        raise
    return proc, port


def stop_process(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@dataclass
class RunningServer:
    transport: str  # "stdio" | "http" | "http-stateless"
    mcp: SessionThread
    log_path: Path
    port: int | None = None

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")
