"""Talking to the running daemons of this user: start one and wait for it, or ask every one for
its status or to stop (the client's `daemon start|status|stop`). Handing a run over is launcher.py's."""

from __future__ import annotations

import re
import time
from pathlib import Path

from plumbing.forkserver import Program
from plumbing.forkserver.freshness import Files, identity
from plumbing.forkserver.launcher import enabled, spawn
from plumbing.forkserver.wire import WireError, recv, send
from plumbing.unixsock import connect

SOCKET = re.compile(r"[A-Za-z0-9_]+-[0-9a-f]{16}\.sock")  # Files.of: <kind>-<identity>.sock; other sockets are not ours


def _ask(path: Path, op: str) -> dict | None:
    """One request to the daemon listening at `path`; None when none answers."""
    try:
        sock = connect(path)
    except OSError:
        return None
    try:
        sock.settimeout(5.0)
        send(sock, {"op": op})
        return recv(sock)[0]
    except (OSError, WireError):
        return None
    finally:
        sock.close()


def start(program: Program, env: dict[str, str], timeout: float = 60.0) -> dict | None:
    """The daemon of this installation, started now if none runs, and waited for until it
    serves (its status reply), or None (off, no private folder, a secret it cannot leave out, timeout)."""
    rundir = program.rundir()
    if not enabled(program, env) or rundir is None:
        return None
    sock = Files.of(rundir, program.kind, identity(program)).sock
    spawn(program, env, now=True)  # nothing when one runs or is starting (its lock)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = _ask(sock, "status")
        if reply is not None:
            return reply
        time.sleep(0.1)
    return None


def control(rundir: Path | None, op: str) -> list[dict]:
    """`status` or `stop` of every daemon of this user in the runtime folder (any kind, any
    installation): one reply each."""
    if rundir is None:
        return []
    socks = sorted(p for p in rundir.glob("*.sock") if SOCKET.fullmatch(p.name))
    return [r for r in (_ask(path, op) for path in socks) if r is not None]
