"""Talking to the running daemons of this user: `mcp-chat daemon start|status|stop`
(client/ui/background.py). Handing a run over is client/engine/launch/launcher.py's."""

from __future__ import annotations

import time

from client.core.paths import private_runtime_dir
from client.engine.launch.key import Files, identity
from client.engine.launch.launcher import connect, enabled, spawn
from client.engine.launch.wire import WireError, recv, send


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
        try:
            conn = connect(sock)
        except OSError:
            time.sleep(0.1)
            continue
        try:
            conn.settimeout(5.0)
            send(conn, {"op": "status"})
            return recv(conn)[0]
        except (OSError, WireError):
            time.sleep(0.1)
        finally:
            conn.close()
    return None


def control(op: str) -> list[dict]:
    """`status` or `stop` of every daemon of this user in the runtime folder (any kind, any
    installation): one reply each."""
    rundir = private_runtime_dir()
    if rundir is None:
        return []
    replies = []
    for path in sorted(rundir.glob("*.sock")):
        try:
            sock = connect(path)
        except OSError:
            continue
        try:
            sock.settimeout(5.0)
            send(sock, {"op": op})
            reply, _ = recv(sock)
            replies.append(reply)
        except (OSError, WireError):
            pass
        finally:
            sock.close()
    return replies
