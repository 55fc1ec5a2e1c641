"""The local model kept warm between sessions (`MCP_CHAT_LOCAL_KEEP_ALIVE`: Tuning.keep_alive, like Ollama's keep_alive).

After a session ends its llama-server stays up for KEEP_ALIVE seconds (default 300; 0: it
stops with the session) and the next session reuses it, without loading the weights again.

- A small keeper process (`main()` here, detached from the session that started it) owns the
  server: the server is its child with PDEATHSIG, so it never outlives the keeper. The keeper
  stops it after KEEP_ALIVE idle seconds, on SIGTERM (`mcp-chat local stop`), or when it dies.
- Per user and never reachable by another: the server listens on a unix socket in the private
  runtime folder (client/core/paths.py), where no other user can connect or bind; the state
  (pids, socket, API key) is a private file there (plumbing/private.py); and the server answers
  only requests with that key (LLAMA_API_KEY in its environment, never argv).
- A session holds a shared lock on the lease file while it uses the server; idle time counts
  from when no session holds it (and from the lease file's mtime, touched by a leaving session).
  The state lock is held while a session checks and leases, and while the keeper decides to
  stop, so a session never leases a server that is being stopped.
- Reuse only after checking that the pid runs exactly the command this session would start
  (binary, weights, template, window, slots, threads, socket), that the weights and template files
  are the ones it was started with (an upgrade rewrites the template at the same path), and that
  the server answers with the key.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from client.engine.http import async_client
from client.engine.local.keepstate import Files, State, read_state, remove_state, weights_stamp, write_state
from client.engine.local.server import READY_TIMEOUT, LocalServer
from client.engine.local.weights import SetupError
from plumbing import locks, private
from plumbing.proc import alive, cmdline, runs

POLL = 1.0  # seconds between the keeper's checks


class Lease:
    """This session's use of the kept server; `release()` when the session ends."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.state: State | None = None
        self.reused = False
        self.held = locks.Lease(files.lease)  # from before the server starts: never idle while loading

    def release(self, keep: float | None = None) -> None:
        """Say how long to keep the server now (this session's KEEP_ALIVE), then let go."""
        if not self.held.active:
            return
        told = keep is not None and self.state is not None
        try:
            if told and self.state is not None:
                with self.files.locked():
                    st = read_state(self.files)
                    if st is not None and st.pid == self.state.pid and st.keep_alive != keep:
                        st.keep_alive = keep  # type: ignore[assignment]
                        write_state(self.files, st)
        except OSError:
            pass
        finally:
            self.held.release(touch=told)


async def _answers(socket: str, key: str, alias: str) -> bool:
    """The server at `socket` knows our key, serves our model, and has loaded it.
    llama-server lists the model on /v1/models while the weights still load; only /health says
    loaded (503 before). A chat request sent earlier gets a 503 whose unread body the server then
    parses as the next request on that connection: the retry fails with a 400."""
    import httpx

    try:
        async with async_client(socket, timeout=3.0, base_url="http://llama-server") as client:
            r = await client.get("/v1/models", headers={"Authorization": f"Bearer {key}"})
            ids = [m.get("id") for m in r.json().get("data", [])] if r.status_code == 200 else []
            if alias not in ids:
                return False
            return (await client.get("/health")).status_code == 200
    except (httpx.HTTPError, OSError, ValueError, AttributeError):
        return False


def files_stamp(server: LocalServer) -> list[int]:
    """Size and mtime of the weights, then of the chat template: a change to either is a new server."""
    return weights_stamp(server.model) + weights_stamp(server.template)


async def reusable(files: Files, server: LocalServer) -> State | None:
    """The kept server, if it is exactly the one this session would start and it answers."""
    st = read_state(files)
    if st is None:
        return None
    if (st.socket == str(files.socket) and st.command == server.command(files.socket) and runs(st.pid, st.command)
            and alive(st.keeper) and st.weights == files_stamp(server)
            and await _answers(st.socket, st.key, server.alias)):
        return st
    return None


