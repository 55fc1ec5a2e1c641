"""The real interactive program in a pseudo-terminal: tmux (its own pty, so it works in CI
without a TTY on stdin), one server socket per test, every wait bounded.

`Pane.wait_for(text)` polls `capture-pane` (scrollback included, wrapped lines joined) until
the text appears; `remain-on-exit` keeps the pane after the program ends so its exit status
and last screen can still be read.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

from client.ui.i18n import EN, KO
from tests.conftest import CliRunner
from tests.waits import HANG

WIDTH, HEIGHT = 120, 40
STARTING = ("MCP 서버 시작 중", "MCP servers starting")  # the bottom toolbar while servers start (issue 41)
GREETING = (KO["greeting"][:20], EN["greeting"][:20])  # before any wrap
TMUX = shutil.which("tmux")
CONF = "set -g remain-on-exit on\nset -g default-shell /bin/sh\nset -g status off\nset -g history-limit 20000\nset -g default-terminal screen-256color\n"


class Pane:
    def __init__(self, tmp: Path, env: dict[str, str], argv: list[str], shown: str = "", width: int = WIDTH) -> None:
        self.sock = f"mcpchat-{uuid.uuid4().hex[:10]}"
        conf = tmp / f"{self.sock}.conf"
        conf.write_text(CONF)
        full = {**env, "TERM": "screen-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        # A shell-like first line, as in a real terminal (prompt_toolkit also redraws its first
        # prompt badly on the very top row of a fresh tmux pane).
        cmd = (f"printf '%s\\n' {shlex.quote('$ ' + (shown or shlex.join(argv)))}; exec env -i "
               + " ".join(shlex.quote(f"{k}={v}") for k, v in full.items() if v) + " " + shlex.join(argv))
        self.tmux("-f", str(conf), "new-session", "-d", "-x", str(width), "-y", str(HEIGHT), "-s", "chat", "-c", str(tmp), cmd)
        self.socket = self.tmux("display", "-p", "-t", "chat", "#{socket_path}").strip()

    def tmux(self, *args: str) -> str:
        assert TMUX
        p = subprocess.run([TMUX, "-u", "-L", self.sock, *args], capture_output=True, text=True, timeout=15)
        if p.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args[:2])}: {p.stderr.strip()}")
        return p.stdout

    # -- input -----------------------------------------------------------------
    def keys(self, *keys: str) -> None:
        """tmux key names: Enter, C-c, C-d, Up, Escape ..."""
        self.tmux("send-keys", "-t", "chat", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "chat", "-l", text)

    def line(self, text: str) -> None:
        self.type(text)
        self.keys("Enter")

    def paste(self, text: str) -> None:
        """A bracketed paste (what a terminal sends when text is pasted)."""
        self.tmux("set-buffer", "-b", "p", text)
        self.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "chat")

    # -- output ----------------------------------------------------------------
    def screen(self) -> str:
        """Everything printed so far (scrollback and the visible screen), trailing blanks dropped."""
        text = self.tmux("capture-pane", "-p", "-J", "-t", "chat", "-S", "-20000")
        return "\n".join(line.rstrip() for line in text.splitlines()).rstrip() + "\n"

    def visible(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "chat")

    def wait_for(self, what: str | Callable[[str], bool], timeout: float = HANG, count: int = 1) -> str:
        pred = what if callable(what) else (lambda s: s.count(what) >= count)
        end = time.monotonic() + timeout
        while True:
            text = self.screen()
            if pred(text):
                return text
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what!r}; screen:\n{text}")
            time.sleep(0.1)

    def prompts(self) -> int:
        return sum(1 for ln in self.screen().splitlines() if ln.startswith("❯"))

    def wait_prompt(self, n: int, timeout: float = 30) -> str:
        """Until the n-th main prompt is on screen (the program is idle again) and the status toolbar
        names no MCP server still starting. Not a proof that every server is up: a capture can land
        between the prompt's line and its toolbar, so tests read `llm.turn_requests()`. The
        greeting first: the early prompt drawn before the chat loaded (client/ui/early_prompt.py)
        is erased when the chat prints its first line, and counts for nothing."""
        return self.wait_for(lambda s: sum(1 for ln in s.splitlines() if ln.startswith("❯")) >= n
                             and any(g in s for g in GREETING) and not any(mark in s for mark in STARTING), timeout)

    def exit_status(self, timeout: float = 30) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            dead, _, status = self.tmux("display", "-p", "-t", "chat", "#{pane_dead} #{pane_dead_status}").strip().partition(" ")
            if dead == "1":
                return int(status or 0)
            time.sleep(0.1)
        raise AssertionError("the program did not exit; screen:\n" + self.screen())

    def close(self) -> None:
        try:
            subprocess.run([TMUX or "tmux", "-L", self.sock, "kill-server"], capture_output=True, timeout=15)
        except (OSError, subprocess.SubprocessError):
            pass
        if self.socket.endswith(self.sock):
            Path(self.socket).unlink(missing_ok=True)  # tmux leaves the socket file behind


@pytest.fixture
def tty(tmp_path: Path, llm, naver, search_config) -> Iterator[Callable[..., Pane]]:
    """tty(*args) -> a Pane running `python -m client *args --db <tmp>/chat.db` at 120x40 (tty(..., width=W))."""
    if TMUX is None:
        if os.environ.get("CI"):
            pytest.fail("tmux is required for the terminal tests in CI")
        pytest.skip("tmux is not installed")
    runner = CliRunner(tmp_path, llm, naver, search_config=search_config)  # runs before the pane in this process
    panes: list[Pane] = []

    def start(*args: str, env: dict[str, str] | None = None, width: int = WIDTH) -> Pane:
        argv, full_env = runner.command(*args, env={"XDG_DATA_HOME": str(tmp_path / "data"), **(env or {})})
        pane = Pane(tmp_path, full_env, argv, shown="mcp-chat " + shlex.join(args), width=width)
        panes.append(pane)
        return pane

    start.runner = runner  # type: ignore[attr-defined]
    yield start
    for pane in panes:
        pane.close()
