"""Files written for the user (`/export PATH`): never through a symlink, never over a file unasked.

The working folder may be someone else's: a symlink planted at the name the user types would
otherwise send the write to its target (`notes.md -> ~/.bashrc`), and so would a planted folder
link (`sub -> ~/.ssh`, then `/export sub/authorized_keys`). Every component of the path below the
working folder is opened one by one with O_NOFOLLOW|O_DIRECTORY and the file is made relative to
the last one (openat), so no component is ever followed, not even one swapped in after `kind`
looked. Folders above or outside the working folder are the user's own and are used as they are.
`kind` says what is at the path now; `write_user_file` creates a new file only (O_EXCL|O_NOFOLLOW:
a symlink, even a dangling one, is never followed), or, once the user said yes, replaces a regular
file by renaming a new one over it (the name is replaced, never written through).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)


def _open_parent(path: Path) -> tuple[int, str]:
    """(a descriptor of the folder `path` is in, its last name); OSError ELOOP when a folder
    between the working folder and the file is a symlink."""
    full = Path(os.path.abspath(path))  # lexical: `..` never goes through a link we did not open
    here = Path(os.getcwd())
    if not full.is_relative_to(here) or full == here:
        return os.open(full.parent, _DIR), full.name
    fd = os.open(here, _DIR)
    try:
        for part in full.relative_to(here).parts[:-1]:
            try:
                nxt = os.open(part, _DIR | _NOFOLLOW, dir_fd=fd)
            except OSError as e:
                if e.errno == errno.ENOTDIR and stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode):
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), part) from None
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd, full.name


def kind(path: Path) -> str | None:
    """None (nothing there), "file", "link" (a symlink at the name or in a folder of the path
    below the working folder) or "other" (a folder, a FIFO, a device...)."""
    try:
        fd, name = _open_parent(path)
    except OSError as e:
        return "link" if e.errno == errno.ELOOP else None
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)
    if stat.S_ISLNK(st.st_mode):
        return "link"
    return "file" if stat.S_ISREG(st.st_mode) else "other"


def write_user_file(path: Path, text: str, replace: bool = False) -> None:
    """Write `text` (UTF-8) to a new file at `path`; with `replace`, an existing regular file is
    replaced (its permission bits kept). OSError (FileExistsError for anything already there
    when not replacing, ELOOP for a symlink in the path) otherwise."""
    data = text.encode("utf-8")
    parent, name = _open_parent(path)
    try:
        if not replace:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666, dir_fd=parent)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            return
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            raise FileExistsError(17, "not a regular file", str(path))
        tmp = f".{name}-{secrets.token_hex(6)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode))
            os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=parent)
            except FileNotFoundError:
                pass
            raise
    finally:
        os.close(parent)
