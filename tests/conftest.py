"""Shared fixtures (the recording model stub, the Naver stub, a client runner) and the suite's
tiers. README "테스트" describes the tiers and the markers; in short:

- every test runs in CI (`bash scripts/test.sh`); `-m "not slow"` is the fast tier a developer
  runs before each commit. tests/tty, tests/conformance, tests/deploy, the PostgreSQL variants
  and `cold` tests are `slow`; mark any other test that costs more than ~10 s `slow` too.
- `storage`: the test is about what the database does, so it runs on SQLite and PostgreSQL
  (TEST_POSTGRES_URL); everything else that uses `chat`/`db_url` runs on SQLite only.
- `bundled_search`: the test needs the default search server (the bundled stdio child).
  Every other client run gets the search tools from one shared search server over streamable
  HTTP (session-scoped, port 0), which spares each run the start of a Python child.
- `ports`: the test needs fixed ports; such tests run one at a time under
  /tmp/mcp-chat-ports.lock (and in one xdist group).
- `cold`: every client run of the test is a true cold start (MCP_CHAT_DAEMON=0). Every other
  run goes through the product's pre-imported process (MCP_CHAT_DAEMON=1, docs/startup.md)
  with one runtime folder per test session, started before the first test (`mcp-chat daemon
  start`): runs are forked from it (real processes, pipes, signals and exit codes all the same).
- Property tests (hypothesis) run 60 examples each; HYPOTHESIS_PROFILE=thorough runs 1,000.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import settings

from tests.backends import BACKENDS, check_postgres, make_db
from tests.cli import Result, run_cli
from tests.stubs.llm_stub import LLMStub
from tests.stubs.naver_stub import NaverStub

ROOT = Path(__file__).resolve().parent.parent
TEST_KEY = "sk-test-CLOVA-key-123456"
# Retry waits at 2% of production (client/core/faults.py); a test that measures a wait unsets it.
BACKOFF_SCALE = "0.02"
SERVER_ARGS = ("--server-url", "--mcp-config", "--with-search")
SERVER_ENV = ("MCP_SERVER_URL", "MCP_CONFIG")
SLOW_FOLDERS = {"tty", "conformance", "deploy"}
PORTS_FOLDERS = {"deploy"}  # nginx on 127.0.0.1:8080 with replicas on :8001/:8002 (deploy/nginx.conf)
PORTS_LOCK = "/tmp/mcp-chat-ports.lock"

# This process keeps what it compiles (test modules with their rewritten asserts, the client's modules
# run in-process) even under PYTHONDONTWRITEBYTECODE=1: each worker would otherwise compile them all
# again, every run. The processes the suite starts keep the environment's setting.
sys.dont_write_bytecode = False

settings.register_profile("suite", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=1_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


# -- stubs -------------------------------------------------------------------------------------
@pytest.fixture
def llm() -> Iterator[LLMStub]:
    with LLMStub() as stub:
        yield stub


@pytest.fixture(scope="session")
def naver_shared() -> Iterator[NaverStub]:
    with NaverStub() as stub:
        yield stub


@pytest.fixture
def naver(naver_shared: NaverStub) -> NaverStub:
    """The session's Naver stub, in "ok" mode with no recorded requests."""
    naver_shared.reset()
    return naver_shared


