"""MemoryRows' statements, once for both backends: a user's long-term memory items, each thread's
memory watermark, and the one-time notices a user has seen (`memory_notes`).

Each stored item records the version of the candidate rules it was last checked against
(`memory.rules`, client/core/memory/structure.py RULES): items kept by an earlier version are
checked once against the current rules at their user's next start (client/engine/memory/recheck.py).
Item text is masked before it is written (client/core/secrets.py)."""

from __future__ import annotations

import json
import time
from typing import Any, Sequence

from client.core.memory.policy import Bullet
from client.core.memory.structure import RULES
from client.core.secrets import mask
from client.engine.store.sql import Sql

ITEM_COLS = "id, thread_id, text, score, sources"


def bullet_row(r: Sequence[Any]) -> Bullet:
    return Bullet(r[2], json.loads(r[4]), r[3], r[0], r[1])


class SqlMemoryRows:
    sql: Sql

    async def _items(self, where: str, params: Sequence[Any]) -> list[Bullet]:
        rows = await self.sql.rows(f"SELECT {ITEM_COLS} FROM memory WHERE {where} ORDER BY id", params)
        return [bullet_row(r) for r in rows]

    async def memory_list(self, user: str) -> list[Bullet]:
        return await self._items("user_name=?", (user,))

    async def memory_add(self, user: str, bullets: Sequence[Bullet]) -> None:
        now = time.time()
        await self.sql.many("INSERT INTO memory (user_name, thread_id, text, score, sources, created_at, updated_at, rules) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [(user, b.thread_id, mask(b.text), b.score, json.dumps(b.sources), now, now, RULES) for b in bullets])

    async def memory_update(self, bullets: Sequence[Bullet]) -> None:
        await self.sql.many("UPDATE memory SET score=?, sources=?, updated_at=? WHERE id=?",
                            [(b.score, json.dumps(b.sources), time.time(), b.id) for b in bullets])

    async def memory_delete(self, user: str, bullet_id: int) -> bool:
        return await self.sql.run("DELETE FROM memory WHERE user_name=? AND id=?", (user, bullet_id)) > 0

    async def memory_turn(self, thread_id: str) -> int:
        rows = await self.sql.rows("SELECT memory_turn FROM threads WHERE thread_id=?", (thread_id,))
        return int(rows[0][0]) if rows else 0

    async def set_memory_turn(self, thread_id: str, turn: int) -> None:
        await self.sql.run("UPDATE threads SET memory_turn=? WHERE thread_id=?", (turn, thread_id))

    async def memory_pending(self, user: str) -> list[str]:
        rows = await self.sql.rows("SELECT thread_id FROM threads WHERE user_name=? AND turns > memory_turn "
                                   "ORDER BY updated_at", (user,))
        return [r[0] for r in rows]

    async def memory_unchecked(self, user: str) -> list[Bullet]:
        return await self._items("user_name=? AND rules<?", (user, RULES))

    async def memory_checked(self, user: str, drop: Sequence[int], keep: Sequence[int]) -> None:
        async with self.sql.tx() as tx:
            await tx.many("DELETE FROM memory WHERE user_name=? AND id=?", [(user, i) for i in drop])
            await tx.many("UPDATE memory SET rules=? WHERE user_name=? AND id=?", [(RULES, user, i) for i in keep])

    async def memory_note(self, user: str, note: str) -> bool:
        return await self.sql.run("INSERT INTO memory_notes (user_name, note, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                  (user, note, time.time())) > 0
