"""PostgreSQL backend: LangGraph's AsyncPostgresSaver and our tables over one pool.

The pool's connections are what the saver requires (autocommit, dict rows,
prepare_threshold=0); our own statements share them, in explicit transactions
where several must apply together. A separate connection, held for the
store's lifetime, carries the per-thread advisory locks (session-level locks
belong to a connection, and Postgres drops them when that connection dies).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Sequence

import psycopg
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from client.core.secrets import mask
from client.engine.store import codec
from client.core.memory.policy import Bullet
from client.engine.store.base import Store, StoreError, ThreadInfo, TurnUsage
from client.core.memory.structure import RULES
from client.engine.store.memory_rows import PgMemoryRows
from client.engine.store.pg_lineage import NEW_COLS, THREAD_COLS, PgLineage, bullet_row, thread_row
from client.engine.store.pg_locks import CONNECT_TIMEOUT, PgLocks, lock_key
from client.engine.store.pg_migrations import apply, foreign, up_to_date
from client.engine.store.serde import checkpoint_serde
from client.core.faults import one_line
from client.core.pg_url import mask_url
from client.core.secrets import redact_db_error

POOL_MAX = 4  # one client runs one statement at a time; a few spare for the saver
SETUP_WAIT = 120  # seconds to wait for another client's schema setup


class PostgresStore(PgLocks, PgLineage, PgMemoryRows, Store):
    def __init__(self, url: str) -> None:
        self.url = url
        self.shown = mask_url(url)
        self.pool: AsyncConnectionPool | None = None
        self.lock_conn: psycopg.AsyncConnection[Any] | None = None
        self.scope = ""
        self.locked: set[str] = set()

    @classmethod
    async def open(cls, url: str) -> "PostgresStore":
        self = cls(url)
        try:
            self.lock_conn = await self._lock_connection()
            cur = await self.lock_conn.execute("SELECT current_schema()")
            self.scope = str((await cur.fetchone() or [""])[0] or "")
            self.pool = AsyncConnectionPool(
                url, min_size=1, max_size=POOL_MAX, open=False, name="mcp-chat", timeout=30,
                check=AsyncConnectionPool.check_connection,  # survive a server restart
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
                        "connect_timeout": CONNECT_TIMEOUT},
            )
            await self.pool.open(wait=True, timeout=CONNECT_TIMEOUT * 2)
            self.checkpointer = AsyncPostgresSaver(self.pool, serde=checkpoint_serde())  # type: ignore[arg-type]
            await self.setup()
        except (psycopg.Error, PoolTimeout, OSError) as e:
            await self.close()
            raise StoreError("db_pg_error", url=self.shown, detail=redact_db_error(one_line(e), url)) from None
        except StoreError:
            await self.close()
            raise
        return self

    # -- plumbing --------------------------------------------------------------
    @property
    def db(self) -> AsyncConnectionPool:
        assert self.pool is not None
        return self.pool

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        async with self.db.connection() as conn:
            cur = await conn.execute(sql, params)
            return await cur.fetchall()

    async def _one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = await self._all(sql, params)
        return rows[0] if rows else None

    async def _run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self.db.connection() as conn:
            cur = await conn.execute(sql, params)
            return cur.rowcount

    async def setup(self) -> None:
        if await up_to_date(self.db, self.checkpointer):  # the usual start: no lock
            return
        found = await foreign(self.db)
        if found:  # another program's tables under our names: nothing created, nothing migrated
            raise StoreError("db_foreign", path=self.shown, tables=", ".join(found))
        # One process at a time: concurrent CREATE TABLE IF NOT EXISTS can still collide.
        # Polled, not waited for: a session blocked in pg_advisory_lock holds a snapshot,
        # and the saver's CREATE INDEX CONCURRENTLY would wait for it forever.
        key = lock_key(self.scope, ":setup")
        assert self.lock_conn is not None
        for _ in range(SETUP_WAIT * 20):
            cur = await self.lock_conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))
            if (await cur.fetchone() or [False])[0]:
                break
            await asyncio.sleep(0.05)
        else:
            raise psycopg.OperationalError(f"schema setup by another client did not finish in {SETUP_WAIT}s")
        try:
            if not await up_to_date(self.db, self.checkpointer):  # or another client did it meanwhile
                await apply(self.db, self.checkpointer)
        finally:
            await self.lock_conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None
        if self.lock_conn is not None:  # closing it releases every advisory lock it holds
            await self.lock_conn.close()
            self.lock_conn = None
        self.locked.clear()

    # -- threads and transcript ------------------------------------------------
    async def get_thread(self, thread_id: str) -> ThreadInfo | None:
        r = await self._one(f"SELECT {THREAD_COLS} FROM threads WHERE thread_id=%s", (thread_id,))
        return thread_row(r) if r else None

    async def create_thread(self, thread_id: str, user_name: str) -> ThreadInfo:
        now = time.time()
        await self._run(
            f"INSERT INTO threads ({NEW_COLS}) VALUES (%s, %s, '', 0, %s, %s) ON CONFLICT DO NOTHING",
            (thread_id, user_name, now, now),
        )
        info = await self.get_thread(thread_id)
        assert info is not None
        return info

    async def list_threads(self) -> list[ThreadInfo]:
        rows = await self._all(f"SELECT {THREAD_COLS} FROM threads WHERE turns > 0 ORDER BY updated_at DESC")
        return [thread_row(r) for r in rows]

    async def set_title(self, thread_id: str, title: str) -> None:
        await self._run("UPDATE threads SET title=%s WHERE thread_id=%s", (codec.stored_title(title), thread_id))

    async def known_ids(self, thread_id: str, ids: Sequence[str]) -> set[str]:
        ids = [i for i in ids if i]
        if not ids:
            return set()
        rows = await self._all(
            "SELECT msg_id FROM messages WHERE thread_id=%s AND msg_id = ANY(%s)", (thread_id, ids)
        )
        return {r["msg_id"] for r in rows}

    async def append(self, thread_id: str, messages: Sequence[BaseMessage]) -> int:
        now = time.time()
        async with self.db.connection() as conn, conn.transaction():
            cur = await conn.execute("SELECT turns, title FROM threads WHERE thread_id=%s FOR UPDATE", (thread_id,))
            row = await cur.fetchone()
            turns, title = (row["turns"], row["title"]) if row else (0, "")
            cur = await conn.execute("SELECT COALESCE(MAX(seq), 0) AS seq FROM messages WHERE thread_id=%s", (thread_id,))
            seq = (await cur.fetchone())["seq"]  # type: ignore[index]
            rows, turns, title = codec.number_rows(thread_id, messages, turns, title, seq, now)
            async with conn.cursor() as c:
                await c.executemany(
                    "INSERT INTO messages (thread_id, seq, msg_id, turn, data, created_at) "
                    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING", rows
                )
            await conn.execute(
                f"INSERT INTO threads ({NEW_COLS}) VALUES (%s, '', %s, %s, %s, %s) "
                "ON CONFLICT (thread_id) DO UPDATE "
                "SET turns=excluded.turns, title=excluded.title, updated_at=excluded.updated_at",
                (thread_id, title, turns, now, now),
            )
        return turns

    async def transcript(self, thread_id: str) -> list[tuple[int, BaseMessage]]:
        rows = await self._all("SELECT turn, data, msg_id FROM messages WHERE thread_id=%s ORDER BY seq", (thread_id,))
        return [(r["turn"], codec.decode(r["data"], r["msg_id"])) for r in rows]

    async def record_usage(self, thread_id: str, usage: TurnUsage) -> None:
        await self._run(
            "INSERT INTO usage (thread_id, turn, input_tokens, output_tokens, estimated_tokens, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (thread_id, usage.turn, usage.input_tokens, usage.output_tokens, usage.estimated_tokens, time.time()),
        )

    async def usage(self, thread_id: str) -> list[TurnUsage]:
        rows = await self._all(
            "SELECT turn, input_tokens, output_tokens, estimated_tokens FROM usage WHERE thread_id=%s ORDER BY id",
            (thread_id,),
        )
        return [TurnUsage(r["turn"], r["input_tokens"], r["output_tokens"], r["estimated_tokens"]) for r in rows]

    async def _checkpoints(self, thread_id: str) -> int:
        r = await self._one("SELECT count(*) AS n FROM checkpoints WHERE thread_id=%s", (thread_id,))
        return int(r["n"]) if r else 0

    async def prune_checkpoints(self, thread_id: str) -> int:
        """The saver's keep_latest prune: older checkpoints, their writes, and the
        blobs (keyed by channel version) that no kept checkpoint references.
        Returns the checkpoints removed."""
        before = await self._checkpoints(thread_id)
        if before <= 1:
            return 0
        try:
            await self.checkpointer.aprune([thread_id], strategy="keep_latest")  # type: ignore[attr-defined]
        except (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected):
            return 0  # another writer raced this prune; the next turn prunes again
        return before - await self._checkpoints(thread_id)

    async def delete_thread(self, thread_id: str) -> bool:
        mine = thread_id in self.locked
        if not mine and not await self.lock_thread(thread_id):
            raise StoreError("thread_busy", id=thread_id)
        try:
            existed = await self.get_thread(thread_id) is not None
            await self.hand_over(thread_id)  # what a fork still holds is its now
            await self.checkpointer.adelete_thread(thread_id)
            async with self.db.connection() as conn, conn.transaction():
                for table in ("messages", "usage", "memory", "threads"):
                    await conn.execute(f"DELETE FROM {table} WHERE thread_id=%s", (thread_id,))
        finally:
            if not mine:
                await self.unlock_thread(thread_id)
        return existed

    # -- long-term memory ------------------------------------------------------
    async def memory_list(self, user: str) -> list[Bullet]:
        rows = await self._all(
            "SELECT id, thread_id, text, score, sources FROM memory WHERE user_name=%s ORDER BY id", (user,)
        )
        return [bullet_row(r) for r in rows]

    async def memory_add(self, user: str, bullets: Sequence[Bullet]) -> None:
        now = time.time()
        rows = [(user, b.thread_id, mask(b.text), b.score, json.dumps(b.sources), now, now, RULES) for b in bullets]
        if not rows:
            return
        async with self.db.connection() as conn, conn.transaction(), conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO memory (user_name, thread_id, text, score, sources, created_at, updated_at, rules) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows
            )

    async def memory_update(self, bullets: Sequence[Bullet]) -> None:
        rows = [(b.score, json.dumps(b.sources), time.time(), b.id) for b in bullets]
        if not rows:
            return
        async with self.db.connection() as conn, conn.transaction(), conn.cursor() as cur:
            await cur.executemany("UPDATE memory SET score=%s, sources=%s, updated_at=%s WHERE id=%s", rows)

    async def memory_delete(self, user: str, bullet_id: int) -> bool:
        return await self._run("DELETE FROM memory WHERE user_name=%s AND id=%s", (user, bullet_id)) > 0

    async def memory_turn(self, thread_id: str) -> int:
        r = await self._one("SELECT memory_turn FROM threads WHERE thread_id=%s", (thread_id,))
        return int(r["memory_turn"]) if r else 0

    async def set_memory_turn(self, thread_id: str, turn: int) -> None:
        await self._run("UPDATE threads SET memory_turn=%s WHERE thread_id=%s", (turn, thread_id))

    async def memory_pending(self, user: str) -> list[str]:
        rows = await self._all("SELECT thread_id FROM threads WHERE user_name=%s AND turns > memory_turn "
                               "ORDER BY updated_at", (user,))
        return [r["thread_id"] for r in rows]
