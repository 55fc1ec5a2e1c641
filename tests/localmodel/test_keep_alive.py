"""Fast suite (no model): the local server kept warm between sessions (client/engine/local/keeper.py).

A stand-in llama-server (fake_llama_server.py: /health, and /v1/models behind the API key like
the real one) is started by the real keeper process; sessions are the real acquire/release
calls. Each test has its own runtime folder and model cache.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.engine.local import keeper
from client.engine.local.keepstate import Files, read_state
from client.engine.local.server import LocalServer
from tests.localmodel import uds
from tests.localmodel.test_fast_lifecycle import alive, fake_binary, wait_dead

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="keep-alive needs PDEATHSIG (Linux)")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCP_CHAT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MCP_CHAT_RUNTIME_DIR", str(tmp_path / "rt"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "m.gguf").write_bytes(b"weights")
    yield tmp_path
    keeper.stop(tmp_path / "cache")


def server(tmp: Path, threads: int | None = None) -> LocalServer:
    return LocalServer(fake_binary(tmp), tmp / "m.gguf", tmp / "t.jinja", alias="qwen", threads=threads,
                       watchdog=False, cache=tmp / "cache")  # MCP_CHAT_CACHE, as the ui resolves it


def session(tmp: Path, keep: float, threads: int | None = None) -> keeper.Lease | None:
    return asyncio.run(keeper.acquire(server(tmp, threads), keep))


def models(socket: str, key: str | None) -> int:
    return uds.get(socket, "/v1/models", key)[0]


def wait_gone(files: Files, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and read_state(files) is not None:
        time.sleep(0.05)
    return read_state(files) is None


def test_a_second_session_reuses_the_server_and_only_with_its_key(place: Path) -> None:
    first = session(place, 60)
    assert first is not None and first.state is not None and not first.reused
    st = first.state
    first.release(60)
    second = session(place, 60)
    assert second is not None and second.reused and second.state.pid == st.pid  # no second start
    assert models(st.socket, st.key) == 200 and models(st.socket, None) == 401 and models(st.socket, "guess") == 401
    args = Path(f"/proc/{st.pid}/cmdline").read_bytes()
    assert st.key.encode() not in args  # never in argv (ps shows it to everyone)
    assert f"LLAMA_API_KEY={st.key}".encode() in Path(f"/proc/{st.pid}/environ").read_bytes()
    files = Files.here(place / "cache")
    assert files is not None and files.state.stat().st_mode & 0o777 == 0o600
    assert files.state.parent.stat().st_mode & 0o777 == 0o700
    second.release(60)


def test_a_started_server_is_handed_over_only_once_its_model_is_loaded(place: Path) -> None:
    """llama-server lists the model on /v1/models while it still loads; a chat request then gets
    a 503 and its retry a 400. The session gets the server only when /health says loaded."""
    lease = session(place, 60)
    assert lease is not None and lease.state is not None and not lease.reused
    sock = lease.state.socket
    try:
        polls = int(uds.get(sock, "/polls")[1])
        assert polls > 3  # it waited through the stand-in's three "Loading model" answers
        assert uds.get(sock, "/health")[0] == 200
    finally:
        lease.release(60)


def test_the_server_stops_after_the_keep_alive_and_never_while_in_use(place: Path) -> None:
    lease = session(place, 1)
    assert lease is not None and lease.state is not None
    pid, keeper_pid = lease.state.pid, lease.state.keeper
    time.sleep(2.5)  # longer than the keep-alive, while the session still holds it
    assert alive(pid), "stopped while a session was using it"
    lease.release(1)
    assert wait_dead(pid) and wait_dead(keeper_pid)
    assert wait_gone(Files.here(place / "cache"))


def test_keep_alive_zero_stops_it_with_the_session_and_starts_none(place: Path) -> None:
    assert session(place, 0) is None  # nothing kept, nothing started: the session owns its server
    lease = session(place, 60)
    pid = lease.state.pid
    lease.release(0)  # the last session said 0: stop now
    assert wait_dead(pid)


def test_a_killed_session_lets_the_server_go_after_its_keep_alive(place: Path) -> None:
    code = (
        "import asyncio, os, sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.localmodel.test_keep_alive import server\n"
        "from client.engine.local import keeper\n"
        "from pathlib import Path\n"
        "lease = asyncio.run(keeper.acquire(server(Path(sys.argv[1])), 1))\n"
        "print(lease.state.pid, flush=True); time.sleep(60)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code, str(place)], stdout=subprocess.PIPE, env=os.environ.copy())
    pid = int(p.stdout.readline())
    assert alive(pid)
    p.kill()
    p.wait()
    assert wait_dead(pid), "the server outlived a SIGKILLed session by more than its keep-alive"


def test_other_settings_are_never_reused(place: Path) -> None:
    lease = session(place, 60)
    old = lease.state.pid
    lease.release(60)
    other = session(place, 60, threads=3)  # the idle server with other settings is replaced
    assert other.state.pid != old and not other.reused
    assert wait_dead(old)
    assert "--threads" in json.dumps(other.state.command)
    other.release(60)


def test_a_new_chat_template_at_the_same_path_is_a_new_server(place: Path) -> None:
    """An upgrade rewrites the template file in place (local/template.py write_template): the
    kept server read the old one at start, so it must not be reused."""
    template = place / "t.jinja"
    template.write_text("old rules")
    lease = session(place, 60)
    old = lease.state.pid
    lease.release(60)
    template.write_text("new rules, plain sentences")
    fresh = session(place, 60)
    assert fresh.state.pid != old and not fresh.reused
    assert wait_dead(old)
    fresh.release(60)
    again = session(place, 60)  # unchanged since: kept
    assert again.reused and again.state.pid == fresh.state.pid
    again.release(60)


def test_a_forged_state_file_is_neither_reused_nor_obeyed(place: Path) -> None:
    """Whatever the state file says, a process that is not our server is never killed or used."""
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lease = session(place, 60)
        files = Files.here(place / "cache")
        forged = {**json.loads(files.state.read_text()), "pid": victim.pid, "keeper": victim.pid}
        lease.release(60)
        files.state.write_text(json.dumps(forged))
        files.state.chmod(0o600)
        fresh = session(place, 60)
        assert fresh.state.pid != victim.pid and not fresh.reused
        assert victim.poll() is None, "a process named in the state file was killed"
        fresh.release(60)
    finally:
        victim.kill()


def test_local_status_and_stop_commands(place: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MCP_CHAT_LANG": "en", "MCP_CHAT_DAEMON": "0"}
    lease = session(place, 300)
    pid = lease.state.pid
    lease.release(300)
    st = subprocess.run([sys.executable, "-m", "client", "local", "status"], env=env, capture_output=True, timeout=60)
    assert st.returncode == 0 and f"running (pid {pid}" in st.stdout.decode() and "kept 300 s" in st.stdout.decode()
    stop = subprocess.run([sys.executable, "-m", "client", "local", "stop"], env=env, capture_output=True, timeout=60)
    assert stop.returncode == 0 and f"(pid {pid})" in stop.stdout.decode()
    assert wait_dead(pid)
    again = subprocess.run([sys.executable, "-m", "client", "local", "status"], env=env, capture_output=True, timeout=60)
    assert again.returncode == 0 and "not running" in again.stdout.decode()


def test_the_keeper_leaves_when_its_server_dies(place: Path) -> None:
    lease = session(place, 60)
    st = lease.state
    os.kill(st.pid, signal.SIGKILL)
    assert wait_dead(st.keeper) and wait_gone(Files.here(place / "cache"))
    lease.release(60)
    again = session(place, 60)  # and the next session starts a new one
    assert again.state.pid != st.pid and alive(again.state.pid)
    again.release(60)
