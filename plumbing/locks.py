"""Locks and leases between this user's processes: flock(2) on small files.

- `Lock(path)`: exclusive, blocking (or `wait=False`: taken only when free); released when
  released, closed, or when the process ends, however it ends.
- `Lease(path)`: a shared lock held while a process uses something; whoever owns that thing
  asks `held(path)` (does anyone use it?) and reads the file's mtime (when was it last let go).
- `held(path)`: is it locked by someone, asked without keeping the lock.

Lock files are created 0600 and opened only as this user's own: never through a symlink, only a
regular file owned by this user that no one else may write (`open_lock`, also for the store's
`<db>-lock`). Anything else at the path is refused (LockRefused), never used and never replaced.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path


class LockRefused(OSError):
    """Something other than this user's own lock file is at the path. `why`: "symlink", "not_file"
    (a folder, a FIFO, a device ...), "owner" (another user's file: `owner` is their uid), "writable"
    (others may write it)."""

    def __init__(self, path: str | os.PathLike, why: str, owner: int | None = None) -> None:
        super().__init__(errno.EPERM, f"lock file refused ({why})", str(path))
        self.why, self.owner = why, owner


def refusal(st: os.stat_result) -> tuple[str, int | None] | None:
    """Why a file with this status is no lock file of ours (None: it is)."""
    if stat.S_ISLNK(st.st_mode):
        return "symlink", None
    if not stat.S_ISREG(st.st_mode):
        return "not_file", None
    if st.st_uid != os.geteuid():
        return "owner", st.st_uid
    if st.st_mode & 0o022:
        return "writable", None
    return None


def open_lock(path: Path | str, parents: bool = False, create: bool = True) -> int:
    """An fd of this user's own lock file at `path` (created 0600 when absent and `create`). Raises
    LockRefused for anything else there, OSError when it cannot be opened or made. Never blocks:
    a FIFO at the path is refused, not waited on."""
    if parents:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as e:
        try:
            st = os.lstat(path)
        except OSError:
            raise e from None
        why = refusal(st)
        if why is not None:
            raise LockRefused(path, *why) from None
        raise
    why = refusal(os.fstat(fd))
    if why is not None:
        os.close(fd)
        raise LockRefused(path, *why)
    return fd


def ranges_held(path: Path | str) -> bool:
    """Does another process hold a POSIX record lock (lockf) on any byte of this user's own lock
    file at `path`? False when there is none (or it is not ours: no one else can have opened it).
    Ask before this process takes any record lock on it: closing the probe drops them."""
    try:
        fd = open_lock(path, create=False)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 0, 0)  # the whole file: refused while any byte is held
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


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
