"""Working-folder trust, the I/O half: reading what a folder offers, and the per-user record.

The record is $XDG_CONFIG_HOME/mcp-chat/trusted-folders.json (else ~/.config/...): directory
0700, file 0600, replaced atomically, read and written through plumbing/trust_record.py (the
search server reads the same file). A record that is not private (others may read or write
it, another owner, a symlink: plumbing/private.py) is ignored: then no folder is trusted. The
rules: client/core/trust.py.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Iterable
from urllib.parse import quote

from client.core.config import ConfigError
from client.core.paths import LOCAL_DB, config_dir
from client.core.pg_url import is_postgres_url
from client.core.trust import DB_VAR, DbId, Offer, Record, looks_like_path, offer, path_pieces, record_of, used_env
from plumbing.private import save_json
from plumbing.trust_record import ENV_DIGEST, read_records, read_regular, sha256_bytes, stat_identity

RECORD = "trusted-folders.json"
ENV_FILE = ".env"
BIG_FILE = 8 << 20  # a named file larger than this is keyed on stat_identity, not read whole
SQLITE_MAGIC = b"SQLite format 3\0"


def record_path() -> Path:
    return config_dir() / RECORD


def read_env_file(folder: Path) -> tuple[bytes | None, dict[str, str | None]]:
    """The folder's .env: its bytes (None when absent) and its variables, nothing loaded.
    ConfigError when it is there but cannot be read as UTF-8 text (parse_env)."""
    path = folder / ENV_FILE
    data = read_regular(path)
    if data is None:
        return None, {}
    return data, parse_env(path, data)


def parse_env(path: Path, data: bytes) -> dict[str, str | None]:
    """A .env file's variables (python-dotenv's syntax). A file that is not UTF-8 text (or holds
    a NUL, which no environment variable can) is a ConfigError naming it: one line, exit 2."""
    from dotenv import dotenv_values

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError("env_not_utf8", path=str(path), pos=e.start + 1) from None
    if "\0" in text:
        raise ConfigError("env_not_utf8", path=str(path), pos=len(text[: text.index("\0")].encode()) + 1)
    return dict(dotenv_values(stream=io.StringIO(text)))


def read_user_env(path: Path) -> dict[str, str | None]:
    """The per-user .env's variables ({} when there is none); ConfigError when unreadable."""
    try:
        data = path.read_bytes() if path.is_file() else None
    except OSError as e:
        raise ConfigError("env_unreadable", path=str(path), err=e.strerror or str(e)) from None
    return {} if data is None else parse_env(path, data)


def folder_offer(folder: Path, real_env: Iterable[str], db_chosen: bool, known: Record | None = None) -> Offer:
    """What `folder` would provide. `db_chosen`: --db or a real CHECKPOINT_DB names the database,
    so none in the folder would be used. `known`: the folder's record, if any (a database is
    opened to read its origin only when it is still the file that record names)."""
    real = Path(os.path.realpath(folder))
    data, values = read_env_file(real)
    env = dict(used_env(values, real_env))
    db = None if db_chosen else _folder_db(real, env.get(DB_VAR))
    skip = {str(real / ENV_FILE), *([db] if db else [])}
    files = [(p, file_digest(Path(p))) for p in named_files(real, env.values()) if p not in skip]
    db_id = None
    if db is not None:
        db_id = db_identity(Path(db), origin=known is not None and _same_file(known.db, db))
    return offer(str(real), sha256_bytes(data), values, real_env, db, files, db_id)


def trusting(o: Offer) -> Record:
    """The record that trusts `o` as the user saw it: with the database's origin read now."""
    if o.db is not None and o.db_id is not None and o.db_id.origin is None:
        o = Offer(o.folder, o.env_sha256, o.env, o.db, o.files, db_identity(Path(o.db), origin=True))
    return record_of(o)


def _folder_db(folder: Path, named: str | None) -> str | None:
    """The database in the folder that would be used: the file the folder's CHECKPOINT_DB names
    there (even before it exists), else an existing ./checkpoint.db."""
    if named is not None:
        named = named.strip()
        if not named or is_postgres_url(named):
            return None
        path = _inside(folder, named)
        return str(path) if path is not None else None
    db = folder / LOCAL_DB
    return str(db) if db.is_file() else None


