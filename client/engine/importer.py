"""Store an imported conversation as a thread, the way the client stores turns.

The transcript gets every message (store.append, masked as always); the working context is
written to the checkpointer under the same graph state the agent reads (`write_context`), from
the last summary pair on, so the thread's next turn sees the conversation as the context policy
decides: trimmed, summarized by the same rolling summaries a user's thread gets, or whole.
The thread's system message is the importing user's prompt (plus who is who, for two people);
a file's own system messages are never imported. Imported turns are not the importing user's
words: they are marked as already folded into long-term memory, so no memory pass reads them.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol, Sequence

from langchain_core.messages import BaseMessage, RemoveMessage, SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from client.core.context.policy import hydrate
from client.core.context.turns import with_ids
from client.core.transcripts import Imported
from client.core.transcripts.model import participants_line
from client.engine.forks import ForkStore, delete_thread
from client.engine.store import MemoryRows, StoreError, ThreadLog


class ImportStore(ForkStore, MemoryRows, Protocol):
    """What an import uses of a store: a new thread's rows, its context, its memory watermark."""


def _graph(checkpointer: Any) -> Any:
    """A graph with the agent's message state and a node of the agent's model node's name: what it
    writes is the state the agent reads (client/engine/threads.py `replace` writes the same)."""
    g = StateGraph(MessagesState)
    g.add_node("model", lambda state: {})
    g.add_edge(START, "model")
    g.add_edge("model", END)
    return g.compile(checkpointer=checkpointer)


async def write_context(store: ThreadLog, thread_id: str, messages: Sequence[BaseMessage]) -> None:
    """Make `messages` the thread's working context (replaced, not merged)."""
    config = {"configurable": {"thread_id": thread_id}}
    await _graph(store.checkpointer).aupdate_state(
        config, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *messages]}, as_node="model")
    await store.prune_checkpoints(thread_id)


def system_text(conv: Imported, system_prompt: str) -> str:
    if conv.participants is None:
        return system_prompt
    return f"{system_prompt}\n\n{participants_line(conv.participants, conv.lang)}"


async def import_conversation(store: ImportStore, conv: Imported, *, user: str, system_prompt: str,
                              thread_id: str | None = None) -> str:
    """A new thread holding `conv`; its id. StoreError("thread_exists") when `thread_id` is taken."""
    tid = thread_id or uuid.uuid4().hex
    if await store.get_thread(tid) is not None:
        raise StoreError("thread_exists", id=tid)
    if not await store.lock_thread(tid):
        raise StoreError("thread_busy", id=tid)
    try:
        msgs = with_ids([SystemMessage(content=system_text(conv, system_prompt)),
                         *(m.model_copy() for m in conv.messages)])
        await store.create_thread(tid, user)
        turns = await store.append(tid, msgs)
        if conv.title:
            await store.set_title(tid, conv.title)
        await write_context(store, tid, hydrate(msgs))
        await store.set_memory_turn(tid, turns)  # someone else's words: never read into memory
    except BaseException:
        await _undo(store, tid)
        raise
    finally:
        await store.unlock_thread(tid)
    return tid


async def import_all(store: ImportStore, convs: Sequence[Imported], *, user: str, system_prompt: str) -> list[str]:
    """Every conversation, or none: a failure removes the threads made so far."""
    made: list[str] = []
    try:
        for conv in convs:
            made.append(await import_conversation(store, conv, user=user, system_prompt=system_prompt))
    except BaseException:
        for tid in made:
            await _undo(store, tid)
        raise
    return made


async def _undo(store: ImportStore, tid: str) -> None:
    try:
        await delete_thread(store, tid)
    except Exception:  # noqa: BLE001 - never hide the original error
        pass
