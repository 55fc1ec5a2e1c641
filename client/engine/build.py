"""One way to put a chat together: the model stack, memory and session, for the command line
and the benches alike (so a bench measures what users run)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from client.core.config import Settings
from client.engine.store import Store

if TYPE_CHECKING:
    from client.engine.late_tools import LateTools
    from client.engine.mcp.gate import PermissionGate
    from client.engine.models import Models
    from client.engine.providers import Runtime
    from client.engine.session import ChatSession


def build_session(settings: Settings, store: Store, tools: list, *, runtime: Runtime | None = None,
                  models: Models | None = None, gate: PermissionGate | None = None, late: LateTools | None = None) -> ChatSession:
    """A ChatSession over an open store and connected tools (both owned by the caller);
    long-term memory when settings.memory is on. `models`: the session's model owner when it
    already exists (the command line builds it before the MCP servers, for sampling), else one
    is built from `settings` and `runtime`. `gate`, `late`: the permission gate and the lookup
    of a tool a starting server brings (client/engine/late_tools.py)."""
    from client.engine.models import Models
    from client.engine.session import ChatSession

    models = models or Models(settings, runtime)

    async def history(thread_id: str) -> list:  # the tools a thread called (client/engine/tool_search.py)
        return [m for _, m in await store.transcript(thread_id)]

    models.attach(tools, store.checkpointer, gate, history, late)
    memory = memory_manager(settings, store, models) if settings.memory else None
    # a person at a terminal reads while memory is folded; a piped batch folds each thread at its
    # end; -p leaves right after its one answer (client/engine/memory/session.py)
    mode = "defer" if settings.prompt is not None else "background" if settings.interactive else "foreground"
    return ChatSession(models, store, memory, memory_mode=mode)


def memory_manager(settings: Settings, store: Store, models: Models) -> Any:
    """The user's long-term memory as the settings have it (also the detached `mcp-chat memory fold`)."""
    from client.engine.memory.manager import MemoryManager

    source = settings.memory_source or models.current.provider.memory_source
    return MemoryManager(store, models, settings.user, threshold=settings.memory_threshold,
                         top_k=settings.memory_top_k, budget_tokens=settings.memory_budget,
                         scorer=settings.memory_scorer, source=source)  # type: ignore[arg-type]