def named_files(folder: Path, values: Iterable[str]) -> list[str]:
    """Files in or below `folder` that the values name (relative to it, or absolute), whether or
    not they exist now, in order, once each; directories are not files."""
    out: list[str] = []
    for value in values:
        for piece in path_pieces(value):
            path = _inside(folder, piece)
            if path is None or path.is_dir() or str(path) in out:
                continue
            if looks_like_path(piece) or path.exists():
                out.append(str(path))
    return out


def _inside(folder: Path, piece: str) -> Path | None:
    """`piece` as a path (relative to `folder`) when it is in or below `folder`: as written, or
    where its symlinks lead. The path as written is kept (its content is what gets read)."""
    try:
        path = Path(os.path.expanduser(piece))
    except (RuntimeError, ValueError):
        return None
    path = Path(os.path.normpath(folder / path))
    base = str(folder).rstrip(os.sep) + os.sep
    if (str(path) + os.sep).startswith(base) or (os.path.realpath(path) + os.sep).startswith(base):
        return path
    return None


def file_digest(path: Path) -> str | None:
    """`sha256:<hex>` of a named file's content; `sqlite:<dev>:<ino>` for a SQLite database (its
    content changes as it is used), `stat:<dev:ino:size:mtime>` for one over BIG_FILE bytes; None
    when it does not exist (or is no regular file)."""
    ident = stat_identity(path)
    if ident is None:
        return None
    data = read_regular(path, limit=BIG_FILE)
    if data is None:
        return "stat:" + ident
    if data.startswith(SQLITE_MAGIC):
        return "sqlite:" + ":".join(ident.split(":")[:2])
    return "sha256:" + sha256_bytes(data)


def db_identity(path: Path, origin: bool) -> DbId | None:
    """The database file's DbId (None when there is no file); `origin`: also read the first row
    of our migration record (read-only, never through the file's own schema code)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return DbId(st.st_dev, st.st_ino, db_origin(path) if origin else None)


def db_origin(path: Path) -> str | None:
    """sha256 of (version, name, applied_at) of the first row of schema_migrations, read-only;
    None for a file that is no SQLite database of ours (or cannot be read now)."""
    import sqlite3

    head = _head(path)
    if head != SQLITE_MAGIC:
        return None
    try:
        con = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        con.execute("PRAGMA trusted_schema=OFF")  # a view or trigger of the file runs none of its functions
        kind = con.execute("SELECT type FROM sqlite_master WHERE name='schema_migrations'").fetchone()
        if not kind or kind[0] != "table":
            return None
        row = con.execute("SELECT version, name, applied_at FROM schema_migrations ORDER BY version LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return sha256_bytes(repr(tuple(row)).encode()) if row else None


def _head(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC))
    except OSError:
        return None


def _same_file(known: DbId | None, db: str) -> bool:
    try:
        st = os.stat(db)
    except OSError:
        return False
    return known is not None and (known.dev, known.ino) == (st.st_dev, st.st_ino)


def load_records(path: Path | None = None) -> list[Record]:
    out = []
    for e in read_records(path or record_path()):
        env = e.get(ENV_DIGEST)
        files = e.get("files") if isinstance(e.get("files"), dict) else {}
        db = e.get("db") if isinstance(e.get("db"), dict) else None
        if env is not None and not isinstance(env, str):
            continue
        out.append(Record(e["path"], env, tuple((k, v) for k, v in files.items() if isinstance(v, str) or v is None),
                          _db_of(db)))
    return out


def _db_of(doc: dict | None) -> DbId | None:
    if doc is None or not all(isinstance(doc.get(k), int) for k in ("dev", "ino")):
        return None
    origin = doc.get("origin")
    return DbId(doc["dev"], doc["ino"], origin if isinstance(origin, str) else None)


def save_records(records: list[Record], path: Path | None = None) -> str | None:
    """None, or why the record could not be written."""
    now = int(time.time())
    return save_json(path or record_path(), {"version": 2, "folders": [
        {"path": r.folder, ENV_DIGEST: r.env_sha256, "files": dict(r.files),
         "db": None if r.db is None else {"dev": r.db.dev, "ino": r.db.ino, "origin": r.db.origin},
         "trusted_at": now} for r in records]})


def with_record(records: list[Record], rec: Record) -> list[Record]:
    """`records` with `rec` for its folder (one entry per folder)."""
    return [r for r in records if r.folder != rec.folder] + [rec]


def without(records: list[Record], folder: str) -> list[Record]:
    return [r for r in records if r.folder != folder]
