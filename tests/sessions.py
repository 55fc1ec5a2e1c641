"""ChatSession on a real SQLite file, for tests that drive turns without the CLI."""

from __future__ import annotations

from client.core.config import Settings
from client.engine.memory.manager import MemoryManager
from client.engine.models import build_stack
from client.engine.session import ChatSession, TurnDone
from client.engine.store import Store, open_store


class Sessions:
    """Opens sessions; `close()` closes every store they opened."""

    def __init__(self) -> None:
        self.stores: list[Store] = []

    async def open(self, settings: Settings, *, memory_user: str | None = None) -> ChatSession:
        store = await open_store(settings.db)
        self.stores.append(store)
        agent, mw, summarizer = build_stack(settings, [], store.checkpointer)
        mem = MemoryManager(store, summarizer, memory_user) if memory_user else None
        return ChatSession(settings, store, agent, mw, summarizer, mem)

    async def close(self) -> None:
        for store in self.stores:
            await store.close()


async def run_turn(session: ChatSession, text: str) -> TurnDone:
    """One turn to its end; fails unless it ended with TurnDone."""
    events = [ev async for ev in session.turn(text)]
    assert isinstance(events[-1], TurnDone), events
    return events[-1]
