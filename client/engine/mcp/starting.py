"""The MCP servers of a session starting in the background, each on its own (issues 41, 48).

No server holds the prompt up: `start()` launches one task per server and returns. A server whose
tools are known before it is up (the bundled one's, shipped with the client; another's last listing,
saved per user: saved_tools.py) is in `order` from the start, in the configuration's order, so the
very first request carries its tools; its live listing replaces them once it is up (and is saved for
the next launch), and a start that fails takes them out again. A server seen for the first time
joins `order` when it comes up (the servers whose tools are offered, in the order they came
up, so a newcomer's tools go at the END of the tool list and the provider's prompt cache of the
earlier ones holds) and tells `on_change` (ToolHub, which builds the tools); `unknown()` names those still starting, which a message
waits for up to a short grace (Tuning.startup_grace, client/ui/startup.py). A server that fails, or
passes its start-up timeout (`startup_timeout`: the spec's, which is the entry's "startupTimeout",
else MCP_CHAT_STARTUP_TIMEOUT (specs.py); else 30 s like the peers), is kept in `failures` until the ui reports it once. `connect()` is the same start,
waited for (-p, piped input, tests: deterministic, in the configuration's order).
`disable(name)` / `enable(name)` switch one server for the session (/mcp).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import IO, Callable

from mcp import types
from mcp.client.session import ClientSession

from client.engine.mcp.bundled import bundled_tools, dump
from client.engine.mcp.era import Revision
from client.engine.mcp.features import ClientFeatures
from client.engine.mcp.saved_tools import SavedTools
from client.engine.mcp.server import START_TIMEOUT, ServerConn
from client.engine.mcp.specs import ServerSpec

OFF = "off"  # a ServerConn's state once switched off for the session (/mcp disable)


def startup_timeout(spec: ServerSpec) -> float:
    """Seconds a server may take to connect and list its tools."""
    return spec.startup_timeout or START_TIMEOUT


class ServerFleet:
    """The servers' lifecycle. `on_change(anew)` is told whenever the servers whose tools are offered,
    or their tools, may have changed (`anew`: in the configuration's order now, connect())."""

    def __init__(self, specs: list[ServerSpec], features: ClientFeatures | None = None, errlog: IO[str] | None = None,
                 saved: SavedTools | None = None, on_change: Callable[[bool], None] = lambda anew: None,
                 debug: bool = False) -> None:
        """`errlog`: stdio servers' stderr (None: a private file, its last line in errors); `saved`: saved tool lists."""
        self.features, self._errlog, self.saved, self._changed = features, errlog, saved, on_change
        self.disabled = [s for s in specs if not s.enabled]  # "enabled": false: listed, never started unasked
        self.servers = [ServerConn(s, features, errlog) for s in specs if s.enabled]
        # known before they are up, then up at least once, and not switched off; in the order they came up
        self.order: list[ServerConn] = []
        self.failures: list[ServerConn] = []  # failed starts not reported yet (take_failures)
        self._starts: dict[str, asyncio.Task[bool]] = {}
        self._since: dict[str, float] = {}  # name -> when its current start began
        self._on_disk: dict[str, str] = {}  # server -> its saved list as last read or written
        self._kept: dict[str, int] = {}  # server -> the generation of its tools last compared with the saved list
        for server in self.servers:
            known = self._known(server.spec)
            if known is not None:
                server.tools = known
                self.order.append(server)
        if not debug:  # the SDK logs tracebacks (e.g. a server printing non-JSON); we report one line
            sdk_log = logging.getLogger("mcp")
            sdk_log.handlers, sdk_log.propagate = [logging.NullHandler()], False

    def offered(self) -> list[ServerConn]:
        """Whose tools are offered: in the order they came up (a dead one's stay: it is reconnected on its next call)."""
        return [s for s in self.order if s.state != OFF]

    def sessions(self) -> list[tuple[str, ClientSession, Revision]]:
        """(server, session, its revision) of every server connected now (features.Sessions: the roots)."""
        return [(s.spec.name, s.session, s.revision) for s in self.servers if s.session and s.revision]

    def _known(self, spec: ServerSpec) -> list[types.Tool] | None:
        """Its tools before it is up: shipped (the bundled server), else saved; None when unknown."""
        if spec.missing:
            return None
        if spec.bundled:
            return bundled_tools()
        found = self.saved.load(spec) if self.saved is not None else None
        if found is None:
            return None
        self._on_disk[spec.name] = _listing(found.tools, found.ttl_ms, found.scope)
        return found.tools

    def _keep(self, server: ServerConn) -> None:
        """Save a server's live listing for the next launch, when it differs from the saved one."""
        name = server.spec.name
        if self.saved is None or server.spec.bundled or not server.live or self._kept.get(name) == server.generation:
            return
        self._kept[name] = server.generation
        ttl, scope = server.listing.ttl_ms, server.listing.scope
        now = _listing(server.tools, ttl, scope)
        if self._on_disk.get(name) != now and self.saved.save(server.spec, server.tools, ttl, scope) is None:
            self._on_disk[name] = now

    # -- starting ----------------------------------------------------------------------
    def start(self) -> None:
        """Every server starts in the background, each on its own; returns at once."""
        for server in self.servers:
            if server.state == "idle":
                self._launch(server)

    async def connect(self) -> None:
        """Start every server and wait for all, each up to its start-up timeout; the tools are
        then in the configuration's order whatever order the servers came up in."""
        self.start()
        await self.wait()
        self.order = [s for s in self.servers if s in self.order]
        self._changed(True)  # before any request saw a name: names depend on the configuration, not on timing

    async def refresh(self) -> None:
        """Before a turn: the servers whose listing is stale list their tools again (listing.py), and a
        new listing is saved; the listener is told (a change there, or at a reconnect)."""
        await asyncio.gather(*(s.refresh_tools() for s in self.servers))
        for server in self.servers:
            self._keep(server)
        self._changed(False)

    async def aclose(self) -> None:
        for task in self._starts.values():
            task.cancel()
        await asyncio.gather(*self._starts.values(), return_exceptions=True)
        await asyncio.gather(*(s.aclose() for s in self.servers), return_exceptions=True)

    def failed(self) -> list[ServerConn]:
        return [s for s in self.servers if s.state not in ("connected", "closed", "connecting", OFF)]

    @property
    def error(self) -> str | None:
        """All start-up failures in one line (None when every server is up)."""
        bad = self.failed()
        return "; ".join(f"{s.spec.name}: {s.error or s.state}" for s in bad) or None

    async def opened(self, timeout: float) -> None:
        """Until every starting server's transport is up (a stdio server's process runs), at most
        `timeout` seconds: a caller about to keep the CPU busy lets the servers start meanwhile."""
        waits = [asyncio.ensure_future(s.opened.wait()) for s in self.servers if s.state == "connecting"]
        if waits:
            _, pending = await asyncio.wait(waits, timeout=timeout)
            for w in pending:
                w.cancel()

    async def wait(self, names: list[str] | None = None, timeout: float | None = None) -> None:
        """Until the starts under way (of `names`, default all) have ended, each within its start-up
        timeout, or `timeout` seconds have passed (the starts go on)."""
        tasks = [t for n, t in self._starts.items() if (names is None or n in names) and not t.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def unknown(self) -> list[str]:
        """The servers still starting whose tools are not offered yet (seen for the first time)."""
        return [n for n, _ in self.starting() if not any(s.spec.name == n for s in self.order)]

    def _launch(self, server: ServerConn) -> asyncio.Task[bool]:
        name = server.spec.name
        task = self._starts.get(name)
        if task is not None and not task.done():
            return task
        self._since[name] = time.monotonic()
        server.state = "connecting"  # at once: /mcp and the status line show it starting
        task = asyncio.get_running_loop().create_task(self._start_one(server), name=f"mcp-start:{name}")
        self._starts[name] = task
        return task

    async def _start_one(self, server: ServerConn) -> bool:
        try:
            ok = await server.start(startup_timeout(server.spec))
        finally:
            self._since.pop(server.spec.name, None)
        if ok:
            new = server not in self.order
            if new:
                self.order.append(server)  # its tools go after those already offered
            self._keep(server)
            self._changed(False)  # the same tools as offered already: nothing to do there
        else:
            if server in self.order and not server.live:  # offered from a saved list only: they leave
                self.order.remove(server)
                self._changed(False)
            if server.state != OFF:
                self.failures.append(server)
        return ok

    def starting(self) -> list[tuple[str, float]]:
        """(name, seconds since its start began) of the servers still starting, oldest first."""
        now = time.monotonic()
        return sorted(((n, now - t) for n, t in self._since.items()), key=lambda x: -x[1])

    def take_failures(self) -> list[ServerConn]:
        """The failed starts since the last call (each reported once)."""
        out, self.failures = self.failures, []
        return out

    # -- switching one server for the session (/mcp) ------------------------------------
    def find(self, name: str) -> ServerConn | ServerSpec | None:
        return next((s for s in self.servers if s.spec.name == name), None) or \
            next((s for s in self.disabled if s.name == name), None)

    async def disable(self, name: str) -> bool:
        """Stop `name` and drop its tools from later requests; False when it is not running anyway."""
        server = self.find(name)
        if not isinstance(server, ServerConn) or server.state == OFF:
            return False
        task = self._starts.get(name)
        await server.stop()
        if task is not None and not task.done():
            await asyncio.gather(task, return_exceptions=True)
        server.state, server.error = OFF, None
        self.failures = [s for s in self.failures if s is not server]
        if server in self.order:
            self.order.remove(server)
            self._changed(False)
        return True

    def enable(self, name: str) -> asyncio.Task[bool] | None:
        """Start (or retry) `name` in the background; its tools join the next request once it is up.
        None when it is up already (or unknown)."""
        server = self.find(name)
        if isinstance(server, ServerSpec):  # "enabled": false in the file: started for this session
            self.disabled.remove(server)
            server = ServerConn(server, self.features, self._errlog)
            self.servers.append(server)
        if server is None or server.state == "connected":
            return None
        self.failures = [s for s in self.failures if s is not server]
        return self._launch(server)


def _listing(tools: list[types.Tool], ttl_ms: int, scope: str) -> str:
    return json.dumps([[dump(t) for t in tools], ttl_ms, scope], sort_keys=True)
