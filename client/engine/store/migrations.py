"""Ordered schema changes, each applied once and recorded in `schema_migrations`: one list for both
backends, rendered per dialect (client/engine/store/sql.py). Each version applies whole or not at
all (Postgres DDL is transactional; SQLite takes the write lock up front and re-checks the record
inside, since two clients may start on a new file). LangGraph's own tables are its savers'."""

from __future__ import annotations

import time

from client.engine.store.sql import Sql

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
                created_at {real} NOT NULL,
                updated_at {real} NOT NULL
            )""",
            """CREATE TABLE IF NOT EXISTS messages (
                thread_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                msg_id TEXT NOT NULL,
                turn INTEGER NOT NULL DEFAULT 0,
                data TEXT NOT NULL,
                created_at {real} NOT NULL,
                PRIMARY KEY (thread_id, seq)
            )""",
            "CREATE UNIQUE INDEX IF NOT EXISTS messages_msg_id ON messages (thread_id, msg_id)",
            """CREATE TABLE IF NOT EXISTS usage (
                {usage_id}
                thread_id TEXT NOT NULL,
                turn INTEGER NOT NULL,
                input_tokens INTEGER,
                output_tokens INTEGER,
                estimated_tokens INTEGER,
                created_at {real} NOT NULL
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
                id {serial},
                user_name TEXT NOT NULL,
                thread_id TEXT NOT NULL,
                text TEXT NOT NULL,
                score {real},
                sources TEXT NOT NULL DEFAULT '[]',
                created_at {real} NOT NULL,
                updated_at {real} NOT NULL
            )""",
            "CREATE INDEX IF NOT EXISTS memory_user ON memory (user_name)",
            "CREATE INDEX IF NOT EXISTS memory_thread ON memory (thread_id)",
            "ALTER TABLE threads {add_column} memory_turn INTEGER NOT NULL DEFAULT 0",
        ],
    ),
    (
        3,
        "thread lineage (fork, rewind)",
        [
            "ALTER TABLE threads {add_column} parent_id TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE threads {add_column} parent_turn INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE threads {add_column} kind TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX IF NOT EXISTS threads_parent ON threads (parent_id)",
        ],
    ),
    (
        4,
        "memory: the rules version each item was checked against, one-time notices",
        [
            "ALTER TABLE memory {add_column} rules INTEGER NOT NULL DEFAULT 0",
            """CREATE TABLE IF NOT EXISTS memory_notes (
                user_name TEXT NOT NULL,
                note TEXT NOT NULL,
                at {real} NOT NULL,
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


async def applied(sql: Sql) -> set[int]:
    return {r[0] for r in await sql.rows("SELECT version FROM schema_migrations")}


async def apply(sql: Sql, begin: str = "") -> None:
    """Every migration not yet recorded (`begin`: how a version's transaction starts, SQLite's
    BEGIN IMMEDIATE)."""
    await sql.run("CREATE TABLE IF NOT EXISTS schema_migrations "
                  "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at {real} NOT NULL)")
    done = await applied(sql)
    for version, name, statements in MIGRATIONS:
        if version in done:
            continue
        async with sql.tx(begin) as tx:
            if await tx.rows("SELECT 1 FROM schema_migrations WHERE version=?", (version,)):
                continue  # another client applied it meanwhile
            for statement in statements:
                await tx.run(statement)
            await tx.run("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, time.time()))
