"""Per-user places (XDG base directories): data, config, the default database."""

from __future__ import annotations

import os
from pathlib import Path

APP = "mcp-chat"
LOCAL_DB = "checkpoint.db"  # the cookbook's layout: a database in the working folder


def _xdg(var: str, *fallback: str) -> Path:
    base = os.environ.get(var, "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home().joinpath(*fallback)
    return root / APP


def data_dir() -> Path:
    """$XDG_DATA_HOME/mcp-chat, else ~/.local/share/mcp-chat."""
    return _xdg("XDG_DATA_HOME", ".local", "share")


def config_dir() -> Path:
    """$XDG_CONFIG_HOME/mcp-chat, else ~/.config/mcp-chat."""
    return _xdg("XDG_CONFIG_HOME", ".config")


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
