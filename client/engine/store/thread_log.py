"""ThreadLog's statements, once for both backends (client/engine/store/sql.py): the threads table,
the transcript, usage per turn."""

from __future__ import annotations

import time
from typing import Any, Sequence

from langchain_core.messages import BaseMessage

from client.engine.store import codec
from client.engine.store.base import ThreadInfo, TurnUsage
from client.engine.store.sql import Sql, chunks

NEW_COLS = "thread_id, user_name, title, turns, created_at, updated_at"  # a thread made by a chat
THREAD_COLS = NEW_COLS + ", parent_id, parent_turn, kind, memory_turn"  # ThreadInfo's fields, in order
OWN_ROWS = ("messages", "usage", "memory", "threads")  # a thread's rows besides its checkpoints


class SqlThreadLog:
    sql: Sql
    checkpointer: Any
    cols: str = THREAD_COLS  # a reader of an older SQLite file selects defaults for missing columns

    async def _threads(self, where: str, params: Sequence[Any] = (), order: str = "") -> list[ThreadInfo]:
        rows = await self.sql.rows(f"SELECT {self.cols} FROM threads WHERE {where}{order}", params)
        return [ThreadInfo(*r) for r in rows]

    async def get_thread(self, thread_id: str) -> ThreadInfo | None:
        found = await self._threads("thread_id=?", (thread_id,))
        return found[0] if found else None

    async def create_thread(self, thread_id: str, user_name: str) -> ThreadInfo:
        now = time.time()
        await self.sql.run(f"INSERT INTO threads ({NEW_COLS}) VALUES (?, ?, '', 0, ?, ?) ON CONFLICT DO NOTHING",
                           (thread_id, user_name, now, now))
        info = await self.get_thread(thread_id)
        assert info is not None
        return info

    async def list_threads(self) -> list[ThreadInfo]:
        return await self._threads("turns > 0", order=" ORDER BY updated_at DESC")

    async def set_title(self, thread_id: str, title: str) -> None:
        await self.sql.run("UPDATE threads SET title=? WHERE thread_id=?", (codec.stored_title(title), thread_id))

    async def known_ids(self, thread_id: str, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for marks, part in chunks([i for i in ids if i]):
            rows = await self.sql.rows(f"SELECT msg_id FROM messages WHERE thread_id=? AND msg_id IN ({marks})",
                                       (thread_id, *part))
            found.update(r[0] for r in rows)
        return found

    async def append(self, thread_id: str, messages: Sequence[BaseMessage]) -> int:
        now = time.time()
        async with self.sql.tx() as tx:
            row = await tx.rows("SELECT turns, title FROM threads WHERE thread_id=?{for_update}", (thread_id,))
            turns, title = row[0] if row else (0, "")
            seq = (await tx.rows("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE thread_id=?", (thread_id,)))[0][0]
            rows, turns, title = codec.number_rows(thread_id, messages, turns, title, seq, now)
            await tx.many("INSERT INTO messages (thread_id, seq, msg_id, turn, data, created_at) "
                          "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", rows)
            await tx.run(f"INSERT INTO threads ({NEW_COLS}) VALUES (?, '', ?, ?, ?, ?) ON CONFLICT (thread_id) DO UPDATE "
                         "SET turns=excluded.turns, title=excluded.title, updated_at=excluded.updated_at",
                         (thread_id, title, turns, now, now))
        return turns

    async def transcript(self, thread_id: str) -> list[tuple[int, BaseMessage]]:
        rows = await self.sql.rows("SELECT turn, data, msg_id FROM messages WHERE thread_id=? ORDER BY seq", (thread_id,))
        return [(r[0], codec.decode(r[1], r[2])) for r in rows]

    async def record_usage(self, thread_id: str, usage: TurnUsage) -> None:
        await self.sql.run("INSERT INTO usage (thread_id, turn, input_tokens, output_tokens, estimated_tokens, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?)", (thread_id, usage.turn, usage.input_tokens, usage.output_tokens,
                                                         usage.estimated_tokens, time.time()))

    async def usage(self, thread_id: str) -> list[TurnUsage]:
        rows = await self.sql.rows("SELECT turn, input_tokens, output_tokens, estimated_tokens FROM usage "
                                   "WHERE thread_id=? ORDER BY {order}", (thread_id,))
        return [TurnUsage(*r) for r in rows]

    async def delete_thread(self, thread_id: str) -> bool:
        existed = await self.get_thread(thread_id) is not None
        await self.checkpointer.adelete_thread(thread_id)
        async with self.sql.tx() as tx:
            for table in OWN_ROWS:
                await tx.run(f"DELETE FROM {table} WHERE thread_id=?", (thread_id,))
        return existed
