"""Helpers for fault tests: a client process we can signal mid-turn."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from typing import Callable

import pytest

from tests.waits import HANG


class Live:
    """`mcp-chat` running with a pipe on stdin, for signals between lines.

    stdout and stderr are read as they come, so a test can wait for what the
    program printed (`wait_text`) before it signals."""

    def __init__(self, chat, *args: str, env: dict | None = None) -> None:
        argv, full_env = chat.command(*args, env=env)
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=chat.tmp, env=full_env)
        self._buf: dict[str, bytearray] = {"out": bytearray(), "err": bytearray()}
        self._readers = [threading.Thread(target=self._pump, args=(name, pipe), daemon=True)
                         for name, pipe in (("out", self.p.stdout), ("err", self.p.stderr))]
        for r in self._readers:
            r.start()

    def _pump(self, name: str, pipe) -> None:
        while chunk := pipe.read1(65536):
            self._buf[name] += chunk

    def text(self) -> str:
        """stdout and stderr so far (status lines and notices may be on either)."""
        return (bytes(self._buf["out"]) + bytes(self._buf["err"])).decode(errors="replace")

    def wait_text(self, what: str, count: int = 1, timeout: float = HANG) -> None:
        """Until `what` was printed `count` times (start-up on a busy machine can be slow)."""
        end = time.monotonic() + timeout
        while self.text().count(what) < count:
            assert self.p.poll() is None, f"exited {self.p.returncode} before {what!r}:\n{self.text()}"
            assert time.monotonic() < end, f"timed out waiting for {what!r}:\n{self.text()}"
            time.sleep(0.05)

    def interrupt_at_prompt(self, timeout: float = HANG) -> None:
        """Ctrl-C once the program is idle, then wait for it to end.

        A pipe shows no prompt, and between the status line and the next read there is a
        moment where SIGINT has nothing to cancel (no output at all) or still cancels the
        finished turn ("중단했습니다"); only then is the signal sent again."""
        end = time.monotonic() + timeout
        while self.p.poll() is None:
            assert time.monotonic() < end, "Ctrl-C at the prompt did not end the program:\n" + self.text()
            before = len(self.text())
            self.p.send_signal(signal.SIGINT)
            reacted = time.monotonic() + 2
            while self.p.poll() is None and len(self.text()) == before and time.monotonic() < reacted:
                time.sleep(0.05)
            if len(self.text()) > before and "중단했습니다" not in self.text()[before:]:
                break  # the read was cancelled: the program is on its way out
        self.p.wait(timeout=max(1.0, end - time.monotonic()))

    def send(self, line: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def finish(self, timeout: float = HANG) -> tuple[int, str, str]:
        if self.p.stdin and not self.p.stdin.closed:
            try:
                self.p.stdin.close()
            except BrokenPipeError:
                pass
        self.p.wait(timeout=timeout)
        for r in self._readers:
            r.join(timeout)
        return (self.p.returncode, self._buf["out"].decode(errors="replace"),
                self._buf["err"].decode(errors="replace"))


def wait_for(pred: Callable[[], bool], timeout: float = HANG) -> None:
    """Until pred() holds; the bound is a hang detector (a cold start on a loaded machine takes a minute)."""
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


@pytest.fixture
def live(chat):
    procs: list[Live] = []

    def start(*args: str, env: dict | None = None) -> Live:
        lv = Live(chat, *args, env=env)
        procs.append(lv)
        return lv

    yield start
    for lv in procs:
        if lv.p.poll() is None:
            lv.p.kill()
            lv.p.wait()
