"""The per-user record of trusted folders: read, written, and changed under a lock.

$XDG_CONFIG_HOME/mcp-chat/trusted-folders.json (else ~/.config/...): directory 0700, file 0600,
replaced atomically, read and written through plumbing/trust_record.py (the search server reads
the same file). A record that is not private (others may read or write it, another owner, a
symlink: plumbing/private.py) is ignored: then no folder is trusted. A change (`update`) reads,
changes and writes the file holding `<record>.lock`, so a question answered in one terminal and
a database sealed at another client's close (client/engine/trust_db.py) do not undo each other.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from client.core.paths import ensure_private_dir
from client.core.trust import DbSeal, Record
from plumbing.locks import Lock
from plumbing.private import save_json
from plumbing.trust_record import ENV_DIGEST, read_records

RECORD = "trusted-folders.json"
VERSION = 3  # 3: the database by content (DbSeal); 2: by inode and first migration row; 1: .env only


def record_path(config: Path) -> Path:
    """The record in the user's config folder (Settings.dirs.config)."""
    return config / RECORD


def load_records(path: Path) -> list[Record]:
    out = []
    for e in read_records(path):
        env = e.get(ENV_DIGEST)
        files = e.get("files") if isinstance(e.get("files"), dict) else {}
        db = e.get("db") if isinstance(e.get("db"), dict) else None
        if env is not None and not isinstance(env, str):
            continue
        out.append(Record(e["path"], env, tuple((k, v) for k, v in files.items() if isinstance(v, str) or v is None),
                          _db_of(db)))
    return out


def _db_of(doc: dict | None) -> DbSeal | None:
    """A version 3 seal; an older record's database (its inode, no content) seals nothing: asked once more."""
    if doc is None:
        return None
    path, sha = doc.get("path"), doc.get("sha256")
    if not isinstance(path, str) or not (sha is None or isinstance(sha, str)) or "sha256" not in doc:
        return DbSeal("", None)
    ids = [doc.get(k) if isinstance(doc.get(k), int) else 0 for k in ("dev", "ino")]
    stats = doc.get("stats") if isinstance(doc.get("stats"), str) else ""
    return DbSeal(path, sha, *ids, stats)


def save_records(records: list[Record], path: Path) -> str | None:
    """None, or why the record could not be written."""
    now = int(time.time())
    return save_json(path, {"version": VERSION, "folders": [
        {"path": r.folder, ENV_DIGEST: r.env_sha256, "files": dict(r.files),
         "db": None if r.db is None else {"path": r.db.path, "sha256": r.db.sha256, "dev": r.db.dev, "ino": r.db.ino,
                                          "stats": r.db.stats},
         "trusted_at": now} for r in records]})


def update(path: Path, change: Callable[[list[Record]], list[Record]]) -> str | None:
    """Read, change and write the record at `path` under its lock; None, or why it could not be written."""
    try:
        ensure_private_dir(path.parent)
        with Lock(path.with_name(RECORD + ".lock")):
            return save_records(change(load_records(path)), path)
    except OSError as e:
        return f"{path}: {e.strerror or type(e).__name__}"


def with_record(records: list[Record], rec: Record) -> list[Record]:
    """`records` with `rec` for its folder (one entry per folder)."""
    return [r for r in records if r.folder != rec.folder] + [rec]


def without(records: list[Record], folder: str) -> list[Record]:
    return [r for r in records if r.folder != folder]
