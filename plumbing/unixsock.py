"""Unix sockets in a private folder: names that fit, the peer's user, listen and connect.

A unix socket's name has 108 bytes. A deeper path is reached through a descriptor of its
folder (`/proc/self/fd/N/NAME`, Linux): for one call (`socket_name`), or for as long as this
process runs (`lasting_name`; a child started with `pass_fds=(N,)` reaches it by the same name).
"""

from __future__ import annotations

import os
import socket
import struct
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

SUN_PATH_MAX = 107  # bytes of a unix socket's name (108 with the terminating NUL)
_folders: dict[str, int] = {}  # folder -> an O_PATH descriptor of it, kept (lasting_name)


def fits(path: Path) -> bool:
    return len(os.fsencode(str(path))) <= SUN_PATH_MAX


@contextmanager
def socket_name(path: Path) -> Iterator[str]:
    """A name for `path` that fits, valid inside the `with` block."""
    if fits(path):
        yield str(path)
        return
    fd = os.open(path.parent, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


def lasting_name(path: Path) -> tuple[str, int | None]:
    """A name for `path` that fits for the rest of this process, and the descriptor it goes
    through (None: the path itself fits). Pass the descriptor to a child that binds the name."""
    if fits(path):
        return str(path), None
    folder = str(path.parent)
    fd = _folders.get(folder)
    if fd is None:
        fd = _folders[folder] = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    return f"/proc/self/fd/{fd}/{path.name}", fd


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end (Linux SO_PEERCRED), None if unknown."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    raw = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    return uid


def connect(path: Path) -> socket.socket:
    """A stream connection to `path` whose other end runs as this user (PermissionError if not)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        with socket_name(path) as name:
            s.connect(name)
        if peer_uid(s) != os.geteuid():  # never a process of another user
            raise PermissionError("peer")
    except OSError:
        s.close()
        raise
    return s


def listen(path: Path, backlog: int = 16) -> socket.socket:
    """Listen at `path` (0600): bound under a temporary name, then renamed, so a client never
    meets a half-ready socket."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        with socket_name(tmp) as name:
            s.bind(name)
        os.chmod(tmp, 0o600)
        s.listen(backlog)
        os.replace(tmp, path)
    except OSError:
        s.close()
        raise
    return s