def terminate(st: State) -> None:
    """Stop a kept server and its keeper (both ours: checked against /proc first)."""
    keeper_cmd = cmdline(st.keeper) or []
    if any("client.engine.local.keeper" in a for a in keeper_cmd):
        _kill(st.keeper, signal.SIGTERM)
    if runs(st.pid, st.command):
        _kill(st.pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while alive(st.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if alive(st.pid):
            _kill(st.pid, signal.SIGKILL)


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


async def acquire(server: LocalServer, keep: float) -> Lease | None:
    """A lease on a warm server (reused, or started under a keeper); None when none can be kept
    (no private runtime folder or no cache; keep 0 and none running; another session uses a
    different one): the session then owns its server, as before."""
    files = Files.here(server.cache) if server.cache else None
    if files is None:
        return None
    lock = files.locked()
    await asyncio.to_thread(lock.acquire)
    lease: Lease | None = None
    try:
        st = await reusable(files, server)
        lease = Lease(files)
        if st is not None:
            lease.state, lease.reused = st, True
            return lease
        old = read_state(files)
        if old is not None and alive(old.pid) and lease.held.others():
            lease.release()  # in use by another session with other settings: left alone
            return None
        if old is not None:  # dead, idle with other settings, or not ours: never reused
            await asyncio.to_thread(terminate, old)
            remove_state(files, old.pid)
        if keep <= 0:
            lease.release()
            return None
        lease.state = await _start(files, server, keep)
        return lease
    except BaseException:
        if lease is not None:
            lease.release()
        raise
    finally:
        lock.release()


async def _start(files: Files, server: LocalServer, keep: float) -> State:
    key = secrets.token_urlsafe(32)
    cfg = {"binary": str(server.binary), "model": str(server.model), "template": str(server.template),
           "alias": server.alias, "ctx": server.ctx, "threads": server.threads, "slots": server.slots,
           "keep": keep, "cache": str(server.cache), "files": [str(p) for p in (files.state, files.lock, files.lease, files.socket)]}
    env = {**os.environ, "LLAMA_API_KEY": key}
    log = open(server.cache / "llama-keeper.log", "ab")  # acquire() keeps only a server with a cache
    try:
        keeper = subprocess.Popen([sys.executable, "-c", "from client.engine.local.keeper import main; main()",
                                   json.dumps(cfg)], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                  start_new_session=True, close_fds=True, cwd="/")
    finally:
        log.close()
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if keeper.poll() is not None:
            raise SetupError("local_server_exited", code=keeper.returncode, log=str(server.log_path))
        st = read_state(files)
        if st is not None and st.keeper == keeper.pid and await _answers(str(files.socket), key, server.alias):
            return st
        await asyncio.sleep(0.1)
    keeper.terminate()
    raise SetupError("local_server_timeout", seconds=f"{READY_TIMEOUT:.0f}", log=str(server.log_path))


def status(cache: Path) -> State | None:
    files = Files.here(cache)
    st = read_state(files) if files else None
    return st if st is not None and alive(st.pid) and runs(st.pid, st.command) else None


def stop(cache: Path) -> State | None:
    """`mcp-chat local stop`: the kept server (of `cache`) is stopped now, in use or not."""
    files = Files.here(cache)
    if files is None:
        return None
    with files.locked():
        st = read_state(files)
        if st is None:
            return None
        running = alive(st.pid) and runs(st.pid, st.command)
        terminate(st)
        remove_state(files, st.pid)
        private.remove(files.socket)
    return st if running else None


def main() -> None:
    """The keeper process: start the server, then stop it after KEEP_ALIVE idle seconds."""
    cfg = json.loads(sys.argv[1])
    files = Files(*(Path(p) for p in cfg["files"]))
    stopping: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, lambda n, _f: stopping.append(n))
    key = os.environ.pop("LLAMA_API_KEY")
    server = LocalServer(Path(cfg["binary"]), Path(cfg["model"]), Path(cfg["template"]), alias=cfg["alias"],
                         ctx=cfg["ctx"], threads=cfg["threads"], slots=cfg["slots"], api_key=key, watchdog=False,
                         socket=files.socket, cache=Path(cfg["cache"]))
    server.start()  # under the session's state lock: the socket is ours to replace
    proc = server.proc
    assert proc is not None
    write_state(files, State(proc.pid, os.getpid(), str(files.socket), key, server.command(),
                             files_stamp(server), cfg["keep"]))
    last_busy = time.time()
    try:
        while not stopping and proc.poll() is None:
            time.sleep(POLL)
            st = read_state(files)
            if st is None or st.pid != proc.pid:  # removed or replaced (`mcp-chat local stop`)
                return
            if files.busy():
                last_busy = time.time()
                continue
            try:
                last_busy = max(last_busy, os.stat(files.lease).st_mtime)
            except OSError:
                pass
            if time.time() - last_busy >= st.keep_alive:
                with files.locked():  # no session is between checking and leasing now
                    if not files.busy():
                        _leave(files, server, proc.pid)
                        return
    finally:
        with files.locked():
            _leave(files, server, proc.pid)


def _leave(files: Files, server: LocalServer, pid: int) -> None:
    """Stop the server (the caller holds the state lock); its socket and state go only while the
    state still names it (a replaced server's are the new one's)."""
    server.stop()
    st = read_state(files)
    if st is not None and st.pid == pid:
        private.remove(files.socket)
        remove_state(files, pid)
