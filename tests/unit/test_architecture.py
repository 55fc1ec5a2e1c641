"""The three layers hold: core (pure) <- engine (I/O, no UI text) <- ui (terminal); the search
server and the client share only the ground floor, plumbing/, which imports nothing but the
standard library.

Read from the source with `ast`, so the rules hold for every import, also the lazy ones
inside functions: no import cycle inside a package; outside client/ui nothing imports the
translation module, rich or prompt_toolkit, prints, touches sys.stdin/stdout/stderr or asks
isatty (no exemption); core imports neither engine nor ui, and engine does not import ui;
engine/mcp's connection part imports no LangChain (one adapter module converts a tool); server/ imports nothing of client/; plumbing/ imports neither and no third-party library. The
way back to the screen is given to engine objects when they are built: the ui never sets an
attribute of one afterwards. Settings, once resolved, cannot be assigned. Settings come in once:
core and engine never read the environment (os.environ, os.getenv), except to build a child
process's environment (ENV_EXCEPTIONS, each one in use).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("client", "server", "plumbing")
UI_ONLY = ("rich", "prompt_toolkit", "client.ui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


MODULES = _modules()


def _in(package: str) -> list[str]:
    return sorted(n for n in MODULES if n == package or n.startswith(package + "."))


@functools.lru_cache(maxsize=None)  # every parametrized case reads the whole graph: parse each file once
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
            if mod and mod != name and mod not in PACKAGES:
                deps.add(mod)
        graph[name] = deps
    return graph


def _layer(name: str) -> str:
    parts = name.split(".")
    if parts[0] != "client":
        return parts[0]  # server, plumbing
    return parts[1] if len(parts) > 1 and parts[1] in ("core", "engine", "ui") else "entry"


def test_the_package_has_the_three_layer_folders() -> None:
    assert {"client.core", "client.engine", "client.ui"} <= set(MODULES)
    loose = [n for n in _in("client") if _layer(n) == "entry" and n not in ("client", "client.__main__")]
    assert not loose, f"modules outside the three layers: {loose}"


def _external(name: str) -> set[str]:
    """The top-level names of everything `name` imports from outside its own package."""
    own = name.split(".")[0]
    return {m.split(".")[0] for m in _imports(name, MODULES[name]) if m and m.split(".")[0] != own}


@pytest.mark.parametrize("name", _in("server"))
def test_the_server_imports_nothing_of_the_client(name: str) -> None:
    """The search server is its own program: it shares only plumbing/ with the client."""
    bad = sorted(_external(name) & {"client", "tests"})
    assert not bad, f"{name} imports {bad}"


@pytest.mark.parametrize("name", _in("plumbing"))
def test_plumbing_imports_only_the_standard_library(name: str) -> None:
    """The ground floor knows nothing of the app (what it preloads, what freshness is keyed on,
    where its files go come in as arguments) and needs nothing installed."""
    bad = sorted(m for m in _external(name) if m not in sys.stdlib_module_names and m != "__future__")
    assert not bad, f"{name} imports {bad}: plumbing/ is stdlib-only and imports neither client nor server"


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


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside_a_package(package: str) -> None:
    inside = set(_in(package))
    graph = {n: deps & inside for n, deps in _internal_edges().items() if n in inside}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A cycle is found, lazy relative imports (where one hides) are seen, and so are a lazy
    import of the client in the server and of a library in plumbing."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    (tmp_path / "a.py").write_text("def f():\n    from ..ui import i18n\n")
    (tmp_path / "b.py").write_text("def boot():\n    from client.engine import daemon\n    import httpx\n")
    (tmp_path / "c.py").write_text("def tools():\n    from langchain_core.tools import BaseTool\n")
    (tmp_path / "d.py").write_text("from . import hub\n")
    MODULES.update({"client.engine.x": tmp_path / "a.py", "server.x": tmp_path / "b.py", "plumbing.x": tmp_path / "b.py",
                    "client.engine.mcp.x": tmp_path / "c.py", "client.engine.mcp.y": tmp_path / "d.py"})
    try:
        assert "client.ui.i18n" in _imports("client.engine.x", tmp_path / "a.py")
        with pytest.raises(AssertionError, match="client"):
            test_the_server_imports_nothing_of_the_client("server.x")
        with pytest.raises(AssertionError, match="httpx"):
            test_plumbing_imports_only_the_standard_library("plumbing.x")
        with pytest.raises(AssertionError, match="langchain_core.tools"):
            test_the_mcp_connections_know_nothing_of_langchain("client.engine.mcp.x")
        with pytest.raises(AssertionError, match="client.engine.mcp.hub"):
            test_the_mcp_connections_know_nothing_of_langchain("client.engine.mcp.y")
    finally:
        for n in ("client.engine.x", "server.x", "plumbing.x", "client.engine.mcp.x", "client.engine.mcp.y"):
            MODULES.pop(n)


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
    # plumbing/ is the ground floor under every layer (stdlib-only, knows nothing of the app)
    allowed = {"core": ("client.core", "plumbing"), "engine": ("client.core", "client.engine", "plumbing")}[_layer(name)]
    deps = _internal_edges()[name]
    bad = sorted(d for d in deps if not d.startswith(allowed))
    assert not bad, f"{name} ({_layer(name)}) imports {bad}"


def test_config_imports_nothing_else_from_the_package() -> None:
    assert not _internal_edges()["client.core.config"]


# -- engine/mcp in two parts (issue 52) ----------------------------------------------------
LANGCHAIN = ("langchain", "langchain_core", "langchain_openai", "langchain_naver", "langgraph")
# the LangChain side: one tool's conversion, the tools of the fleet, the permission gate, sampling on the model
LANGCHAIN_SIDE = frozenset(f"client.engine.mcp.{m}" for m in ("adapter", "hub", "gate", "sampling"))


@pytest.mark.parametrize("name", sorted(set(_in("client.engine.mcp")) - LANGCHAIN_SIDE))
def test_the_mcp_connections_know_nothing_of_langchain(name: str) -> None:
    """The connection part (sessions, the fleet, listings, revisions, features, OAuth, saved lists)
    imports no LangChain, nor a module of the LangChain side: hub.py holds the fleet, adapter.py
    alone turns an MCP tool into a LangChain tool."""
    bad = sorted({m for m in _imports(name, MODULES[name]) if m.split(".")[0] in LANGCHAIN}
                 | (_internal_edges()[name] & LANGCHAIN_SIDE))
    assert not bad, f"{name} imports {bad}: LangChain stays in {sorted(LANGCHAIN_SIDE)}"


def test_one_module_turns_an_mcp_tool_into_a_langchain_tool() -> None:
    makers = sorted(n for n in _in("client.engine.mcp") if "StructuredTool" in {
        a.name for node in ast.walk(ast.parse(MODULES[n].read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) for a in node.names})
    assert makers == ["client.engine.mcp.adapter"]


# -- the way to the screen ----------------------------------------------------------------
STREAMS = ("stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__")


def terminal_uses(source: str) -> list[int]:
    """Lines that touch the terminal: sys.stdin/stdout/stderr, or any isatty()."""
    lines = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Attribute) and n.attr in STREAMS and isinstance(n.value, ast.Name) and n.value.id == "sys":
            lines.append(n.lineno)
        elif isinstance(n, ast.Attribute) and n.attr == "isatty":
            lines.append(n.lineno)
        elif isinstance(n, ast.ImportFrom) and n.module == "sys" and any(a.name in STREAMS for a in n.names):
            lines.append(n.lineno)
    return sorted(set(lines))


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _layer(n) in ("core", "engine")))
def test_no_terminal_outside_the_ui(name: str) -> None:
    """core and engine never read the terminal or ask whether there is one: the ui decides
    (Settings.interactive) and hands streams and questions in (client/engine/frontend.py)."""
    lines = terminal_uses(MODULES[name].read_text(encoding="utf-8"))
    assert not lines, f"{name} touches sys.stdin/stdout/stderr or isatty (lines {lines})"


# Names that hold engine objects in the ui (a practical net beside the data flow below).
ENGINE_NAMES = {"hub", "fleet", "features", "permissions", "session", "store", "models", "runtime", "settings", "memory",
                "summaries", "threads", "gate", "stack", "provider", "worker", "memory_passes", "next_turn"}


def engine_assignments(source: str) -> list[tuple[int, str]]:
    """`x.attr = ...` in a ui module where `x` is (or is reached from) an engine object: a name
    imported from client.engine called or used as an annotation, a value flowing from one (also
    through `self.attr` of the same class), or a name of ENGINE_NAMES in the target's chain."""
    tree = ast.parse(source)
    engine: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("client.engine"):
            engine |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            engine |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("client.engine")}
    tainted: set[str] = set()  # local names (per module: an approximation)
    self_attrs: set[str] = set()  # self.<attr> holding an engine object

    def from_engine(e: ast.AST | None) -> bool:
        if e is None:
            return False
        if isinstance(e, ast.Await):
            return from_engine(e.value)
        if isinstance(e, ast.Call):
            return from_engine(e.func) or (isinstance(e.func, ast.Name) and e.func.id in engine)
        if isinstance(e, ast.Name):
            return e.id in tainted or e.id in engine
        if isinstance(e, ast.Attribute):
            if isinstance(e.value, ast.Name) and e.value.id == "self":
                return e.attr in self_attrs
            return from_engine(e.value)
        return False

    def annotated_engine(a: ast.AST | None) -> bool:
        return a is not None and any(isinstance(n, ast.Name) and n.id in engine for n in ast.walk(a)) or (
            isinstance(a, ast.Constant) and isinstance(a.value, str) and any(w in engine for w in a.value.replace(
                "|", " ").replace("[", " ").replace("]", " ").split()))

    for _ in range(3):  # to a fixed point: assignments may come before their sources in the text
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in [*node.args.args, *node.args.kwonlyargs]:
                    if annotated_engine(arg.annotation):
                        tainted.add(arg.arg)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                value = node.value
                targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
                engine_value = from_engine(value) or (isinstance(node, ast.AnnAssign) and annotated_engine(node.annotation))
                while engine_value and targets:
                    t = targets.pop()
                    if isinstance(t, (ast.Tuple, ast.List)):
                        targets.extend(t.elts)
                    elif isinstance(t, ast.Name):
                        tainted.add(t.id)
                    elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        self_attrs.add(t.attr)
    out = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for x in ast.walk(t):
                if not (isinstance(x, ast.Attribute) and isinstance(x.ctx, ast.Store)):
                    continue
                chain, base = [], x.value
                while isinstance(base, ast.Attribute):
                    chain.append(base.attr)
                    base = base.value
                if isinstance(base, ast.Name) and base.id != "self":
                    chain.append(base.id)
                if from_engine(x.value) or ENGINE_NAMES & set(chain):
                    out.append((node.lineno, ast.unparse(x)))
    return out


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _layer(n) == "ui"))
def test_the_ui_never_assigns_to_an_engine_object(name: str) -> None:
    """An engine object gets what it needs when it is built (a Frontend, settings, callables),
    never an attribute set by the ui afterwards."""
    bad = engine_assignments(MODULES[name].read_text(encoding="utf-8"))
    assert not bad, f"{name} assigns to engine objects: {bad}"


