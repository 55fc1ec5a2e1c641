"""A per-user process that keeps a program's modules imported and forks one child per run.

    python -c "...; from plumbing.forkserver.daemon import serve; child = serve(program, name, preload)"

`serve` never returns in the daemon; it returns in each forked child, which then takes on
the invocation's process state (child.py) and runs the program as a cold start would. Rules:
- It listens on a unix socket in the private runtime folder (plumbing/rundir.py), answers
  only peers of its own user (SO_PEERCRED), and only launchers whose key (freshness.py) and
  import-time environment equal its own; anything else is refused and the launcher starts cold.
- Before each fork it checks that no file of the modules it imported has changed since it
  imported them (freshness.code_stamp); one that has makes it stale: refused, and it leaves.
- Nothing in it starts a thread or an event loop: it checks, after importing, that it has one
  thread, and refuses to serve otherwise (the contract: plumbing/forkserver/__init__.py).
- For each run it forks a small supervisor, which forks the run: the supervisor waits for the
  run and reports its exit status (or the signal that ended it) to the launcher, and kills the
  run if the launcher vanishes (SIGKILL of the launcher). The daemon itself waits for nobody.
- It exits after <switch>_IDLE seconds without a request (default 600), on SIGTERM,
  on a stale key, on `stop`, or when its socket file is removed or replaced.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from plumbing.forkserver import Program
from plumbing.forkserver import child as child_state
from plumbing.forkserver.freshness import Files, Stamp, changed, code_stamp, identity, key, newer_than
from plumbing.forkserver.preload import recording_env
from plumbing.forkserver.supervisor import supervise
from plumbing.forkserver.wire import WireError, close_fds as _close, recv, send
from plumbing.locks import Lock
from plumbing.proc import thread_count
from plumbing.unixsock import listen, peer_uid

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


def idle_seconds(program: Program) -> float:
    try:
        return max(1.0, float(os.environ.get(f"{program.switch}_IDLE", "") or IDLE_DEFAULT))
    except ValueError:
        return IDLE_DEFAULT


def serve(program: Program, name: str, preload: Callable[[], object]) -> Child:
    """Import, listen, fork per request; returns only in a forked child."""
    rundir = program.rundir()
    if rundir is None:
        os._exit(0)
    if name != identity(program):
        _log(f"not serving: started as {name}, but this interpreter is {identity(program)}")
        os._exit(0)
    files = Files.of(rundir, program.kind, name)
    lock = Lock(files.lock, wait=False)
    if not lock.acquire():
        os._exit(0)  # another one is running or starting
    my_key = key(program, list(sys.path))  # before importing: a file changed meanwhile makes this one stale, never the reverse
    started = time.time_ns()
    fds, env = _open_fds(), dict(os.environ)
    deps = recording_env(preload)
    why = broken_contract(fds, env)
    if why:
        _log(f"not serving: {why}")
        os._exit(0)
    code = code_stamp()
    edited = newer_than(code, started)
    if edited:
        _log(f"not serving: {edited} changed while it was imported")
        os._exit(0)
    gc.collect()
    gc.freeze()  # what was imported stays out of every later collection: no copy-on-write by the GC
    listener = listen(files.sock)
    fd = os.open(files.pid, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    loaded = {name: os.path.realpath(getattr(getattr(m, "__spec__", None), "origin", None) or "")
              for name, m in list(sys.modules.items()) if "." not in name}
    return _Loop(program, files, my_key, deps, code, listener, [lock.fd], loaded).run()


def broken_contract(fds: set[int], env: dict[str, str]) -> str | None:
    """What importing did that a forked run could see (plumbing/forkserver/__init__.py): a thread
    besides this one, a descriptor left open, a change to the environment."""
    threads = max(threading.active_count(), thread_count())
    if threads != 1:
        return f"{threads} threads after importing"
    opened = sorted(_open_fds() - fds)
    if opened:
        return f"descriptors left open by the imports: {opened}"
    changed = sorted(k for k in {*env, *os.environ} if env.get(k) != os.environ.get(k))
    if changed:
        return f"the imports changed the environment: {changed}"  # names only: values may be secrets
    return None


def _open_fds() -> set[int]:
    try:
        return {int(fd) for fd in os.listdir("/proc/self/fd")}  # the listing's own: the same number both times
    except OSError:
        return set()


class _Loop:
    def __init__(self, program: Program, files: Files, my_key: str, deps: dict[str, str | None],
                 code: list[Stamp], listener: socket.socket, keep: list[int], loaded: dict[str, str]) -> None:
        self.program, self.kind, self.files, self.key, self.deps = program, program.kind, files, my_key, deps
        self.code, self.listener, self.loaded = code, listener, loaded
        self.ino = os.stat(files.sock).st_ino
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.own_fds = [*keep, self.wake_r, self.wake_w, listener.fileno()]
        self.stop = False
        self.idle = idle_seconds(program)
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
                send(conn, {"pid": os.getpid(), "kind": self.kind, "served": self.served, "root": str(self.program.root),
                            "idle": round(time.monotonic() - self.last, 1), "idle_timeout": self.idle})
            elif op == "stop":
                send(conn, {"stopped": os.getpid(), "kind": self.kind, "root": str(self.program.root)})
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
        edited = changed(self.code)
        if edited:
            _log(f"stale: {edited} changed since it was imported")
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
