"""Working-folder trust, the I/O half: reading what a folder offers, and the per-user record.

The record is $XDG_CONFIG_HOME/mcp-chat/trusted-folders.json (else ~/.config/...): directory
0700, file 0600, replaced atomically. A record that is not private (others may read or write
it, another owner, a symlink: plumbing/private.py) is ignored: then no folder is trusted. The
rules: client/core/trust.py.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Iterable

from client.core.config import ConfigError
from client.core.paths import LOCAL_DB, config_dir
from client.core.trust import Offer, Records, TrustKey, offer
from plumbing.private import read_json, save_json

RECORD = "trusted-folders.json"
ENV_FILE = ".env"


def record_path() -> Path:
    return config_dir() / RECORD


def read_env_file(folder: Path) -> tuple[bytes | None, dict[str, str | None]]:
    """The folder's .env: its bytes (None when absent) and its variables, nothing loaded.
    ConfigError when it is there but cannot be read as UTF-8 text (parse_env)."""
    path = folder / ENV_FILE
    try:
        data = path.read_bytes() if path.is_file() else None
    except OSError:
        data = None
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


def folder_offer(folder: Path, real_env: Iterable[str], db_chosen: bool) -> Offer:
    """What `folder` would provide. `db_chosen`: --db or a real CHECKPOINT_DB names the database,
    so a ./checkpoint.db there would not be used anyway."""
    real = Path(os.path.realpath(folder))
    data, values = read_env_file(real)
    db = real / LOCAL_DB
    return offer(str(real), data, values, real_env, None if db_chosen or not db.is_file() else str(db))


def load_records(path: Path | None = None) -> Records:
    doc = read_json(path or record_path())
    items = doc.get("folders") if isinstance(doc, dict) else None
    keys = [TrustKey(e["path"], e.get("env_sha256")) for e in items or []
            if isinstance(e, dict) and isinstance(e.get("path"), str)
            and (e.get("env_sha256") is None or isinstance(e.get("env_sha256"), str))]
    return Records(keys)


def save_records(records: Records, path: Path | None = None) -> str | None:
    """None, or why the record could not be written."""
    return save_json(path or record_path(), {"version": 1, "folders": [
        {"path": k.folder, "env_sha256": k.env_sha256, "trusted_at": int(time.time())} for k in records.keys]})
