"""`mcp-chat --provider local` owns its llama-server: started on a private unix socket, stopped on
exit, on SIGINT/SIGTERM, and gone even when the client is SIGKILLed. Also the automatic switch
to the local model when no CLOVA key is configured."""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.localmodel.conftest import FIGURES, ROOT
from tests.procs import alive

pytestmark = [pytest.mark.localmodel, pytest.mark.timeout(600)]
PID_RE = re.compile(r"\[local\] unix:(\S+) pid=(\d+) ready in ([\d.]+)s")


def wait_dead(pid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def socket_closed(path: str) -> bool:
    """Nobody listens at the unix socket `path` (gone, or left by a dead server)."""
    with socket.socket(socket.AF_UNIX) as s:
        return s.connect_ex(path) != 0


def tcp_listeners(pid: int) -> list[str]:
    """TCP sockets (v4, v6) that `pid` listens on: /proc/net/tcp* rows in LISTEN whose inode is
    one of its descriptors."""
    mine = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            mine.add(target[8:-1])
    out = []
    for table in ("tcp", "tcp6"):
        for row in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in mine:  # 0A: LISTEN
                out.append(cols[1])
    return out


class Lines:
    """Collects a pipe's lines in a thread; `wait(pattern)` returns the first match."""

    def __init__(self, pipe) -> None:
        self.q: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(pipe,), daemon=True).start()

    def _pump(self, pipe) -> None:
        for raw in iter(pipe.readline, b""):
            self.q.put(raw.decode(errors="replace"))

    def wait(self, pattern: re.Pattern[str] | str, timeout: float = 300) -> re.Match[str]:
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.q.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen.append(line)
            if m := rx.search(line):
                return m
        raise AssertionError(f"no {rx.pattern!r} in {''.join(self.seen)[-2000:]}")


def start_client(own_chat) -> tuple[subprocess.Popen[bytes], int, str, Lines]:
    started = time.monotonic()
    p = own_chat.popen("--new", "--no-memory", "--debug")
    err, out = Lines(p.stderr), Lines(p.stdout)
    m = err.wait(PID_RE)
    err.wait("현재 세션 ID:")  # status lines go to stderr when stdout is a pipe
    FIGURES["client_start_to_prompt_s"] = time.monotonic() - started
    FIGURES["server_ready_in_client_s"] = float(m.group(3))
    sock, pid = m.group(1), int(m.group(2))
    assert alive(pid) and not socket_closed(sock)
    assert not tcp_listeners(pid), "llama-server opened a TCP port"
    return p, pid, sock, out


# `/exit` and EOF (exit code 0, no server left) are test_warm_start.py's, on a busy machine
@pytest.mark.parametrize("how", ["sigint", "sigterm", "sigkill"])
def test_server_never_outlives_the_client(own_chat, how):
    p, pid, sock, _ = start_client(own_chat)
    assert os.getpgid(pid) == pid  # its own process group
    p.send_signal({"sigint": signal.SIGINT, "sigterm": signal.SIGTERM, "sigkill": signal.SIGKILL}[how])
    assert wait_dead(pid), f"llama-server {pid} still running after {how}"
    assert socket_closed(sock)
    p.stdin.close()
    p.wait(30)


def test_watchdog_fallback_stops_the_server_when_its_parent_is_killed(tmp_path):
    """The non-Linux path (no PDEATHSIG): a watchdog between client and the real server."""
    script = (
        "import asyncio, sys\n"
        "from client.engine.local import LocalServer\n"
        "from client.engine.local.spec import QWEN_CODER_15B, server_binary, server_dir, weights_path\n"
        "from client.engine.local.template import write_template\n"
        "from client.ui.env_settings import dirs\n"
        "c = dirs().cache\n"
        "s = LocalServer(server_binary(c), weights_path(c), write_template(server_dir(c)), alias=QWEN_CODER_15B.name, watchdog=True, cache=c).start()\n"
        "asyncio.run(s.wait_ready())\n"
        "print(s.uds, s.proc.pid, flush=True)\n"
        "sys.stdin.read()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tmp_path)
    sock, pid_text = p.stdout.readline().decode().split()
    watchdog = int(pid_text)
    servers = [int(x) for x in Path(f"/proc/{watchdog}/task/{watchdog}/children").read_text().split()]
    assert servers and "llama-server" in Path(f"/proc/{servers[0]}/cmdline").read_text()
    p.kill()
    p.wait(10)
    for pid in [watchdog, *servers]:
        assert wait_dead(pid), pid
    assert socket_closed(sock)


def test_no_key_switches_to_local_with_a_one_line_notice(own_chat):
    started = time.monotonic()
    r = own_chat("--new", input="Reply with the single word OK.\n",  # defaults: memory on, as a user would
                 env={"CLOVA_STUDIO_API_KEY": None, "CLOVASTUDIO_API_KEY": None}, auto=True)
    assert r.code == 0, r.err
    notice = [ln for ln in r.err.splitlines() if "CLOVA Studio API 키가 없어 로컬 소형 모델" in ln]
    assert len(notice) == 1
    assert "[상태] 로컬 Qwen2.5-Coder-1.5B-Instruct" in r.err
    FIGURES["auto_local_run_s"] = time.monotonic() - started
