"""Fork and rewind rows on SQLite (a part of SqliteStore): copy a thread up to a turn, cut one back,
and the lineage and memory moves that go with them. The decisions are client/engine/forks.py's."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import TYPE_CHECKING, Any, Sequence

from client.core.memory.policy import Bullet
from client.engine.store.base import ForkRow, StoreError, ThreadInfo

if TYPE_CHECKING:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

THREAD_COLS = "thread_id, user_name, title, turns, created_at, updated_at, parent_id, parent_turn, kind"


class SqliteLineage:
    thread_cols: str = THREAD_COLS  # a reader of an older file selects defaults for missing columns

    if TYPE_CHECKING:  # SqliteStore's
        db: aiosqlite.Connection
        checkpointer: AsyncSqliteSaver

        async def _run(self, sql: str, params: Sequence = ()) -> int: ...

        async def get_thread(self, thread_id: str) -> ThreadInfo | None: ...

    async def copy_thread(self, fork: ForkRow) -> ThreadInfo:
        now = time.time()
        upto = fork.upto
        async with self.checkpointer.lock:
            try:
                n = await self._run(
                    f"INSERT INTO threads ({THREAD_COLS}, memory_turn) SELECT ?, ?, title, MIN(turns, ?), ?, ?, "
                    "thread_id, ?, ?, ? FROM threads WHERE thread_id=?",
                    (fork.target, fork.owner, upto, now, fork.updated_at or now,
                     upto if fork.parent_turn is None else fork.parent_turn, fork.kind,
                     upto if fork.memory_turn is None else fork.memory_turn, fork.source),
                )
                if n == 0:
                    raise StoreError("no_thread", id=fork.source)
                await self._run(
                    "INSERT INTO messages (thread_id, seq, msg_id, turn, data, created_at) "
                    "SELECT ?, seq, msg_id, turn, data, created_at FROM messages WHERE thread_id=? AND turn<=?",
                    (fork.target, fork.source, upto),
                )
                await self._run(
                    "INSERT INTO usage (thread_id, turn, input_tokens, output_tokens, estimated_tokens, created_at) "
                    "SELECT ?, turn, input_tokens, output_tokens, estimated_tokens, created_at FROM usage "
                    "WHERE thread_id=? AND turn<=? ORDER BY rowid",
                    (fork.target, fork.source, upto),
                )
            except sqlite3.IntegrityError:
                await self.db.rollback()
                raise StoreError("thread_exists", id=fork.target) from None
            except BaseException:
                await self.db.rollback()
                raise
            await self.db.commit()
        info = await self.get_thread(fork.target)
        assert info is not None
        return info

    async def truncate_thread(self, thread_id: str, keep: int) -> None:
        await self.checkpointer.adelete_thread(thread_id)  # first: a context never outlives its rows
        async with self.checkpointer.lock:
            for table in ("messages", "usage"):
                await self._run(f"DELETE FROM {table} WHERE thread_id=? AND turn>?", (thread_id, keep))
            await self._run("UPDATE threads SET turns=MIN(turns, ?), memory_turn=MIN(memory_turn, ?), updated_at=? "
                            "WHERE thread_id=?", (keep, keep, time.time(), thread_id))
            await self._run("UPDATE threads SET parent_turn=MIN(parent_turn, ?) WHERE parent_id=?", (keep, thread_id))
            await self.db.commit()

    async def memory_move(self, bullet_ids: Sequence[int], thread_id: str) -> None:
        if not bullet_ids:
            return
        async with self.checkpointer.lock:
            marks = ",".join("?" * len(bullet_ids))
            await self._run(f"UPDATE memory SET thread_id=?, updated_at=? WHERE id IN ({marks})",
                            (thread_id, time.time(), *bullet_ids))
            await self.db.commit()

    async def set_lineage(self, thread_id: str, parent_id: str, parent_turn: int, fold_from: int | None = None) -> None:
        async with self.checkpointer.lock:
            await self._run("UPDATE threads SET parent_id=?, parent_turn=?, "
                            "memory_turn=CASE WHEN ? IS NULL THEN memory_turn ELSE MIN(memory_turn, ?) END "
                            "WHERE thread_id=?", (parent_id, parent_turn, fold_from, fold_from, thread_id))
            await self.db.commit()

    async def children(self, thread_id: str) -> list[ThreadInfo]:
        async with self.db.execute(f"SELECT {self.thread_cols} FROM threads WHERE parent_id=? ORDER BY created_at",
                                   (thread_id,)) as cur:
            return [ThreadInfo(*r) for r in await cur.fetchall()]

    async def thread_memory(self, thread_id: str) -> list[Bullet]:
        async with self.db.execute(
            "SELECT id, thread_id, text, score, sources FROM memory WHERE thread_id=? ORDER BY id", (thread_id,)
        ) as cur:
            return [bullet_row(r) for r in await cur.fetchall()]


def bullet_row(r: Any) -> Bullet:
    return Bullet(r[2], json.loads(r[4]), r[3], r[0], r[1])
