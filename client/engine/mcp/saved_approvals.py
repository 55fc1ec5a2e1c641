"""Tools the user said "always" to, saved per user outside the working folder.

One JSON file per `--user`: $XDG_CONFIG_HOME/mcp-chat/permissions-<user>.json (else
~/.config/mcp-chat/...), directory 0700, file 0600, replaced atomically. An approval names the
server, its command line or URL (no secrets) and the tool: the same name pointing elsewhere is
not approved. A file that is not private (others may read or write it, another owner, a
symlink: plumbing/private.py, the one rule for such files) is ignored, never trusted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from client.core.paths import config_dir, safe_name
from plumbing.private import read_json, save_json


@dataclass(frozen=True)
class SavedKey:
    server: str
    where: str
    tool: str


def approvals_path(user: str) -> Path:
    return config_dir() / f"permissions-{safe_name(user)}.json"


class SavedApprovals:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._cache: tuple[float, frozenset[SavedKey]] | None = None  # (mtime, keys)

    def keys(self) -> frozenset[SavedKey]:
        """The saved approvals (re-read when the file changed; empty when absent or untrusted)."""
        try:
            st = self.path.stat()
        except OSError:
            return frozenset()
        if self._cache is not None and self._cache[0] == st.st_mtime_ns:
            return self._cache[1]
        keys = frozenset(SavedKey(e["server"], e["where"], e["tool"]) for e in self._entries())
        self._cache = (st.st_mtime_ns, keys)
        return keys

    def _entries(self) -> list[dict]:
        doc = read_json(self.path)
        items = doc.get("allow") if isinstance(doc, dict) else None
        return [e for e in items or [] if isinstance(e, dict)
                and all(isinstance(e.get(k), str) for k in ("server", "where", "tool"))]

    def add(self, key: SavedKey) -> str | None:
        """Save one approval; None, or why it could not be written."""
        entries = [e for e in self._entries() if SavedKey(e["server"], e["where"], e["tool"]) != key]
        entries.append({"server": key.server, "where": key.where, "tool": key.tool, "saved_at": int(time.time())})
        return self._write(entries)

    def clear(self) -> int:
        """Remove every saved approval; how many there were."""
        n = len(self._entries())
        if self.path.exists():
            self._write([])
        return n

    def _write(self, entries: list[dict]) -> str | None:
        err = save_json(self.path, {"version": 1, "allow": entries})
        self._cache = None
        return err
