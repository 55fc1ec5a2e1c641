"""Messages between a launcher and the pre-imported process: length-prefixed JSON on a unix
stream socket, with file descriptors passed alongside (SCM_RIGHTS)."""

from __future__ import annotations

import array
import json
import os
import socket
import struct

MAX_FDS = 8
MAX_MESSAGE = 4 << 20  # an environment is a few KB; anything near this is not ours
_HEADER = struct.Struct("!I")


class WireError(Exception):
    """The other side sent something that is not a message of ours, or went away."""


def send(sock: socket.socket, obj: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogateescape")
    payload = _HEADER.pack(len(data)) + data
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
    sent = sock.sendmsg([payload], anc)
    if sent < len(payload):
        sock.sendall(payload[sent:])


def recv(sock: socket.socket) -> tuple[dict, list[int]]:
    """One message and the descriptors that came with it (close-on-exec; the caller owns them)."""
    fds: list[int] = []
    buf = b""
    size: int | None = None
    flags = getattr(socket, "MSG_CMSG_CLOEXEC", 0)
    try:
        while size is None or len(buf) < _HEADER.size + size:
            want = _HEADER.size - len(buf) if size is None else _HEADER.size + size - len(buf)
            data, anc, mflags, _ = sock.recvmsg(want, socket.CMSG_SPACE(MAX_FDS * 4), flags)
            for level, kind, raw in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    arr = array.array("i")
                    arr.frombytes(raw[: len(raw) - len(raw) % arr.itemsize])
                    fds.extend(arr)
            if mflags & getattr(socket, "MSG_CTRUNC", 0):
                raise WireError("descriptors truncated")
            if not data:
                raise WireError("closed")
            buf += data
            if size is None and len(buf) == _HEADER.size:
                (size,) = _HEADER.unpack(buf)
                if size > MAX_MESSAGE:
                    raise WireError("message too large")
        obj = json.loads(buf[_HEADER.size:].decode("utf-8", "surrogateescape"))
        if not isinstance(obj, dict):
            raise WireError("not an object")
    except (WireError, ValueError, OSError) as e:
        close_fds(fds)
        raise e if isinstance(e, WireError) else WireError(str(e)) from None
    return obj, fds


def close_fds(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
