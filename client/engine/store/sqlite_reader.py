"""The read-only commands' view of a SQLite file (`threads`, `export`).

Nothing is written: no schema is created or upgraded, and no `-wal`, `-shm` or `-lock` file
appears beside it (client/engine/store/sqlite_check.py), so a database in a folder or file this
user may not write is listed and exported all the same. A file without our tables (new, or
another program's) has no threads.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator

from langchain_core.messages import BaseMessage

from client.engine.store.base import StoreError, ThreadInfo
from client.engine.store.migrations import foreign_tables
from client.engine.store.sqlite import SqliteStore
from client.engine.store.sqlite_check import check_readable, readonly_uri, store_error
from client.engine.store.thread_log import THREAD_COLS

DEFAULTS = {"memory_turn": "0", "parent_id": "''", "parent_turn": "0", "kind": "''"}  # a file from before migration 2 or 3


class SqliteReader(SqliteStore):
    tables: frozenset[str] = frozenset()

    @classmethod
    async def open(cls, path: str) -> "SqliteReader":
        check_readable(path)
        self = cls(path)
        try:
            with self._errors():
                await self._connect(readonly_uri(path), uri=True)
                self.tables = frozenset(r[0] for r in await self.sql.rows("SELECT name FROM sqlite_master WHERE type='table'"))
                if "threads" in self.tables:
                    have = {r[1] for r in await self.sql.rows("PRAGMA table_info(threads)")}
                    self.cols = ", ".join(c if c in have or c not in DEFAULTS else f"{DEFAULTS[c]} AS {c}"
                                          for c in THREAD_COLS.split(", "))
            if foreign_tables(set(self.tables)):  # another program's `threads`: not ours to read
                raise StoreError("db_foreign", path=path, tables=", ".join(foreign_tables(set(self.tables))))
        except StoreError:
            await self.close()
            raise
        return self

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as e:
            raise store_error(self.path, e) from None

    async def setup(self) -> None:
        """Nothing: a reader never creates or upgrades a schema."""

    async def list_threads(self) -> list[ThreadInfo]:
        if "threads" not in self.tables:
            return []
        with self._errors():
            return await super().list_threads()

    async def get_thread(self, thread_id: str) -> ThreadInfo | None:
        if "threads" not in self.tables:
            return None
        with self._errors():
            return await super().get_thread(thread_id)

    async def transcript(self, thread_id: str) -> list[tuple[int, BaseMessage]]:
        if "messages" not in self.tables:
            return []
        with self._errors():
            return await super().transcript(thread_id)