def test_the_terminal_and_assignment_checks_can_fail() -> None:
    assert terminal_uses("import sys\ndef f():\n    return sys.stdin.read()\n") == [3]
    assert terminal_uses("import os\nos.isatty(1)\n") == [2]
    assert terminal_uses("from sys import stderr\n") == [1]
    assert terminal_uses("s = 'sys.stdin'\nimport sys\nsys.argv\n") == []
    violations = {
        "hub.on_progress = f\n": 1,  # a name of an engine object
        "from client.engine.mcp.hub import ToolHub\nthing = ToolHub()\nthing.on_progress = print\n": 3,  # built here
        "from client.engine.session import ChatSession\ndef f(x: ChatSession):\n    x.background_memory = False\n": 3,
        "from client.engine.mcp.hub import ToolHub\nclass R:\n    def __init__(self, h: ToolHub):\n        self.h = h\n"
        "    def run(self):\n        self.h.permissions.approver = None\n": 6,  # through self
        "class R:\n    def run(self):\n        self.session.background_memory = False\n": 3,
        "from client.engine import build\nclass R:\n    def __init__(self):\n        self.x = build.build_session()\n"
        "    def go(self):\n        self.x.flag = 1\n": 6,  # a module of the engine
    }
    for source, line in violations.items():
        assert [n for n, _ in engine_assignments(source)] == [line], source
    fine = ("class R:\n    def __init__(self):\n        self.reader = None\n        self.capture = Capture()\n"
            "    def go(self):\n        self.capture.error = 'x'\n        self._optionals.title = 't'\n"
            "args = parse()\nargs.lang = 'ko'\n")
    assert engine_assignments(fine) == []