class SearchServer:
    """Our search server over streamable HTTP on a port it chose itself (reported in its log)."""

    def __init__(self, naver: NaverStub, folder: Path) -> None:
        self.log_path = folder / "search-server.log"
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1",
               "NAVER_API_BASE_URL": naver.base_url, "NAVER_CLIENT_ID": naver.client_id,
               "NAVER_CLIENT_SECRET": naver.client_secret}
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "server", "--port", "0"], cwd=folder, env=env,
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.port = self._reported_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.config = folder / "search.json"
        self.config.write_text(json.dumps({"mcpServers": {"search": {"url": self.url}}}), encoding="utf-8")

    def _reported_port(self, timeout: float = 60) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = re.search(r"Uvicorn running on http://127\.0\.0\.1:(\d+)", self.log_path.read_text(errors="replace"))
            if m:
                return int(m.group(1))
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("the search server did not report its port:\n" + self.log_path.read_text(errors="replace"))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def search_server(naver_shared: NaverStub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchServer]:
    server = SearchServer(naver_shared, tmp_path_factory.mktemp("search-server"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def search_config(request: pytest.FixtureRequest) -> str | None:
    """The --mcp-config of the shared search server; None for `bundled_search` tests."""
    if request.node.get_closest_marker("bundled_search"):
        return None
    return str(request.getfixturevalue("search_server").config)


class Daemons:
    """The runtime folder of the session's pre-imported processes (client and bundled server)."""

    def __init__(self, folder: Path) -> None:
        folder.chmod(0o700)  # the launcher uses only a private folder
        self.folder = folder
        self.env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "HOME": str(folder),
                    "MCP_CHAT_RUNTIME_DIR": str(folder), "MCP_CHAT_DAEMON": "0", "MCP_CHAT_LANG": "en"}

    def command(self, op: str, env: dict[str, str] | None = None) -> str:
        p = subprocess.run([sys.executable, "-m", "client", "daemon", op], env={**self.env, **(env or {})},
                           capture_output=True, timeout=90)
        return p.stdout.decode(errors="replace")

    def served(self) -> dict[str, int]:
        """kind -> runs served so far ("client", "server")."""
        found = re.findall(r"^(client|server): running \(pid \d+, served (\d+)", self.command("status"), re.M)
        return {kind: int(n) for kind, n in found}


@pytest.fixture(scope="session")
def daemons(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemons]:
    d = Daemons(tmp_path_factory.mktemp("runtime"))
    # up before the first test: no run of the session starts cold while it would still be importing
    started = d.command("start", {"MCP_CHAT_DAEMON": "1", "MCP_CHAT_DAEMON_IDLE": "120"})
    assert started.startswith("client: running"), started
    try:
        yield d
    finally:
        if os.environ.get("MCP_CHAT_TEST_DAEMON_LOG"):  # how many runs were forked (scripts/test.sh)
            with open(os.environ["MCP_CHAT_TEST_DAEMON_LOG"], "a") as f:
                f.write(json.dumps(d.served()) + "\n")
        d.command("stop")  # the processes this session's runs started


@pytest.fixture
def daemon_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """What a client run adds to its environment: the session's daemons, or a true cold start."""
    if request.node.get_closest_marker("cold"):
        return {"MCP_CHAT_DAEMON": "0"}
    d = request.getfixturevalue("daemons")
    # idle for 2 minutes: gone soon even when a run is killed before the session's teardown
    return {"MCP_CHAT_DAEMON": "1", "MCP_CHAT_RUNTIME_DIR": str(d.folder), "MCP_CHAT_DAEMON_IDLE": "120"}


# -- the client --------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _forget_the_tests_secrets() -> Iterator[None]:
    """What a test makes known (client/core/secrets.py `remember`) is forgotten after it, as the
    process of a run forgets it: a long key one test remembered held back the streamed answer of a
    later test on the same worker (test_render_rich, after test_mcp_config's OAuth private key)."""
    from client.core import secrets

    saved = set(secrets._remembered)
    yield
    secrets._remembered.clear()
    secrets._remembered.update(saved)


class ChatRunner:
    """Runs the real `mcp-chat` in a subprocess against the stubs.

    `search_config`: the shared search server's config, used (as MCP_CONFIG) by every run that
    names no MCP server of its own; None: the bundled stdio server, as a user gets by default."""

    def __init__(self, tmp: Path, llm: LLMStub, naver: NaverStub, db: str | None = None,
                 backend: str = "sqlite", search_config: str | None = None,
                 daemon_env: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.backend = backend  # "sqlite" | "postgres" (tests/backends.py)
        self.db = db or str(tmp / "chat.db")
        self.search_config = search_config
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
            "MCP_CHAT_TEST_BACKOFF_SCALE": BACKOFF_SCALE,
            "MCP_CHAT_MEMORY_DETACH": "0",  # -p leaves memory to the next start: no job outlives a run (tests that want one set 1)
            # a loaded test machine can take a minute to start a Python MCP server; the product's 30 s
            # would fail runs that test something else (tests of the time-out set their own)
            "MCP_CHAT_STARTUP_TIMEOUT": "300",
            **(daemon_env or {"MCP_CHAT_DAEMON": "0"}),
        }

    def command(self, *args: str, env: dict | None = None, db: bool = True) -> tuple[list[str], dict[str, str]]:
        """(argv, environment) of one run, as __call__ starts it (for Popen-style tests)."""
        argv = [sys.executable, "-m", "client", *args]
        if db and "--db" not in args:
            argv += ["--db", self.db]
        full = {**self.env, **(env or {})}
        names_servers = any(a.split("=", 1)[0] in SERVER_ARGS for a in args) or any(full.get(k) for k in SERVER_ENV)
        if self.search_config and not names_servers:
            full["MCP_CONFIG"] = self.search_config
        return argv, {k: v for k, v in full.items() if v is not None}

    def __call__(self, *args: str, input: str = "", env: dict | None = None, db: bool = True,
                 timeout: float = 300, cwd: Path | None = None) -> Result:  # a hang detector: a loaded machine is slow
        argv, full_env = self.command(*args, env=env, db=db)
        p = subprocess.run(argv, input=input.encode(), capture_output=True, cwd=cwd or self.tmp,
                           env=full_env, timeout=timeout)
        return Result(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))

    def sub(self, *args: str) -> Result:
        """A non-chat subcommand (threads/export/delete) with --db."""
        return self(*args, "--db", self.db, db=False)


