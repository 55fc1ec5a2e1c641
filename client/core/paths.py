"""Per-user places: the default database, the runtime folder and a user name made safe for a file
name. The folders themselves (XDG) are a `Dirs` (client/core/config.py), decided once by the ui
from its environment and handed down; the runtime folder's rule, shared with the search server,
is plumbing/rundir.py's."""

from __future__ import annotations

import re
from pathlib import Path

from client.core.config import Dirs
from plumbing import rundir

APP = "mcp-chat"
RUNTIME_ENV = "MCP_CHAT_RUNTIME_DIR"
LOCAL_DB = "checkpoint.db"  # the cookbook's layout: a database in the working folder


_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")


def safe_name(user: str) -> str:
    """`user` as part of a file name: letters, digits, '_', '.', '-' only, at most 64
    characters, no leading dot (a --user of '../x' stays inside its folder)."""
    return _UNSAFE.sub("_", user or "user")[:64].lstrip(".") or "user"


def default_db(dirs: Dirs, local: bool = False) -> str:
    """`./checkpoint.db` when it exists and the working folder is trusted (`local`,
    client/core/trust.py), else the per-user database."""
    if local and Path(LOCAL_DB).is_file():
        return LOCAL_DB
    return str(dirs.data / LOCAL_DB)


def ensure_private_dir(path: Path) -> None:
    """Create a per-user directory (owner-only) if missing."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)


def private_runtime_dir() -> Path | None:
    """The per-user folder for sockets and small state files (the pre-imported processes, the
    kept local model), when no other user can reach into it: $MCP_CHAT_RUNTIME_DIR, else
    $XDG_RUNTIME_DIR/mcp-chat, else /tmp/mcp-chat-<uid> (the rules: plumbing/rundir.py)."""
    return rundir.private_runtime_dir(APP, RUNTIME_ENV)