# -- settings come in once -----------------------------------------------------------------
ENV_NAMES = ("environ", "environb", "getenv", "getenvb")
# module:function -> why it may touch os.environ: a child process's environment is built from ours
# (for an MCP server, what it needs of it: client/core/childenv.py), or a child takes its key out of its own
ENV_EXCEPTIONS = {
    "client.engine.mcp.server:ServerConn._open": "a stdio MCP server's environment (client/core/childenv.py)",
    "client.engine.local.server:LocalServer.start": "llama-server's environment, its API key added",
    "client.engine.local.keeper:_start": "the keeper process's environment, the API key added",
    "client.engine.local.keeper:main": "the keeper process takes its key out of its own environment",
}


def environment_uses(source: str) -> list[tuple[int, str]]:
    """(line, enclosing function) of every use of os.environ or os.getenv, or their import from os."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Attribute) and child.attr in ENV_NAMES and isinstance(child.value, ast.Name) \
                    and child.value.id == "os":
                found.append((child.lineno, where))
            elif isinstance(child, ast.ImportFrom) and child.module == "os" and any(a.name in ENV_NAMES for a in child.names):
                found.append((child.lineno, where))
            inner = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            visit(child, f"{where}.{child.name}".lstrip(".") if inner else where)  # type: ignore[attr-defined]

    visit(ast.parse(source), "")
    return found


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _layer(n) in ("core", "engine")))
def test_core_and_engine_read_no_environment(name: str) -> None:
    """Every environment variable is read by the ui (client/ui/env_settings.py, options.py) into a
    frozen value on Settings (`tuning`, `dirs`, ...) or handed down as an argument (`${VAR}` in
    mcp.json): the engine never parses a variable a second time, with a second rule."""
    uses = environment_uses(MODULES[name].read_text(encoding="utf-8"))
    bad = [(line, where) for line, where in uses if f"{name}:{where}" not in ENV_EXCEPTIONS]
    assert not bad, f"{name} reads the environment (line, function): {bad}"


def test_the_environment_check_can_fail_and_its_exceptions_are_all_in_use() -> None:
    assert environment_uses("import os\nclass A:\n    def f(self):\n        return os.environ.get('X')\n") == [(4, "A.f")]
    assert environment_uses("import os\nX = os.getenv('X')\n") == [(2, "")]
    assert environment_uses("from os import environ\n") == [(1, "")]
    assert environment_uses("import os\ndef f(env=None):\n    return dict(env or {})\n") == []
    used = {f"{n}:{where}" for n in MODULES if _layer(n) in ("core", "engine")
            for _, where in environment_uses(MODULES[n].read_text(encoding="utf-8"))}
    assert used == set(ENV_EXCEPTIONS), "an exception no longer needed (or a new read): keep the list exact"


def test_the_tuning_and_the_folders_are_frozen_values() -> None:
    import dataclasses

    from client.core.config import Dirs, Settings, Tuning

    s = Settings(tuning=Tuning(keep_alive=5), dirs=Dirs.of({"XDG_DATA_HOME": "/d"}))
    for value, field in ((s.tuning, "keep_alive"), (s.dirs, "data")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)
    assert s.dirs.data.as_posix() == "/d/mcp-chat" and hash(s)


LATE_WIRING = re.compile(r"^\s*repl\.\w+\s*=", re.M)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _layer(n) == "ui"))
def test_the_repl_gets_its_collaborators_when_it_is_built(name: str) -> None:
    """No `repl.x = ...` after `Repl(...)`: what the loop calls is given to its constructor."""
    source = MODULES[name].read_text(encoding="utf-8")
    assert not LATE_WIRING.search(source), f"{name} wires the Repl after building it"
    assert LATE_WIRING.search("repl = Repl(s)\nrepl.tools_changed = f\n")


def test_settings_cannot_be_assigned_after_resolution() -> None:
    """Resolved once, then a value: no field can be set, nested ones neither, and every field is
    immutable (a frozen dataclass with a list inside could still be changed in place)."""
    import dataclasses

    from client.ui.cli import build_parser
    from client.ui.options import resolve

    s = resolve(build_parser().parse_args(["chat", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1",
                                           "--model", "m", "--root", "/tmp", "--server-url", "http://127.0.0.1:9/mcp"]),
                interactive=False)
    for name, value in (("model", "other"), ("max_input_tokens", 1), ("base_url", "http://evil.test"), ("yes", True)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(s, name, value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.context.strategy = "none"  # type: ignore[misc]
    hash(s)  # every field hashable: nothing inside can change in place
    assert s.roots and s.server_urls and isinstance(s.roots, tuple) and isinstance(s.server_urls, tuple)


# -- the storage seam (client/engine/store/base.py) --------------------------------------------------
SEAM = "client.engine.store"
PROTOCOL_MAX = 12  # members a storage protocol declares
STORE_OWN = {"close", "vacuum"}  # Store is the sum of the protocols, plus the database's own life
COMPOSITION = {"client.engine.build", "client.ui.cli", "client.ui.startup"}  # open a store, hand it on


def _classes(source: str) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)}


def _members(cls: ast.ClassDef) -> set[str]:
    return {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} | \
           {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def _bases(cls: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr for b in cls.bases if isinstance(b, (ast.Name, ast.Attribute))}


def seam_violations(sources: dict[str, str], protocols: dict[str, ast.ClassDef]) -> list[str]:
    """Consumers of the store (every module outside it): none imports `Store` but the composition;
    a protocol one declares on top of the store's adds no member (it names a sum of narrow ones);
    only the fork policy (client/engine/forks.py) calls a store's `delete_thread`, so what a
    deleted thread's forks still hold is always handed over first."""
    bad = []
    for name, source in sources.items():
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(SEAM) and name not in COMPOSITION:
                bad += [f"{name}:{node.lineno} imports Store" for a in node.names if a.name == "Store"]
            if isinstance(node, ast.ClassDef) and _bases(node) & set(protocols) and _members(node):
                bad.append(f"{name}:{node.lineno} {node.name} adds {sorted(_members(node))} to the store's protocols")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "delete_thread" and name != "client.engine.forks":
                bad.append(f"{name}:{node.lineno} deletes a thread past client/engine/forks.py")
    return bad


