"""What an approval of a tool is bound to: digests of the tool's definition. Pure.

An approval ("always", saved; or for this session) holds for one server (its name and command
line or URL), one tool name, and the tool as it was approved: its description (and title), its
input schema and its annotations (readOnlyHint, destructiveHint, ...). A server that changes any
of them gets asked about again, and the question says which part changed. The digests are taken
of a plain dict (client/engine/mcp/hub.py tool_definition builds it from the SDK's object), as
canonical JSON, so key order or whitespace the server sends are no change.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping

PARTS = ("description", "input_schema", "annotations")
UNRECORDED = "unrecorded"  # a saved approval from before approvals were bound to the definition


@dataclass(frozen=True)
class ToolPrint:
    description: str = ""
    input_schema: str = ""
    annotations: str = ""

    def as_dict(self) -> dict[str, str]:
        return {p: getattr(self, p) for p in PARTS}

    @classmethod
    def from_dict(cls, doc: Any) -> ToolPrint | None:
        """A saved print; None when it is missing or malformed (then nothing matches it)."""
        if not isinstance(doc, dict) or not all(isinstance(doc.get(p), str) for p in PARTS):
            return None
        return cls(*(doc[p] for p in PARTS))


def tool_print(definition: Mapping[str, Any]) -> ToolPrint:
    """`definition`: {"description", "title", "input_schema", "annotations"} as plain data."""
    text = {"description": definition.get("description") or "", "title": definition.get("title") or ""}
    return ToolPrint(_digest(text), _digest(definition.get("input_schema") or {}),
                     _digest(definition.get("annotations") or {}))


def changed_parts(now: ToolPrint, approved: ToolPrint | None) -> tuple[str, ...]:
    """Which parts differ from what was approved (UNRECORDED when nothing was recorded)."""
    if approved is None:
        return (UNRECORDED,)
    return tuple(p for p in PARTS if getattr(now, p) != getattr(approved, p))


def _digest(value: Any) -> str:
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()
