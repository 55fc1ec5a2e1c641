"""Process checks for tests that prove a child is gone."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """True while any thread of `pid` still runs. The leader alone is not enough: it turns zombie
    as soon as it exits, while the other threads finish exiting and still hold the process's
    files (a listening socket among them)."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # that thread is gone
        if state not in ("Z", "X"):
            return True
    return False


def holding(f) -> set[int]:
    """The other processes that have the pipe (or file) of `f`, a file object of this process,
    open: e.g. a launcher's stdout is also the stdout of the run the pre-imported daemon forked
    for it (plumbing/forkserver), which a test cannot see otherwise."""
    target = os.readlink(f"/proc/self/fd/{f.fileno()}")
    found: set[int] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            fds = list((proc / "fd").iterdir())
        except OSError:
            continue  # gone, or not ours
        for fd in fds:
            try:
                if os.readlink(fd) == target:
                    found.add(int(proc.name))
                    break
            except OSError:
                continue
    return found
