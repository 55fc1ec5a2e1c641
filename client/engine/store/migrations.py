"""Ordered schema changes, each applied once and recorded (SQLite flavour), and applying them."""

from __future__ import annotations

import time
from typing import Any, Sequence

MIGRATIONS: list[tuple[int, str, list[str]]] = [
    (
        1,
        "threads, transcript, usage",
        [
            """CREATE TABLE IF NOT EXISTS threads (
                thread_id TEXT PRIMARY KEY,
                user_name TEXT NOT NULL DEFAULT '',
                title TEXT NOT NULL DEFAULT '',
                turns INTEGER NOT NULL DEFAULT 0,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            )""",
            """CREATE TABLE IF NOT EXISTS messages (
                thread_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                msg_id TEXT NOT NULL,
                turn INTEGER NOT NULL DEFAULT 0,
                data TEXT NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (thread_id, seq)
            )""",
            "CREATE UNIQUE INDEX IF NOT EXISTS messages_msg_id ON messages (thread_id, msg_id)",
            """CREATE TABLE IF NOT EXISTS usage (
                thread_id TEXT NOT NULL,
                turn INTEGER NOT NULL,
                input_tokens INTEGER,
                output_tokens INTEGER,
                estimated_tokens INTEGER,
                created_at REAL NOT NULL
            )""",
            "CREATE INDEX IF NOT EXISTS usage_thread ON usage (thread_id, turn)",
            "CREATE INDEX IF NOT EXISTS threads_updated ON threads (updated_at)",
        ],
    ),
    (
        2,
        "long-term memory",
        [
            """CREATE TABLE IF NOT EXISTS memory (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_name TEXT NOT NULL,
                thread_id TEXT NOT NULL,
                text TEXT NOT NULL,
                score REAL,
                sources TEXT NOT NULL DEFAULT '[]',
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            )""",
            "CREATE INDEX IF NOT EXISTS memory_user ON memory (user_name)",
            "CREATE INDEX IF NOT EXISTS memory_thread ON memory (thread_id)",
            "ALTER TABLE threads ADD COLUMN memory_turn INTEGER NOT NULL DEFAULT 0",
        ],
    ),
    (
        3,
        "thread lineage (fork, rewind)",
        [
            "ALTER TABLE threads ADD COLUMN parent_id TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE threads ADD COLUMN parent_turn INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE threads ADD COLUMN kind TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX IF NOT EXISTS threads_parent ON threads (parent_id)",
        ],
    ),
    (
        4,
        "memory: the rules version each item was checked against, one-time notices",
        [
            "ALTER TABLE memory ADD COLUMN rules INTEGER NOT NULL DEFAULT 0",
            """CREATE TABLE IF NOT EXISTS memory_notes (
                user_name TEXT NOT NULL,
                note TEXT NOT NULL,
                at REAL NOT NULL,
                PRIMARY KEY (user_name, note)
            )""",
        ],
    ),
]

LATEST = MIGRATIONS[-1][0]
# Our tables. Every version of mcp-chat recorded them in schema_migrations, so a database that
# has one of them but no schema_migrations belongs to another program: never migrated (both backends).
OWN_TABLES = ("threads", "messages", "usage", "memory", "memory_notes")


def foreign_tables(tables: set[str]) -> list[str]:
    """Our table names present in a database without our migration record ([] when none)."""
    return [] if "schema_migrations" in tables else sorted(set(OWN_TABLES) & tables)


async def apply(db: Any) -> None:
    """Every migration not yet recorded on `db` (an aiosqlite connection, the saver's lock held).
    Each whole or not at all, one process at a time: the write lock is taken up front and the
    record re-checked inside, since two clients may start on a new file."""

    async def run(sql: str, params: Sequence[Any] = ()) -> None:
        async with db.execute(sql, params):  # the cursor closed at once (open cursors block VACUUM)
            pass

    await run("CREATE TABLE IF NOT EXISTS schema_migrations "
              "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)")
    async with db.execute("SELECT version FROM schema_migrations") as cur:
        done = {r[0] for r in await cur.fetchall()}
    for version, name, statements in MIGRATIONS:
        if version in done:
            continue
        await run("BEGIN IMMEDIATE")
        async with db.execute("SELECT 1 FROM schema_migrations WHERE version=?", (version,)) as cur:
            applied = await cur.fetchone() is not None
        if applied:
            await db.commit()
            continue
        for sql in statements:
            await run(sql)
        await run("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, time.time()))
        await db.commit()
    await db.commit()
