"""ChatSession on a real SQLite file, for tests that drive turns without the CLI."""

from __future__ import annotations

import dataclasses

from client.core.config import Settings
from client.engine.build import build_session
from client.engine.events import TurnDone
from client.engine.session import ChatSession
from client.engine.store import Store, open_store


class Sessions:
    """Opens sessions; `close()` closes every store they opened."""

    def __init__(self) -> None:
        self.stores: list[Store] = []

    async def open(self, settings: Settings, *, memory_user: str | None = None, tools: list | None = None) -> ChatSession:
        """As the client builds it (no tools unless given); long-term memory for `memory_user` when given."""
        store = await open_store(settings.db)
        self.stores.append(store)
        settings = dataclasses.replace(settings, memory=memory_user is not None, user=memory_user or settings.user)
        return build_session(settings, store, list(tools or []))

    async def close(self) -> None:
        for store in self.stores:
            await store.close()


async def run_turn(session: ChatSession, text: str) -> TurnDone:
    """One turn to its end; fails unless it ended with TurnDone."""
    events = [ev async for ev in session.turn(text)]
    assert isinstance(events[-1], TurnDone), events
    return events[-1]


def search_tool():  # -> a LangChain tool
    """A local `web_search` tool (no MCP server): the recording stub calls it on `[tool:web_search {...}]`,
    so turns with tool pairs run in-process. Requests that carry tools are `llm.chat_requests()`."""
    from langchain_core.tools import tool

    @tool
    def web_search(query: str) -> str:
        """Search the web."""
        return f"검색 결과: {query}"

    return web_search
