"""Talking to the running daemons of this user: `mcp-chat daemon start|status|stop`
(client/ui/background.py). Handing a run over is client/engine/launch/launcher.py's."""

from __future__ import annotations

import time
from pathlib import Path

from client.core.paths import private_runtime_dir
from client.engine.launch.key import Files, identity
from client.engine.launch.launcher import connect, enabled, spawn
from client.engine.launch.wire import WireError, recv, send


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


def start(kind: str, module: str, env: dict[str, str], timeout: float = 60.0) -> dict | None:
    """`mcp-chat daemon start`: the daemon of this installation, started now if none runs, and
    waited for until it serves (its status reply), or None (off, no private folder, timeout)."""
    rundir = private_runtime_dir()
    if not enabled(env) or rundir is None:
        return None
    sock = Files.of(rundir, kind, identity(kind)).sock
    spawn(kind, module, env, now=True)  # nothing when one runs or is starting (its lock)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = _ask(sock, "status")
        if reply is not None:
            return reply
        time.sleep(0.1)
    return None


def control(op: str) -> list[dict]:
    """`status` or `stop` of every daemon of this user in the runtime folder (any kind, any
    installation): one reply each."""
    rundir = private_runtime_dir()
    if rundir is None:
        return []
    return [r for r in (_ask(path, op) for path in sorted(rundir.glob("*.sock"))) if r is not None]
