"""Tools the user said "always" to, saved per user outside the working folder.

One JSON file per `--user`: $XDG_CONFIG_HOME/mcp-chat/permissions-<user>.json (else
~/.config/mcp-chat/...), directory 0700, file 0600, replaced atomically. An approval names the
server, its command line or URL (no secrets) and the tool: the same name pointing elsewhere is
not approved. It also holds the tool's print (client/core/toolprint.py: digests of its
description, input schema and annotations as approved); an entry without one (saved by an
older client) matches no tool as it is now. A file that is not private (others may read or
write it, another owner, a symlink: plumbing/private.py, the one rule for such files) is
ignored, never trusted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from client.core.paths import safe_name
from client.core.toolprint import ToolPrint
from plumbing.private import read_json, save_json


@dataclass(frozen=True)
class SavedKey:
    server: str
    where: str
    tool: str


def approvals_path(config: Path, user: str) -> Path:
    """`user`'s file in the user's config folder (Settings.dirs.config)."""
    return config / f"permissions-{safe_name(user)}.json"


class SavedApprovals:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._cache: tuple[float, dict[SavedKey, ToolPrint | None]] | None = None  # (mtime, entries)

    def keys(self) -> frozenset[SavedKey]:
        return frozenset(self.approved())

    def approved(self) -> dict[SavedKey, ToolPrint | None]:
        """The saved approvals and the print each was given for (re-read when the file changed;
        empty when absent or untrusted)."""
        try:
            st = self.path.stat()
        except OSError:
            return {}
        if self._cache is not None and self._cache[0] == st.st_mtime_ns:
            return self._cache[1]
        approved = {_key(e): ToolPrint.from_dict(e.get("tool_digest")) for e in self._entries()}
        self._cache = (st.st_mtime_ns, approved)
        return approved

    def _entries(self) -> list[dict]:
        doc = read_json(self.path)
        items = doc.get("allow") if isinstance(doc, dict) else None
        return [e for e in items or [] if isinstance(e, dict)
                and all(isinstance(e.get(k), str) for k in ("server", "where", "tool"))]

    def add(self, key: SavedKey, fingerprint: ToolPrint | None = None) -> str | None:
        """Save one approval (of the tool as `fingerprint` describes it); None, or why it could not be written."""
        entries = [e for e in self._entries() if _key(e) != key]
        entry = {"server": key.server, "where": key.where, "tool": key.tool, "saved_at": int(time.time())}
        if fingerprint is not None:
            entry["tool_digest"] = fingerprint.as_dict()
        entries.append(entry)
        return self._write(entries)

    def clear(self) -> int:
        """Remove every saved approval; how many there were."""
        n = len(self._entries())
        if self.path.exists():
            self._write([])
        return n

    def _write(self, entries: list[dict]) -> str | None:
        err = save_json(self.path, {"version": 2, "allow": entries})
        self._cache = None
        return err


def _key(entry: dict) -> SavedKey:
    return SavedKey(entry["server"], entry["where"], entry["tool"])
