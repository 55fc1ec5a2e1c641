"""Storage: threads, transcript, usage and the LangGraph checkpointer."""

from .base import Store, StoreError, ThreadInfo, TurnUsage


async def open_store(url: str) -> Store:
    """Open (and create or upgrade) the database named by a path or URL."""
    from .sqlite import SqliteStore

    if url.startswith(("postgres://", "postgresql://")):
        raise StoreError("db_postgres_unsupported")
    return await SqliteStore.open(url)


__all__ = ["Store", "StoreError", "ThreadInfo", "TurnUsage", "open_store"]
