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

    async def open(self, settings: Settings, *, memory_user: str | None = None) -> ChatSession:
        """As the client builds it (no tools); long-term memory for `memory_user` when given."""
        store = await open_store(settings.db)
        self.stores.append(store)
        settings = dataclasses.replace(settings, memory=memory_user is not None, user=memory_user or settings.user)
        return build_session(settings, store, [])

    async def close(self) -> None:
        for store in self.stores:
            await store.close()


async def run_turn(session: ChatSession, text: str) -> TurnDone:
    """One turn to its end; fails unless it ended with TurnDone."""
    events = [ev async for ev in session.turn(text)]
    assert isinstance(events[-1], TurnDone), events
    return events[-1]
