"""SQLite backend: one aiosqlite connection shared with LangGraph's saver."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from typing import Callable, Sequence

import aiosqlite
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from client.core.secrets import mask
from client.engine.store import codec
from client.core.memory.policy import Bullet
from client.engine.store.base import Store, StoreError, ThreadInfo, TurnUsage
from client.engine.store.filelock import FileLocks
from client.engine.store.migrations import apply as apply_migrations
from client.engine.store.serde import checkpoint_serde
from client.engine.store.sqlite_check import check_writable, store_error
from client.core.memory.structure import RULES
from client.engine.store.memory_rows import SqliteMemoryRows
from client.engine.store.sqlite_lineage import SqliteLineage, bullet_row

SETUP_TRIES = 5  # opening a new file from several processes at once


class SqliteStore(SqliteLineage, SqliteMemoryRows, Store):
    def __init__(self, path: str) -> None:
        self.path = path
        self.conn: aiosqlite.Connection | None = None
        self.locks = FileLocks(path + "-lock")  # one client per thread (filelock.py)
        self.at_last_close: Callable[[], None] | None = None  # run when this is the last client out (filelock.py)

    @classmethod
    async def open(cls, path: str) -> "SqliteStore":
        check_writable(path)  # writable and sound before anything is written (sqlite_check.py)
        self = cls(path)
        try:
            self.conn = await aiosqlite.connect(path, timeout=30)
            await self._run("PRAGMA busy_timeout=30000")
            self.checkpointer = AsyncSqliteSaver(self.conn, serde=checkpoint_serde())
            for attempt in range(SETUP_TRIES):
                try:
                    await self.setup()
                    break
                except sqlite3.OperationalError as e:
                    # Two processes creating one new file: while one switches it to WAL the
                    # other can get "database is locked" at once (no busy wait: it would deadlock).
                    if "locked" not in str(e) or attempt == SETUP_TRIES - 1:
                        raise
                    await self.conn.rollback()
                    await asyncio.sleep(0.1 * (attempt + 1))
        except sqlite3.DatabaseError as e:
            await self.close()
            raise store_error(path, e) from None
        return self

    async def _run(self, sql: str, params: Sequence = ()) -> int:
        """Execute one statement and close its cursor (open cursors block VACUUM)."""
        async with self.db.execute(sql, params) as cur:
            return cur.rowcount

    @property
    def db(self) -> aiosqlite.Connection:
        assert self.conn is not None
        return self.conn

    async def setup(self) -> None:
        await self.checkpointer.setup()  # also switches the file to WAL
        async with self.checkpointer.lock:
            await self._run("PRAGMA synchronous=NORMAL")
            await apply_migrations(self.db)

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

    @staticmethod
    def _thread(row: Sequence) -> ThreadInfo:
        return ThreadInfo(*row)

    async def get_thread(self, thread_id: str) -> ThreadInfo | None:
        async with self.db.execute(f"SELECT {self.thread_cols} FROM threads WHERE thread_id=?", (thread_id,)) as cur:
            row = await cur.fetchone()
        return self._thread(row) if row else None

    async def create_thread(self, thread_id: str, user_name: str) -> ThreadInfo:
        now = time.time()
        async with self.checkpointer.lock:
            await self._run(
                "INSERT OR IGNORE INTO threads (thread_id, user_name, title, turns, created_at, updated_at) "
                "VALUES (?, ?, '', 0, ?, ?)",
                (thread_id, user_name, now, now),
            )
            await self.db.commit()
        info = await self.get_thread(thread_id)
        assert info is not None
        return info

    async def list_threads(self) -> list[ThreadInfo]:
        async with self.db.execute(
            f"SELECT {self.thread_cols} FROM threads WHERE turns > 0 ORDER BY updated_at DESC"
        ) as cur:
            return [self._thread(r) for r in await cur.fetchall()]

    async def set_title(self, thread_id: str, title: str) -> None:
        async with self.checkpointer.lock:
            await self._run("UPDATE threads SET title=? WHERE thread_id=?", (codec.stored_title(title), thread_id))
            await self.db.commit()

    async def known_ids(self, thread_id: str, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        ids = [i for i in ids if i]
        for k in range(0, len(ids), 500):
            part = ids[k : k + 500]
            q = f"SELECT msg_id FROM messages WHERE thread_id=? AND msg_id IN ({','.join('?' * len(part))})"
            async with self.db.execute(q, (thread_id, *part)) as cur:
                found.update(r[0] for r in await cur.fetchall())
        return found

    async def append(self, thread_id: str, messages: Sequence[BaseMessage]) -> int:
        now = time.time()
        async with self.checkpointer.lock:
            async with self.db.execute(
                "SELECT turns, title FROM threads WHERE thread_id=?", (thread_id,)
            ) as cur:
                row = await cur.fetchone()
            turns, title = (row[0], row[1]) if row else (0, "")
            async with self.db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE thread_id=?", (thread_id,)
            ) as cur:
                seq = (await cur.fetchone())[0]
            rows, turns, title = codec.number_rows(thread_id, messages, turns, title, seq, now)
            cur = await self.db.executemany("INSERT OR IGNORE INTO messages VALUES (?, ?, ?, ?, ?, ?)", rows)
            await cur.close()
            await self._run(
                "INSERT INTO threads (thread_id, user_name, title, turns, created_at, updated_at) "
                "VALUES (?, '', ?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE "
                "SET turns=excluded.turns, title=excluded.title, updated_at=excluded.updated_at",
                (thread_id, title, turns, now, now),
            )
            await self.db.commit()
        return turns

    async def transcript(self, thread_id: str) -> list[tuple[int, BaseMessage]]:
        async with self.db.execute(
            "SELECT turn, data, msg_id FROM messages WHERE thread_id=? ORDER BY seq", (thread_id,)
        ) as cur:
            return [(r[0], codec.decode(r[1], r[2])) for r in await cur.fetchall()]

    async def record_usage(self, thread_id: str, usage: TurnUsage) -> None:
        async with self.checkpointer.lock:
            await self._run(
                "INSERT INTO usage VALUES (?, ?, ?, ?, ?, ?)",
                (thread_id, usage.turn, usage.input_tokens, usage.output_tokens, usage.estimated_tokens, time.time()),
            )
            await self.db.commit()

    async def usage(self, thread_id: str) -> list[TurnUsage]:
        async with self.db.execute(
            "SELECT turn, input_tokens, output_tokens, estimated_tokens FROM usage WHERE thread_id=? ORDER BY rowid",
            (thread_id,),
        ) as cur:
            return [TurnUsage(*r) for r in await cur.fetchall()]

    async def prune_checkpoints(self, thread_id: str) -> int:
        async with self.checkpointer.lock:
            async with self.db.execute(
                "SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id=? AND checkpoint_ns=''", (thread_id,)
            ) as cur:
                latest = (await cur.fetchone())[0]
            if latest is None:
                return 0
            removed = 0
            for table in ("checkpoints", "writes"):
                removed += await self._run(
                    f"DELETE FROM {table} WHERE thread_id=? AND checkpoint_id<?", (thread_id, latest)
                )
            await self.db.commit()
        return removed

    async def delete_thread(self, thread_id: str) -> bool:
        mine = thread_id in self.locks.held
        if not mine and not await self.lock_thread(thread_id):  # open in another client
            raise StoreError("thread_busy", id=thread_id)
        try:
            return await self._delete_thread(thread_id)
        finally:
            if not mine:
                await self.unlock_thread(thread_id)

    async def _delete_thread(self, thread_id: str) -> bool:
        existed = await self.get_thread(thread_id) is not None
        await self.hand_over(thread_id)  # what a fork still holds is its now
        await self.checkpointer.adelete_thread(thread_id)
        async with self.checkpointer.lock:
            for table in ("messages", "usage", "memory", "threads"):
                await self._run(f"DELETE FROM {table} WHERE thread_id=?", (thread_id,))
            await self.db.commit()
        return existed

    async def memory_list(self, user: str) -> list[Bullet]:
        async with self.db.execute(
            "SELECT id, thread_id, text, score, sources FROM memory WHERE user_name=? ORDER BY id", (user,)
        ) as cur:
            return [bullet_row(r) for r in await cur.fetchall()]

    async def memory_add(self, user: str, bullets: Sequence[Bullet]) -> None:
        now = time.time()
        async with self.checkpointer.lock:
            for b in bullets:
                await self._run(
                    "INSERT INTO memory (user_name, thread_id, text, score, sources, created_at, updated_at, rules) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (user, b.thread_id, mask(b.text), b.score, json.dumps(b.sources), now, now, RULES),
                )
            await self.db.commit()

    async def memory_update(self, bullets: Sequence[Bullet]) -> None:
        async with self.checkpointer.lock:
            for b in bullets:
                await self._run(
                    "UPDATE memory SET score=?, sources=?, updated_at=? WHERE id=?",
                    (b.score, json.dumps(b.sources), time.time(), b.id),
                )
            await self.db.commit()

    async def memory_delete(self, user: str, bullet_id: int) -> bool:
        async with self.checkpointer.lock:
            n = await self._run("DELETE FROM memory WHERE user_name=? AND id=?", (user, bullet_id))
            await self.db.commit()
        return n > 0

    async def memory_turn(self, thread_id: str) -> int:
        async with self.db.execute("SELECT memory_turn FROM threads WHERE thread_id=?", (thread_id,)) as cur:
            row = await cur.fetchone()
        return row[0] if row else 0

    async def set_memory_turn(self, thread_id: str, turn: int) -> None:
        async with self.checkpointer.lock:
            await self._run("UPDATE threads SET memory_turn=? WHERE thread_id=?", (turn, thread_id))
            await self.db.commit()

    async def memory_pending(self, user: str) -> list[str]:
        async with self.db.execute("SELECT thread_id FROM threads WHERE user_name=? AND turns > memory_turn "
                                   "ORDER BY updated_at", (user,)) as cur:
            return [r[0] for r in await cur.fetchall()]

    async def vacuum(self) -> None:
        """Give freed pages back to the file system (run after `delete`)."""
        async with self.checkpointer.lock:
            await self._run("PRAGMA wal_checkpoint(TRUNCATE)")
            await self._run("VACUUM")
