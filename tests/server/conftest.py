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


@pytest.fixture(scope="session")
def _servers(naver_stub: NaverStub, work_dir: Path) -> Iterator:
    """get(name, transport, env): the session's server of that name and transport, started on
    first use and kept to the end. A parametrized session fixture would be torn down and started
    again (4 s each) every time a worker's next test has the other transport."""
    with contextlib.ExitStack() as stack:
        started: dict[tuple[str, str], RunningServer] = {}

        def get(name: str, transport: str, env: dict[str, str]) -> RunningServer:
            if (name, transport) not in started:
                started[name, transport] = stack.enter_context(_running(transport, env, work_dir, name))
            return started[name, transport]

        yield get


@pytest.fixture(params=["stdio", "http", "http-stateless"])
def server(request: pytest.FixtureRequest, naver_stub: NaverStub, _servers) -> RunningServer:
    """One real server process per transport, with one MCP session shared by the tests."""
    return _servers("server", request.param, server_env(naver_stub))


@pytest.fixture(params=["stdio", "http", "http-stateless"])
def short_timeout_server(request: pytest.FixtureRequest, naver_stub: NaverStub, _servers) -> RunningServer:
    """A server whose Naver timeout is short, for the timeout test alone."""
    return _servers("short-timeout", request.param, server_env(naver_stub, NAVER_TIMEOUT=str(SHORT_NAVER_TIMEOUT)))
