"""The per-user runtime folder: where sockets, locks and small state files live.

`runtime_dir(app, override)`: `$<override>`, else `$XDG_RUNTIME_DIR/<app>`, else
`/tmp/<app>-<uid>`. `private_runtime_dir(...)` is that folder only when no other user can read
or plant anything in it; `private_dir(path)` is the check itself (and creates the folder 0700).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def runtime_dir(app: str, override: str) -> Path:
    explicit = os.environ.get(override, "").strip()
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / app
    return Path("/tmp") / f"{app}-{os.geteuid()}"


def private_dir(path: Path) -> Path | None:
    """`path`, created owner-only when missing; None unless it is a real folder (no symlink)
    owned by this user with no group or other permission bits."""
    if not path.is_absolute():
        return None
    try:
        path.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        return None
    return path


def private_runtime_dir(app: str, override: str) -> Path | None:
    return private_dir(runtime_dir(app, override))


def private_temp_dir(prefix: str) -> Path:
    """A fresh folder only this user can enter (mkdtemp: 0700, a name nobody could guess), for
    when there is no private runtime folder. The caller removes it."""
    return Path(tempfile.mkdtemp(prefix=prefix))
