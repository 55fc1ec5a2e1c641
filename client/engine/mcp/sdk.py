"""The MCP SDK 2.x without its eager package imports.

`import mcp.<anything>` runs `mcp/__init__.py`, which in 2.3 imports the in-process `Client`
and with it the whole server stack (starlette, uvicorn, sse-starlette, MCPServer): about 0.1 s
of CPU on every cold start of a chat that only talks to servers over stdio or HTTP
(docs/benchmarks.md). `lazy()` enters `mcp` and `mcp.client` as the packages they are, with
their `__init__` not yet run: a submodule imports as usual (`mcp.client.session`, `mcp.types`),
and the first use of a name the package itself defines (`from mcp import Client`) runs its
`__init__` then, unchanged. The SDK plans the same lazy namespace itself; once it ships this
module goes. Called by client/engine/mcp/__init__.py before anything imports the SDK.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any

PACKAGES = ("mcp", "mcp.client")


def lazy() -> None:
    for name in PACKAGES:
        if name in sys.modules:  # already imported (by someone who needed all of it)
            return
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return
        module = importlib.util.module_from_spec(spec)
        module.__getattr__ = _resolver(module)  # type: ignore[method-assign]
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)


def _resolver(module: ModuleType) -> Any:
    def resolve(attr: str) -> Any:
        name = f"{module.__name__}.{attr}"
        if not attr.startswith("__") and importlib.util.find_spec(name) is not None:
            return importlib.import_module(name)  # a submodule: the package body is not needed
        del module.__dict__["__getattr__"]  # the package's own names: run its __init__ now
        assert module.__spec__ is not None and module.__spec__.loader is not None
        module.__spec__.loader.exec_module(module)
        return getattr(module, attr)

    return resolve
