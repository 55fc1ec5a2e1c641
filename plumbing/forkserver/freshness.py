"""What a pre-imported process must share with an invocation before it may serve it.

Three parts. The identity (which process to ask: one per kind, interpreter, installation and
interpreter flags) names the socket. The key (may it serve this run?) covers what the imports
depend on: the interpreter, the search path and the mtime of every entry on it (a `pip install`
changes its folder), every source file of the program's packages (mtime and size), the
interpreter's own environment variables, the locale and time zone, the groups. And the code
stamp: mtime and size of the file of every module the daemon imported, recorded after importing
and checked again before each fork, so an in-place edit of an installed dependency (which
changes no folder) retires the daemon too. Environment variables that the imports themselves
read are compared separately (daemon.py records them while it imports).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from plumbing.forkserver import Program

# read by the interpreter itself or by C libraries at start (locale, time zone), never again
FIXED_ENV_PREFIXES = ("PYTHON", "LC_")
FIXED_ENV = ("LANG", "LANGUAGE", "TZ")
# the child re-creates its standard streams from the invocation's own settings
STREAM_ENV = ("PYTHONUNBUFFERED", "PYTHONIOENCODING")


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


def identity(program: Program) -> str:
    """Short name of the process that may serve this program's runs of this interpreter and installation."""
    return _digest([program.kind, sys.executable, sys.version, str(program.root), _flags()])[:16]


def source_stamp(root: Path, packages: tuple[str, ...]) -> list:
    """(path, mtime_ns, size) of every Python source (and JSON data file) of the packages, sorted."""
    out: list = []
    for pkg in packages:
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
    own (child.py), the key keeps its text only."""
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


def key(program: Program, path: list[str] | None = None, env: dict[str, str] | None = None) -> str:
    """The freshness key of this process (path: sys.path without its first entry, the
    script's or working folder, which each run checks on its own)."""
    path = sys.path[1:] if path is None else path
    env = dict(os.environ) if env is None else env
    return _digest([
        identity(program), path_stamp(path), source_stamp(program.root, program.packages), fixed_env(env),
        [_name(f) for f in sys.meta_path],
        os.getegid(), sorted(os.getgroups()),
    ])


Stamp = tuple[str, int, int]  # path, mtime_ns, size


def code_stamp() -> list[Stamp]:
    """The file of every imported module (sources, bytecode-only modules, extension modules),
    with its mtime and size now."""
    files = set()
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if isinstance(origin, str) and os.path.isabs(origin) and getattr(spec, "has_location", False):
            files.add(origin)
    out = []
    for f in sorted(files):
        try:
            st = os.stat(f)
        except OSError:
            continue
        out.append((f, st.st_mtime_ns, st.st_size))
    return out


def changed(stamps: list[Stamp]) -> str | None:
    """The first recorded file that is no longer as it was (edited, replaced, removed)."""
    for f, mtime, size in stamps:
        try:
            st = os.stat(f)
        except OSError:
            return f
        if st.st_mtime_ns != mtime or st.st_size != size:
            return f
    return None


def newer_than(stamps: list[Stamp], since_ns: int) -> str | None:
    """A file changed while it was being imported (its mtime after `since_ns`): what was
    imported may be the old text, so this process must not serve."""
    return next((f for f, mtime, _ in stamps if mtime >= since_ns), None)


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
