"""Working-folder trust: what a folder offers, and whether it may be used. Pure rules.

A folder can offer two things that decide what runs, where keys and conversations go and what
is approved: its `.env` (any variable: MCP_CONFIG, *_BASE_URL, MCP_CHAT_YES, CHECKPOINT_DB,
LD_PRELOAD, ...) and a `./checkpoint.db` used as the default database. Both are used only once
the user trusted the folder. The rules:
- A folder offers something when its `.env` sets at least one variable the real environment
  does not already set, or when a `./checkpoint.db` would be the database (no --db, no
  CHECKPOINT_DB). Every such `.env` counts, even one with only an API key: an attacker's key
  sends the user's conversation to the attacker's account.
- Trust is remembered per user for (the folder's real path, the sha256 of its `.env` bytes, or
  none when it has no `.env`). A `.env` that changes, appears or goes away asks again.
- The per-user config (`$XDG_CONFIG_HOME/mcp-chat/.env`, `mcp.json`) and real environment
  variables are the user's own: always used. A trusted folder's `.env` still comes before the
  per-user one (real environment first), as it always did.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from client.core.secrets import SECRET_VARS

# A variable whose value is shown as (secret): by its name, or a value carrying URL credentials.
SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASS|PWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE", re.I)
SHOWN_CHARS = 200  # of one value in the question (longer: the middle elided, both ends kept)


@dataclass(frozen=True)
class Offer:
    """What a folder would provide if trusted."""

    folder: str  # real path
    env_sha256: str | None = None  # of the .env bytes; None: no .env
    env: tuple[tuple[str, str], ...] = ()  # the variables it would set (not already set), in file order
    db: str | None = None  # the ./checkpoint.db that would be the database

    @property
    def empty(self) -> bool:
        return not self.env and self.db is None

    @property
    def key(self) -> "TrustKey":
        return TrustKey(self.folder, self.env_sha256)


@dataclass(frozen=True)
class TrustKey:
    folder: str
    env_sha256: str | None


def env_digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def offer(folder: str, env_bytes: bytes | None, env_values: Mapping[str, str | None], real_env: Iterable[str],
          local_db: str | None) -> Offer:
    """`env_values`: the folder .env parsed; `real_env`: names the real environment sets;
    `local_db`: the folder's checkpoint.db when it would be the database, else None."""
    real = set(real_env)
    used = tuple((k, v or "") for k, v in env_values.items() if k not in real and v is not None)
    return Offer(folder, env_digest(env_bytes), used, local_db)


def trusted(o: Offer, records: Iterable[TrustKey]) -> bool:
    return o.empty or o.key in set(records)


def is_secret(name: str, value: str) -> bool:
    return name in SECRET_VARS or bool(SECRET_NAME.search(name)) or bool(re.search(r"://[^/\s]*:[^@/\s]*@", value))


def shown_value(name: str, value: str) -> str | None:
    """The value as the question shows it; None for a secret (its name only)."""
    if is_secret(name, value):
        return None
    if len(value) <= SHOWN_CHARS:
        return value
    half = (SHOWN_CHARS - 1) // 2  # a path's file name is at its end: never cut that off
    return value[:half] + "…" + value[-half:]


@dataclass
class Records:
    """The per-user list of trusted (folder, .env digest) pairs."""

    keys: list[TrustKey] = field(default_factory=list)

    def add(self, key: TrustKey) -> None:
        self.keys = [k for k in self.keys if k.folder != key.folder] + [key]  # one entry per folder

    def revoke(self, folder: str) -> int:
        n = len(self.keys)
        self.keys = [k for k in self.keys if k.folder != folder]
        return n - len(self.keys)
