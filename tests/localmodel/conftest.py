"""Real-model fixtures: one llama-server for the session (the client's own setup code starts
it), a recording proxy per test, and a runner for the real `mcp-chat` in a subprocess.

Run with `python -m pytest -m localmodel tests/localmodel` after
`python scripts/setup_local_model.py` (the suite fails, not skips, when nothing is prepared).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from client.engine.local import LocalServer, prepare, runtime_ready
from client.ui.env_settings import dirs
from tests.localmodel.proxy import RecordingProxy
from tests.stubs.naver_stub import NaverStub

ROOT = Path(__file__).resolve().parents[2]
ANSWER_CAP = 96  # tokens per answer on the way to the server: structure, not prose, is under test
FIGURES: dict[str, float] = {}


@pytest.fixture(scope="session")
def local_server() -> Iterator[LocalServer]:
    if not runtime_ready(dirs().cache):
        pytest.fail(f"local model not prepared in {dirs().cache}: run `python scripts/setup_local_model.py`")
    server = prepare(dirs().cache, start=True)
    try:
        FIGURES["server_ready_s"] = asyncio.run(server.wait_ready())
        yield server
    finally:
        server.stop()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES:  # measured by the tests that ran: seconds and tokens/s
        terminalreporter.write_line("local model figures: " + json.dumps({k: round(v, 2) for k, v in FIGURES.items()}))


@pytest.fixture
def proxy(local_server: LocalServer) -> Iterator[RecordingProxy]:
    with RecordingProxy(uds=local_server.uds, cap_tokens=ANSWER_CAP) as p:
        yield p


@pytest.fixture(scope="session")
def local_url(local_server: LocalServer) -> Iterator[str]:
    """A loopback URL for the session's server (which listens on a unix socket only), for code
    that takes a base URL: a proxy that passes everything through unchanged."""
    with RecordingProxy(uds=local_server.uds) as p:
        yield p.base_url


@dataclass
class Result:
    code: int
    out: str
    err: str


class LocalChat:
    """The real client, `--provider local`, temperature 0, against the proxy (or its own server)."""

    def __init__(self, tmp: Path, naver: NaverStub, proxy: RecordingProxy | None) -> None:
        self.tmp = tmp
        self.db = str(tmp / "chat.db")
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp),
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
            "MCP_CHAT_CACHE": str(dirs().cache),
            "MCP_CHAT_TEMPERATURE": "0",
            "NAVER_CLIENT_ID": naver.client_id,
            "NAVER_CLIENT_SECRET": naver.client_secret,
            "NAVER_API_BASE_URL": naver.base_url,
            # each test its own runtime folder; servers stop with their session unless a test keeps them
            "MCP_CHAT_RUNTIME_DIR": str(tmp / "rt"),
            "MCP_CHAT_LOCAL_KEEP_ALIVE": "0",
            "MCP_CHAT_DAEMON": os.environ.get("MCP_CHAT_DAEMON", "0"),
        }
        if proxy is not None:
            self.env["MCP_CHAT_LOCAL_URL"] = proxy.base_url

    def argv(self, *args: str, auto: bool = False) -> list[str]:
        argv = [sys.executable, "-m", "client", *args]
        if "--provider" not in args and not auto:
            argv += ["--provider", "local"]
        if "--db" not in args:
            argv += ["--db", self.db]
        return argv

    def __call__(self, *args: str, input: str = "", env: dict | None = None, timeout: float = 600,
                 auto: bool = False) -> Result:
        """`auto`: no --provider option, as a user running the README's chat command."""
        full = {k: v for k, v in {**self.env, **(env or {})}.items() if v is not None}
        p = subprocess.run(self.argv(*args, auto=auto), input=input.encode(), capture_output=True, cwd=self.tmp,
                           env=full, timeout=timeout)
        return Result(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))

    def popen(self, *args: str, env: dict | None = None) -> subprocess.Popen[bytes]:
        full = {k: v for k, v in {**self.env, **(env or {})}.items() if v is not None}
        return subprocess.Popen(self.argv(*args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=self.tmp, env=full)


@pytest.fixture
def lchat(tmp_path: Path, naver: NaverStub, proxy: RecordingProxy, daemon_env: dict[str, str]) -> LocalChat:
    """Runs forked from the session's pre-imported process (tests/conftest.py `daemons`): they
    start no llama-server of their own, so a cold start (4-6 s of CPU) would only compete with it."""
    chat = LocalChat(tmp_path, naver, proxy)
    chat.env.update(daemon_env)
    return chat


@pytest.fixture
def own_chat(tmp_path: Path, naver: NaverStub) -> LocalChat:
    """No proxy: the client prepares and starts its own llama-server."""
    return LocalChat(tmp_path, naver, None)
