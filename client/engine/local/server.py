"""Run llama-server as a child of the client, on a unix socket only this user can reach, and
never leave it behind.

- Listens on `<folder>/<name>.sock` (llama-server binds a unix socket when --host ends in
  `.sock`), in the private runtime folder (plumbing/rundir.py), else in a fresh private temporary
  folder: no other user can connect to it, or take its place before it binds. No TCP port is
  opened. It runs in that folder and is given the socket's name only (a deep folder still fits
  a unix socket's 108 bytes; its command line names no path of ours but the binary and model's).
- It answers only requests with its API key (LLAMA_API_KEY, in its environment, never argv).
- Own process group (a terminal's Ctrl-C reaches the client, which stops the server in order).
- Linux: PR_SET_PDEATHSIG, so the kernel sends SIGTERM to the server if the client dies,
  even by SIGKILL. Elsewhere: a tiny Python watchdog between the two, which stops the
  server when its stdin pipe from the client closes (the client's death closes it).
- `stop()` on normal exit, on exceptions and from the SIGTERM handler; atexit as a last resort.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from client.core.paths import private_runtime_dir
from client.engine.http import async_client
from client.engine.local.spec import CONTEXT_WINDOW
from client.engine.local.weights import SetupError
from plumbing.children import die_with_parent, lower_priority
from plumbing.rundir import private_temp_dir

READY_TIMEOUT = 120.0
_WATCHDOG = (
    "import os,signal,subprocess,sys\n"
    "p=subprocess.Popen(sys.argv[1:],stdin=subprocess.DEVNULL)\n"
    "try:\n sys.stdin.buffer.read()\n"  # returns at EOF: the client is gone
    "finally:\n p.terminate()\n"
    " try: p.wait(5)\n except subprocess.TimeoutExpired: p.kill()\n"
)


SLOTS = 2
SUMMARY_NICE = 19  # the summary server only gets the CPU the chat leaves idle


def own_socket(name: str) -> tuple[Path, Path | None]:
    """A fresh socket path for a server of this session only, and the temporary folder made for
    it (None: in the private runtime folder), which goes when the server stops."""
    leaf = f"{name}-{os.getpid()}-{secrets.token_hex(4)}.sock"
    rundir = private_runtime_dir()
    if rundir is not None:
        return rundir / leaf, None
    tmp = private_temp_dir("mcp-chat-llama-")
    return tmp / leaf, tmp


@dataclasses.dataclass(eq=False)
class LocalServer:
    """What to run (binary, weights, template and settings), where it listens and with which
    key: all given when it is built (`with_(...)`: a copy that differs). `start()` runs it."""

    binary: Path
    model: Path
    template: Path
    alias: str
    ctx: int = CONTEXT_WINDOW
    threads: int | None = None  # --threads (Tuning.local_threads); None: its own choice
    watchdog: bool | None = None  # None: on where there is no PDEATHSIG (not Linux)
    slots: int = SLOTS
    nice: int = 0
    name: str = "llama-server"
    # requests without it get 401. Passed in the environment (LLAMA_API_KEY), which only this user
    # can read, never in argv.
    api_key: str | None = None
    socket: Path | None = None  # where it listens; None: a fresh one of this session's (own_socket)
    cache: Path | None = None  # the user's cache (Settings.dirs.cache): its log, the kept server's key; None: beside the binary

    def __post_init__(self) -> None:
        self.watchdog = (not sys.platform.startswith("linux")) if self.watchdog is None else self.watchdog
        self.proc: subprocess.Popen[bytes] | None = None
        self.listen: Path | None = self.socket  # where the running server listens
        self._tmp: Path | None = None  # a temporary folder made for it
        self.log_path = (self.cache or self.binary.parent) / f"{self.name}.log"
        self.started_at = 0.0
        self.ready_seconds = 0.0

    def with_(self, **changes: object) -> LocalServer:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @property
    def base_url(self) -> str:
        """The URL requests name (through `uds`: the host is only a name)."""
        return "http://llama-server/v1"

    @property
    def uds(self) -> str:
        return str(self.listen or self.socket or "")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def command(self, socket: Path | None = None) -> list[str]:
        """The command line (run in the socket's folder: --host is the socket's name there)."""
        where = socket or self.listen or self.socket
        cmd = [os.path.abspath(self.binary), "--model", os.path.abspath(self.model), "--alias", self.alias,
               "--host", where.name if where else "llama.sock", "--ctx-size", str(self.ctx * self.slots),
               # two slots of `ctx` each: a summary the turn waits for (or /compact) runs in its own slot,
               # so the chat slot keeps its cached prompt; background summaries go to `summary_server`
               "--parallel", str(self.slots), "--jinja", "--chat-template-file", os.path.abspath(self.template),
               "--offline", "--no-webui",
               "--no-context-shift"]  # a request too long for the window is an error, never silently cut
        if self.threads:
            cmd += ["--threads", str(self.threads)]
        if self.nice:
            cmd += ["--no-warmup"]  # ready sooner; its first request is in the background anyway
        return cmd

    def start(self) -> LocalServer:
        """Spawn the server (call from the main thread: PDEATHSIG follows the spawning thread)."""
        if self.socket is None:
            self.listen, self._tmp = own_socket(self.name)
        else:
            self.listen = self.socket
        assert self.listen is not None
        _unlink(self.listen)  # a socket left by a server that died: llama-server would not bind over it
        cmd = self.command(self.listen)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "wb")  # the last start's log only
        env = dict(os.environ)
        # OpenMP threads that spin while waiting stall generation badly whenever another
        # process wants a core (measured on 2 cores under load: 2-7 tokens/s spinning, 11-18 passive)
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        env.pop("LLAMA_API_KEY", None)
        if self.api_key:
            env["LLAMA_API_KEY"] = self.api_key
        kwargs: dict = {"stdout": log, "stderr": log, "start_new_session": True, "env": env,
                        "cwd": str(self.listen.parent)}
        if self.watchdog:
            cmd = [sys.executable, "-c", _WATCHDOG, *cmd]
            kwargs["stdin"] = subprocess.PIPE
            if self.nice:  # no /proc to renice through later: niced from the start
                kwargs["preexec_fn"] = lambda n=self.nice: os.nice(n)
        else:
            kwargs["stdin"] = subprocess.DEVNULL
            kwargs["preexec_fn"] = lambda parent=os.getpid(): die_with_parent(parent)  # noqa: PLW0108
        self.started_at = time.monotonic()
        try:
            self.proc = subprocess.Popen(cmd, **kwargs)
        finally:
            log.close()
        atexit.register(self.stop)
        return self

    def client(self, timeout: float = 2.0) -> httpx.AsyncClient:
        """An HTTP client that reaches this server (its socket)."""
        return async_client(self.uds, timeout=timeout, base_url="http://llama-server")

    async def wait_ready(self, timeout: float = READY_TIMEOUT) -> float:
        """Poll /health until the model is loaded; seconds from spawn to ready."""
        import asyncio

        deadline = time.monotonic() + timeout
        async with self.client() as client:
            while time.monotonic() < deadline:
                if self.proc is None or self.proc.poll() is not None:
                    raise SetupError("local_server_exited", code=self.proc and self.proc.returncode, log=str(self.log_path))
                try:
                    r = await client.get("/health")
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
        """SIGTERM to the server's process group, SIGKILL after `grace` seconds; then its own socket
        goes (a `socket` path it was given stays: the keeper decides, client/engine/local/keeper.py). Idempotent, and never raises: a killed process may still need CPU time to exit (a
        niced one on a busy machine), which is the kernel's business, not a failure of the session."""
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
            if self.listen is not None and self.socket is None and proc.poll() is not None:
                _unlink(self.listen)  # its own; a given path is its keeper's (the next server's after a replace)
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)
                self._tmp = None


def _unlink(path: Path) -> None:
    try:
        path.unlink()
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
    return chat.with_(slots=1, nice=SUMMARY_NICE, name="llama-server-summary", socket=None)


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
