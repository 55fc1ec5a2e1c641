"""What a daemon may import before it serves: every module of a package, and every module that
package's code imports anywhere (also inside functions, where heavy libraries are imported lazily
so that a cold start pays only for what its path needs). Which packages, and which modules a
library imports only while it runs, the program's entry point says."""

from __future__ import annotations

import ast
import importlib
import os
import sys
from pathlib import Path
from typing import Callable, Iterable


def imported_by(package: str, root: Path) -> list[str]:
    """The package's own modules and every absolute module name its sources import, sorted."""
    base = root / package
    names: set[str] = set()
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(base.parent).with_suffix("").parts
        own = ".".join(rel[:-1] if rel[-1] == "__init__" else rel)
        if own.endswith("__main__"):
            continue
        names.add(own)
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return sorted(n for n in names if not n.startswith("__"))


def preload(root: Path, packages: Iterable[str], also: Iterable[str] = ()) -> list[str]:
    """Import everything `packages` (under `root`) may import, and the modules `also` names;
    returns the names that could not be imported (optional dependencies), which runs then
    import, or fail on, as cold starts do."""
    failed = []
    for name in [*(n for p in packages for n in imported_by(p, root)), *also]:
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - e.g. an optional dependency that is not installed
            failed.append(name)
    return failed


def recording_env(preload: Callable[[], object]) -> dict[str, str | None]:
    """Run `preload` and return the environment variables it read (name -> value then):
    a later run is served only when its environment has the same values. Reads made by
    sysconfig (install paths, never used by the program) do not count."""
    read: set[str] = set()
    cls = type(os.environ)
    get, has = cls.__getitem__, cls.__contains__

    def note(k: object) -> None:
        f = sys._getframe(2)
        for _ in range(8):
            if f is None:
                break
            if f.f_code.co_filename.endswith("sysconfig.py"):
                return
            f = f.f_back
        read.add(str(k))

    def getitem(self: os._Environ, k: str) -> str:  # type: ignore[type-arg]
        note(k)
        return get(self, k)

    def contains(self: os._Environ, k: object) -> bool:  # type: ignore[type-arg]
        note(k)
        return has(self, k)

    cls.__getitem__, cls.__contains__ = getitem, contains  # type: ignore[method-assign]
    try:
        preload()
    finally:
        cls.__getitem__, cls.__contains__ = get, has  # type: ignore[method-assign]
    return {k: os.environ.get(k) for k in sorted(read)}
