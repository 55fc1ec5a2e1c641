"""The launcher: hand this invocation to the pre-imported process, or say "start cold".

`run(program)` returns the run's exit code, or None when this process must run the
program itself (no daemon, a stale one, a refusal, any error): the cold start, which then
looks and behaves the same. After a cold start `spawn(program, env)` starts a daemon in the
background for the next runs. While the run lives this process forwards the signals it gets
(SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1/2, SIGCONT; SIGTSTP stops the run and then
itself), and at the end it exits as the run did: the same code, or killed by the same signal.

On by default (Linux); `<switch>=0` turns it off (always cold); `<runtime_env>` names the
runtime folder (tests share one); `<switch>_IDLE` is the daemon's idle timeout in seconds;
`<switch>_DEBUG=1` says on stderr why a run starts cold (the names: the Program).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from plumbing.forkserver import Program
from plumbing.forkserver.envscrub import daemon_env
from plumbing.forkserver.freshness import Files, identity, interpreter_flags, key
from plumbing.forkserver.wire import WireError, recv, send
from plumbing.locks import held
from plumbing.unixsock import connect

FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGWINCH", "SIGUSR1", "SIGUSR2", "SIGCONT")
STOPS = ("SIGTSTP", "SIGTTIN", "SIGTTOU")
SPAWN_PAUSE = 30.0  # seconds between two attempts to start a daemon
_BOOT = ("import json, sys, time; a = json.loads(sys.argv[1]); sys.path[:] = a['path']; time.sleep(a['delay']); "
         "import importlib; importlib.import_module(a['module']).daemon(a['kind'], a['name'])")


def enabled(program: Program, env: dict[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    if env.get(program.switch, "").strip() == "0":
        return False
    return (sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and not sys.flags.inspect
            and not ({"importtime", "dev", "tracemalloc"} & set(sys._xoptions)))


def search_path() -> list[str]:
    """sys.path as the key sees it: without the script's (or working) folder, which each run
    checks on its own (child.py)."""
    return list(sys.path) if sys.flags.safe_path else list(sys.path[1:])


class _Forwarder:
    def __init__(self) -> None:
        self.pid: int | None = None
        self.pidfd: int | None = None
        self.pending: list[int] = []
        self.saved: dict[int, object] = {}

    def install(self) -> None:
        for name in FORWARDED + STOPS:
            sig = getattr(signal, name, None)
            if sig is None:
                continue
            old = signal.getsignal(sig)
            if old is signal.SIG_IGN:  # ignored here: ignored by the run too (the child copies it)
                continue
            self.saved[sig] = old
            signal.signal(sig, self._on_signal)

    def restore(self) -> None:
        for sig, old in self.saved.items():
            signal.signal(sig, old)  # type: ignore[arg-type]
        self.saved = {}

    def attach(self, pid: int) -> None:
        self.pid = pid
        try:
            self.pidfd = os.pidfd_open(pid)
        except OSError:
            self.pidfd = None
        for sig in self.pending:
            self._send(sig)
        self.pending = []

    def _on_signal(self, sig: int, _frame: object) -> None:
        if self.pid is None:
            self.pending.append(sig)
            return
        self._send(sig)
        if signal.Signals(sig).name in STOPS:
            os.kill(os.getpid(), signal.SIGSTOP)  # stopped like the run; SIGCONT is forwarded on `fg`

    def _send(self, sig: int) -> None:
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, sig)
            elif self.pid is not None:
                os.kill(self.pid, sig)
        except OSError:
            pass


def run(program: Program) -> int | None:
    """Serve this invocation from the daemon; None: start cold. Terminal sessions too: the run
    reads and writes the terminal through the descriptors it was given; job control goes
    through this process (SIGTSTP stops the run, then this one; SIGCONT on `fg` resumes both),
    and so do window size changes (SIGWINCH)."""
    if not enabled(program):
        return None
    rundir = program.rundir()
    if rundir is None:
        return None
    files = Files.of(rundir, program.kind, identity(program))
    try:
        sock = connect(files.sock)
    except OSError:
        return None
    fwd = _Forwarder()
    try:
        from plumbing.forkserver.child import Refused, snapshot

        try:
            req = {"op": "run", "key": key(program, search_path()), **snapshot()}
        except Refused:
            return None
        cwd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fwd.install()
            send(sock, req, [0, 1, 2, cwd])
        finally:
            os.close(cwd)
        reply, _ = recv(sock)
        if "ok" not in reply:
            _debug(program, f"refused: {reply.get('refuse')}")
            if reply.get("refuse") == "stale":
                _mark_stale(files)
            return _cold(fwd)
        fwd.attach(int(reply["ok"]))
        try:
            end, _ = recv(sock)
        except WireError:
            end = {"exit": _wait_gone(fwd)}
    except (OSError, WireError, ValueError, KeyError, TypeError):
        if fwd.pid is None:
            return _cold(fwd)
        end = {"exit": _wait_gone(fwd)}
    finally:
        sock.close()
    fwd.restore()
    if "signal" in end:
        _die_by(int(end["signal"]))
    return int(end.get("exit", 1))


def _debug(program: Program, text: str) -> None:
    """<switch>_DEBUG=1: say on stderr why a run starts cold."""
    if os.environ.get(f"{program.switch}_DEBUG") == "1":
        os.write(2, f"{program.app} launcher: {text}\n".encode("utf-8", "replace"))


def _cold(fwd: _Forwarder) -> None:
    """Undo what the launcher changed; a signal that came meanwhile is delivered to this
    process, now the cold start."""
    pending, fwd.pending = fwd.pending, []
    fwd.restore()
    for sig in pending:
        os.kill(os.getpid(), sig)
    return None


def _wait_gone(fwd: _Forwarder) -> int:
    """The supervisor vanished: wait for the run itself, then report a failure."""
    import select

    if fwd.pidfd is not None:
        select.select([fwd.pidfd], [], [])
    return 1


def _die_by(sig: int) -> None:
    """End as the run ended: killed by the same signal."""
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)


def _mark_stale(files: Files) -> None:
    """A stale daemon leaves on its own; let the next cold start replace it at once."""
    try:
        files.spawned.unlink()
    except OSError:
        pass


def spawn(program: Program, env: dict[str, str], delay: float = 0.0, now: bool = False) -> None:
    """Start a daemon in the background for later runs (after a cold start), unless one runs
    or starts, or one was started within SPAWN_PAUSE seconds (`now`: whatever the pause).
    `env`: the environment this process started with (a cold run may have changed its own
    since). `delay`: seconds the daemon waits before importing (when spawned while the cold run
    still starts)."""
    if not enabled(program, env):
        return
    rundir = program.rundir()
    clean = daemon_env(env, program.secret_names)
    if rundir is None or clean is None:
        return
    name = identity(program)
    files = Files.of(rundir, program.kind, name)
    try:
        if not now and time.time() - os.stat(files.spawned).st_mtime < SPAWN_PAUSE:
            return
    except OSError:
        pass
    if held(files.lock):
        return
    import subprocess

    try:
        fd = os.open(files.spawned, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        log = os.open(files.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    args = json.dumps({"path": search_path(), "module": program.module, "kind": program.kind, "name": name,
                       "delay": delay})
    flags = interpreter_flags()
    try:
        subprocess.Popen([sys.executable, *flags, "-c", _BOOT, args], cwd="/", env=clean,
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, close_fds=True)
    except OSError:
        pass
    finally:
        os.close(log)

