"""Lineage's statements, once for both backends: copy a thread up to a turn, cut one back, and the
lineage and memory moves that go with them. The decisions are client/engine/forks.py's."""

from __future__ import annotations

import time
from typing import Any, Sequence

from client.core.memory.policy import Bullet
from client.engine.store.base import ForkRow, StoreError, ThreadInfo
from client.engine.store.memory_rows import ITEM_COLS, bullet_row
from client.engine.store.sql import Duplicate, chunks
from client.engine.store.thread_log import THREAD_COLS, SqlThreadLog


def _config(thread_id: str) -> Any:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


class SqlLineage(SqlThreadLog):
    async def copy_thread(self, fork: ForkRow) -> ThreadInfo:
        now, upto = time.time(), fork.upto
        try:
            async with self.sql.tx() as tx:
                n = await tx.run(
                    f"INSERT INTO threads ({THREAD_COLS}) SELECT ?, ?, title, {{least}}(turns, ?), ?, ?, thread_id, ?, ?, ? "
                    "FROM threads WHERE thread_id=?",
                    (fork.target, fork.owner, upto, now, fork.updated_at or now,
                     upto if fork.parent_turn is None else fork.parent_turn, fork.kind,
                     upto if fork.memory_turn is None else fork.memory_turn, fork.source))
                if n == 0:
                    raise StoreError("no_thread", id=fork.source)
                await tx.run("INSERT INTO messages (thread_id, seq, msg_id, turn, data, created_at) "
                             "SELECT ?, seq, msg_id, turn, data, created_at FROM messages WHERE thread_id=? AND turn<=?",
                             (fork.target, fork.source, upto))
                await tx.run("INSERT INTO usage (thread_id, turn, input_tokens, output_tokens, estimated_tokens, created_at) "
                             "SELECT ?, turn, input_tokens, output_tokens, estimated_tokens, created_at FROM usage "
                             "WHERE thread_id=? AND turn<=? ORDER BY {order}", (fork.target, fork.source, upto))
        except Duplicate:
            raise StoreError("thread_exists", id=fork.target) from None
        info = await self.get_thread(fork.target)
        assert info is not None
        return info

    async def copy_checkpoint(self, source: str, target: str) -> bool:
        cp = self.checkpointer
        tup = await cp.aget_tuple(_config(source))
        if tup is None:
            return False
        saved = await cp.aput(_config(target), tup.checkpoint, tup.metadata, tup.checkpoint["channel_versions"])
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in tup.pending_writes or []:
            by_task.setdefault(task_id, []).append((channel, value))
        for task_id, writes in by_task.items():
            await cp.aput_writes(saved, writes, task_id)
        return True

    async def has_checkpoint(self, thread_id: str) -> bool:
        return await self.checkpointer.aget_tuple(_config(thread_id)) is not None

    async def truncate_thread(self, thread_id: str, keep: int) -> None:
        await self.checkpointer.adelete_thread(thread_id)  # first: a context never outlives its rows
        async with self.sql.tx() as tx:
            for table in ("messages", "usage"):
                await tx.run(f"DELETE FROM {table} WHERE thread_id=? AND turn>?", (thread_id, keep))
            await tx.run("UPDATE threads SET turns={least}(turns, ?), memory_turn={least}(memory_turn, ?), updated_at=? "
                         "WHERE thread_id=?", (keep, keep, time.time(), thread_id))
            await tx.run("UPDATE threads SET parent_turn={least}(parent_turn, ?) WHERE parent_id=?", (keep, thread_id))

    async def children(self, thread_id: str) -> list[ThreadInfo]:
        return await self._threads("parent_id=?", (thread_id,), " ORDER BY created_at")

    async def set_lineage(self, thread_id: str, parent_id: str, parent_turn: int, fold_from: int | None = None) -> None:
        if fold_from is None:
            await self.sql.run("UPDATE threads SET parent_id=?, parent_turn=? WHERE thread_id=?",
                               (parent_id, parent_turn, thread_id))
        else:
            await self.sql.run("UPDATE threads SET parent_id=?, parent_turn=?, memory_turn={least}(memory_turn, ?) "
                               "WHERE thread_id=?", (parent_id, parent_turn, fold_from, thread_id))

    async def thread_memory(self, thread_id: str) -> list[Bullet]:
        rows = await self.sql.rows(f"SELECT {ITEM_COLS} FROM memory WHERE thread_id=? ORDER BY id", (thread_id,))
        return [bullet_row(r) for r in rows]

    async def memory_move(self, bullet_ids: Sequence[int], thread_id: str) -> None:
        if not bullet_ids:
            return
        async with self.sql.tx() as tx:
            for marks, part in chunks(bullet_ids):
                await tx.run(f"UPDATE memory SET thread_id=?, updated_at=? WHERE id IN ({marks})",
                             (thread_id, time.time(), *part))