class CliRunner(ChatRunner):
    """ChatRunner's runs in this process (tests/cli.py): the same arguments, environment, working
    folder and stdin; the real argument parsing, settings, store, engine, MCP servers and slash
    commands, minus the process. `command()` still gives a process run's argv and environment
    (for the one step of a test that needs a process)."""

    def __call__(self, *args: str, input: str | bytes = "", env: dict | None = None, db: bool = True,
                 timeout: float = 300, cwd: Path | None = None, as_user: tuple[int, int] | None = None) -> Result:
        """`as_user`: (uid, gid) of the run (tests/cli.py); the hang detector is pytest-timeout's."""
        argv, full_env = self.command(*args, env=env, db=db)
        return run_cli(argv[3:], input, full_env, cwd or self.tmp, as_user=as_user)

    def run(self, main, *args: str, input: str = "", env: dict | None = None) -> Result:
        """Another entry point of the same shape in this process (e.g. init_db.main), with this
        runner's environment and working folder."""
        return run_cli(list(args), input, {**self.env, **(env or {})}, self.tmp, main=main)


# -- tiers, backends, ports --------------------------------------------------------------------
def pytest_configure(config: pytest.Config) -> None:
    problem = check_postgres()
    if problem:  # in CI, or with a URL that does not answer: fail loudly, never skip
        raise pytest.UsageError(problem)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that uses `backend` (and so `chat`/`db_url`) runs on SQLite; on each backend when
    it is marked `storage`."""
    if "backend" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker
        names = BACKENDS if marker("storage") else ["sqlite"]
        if marker("sqlite_only"):
            names = ["sqlite"]
        elif marker("postgres_only"):
            names = [b for b in BACKENDS if b == "postgres"]  # empty: reported as skipped
        metafunc.parametrize("backend", names)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (pytest_collection_finish checks)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`slow` by folder, for the PostgreSQL variants and for `cold` tests; fixed-port tests in one
    xdist group."""
    tests = ROOT / "tests"
    for item in items:
        try:
            folder = Path(str(item.path)).relative_to(tests).parts[0]
        except ValueError:
            continue
        callspec = getattr(item, "callspec", None)
        postgres = callspec is not None and callspec.params.get("backend") == "postgres"
        cold = item.get_closest_marker("cold") is not None  # every run a true cold start: 4-6 s each
        if folder in SLOW_FOLDERS or postgres or cold or item.get_closest_marker("localmodel"):
            item.add_marker(pytest.mark.slow)
        if folder in PORTS_FOLDERS:
            item.add_marker(pytest.mark.ports)
        if item.get_closest_marker("ports"):
            item.add_marker(pytest.mark.xdist_group("ports"))


def pytest_collection_finish(session: pytest.Session) -> None:
    """On an xdist worker with --dist loadgroup, every `xdist_group` test must carry its group in
    its id (that is how xdist sends a group to one worker); pytest 9.2 silently broke that."""
    config = session.config
    if not hasattr(config, "workerinput") or not config.getoption("loadgroup", False):
        return
    lost = [i.nodeid for i in session.items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(f"xdist groups not applied (pytest/pytest-xdist versions?): {lost[:3]}")


@contextmanager
def ports_lock() -> Iterator[None]:
    """Held while a test uses fixed ports (other worktrees on this machine take it too)."""
    with open(PORTS_LOCK, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture
def db_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A fresh database: a file (SQLite) or a schema of TEST_POSTGRES_URL (Postgres)."""
    with make_db(backend, tmp_path) as db:
        yield db


@pytest.fixture
def chat(tmp_path: Path, llm: LLMStub, naver: NaverStub, db_url: str, backend: str,
         search_config: str | None, daemon_env: dict[str, str]) -> ChatRunner:
    return ChatRunner(tmp_path, llm, naver, db_url, backend, search_config, daemon_env)


@pytest.fixture
def cli(tmp_path: Path, llm: LLMStub, naver: NaverStub, db_url: str, backend: str,
        search_config: str | None, request: pytest.FixtureRequest) -> CliRunner:
    """`chat`, in this process (tests/cli.py): the default for behaviour tests. A process
    (`chat`) only for what only a process shows: signals, exit on a signal, the tty, the daemon,
    stdio purity, the local model."""
    # the bundled search server is forked by the session's pre-imported server process, as `chat`'s is
    daemon_env = request.getfixturevalue("daemon_env") if request.node.get_closest_marker("bundled_search") \
        else {"MCP_CHAT_DAEMON": "0"}
    return CliRunner(tmp_path, llm, naver, db_url, backend, search_config, daemon_env)


def thread_id_of(out: str) -> str:
    for line in out.splitlines():
        if "현재 세션 ID:" in line:
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no session id in output:\n{out}")


def roles(req: dict) -> list[str]:
    return [m["role"] for m in req["messages"]]


def user_texts(req: dict) -> list[str]:
    return [m["content"] for m in req["messages"] if m["role"] == "user"]