def _protocols() -> dict[str, ast.ClassDef]:
    found = _classes(MODULES[f"{SEAM}.base"].read_text(encoding="utf-8"))
    return {n: c for n, c in found.items() if "Protocol" in _bases(c)}


def test_the_storage_seam_is_narrow_protocols_and_store_is_their_sum() -> None:
    protocols = _protocols()
    assert {"ThreadLog", "Lineage", "MemoryRows", "Claims", "Store"} <= set(protocols)
    for name, cls in protocols.items():
        assert len(_members(cls)) <= PROTOCOL_MAX, f"{name}: {len(_members(cls))} members"
    parts = _bases(protocols["Store"]) - {"Protocol"}
    assert parts == set(protocols) - {"Store"} and _members(protocols["Store"]) <= STORE_OWN
    from client.engine.store.postgres import PostgresStore
    from client.engine.store.sqlite import SqliteStore

    wanted = set().union(*(_members(protocols[p]) for p in parts)) | STORE_OWN
    for backend in (SqliteStore, PostgresStore):  # every member (the checkpointer is set when it opens)
        assert {m for m in wanted if not hasattr(backend, m)} <= {"checkpointer"}, backend


def test_consumers_use_the_storage_protocols_not_the_store() -> None:
    sources = {n: MODULES[n].read_text(encoding="utf-8") for n in MODULES if not (n + ".").startswith(SEAM + ".")}
    sources["init_db"] = (ROOT / "init_db.py").read_text(encoding="utf-8")
    bad = seam_violations(sources, _protocols())
    assert not bad, "\n".join(bad)
    assert len(seam_violations({
        "client.engine.x": "from client.engine.store import Store\nawait store.delete_thread(t)\n"
                           "class Wide(ThreadLog, Protocol):\n    def more(self): ...\n",
        "client.ui.startup": "from client.engine.store import Store\nclass Sum(ThreadLog, Claims, Protocol):\n    '''ok'''\n",
    }, _protocols())) == 3
