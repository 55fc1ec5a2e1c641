"""A chat session's long-term memory, off the critical path.

The session (client/engine/session.py) calls it at its moments: a new thread's system prompt
(`section`), a turn's end (`after_turn`), a thread's end (`end`), the session's start and exit
(`resume`, `close`); the UI reads `status` and, for /memory, waits with `settled`. The passes
themselves run in the background (background.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Literal

from client.core.memory.statements import statements_of
from client.engine.memory.background import MemoryStatus, MemoryWorker
from client.engine.memory.manager import MemoryManager

if TYPE_CHECKING:
    from client.engine.models import Models

MEMORY_LIST_WAIT = 30.0  # /memory waits this long at most for the memory passes under way


MemoryMode = Literal["background", "foreground", "defer"]
FOREGROUND_WAIT = 300.0  # a batch run's thread end waits at most this long for its passes


class SessionMemory:
    def __init__(self, manager: MemoryManager, models: Models, current: Callable[[], str], *,
                 mode: MemoryMode = "background") -> None:
        """Passes run on the niced summary server when there is one (`models`); `current()`: the
        session's thread. `mode`, decided by how the session is used:
        - "background" (a person at a terminal): passes run while the user reads, never waited for;
        - "foreground" (a piped batch): a thread's end folds it before going on, so a script's
          memory is complete and its output the same on every run (nobody reads in between);
        - "defer" (-p, which leaves right after its one answer): a pass that needs a model
          request is left to a detached job (`left`: the thread; client/engine/memory/fold.py),
          or the next session; one that needs none runs at the thread's end."""
        self.manager = manager
        self.mode = mode
        self.current = current
        self.worker = MemoryWorker(manager, model=models.background_summarizer, current=current)
        self.left = ""  # -p: the thread whose pass needs a model request, left to a detached job

    async def section(self) -> str:
        """The [장기 기억] section of a new thread's system prompt ("" when there is nothing)."""
        return await self.manager.section()

    async def end(self, thread_id: str) -> MemoryStatus:
        """The thread ends: its pass starts in the background (a batch waits for it; -p only
        folds what needs no request, at once, and leaves the rest: `left`)."""
        if thread_id and self.mode == "defer" and await self.manager.needs_model(thread_id):
            self.left = thread_id
        elif thread_id:
            self.worker.schedule(thread_id)
            if self.mode != "background":
                await self.worker.drain(FOREGROUND_WAIT)
        return self.worker.status()

    def after_turn(self, thread_id: str, text: str) -> None:
        """An answer was shown: fold the user's words in while they read, and what was queued."""
        if self.mode != "background":
            return  # a batch folds at the thread's end; -p leaves at once
        if statements_of(text):  # the user said something about themselves
            self.worker.schedule(thread_id)
        self.worker.kick()  # and what an earlier exit left pending

    async def resume(self) -> list[str]:
        """At start: queue what earlier sessions left pending, folded from the first answer on."""
        return await self.worker.resume(start=False) if self.mode != "defer" else []

    def status(self) -> MemoryStatus:
        """Passes running or queued, and those finished since the last call (to report)."""
        return self.worker.status()

    async def settled(self, wait: float = MEMORY_LIST_WAIT) -> bool:
        """/memory: the user asked to see it, so the current thread is folded now and the passes
        under way may finish first (at most `wait` seconds); True when none is left."""
        if self.mode != "defer" or not await self.manager.needs_model(self.current()):
            self.worker.schedule(self.current(), start=False)
        return await self.worker.drain(wait)

    async def recheck(self) -> int:
        """At start: items an older version kept that the current rules would not are dropped, once."""
        return await self.manager.recheck()

    async def close(self) -> int:
        """Exit: memory work stops at once; how many threads are left for the next start."""
        return await self.worker.close()
