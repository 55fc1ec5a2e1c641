"""What a pre-imported process must share with an invocation before it may serve it.

Two parts. The identity (which process to ask: one per kind, interpreter, installation and
interpreter flags) names the socket. The key (may it serve this run?) covers everything the
imports depend on: the interpreter, the search path and the mtime of every entry on it (a
`pip install` changes its folder), every source file of this installation (mtime and size),
the interpreter's own environment variables, the locale and time zone, the groups. A process
whose key differs from the invocation's is stale and is never used. Environment variables
that the imports themselves read are compared separately (client/engine/launch/daemon.py
records them while it imports).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("client", "server")  # one distribution installs both side by side
# read by the interpreter itself or by C libraries at start (locale, time zone), never again
FIXED_ENV_PREFIXES = ("PYTHON", "LC_")
FIXED_ENV = ("LANG", "LANGUAGE", "TZ")
# the child re-creates its standard streams from the invocation's own settings
STREAM_ENV = ("PYTHONUNBUFFERED", "PYTHONIOENCODING")


def install_root() -> Path:
    """The folder that holds the `client` (and `server`) packages of this installation."""
    return Path(__file__).resolve().parents[3]


def _digest(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def _flags() -> list:
    # "utf8" is in sys.flags already (and may come from the locale rather than -X): left out here
    xoptions = sorted(map(str, ((k, v) for k, v in sys._xoptions.items() if k != "utf8")))
    return [list(sys.flags), xoptions, list(sys.warnoptions)]


def interpreter_flags() -> list[str]:
    """Command-line options that give a new interpreter this one's flags (identity() equal)."""
    import subprocess

    given = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]
    out: list[str] = []
    i = 0
    while i < len(given):
        if given[i] == "-X" and i + 1 < len(given) and given[i + 1].startswith("utf8"):
            i += 2  # set explicitly below: the locale may have turned it on
            continue
        out.append(given[i])
        i += 1
    return [*out, "-X", f"utf8={sys.flags.utf8_mode}"]


def identity(kind: str) -> str:
    """Short name of the process that may serve `kind` runs of this interpreter and installation."""
    return _digest([kind, sys.executable, sys.version, str(install_root()), _flags()])[:16]


def source_stamp(root: Path | None = None) -> list:
    """(path, mtime_ns, size) of every Python source of this installation, sorted."""
    root = root or install_root()
    out: list = []
    for pkg in PACKAGES:
        for dirpath, dirnames, filenames in os.walk(root / pkg):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".json")):
                    p = os.path.join(dirpath, name)
                    try:
                        st = os.stat(p)
                    except OSError:
                        continue
                    out.append((os.path.relpath(p, root), st.st_mtime_ns, st.st_size))
    return out


def path_stamp(path: list[str]) -> list:
    """Each search-path entry with its mtime: installing or removing a package changes it.
    A relative entry ('' is the working folder) differs per run: each run checks it on its
    own (client/engine/launch/child.py), the key keeps its text only."""
    out: list = []
    for entry in path:
        if not os.path.isabs(entry):
            out.append((entry, "relative"))
            continue
        try:
            out.append((entry, os.stat(entry).st_mtime_ns))
        except OSError:
            out.append((entry, None))
    return out


def fixed_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items()
            if (k.startswith(FIXED_ENV_PREFIXES) or k in FIXED_ENV) and k not in STREAM_ENV}


def _name(finder: object) -> str:
    cls = finder if isinstance(finder, type) else type(finder)
    return f"{cls.__module__}.{cls.__qualname__}"


def key(kind: str, path: list[str] | None = None, env: dict[str, str] | None = None) -> str:
    """The freshness key of this process (path: sys.path without its first entry, the
    script's or working folder, which each run checks on its own)."""
    path = sys.path[1:] if path is None else path
    env = dict(os.environ) if env is None else env
    return _digest([
        identity(kind), path_stamp(path), source_stamp(), fixed_env(env),
        [_name(f) for f in sys.meta_path],
        os.getegid(), sorted(os.getgroups()),
    ])


@dataclass(frozen=True)
class Files:
    """The daemon's files in the private runtime folder, named by kind and identity."""

    sock: Path
    lock: Path
    pid: Path
    log: Path
    spawned: Path

    @classmethod
    def of(cls, rundir: Path, kind: str, name: str) -> Files:
        base = rundir / f"{kind}-{name}"
        return cls(*(Path(f"{base}.{ext}") for ext in ("sock", "lock", "pid", "log", "spawned")))
