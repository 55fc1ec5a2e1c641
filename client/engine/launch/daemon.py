"""A per-user process that keeps a program's modules imported and forks one child per run.

    python -c "...; from client.engine.launch.daemon import serve; child = serve(kind, preload)"

`serve` never returns in the daemon; it returns in each forked child, which then takes on
the invocation's process state (client/engine/launch/child.py) and runs the program as a cold
start would. Rules:
- It listens on a unix socket in the private runtime folder (client/core/paths.py), answers
  only peers of its own user (SO_PEERCRED), and only launchers whose key (key.py) and
  import-time environment equal its own; anything else is refused and the launcher starts cold.
- Nothing in it starts a thread or an event loop: it checks, after importing, that it has one
  thread, and refuses to serve otherwise.
- For each run it forks a small supervisor, which forks the run: the supervisor waits for the
  run and reports its exit status (or the signal that ended it) to the launcher, and kills the
  run if the launcher vanishes (SIGKILL of the launcher). The daemon itself waits for nobody.
- It exits after MCP_CHAT_DAEMON_IDLE seconds without a request (default 600), on SIGTERM,
  on a stale key, on `stop`, or when its socket file is removed or replaced.
"""

from __future__ import annotations

import fcntl
import gc
import os
import select
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from client.core.paths import private_runtime_dir
from client.engine.launch import child as child_state
from client.engine.launch.key import Files, identity, install_root, key
from client.engine.launch.preload import recording_env
from client.engine.launch.supervisor import supervise
from client.engine.launch.wire import WireError, close_fds as _close, peer_uid, recv, send, socket_name

IDLE_DEFAULT = 600.0
REQUEST_TIMEOUT = 5.0


@dataclass
class Child:
    """What a forked run needs: the request, its descriptors, the launcher's connection."""

    request: dict
    fds: list[int]
    conn: socket.socket
    loaded: dict[str, str]

    def become(self) -> None:
        """Take on the invocation's process state and tell the launcher; on any doubt tell it to
        start cold and leave."""
        try:
            child_state.become(self.request, self.fds, self.loaded)
            send(self.conn, {"ok": os.getpid()})
        except Exception as e:  # noqa: BLE001 - any doubt: the launcher starts cold
            try:
                send(self.conn, {"refuse": f"{type(e).__name__}: {e}"})
            finally:
                os._exit(0)
        self.conn.close()


def idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("MCP_CHAT_DAEMON_IDLE", "") or IDLE_DEFAULT))
    except ValueError:
        return IDLE_DEFAULT


