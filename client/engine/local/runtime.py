"""What runs while a chat on the local provider lasts: the chat's llama-server (kept warm for
this user, or the session's own) and the niced summary server beside it."""

from __future__ import annotations

import asyncio
import secrets
import sys
import time
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, AsyncIterator

from client.core.config import ConfigError, Settings
from client.engine.runtime import Runtime

if TYPE_CHECKING:
    from client.engine.frontend import Frontend


@asynccontextmanager
async def local_runtime(s: Settings, label: str, frontend: Frontend) -> AsyncIterator[Runtime]:
    """Prepare once (build, fetch: reported through `frontend.setup`), start or reuse the chat's
    server, start the summary server; everything stops when the chat ends."""
    if s.local_url:  # a llama-server already running (shared by sessions, or the tests' recording proxy)
        yield Runtime(s.local_url)
        return
    from client.engine.local import prepare, runtime_ready
    from client.engine.local.server import install_sigterm_handler, stop_all

    if s.provider_auto and not runtime_ready(s.dirs.cache) and not s.interactive:
        raise ConfigError("no_key")  # no silent 1 GiB download from a script: one line, exit 2
    if s.provider_auto:
        frontend.notice("auto_local", {"model": label})
    install_sigterm_handler()
    server = prepare(s.dirs.cache, threads=s.tuning.local_threads, report=frontend.setup)  # build or fetch once; SetupError: one line, exit 1 (client/ui/cli.py)
    async with _chat_server(server, s, frontend) as runtime:
        helper = _start_summary_server(server.with_(api_key=runtime.api_key), s)  # after the chat's: its loading does not delay the start
        helper_ready = None
        try:
            if helper is not None:
                helper_ready = asyncio.get_running_loop().create_task(_when_ready(helper, runtime))
            yield runtime
        finally:
            if helper_ready is not None:
                helper_ready.cancel()
            stop_all([helper], [0.0])  # the niced helper holds nothing worth a slow exit: killed at once


@asynccontextmanager
async def _chat_server(server: Any, s: Settings, frontend: Frontend) -> AsyncIterator[Runtime]:
    """The chat's llama-server: the warm one this user keeps (client/engine/local/keeper.py),
    reused or started for Tuning.keep_alive seconds (MCP_CHAT_LOCAL_KEEP_ALIVE) after the session, or else one of
    this session's own. Either way it answers only requests with the key in the runtime."""
    from client.engine.local import keeper
    from client.engine.local.server import stop_all

    keep = s.tuning.keep_alive
    started = time.monotonic()
    lease = await keeper.acquire(server, keep) if sys.platform.startswith("linux") else None
    owned = None
    try:
        if lease is not None and lease.state is not None:
            st = lease.state
            key, url, uds, pid, seconds = st.key, st.base_url, st.socket, st.pid, time.monotonic() - started
        else:
            key = secrets.token_urlsafe(32)
            owned = server.with_(api_key=key).start()
            seconds = await owned.wait_ready()
            url, uds, pid = owned.base_url, owned.uds, owned.pid
        runtime = Runtime(url, chat_slot=0, api_key=key, uds=uds)  # slot 0 of the server's two (SLOTS)
        if s.debug:
            frontend.notice("local_ready", {"url": f"unix:{uds}", "pid": pid, "seconds": seconds})
        yield runtime
    finally:
        stop_all([owned], [5.0])
        if lease is not None:
            lease.release(keep)


def _start_summary_server(chat: Any, s: Settings) -> Any:
    """The niced one-slot server for background summaries (client/engine/local/server.py),
    spawned once the chat's is ready; None when it cannot start (summaries then use the chat's).
    Only at a terminal: in a pipe the next message waits for the summary, which then needs the
    CPU at once (the chat's second slot). MCP_CHAT_SUMMARY_SERVER=1 / 0 forces it on / off."""
    if not (s.interactive if s.summary_server is None else s.summary_server):
        return None
    from client.engine.local.server import summary_server

    try:
        return summary_server(chat).start()
    except OSError:
        return None


async def _when_ready(helper: Any, runtime: Runtime) -> None:
    """Background summaries move to the helper once it answers; until then, or if it never
    does, they go to the chat's server as before."""
    try:
        await helper.wait_ready()
    except Exception:  # noqa: BLE001 - the chat's server still serves summaries
        return
    runtime.summary_uds = helper.uds
    runtime.summary_base_url = helper.base_url  # read as "ready": set last
