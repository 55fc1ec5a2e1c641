"""When to ask a server for its lists again.

A 2026-07-28 server says how long a list stays fresh (`ttlMs`) and tells a `subscriptions/listen`
stream when one changes; a 2025 server sends `notifications/*/list_changed`. One `Listing` per
server connection keeps that state: the tools are listed again before the next turn once they
are stale (changed, or past their ttl while no stream is listening); the prompts and resources
listings are reused while fresh (catalog.py). Nothing here prints.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Literal

from mcp import types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.client.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged, listen

from client.engine.mcp import era

log = logging.getLogger(__name__)
PAGES = 100  # pages of one listing at most (a server whose cursor never ends)
RELISTEN = 30.0  # seconds before opening a listen stream again after one ended
CHANGED = {types.ToolListChangedNotification: "tools", types.PromptListChangedNotification: "prompts",
           types.ResourceListChangedNotification: "resources", ToolsListChanged: "tools",
           PromptsListChanged: "prompts", ResourcesListChanged: "resources"}  # what a message says changed


class Listing:
    def __init__(self) -> None:
        self.fresh_until = 0.0  # monotonic time the tool listing stops being fresh (a 2026 ttlMs; 0: at once)
        self.ttl_ms = 0  # the last tool listing's ttlMs and cacheScope (a 2025 server sends neither: 0, private)
        self.scope: Literal["public", "private"] = "private"
        self.stale = False  # the server said the tools changed
        self.listening = False  # a subscriptions/listen stream is open: changes are told, not polled
        self.lists: dict[str, tuple[float, list]] = {}  # "prompts"/"resources" -> (fresh until, items)

    async def tools(self, session: ClientSession, revision: era.Revision) -> list[types.Tool]:
        """Every page of the tool listing; remembers until when it is fresh."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        ttl_ms: int | None = None
        public = True
        for _ in range(PAGES):
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools.extend(page.tools)
            ttl_ms = page.ttl_ms if ttl_ms is None else min(ttl_ms, page.ttl_ms)
            public = public and page.cache_scope == "public"
            cursor = page.next_cursor
            if not cursor:
                break
        modern = revision.modern
        self.stale = False
        self.ttl_ms = (ttl_ms or 0) if modern else 0
        self.scope = "public" if modern and public else "private"
        self.fresh_until = time.monotonic() + (ttl_ms or 0) / 1000
        return tools

    def due(self, revision: era.Revision) -> bool:
        """List the tools again? When they changed; for a 2026 server also when the listing's ttl
        has passed and no stream would have said so."""
        if self.stale:
            return True
        return revision.modern and not self.listening and time.monotonic() >= self.fresh_until

    def cached(self, kind: str) -> list | None:
        fresh = self.lists.get(kind)
        return fresh[1] if fresh is not None and fresh[0] > time.monotonic() else None

    def keep(self, kind: str, items: list, ttl_ms: int) -> None:
        if ttl_ms:
            self.lists[kind] = (time.monotonic() + ttl_ms / 1000, items)

    def changed(self, kind: str) -> None:
        if kind == "tools":
            self.stale = True
        else:
            self.lists.pop(kind, None)

    async def watch(self, session: ClientSession, revision: era.Revision) -> None:
        """A 2026 server that says its lists change: a listen stream for the connection's life
        (the owner task cancels this). While none is open (the server or a proxy ended it) the
        ttl rule applies; a stream that ended is opened again after RELISTEN, and the tools
        are listed again then (no event is replayed)."""
        caps = session.server_capabilities
        kinds = {k: bool(getattr(getattr(caps, k, None), "list_changed", False)) for k in ("tools", "prompts", "resources")}
        if not revision.modern or not any(kinds.values()):
            return
        while True:
            try:
                async with listen(session, tools_list_changed=kinds["tools"], prompts_list_changed=kinds["prompts"],
                                  resources_list_changed=kinds["resources"]) as stream:
                    self.listening = True
                    async for event in stream:
                        await self.on_message(event)
            except MCPError as e:
                if e.code == types.METHOD_NOT_FOUND:
                    return  # it does not serve subscriptions/listen: the ttl rule it is
                log.debug("subscriptions/listen ended: %s", e)
            except Exception as e:  # noqa: BLE001 - a server or proxy that does not keep streams open
                log.debug("subscriptions/listen ended: %s", e)
            finally:
                if self.listening:
                    self.stale = True  # what changed while no stream was open is not replayed
                self.listening = False
            await asyncio.sleep(RELISTEN)

    async def on_message(self, message: Any) -> None:
        """A 2025 server's list_changed notifications (the SDK's message_handler), a listen stream's events."""
        kind = CHANGED.get(type(message))
        if kind is not None:
            self.changed(kind)
