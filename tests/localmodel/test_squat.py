"""Another local user cannot stand in for a local model server the client starts (issue 37).

The attack (tests/localmodel/squatter.py, run as a throwaway OS user): watch the world-readable
command lines in /proc for our llama-server and, before it binds, take the address the command
line names: the TCP port (what the client used before), or the unix socket in every folder the
squatter can guess, world-connectable. A stand-in llama-server (fake_llama_server.py) binds only
once the squatter says it has tried (FAKE_LLAMA_BIND_GATE), so the squatter always comes first.

For each server the client starts (the kept one under its keeper, a session's own, the niced
summary server) and for a runtime folder others may write in: the squatter takes nothing that
is used, receives no request (no key, no prompt), cannot reach the real socket, and the
session's server answers with its key.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import secrets
import select
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from client.engine.local import keeper
from client.engine.local.server import LocalServer, summary_server
from tests.localmodel import uds
from tests.localmodel.test_fast_lifecycle import fake_binary

HERE = Path(__file__).resolve().parent
SYSTEM_PYTHON = "/usr/bin/python3"  # the squatter cannot run our venv's (it may not read /work)

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="unix sockets in /proc, PDEATHSIG"),
    pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("setpriv")
                       or not os.access(SYSTEM_PYTHON, os.X_OK), reason="needs root, useradd, setpriv"),
]


@pytest.fixture
def other_user() -> Iterator[int]:
    name = f"mcpsq{secrets.token_hex(4)}"
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True,
                   capture_output=True, timeout=60)
    try:
        yield pwd.getpwnam(name).pw_uid
    finally:
        subprocess.run(["userdel", name], capture_output=True, timeout=60)


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    # a runtime folder where a real one would be: in /tmp, which every user can traverse
    rundir = Path(f"/tmp/mcp-chat-squat-{secrets.token_hex(4)}")
    loose = Path(f"/tmp/mcp-chat-loose-{secrets.token_hex(4)}")
    loose.mkdir()
    loose.chmod(0o777)  # ours, but anyone may create files in it
    monkeypatch.setenv("MCP_CHAT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MCP_CHAT_RUNTIME_DIR", str(rundir))
    monkeypatch.setenv("FAKE_LLAMA_BIND_GATE", str(tmp_path / "gate"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "m.gguf").write_bytes(b"weights")
    try:
        yield {"tmp": tmp_path, "rundir": rundir, "loose": loose, "gate": tmp_path / "gate"}
    finally:
        keeper.stop(tmp_path / "cache")
        shutil.rmtree(rundir, ignore_errors=True)
        shutil.rmtree(loose, ignore_errors=True)


class Squatter:
    def __init__(self, uid: int, marker: str, folders: list[Path]) -> None:
        self.p = subprocess.Popen(
            ["setpriv", f"--reuid={uid}", f"--regid={pwd.getpwuid(uid).pw_gid}", "--clear-groups",
             # its source on the command line: the other user may not read a checkout in a private folder
            SYSTEM_PYTHON, "-I", "-c", (HERE / "squatter.py").read_text(), marker, ":".join(map(str, folders))],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/")

    def report(self, timeout: float = 120) -> dict:
        """Its first line: it saw the command line and tried (the sign to let the server bind)."""
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        assert ready, "the squatter never reported"
        line = self.p.stdout.readline()
        assert line, self.p.stderr.read().decode(errors="replace")
        return json.loads(line)

    def stop(self) -> list[dict]:
        self.p.kill()
        out, _ = self.p.communicate(timeout=30)
        return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def _in_thread(fn: Any) -> tuple[threading.Thread, dict]:
    box: dict = {}

    def go() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised by the test
            box["error"] = e

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, box


def _server(tmp: Path, marker: str) -> LocalServer:
    return LocalServer(fake_binary(tmp), tmp / "m.gguf", tmp / "t.jinja", alias=marker, watchdog=False, cache=tmp / "cache")


def _ready(server: LocalServer) -> tuple[str, str]:
    asyncio.run(server.wait_ready(60))
    return server.uds, server.api_key or ""


@pytest.mark.parametrize("which", ["kept", "own", "summary", "loose folder"])
def test_another_user_cannot_impersonate_the_local_server(other_user: int, place: dict, which: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    marker = f"squat-{secrets.token_hex(6)}"
    base = _server(place["tmp"], marker)
    if which == "loose folder":
        monkeypatch.setenv("MCP_CHAT_RUNTIME_DIR", str(place["loose"]))
    squatter = Squatter(other_user, marker, [place["rundir"], place["loose"], Path("/tmp")])
    key = secrets.token_urlsafe(16)
    started: list[LocalServer] = []

    def kept() -> tuple[str, str]:
        got = asyncio.run(keeper.acquire(base, 60))
        assert got is not None and got.state is not None
        started.append(got)  # type: ignore[arg-type]
        return got.state.socket, got.state.key

    if which == "kept":
        thread, box = _in_thread(kept)
    else:  # started here (PDEATHSIG follows the thread that spawns), waited for in a thread
        server = base.with_(api_key=key)
        server = (summary_server(server) if which == "summary" else server).start()
        started.append(server)
        thread, box = _in_thread(lambda: _ready(server))
    try:
        report = squatter.report()
        assert report["saw"] and marker in report["saw"], report  # it found our server's command line
        place["gate"].touch()  # now the server may bind
        thread.join(120)
        assert not thread.is_alive(), "the session never got its server"
        if "error" in box:
            raise box["error"]
        socket_path, used_key = box["value"]
        assert uds.get(socket_path, "/v1/models", used_key)[0] == 200  # the session's server answers, with its key
        assert uds.get(socket_path, "/v1/models", None)[0] == 401, "answered without the key: not our server"
        assert not any(b.startswith("tcp:") for b in report["bound"]), report  # no port to take
        assert socket_path not in report["bound"], report
        assert Path(socket_path).parent.stat().st_mode & 0o077 == 0  # where no other user may enter
    finally:
        seen = squatter.stop()
        for s in started:
            s.stop() if isinstance(s, LocalServer) else s.release(0)
    assert not [e for e in seen if "got" in e], f"the squatter received requests: {seen}"
    assert not [e for e in seen if "reached" in e], f"the squatter reached the real server: {seen}"
