"""Each server's last known tool list, kept per user so the next launch's first request carries it
before the server is up (issue 48).

One file per configuration entry: $XDG_CACHE_HOME/mcp-chat/tools/<fingerprint>.json (the user's
cache folder, Settings.dirs; never the working folder), written and read by the one rule
for private files (plumbing/private.py: 0600 in a 0700 folder, atomic; a file that is not the
user's own, that others may read or write, or a symlink counts as absent). The fingerprint covers
the whole entry (transport, command, args, cwd, the names of its environment variables and a
digest of their values, URL, header names, protocol, OAuth on or off) and the client's version:
change any of it and the saved list no longer applies. A file that does not parse is ignored and
named once (`problems`). What a file holds is a server's answer: parsed strictly (the SDK's Tool
model), offered to the model like a live list, and never trusted to authorize a call (hub.py checks
every call against the live definition).

A 2026-07-28 list's `ttlMs` and `cacheScope` are kept with it. The saved list is offered whatever
its age (an absent or 0 ttlMs means "list again once the server is up", which the client always
does; it never means "offer no tools"); a "private" list (and a 2025 server's, which sends
neither) is reused only by the same --user, a "public" one by every --user of this account.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mcp import types
from pydantic import ValidationError

from client import __version__
from client.engine.mcp.bundled import dump
from client.engine.mcp.specs import ServerSpec
from plumbing.private import read_private, save_json

FORMAT = 1
MAX_BYTES = 8 << 20  # one server's listing; a bigger file is not ours
Scope = Literal["public", "private"]


def tools_dir(cache: Path) -> Path:
    """The lists' folder in the user's cache (Settings.dirs.cache)."""
    return cache / "tools"


def fingerprint(spec: ServerSpec) -> str:
    """What the saved list of `spec` is keyed by (hex); secret values only as one digest."""
    env = spec.env or {}
    doc = {
        "client": __version__, "transport": spec.transport, "command": spec.command, "args": spec.args,
        "cwd": spec.cwd, "here": _here(spec), "env": sorted(env), "env_values": _digest(sorted(env.items())),
        "url": spec.url, "headers": sorted(k.lower() for k in spec.headers), "protocol": spec.protocol,
        "oauth": spec.oauth is not None,
    }
    return _digest(doc)


def _here(spec: ServerSpec) -> str | None:
    """The working folder, when the entry names a relative path that exists there (`python x.py`):
    the same entry run elsewhere is another server."""
    if spec.transport != "stdio" or (spec.cwd and os.path.isabs(spec.cwd)):
        return None
    for part in (spec.command, *spec.args):
        if part and not os.path.isabs(part) and ("/" in part or os.path.splitext(part)[1]) and os.path.exists(part):
            return os.getcwd()
    return None


def _digest(value: Any) -> str:
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Saved:
    tools: list[types.Tool]
    saved_at: float
    ttl_ms: int
    scope: Scope


class SavedTools:
    def __init__(self, user: str, folder: Path) -> None:
        self.user = user
        self.folder = folder
        self.problems: list[Path] = []  # files that did not parse: ignored, named once (take_problems)

    def path(self, spec: ServerSpec) -> Path:
        return self.folder / f"{fingerprint(spec)}.json"

    def load(self, spec: ServerSpec) -> Saved | None:
        """The saved list of this entry, for this user; None when there is none to use."""
        path = self.path(spec)
        data = read_private(path, MAX_BYTES)
        if data is None:
            return None
        saved = _parse(data)
        if saved is None:
            self.problems.append(path)
            return None
        user, saved = saved
        if saved.scope == "private" and user != self.user:
            return None
        return saved

    def save(self, spec: ServerSpec, tools: list[types.Tool], ttl_ms: int, scope: Scope) -> str | None:
        """Keep `tools` as the entry's last known list; None, or why it could not be written."""
        doc = {"format": FORMAT, "server": spec.name, "saved_at": int(time.time()), "ttl_ms": int(ttl_ms),
               "scope": scope, "user": self.user if scope == "private" else None, "tools": [dump(t) for t in tools]}
        return save_json(self.path(spec), doc)

    def take_problems(self) -> list[Path]:
        out, self.problems = self.problems, []
        return out


def _parse(data: bytes) -> tuple[str | None, Saved] | None:
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("tools"), list):
        return None
    ttl, scope, user, at = doc.get("ttl_ms"), doc.get("scope"), doc.get("user"), doc.get("saved_at")
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0 or scope not in ("public", "private") \
            or not (user is None or isinstance(user, str)) or isinstance(at, bool) or not isinstance(at, (int, float)):
        return None
    try:
        tools = [types.Tool.model_validate(t) for t in doc["tools"]]
    except (ValidationError, TypeError):
        return None
    if len({t.name for t in tools}) != len(tools):
        return None
    return user, Saved(tools, float(at), ttl, scope)
