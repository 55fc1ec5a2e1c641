"""The LangChain side of several MCP servers: the hub holds the fleet (starting.py, which knows
nothing of LangChain) and turns the tools it offers into LangChain tools (adapter.py).

Unlike `MultiServerMCPClient.get_tools()`, a server that fails to start or dies takes only its own
tools with it. Names that collide across servers are prefixed with the server name, and so is a tool
of another server that would take a built-in name (bundled.py: `tool_search`, and the bundled
search's tools while it is configured); a name once given never changes nor goes to another tool.
Tools are offered before their server is up when they are known (the bundled server's,
shipped with the client; any other's last listing, saved_tools.py); every call is then
checked against the live definition first (live_check.py). Each tool call goes through our own coroutine:
results become text (results.py), failures become error tool results (the
turn completes), a dead server is reconnected on its next call, and progress
notifications reach the frontend the hub was built with (`Frontend.progress`,
client/engine/frontend.py). Nothing here is translated: the ui
words progress and the /tools, /servers listings (client/ui/mcp_view.py), and what the
model reads about a failure is English whatever `--lang` says.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import IO, Any

from langchain_core.tools import BaseTool, ToolException
from mcp import types

from client.core.toolprint import tool_print
from client.engine.events import notify
from client.engine.frontend import Frontend, ToolProgress
from client.engine.mcp import live_check
from client.engine.mcp.adapter import as_langchain_tool
from client.engine.mcp.bundled import reserved_names
from client.engine.mcp.live_check import tool_definition
from client.engine.mcp.permissions import CallInfo, Permissions, ToolKey, Verdict, is_read_only
from client.engine.mcp.features import ClientFeatures
from client.engine.mcp.oversize import oversize
from client.engine.mcp.results import result_text
from client.engine.mcp.saved_tools import SavedTools
from client.engine.mcp.server import ServerConn, ServerGone
from client.engine.mcp.specs import ServerSpec, bundled_spec
from client.engine.mcp.starting import OFF, ServerFleet

# what the model reads when a server is gone: fixed English, the same under every --lang
SERVER_GONE = "MCP server '{name}' is unreachable ({err}). It will be reconnected on the next call."


__all__ = ["ToolHub", "ToolProgress", "tool_definition"]  # ToolProgress: client/engine/frontend.py, for the ui
_FN_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class ToolHub:
    def __init__(self, specs: list[ServerSpec] | None = None, debug: bool = False,
                 permissions: Permissions | None = None, features: ClientFeatures | None = None,
                 frontend: Frontend | None = None, errlog: IO[str] | None = None,
                 saved: SavedTools | None = None) -> None:
        """`frontend`: where tools' progress goes (default: nowhere); the rest builds the `fleet`, whose
        `start()` or `connect()` starts the servers (`errlog`, `saved`: starting.py)."""
        self.permissions = permissions or Permissions()  # who may run what (permissions.py)
        self.frontend = frontend or Frontend()
        self.tools: list[BaseTool] = []
        self.owner: dict[str, tuple[ServerConn, types.Tool]] = {}  # tool name -> (server, MCP tool)
        self.version = 0  # bumped whenever the tool list is rebuilt
        self._names: dict[tuple[str, str], str] = {}  # (server, MCP tool) -> its function name, kept once given
        self._built: list[tuple[ServerConn, int]] = []  # the offered servers and their tools' generation, as built
        self.fleet = ServerFleet(specs if specs is not None else [bundled_spec()], features, errlog, saved,
                                 self._build_tools, debug)
        self._build_tools()  # the tools known before their servers are up

    async def late_tool(self, name: str) -> BaseTool | None:
        """The tool `name` when the model asks for one the agent was not built with: a server still
        starting may bring it, so its start is waited for (each within its start-up timeout).
        None when no server is starting or none brought it."""
        if name not in self.owner and self.fleet.starting():
            await self.fleet.wait()
        return next((t for t in self.tools if t.name == name), None)

    # -- tools -----------------------------------------------------------------
    def _build_tools(self, anew: bool = False) -> None:
        """The tool list, when the fleet's offered servers or their tools changed (the fleet's `on_change`).
        A name once given stays (a server that comes up later never renames the tools already offered)
        and is never given to another tool; names that collide are prefixed with the server's name, and
        so is another server's tool named like a built-in one. `anew` (connect(): nobody saw a name yet):
        names are given afresh, in the configuration's order."""
        fleet = self.fleet
        if anew:
            self._names.clear()
        elif [(s, s.generation) for s in fleet.offered()] == self._built:
            return  # as offered already: nothing to rebuild
        pairs = [(s, tool) for s in fleet.offered() for tool in s.tools]
        counts = Counter(_fn_name(tool.name) for _, tool in pairs)
        bundled = any(s.spec.bundled for s in fleet.servers) or any(spec.bundled for spec in fleet.disabled)
        given, reserved = set(self._names.values()), reserved_names(bundled)
        self.tools, self.owner = [], {}
        clients: dict[str, _Client] = {}
        for server, tool in pairs:
            key = (server.spec.name, tool.name)
            name = self._names.get(key)
            if name is None or name in self.owner:
                theirs = reserved if not server.spec.bundled else frozenset()
                name = _fn_name(tool.name)
                if counts[name] > 1 and name not in reserved or name in given or name in theirs:
                    name = _fn_name(f"{server.spec.name}_{tool.name}")
                base, n = name, 2
                while name in self.owner or name in given or name in theirs:
                    name, n = f"{base[:60]}_{n}", n + 1
                self._names[key] = name
                given.add(name)
            self.owner[name] = (server, tool)
            client = clients.setdefault(server.spec.name, _Client(self, server))
            self.tools.append(as_langchain_tool(tool, client, name=name))  # adapter.py
        self._built = [(s, s.generation) for s in fleet.offered()]
        self.version += 1

    async def invoke(self, name: str, args: dict, server: ServerConn, offered: types.Tool) -> str:
        """Call tool `name` (as `offered` by `server`: the tool the agent holds); text for the model,
        or ToolException with the error text."""
        await self._up(server)
        tool = self._live(server, offered.name) or offered
        last: list[tuple[float, float | None, str | None]] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            last[:] = [(done, total, message)]
            self._emit(ToolProgress(name, done, total, message))

        ok = False
        try:
            result = await server.call(tool, args, progress)
            ok = not result.is_error
        except ServerGone as e:
            raise ToolException(SERVER_GONE.format(name=server.spec.name, err=str(e))) from None
        except Exception as e:  # noqa: BLE001 - no tool failure may end the turn
            raise ToolException(server.spec.redact(f"{type(e).__name__}: {e}")) from None
        finally:
            if last:
                done, total, _ = last[0]
                self._emit(ToolProgress(name, done, total, state="done" if ok else "stopped"))
        text = server.spec.redact(result_text(result))
        over = oversize(result.meta)
        if over is not None:  # not read past the cap (oversize.py): the model reads why, the user one line
            notify("tool_result_too_big" if over["size"] else "tool_result_too_big_cut",
                   {"server": server.spec.name, "tool": tool.name, **over})
        if result.is_error:
            raise ToolException(text)
        return text

    async def authorize(self, name: str, args: dict, offered: BaseTool | None = None) -> Verdict | None:
        """May tool `name` run with `args`? None for a name that is not one of our MCP tools.
        `offered`: the tool the agent holds (its definition is the one the model read)."""
        meta = (offered.metadata or {}) if offered is not None else {}
        server = next((s for s in self.fleet.servers if s.spec.name == meta.get("mcp_server")), None)
        tool = meta.get("mcp_offered")
        if server is None or not isinstance(tool, types.Tool):
            if name not in self.owner:
                return None
            server, tool = self.owner[name]
        await self._up(server)
        if not server.live:
            return live_check.unreachable(server.spec.name, tool.name, server.error or server.state)
        live = self._live(server, tool.name) if server.state != OFF else None  # switched off: its tools are gone
        stale = live_check.check(server.spec.name, tool, live, args)
        if stale is not None or live is None:
            return stale
        hints = live.annotations
        call = CallInfo(ToolKey(server.spec.name, live.name), server.spec.where,
                        _read_only(live), frozenset(server.spec.always_allow), tool_print(tool_definition(live)))
        return await self.permissions.check(call, args, hints.destructive_hint if hints else None, server.spec.redact)

    async def _up(self, server: ServerConn) -> None:
        """A server whose tools were offered before it listed them: its start, waited for (within its
        start-up timeout, like a late tool's)."""
        if not server.live:
            await self.fleet.wait([server.spec.name])

    @staticmethod
    def _live(server: ServerConn, tool: str) -> types.Tool | None:
        return next((t for t in server.tools if t.name == tool), None) if server.live else None

    def tool_of(self, name: str) -> tuple[str, str]:
        """Function name -> (server, MCP tool name); ("?", name) for a name no longer offered."""
        if name not in self.owner:
            return "?", name
        server, tool = self.owner[name]
        return server.spec.name, tool.name

    def permission_servers(self) -> list[tuple[str, list[str], list[str]]]:
        """(server, alwaysAllow, read-only tools) for /permissions."""
        return [(s.spec.name, s.spec.always_allow,
                 [x.name for x in s.tools if _read_only(x)]) for s in self.fleet.servers]

    def _emit(self, event: ToolProgress) -> None:
        try:
            self.frontend.progress(event)
        except Exception:  # noqa: BLE001 - display problems never fail a tool call
            pass

    def tools_of(self, server: ServerConn) -> list[tuple[str, types.Tool]]:
        """(function name, MCP tool) of one server, for /tools."""
        return [(n, tool) for n, (s, tool) in self.owner.items() if s is server]


class _Client:
    """One server's side of its converted tools (adapter.ToolClient): each call goes through the hub."""

    def __init__(self, hub: ToolHub, conn: ServerConn) -> None:
        self.hub, self.conn, self.server = hub, conn, conn.spec.name

    async def call_tool(self, tool: types.Tool, arguments: dict[str, Any]) -> str:
        name = self.hub._names.get((self.server, tool.name), tool.name)  # as offered
        return await self.hub.invoke(name, arguments, self.conn, tool)


def _fn_name(name: str) -> str:
    """A function name every OpenAI-compatible endpoint accepts."""
    return _FN_NAME.sub("_", name).strip("_")[:64] or "tool"


def _read_only(tool: types.Tool) -> bool:
    hints = tool.annotations
    return bool(hints) and is_read_only(hints.read_only_hint, hints.destructive_hint)  # type: ignore[union-attr]
