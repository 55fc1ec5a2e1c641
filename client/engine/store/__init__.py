"""Storage: threads, transcript, usage, memory rows and the LangGraph checkpointer (base.py: the protocols)."""

from client.engine.store.base import Claims, Lineage, MemoryRows, Store, StoreError, ThreadInfo, ThreadLog, TurnUsage
from client.core.pg_url import is_postgres_url, mask_url
from client.engine.store.serde import TamperedCheckpoint
from pathlib import Path


async def open_store(url: str, *, readonly: bool = False, config: Path | None = None) -> Store:
    """Open (and create or upgrade) the database named by a path or a postgresql:// URL.
    `readonly` (threads, export): a SQLite file is only read, never created, upgraded or
    written (client/engine/store/sqlite_reader.py). A trusted folder's SQLite database that is
    what the user trusted (the record in `config`, the user's config folder) is sealed again when
    the last client closes it (client/engine/trust_db.py)."""
    if is_postgres_url(url):
        try:
            from client.engine.store.postgres import PostgresStore
        except ImportError as e:  # the driver packages are missing
            raise StoreError("db_pg_missing", detail=str(e)) from None
        return await PostgresStore.open(url)
    if readonly:
        from client.engine.store.sqlite_reader import SqliteReader

        return await SqliteReader.open(url)
    from client.engine.store.sqlite import SqliteStore
    from client.engine.trust_db import sealer

    seal = sealer(url, config) if config else None  # a trusted folder's database, as trusted: sealed again after our own writes
    store = await SqliteStore.open(url)
    store.at_last_close = seal
    return store


__all__ = ["Claims", "Lineage", "MemoryRows", "Store", "StoreError", "TamperedCheckpoint", "ThreadInfo", "ThreadLog",
           "TurnUsage", "is_postgres_url", "mask_url", "open_store"]
