"""Tools the user said "always" to, saved per user outside the working folder.

One JSON file per `--user`: $XDG_CONFIG_HOME/mcp-chat/permissions-<user>.json (else
~/.config/mcp-chat/...), directory 0700, file 0600, replaced atomically. An approval names the
server, its command line or URL (no secrets) and the tool: the same name pointing elsewhere is
not approved. A file others could have written (group/world-writable, another owner) is
ignored, never trusted.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SavedKey:
    server: str
    where: str
    tool: str


def config_dir() -> Path:
    """$XDG_CONFIG_HOME/mcp-chat, else ~/.config/mcp-chat (a relative XDG value is ignored)."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "mcp-chat"


def approvals_path(user: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.\-]", "_", user or "user")[:64].lstrip(".") or "user"
    return config_dir() / f"permissions-{safe}.json"


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
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return []
        with os.fdopen(fd, encoding="utf-8") as f:
            st = os.fstat(f.fileno())
            if st.st_mode & 0o022 or (hasattr(os, "geteuid") and st.st_uid != os.geteuid()):
                return []  # someone else could have approved tools for us
            try:
                doc = json.load(f)
            except (ValueError, UnicodeDecodeError):
                return []
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
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".permissions-", dir=self.path.parent)  # 0600
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump({"version": 1, "allow": entries}, f, ensure_ascii=False, indent=2)
                os.replace(tmp, self.path)
            except OSError:
                os.unlink(tmp)
                raise
        except OSError as e:
            return f"{self.path}: {e.strerror or type(e).__name__}"
        self._cache = None
        return None
