"""`mcp-chat daemon start`: the pre-imported process is up when the command returns (no run after
it starts cold), a second start keeps the same one, and where there can be none it says so."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNING = re.compile(r"^client: running \(pid (\d+), served (\d+)", re.M)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the daemon is Linux-only")


def daemon(rundir: Path, op: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "HOME": str(rundir.parent),
           "MCP_CHAT_RUNTIME_DIR": str(rundir), "MCP_CHAT_DAEMON": "1", "MCP_CHAT_DAEMON_IDLE": "60",
           "MCP_CHAT_LANG": "en", **extra}
    return subprocess.run([sys.executable, "-m", "client", "daemon", op], env=env, capture_output=True, text=True,
                          timeout=120)


def test_start_returns_once_it_serves_and_a_second_start_keeps_it(tmp_path: Path) -> None:
    rundir = tmp_path / "rt"
    rundir.mkdir(mode=0o700)
    try:
        first = daemon(rundir, "start")
        assert first.returncode == 0, first.stderr
        m = RUNNING.search(first.stdout)
        assert m and m.group(2) == "0", first.stdout  # up, and nothing served yet
        pid = int(m.group(1))
        status = daemon(rundir, "status")  # served by it: one run
        m = RUNNING.search(status.stdout)
        assert m and int(m.group(1)) == pid and m.group(2) == "1", status.stdout
        again = daemon(rundir, "start")
        m = RUNNING.search(again.stdout)
        assert again.returncode == 0 and m and int(m.group(1)) == pid, again.stdout
    finally:
        daemon(rundir, "stop", MCP_CHAT_DAEMON="0")


def test_start_when_turned_off_is_one_line_and_exit_1(tmp_path: Path) -> None:
    rundir = tmp_path / "rt"
    rundir.mkdir(mode=0o700)
    r = daemon(rundir, "start", MCP_CHAT_DAEMON="0")
    assert r.returncode == 1
    assert r.stdout.strip().splitlines() == [r.stdout.strip()] and "MCP_CHAT_DAEMON=0" in r.stdout
    assert not list(rundir.glob("*.sock"))
