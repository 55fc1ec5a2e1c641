"""One client per thread on PostgreSQL (a part of PostgresStore): session-level advisory locks on a
connection of their own, held for the store's lifetime. Postgres drops them when that connection
dies, however its process ends; keepalives on both ends bound how long a vanished machine keeps
them; before a turn writes, a holder checks that connection (`still_holds`) and, when it was lost,
claims its threads again, or learns that another client has one now. A pooler in transaction mode
(pgbouncer) cannot carry session locks: connect through it in session mode, or directly.
"""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg

CONNECT_TIMEOUT = 10  # seconds, per connection attempt
# The lock connection's TCP keepalives, on both ends: a holder whose machine vanished (no FIN ever
# comes) loses its threads within ~25 s instead of the OS default of hours, and a holder notices a
# server that is gone (libpq's options; the server's are user-settable GUCs).
LOCK_CONN_OPTIONS = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
                     "tcp_user_timeout": 25_000}
LOCK_CONN_KEEPALIVE = "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3"


def lock_key(scope: str, name: str) -> int:
    """A signed 64-bit advisory-lock key for `name` inside `scope` (the schema)."""
    digest = hashlib.blake2b(f"mcp-chat\0{scope}\0{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PgLocks:
    url: str
    scope: str
    lock_conn: psycopg.AsyncConnection[Any] | None
    locked: set[str]

    async def _lock_connection(self) -> psycopg.AsyncConnection[Any]:
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                                                     **LOCK_CONN_OPTIONS)
        try:
            await conn.execute(LOCK_CONN_KEEPALIVE)
        except psycopg.Error:  # a server or pooler that refuses them: the OS defaults apply
            pass
        return conn

    # -- one client per thread -------------------------------------------------
    async def lock_thread(self, thread_id: str) -> bool:
        if thread_id in self.locked:
            return True
        assert self.lock_conn is not None
        cur = await self.lock_conn.execute("SELECT pg_try_advisory_lock(%s)", (lock_key(self.scope, thread_id),))
        got = bool((await cur.fetchone() or [False])[0])
        if got:
            self.locked.add(thread_id)
        return got

    async def unlock_thread(self, thread_id: str) -> None:
        if thread_id in self.locked and self.lock_conn is not None:
            try:
                await self.lock_conn.execute("SELECT pg_advisory_unlock(%s)", (lock_key(self.scope, thread_id),))
            except psycopg.OperationalError:
                pass  # the connection is gone, and with it every lock it held
        self.locked.discard(thread_id)

    def holds_thread(self, thread_id: str) -> bool:
        return thread_id in self.locked

    async def still_holds(self, thread_id: str) -> bool:
        """The advisory locks live as long as the lock connection: while it answers they are ours.
        A connection lost (server restart, network) lost them all; a new one claims them again,
        and a thread another client took meanwhile is ours no more."""
        assert self.lock_conn is not None
        try:
            await self.lock_conn.execute("SELECT 1")
        except psycopg.OperationalError:
            held, self.locked = set(self.locked), set()
            try:
                await self.lock_conn.close()
                self.lock_conn = await self._lock_connection()
            except (psycopg.Error, OSError):
                return False
            for tid in held:
                await self.lock_thread(tid)
        return await self.lock_thread(thread_id)
