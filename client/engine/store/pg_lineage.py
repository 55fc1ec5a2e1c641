"""Fork and rewind rows on PostgreSQL (a part of PostgresStore): copy a thread up to a turn, cut one
back, and the lineage and memory moves that go with them. The decisions are client/engine/forks.py's."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Sequence

import psycopg

from client.core.memory.policy import Bullet
from client.engine.store.base import ForkRow, StoreError, ThreadInfo

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg_pool import AsyncConnectionPool

NEW_COLS = "thread_id, user_name, title, turns, created_at, updated_at"  # a thread made by a chat
THREAD_COLS = NEW_COLS + ", parent_id, parent_turn, kind"


def thread_row(r: dict[str, Any]) -> ThreadInfo:
    return ThreadInfo(r["thread_id"], r["user_name"], r["title"], r["turns"], r["created_at"], r["updated_at"],
                      r["parent_id"], r["parent_turn"], r["kind"])


def bullet_row(r: dict[str, Any]) -> Bullet:
    return Bullet(r["text"], json.loads(r["sources"]), r["score"], r["id"], r["thread_id"])


class PgLineage:
    if TYPE_CHECKING:  # PostgresStore's
        checkpointer: AsyncPostgresSaver

        @property
        def db(self) -> AsyncConnectionPool: ...

        async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

        async def _run(self, sql: str, params: Sequence[Any] = ()) -> int: ...

        async def get_thread(self, thread_id: str) -> ThreadInfo | None: ...

    async def copy_thread(self, fork: ForkRow) -> ThreadInfo:
        now = time.time()
        upto = fork.upto
        try:
            async with self.db.connection() as conn, conn.transaction():
                cur = await conn.execute(
                    f"INSERT INTO threads ({THREAD_COLS}, memory_turn) SELECT %s, %s, title, LEAST(turns, %s), "
                    "%s, %s, thread_id, %s, %s, %s FROM threads WHERE thread_id=%s",
                    (fork.target, fork.owner, upto, now, fork.updated_at or now,
                     upto if fork.parent_turn is None else fork.parent_turn, fork.kind,
                     upto if fork.memory_turn is None else fork.memory_turn, fork.source),
                )
                if cur.rowcount == 0:
                    raise StoreError("no_thread", id=fork.source)
                await conn.execute(
                    "INSERT INTO messages (thread_id, seq, msg_id, turn, data, created_at) "
                    "SELECT %s, seq, msg_id, turn, data, created_at FROM messages WHERE thread_id=%s AND turn<=%s",
                    (fork.target, fork.source, upto),
                )
                await conn.execute(
                    "INSERT INTO usage (thread_id, turn, input_tokens, output_tokens, estimated_tokens, created_at) "
                    "SELECT %s, turn, input_tokens, output_tokens, estimated_tokens, created_at FROM usage "
                    "WHERE thread_id=%s AND turn<=%s ORDER BY id",
                    (fork.target, fork.source, upto),
                )
        except psycopg.errors.UniqueViolation:
            raise StoreError("thread_exists", id=fork.target) from None
        info = await self.get_thread(fork.target)
        assert info is not None
        return info

    async def truncate_thread(self, thread_id: str, keep: int) -> None:
        await self.checkpointer.adelete_thread(thread_id)  # first: a context never outlives its rows
        async with self.db.connection() as conn, conn.transaction():
            for table in ("messages", "usage"):
                await conn.execute(f"DELETE FROM {table} WHERE thread_id=%s AND turn>%s", (thread_id, keep))
            await conn.execute("UPDATE threads SET turns=LEAST(turns, %s), memory_turn=LEAST(memory_turn, %s), "
                               "updated_at=%s WHERE thread_id=%s", (keep, keep, time.time(), thread_id))
            await conn.execute("UPDATE threads SET parent_turn=LEAST(parent_turn, %s) WHERE parent_id=%s", (keep, thread_id))

    async def memory_move(self, bullet_ids: Sequence[int], thread_id: str) -> None:
        if bullet_ids:
            await self._run("UPDATE memory SET thread_id=%s, updated_at=%s WHERE id = ANY(%s)",
                            (thread_id, time.time(), list(bullet_ids)))

    async def set_lineage(self, thread_id: str, parent_id: str, parent_turn: int, fold_from: int | None = None) -> None:
        await self._run("UPDATE threads SET parent_id=%s, parent_turn=%s, "
                        "memory_turn=LEAST(memory_turn, COALESCE(%s::integer, memory_turn)) WHERE thread_id=%s",
                        (parent_id, parent_turn, fold_from, thread_id))

    async def children(self, thread_id: str) -> list[ThreadInfo]:
        rows = await self._all(f"SELECT {THREAD_COLS} FROM threads WHERE parent_id=%s ORDER BY created_at", (thread_id,))
        return [thread_row(r) for r in rows]

    async def thread_memory(self, thread_id: str) -> list[Bullet]:
        rows = await self._all("SELECT id, thread_id, text, score, sources FROM memory WHERE thread_id=%s ORDER BY id",
                               (thread_id,))
        return [bullet_row(r) for r in rows]
