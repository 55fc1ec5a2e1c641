"""Small per-user state files: what is allowed, what runs, and the keys to it.

One rule for all of them:
- Written: the folder is created 0700, the file 0600, replaced atomically (a reader sees the
  old file or the new one, never half of one).
- Read: never through a symlink, only a regular file owned by this user that nobody else may
  read or write (no group or other permission bits). Anything else counts as absent: another
  user could have written it for us, or read what it holds.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20  # a state file is a few KB; anything near this is not ours


def is_private(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o077


def read_private(path: Path, limit: int = MAX_BYTES) -> bytes | None:
    """The file's bytes, or None when absent, unreadable, too large or not private."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not is_private(os.fstat(fd)):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def read_json(path: Path) -> Any | None:
    """The document, or None when absent, not JSON or not private."""
    data = read_private(path)
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def write_private(path: Path, data: bytes) -> None:
    """Replace `path` with `data` (0600, its folder 0700 when created); raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)  # 0600, O_EXCL
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json(path: Path, doc: Any) -> None:
    write_private(path, json.dumps(doc, ensure_ascii=False, indent=2).encode("utf-8"))


def save_json(path: Path, doc: Any) -> str | None:
    """write_json, or why it could not be written (for a caller that reports and goes on)."""
    try:
        write_json(path, doc)
    except OSError as e:
        return f"{path}: {e.strerror or type(e).__name__}"
    return None


def remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
