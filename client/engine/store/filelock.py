"""Per-thread locks for a database file: one-byte POSIX locks in `<db>-lock`.

Each thread id maps to a byte offset (a hash); holding the byte's lock claims the
thread. The kernel drops the locks when the process ends, however it ends. POSIX
locks belong to the process: one client per process (two stores in one process
do not exclude each other).

The last client to close removes the file: it takes a lock on the whole file (which only
succeeds when no other process holds any byte) and unlinks while holding it. A client that
opened the file before the unlink then finds, after taking its byte, that the path no longer
names its file, and starts over on the new one; so two clients never hold one thread on
two different files.

The file is opened as plumbing/locks.py opens every lock file: never through a symlink, only a
regular file of this user's that no one else may write. Anything else at the path (a link
planted by a cloned folder, a folder, another user's file) refuses the thread with one line
(StoreError); the lock is never silently off.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from typing import Callable

from client.engine.store.base import StoreError
from plumbing.locks import LockRefused, open_lock

RETRIES = 3  # a lock refused while the last holder is removing the file is tried again
RETRY_WAIT = 0.02


def lock_offset(thread_id: str) -> int:
    """Where in `<db>-lock` the thread's lock byte lives (< 2**62)."""
    return int.from_bytes(hashlib.blake2b(thread_id.encode(), digest_size=8).digest(), "big") >> 2


class FileLocks:
    def __init__(self, path: str) -> None:
        self.path = path
        self.fd: int | None = None
        self.held: set[str] = set()

    def lock(self, thread_id: str) -> bool:
        """True when this process now holds the thread (or already did)."""
        if thread_id in self.held:
            return True
        for attempt in range(RETRIES * 2):
            if self.fd is None:
                self.fd = self._open()
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, lock_offset(thread_id))
            except OSError:
                if self._current():
                    if attempt >= RETRIES - 1:
                        return False  # held by another client
                    time.sleep(RETRY_WAIT)  # maybe the last holder is removing the file right now
                else:
                    self._reopen()
                continue
            if self._current():
                self.held.add(thread_id)
                return True
            fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, lock_offset(thread_id))  # a removed file: start over
            self._reopen()
        return False

    def _open(self) -> int:
        try:
            return open_lock(self.path)
        except LockRefused as e:
            if e.why == "owner":
                raise StoreError("lock_file_other_user", path=self.path, owner=user_name(e.owner)) from None
            raise StoreError(f"lock_file_{e.why}", path=self.path) from None
        except OSError as e:
            raise StoreError("lock_file_unusable", path=self.path, err=e.strerror or type(e).__name__) from None

    def _current(self) -> bool:
        """Does the path still name the file we have open?"""
        assert self.fd is not None
        try:
            a, b = os.fstat(self.fd), os.stat(self.path)
        except OSError:
            return False
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)

    def _reopen(self) -> None:
        if self.held:  # our other threads' locks live on this file: keep it (never happens before close)
            return
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def unlock(self, thread_id: str) -> None:
        if thread_id in self.held and self.fd is not None:
            fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, lock_offset(thread_id))
        self.held.discard(thread_id)

    def close(self, last: Callable[[], None] | None = None) -> None:
        """Release everything (closing the file drops all of this process's locks on it); the
        last client removes the file. `last`: run first when this client is the last one (no
        other holds any thread of the database), the lock file taken whole meanwhile."""
        if self.fd is None and last is not None:
            try:
                self.fd = open_lock(self.path)
            except OSError:
                pass  # not ours to take: nobody can be known to be last
        if self.fd is not None:
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 0, 0)  # whole file: nobody else in it
                if self._current():
                    if last is not None:
                        last()
                    os.unlink(self.path)
            except OSError:
                pass  # another client holds a thread: it removes the file when it leaves
            os.close(self.fd)
            self.fd = None
        self.held.clear()


def user_name(uid: int | None) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name if uid is not None else "?"
    except KeyError:
        return str(uid)
