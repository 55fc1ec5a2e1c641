"""Working-folder trust: what a folder offers, and whether it may be used. Pure rules.

A folder can offer what decides what runs, where keys and conversations go and what is
approved: its `.env` (any variable: MCP_CONFIG, *_BASE_URL, MCP_CHAT_YES, CHECKPOINT_DB,
LD_PRELOAD, ...), every file a value of it names in or below the folder (MCP_CONFIG=./mcp.json),
and the database in it (`./checkpoint.db` by default, or the file CHECKPOINT_DB names there).
All of it is used only once the user trusted the folder as it is now. The rules:
- A folder offers something when its `.env` sets at least one variable the real environment
  does not already set, or when a database in it would be used. Every such `.env` counts, even
  one with only an API key: an attacker's key sends the user's conversation to their account.
- Trust is remembered per user (plumbing/trust_record.py) as a Record: the folder's real path,
  the sha256 of its `.env` bytes (None: no .env), a digest of every file its values name (None:
  named but absent) and the database's content (DbSeal). Any difference asks again.
- A named file's digest is its content's sha256; a SQLite file (it changes as it is used) and
  one over BIG_FILE bytes are keyed on their identity instead (`file_digest` in client/ui/folder_trust.py).
- The database is trusted by content, never by a number the file system reuses (ext4 gives a
  file that `git pull` or `git checkout` puts in its place the inode just freed): the sha256 of
  the main file and of its `-wal`, `-shm` and `-journal` (each present or not). The client's own
  writes move the record along: the last client to close a database it opened as trusted seals
  what it leaves (client/engine/trust_db.py `sealer`). While another client of this user has the
  database open (its lock file is this user's and held) its writes are under way: then the main
  file being the one sealed (device and inode, pinned by that client) counts as the same.
- A value naming an existing file outside the folder is used only when that file is a regular
  file of this user's (or root's) that no one else may write; one in the folder only when it is a
  regular file (a FIFO would hold whoever reads it). `unusable` lists the others, and a folder with
  any is not used (trusting it cannot help: another user can rewrite the file).
- The per-user config (`$XDG_CONFIG_HOME/mcp-chat/.env`, `mcp.json`) and real environment
  variables are the user's own: always used. A trusted folder's `.env` still comes before the
  per-user one (real environment first), as it always did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping
from urllib.parse import unquote, urlsplit

from client.core.config import MASK
from client.core.secrets import SECRET_VARS, looks_secret

DB_VAR = "CHECKPOINT_DB"
# A variable whose value is shown as (secret): by its name, or a value carrying URL credentials.
SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASS|PWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE", re.I)
SHOWN_CHARS = 200  # of one value in the question (longer: the middle elided, both ends kept)
# What decides nothing about what runs, where data goes or what is approved: shown after the
# rest, and only these may be summed up as "… and N more". Any other name is decisive.
HARMLESS = frozenset({
    "CLOVA_STUDIO_MODEL", "OPENAI_MODEL", "CONTEXT_STRATEGY", "MAX_TURNS_TO_KEEP", "CONTEXT_TURNS_LIMIT",
    "MAX_INPUT_TOKENS", "MCP_CHAT_LANG", "CLOVA_STUDIO_TIMEOUT", "MCP_CHAT_TEMPERATURE", "MAX_MODEL_CALLS",
    "MAX_TOOL_CALLS", "NAVER_TIMEOUT", "NAVER_RESULT_MAX_CHARS", "MCP_CHAT_LOCAL_THREADS", "MCP_CHAT_MEMORY_SCORER",
})
HARMLESS_SHOWN = 10  # harmless variables listed before "… and N more"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


@dataclass(frozen=True)
class DbSeal:
    """A folder database's content (see the module docstring) and which file its main one is."""

    path: str
    sha256: str | None  # of the main file and its -wal, -shm, -journal; None: no database file
    dev: int = 0
    ino: int = 0
    stats: str = ""  # the four files' status when hashed (mode, inode, size, mtime, ctime): unchanged, not read again


def same_db(was: DbSeal | None, now: DbSeal | None, in_use: bool = False) -> bool:
    """Is the database what the user trusted? The same content; or, while another client of this
    user has it open (`in_use`), the same main file that was sealed."""
    if was is None or now is None:
        return was is None and now is None
    if was.sha256 == now.sha256:  # the status is no part of it: the same bytes in another file are the same
        return True
    return in_use and now.sha256 is not None and (was.dev, was.ino) == (now.dev, now.ino) != (0, 0)


@dataclass(frozen=True)
class Offer:
    """What a folder would provide if trusted."""

    folder: str  # real path
    env_sha256: str | None = None  # of the .env bytes; None: no .env
    env: tuple[tuple[str, str], ...] = ()  # the variables it would set (not already set), in file order
    db: str | None = None  # the database in the folder that would be used
    files: tuple[tuple[str, str | None], ...] = ()  # files the .env names in the folder: (path, digest; None: absent)
    db_seal: DbSeal | None = None  # the database's content now (None: no database offered)
    db_in_use: bool = False  # another client of this user has it open now
    unusable: tuple[tuple[str, str], ...] = ()  # files the .env names that may never be used: (path, why)

    @property
    def empty(self) -> bool:
        return not self.env and self.db is None


