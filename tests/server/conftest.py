"""Fixtures for the search server tests: the Naver stub and one real server per transport."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.helpers import (
    CLIENT_ID,
    CLIENT_SECRET,
    SHORT_NAVER_TIMEOUT,
    RunningServer,
    http_session,
    server_env,
    start_http_server,
    stdio_session,
    stop_process,
)
from tests.stubs.naver_stub import NaverStub, start_naver_stub


@pytest.fixture(scope="session")
def naver_stub() -> Iterator[NaverStub]:
    with start_naver_stub(CLIENT_ID, CLIENT_SECRET) as stub:
        yield stub


@pytest.fixture(autouse=True)
def _reset_stub(request: pytest.FixtureRequest) -> None:
    """Every test starts with the stub in "ok" mode and no recorded requests."""
    if "naver_stub" in request.fixturenames:
        request.getfixturevalue("naver_stub").reset()


@pytest.fixture(scope="session")
def work_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CWD without a `.env`, so a developer's real credentials never leak into the tests."""
    return tmp_path_factory.mktemp("server-cwd")


@contextlib.contextmanager
def _running(transport: str, env: dict[str, str], work_dir: Path, name: str) -> Iterator[RunningServer]:
    log_path = work_dir / f"{name}-{transport}.log"
    with open(log_path, "w", encoding="utf-8") as log:
        if transport == "stdio":
            session = stdio_session(env, work_dir, log)
            try:
                yield RunningServer(transport, session, log_path)
            finally:
                session.close()
            return
        extra = ("--stateless",) if transport == "http-stateless" else ()
        proc, port = start_http_server(env, work_dir, log, *extra)
        try:
            session = http_session(f"http://127.0.0.1:{port}/mcp")
            try:
                yield RunningServer(transport, session, log_path, port)
            finally:
                session.close()
        finally:
            stop_process(proc)


@pytest.fixture(scope="session", params=["stdio", "http", "http-stateless"])
def server(request: pytest.FixtureRequest, naver_stub: NaverStub, work_dir: Path) -> Iterator[RunningServer]:
    """One real server process per transport, with one MCP session shared by the tests."""
    with _running(request.param, server_env(naver_stub), work_dir, "server") as running:
        yield running


@pytest.fixture(scope="module", params=["stdio", "http", "http-stateless"])
def short_timeout_server(request: pytest.FixtureRequest, naver_stub: NaverStub, work_dir: Path) -> Iterator[RunningServer]:
    """A server whose Naver timeout is short, for the timeout test alone."""
    env = server_env(naver_stub, NAVER_TIMEOUT=str(SHORT_NAVER_TIMEOUT))
    with _running(request.param, env, work_dir, "short-timeout") as running:
        yield running
