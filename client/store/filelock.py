"""Per-thread locks for a database file: one-byte POSIX locks in `<db>-lock`.

Each thread id maps to a byte offset (a hash); holding the byte's lock claims the
thread. The kernel drops the locks when the process ends, however it ends. POSIX
locks belong to the process: one client per process (two stores in one process
do not exclude each other).
"""

from __future__ import annotations

import fcntl
import hashlib
import os


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
        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                return True  # nowhere to put a lock (read-only directory): do not refuse
        try:
            fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, lock_offset(thread_id))
        except OSError:
            return False
        self.held.add(thread_id)
        return True

    def unlock(self, thread_id: str) -> None:
        if thread_id in self.held and self.fd is not None:
            fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, lock_offset(thread_id))
        self.held.discard(thread_id)

    def close(self) -> None:
        """Release everything (closing the file drops all of this process's locks on it)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self.held.clear()
