"""One storage interface; one file per backend.

The checkpointer holds only the working context of a thread (what the model
may still see). The transcript here holds every message ever exchanged, in
order, so nothing trimmed or summarized away is lost.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Sequence

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
        """Remove every row of the thread from every table, its memory included.
        Raises StoreError("thread_busy") when another client has the thread open."""

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
    async def memory_pending(self, user: str) -> list[str]:
        """The user's threads with turns after their memory turn (not folded into memory
        yet), least recently active first."""
