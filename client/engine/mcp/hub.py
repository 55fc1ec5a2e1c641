"""Tools from several MCP servers at once, one long-lived session per server.

Unlike `MultiServerMCPClient.get_tools()`, a server that fails to start or
dies takes only its own tools with it. Names that collide across servers are
prefixed with the server name. Each tool call goes through our own coroutine:
results become text (results.py), failures become error tool results (the
turn completes), a dead server is reconnected on its next call, and progress
notifications reach the frontend the hub was built with (`Frontend.progress`,
client/engine/frontend.py). Nothing here is translated: the ui
words progress and the /tools, /servers listings (client/ui/mcp_view.py), and what the
model reads about a failure is English whatever `--lang` says.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from typing import IO, Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from mcp import types

from client.core.tool_schema import for_model
from client.core.toolprint import tool_print
from client.engine.events import notify
from client.engine.frontend import Frontend, ToolProgress
from client.engine.mcp.permissions import CallInfo, Permissions, ToolKey, Verdict, is_read_only
from client.engine.mcp.features import ClientFeatures
from client.engine.mcp.oversize import oversize
from client.engine.mcp.results import result_text
from client.engine.mcp.server import ServerConn, ServerGone
from client.engine.mcp.specs import ServerSpec, bundled_spec
from client.engine.mcp.starting import OFF, ServerFleet

# what the model reads when a server is gone: fixed English, the same under every --lang
SERVER_GONE = "MCP server '{name}' is unreachable ({err}). It will be reconnected on the next call."


__all__ = ["ToolHub", "ToolProgress"]  # ToolProgress: client/engine/frontend.py, re-exported for the ui
_FN_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class ToolHub(ServerFleet):
    def __init__(self, specs: list[ServerSpec] | None = None, debug: bool = False,
                 permissions: Permissions | None = None, features: ClientFeatures | None = None,
                 frontend: Frontend | None = None, errlog: IO[str] | None = None) -> None:
        """`frontend`: where tools' progress goes (default: nowhere); `errlog`: where stdio servers'
        stderr goes (the ui's own stream with --debug; None: a private file, its last line in errors).
        The servers start with `start()` (background) or `connect()` (waited for): starting.py."""
        self.permissions = permissions or Permissions()  # who may run what (permissions.py)
        self.frontend = frontend or Frontend()
        super().__init__(specs if specs is not None else [bundled_spec()], features, errlog)
        if not debug:  # the SDK logs tracebacks (e.g. a server printing non-JSON); we report one line
            sdk_log = logging.getLogger("mcp")
            if not any(isinstance(h, logging.NullHandler) for h in sdk_log.handlers):
                sdk_log.addHandler(logging.NullHandler())
            sdk_log.propagate = False
        self.tools: list[BaseTool] = []
        self.owner: dict[str, tuple[ServerConn, types.Tool]] = {}  # tool name -> (server, MCP tool)
        self._names: dict[tuple[str, str], str] = {}  # (server, MCP tool) -> its function name, kept once given

    async def refresh(self) -> bool:
        """Before a turn: the servers whose listing is stale list their tools again (listing.py).
        True when the tool set changed: the agent is then rebuilt with `tools`."""
        changed = any(await asyncio.gather(*(s.refresh_tools() for s in self.servers)))
        if changed:
            self._build_tools()
        return changed

    async def late_tool(self, name: str) -> BaseTool | None:
        """The tool `name` when the model asks for one the agent was not built with: a server still
        starting may bring it, so its start is waited for (each within its start-up timeout).
        None when no server is starting or none brought it."""
        if name not in self.owner and self.starting():
            await self.wait()
        return next((t for t in self.tools if t.name == name), None)

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

    # -- tools -----------------------------------------------------------------
    def _names_fresh(self) -> None:
        self._names.clear()

    def _offered(self) -> list[ServerConn]:
        """Whose tools are offered: the servers in the order they came up (a dead one's stay: it is
        reconnected on its next call), then any connected one not yet in it (tests build by hand)."""
        return [s for s in self.order if s.state != OFF] + \
            [s for s in self.servers if s.state == "connected" and s not in self.order]

    def _build_tools(self) -> None:
        """The tool list: a name once given stays (a server that comes up later never renames the
        tools already offered); names that collide are prefixed with the server's name."""
        pairs = [(s, tool) for s in self._offered() for tool in s.tools]
        counts = Counter(_fn_name(tool.name) for _, tool in pairs)
        kept = {self._names[k] for k in ((s.spec.name, tool.name) for s, tool in pairs) if k in self._names}
        self.tools, self.owner = [], {}
        for server, tool in pairs:
            key = (server.spec.name, tool.name)
            name = self._names.get(key)
            if name is None or name in self.owner:
                name = _fn_name(tool.name)
                if counts[name] > 1 or name in kept:
                    name = _fn_name(f"{server.spec.name}_{tool.name}")
                base, n = name, 2
                while name in self.owner or name in kept:
                    name, n = f"{base[:60]}_{n}", n + 1
                self._names[key] = name
            self.owner[name] = (server, tool)
            self.tools.append(self._lc_tool(name, server, tool))
        self.version += 1

    def _lc_tool(self, name: str, server: ServerConn, tool: types.Tool) -> BaseTool:
        schema = for_model(tool.input_schema)  # the server's own schema, safe to show a model

        async def run(**kwargs: Any) -> str:
            return await self.invoke(name, kwargs)

        return StructuredTool(
            name=name,
            description=(tool.description or tool.title or tool.name).strip(),
            args_schema=schema,
            coroutine=run,
            handle_tool_error=True,  # ToolException -> error tool message, the turn goes on
            metadata={"mcp_server": server.spec.name, "mcp_tool": tool.name},
        )

    async def invoke(self, name: str, args: dict) -> str:
        """Call tool `name`; text for the model, or ToolException with the error text."""
        if name not in self.owner:  # the server took it away since the agent was built
            raise ToolException(f"MCP tool '{name}' is no longer offered.")
        server, tool = self.owner[name]
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

    async def authorize(self, name: str, args: dict) -> Verdict | None:
        """May tool `name` run with `args`? None for a name that is not one of our MCP tools."""
        if name not in self.owner:
            return None
        server, tool = self.owner[name]
        tool = next((t for t in server.tools if t.name == tool.name), tool)  # as listed since a reconnect
        hints = tool.annotations
        call = CallInfo(ToolKey(server.spec.name, tool.name), server.spec.where,
                        _read_only(tool), frozenset(server.spec.always_allow), tool_print(tool_definition(tool)))
        return await self.permissions.check(call, args, hints.destructive_hint if hints else None, server.spec.redact)

    def tool_of(self, name: str) -> tuple[str, str]:
        """Function name -> (server, MCP tool name)."""
        server, tool = self.owner[name]
        return server.spec.name, tool.name

    def permission_servers(self) -> list[tuple[str, list[str], list[str]]]:
        """(server, alwaysAllow, read-only tools) for /permissions."""
        return [(s.spec.name, s.spec.always_allow,
                 [x.name for x in s.tools if _read_only(x)]) for s in self.servers]

    def _emit(self, event: ToolProgress) -> None:
        try:
            self.frontend.progress(event)
        except Exception:  # noqa: BLE001 - display problems never fail a tool call
            pass

    def tools_of(self, server: ServerConn) -> list[tuple[str, types.Tool]]:
        """(function name, MCP tool) of one server, for /tools."""
        return [(n, tool) for n, (s, tool) in self.owner.items() if s is server]


def _fn_name(name: str) -> str:
    """A function name every OpenAI-compatible endpoint accepts."""
    return _FN_NAME.sub("_", name).strip("_")[:64] or "tool"


def tool_definition(tool: types.Tool) -> dict[str, Any]:
    """What an approval is bound to, as plain data (client/core/toolprint.py): the SDK's field
    names stop here."""
    hints = tool.annotations
    # by_alias: the wire names (readOnlyHint, ...), as SDK 1.x dumped them, so approvals saved before stay bound
    return {"description": tool.description, "title": tool.title, "input_schema": tool.input_schema,
            "annotations": hints.model_dump(mode="json", by_alias=True, exclude_none=True) if hints else {}}


def _read_only(tool: types.Tool) -> bool:
    hints = tool.annotations
    return bool(hints) and is_read_only(hints.read_only_hint, hints.destructive_hint)  # type: ignore[union-attr]
