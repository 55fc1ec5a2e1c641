"""Tool names and definitions the client knows without any server (issue 48).

- The bundled search server's tools (web_search, news_search, blog_search) are ours: their
  definitions ship with the client (bundled_tools.json, written from the server's own tools/list by
  scripts/bundled_tools.py; tests/e2e/test_known_tools.py fails when the two drift), so the very
  first request carries them while that process is still starting. The client never imports the
  server package.
- Reserved names: the deferred-schema search tool's (`tool_search`), always, and those tools' names
  when the bundled server is configured. No other server's tool is ever given one of them (hub.py
  prefixes it with its server's name), whichever server comes up first. Without the bundled server
  (a configuration of the user's own, which may run our search server over HTTP) `web_search` is a
  name like any other.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from mcp import types

from client.core.context.deferred_tools import SEARCH_TOOL

DATA = Path(__file__).with_name("bundled_tools.json")


def dump(tool: types.Tool) -> dict[str, Any]:
    """A tool as its server sent it (wire JSON): what the saved lists hold too."""
    return tool.model_dump(mode="json", by_alias=True, exclude_none=True)


@functools.cache
def _bundled() -> tuple[types.Tool, ...]:
    return tuple(types.Tool.model_validate(t) for t in json.loads(DATA.read_text(encoding="utf-8")))


def bundled_tools() -> list[types.Tool]:
    """The bundled search server's tools as it lists them (fresh copies)."""
    return [t.model_copy(deep=True) for t in _bundled()]


@functools.cache
def reserved_names(bundled: bool = True) -> frozenset[str]:
    """The names no server but the bundled one is given (`bundled`: that server is configured)."""
    return frozenset({SEARCH_TOOL, *(t.name for t in _bundled() if bundled)})
