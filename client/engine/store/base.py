"""One storage interface; one file per backend.

The checkpointer holds only the working context of a thread (what the model
may still see). The transcript here holds every message ever exchanged, in
order, so nothing trimmed or summarized away is lost.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from langchain_core.messages import BaseMessage
from langgraph.checkpoint.base import BaseCheckpointSaver

from client.core.memory.policy import Bullet


class StoreError(Exception):
    """An expected storage failure with a user-facing message key."""

    def __init__(self, key: str, **fmt: object) -> None:
        super().__init__(key)
        self.key = key
        self.fmt = fmt


@dataclass
class ThreadInfo:
    thread_id: str
    user_name: str
    title: str
    turns: int
    created_at: float
    updated_at: float
    parent_id: str = ""  # the thread its first parent_turn turns came from ("" for none)
    parent_turn: int = 0
    kind: str = ""  # "fork" (mcp-chat fork, /fork, -r --fork) | "rewind" (what /rewind took back) | ""


@dataclass(frozen=True)
class ForkRow:
    """A new thread made of `source`'s transcript up to turn `upto`, owned by `owner` (client/engine/forks.py
    decides the owner, lineage and memory watermark; the store copies)."""

    source: str
    target: str
    upto: int
    owner: str  # the user who made it (a fork), or the source's owner (what a rewind takes back)
    kind: str = "fork"
    parent_turn: int | None = None  # default: upto
    memory_turn: int | None = None  # turns already folded into memory, by the source; default: upto
    updated_at: float | None = None  # default: now


@dataclass
class TurnUsage:
    turn: int
    input_tokens: int | None
    output_tokens: int | None
    estimated_tokens: int | None


class Store(ABC):
    checkpointer: BaseCheckpointSaver

    @abstractmethod
    async def setup(self) -> None:
        """Create or upgrade every table (idempotent)."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def get_thread(self, thread_id: str) -> ThreadInfo | None: ...

    @abstractmethod
    async def create_thread(self, thread_id: str, user_name: str) -> ThreadInfo: ...

    @abstractmethod
    async def list_threads(self) -> list[ThreadInfo]:
        """The threads that have turns, most recently active first (an empty one is never listed)."""

    @abstractmethod
    async def set_title(self, thread_id: str, title: str) -> None: ...

    @abstractmethod
    async def known_ids(self, thread_id: str, ids: Sequence[str]) -> set[str]:
        """Which of these message ids the transcript already holds."""

    @abstractmethod
    async def append(self, thread_id: str, messages: Sequence[BaseMessage]) -> int:
        """Append messages to the transcript; returns the thread's turn count after."""

    @abstractmethod
    async def transcript(self, thread_id: str) -> list[tuple[int, BaseMessage]]:
        """Every stored message as (turn, message), in order."""

    @abstractmethod
    async def record_usage(self, thread_id: str, usage: TurnUsage) -> None: ...

    @abstractmethod
    async def usage(self, thread_id: str) -> list[TurnUsage]: ...

    @abstractmethod
    async def prune_checkpoints(self, thread_id: str) -> int:
        """Drop all but the latest checkpoint of a thread; returns rows removed."""

    @abstractmethod
    async def delete_thread(self, thread_id: str) -> bool:
        """Remove every row of the thread from every table, its memory included: except memory items
        that a fork of it still holds the turns of, which pass to that fork, once (client/core/forks.py
        `heirs`); its forks then point at its own parent. Raises StoreError("thread_busy") when another
        client has the thread open."""

    async def vacuum(self) -> None:
        """Give the space of deleted rows back now (run after `delete`); a no-op where the
        database server reclaims it on its own (Postgres autovacuum)."""

    # -- one client per thread -------------------------------------------------
    async def lock_thread(self, thread_id: str) -> bool:
        """Claim the thread for this store until unlock_thread() or close(); False
        when another client holds it (the caller refuses, never interleaves).
        Re-claiming a thread this store holds returns True. Held locks die with
        the process (Postgres: advisory lock on a session connection; SQLite:
        a byte-range lock on `<db>-lock`)."""
        return True

    async def unlock_thread(self, thread_id: str) -> None:
        """Release a claim taken by lock_thread (no-op when not held)."""

    def holds_thread(self, thread_id: str) -> bool:
        """Whether this store has claimed the thread (lock_thread) and not released it."""
        return False

    async def still_holds(self, thread_id: str) -> bool:
        """Before a turn writes: is the claim still ours? A file lock dies only with the process
        (True); a Postgres advisory lock dies with its connection, so a lost connection is taken
        again, and False when another client got the thread meanwhile."""
        return True

    # -- fork and rewind (client/engine/forks.py) -------------------------------
    @abstractmethod
    async def copy_thread(self, fork: ForkRow) -> ThreadInfo:
        """In one transaction: the target's thread row (its owner, lineage, memory watermark, the source's
        title) and copies of the source's transcript and usage rows of turns <= upto. Raises
        StoreError("no_thread") for a missing source, StoreError("thread_exists") for a taken target."""

    async def copy_checkpoint(self, source: str, target: str) -> bool:
        """The source's latest checkpoint (its working context, exactly) and its pending writes,
        written as the target's; False when the source has none."""
        cp = self.checkpointer
        tup = await cp.aget_tuple({"configurable": {"thread_id": source, "checkpoint_ns": ""}})
        if tup is None:
            return False
        config: Any = {"configurable": {"thread_id": target, "checkpoint_ns": ""}}
        saved = await cp.aput(config, tup.checkpoint, tup.metadata, tup.checkpoint["channel_versions"])
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in tup.pending_writes or []:
            by_task.setdefault(task_id, []).append((channel, value))
        for task_id, writes in by_task.items():
            await cp.aput_writes(saved, writes, task_id)
        return True

    async def has_checkpoint(self, thread_id: str) -> bool:
        return await self.checkpointer.aget_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}) is not None

    @abstractmethod
    async def truncate_thread(self, thread_id: str, keep: int) -> None:
        """The thread keeps its first `keep` turns: later transcript and usage rows go, its turn count
        and memory watermark drop to `keep` (its forks share at most `keep` turns with it now), and its checkpoints go first (the working context is
        rebuilt from what is left, client/core/forks.py), so an interrupted rewind never leaves a
        context holding turns its transcript lost."""

    @abstractmethod
    async def memory_move(self, bullet_ids: Sequence[int], thread_id: str) -> None:
        """Attribute these memory items to another thread (one that holds the turns they came from)."""

    @abstractmethod
    async def set_lineage(self, thread_id: str, parent_id: str, parent_turn: int, fold_from: int | None = None) -> None:
        """Where the thread's first turns come from; `fold_from`: its memory watermark is lowered to
        at most that (turns after it are folded again)."""

    @abstractmethod
    async def children(self, thread_id: str) -> list[ThreadInfo]:
        """The threads whose first turns were copied from this one (forks, rewound turns), oldest first."""

    @abstractmethod
    async def thread_memory(self, thread_id: str) -> list[Bullet]:
        """The memory items this thread contributed."""

    async def hand_over(self, thread_id: str) -> None:
        """Before the thread is deleted: what its forks still hold passes to them (client/core/forks.py)."""
        from client.core.forks import Child, Item, heirs, unfolded_heir

        info = await self.get_thread(thread_id)
        kids = await self.children(thread_id) if info else []
        if info is None or not kids:
            return
        folded = await self.memory_turn(thread_id)
        # memory stays its owner's: only a child of the same user takes items over, or folds turns
        children = [Child(k.thread_id, k.parent_turn) for k in kids if k.user_name == info.user_name]
        items = [Item(b.id, tuple(b.sources)) for b in await self.thread_memory(thread_id) if b.id is not None]
        for who, ids in heirs(children, items, folded).items():
            await self.memory_move(ids, who)
        late = unfolded_heir(children, folded, info.turns)
        for k in kids:  # they now come from where this thread came from (or from nowhere)
            turn = min(k.parent_turn, info.parent_turn) if info.parent_id else 0
            await self.set_lineage(k.thread_id, info.parent_id, turn, folded if k.thread_id == late else None)

    # -- long-term memory (per user) -------------------------------------------
    @abstractmethod
    async def memory_list(self, user: str) -> list[Bullet]: ...

    @abstractmethod
    async def memory_add(self, user: str, bullets: Sequence[Bullet]) -> None: ...

    @abstractmethod
    async def memory_update(self, bullets: Sequence[Bullet]) -> None:
        """Store new scores and sources of bullets that have ids."""

    @abstractmethod
    async def memory_delete(self, user: str, bullet_id: int) -> bool: ...

    @abstractmethod
    async def memory_turn(self, thread_id: str) -> int:
        """The last turn of the thread already folded into memory."""

    @abstractmethod
    async def set_memory_turn(self, thread_id: str, turn: int) -> None: ...

    @abstractmethod
    async def memory_unchecked(self, user: str) -> list[Bullet]:
        """The user's items not yet checked against the current candidate rules (kept by an older version)."""

    @abstractmethod
    async def memory_checked(self, user: str, drop: Sequence[int], keep: Sequence[int]) -> None:
        """In one go: the `drop` items deleted, the `keep` items marked checked against the current rules."""

    @abstractmethod
    async def memory_note(self, user: str, note: str) -> bool:
        """Record that the user saw a one-time notice; True the first time (show it), False after."""

    @abstractmethod
    async def memory_pending(self, user: str) -> list[str]:
        """The user's threads with turns after their memory turn (not folded into memory
        yet), least recently active first."""
