"""Small per-user JSON files that decide what is allowed (saved approvals, trusted folders).

Read: never through a symlink, and a file others could have written (group/world-writable,
another owner) counts as absent. Write: directory 0700, file 0600, replaced atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def read_private_json(path: Path) -> Any | None:
    """The document, or None when absent, unreadable, not JSON or not trustworthy."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, encoding="utf-8") as f:
        st = os.fstat(f.fileno())
        if st.st_mode & 0o022 or (hasattr(os, "geteuid") and st.st_uid != os.geteuid()):
            return None  # someone else could have written it for us
        try:
            return json.load(f)
        except (ValueError, UnicodeDecodeError):
            return None


def write_private_json(path: Path, doc: Any) -> str | None:
    """None, or why the file could not be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)  # 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False, indent=2)
            os.replace(tmp, path)
        except OSError:
            os.unlink(tmp)
            raise
    except OSError as e:
        return f"{path}: {e.strerror or type(e).__name__}"
    return None
