"""The local model kept warm between sessions (`MCP_CHAT_LOCAL_KEEP_ALIVE`, like Ollama's keep_alive).

After a session ends its llama-server stays up for KEEP_ALIVE seconds (default 300; 0: it
stops with the session) and the next session reuses it, without loading the weights again.

- A small keeper process (`main()` here, detached from the session that started it) owns the
  server: the server is its child with PDEATHSIG, so it never outlives the keeper. The keeper
  stops it after KEEP_ALIVE idle seconds, on SIGTERM (`mcp-chat local stop`), or when it dies.
- Per user and never reachable by another: the state (pids, port, API key) is a 0600 file in
  the private runtime folder (client/core/paths.py), and the server answers only requests
  with that key (LLAMA_API_KEY in its environment, which only this user can read; never argv).
- A session holds a shared lock on the lease file while it uses the server; idle time counts
  from when no session holds it (and from the lease file's mtime, touched by a leaving session).
  The state lock is held while a session checks and leases, and while the keeper decides to
  stop, so a session never leases a server that is being stopped.
- Reuse only after checking that the pid runs exactly the command this session would start
  (binary, weights, template, window, slots, threads, port), that the weights file is the one
  it was started with, and that the server answers with the key.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from client.engine.local.keepstate import (Files, Lease, State, Locked, alive, busy, cmdline, read_state,
                                           remove_state, runs, weights_stamp, write_state)
from client.engine.local.server import READY_TIMEOUT, LocalServer, free_port
from client.engine.local.spec import cache_root
from client.engine.local.weights import SetupError

KEEP_ALIVE_DEFAULT = 300.0
POLL = 1.0  # seconds between the keeper's checks


def keep_alive() -> float:
    """MCP_CHAT_LOCAL_KEEP_ALIVE seconds (default 300; 0 or less: stop with the session)."""
    raw = os.environ.get("MCP_CHAT_LOCAL_KEEP_ALIVE", "").strip()
    try:
        return max(0.0, float(raw)) if raw else KEEP_ALIVE_DEFAULT
    except ValueError:
        return KEEP_ALIVE_DEFAULT


async def _answers(state: State, alias: str) -> bool:
    """The server at the state's port knows our key, serves our model, and has loaded it.
    llama-server lists the model on /v1/models while the weights still load; only /health says
    loaded (503 before). A chat request sent earlier gets a 503 whose unread body the server then
    parses as the next request on that connection: the retry fails with a 400."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=3.0) as client:
            r = await client.get(state.base_url + "/models", headers={"Authorization": f"Bearer {state.key}"})
            ids = [m.get("id") for m in r.json().get("data", [])] if r.status_code == 200 else []
            if alias not in ids:
                return False
            return (await client.get(f"http://127.0.0.1:{state.port}/health")).status_code == 200
    except (httpx.HTTPError, ValueError, AttributeError):
        return False


def wanted_command(server: LocalServer, port: int) -> list[str]:
    server.port = port
    return server.command()


