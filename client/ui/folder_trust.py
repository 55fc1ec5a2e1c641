"""Working-folder trust, the I/O half: reading what a folder offers (its `.env`, the files that
names, its database). The rules: client/core/trust.py; the per-user record:
client/engine/trust_records.py; the database's seal: client/engine/trust_db.py.

Every file is read without blocking and only when it is a regular file (a FIFO as `.env` or as a
named file never holds start-up or `mcp-chat trust`). A named file that is no regular file, or
one outside the folder that another user owns or may write, makes the folder `unusable`: trusting
it cannot make it safe.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Iterable

from client.core.config import ConfigError
from client.core.paths import LOCAL_DB
from client.core.pg_url import is_postgres_url
from client.core.trust import DB_VAR, Offer, Record, looks_like_path, offer, path_pieces, used_env
from client.engine.trust_db import db_seal, in_use
from client.engine.trust_records import load_records, record_path, save_records, update, with_record, without
from plumbing.trust_record import read_regular, sha256_bytes, stat_identity

__all__ = ["folder_offer", "load_records", "read_env_file", "read_user_env", "record_path", "save_records",
           "unusable", "update", "with_record", "without"]

ENV_FILE = ".env"
BIG_FILE = 8 << 20  # a named file larger than this is keyed on stat_identity, not read whole
SQLITE_MAGIC = b"SQLite format 3\0"


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
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO is not waited on
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError("env_unreadable", path=str(path), err=e.strerror or str(e)) from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {}
        try:
            data = f.read()
        except OSError as e:
            raise ConfigError("env_unreadable", path=str(path), err=e.strerror or str(e)) from None
    return parse_env(path, data)


def folder_offer(folder: Path, real_env: Iterable[str], db_chosen: bool, known: Record | None = None) -> Offer:
    """What `folder` would provide. `db_chosen`: --db or a real CHECKPOINT_DB names the database,
    so none in the folder would be used. `known`: the folder's record, if any (whether another
    client has the database open is asked only when its content differs from that record's)."""
    real = Path(os.path.realpath(folder))
    data, values = read_env_file(real)
    env = dict(used_env(values, real_env))
    db = None if db_chosen else _folder_db(real, env.get(DB_VAR))
    skip = {str(real / ENV_FILE), *([db] if db else [])}
    files = [(p, file_digest(Path(p))) for p in named_files(real, env.values()) if p not in skip]
    seal = db_seal(db, known.db if known else None) if db is not None else None
    busy = bool(seal and known and known.db and known.db.sha256 != seal.sha256 and in_use(seal.path))
    return offer(str(real), sha256_bytes(data), values, real_env, db, files, seal, busy, unusable(real, env.values()))


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


def unusable(folder: Path, values: Iterable[str]) -> list[tuple[str, str]]:
    """The files the values name that may not be used, whatever the user answers: (path, why).
    In the folder: one that is there but is no regular file or folder ("not_file": a FIFO would
    hold whoever reads it). Outside it (the user's own, else another user's): one that is no
    regular file, belongs to another user than this one or root ("owner"), or that others may
    write ("writable"): it could be rewritten after the user trusted the folder."""
    out: list[tuple[str, str]] = []
    for value in values:
        for piece in path_pieces(value):
            try:
                path = Path(os.path.normpath(folder / os.path.expanduser(piece)))
                st = os.stat(path)
            except (OSError, RuntimeError, ValueError):
                continue  # absent: nothing to read
            if stat.S_ISDIR(st.st_mode) or any(p == str(path) for p, _ in out):
                continue
            why = None if stat.S_ISREG(st.st_mode) else "not_file"
            if why is None and _inside(folder, piece) is None:
                why = "owner" if st.st_uid not in (os.geteuid(), 0) else "writable" if st.st_mode & 0o022 else None
            if why is not None:
                out.append((str(path), why))
    return out


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