def serve(kind: str, name: str, preload: Callable[[], None]) -> Child:
    """Import, listen, fork per request; returns only in a forked child."""
    rundir = private_runtime_dir()
    if rundir is None:
        os._exit(0)
    if name != identity(kind):
        _log(f"not serving: started as {name}, but this interpreter is {identity(kind)}")
        os._exit(0)
    files = Files.of(rundir, kind, name)
    lock = os.open(files.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os._exit(0)  # another one is running or starting
    my_key = key(kind, list(sys.path))  # before importing: a file changed meanwhile makes this one stale, never the reverse
    deps = recording_env(preload)
    if threading.active_count() != 1 or _os_threads() != 1:
        _log(f"not serving: {threading.active_count()} threads after importing")
        os._exit(0)
    gc.collect()
    gc.freeze()  # what was imported stays out of every later collection: no copy-on-write by the GC
    listener = _listen(files.sock)
    fd = os.open(files.pid, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    loaded = {name: os.path.realpath(getattr(getattr(m, "__spec__", None), "origin", None) or "")
              for name, m in list(sys.modules.items()) if "." not in name}
    return _Loop(kind, files, my_key, deps, listener, [lock], loaded).run()


class _Loop:
    def __init__(self, kind: str, files: Files, my_key: str, deps: dict[str, str | None],
                 listener: socket.socket, keep: list[int], loaded: dict[str, str]) -> None:
        self.kind, self.files, self.key, self.deps = kind, files, my_key, deps
        self.listener, self.loaded = listener, loaded
        self.ino = os.stat(files.sock).st_ino
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.own_fds = [*keep, self.wake_r, self.wake_w, listener.fileno()]
        self.stop = False
        self.idle = idle_seconds()
        self.last = time.monotonic()
        self.served = 0

    def run(self) -> Child:
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes select; reaped below
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._stop)
        while not self.stop:
            timeout = self.last + self.idle - time.monotonic()
            if timeout <= 0 or not self._still_ours():
                break
            try:
                ready, _, _ = select.select([self.listener, self.wake_r], [], [], min(timeout, 5.0))
            except InterruptedError:
                continue
            if self.wake_r in ready:
                _drain(self.wake_r)
                _reap()
            if self.listener in ready:
                child = self._accept()
                if child is not None:
                    return child
        self._leave()
        os._exit(0)

    def _stop(self, *_: object) -> None:
        self.stop = True

    def _still_ours(self) -> bool:
        try:
            return os.stat(self.files.sock).st_ino == self.ino
        except OSError:
            return False

    def _accept(self) -> Child | None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return None
        conn.settimeout(REQUEST_TIMEOUT)
        fds: list[int] = []
        try:
            if peer_uid(conn) != os.geteuid():
                conn.close()
                return None
            req, fds = recv(conn)
            op = req.get("op")
            if op == "status":
                send(conn, {"pid": os.getpid(), "kind": self.kind, "served": self.served, "root": str(install_root()),
                            "idle": round(time.monotonic() - self.last, 1), "idle_timeout": self.idle})
            elif op == "stop":
                send(conn, {"stopped": os.getpid(), "kind": self.kind, "root": str(install_root())})
                self.stop = True
            elif op == "run":
                why = self._refusal(req)
                if why:
                    send(conn, {"refuse": why})
                    self.stop = why == "stale"
                else:
                    self.last = time.monotonic()
                    self.served += 1
                    return self._fork(conn, req, fds)
        except (WireError, OSError, KeyError, TypeError, ValueError) as e:
            _log(f"bad request: {type(e).__name__}: {e}")
        _close(fds)
        conn.close()
        return None

    def _refusal(self, req: dict) -> str | None:
        if req.get("key") != self.key:
            return "stale"
        env = req.get("env")
        if not isinstance(env, dict):
            return "env"
        for name, value in self.deps.items():
            if env.get(name) != value:
                return f"env:{name}"
        return None

    def _fork(self, conn: socket.socket, req: dict, fds: list[int]) -> Child | None:
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid != 0:  # the daemon (or a failed fork: the launcher sees the connection close)
            _close(fds)
            conn.close()
            return None
        try:  # the supervisor
            signal.set_wakeup_fd(-1)
            for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            self.listener.close()
            _close(self.own_fds)
            run = os.fork()
        except BaseException:  # noqa: BLE001
            os._exit(1)
        if run == 0:
            return Child(req, fds, conn, self.loaded)
        try:
            _close(fds)
            supervise(conn, run)
        finally:
            os._exit(0)

    def _leave(self) -> None:
        if self._still_ours():
            for p in (self.files.sock, self.files.pid):
                try:
                    p.unlink()
                except OSError:
                    pass


def _listen(path: Path) -> socket.socket:
    """Bind under a temporary name, then rename: a launcher never meets a half-ready socket."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with socket_name(tmp) as name:
        s.bind(name)
    os.chmod(tmp, 0o600)
    s.listen(16)
    os.replace(tmp, path)
    return s


def _os_threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _log(text: str) -> None:
    """Descriptor 2 of the daemon is its log file in the runtime folder."""
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} mcp-chat daemon[{os.getpid()}]: {text}\n"
    try:
        os.write(2, line.encode("utf-8", "replace"))
    except OSError:
        pass
