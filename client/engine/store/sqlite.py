"""SQLite backend: one aiosqlite connection shared with LangGraph's saver (its lock orders our writes
with the saver's), per-thread claims in `<db>-lock` (filelock.py)."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable, Sequence

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from client.engine.store.filelock import FileLocks
from client.engine.store.lineage import SqlLineage
from client.engine.store.memory_rows import SqlMemoryRows
from client.engine.store.migrations import apply as apply_migrations
from client.engine.store.serde import checkpoint_serde
from client.engine.store.sql import SQLITE, Duplicate
from client.engine.store.sqlite_check import check_writable, store_error

SETUP_TRIES = 5  # opening a new file from several processes at once


class SqliteSql:
    """client/engine/store/sql.py's `Sql` on one connection: a write holds the saver's lock and commits."""

    def __init__(self, conn: aiosqlite.Connection, lock: asyncio.Lock) -> None:
        self.conn, self.lock = conn, lock

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        async with self.conn.execute(SQLITE.render(sql), params) as cur:
            return list(await cur.fetchall())

    async def _run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self.conn.execute(SQLITE.render(sql), params) as cur:  # closed at once: open cursors block VACUUM
            return cur.rowcount

    async def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await (await self.conn.executemany(SQLITE.render(sql), rows)).close()

    @asynccontextmanager
    async def tx(self, begin: str = "") -> AsyncIterator[Any]:
        async with self.lock:
            try:
                if begin:
                    await self._run(begin)
                yield _InTx(self)
            except sqlite3.IntegrityError:
                await self.conn.rollback()
                raise Duplicate from None
            except BaseException:
                await self.conn.rollback()
                raise
            await self.conn.commit()

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self.tx() as tx:
            return await tx.run(sql, params)

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        async with self.tx() as tx:
            await tx.many(sql, rows)


class _InTx:
    def __init__(self, sql: SqliteSql) -> None:
        self.rows, self.run, self.many = sql.rows, sql._run, sql._many


class SqliteStore(SqlLineage, SqlMemoryRows):
    def __init__(self, path: str) -> None:
        self.path = path
        self.conn: aiosqlite.Connection | None = None
        self.locks = FileLocks(path + "-lock")  # one client per thread (filelock.py)
        self.at_last_close: Callable[[], None] | None = None  # run when this is the last client out (filelock.py)

    async def _connect(self, target: str, **kw: Any) -> None:
        self.conn = await aiosqlite.connect(target, timeout=30, **kw)
        self.checkpointer = AsyncSqliteSaver(self.conn, serde=checkpoint_serde())
        self.sql = SqliteSql(self.conn, self.checkpointer.lock)

    @classmethod
    async def open(cls, path: str) -> "SqliteStore":
        check_writable(path)  # writable and sound before anything is written (sqlite_check.py)
        self = cls(path)
        try:
            await self._connect(path)
            await self.sql._run("PRAGMA busy_timeout=30000")
            for attempt in range(SETUP_TRIES):
                try:
                    await self.setup()
                    break
                except sqlite3.OperationalError as e:
                    # Two processes creating one new file: while one switches it to WAL the
                    # other can get "database is locked" at once (no busy wait: it would deadlock).
                    if "locked" not in str(e) or attempt == SETUP_TRIES - 1:
                        raise
                    await self.db.rollback()
                    await asyncio.sleep(0.1 * (attempt + 1))
        except sqlite3.DatabaseError as e:
            await self.close()
            raise store_error(path, e) from None
        return self

    @property
    def db(self) -> aiosqlite.Connection:
        assert self.conn is not None
        return self.conn

    async def setup(self) -> None:
        await self.checkpointer.setup()  # also switches the file to WAL
        await self.sql.run("PRAGMA synchronous=NORMAL")
        await apply_migrations(self.sql, "BEGIN IMMEDIATE")

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()  # the last connection folds the -wal in and removes it
            self.conn = None
        self.locks.close(last=self.at_last_close)

    async def lock_thread(self, thread_id: str) -> bool:
        return self.locks.lock(thread_id)

    async def unlock_thread(self, thread_id: str) -> None:
        self.locks.unlock(thread_id)

    def holds_thread(self, thread_id: str) -> bool:
        return thread_id in self.locks.held

    async def still_holds(self, thread_id: str) -> bool:
        return True  # a file lock dies only with the process

    async def prune_checkpoints(self, thread_id: str) -> int:
        async with self.sql.tx() as tx:
            latest = (await tx.rows("SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id=? AND checkpoint_ns=''",
                                    (thread_id,)))[0][0]
            if latest is None:
                return 0
            return sum([await tx.run(f"DELETE FROM {table} WHERE thread_id=? AND checkpoint_id<?", (thread_id, latest))
                        for table in ("checkpoints", "writes")])

    async def vacuum(self) -> None:
        """Give freed pages back to the file system (run after `delete`)."""
        async with self.checkpointer.lock:
            for pragma in ("PRAGMA wal_checkpoint(TRUNCATE)", "VACUUM"):
                await self.sql._run(pragma)
