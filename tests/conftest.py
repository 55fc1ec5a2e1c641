"""Shared fixtures: the recording model stub, the Naver stub, a client runner."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from tests.backends import BACKENDS, check_postgres, make_db
from tests.stubs.llm_stub import LLMStub
from tests.stubs.naver_stub import NaverStub

ROOT = Path(__file__).resolve().parent.parent
TEST_KEY = "sk-test-CLOVA-key-123456"
# Real cold starts unless a test asks for the pre-imported process (client/engine/launch/,
# docs/startup.md): tests/launch/ sets MCP_CHAT_DAEMON=1 and a runtime folder of its own.
os.environ.setdefault("MCP_CHAT_DAEMON", "0")


@pytest.fixture
def llm() -> Iterator[LLMStub]:
    with LLMStub() as stub:
        yield stub


@pytest.fixture
def naver() -> Iterator[NaverStub]:
    with NaverStub() as stub:
        yield stub


@dataclass
class Result:
    code: int
    out: str
    err: str


class ChatRunner:
    """Runs the real `mcp-chat` in a subprocess against the stubs."""

    def __init__(self, tmp: Path, llm: LLMStub, naver: NaverStub, db: str | None = None,
                 backend: str = "sqlite") -> None:
        self.tmp = tmp
        self.backend = backend  # "sqlite" | "postgres" (tests/backends.py)
        self.db = db or str(tmp / "chat.db")
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp),
            "PYTHONPATH": str(ROOT),
            "CLOVA_STUDIO_API_KEY": TEST_KEY,
            "CLOVA_STUDIO_BASE_URL": llm.base_url,
            "NAVER_CLIENT_ID": naver.client_id,
            "NAVER_CLIENT_SECRET": naver.client_secret,
            "NAVER_API_BASE_URL": naver.base_url,
            "PYTHONUNBUFFERED": "1",
            "MCP_CHAT_DAEMON": os.environ.get("MCP_CHAT_DAEMON", "0"),
        }

    def __call__(self, *args: str, input: str = "", env: dict | None = None, db: bool = True,
                 timeout: float = 90) -> Result:
        argv = [sys.executable, "-m", "client", *args]
        if db and "--db" not in args:
            argv += ["--db", self.db]
        full_env = {**self.env, **(env or {})}
        full_env = {k: v for k, v in full_env.items() if v is not None}
        p = subprocess.run(argv, input=input.encode(), capture_output=True, cwd=self.tmp,
                           env=full_env, timeout=timeout)
        return Result(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))

    def sub(self, *args: str) -> Result:
        """A non-chat subcommand (threads/export/delete) with --db."""
        return self(*args, "--db", self.db, db=False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: runs on the SQLite backend only (file behaviour)")
    config.addinivalue_line("markers", "postgres_only: runs on the Postgres backend only (needs TEST_POSTGRES_URL)")
    problem = check_postgres()
    if problem:  # in CI, or with a URL that does not answer: fail loudly, never skip
        raise pytest.UsageError(problem)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses `backend` (and so `chat`/`db_url`) runs on each backend."""
    if "backend" in metafunc.fixturenames:
        names = BACKENDS
        if metafunc.definition.get_closest_marker("sqlite_only"):
            names = ["sqlite"]
        elif metafunc.definition.get_closest_marker("postgres_only"):
            names = [b for b in BACKENDS if b == "postgres"]  # empty: reported as skipped
        metafunc.parametrize("backend", names)


@pytest.fixture
def db_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A fresh database: a file (SQLite) or a schema of TEST_POSTGRES_URL (Postgres)."""
    with make_db(backend, tmp_path) as db:
        yield db


@pytest.fixture
def chat(tmp_path: Path, llm: LLMStub, naver: NaverStub, db_url: str, backend: str) -> ChatRunner:
    return ChatRunner(tmp_path, llm, naver, db_url, backend)


def thread_id_of(out: str) -> str:
    for line in out.splitlines():
        if "현재 세션 ID:" in line:
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no session id in output:\n{out}")


def roles(req: dict) -> list[str]:
    return [m["role"] for m in req["messages"]]


def user_texts(req: dict) -> list[str]:
    return [m["content"] for m in req["messages"] if m["role"] == "user"]
