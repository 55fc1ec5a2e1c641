"""PostgreSQL backend: LangGraph's AsyncPostgresSaver and our tables over one pool.

The pool's connections are what the saver requires (autocommit, dict rows,
prepare_threshold=0); our own statements share them (tuple rows), in explicit transactions
where several must apply together. A separate connection, held for the
store's lifetime, carries the per-thread advisory locks (pg_locks.py: session-level locks
belong to a connection, and Postgres drops them when that connection dies).
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Sequence

import psycopg
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import dict_row, tuple_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from client.core.faults import one_line
from client.core.pg_url import mask_url
from client.core.secrets import redact_db_error
from client.engine.store.base import StoreError
from client.engine.store.lineage import SqlLineage
from client.engine.store.memory_rows import SqlMemoryRows
from client.engine.store.migrations import MIGRATIONS, OWN_TABLES, applied, apply, foreign_tables
from client.engine.store.pg_locks import CONNECT_TIMEOUT, PgLocks, lock_key
from client.engine.store.serde import checkpoint_serde
from client.engine.store.sql import POSTGRES, Duplicate

POOL_MAX = 4  # one client runs one statement at a time; a few spare for the saver
SETUP_WAIT = 120  # seconds to wait for another client's schema setup


class PgTx:
    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        async with self.conn.cursor(row_factory=tuple_row) as cur:
            await cur.execute(POSTGRES.render(sql), params)
            return await cur.fetchall() if cur.description else []

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return (await self.conn.execute(POSTGRES.render(sql), params)).rowcount

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            async with self.conn.cursor() as cur:
                await cur.executemany(POSTGRES.render(sql), rows)


class PgSql:
    """client/engine/store/sql.py's `Sql` over the pool: a statement alone is applied at once (autocommit)."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    @asynccontextmanager
    async def tx(self, begin: str = "") -> AsyncIterator[PgTx]:
        try:
            async with self.pool.connection() as conn, conn.transaction():
                yield PgTx(conn)
        except psycopg.errors.UniqueViolation:
            raise Duplicate from None

    @asynccontextmanager
    async def _alone(self) -> AsyncIterator[PgTx]:
        async with self.pool.connection() as conn:
            yield PgTx(conn)

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        async with self._alone() as c:
            return await c.rows(sql, params)

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self._alone() as c:
            return await c.run(sql, params)

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        async with self.tx() as tx:
            await tx.many(sql, rows)


class PostgresStore(PgLocks, SqlLineage, SqlMemoryRows):
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
            self.sql = PgSql(self.pool)
            self.checkpointer = AsyncPostgresSaver(self.pool, serde=checkpoint_serde())  # type: ignore[arg-type]
            await self.setup()
        except (psycopg.Error, PoolTimeout, OSError) as e:
            await self.close()
            raise StoreError("db_pg_error", url=self.shown, detail=redact_db_error(one_line(e), url)) from None
        except StoreError:
            await self.close()
            raise
        return self

    async def up_to_date(self) -> bool:
        """Every saver and store migration applied already."""
        found = await self.sql.rows("SELECT to_regclass('checkpoint_migrations'), to_regclass('schema_migrations')")
        if not found or None in found[0]:
            return False
        saver = (await self.sql.rows("SELECT max(v) FROM checkpoint_migrations"))[0][0]
        return saver == len(self.checkpointer.MIGRATIONS) - 1 and {m[0] for m in MIGRATIONS} <= await applied(self.sql)

    async def setup(self) -> None:
        if await self.up_to_date():  # the usual start: no lock
            return
        found = foreign_tables({r[0] for r in await self.sql.rows(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY(?)",
            ([*OWN_TABLES, "schema_migrations"],))})
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
            if not await self.up_to_date():  # or another client did it meanwhile
                await self.checkpointer.setup()
                await apply(self.sql)
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

    async def _checkpoints(self, thread_id: str) -> int:
        return int((await self.sql.rows("SELECT count(*) FROM checkpoints WHERE thread_id=?", (thread_id,)))[0][0])

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

    async def vacuum(self) -> None:
        """Nothing: autovacuum gives the space back."""
