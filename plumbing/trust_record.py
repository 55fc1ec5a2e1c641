"""Per-user records of trusted folders, in a private JSON file. Stdlib only.

Generic (direnv's `allow` file, in JSON): where the file is, and what a record holds besides
its folder, come from the caller. The record file is a private state file (plumbing/private.py,
the one rule: read only when it is this user's own regular file that no one else may read or
write, never through a symlink; written 0600 in a 0700 folder, atomically). A record is a JSON
object with "path" (the folder's real path); `ENV_DIGEST` names the sha256 of the bytes of the
folder's env file, which is all a reader that only loads that file needs to check.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from plumbing.private import read_json

ENV_DIGEST = "env_sha256"  # hex sha256 of the env file's bytes; null: the folder had none


def read_records(path: Path, key: str = "folders") -> list[dict]:
    """The records in `path` under `key` (those with a string "path"); [] when untrustworthy."""
    doc = read_json(path)
    items = doc.get(key) if isinstance(doc, dict) else None
    return [e for e in items if isinstance(e, dict) and isinstance(e.get("path"), str)] if isinstance(items, list) else []


def record_for(records: list[dict], folder: str | os.PathLike) -> dict | None:
    """The record of `folder` (compared by real path), or None."""
    real = os.path.realpath(folder)
    return next((r for r in records if r["path"] == real), None)


def sha256_bytes(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def open_regular(path: str | os.PathLike) -> int | None:
    """A read-only fd of the regular file at `path` (symlinks followed), None when absent,
    unreadable or anything else: a FIFO, a device or a folder is never opened for reading, and
    the open never blocks (O_NONBLOCK: a FIFO swapped in after the check is not waited on)."""
    try:
        if not _regular(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if _regular(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def read_regular(path: Path, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file (symlinks followed, opened without blocking), None when absent
    or not a regular file; with `limit`, None too when it is larger (the caller then keys on
    `stat_identity`)."""
    fd = open_regular(path)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if limit is not None and os.fstat(f.fileno()).st_size > limit:
                return None
            return f.read()
    except OSError:
        return None


def sha256_file(path: str | os.PathLike) -> tuple[str | None, os.stat_result | None]:
    """(hex sha256 of a regular file's bytes, read in pieces, and its status), or (None, None)
    when there is none; what is not a regular file hashes as the marker "not-a-file"."""
    fd = open_regular(path)
    if fd is None:
        return (hashlib.sha256(b"not-a-file").hexdigest(), None) if os.path.lexists(path) else (None, None)
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None, None
    return h.hexdigest(), st


def stat_identity(path: Path) -> str | None:
    """`dev:ino:size:mtime_ns` of a regular file (symlinks followed), None when there is none:
    what survives nothing but the file itself staying untouched."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}" if _regular(st.st_mode) else None


def trusted_env(record_file: Path, folder: str | os.PathLike, env_name: str = ".env") -> bytes | None:
    """The bytes of the folder's env file when its record trusted exactly these bytes (a record
    for the folder's real path whose ENV_DIGEST is their sha256), else None. Read once: what
    was checked is what the caller parses."""
    record = record_for(read_records(record_file), folder)
    if record is None:
        return None
    data = read_regular(Path(os.path.realpath(folder)) / env_name)
    return data if data is not None and record.get(ENV_DIGEST) == sha256_bytes(data) else None


def _regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)
