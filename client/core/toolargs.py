"""The one parser of a model's tool-call arguments: strict JSON, one object, or nothing runs.

The OpenAI-compatible wire carries a call's arguments as raw text. LangChain's partial-JSON
parser repairs what it can (`{not json` becomes `{}`, the last duplicate key wins, trailing text
is ignored), which would run a tool with values the model never sent. Here the text must be
exactly one JSON object with unique keys (empty text: no arguments); anything else is a
BadToolArgs whose `why` is fixed English text for the model to correct its call.
"""

from __future__ import annotations

import json
from typing import Any


class BadToolArgs(ValueError):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


NOT_JSON = "are not valid JSON"
DUPLICATE = "name the same key twice"
TRAILING = "have text after the JSON object"
NOT_OBJECT = "are not a JSON object"
NOT_FINITE = "contain NaN or Infinity, which JSON does not allow"


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise BadToolArgs(DUPLICATE)
        out[k] = v
    return out


def _no_constant(name: str) -> Any:
    raise BadToolArgs(NOT_FINITE)


def parse_tool_args(raw: str | None) -> dict[str, Any]:
    """The arguments as a dict, or BadToolArgs."""
    if raw is None or not raw.strip():
        return {}
    try:
        value, end = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_no_constant).raw_decode(raw.lstrip())
    except json.JSONDecodeError:
        raise BadToolArgs(NOT_JSON) from None
    if raw.lstrip()[end:].strip():
        raise BadToolArgs(TRAILING)
    if not isinstance(value, dict):
        raise BadToolArgs(NOT_OBJECT)
    return value


def refusal_text(tool: str, why: str) -> str:
    """The tool result the model gets instead of running the call."""
    return (f"This call of {tool} was not run: its arguments {why}. "
            "Send the call again with the arguments as a single JSON object that matches the tool's schema.")
