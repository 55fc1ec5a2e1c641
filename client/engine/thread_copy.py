"""A minimal fork: a new thread holding a copy of another's transcript and working context.

Stands in until the fork of issue 40 (`mcp-chat fork`, `/fork`) is on main; bench/locomo.py
forks its prepared thread once per question through `copy_thread` only, so switching to that
API is a one-line change there.
"""

from __future__ import annotations

import uuid

from langchain_core.messages import BaseMessage

from client.engine.importer import write_context
from client.engine.store import Store, StoreError


async def copy_thread(store: Store, source: str, working: list[BaseMessage], *, user: str,
                      new_id: str | None = None) -> str:
    """A new thread (its id) with `source`'s transcript and `working` as its working context
    (the caller reads it from the source's checkpoint: `Threads.state`)."""
    tid = new_id or uuid.uuid4().hex
    if await store.get_thread(tid) is not None:
        raise StoreError("thread_exists", id=tid)
    rows = await store.transcript(source)
    await store.create_thread(tid, user)
    turns = await store.append(tid, [m for _, m in rows])
    info = await store.get_thread(source)
    if info is not None and info.title:
        await store.set_title(tid, info.title)
    await write_context(store, tid, working)
    await store.set_memory_turn(tid, max(turns, await store.memory_turn(source)))
    return tid
