"""Per-user places (XDG base directories): data, config, cache, runtime, the default database,
and a user name made safe for a file name. The one place these rules are written (the runtime
folder's, shared with the search server, in plumbing/rundir.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from plumbing import rundir

APP = "mcp-chat"
RUNTIME_ENV = "MCP_CHAT_RUNTIME_DIR"
LOCAL_DB = "checkpoint.db"  # the cookbook's layout: a database in the working folder


_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")


def _xdg(var: str, *fallback: str) -> Path:
    """$VAR/mcp-chat, else ~/<fallback>/mcp-chat; a relative $VAR is ignored (the XDG spec), so
    the working folder never stands in for a per-user one."""
    base = os.environ.get(var, "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home().joinpath(*fallback)
    return root / APP


def safe_name(user: str) -> str:
    """`user` as part of a file name: letters, digits, '_', '.', '-' only, at most 64
    characters, no leading dot (a --user of '../x' stays inside its folder)."""
    return _UNSAFE.sub("_", user or "user")[:64].lstrip(".") or "user"


def data_dir() -> Path:
    """$XDG_DATA_HOME/mcp-chat, else ~/.local/share/mcp-chat."""
    return _xdg("XDG_DATA_HOME", ".local", "share")


def config_dir() -> Path:
    """$XDG_CONFIG_HOME/mcp-chat, else ~/.config/mcp-chat."""
    return _xdg("XDG_CONFIG_HOME", ".config")


def cache_dir() -> Path:
    """$MCP_CHAT_CACHE, else $XDG_CACHE_HOME/mcp-chat, else ~/.cache/mcp-chat (the local model)."""
    explicit = os.environ.get("MCP_CHAT_CACHE", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    return _xdg("XDG_CACHE_HOME", ".cache")


def user_env_file() -> Path:
    return config_dir() / ".env"


def user_mcp_config() -> Path:
    """The default `mcpServers` file."""
    return config_dir() / "mcp.json"


def default_db(local: bool = False) -> str:
    """`./checkpoint.db` when it exists and the working folder is trusted (`local`,
    client/core/trust.py), else the per-user database."""
    if local and Path(LOCAL_DB).is_file():
        return LOCAL_DB
    return str(data_dir() / LOCAL_DB)


def ensure_private_dir(path: Path) -> None:
    """Create a per-user directory (owner-only) if missing."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)


def private_runtime_dir() -> Path | None:
    """The per-user folder for sockets and small state files (the pre-imported processes, the
    kept local model), when no other user can reach into it: $MCP_CHAT_RUNTIME_DIR, else
    $XDG_RUNTIME_DIR/mcp-chat, else /tmp/mcp-chat-<uid> (the rules: plumbing/rundir.py)."""
    return rundir.private_runtime_dir(APP, RUNTIME_ENV)
