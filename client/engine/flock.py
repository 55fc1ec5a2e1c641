"""Whether another process holds a lock file (flock), asked without keeping the lock."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def held(path: Path) -> bool:
    """True when another process holds an flock on `path`; a file that cannot be opened counts as
    held (nothing is started or stopped on a guess)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)
