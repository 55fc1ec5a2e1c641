"""Run llama-server as a child of the client, on a free loopback port, and never leave it behind.

- Own process group (a terminal's Ctrl-C reaches the client, which stops the server in order).
- Linux: PR_SET_PDEATHSIG, so the kernel sends SIGTERM to the server if the client dies,
  even by SIGKILL. Elsewhere: a tiny Python watchdog between the two, which stops the
  server when its stdin pipe from the client closes (the client's death closes it).
- `stop()` on normal exit, on exceptions and from the SIGTERM handler; atexit as a last resort.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from client.engine.local.spec import CONTEXT_WINDOW, cache_root
from client.engine.local.weights import SetupError

PR_SET_PDEATHSIG = 1
READY_TIMEOUT = 120.0
_WATCHDOG = (
    "import os,signal,subprocess,sys\n"
    "p=subprocess.Popen(sys.argv[1:],stdin=subprocess.DEVNULL)\n"
    "try:\n sys.stdin.buffer.read()\n"  # returns at EOF: the client is gone
    "finally:\n p.terminate()\n"
    " try: p.wait(5)\n except subprocess.TimeoutExpired: p.kill()\n"
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent(parent: int) -> None:
    """preexec_fn (runs in the child before exec): SIGTERM when the parent thread exits."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def lower_priority(pid: int, nice: int) -> None:
    """Renice a running process: every thread (Linux nices threads, not processes; threads made
    later inherit) and, where the kernel groups sessions (autogroup), its session too, or a
    niced process in a session of its own would still get its full share. Raising the nice
    value of one's own process needs no privilege."""
    tasks = Path(f"/proc/{pid}/task")
    tids = [int(t.name) for t in tasks.iterdir()] if tasks.is_dir() else [pid]
    for tid in tids:
        try:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        except OSError:
            pass
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
    except OSError:
        pass


SLOTS = 2
SUMMARY_NICE = 19  # the summary server only gets the CPU the chat leaves idle


