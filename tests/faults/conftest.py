"""Helpers for fault tests: a client process we can signal mid-turn."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Callable

import pytest


class Live:
    """`mcp-chat` running with a pipe on stdin, for signals between lines."""

    def __init__(self, chat, *args: str) -> None:
        argv = [sys.executable, "-m", "client", *args, "--db", chat.db]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=chat.tmp, env=chat.env)

    def send(self, line: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def finish(self, timeout: float = 60) -> tuple[int, str, str]:
        out, err = self.p.communicate(b"" if self.p.stdin and not self.p.stdin.closed else None, timeout=timeout)
        return self.p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def wait_for(pred: Callable[[], bool], timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


@pytest.fixture
def live(chat):
    procs: list[Live] = []

    def start(*args: str) -> Live:
        lv = Live(chat, *args)
        procs.append(lv)
        return lv

    yield start
    for lv in procs:
        if lv.p.poll() is None:
            lv.p.kill()
            lv.p.wait()