@dataclass(frozen=True)
class Record:
    """What the user trusted in a folder."""

    folder: str
    env_sha256: str | None
    files: tuple[tuple[str, str | None], ...] = ()
    db: DbSeal | None = None


def record_of(o: Offer) -> Record:
    return Record(o.folder, o.env_sha256, o.files, o.db_seal if o.db is not None else None)


def changes(o: Offer, rec: Record | None) -> list[str] | None:
    """What differs from what the user trusted (paths, ".env"); None: the folder was never trusted."""
    if rec is None:
        return None
    out = [".env"] if rec.env_sha256 != o.env_sha256 else []
    was = dict(rec.files)
    out += [path for path, digest in o.files if was.get(path) != digest]  # never recorded and absent: the same
    if o.db is not None and not same_db(rec.db, o.db_seal, o.db_in_use):
        out.append(o.db)
    return out


def trusted(o: Offer, records: Iterable[Record]) -> bool:
    if o.empty:
        return True
    rec = next((r for r in records if r.folder == o.folder), None)
    return changes(o, rec) == []


def offer(folder: str, env_digest: str | None, env_values: Mapping[str, str | None], real_env: Iterable[str],
          db: str | None = None, files: Iterable[tuple[str, str | None]] = (), db_seal: DbSeal | None = None,
          db_in_use: bool = False, unusable: Iterable[tuple[str, str]] = ()) -> Offer:
    """`env_values`: the folder .env parsed; `real_env`: names the real environment sets; `db`:
    the database in the folder when it would be used, else None."""
    return Offer(folder, env_digest, used_env(env_values, real_env), db, tuple(files), db_seal, db_in_use,
                 tuple(unusable))


def used_env(env_values: Mapping[str, str | None], real_env: Iterable[str]) -> tuple[tuple[str, str], ...]:
    real = set(real_env)
    return tuple((k, v or "") for k, v in env_values.items() if k not in real and v is not None)


def path_pieces(value: str) -> list[str]:
    """The parts of a value that may name local files (a PATH-like list split on ':'); a URL names none."""
    if _URL.match(value.strip()):
        return []
    return [p.strip() for p in value.split(":") if p.strip()]


def looks_like_path(piece: str) -> bool:
    """A piece that names a file even when there is none (yet): `./x`, `a/b`, `~/x`, `.hidden`."""
    return "/" in piece or piece.startswith((".", "~"))


def decisive(name: str) -> bool:
    return name not in HARMLESS


def ordered(env: Iterable[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the decisive variables, the harmless ones), each in file order."""
    items = list(env)
    return [kv for kv in items if decisive(kv[0])], [kv for kv in items if not decisive(kv[0])]


def is_secret(name: str, value: str) -> bool:
    return name in SECRET_VARS or bool(SECRET_NAME.search(name)) or bool(re.search(r"://[^/\s]*:[^@/\s]*@", value))


def shown_value(name: str, value: str) -> str | None:
    """The value as the question shows it; None for a secret (its name only). A URL always shows
    its scheme, host and port, its userinfo masked (and, for a secret-looking name, nothing else)."""
    url = shown_url(value, brief=bool(SECRET_NAME.search(name)) or name in SECRET_VARS)
    if url is not None:
        return _elided(url)
    if is_secret(name, value):
        return None
    return _elided(value)


def shown_url(value: str, brief: bool = False) -> str | None:
    """`scheme://***@host:port/path?api_key=***`; `brief`: `scheme://host:port` and `/…` for the
    rest. None when `value` is not one URL."""
    text = value.strip()
    if not _URL.match(text) or any(c.isspace() for c in text):
        return None
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    netloc = (MASK + "@" if "@" in parts.netloc else "") + (f"[{host}]" if ":" in host else host)
    netloc += f":{port}" if port is not None else ""
    head = f"{parts.scheme}://{netloc}"
    rest = text[len(parts.scheme) + 3 + len(parts.netloc):]
    if brief:
        return head + ("/…" if rest.strip("/") else "")
    path, sep, query = rest.partition("?")
    if sep:
        query, hash_, frag = query.partition("#")
        query = "&".join(_masked_param(p) for p in query.split("&")) + hash_ + frag
    return head + path + sep + query


def _masked_param(raw: str) -> str:
    name, eq, value = raw.partition("=")
    return f"{name}={MASK}" if eq and value and looks_secret(unquote(name)) else raw


def _elided(value: str) -> str:
    if len(value) <= SHOWN_CHARS:
        return value
    half = (SHOWN_CHARS - 1) // 2  # a path's file name is at its end: never cut that off
    return value[:half] + "…" + value[-half:]
