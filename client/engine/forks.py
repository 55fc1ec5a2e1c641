"""Fork and rewind over the store alone (no model, no session): what `mcp-chat fork`, `/fork`,
`-r ID --fork` and `/rewind` do to the database, and the API a bench uses to fork a prepared thread.

    new_id = await fork_thread(store, "prepared", owner="bench", at=12, new_id="q-17")

A fork is a new thread holding the source's first N turns: its transcript and usage rows up to
turn N, its lineage (`threads` shows it) and a memory watermark at N (the source folds those turns
into memory, the fork only its own). Forked at its last turn, the fork gets the source's working
context exactly (its latest checkpoint, copied); at an earlier turn, the context is rebuilt from the
transcript when the fork is first opened (client/core/forks.py `context_at`, Threads.open). Both
are the same bytes every time. A fork belongs to whoever made it (`owner`), whoever owned the
source: what is said in it never reaches the source owner's -c, first screen or memory, and the
source's turns are never folded into the fork owner's memory (its watermark starts at the fork
point). The callers say so when the source was another user's. A new thread's id holds no known
secret (`check_new_id`): an id is written in every row and printed. A rewind moves a thread's last turns into a new thread (kind
"rewind") and cuts the thread back to the turn before them.
"""

from __future__ import annotations

import uuid
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator, Protocol, Sequence

from langchain_core.messages import BaseMessage

from client.core.config import THREAD_ID_RE
from client.core.secrets import holds_secret
from client.core.forks import Item, context_at, rewind_watermark, rewound_items, tools_run
from client.core.memory.policy import Bullet
from client.engine.store.base import ForkRow, StoreError, ThreadInfo


class ForkStore(Protocol):
    """What forks and rewinds need from a store (client/engine/store/base.py documents each)."""

    async def get_thread(self, thread_id: str) -> ThreadInfo | None: ...
    async def lock_thread(self, thread_id: str) -> bool: ...
    async def unlock_thread(self, thread_id: str) -> None: ...
    def holds_thread(self, thread_id: str) -> bool: ...
    async def has_checkpoint(self, thread_id: str) -> bool: ...
    async def copy_thread(self, fork: ForkRow) -> ThreadInfo: ...
    async def copy_checkpoint(self, source: str, target: str) -> bool: ...
    async def transcript(self, thread_id: str) -> list[tuple[int, BaseMessage]]: ...
    async def truncate_thread(self, thread_id: str, keep: int) -> None: ...
    async def memory_turn(self, thread_id: str) -> int: ...
    async def thread_memory(self, thread_id: str) -> list[Bullet]: ...
    async def memory_move(self, bullet_ids: Sequence[int], thread_id: str) -> None: ...


@dataclass(frozen=True)
class Forked:
    thread_id: str  # the new thread, this user's
    source: str
    turns: int  # turns it holds
    source_owner: str  # whose the source was ("" for an older client's thread)


@dataclass(frozen=True)
class Rewound:
    thread_id: str
    kept: int  # turns the thread keeps
    taken: int  # turns taken back
    backup: str  # the thread that holds all of them, the taken ones included
    tools: list[str]  # tools the taken turns ran: their effects stay
    context: list[BaseMessage]  # the working context after turn `kept`


@asynccontextmanager
async def claimed(store: ForkStore, thread_id: str) -> AsyncIterator[None]:
    """The thread is this store's while the block runs (refused when another client has it open);
    a claim the store held already stays."""
    mine = store.holds_thread(thread_id)
    if not mine and not await store.lock_thread(thread_id):
        raise StoreError("thread_busy", id=thread_id)
    try:
        yield
    finally:
        if not mine:
            await store.unlock_thread(thread_id)


def check_new_id(thread_id: str) -> None:
    """A new thread's id: the id pattern, and no known secret in it (masked it would be another id)."""
    if not THREAD_ID_RE.match(thread_id):
        raise StoreError("bad_thread_id")
    if holds_secret(thread_id):
        raise StoreError("thread_id_secret")


async def fork_thread(store: ForkStore, source: str, *, owner: str, at: int | None = None,
                      new_id: str | None = None) -> str:
    """A new thread of `owner`'s holding `source`'s first `at` turns (default: all); returns its id
    (`new_id` when given, which must be free). `source` is unchanged. StoreError: no_thread,
    thread_busy (open in another client), thread_exists, fork_bad_turn, bad_thread_id, thread_id_secret."""
    target = new_id or uuid.uuid4().hex
    check_new_id(target)
    async with claimed(store, source):
        info = await store.get_thread(source)
        if info is None or not info.turns:
            raise StoreError("no_thread", id=source)
        n = info.turns if at is None else at
        if not 1 <= n <= info.turns:
            raise StoreError("fork_bad_turn", id=source, n=n, turns=info.turns)
        async with claimed(store, target):
            await _must_be_free(store, target)
            await store.copy_thread(ForkRow(source, target, n, owner))
            if n == info.turns:  # the context exactly as it is; earlier: rebuilt when first opened
                await store.copy_checkpoint(source, target)
    return target


async def rewind_thread(store: ForkStore, thread_id: str, n: int = 1, *, backup_id: str | None = None) -> Rewound:
    """Take the last `n` turns back: a new thread (kind "rewind") keeps the whole thread as it was,
    what only those turns gave memory moves with them, and `thread_id` is cut back to its first
    turns. Its working context is the returned one; the caller writes it (Threads.rewind), or
    the next open rebuilds it. StoreError: no_thread, thread_busy, rewind_bad_turns."""
    backup = backup_id or uuid.uuid4().hex
    async with claimed(store, thread_id):
        info = await store.get_thread(thread_id)
        if info is None or not info.turns:
            raise StoreError("rewind_nothing")
        if not 1 <= n <= info.turns:
            raise StoreError("rewind_bad_turns", n=n, turns=info.turns)
        keep = info.turns - n
        rows = await store.transcript(thread_id)
        folded = await store.memory_turn(thread_id)
        async with claimed(store, backup):
            await _must_be_free(store, backup)
            await store.copy_thread(ForkRow(thread_id, backup, info.turns, info.user_name, kind="rewind", parent_turn=keep,
                                            memory_turn=rewind_watermark(folded, keep, info.turns),
                                            updated_at=info.updated_at))  # not "more recent" than the thread
            await store.copy_checkpoint(thread_id, backup)  # resumed, it goes on where the user was
        items = [Item(b.id, tuple(b.sources)) for b in await store.thread_memory(thread_id) if b.id is not None]
        await store.memory_move(rewound_items(items, keep), backup)
        await store.truncate_thread(thread_id, keep)
    return Rewound(thread_id, keep, n, backup, tools_run(rows, keep), context_at(rows, keep))


async def _must_be_free(store: ForkStore, thread_id: str) -> None:
    if await store.get_thread(thread_id) is not None or await store.has_checkpoint(thread_id):
        raise StoreError("thread_exists", id=thread_id)
