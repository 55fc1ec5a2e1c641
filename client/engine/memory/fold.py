"""The memory passes a `-p` run leaves, done in a process of their own (`mcp-chat memory fold`).

A `-p` run answers and leaves at once; a pass that needs a model request (extraction) is not
waited for. The run starts this job detached (client/ui/memory_command.py) and exits; the job
takes the user's pending threads, oldest first within the backlog's bound (manager.backlog:
older ones get the request-free pass), each under the thread's claim. The thread the run that
started it was on is waited for until that run lets it go (its exit); a thread open in another
client is left to it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from client.engine.memory.manager import MemoryManager, MemoryUpdate, backlog
from client.engine.store import Claims

CLAIM_WAIT = 60.0  # seconds the job waits for the run that started it to let its thread go
CLAIM_POLL = 0.1


async def claim(store: Claims, thread_id: str, wait: float) -> bool:
    """The thread's claim, waiting up to `wait` seconds while another process holds it."""
    end = time.monotonic() + wait
    while not await store.lock_thread(thread_id):
        if time.monotonic() >= end:
            return False
        await asyncio.sleep(CLAIM_POLL)
    return True


async def fold_pending(manager: MemoryManager, model: Any = None, *, after: str = "",
                       wait: float = CLAIM_WAIT) -> list[tuple[str, MemoryUpdate]]:
    """Fold every pending thread of the manager's user (`after`: the thread of the run that started
    the job, waited for). Returns what each pass did."""
    await manager.recheck()
    pending = await manager.pending()
    if after and after not in pending and await manager.store.get_thread(after) is not None:
        pending.append(after)  # its last turn may land after the list was read: it is waited for anyway
    full, cheap = backlog(pending)
    done: list[tuple[str, MemoryUpdate]] = []
    for tid in [*cheap, *full]:
        if not await claim(manager.store, tid, wait if tid == after else 0):
            continue  # open in another client: it folds its own turns
        try:
            up = await manager.update(tid, model, cheap=tid in cheap)
        finally:
            await manager.store.unlock_thread(tid)
        if up is not None:
            done.append((tid, up))
    return done
