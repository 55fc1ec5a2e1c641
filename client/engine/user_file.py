"""Files written for the user (`/export PATH`): never through a symlink, never over a file unasked.

The working folder may be someone else's: a symlink planted at the name the user types would
otherwise send the write to its target (`notes.md -> ~/.bashrc`). `kind` says what is at the
path now, without following it; `write_user_file` creates a new file only (O_EXCL|O_NOFOLLOW:
a symlink, even a dangling one, is never followed), or, once the user said yes, replaces a
regular file by renaming a new one over it (the name is replaced, never written through).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def kind(path: Path) -> str | None:
    """None (nothing there), "file", "link" or "other" (a folder, a FIFO, a device...)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "link"
    return "file" if stat.S_ISREG(st.st_mode) else "other"


def write_user_file(path: Path, text: str, replace: bool = False) -> None:
    """Write `text` (UTF-8) to a new file at `path`; with `replace`, an existing regular file is
    replaced (its permission bits kept). OSError (FileExistsError for anything already there
    when not replacing) otherwise."""
    data = text.encode("utf-8")
    if not replace:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise FileExistsError(17, "not a regular file", str(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
