"""Memory passes off the critical path: the user never waits for long-term memory.

A pass (MemoryManager.update: one extraction request, local scoring, a few writes) runs as a
background task while the user reads: after an answer whose turn said something about the
user, and when a thread ends. Passes run one at a time, in order, each thread once in the queue.
At exit the running pass is cancelled: the store's memory turn of a thread moves only when its
pass has written everything, so cancelled or never-started work stays "pending" (turns after the
memory turn) and is queued again at the next start (`resume`), to run from the next idle moment
(`kick`: after an answer), never on the exit path. Until a pending thread is folded, new threads
still get its user's statements (MemoryManager.section).

A pending thread another client has open is left to that client (it folds its own at its end).
A pass keeps its thread claimed until it ends, also when the session opens another thread
meanwhile (Threads.open leaves the claim to it: `folding`), and a rewind of the thread waits for
it (`paused`): the turns it read and the watermark it writes stay those of the thread.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

from client.core.faults import one_line
from client.engine.memory.manager import MemoryManager, MemoryUpdate, backlog

EXIT_GRACE = 0.25  # seconds an exit gives the passes under way: one that needs no model call ends


@dataclass(frozen=True)
class MemoryStatus:
    """What the UI may say in one line: a pass running, passes queued, deferred threads."""
    running: bool
    queued: int
    finished: list[tuple[str, MemoryUpdate]] = field(default_factory=list)  # since the last take


class MemoryWorker:
    def __init__(self, manager: MemoryManager, *, model: Callable[[], Any] | None = None,
                 current: Callable[[], str] = lambda: "") -> None:
        """`model()`: the model a background pass extracts with, asked at each pass (e.g. the
        niced summary server once it is up; None: the manager's). `current()`: the thread the
        session holds (already locked by it)."""
        self.manager = manager
        self._model = model or (lambda: None)
        self._current = current
        self._queue: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self._running: str | None = None
        self._finished: list[tuple[str, MemoryUpdate]] = []
        self._closed = False
        self._held: dict[str, asyncio.Lock] = {}  # per thread: taken by its pass, or by `paused`
        self._cheap: set[str] = set()  # queued threads past the backlog's bound: the request-free pass

    # -- the API ---------------------------------------------------------------------------
    def schedule(self, thread_id: str, *, start: bool = True) -> None:
        """Fold the thread's unfolded turns in the background (returns at once). `start` False:
        only queue it, for the next idle moment (kick)."""
        if self._closed or not thread_id:
            return
        if thread_id not in self._queue:
            self._queue.append(thread_id)
        if start:
            self.kick()

    def kick(self) -> None:
        """Start the queued passes (an idle moment: the user is reading an answer)."""
        if not self._closed and self._queue and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run(), name="memory-pass")

    async def resume(self, *, start: bool = True) -> list[str]:
        """Queue this user's pending threads (deferred by an earlier exit), oldest first; those past
        the backlog's bound get the request-free pass (manager.backlog). Returns them."""
        pending = await self.manager.pending()
        full, cheap = backlog(pending)
        self._cheap.update(cheap)
        for tid in [*cheap, *full]:
            self.schedule(tid, start=start)
        return pending

    async def pending(self) -> list[str]:
        """Threads whose turns are not all in memory yet: in the store, or queued here."""
        stored = await self.manager.pending()
        return stored + [t for t in self._queue if t not in stored]

    def folding(self, thread_id: str) -> bool:
        """Is a pass of the thread under way (or about to start)? It keeps the thread claimed."""
        return self._running == thread_id

    @contextlib.asynccontextmanager
    async def paused(self, thread_id: str) -> AsyncIterator[None]:
        """No pass of the thread runs during the block (a rewind: it changes the turns a pass reads
        and the watermark it writes). One under way is waited for, its writes included; one queued
        starts after the block, on the thread as it is then."""
        async with self._lock(thread_id):
            yield

    def _lock(self, thread_id: str) -> asyncio.Lock:
        return self._held.setdefault(thread_id, asyncio.Lock())

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait (at most `timeout` seconds) for the queued passes; True when none is left.
        A timeout leaves them running."""
        self.kick()
        task = self._task
        if task is None or task.done():
            return True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), timeout)
        return task.done()

    def status(self) -> MemoryStatus:
        finished, self._finished = self._finished, []
        return MemoryStatus(self._running is not None, len(self._queue), finished)

    async def close(self, grace: float = EXIT_GRACE) -> int:
        """Stop (exit): passes that end within `grace` seconds (no model call to wait for) end;
        then the running one is cancelled, its writes (if under way) completed. Returns how many
        of this user's threads are left for the next start."""
        self._closed = True
        if grace > 0:
            await self.drain(grace)
        self._queue.clear()
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise  # close() itself is being cancelled, not only the pass
            except Exception:  # noqa: BLE001 - a pass that failed while stopping: nothing to report
                pass
        try:
            return len(await self.manager.pending())
        except Exception:  # noqa: BLE001 - the store is closing or broken: nothing to report
            return 0

    # -- the task --------------------------------------------------------------------------
    async def _run(self) -> None:
        while self._queue:
            tid = self._queue.pop(0)
            self._running = tid
            try:
                async with self._lock(tid):
                    up = await self._fold(tid)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - memory is best effort; the chat is not
                up = MemoryUpdate(error=one_line(e))
            finally:
                self._running = None
            if up is not None:
                self._finished.append((tid, up))

    async def _fold(self, thread_id: str) -> MemoryUpdate | None:
        store = self.manager.store
        if not await store.lock_thread(thread_id):  # the session's own thread is held already
            return None  # open in another client: it folds its own turns
        try:
            return await self.manager.update(thread_id, self._model(), cheap=thread_id in self._cheap)
        finally:
            self._cheap.discard(thread_id)
            # not the session's thread (any more: it may have opened another meanwhile, which left
            # this claim to the pass): let it go; the session's own stays
            if thread_id != self._current():
                await store.unlock_thread(thread_id)
