"""One way to put a chat together: model, agent, summarizer, memory and session, for the
command line and the benches alike (so a bench measures what users run)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from client.core.config import Settings
from client.engine.store import Store

if TYPE_CHECKING:
    from client.engine.session import ChatSession


def build_session(settings: Settings, store: Store, tools: list, *, gate: Any = None) -> ChatSession:
    """A ChatSession over an open store and connected tools (both owned by the caller);
    long-term memory when settings.memory is on."""
    from client.engine.models import build_stack
    from client.engine.session import ChatSession

    agent, mw, summarizer = build_stack(settings, tools, store.checkpointer, gate)
    memory = None
    if settings.memory:
        from client.engine.memory.manager import MemoryManager
        from client.engine.providers import PROVIDERS

        provider = PROVIDERS.get(settings.provider)
        source = settings.memory_source or (provider.memory_source if provider else "both")
        memory = MemoryManager(store, summarizer, settings.user, threshold=settings.memory_threshold,
                               top_k=settings.memory_top_k, budget_tokens=settings.memory_budget,
                               scorer=settings.memory_scorer, source=source)  # type: ignore[arg-type]
    return ChatSession(settings, store, agent, mw, summarizer, memory)
