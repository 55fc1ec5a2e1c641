"""Which databases the suite runs on, and backend-agnostic peeks into them.

SQLite always; PostgreSQL too when TEST_POSTGRES_URL is set (scripts/pg_start.sh
prints one). Each Postgres test gets a fresh schema, named in the URL through
`options=-csearch_path=...`, dropped afterwards. Table names are the SQLite
ones; `writes` means `checkpoint_writes` on Postgres.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Iterator
from urllib.parse import quote

PG_URL = os.environ.get("TEST_POSTGRES_URL", "").strip()
BACKENDS = ["sqlite", "postgres"] if PG_URL else ["sqlite"]
PG_TABLES = {"writes": "checkpoint_writes", "blobs": "checkpoint_blobs"}


def is_pg(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def check_postgres() -> str | None:
    """Why the configured Postgres cannot be used (None when it can, or none is set).
    In CI a Postgres server is required: the run fails rather than skipping."""
    if not PG_URL:
        if os.environ.get("CI"):
            return "CI requires TEST_POSTGRES_URL (start one with scripts/pg_start.sh)"
        return None
    import psycopg

    from client.engine.store import mask_url

    try:
        psycopg.connect(PG_URL, connect_timeout=5).close()
    except psycopg.Error as e:
        return f"TEST_POSTGRES_URL ({mask_url(PG_URL)}) is not reachable: {str(e).strip()[:200]}"
    return None


def with_schema(url: str, schema: str) -> str:
    """The URL with its search_path set to `schema` (libpq `options`)."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote(f'-csearch_path={schema}', safe='')}"


@contextmanager
def fresh_pg_schema(prefix: str = "t") -> Iterator[str]:
    """A new, empty schema; yields the URL that works inside it; drops it after."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        yield with_schema(PG_URL, name)
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@contextmanager
def make_db(backend: str, tmp: Path) -> Iterator[str]:
    """A database for one test: a file path (SQLite) or a URL (Postgres)."""
    if backend == "postgres":
        with fresh_pg_schema() as url:
            yield url
    else:
        yield str(tmp / "chat.db")


def query(db: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Run one statement (`?` placeholders) and return its rows, on either backend."""
    if is_pg(db):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []
    con = sqlite3.connect(db)
    try:
        rows = con.execute(sql, params).fetchall()
        con.commit()
        return rows
    finally:
        con.close()


def table(db: str, name: str) -> str:
    return PG_TABLES.get(name, name) if is_pg(db) else name


def count_rows(db: str, name: str, thread: str | None = None) -> int:
    """Rows of table `name` (all, or the thread's)."""
    sql = f"SELECT count(*) FROM {table(db, name)}"
    if thread is None:
        return int(query(db, sql)[0][0])
    return int(query(db, sql + " WHERE thread_id=?", (thread,))[0][0])


def tables(db: str) -> set[str]:
    if is_pg(db):
        return {r[0] for r in query(db, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
    return {r[0] for r in query(db, "SELECT name FROM sqlite_master WHERE type='table'")}


def contains(db: str, needle: str) -> bool:
    """Whether the text appears anywhere in the database (file bytes, or any column)."""
    if not is_pg(db):
        blob = b"".join(p.read_bytes() for p in Path(db).parent.glob(Path(db).name + "*") if p.is_file())
        return needle.encode() in blob
    cols = query(db, "SELECT table_name, column_name, data_type FROM information_schema.columns "
                     "WHERE table_schema = current_schema()")
    for tbl, col, kind in cols:
        cond = (f'position(convert_to(?, \'UTF8\') in "{col}") > 0' if kind == "bytea"
                else f'"{col}"::text LIKE \'%%\' || ? || \'%%\'')
        if query(db, f'SELECT count(*) FROM "{tbl}" WHERE {cond}', (needle,))[0][0]:
            return True
    return False


@asynccontextmanager
async def open_saver(db: str) -> AsyncIterator[Any]:
    """LangGraph's own saver on the database, as another client would use it."""
    if is_pg(db):
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        async with AsyncPostgresSaver.from_conn_string(db) as s:
            await s.setup()
            yield s
    else:
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async with AsyncSqliteSaver.from_conn_string(db) as s:
            yield s
