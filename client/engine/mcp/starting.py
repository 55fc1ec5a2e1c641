"""The MCP servers of a session starting in the background, each on its own (issue 41).

No server holds the prompt or a message up: `start()` launches one task per server and returns;
a server that comes up joins `order` (the servers whose tools are offered, in the order they came
up, so a newcomer's tools go at the END of the tool list and the provider's prompt cache of the
earlier ones holds) and bumps `version`; a server that fails, or passes its start-up timeout
(`startup_timeout`: the entry's "startupTimeout", else MCP_CHAT_STARTUP_TIMEOUT, else 30 s like
the peers), is kept in `failures` until the ui reports it once. `connect()` is the same start,
waited for (-p, piped input, tests: deterministic, in the configuration's order).
`disable(name)` / `enable(name)` switch one server for the session (/mcp).
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import IO

from client.engine.mcp.features import ClientFeatures
from client.engine.mcp.server import START_TIMEOUT, ServerConn
from client.engine.mcp.specs import ServerSpec

STARTUP_ENV = "MCP_CHAT_STARTUP_TIMEOUT"  # checked by client/ui/env_settings.py
OFF = "off"  # a ServerConn's state once switched off for the session (/mcp disable)


def startup_timeout(spec: ServerSpec) -> float:
    """Seconds a server may take to connect and list its tools."""
    if spec.startup_timeout:
        return spec.startup_timeout
    try:
        value = float(os.environ.get(STARTUP_ENV, "").strip() or START_TIMEOUT)
    except ValueError:
        return START_TIMEOUT
    return value if value > 0 else START_TIMEOUT


class ServerFleet:
    """The servers' lifecycle; ToolHub (hub.py) turns `order` into tools in `_build_tools`."""

    def __init__(self, specs: list[ServerSpec], features: ClientFeatures | None, errlog: IO[str] | None) -> None:
        self.features, self._errlog = features, errlog
        self.disabled = [s for s in specs if not s.enabled]  # "enabled": false: listed, never started unasked
        self.servers = [ServerConn(s, features, errlog) for s in specs if s.enabled]
        self.order: list[ServerConn] = []  # up at least once and not switched off, in the order they came up
        self.version = 0  # bumped whenever the tool list is rebuilt
        self.failures: list[ServerConn] = []  # failed starts not reported yet (take_failures)
        self._starts: dict[str, asyncio.Task[bool]] = {}
        self._since: dict[str, float] = {}  # name -> when its current start began

    def _build_tools(self) -> None:  # pragma: no cover - ToolHub's
        raise NotImplementedError

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
        self._names_fresh()
        self._build_tools()

    def _names_fresh(self) -> None:
        """Before any request saw a name (connect): names depend on the configuration, not on timing."""

    async def opened(self, timeout: float) -> None:
        """Until every starting server's transport is up (a stdio server's process runs), at most
        `timeout` seconds: a caller about to keep the CPU busy lets the servers start meanwhile."""
        waits = [asyncio.ensure_future(s.opened.wait()) for s in self.servers if s.state == "connecting"]
        if waits:
            _, pending = await asyncio.wait(waits, timeout=timeout)
            for w in pending:
                w.cancel()

    async def wait(self, names: list[str] | None = None) -> None:
        """Until the starts under way (of `names`, default all) have ended, each within its timeout."""
        tasks = [t for n, t in self._starts.items() if names is None or n in names]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

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
            if server not in self.order:
                self.order.append(server)  # its tools go after those already offered
            self._build_tools()
        elif server.state != OFF:
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
            self._build_tools()
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
