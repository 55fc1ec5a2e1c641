"""Before a SQLite file is opened: may it be written, is it sound, and how to read it untouched.

A database is never written before it is known to be a sound SQLite file this process may
write (the file and its folder: SQLite puts `-wal`/`-shm`/`-journal` beside it). Soundness is
`PRAGMA quick_check` (every page's structure, not the index contents; about 4 ms per MB, see
docs/reliability.md), run on a connection that writes nothing:

- no `-wal` or `-journal` beside the file (no client has it open: ours are in WAL mode, where an
  open connection keeps the `-wal`): `immutable=1`, which creates no `-shm` or `-wal` and takes no
  lock, so a refused file is left byte for byte with nothing new beside it;
- a `-wal` or `-journal` beside it (another client is running, or one was killed): `mode=ro`, which
  takes the locks and also reads the log's committed pages.

The same connection finds another program's database that happens to have a table named like
ours (`threads`, `messages`, ...) but no record of our migrations: it is refused, not migrated.

The read-only commands (`threads`, `export`) read through the same kind of connection and never
write, whatever the file's or folder's permissions.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from client.engine.store.base import StoreError

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_WAIT = 30  # seconds a locking reader waits for a writer (as the store's own connection)
DETAIL_CHARS = 120  # of SQLite's first complaint (it can name tables and indexes: the file's text)


def read_uri(path: str, *, immutable: bool | None = None) -> str:
    """A `file:` URI opening `path` without writing anything next to it (see the module doc)."""
    p = Path(path).resolve()
    if immutable is None:  # a log or journal beside it: a writer may be at work, take the locks
        immutable = not (Path(f"{p}-wal").exists() or Path(f"{p}-journal").exists())
    return p.as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")


def readonly_uri(path: str) -> str:
    """read_uri(path), or the main file alone (immutable) when a `-wal` beside it cannot be read
    here (e.g. no `-shm` in a folder this process may not write). Raises sqlite3 errors."""
    uri = read_uri(path)
    try:
        _open(uri).close()
        return uri
    except sqlite3.OperationalError:
        if "immutable=1" in uri:
            raise
        return read_uri(path, immutable=True)


def _open(uri: str) -> sqlite3.Connection:
    con = sqlite3.connect(uri, uri=True, timeout=BUSY_WAIT)
    try:
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except BaseException:
        con.close()
        raise
    return con


def _detail(e: BaseException | str) -> str:
    """SQLite's first complaint, one line of printable ASCII (it can name the file's tables)."""
    lines = [ln for ln in str(e).splitlines() if ln.strip() and not ln.startswith("***")]
    text = lines[0] if lines else (type(e).__name__ if isinstance(e, BaseException) else "?")
    return re.sub(r"[^ -~]", "?", text)[:DETAIL_CHARS]


def check_readable(path: str) -> None:
    """An existing file that is a SQLite database we may read (nothing is written)."""
    p = Path(path)
    if p.is_dir():
        raise StoreError("db_not_database", path=path)
    if not os.access(p, os.R_OK):
        raise StoreError("db_unreadable", path=path)
    try:
        with open(p, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError:
        raise StoreError("db_unreadable", path=path) from None
    if head and head != SQLITE_MAGIC:
        raise StoreError("db_not_database", path=path)


def store_error(path: str, e: sqlite3.DatabaseError) -> StoreError:
    """A damaged file is db_corrupt; anything else (locked, cannot open) db_error."""
    damaged = not isinstance(e, sqlite3.OperationalError) or "malformed" in str(e) or "not a database" in str(e)
    return StoreError("db_corrupt" if damaged else "db_error", path=path, detail=_detail(e))


def check_sound(path: str) -> None:
    """On a connection that writes nothing: PRAGMA quick_check (else StoreError "db_corrupt"),
    and no tables of ours left by another program (else "db_foreign": never migrated)."""
    from client.engine.store.migrations import foreign_tables

    try:
        con = _open(readonly_uri(path))
        try:
            rows = con.execute("PRAGMA quick_check").fetchall()
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            con.close()
    except sqlite3.DatabaseError as e:
        raise store_error(path, e) from None
    if rows != [("ok",)]:
        raise StoreError("db_corrupt", path=path, detail=_detail(str(rows[0][0]) if rows else "?"))
    if foreign_tables(tables):
        raise StoreError("db_foreign", path=path, tables=", ".join(foreign_tables(tables)))


def check_writable(path: str) -> None:
    """The file (or the new file's folder) may be written by this process and, when it exists,
    holds a sound SQLite database. A new file is created here, owner-only. Raises StoreError."""
    p = Path(path)
    if p.is_dir():
        raise StoreError("db_not_database", path=path)
    folder = p.resolve().parent
    if not folder.is_dir():
        raise StoreError("db_no_folder", path=path, folder=str(folder))
    folder_ok = os.access(folder, os.W_OK | os.X_OK)
    if p.exists():
        check_readable(path)
        if not os.access(p, os.W_OK):
            raise StoreError("db_readonly_file", path=path)
        if not folder_ok:
            raise StoreError("db_readonly_folder", path=path, folder=str(folder))
        if p.stat().st_size:
            check_sound(path)
        return
    if not folder_ok:
        raise StoreError("db_readonly", path=path)
    try:  # the database holds conversations: owner-only from the start
        os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass
    except OSError:
        raise StoreError("db_readonly", path=path) from None
