"""Locks and leases between this user's processes: flock(2) on small files.

- `Lock(path)`: exclusive, blocking (or `wait=False`: taken only when free); released when
  released, closed, or when the process ends, however it ends.
- `Lease(path)`: a shared lock held while a process uses something; whoever owns that thing
  asks `held(path)` (does anyone use it?) and reads the file's mtime (when was it last let go).
- `held(path)`: is it locked by someone, asked without keeping the lock.

Lock files are opened without following a symlink and created 0600.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def open_lock(path: Path, parents: bool = False) -> int:
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def held(path: Path) -> bool:
    """True when another process holds an flock on `path`; a file that cannot be opened counts as
    held (nothing is started or stopped on a guess)."""
    try:
        fd = open_lock(path)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


class Lock:
    """`with Lock(path):` ... exclusive. `Lock(path, wait=False).acquire()` is False when another
    process holds it. `parents`: create the folder first (a cache that may not exist yet)."""

    def __init__(self, path: Path, *, wait: bool = True, parents: bool = False) -> None:
        self.path, self.wait, self.parents = path, wait, parents
        self.fd = -1

    def acquire(self) -> bool:
        fd = open_lock(self.path, self.parents)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if self.wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the lock
            self.fd = -1

    def __enter__(self) -> Lock:
        if not self.acquire():
            raise BlockingIOError(f"{self.path} is locked")
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Lease:
    """A shared lock on `path`, taken now (blocking only while someone holds it exclusively)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = open_lock(path)
        fcntl.flock(self.fd, fcntl.LOCK_SH)

    @property
    def active(self) -> bool:
        return self.fd >= 0

    def others(self) -> bool:
        """Does another process hold a lease too? (ours is let go for the check, then taken again)"""
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        try:
            return held(self.path)
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_SH)

    def release(self, touch: bool = True) -> None:
        """Let go; `touch`: mark when (the file's mtime), for an owner that counts idle time."""
        if self.fd < 0:
            return
        try:
            if touch:
                os.utime(self.fd)
        except OSError:
            pass
        finally:
            os.close(self.fd)
            self.fd = -1
