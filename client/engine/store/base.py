"""The storage seam: four narrow protocols, and `Store`, their sum (what a backend is).

Each consumer is typed by the protocols it uses (client/engine/forks.py `ForkStore`,
client/engine/memory/manager.py `MemoryStore`, ...); only the composition (open_store,
client/engine/build.py, the ui's start) holds a `Store`. The statements behind them are written
once (client/engine/store/thread_log.py, lineage.py, memory_rows.py) and run on either backend.

The checkpointer holds only the working context of a thread (what the model may still see). The
transcript holds every message ever exchanged, in order, so nothing trimmed or summarized away
is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

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
    memory_turn: int = 0  # the last turn already folded into its owner's memory


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


@runtime_checkable
class ThreadLog(Protocol):
    """A thread's row (owner, title, turn count), its transcript and usage, and its working context."""

    checkpointer: BaseCheckpointSaver

    async def get_thread(self, thread_id: str) -> ThreadInfo | None: ...
    async def create_thread(self, thread_id: str, user_name: str) -> ThreadInfo: ...

    async def list_threads(self) -> list[ThreadInfo]:
        """The threads that have turns, most recently active first (an empty one is never listed)."""
        ...

    async def set_title(self, thread_id: str, title: str) -> None: ...

    async def known_ids(self, thread_id: str, ids: Sequence[str]) -> set[str]:
        """Which of these message ids the transcript already holds."""
        ...

    async def append(self, thread_id: str, messages: Sequence[BaseMessage]) -> int:
        """Append messages to the transcript; returns the thread's turn count after."""
        ...

    async def transcript(self, thread_id: str) -> list[tuple[int, BaseMessage]]:
        """Every stored message as (turn, message), in order."""
        ...

    async def record_usage(self, thread_id: str, usage: TurnUsage) -> None: ...
    async def usage(self, thread_id: str) -> list[TurnUsage]: ...

    async def prune_checkpoints(self, thread_id: str) -> int:
        """Drop all but the latest checkpoint of a thread; returns rows removed."""
        ...

    async def delete_thread(self, thread_id: str) -> bool:
        """Every row of the thread, in every table, its memory items included; False when there was
        none. Only client/engine/forks.py `delete_thread` calls it: under the thread's claim, after
        what its forks still hold was handed over."""
        ...


@runtime_checkable
class Lineage(Protocol):
    """Threads made of other threads' first turns (fork, rewind), and the memory items that move with them."""

    async def copy_thread(self, fork: ForkRow) -> ThreadInfo:
        """In one transaction: the target's thread row (its owner, lineage, memory watermark, the source's
        title) and copies of the source's transcript and usage rows of turns <= upto. Raises
        StoreError("no_thread") for a missing source, StoreError("thread_exists") for a taken target."""
        ...

    async def copy_checkpoint(self, source: str, target: str) -> bool:
        """The source's latest checkpoint (its working context, exactly) and its pending writes,
        written as the target's; False when the source has none."""
        ...

    async def has_checkpoint(self, thread_id: str) -> bool: ...

    async def truncate_thread(self, thread_id: str, keep: int) -> None:
        """The thread keeps its first `keep` turns: later transcript and usage rows go, its turn count
        and memory watermark drop to `keep` (its forks share at most `keep` turns with it now), and
        its checkpoints go first (the working context is rebuilt from what is left,
        client/core/forks.py), so an interrupted rewind never leaves a context holding turns its
        transcript lost."""
        ...

    async def children(self, thread_id: str) -> list[ThreadInfo]:
        """The threads whose first turns were copied from this one (forks, rewound turns), oldest first."""
        ...

    async def set_lineage(self, thread_id: str, parent_id: str, parent_turn: int, fold_from: int | None = None) -> None:
        """Where the thread's first turns come from; `fold_from`: its memory watermark is lowered to
        at most that (turns after it are folded again)."""
        ...

    async def thread_memory(self, thread_id: str) -> list[Bullet]:
        """The memory items this thread contributed."""
        ...

    async def memory_move(self, bullet_ids: Sequence[int], thread_id: str) -> None:
        """Attribute these memory items to another thread (one that holds the turns they came from)."""
        ...


@runtime_checkable
class MemoryRows(Protocol):
    """A user's long-term memory items, and how far each thread has been folded into them."""

    async def memory_list(self, user: str) -> list[Bullet]: ...
    async def memory_add(self, user: str, bullets: Sequence[Bullet]) -> None: ...

    async def memory_update(self, bullets: Sequence[Bullet]) -> None:
        """Store new scores and sources of bullets that have ids."""
        ...

    async def memory_delete(self, user: str, bullet_id: int) -> bool: ...

    async def memory_turn(self, thread_id: str) -> int:
        """The last turn of the thread already folded into memory."""
        ...

    async def set_memory_turn(self, thread_id: str, turn: int) -> None: ...

    async def memory_pending(self, user: str) -> list[str]:
        """The user's threads with turns after their memory turn (not folded into memory yet),
        least recently active first."""
        ...

    async def memory_unchecked(self, user: str) -> list[Bullet]:
        """The user's items not yet checked against the current candidate rules (kept by an older version)."""
        ...

    async def memory_checked(self, user: str, drop: Sequence[int], keep: Sequence[int]) -> None:
        """In one go: the `drop` items deleted, the `keep` items marked checked against the current rules."""
        ...

    async def memory_note(self, user: str, note: str) -> bool:
        """Record that the user saw a one-time notice; True the first time (show it), False after."""
        ...


@runtime_checkable
class Claims(Protocol):
    """One client per thread. Held claims die with the process (Postgres: an advisory lock on a
    connection of its own, client/engine/store/pg_locks.py; SQLite: a byte-range lock on
    `<db>-lock`, client/engine/store/filelock.py)."""

    async def lock_thread(self, thread_id: str) -> bool:
        """Claim the thread until unlock_thread() or close(); False when another client holds it (the
        caller refuses, never interleaves). Re-claiming a thread this store holds returns True."""
        ...

    async def unlock_thread(self, thread_id: str) -> None:
        """Release a claim taken by lock_thread (no-op when not held)."""
        ...

    def holds_thread(self, thread_id: str) -> bool:
        """Whether this store has claimed the thread (lock_thread) and not released it."""
        ...

    async def still_holds(self, thread_id: str) -> bool:
        """Before a turn writes: is the claim still ours? A file lock dies only with the process
        (True); a Postgres advisory lock dies with its connection, so a lost connection is taken
        again, and False when another client got the thread meanwhile."""
        ...


@runtime_checkable
class Store(ThreadLog, Lineage, MemoryRows, Claims, Protocol):
    """The sum of the four, and the database's own life: one file per backend (sqlite.py, postgres.py)."""

    async def close(self) -> None: ...

    async def vacuum(self) -> None:
        """Give the space of deleted rows back now (run after `delete`); a no-op where the
        database server reclaims it on its own (Postgres autovacuum)."""
        ...