class LocalServer:
    def __init__(self, binary: Path, model: Path, template: Path, *, alias: str, ctx: int = CONTEXT_WINDOW,
                 threads: int | None = None, watchdog: bool | None = None, slots: int = SLOTS,
                 nice: int = 0, name: str = "llama-server", api_key: str | None = None) -> None:
        self.binary, self.model, self.template, self.alias = binary, model, template, alias
        # requests without it get 401: the loopback port is open to every user of the machine.
        # Passed in the environment (LLAMA_API_KEY), which only this user can read, never in argv.
        self.api_key = api_key
        self.ctx = ctx
        self.slots, self.nice = slots, nice
        self.threads = threads or int(os.environ.get("MCP_CHAT_LOCAL_THREADS", "0") or 0) or None
        self.watchdog = (not sys.platform.startswith("linux")) if watchdog is None else watchdog
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = cache_root() / f"{name}.log"
        self.started_at = 0.0
        self.ready_seconds = 0.0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def command(self) -> list[str]:
        cmd = [str(self.binary), "--model", str(self.model), "--alias", self.alias,
               "--host", "127.0.0.1", "--port", str(self.port), "--ctx-size", str(self.ctx * self.slots),
               # two slots of `ctx` each: a summary the turn waits for (or /compact) runs in its own slot,
               # so the chat slot keeps its cached prompt; background summaries go to `summary_server`
               "--parallel", str(self.slots), "--jinja", "--chat-template-file", str(self.template),
               "--offline", "--no-webui",
               "--no-context-shift"]  # a request too long for the window is an error, never silently cut
        if self.threads:
            cmd += ["--threads", str(self.threads)]
        if self.nice:
            cmd += ["--no-warmup"]  # ready sooner; its first request is in the background anyway
        return cmd

    def start(self, port: int = 0) -> LocalServer:
        """Spawn the server (call from the main thread: PDEATHSIG follows the spawning thread)."""
        self.port = port or free_port()
        cmd = self.command()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "wb")  # the last start's log only
        env = dict(os.environ)
        # OpenMP threads that spin while waiting stall generation badly whenever another
        # process wants a core (measured on 2 cores under load: 2-7 tokens/s spinning, 11-18 passive)
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        env.pop("LLAMA_API_KEY", None)
        if self.api_key:
            env["LLAMA_API_KEY"] = self.api_key
        kwargs: dict = {"stdout": log, "stderr": log, "start_new_session": True, "env": env}
        if self.watchdog:
            cmd = [sys.executable, "-c", _WATCHDOG, *cmd]
            kwargs["stdin"] = subprocess.PIPE
            if self.nice:  # no /proc to renice through later: niced from the start
                kwargs["preexec_fn"] = lambda n=self.nice: os.nice(n)
        else:
            kwargs["stdin"] = subprocess.DEVNULL
            kwargs["preexec_fn"] = lambda parent=os.getpid(): _die_with_parent(parent)  # noqa: PLW0108
        self.started_at = time.monotonic()
        try:
            self.proc = subprocess.Popen(cmd, **kwargs)
        finally:
            log.close()
        atexit.register(self.stop)
        return self

    async def wait_ready(self, timeout: float = READY_TIMEOUT) -> float:
        """Poll /health until the model is loaded; seconds from spawn to ready."""
        import asyncio

        deadline = time.monotonic() + timeout
        async with httpx.AsyncClient(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.proc is None or self.proc.poll() is not None:
                    raise SetupError("local_server_exited", code=self.proc and self.proc.returncode, log=str(self.log_path))
                try:
                    r = await client.get(f"http://127.0.0.1:{self.port}/health")
                    if r.status_code == 200:
                        self.ready_seconds = time.monotonic() - self.started_at
                        if self.nice and not self.watchdog:
                            # loaded at normal priority (niced, loading starves on a busy machine);
                            # from now on it only gets the CPU the chat leaves idle
                            lower_priority(self.proc.pid, self.nice)
                        return self.ready_seconds
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.1)
        self.stop()
        raise SetupError("local_server_timeout", seconds=f"{timeout:.0f}", log=str(self.log_path))

    def stop(self, grace: float = 5.0) -> None:
        """SIGTERM to the server's process group, SIGKILL after `grace` seconds. Idempotent, and
        never raises: a killed process may still need CPU time to exit (a niced one on a busy
        machine), which is the kernel's business, not a failure of the session."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        atexit.unregister(self.stop)
        try:
            if proc.poll() is None:
                if grace > 0:
                    _signal_group(proc.pid, signal.SIGTERM)
                if grace <= 0 or not _waited(proc, grace):
                    _signal_group(proc.pid, signal.SIGKILL)
                    _waited(proc, KILL_WAIT)
        except OSError:
            pass
        finally:
            if proc.stdin is not None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass


KILL_WAIT = 3.0  # seconds to let a SIGKILLed server exit before going on without waiting


def _waited(proc: subprocess.Popen[bytes], seconds: float) -> bool:
    try:
        proc.wait(seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def stop_all(servers: list[LocalServer | None], graces: list[float]) -> None:
    """Stop each server in turn; one that fails to stop never keeps the next one running."""
    for server, grace in zip(servers, graces):
        if server is None:
            continue
        try:
            server.stop(grace)
        except Exception:  # noqa: BLE001 - stop() itself does not raise; belt and braces at exit
            pass


def summary_server(chat: LocalServer) -> LocalServer:
    """A second server for background summaries: one slot, lowest CPU priority. A summary made
    while the user reads would otherwise take the cores from the next chat turn; niced, it
    runs in the time the chat leaves idle. Same weights (the page cache shares them)."""
    return LocalServer(chat.binary, chat.model, chat.template, alias=chat.alias, ctx=chat.ctx,
                       threads=chat.threads, watchdog=chat.watchdog, slots=1, nice=SUMMARY_NICE,
                       name="llama-server-summary", api_key=chat.api_key)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)  # start_new_session: the group id is the child's pid
    except ProcessLookupError:
        pass


def install_sigterm_handler() -> None:
    """SIGTERM (and SIGHUP) unwind like Ctrl-C, so `finally` blocks stop the server."""

    def _raise(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            signal.signal(sig, _raise)
        except (ValueError, OSError):  # not the main thread, or not supported
            pass
