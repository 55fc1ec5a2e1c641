"""Process checks for tests that prove a child is gone."""

from __future__ import annotations

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
