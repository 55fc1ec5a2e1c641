"""What /proc says about a process (Linux): is it alive, what does it run, how many threads.

The one liveness check: a pid is alive while any of its threads runs. An exited leader is a
zombie while its other threads still hold its sockets and memory; a reaped pid is gone.
"""

from __future__ import annotations

import os
from pathlib import Path


def tasks(pid: int | str = "self") -> list[int]:
    """The thread ids of `pid` (empty when it is gone)."""
    try:
        return sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))
    except (OSError, ValueError):
        return []


def _state(path: str) -> str:
    try:
        return Path(path).read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def alive(pid: int) -> bool:
    """Any thread of `pid` still running (not a zombie, not dead)."""
    if pid <= 0:
        return False
    return any(_state(f"/proc/{pid}/task/{tid}/stat") not in ("", "Z", "X") for tid in tasks(pid))


def cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [a.decode("utf-8", "surrogateescape") for a in raw.split(b"\0")[:-1]]


def runs(pid: int, command: list[str]) -> bool:
    """Does `pid` run `command`? Its arguments must match exactly (argv[0] may differ: a script
    that execs the real program shows the interpreter there)."""
    line = cmdline(pid)
    return bool(line and command and len(line) >= len(command) and line[len(line) - len(command) + 1:] == command[1:])


def thread_count() -> int:
    """Threads of this process as the kernel counts them (also those Python does not know of)."""
    return len(tasks()) or 1
