"""Memory rows that outlive a rules change, on both backends (a part of SqliteStore and PostgresStore).

Each stored item records the version of the candidate rules it was last checked against
(`memory.rules`, client/core/memory/structure.py RULES): items kept by an earlier version are
checked once against the current rules at their user's next start (client/engine/memory/recheck.py).
`memory_notes` remembers the one-time notices a user has seen."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Sequence

from client.core.memory.policy import Bullet
from client.core.memory.structure import RULES

if TYPE_CHECKING:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from psycopg_pool import AsyncConnectionPool


class SqliteMemoryRows:
    if TYPE_CHECKING:  # SqliteStore's
        db: aiosqlite.Connection
        checkpointer: AsyncSqliteSaver

        async def _run(self, sql: str, params: Sequence = ()) -> int: ...

    async def memory_unchecked(self, user: str) -> list[Bullet]:
        from client.engine.store.sqlite_lineage import bullet_row

        async with self.db.execute("SELECT id, thread_id, text, score, sources FROM memory WHERE user_name=? AND rules<? "
                                   "ORDER BY id", (user, RULES)) as cur:
            return [bullet_row(r) for r in await cur.fetchall()]

    async def memory_checked(self, user: str, drop: Sequence[int], keep: Sequence[int]) -> None:
        async with self.checkpointer.lock:
            for i in drop:
                await self._run("DELETE FROM memory WHERE user_name=? AND id=?", (user, i))
            for i in keep:
                await self._run("UPDATE memory SET rules=? WHERE user_name=? AND id=?", (RULES, user, i))
            await self.db.commit()

    async def memory_note(self, user: str, note: str) -> bool:
        async with self.checkpointer.lock:
            n = await self._run("INSERT OR IGNORE INTO memory_notes (user_name, note, at) VALUES (?, ?, ?)",
                                (user, note, time.time()))
            await self.db.commit()
        return n > 0


class PgMemoryRows:
    if TYPE_CHECKING:  # PostgresStore's
        @property
        def db(self) -> AsyncConnectionPool: ...

        async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

        async def _run(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    async def memory_unchecked(self, user: str) -> list[Bullet]:
        from client.engine.store.pg_lineage import bullet_row

        rows = await self._all("SELECT id, thread_id, text, score, sources FROM memory WHERE user_name=%s AND rules<%s "
                               "ORDER BY id", (user, RULES))
        return [bullet_row(r) for r in rows]

    async def memory_checked(self, user: str, drop: Sequence[int], keep: Sequence[int]) -> None:
        async with self.db.connection() as conn, conn.transaction():
            if drop:
                await conn.execute("DELETE FROM memory WHERE user_name=%s AND id = ANY(%s)", (user, list(drop)))
            if keep:
                await conn.execute("UPDATE memory SET rules=%s WHERE user_name=%s AND id = ANY(%s)", (RULES, user, list(keep)))

    async def memory_note(self, user: str, note: str) -> bool:
        return await self._run("INSERT INTO memory_notes (user_name, note, at) VALUES (%s, %s, %s) "
                               "ON CONFLICT DO NOTHING", (user, note, time.time())) > 0
