"""The three layers hold: core (pure) <- engine (I/O, no UI text) <- ui (terminal).

Read from the source with `ast`, so the rules hold for every import, also the lazy ones
inside functions: no import cycle inside the package; outside client/ui nothing imports the
translation module, rich or prompt_toolkit, or prints; core imports neither engine nor ui,
and engine does not import ui.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "client"
UI_ONLY = ("rich", "prompt_toolkit", "client.ui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


MODULES = _modules()


def _imports(name: str, path: Path) -> list[str]:
    """Every module `name` imports (absolute names), wherever the import statement sits."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from client.ui import i18n` imports the submodule client.ui.i18n
            subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in MODULES]
            out += subs if len(subs) == len(node.names) else [mod, *subs]
    return out


def _internal_edges() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        deps = set()
        for mod in _imports(name, path):
            # the deepest package module the import names (a.b.func -> a.b)
            while mod and mod not in MODULES:
                mod = mod.rpartition(".")[0]
            if mod and mod != name and mod != "client":
                deps.add(mod)
        graph[name] = deps
    return graph


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ("core", "engine", "ui") else "entry"


def test_the_package_has_the_three_layer_folders() -> None:
    assert {"client.core", "client.engine", "client.ui"} <= set(MODULES)
    loose = [n for n in MODULES if _layer(n) == "entry" and n not in ("client", "client.__main__")]
    assert not loose, f"modules outside the three layers: {loose}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state and (cycle := visit(d)):
                return cycle
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (cycle := visit(n)):
            return cycle
    return None


def test_no_import_cycle_inside_the_package() -> None:
    cycle = find_cycle(_internal_edges())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A cycle is found, and lazy relative imports (where one hides) are seen."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    (tmp_path / "a.py").write_text("def f():\n    from ..ui import i18n\n")
    MODULES["client.engine.x"] = tmp_path / "a.py"
    try:
        assert "client.ui.i18n" in _imports("client.engine.x", tmp_path / "a.py")
    finally:
        MODULES.pop("client.engine.x")


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _layer(n) in ("core", "engine")))
def test_no_ui_outside_the_ui_layer(name: str) -> None:
    path = MODULES[name]
    bad = sorted({m for m in _imports(name, path) if m.startswith(UI_ONLY) and (
        m in UI_ONLY or m.startswith(tuple(u + "." for u in UI_ONLY)))})
    assert not bad, f"{name} imports {bad}: translation and terminal output belong to client/ui"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prints = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Name) and n.func.id == "print")
        or (isinstance(n.func, ast.Attribute) and n.func.attr == "write"
            and isinstance(n.func.value, ast.Attribute) and n.func.value.attr in ("stdout", "stderr")))]
    assert not prints, f"{name} prints (lines {prints}): the engine returns data, the ui prints it"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _layer(n) in ("core", "engine")))
def test_layers_point_inwards(name: str) -> None:
    allowed = {"core": ("client.core",), "engine": ("client.core", "client.engine")}[_layer(name)]
    deps = _internal_edges()[name]
    bad = sorted(d for d in deps if not d.startswith(allowed))
    assert not bad, f"{name} ({_layer(name)}) imports {bad}"


def test_config_imports_nothing_else_from_the_package() -> None:
    assert not _internal_edges()["client.core.config"]