async def reusable(files: Files, server: LocalServer) -> State | None:
    """The kept server, if it is exactly the one this session would start and it answers."""
    st = read_state(files)
    if st is None:
        return None
    if (st.command == wanted_command(server, st.port) and runs(st.pid, st.command) and alive(st.keeper)
            and st.weights == weights_stamp(server.model) and await _answers(st, server.alias)):
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
    (no private runtime folder; keep 0 and none running; another session uses a different one):
    the session then owns its server, as before."""
    files = Files.here()
    if files is None:
        return None
    lock = Locked(files)
    await asyncio.to_thread(lock.__enter__)
    lease: Lease | None = None
    try:
        st = await reusable(files, server)
        lease = Lease(files)
        if st is not None:
            lease.state, lease.reused = st, True
            return lease
        old = read_state(files)
        if old is not None and alive(old.pid) and _busy_besides(files, lease):
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
        lock.__exit__()


def _busy_besides(files: Files, lease: Lease) -> bool:
    """Does another session hold the lease? (ours is dropped for the check, then taken again)"""
    fcntl.flock(lease.fd, fcntl.LOCK_UN)
    try:
        return busy(files)
    finally:
        fcntl.flock(lease.fd, fcntl.LOCK_SH)


async def _start(files: Files, server: LocalServer, keep: float) -> State:
    key, port = secrets.token_urlsafe(32), free_port()
    cfg = {"binary": str(server.binary), "model": str(server.model), "template": str(server.template),
           "alias": server.alias, "ctx": server.ctx, "threads": server.threads, "slots": server.slots,
           "port": port, "keep": keep, "state": str(files.state), "lock": str(files.lock), "lease": str(files.lease)}
    env = {**os.environ, "LLAMA_API_KEY": key}
    log = open(cache_root() / "llama-keeper.log", "ab")
    try:
        keeper = subprocess.Popen([sys.executable, "-c", "from client.engine.local.keeper import main; main()",
                                   json.dumps(cfg)], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                  start_new_session=True, close_fds=True, cwd="/")
    finally:
        log.close()
    deadline = time.monotonic() + READY_TIMEOUT
    probe = State(0, keeper.pid, port, key, [], [], keep)
    while time.monotonic() < deadline:
        if keeper.poll() is not None:
            raise SetupError("local_server_exited", code=keeper.returncode, log=str(server.log_path))
        st = read_state(files)
        if st is not None and st.keeper == keeper.pid and await _answers(probe, server.alias):
            return st
        await asyncio.sleep(0.1)
    keeper.terminate()
    raise SetupError("local_server_timeout", seconds=f"{READY_TIMEOUT:.0f}", log=str(server.log_path))


def status() -> State | None:
    files = Files.here()
    st = read_state(files) if files else None
    return st if st is not None and alive(st.pid) and runs(st.pid, st.command) else None


def stop() -> State | None:
    """`mcp-chat local stop`: the kept server is stopped now, in use or not."""
    files = Files.here()
    if files is None:
        return None
    with Locked(files):
        st = read_state(files)
        if st is None:
            return None
        running = alive(st.pid) and runs(st.pid, st.command)
        terminate(st)
        remove_state(files, st.pid)
    return st if running else None


def main() -> None:
    """The keeper process: start the server, then stop it after KEEP_ALIVE idle seconds."""
    cfg = json.loads(sys.argv[1])
    files = Files(Path(cfg["state"]), Path(cfg["lock"]), Path(cfg["lease"]))
    stopping: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, lambda n, _f: stopping.append(n))
    key = os.environ.pop("LLAMA_API_KEY")
    server = LocalServer(Path(cfg["binary"]), Path(cfg["model"]), Path(cfg["template"]), alias=cfg["alias"],
                         ctx=cfg["ctx"], threads=cfg["threads"], slots=cfg["slots"], api_key=key, watchdog=False)
    server.start(port=cfg["port"])
    proc = server.proc
    assert proc is not None
    write_state(files, State(proc.pid, os.getpid(), server.port, key, server.command(), weights_stamp(server.model),
                             cfg["keep"]))
    last_busy = time.time()
    try:
        while not stopping and proc.poll() is None:
            time.sleep(POLL)
            st = read_state(files)
            if st is None or st.pid != proc.pid:  # removed or replaced (`mcp-chat local stop`)
                return
            if busy(files):
                last_busy = time.time()
                continue
            try:
                last_busy = max(last_busy, os.stat(files.lease).st_mtime)
            except OSError:
                pass
            if time.time() - last_busy >= st.keep_alive:
                with Locked(files):  # no session is between checking and leasing now
                    if not busy(files):
                        server.stop()
                        remove_state(files, proc.pid)
                        return
    finally:
        server.stop()
        remove_state(files, proc.pid)
