"""What the model is shown of an MCP tool's input schema (pure).

A server's `inputSchema` is JSON Schema 2020-12 from outside: it is kept as the server wrote it
(`$schema`, `$defs`, `additionalProperties`, composition and conditional keywords; SEP-1613) with
three changes, none of which ever fetches anything (SEP-2106):
- a `$ref` that is not a fragment of this document (`https://...`, `other.json#x`), or a fragment
  that does not resolve, is dropped from its node (the node then accepts anything, with a note);
- resolvable local refs are inlined for the model (small models and some providers do not follow
  `$ref`), while `$defs` stays, so a ref left in a cycle still resolves;
- inlining stops where it would grow the schema past `MAX_GROWTH` times (a hostile schema of
  refs to refs), keeping the refs as they were;
- `title` annotations go, as LangChain drops them: generated ones ("Query", "web_searchArguments")
  cost tokens on every request and tell the model nothing its property names do not.
"""

from __future__ import annotations

import copy
import json
from typing import Any

MAX_GROWTH = 4  # inlined schema at most this many times the server's (and MAX_CHARS in all)
MAX_CHARS = 200_000
MAX_DEPTH = 32
MAX_NODES = 20_000  # inlining work, so refs that double at every level cost nothing
UNRESOLVED = "(schema reference not loaded: {ref})"


def for_model(schema: Any) -> dict[str, Any]:
    """The schema a model request carries for a tool whose server sent `schema`."""
    if not isinstance(schema, dict):
        schema = {}
    doc = _untitled(_without_bad_refs(copy.deepcopy(schema), schema))
    doc.setdefault("type", "object")
    if doc.get("type") == "object":
        doc.setdefault("properties", {})
    try:
        size = len(json.dumps(doc, ensure_ascii=False))
        inlined = _inline(doc, doc, (), 0, [MAX_NODES])
        if len(json.dumps(inlined, ensure_ascii=False)) <= min(MAX_CHARS, MAX_GROWTH * max(size, 1_000)):
            return inlined
    except (RecursionError, _TooBig):
        pass
    return doc


def _resolve(ref: str, root: Any) -> Any:
    """The node `ref` (a JSON pointer fragment) names in `root`, or KeyError."""
    if not ref.startswith("#"):
        raise KeyError(ref)
    node = root
    for raw in [p for p in ref[1:].split("/") if p]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ref)
    return node


def _without_bad_refs(node: Any, root: Any) -> Any:
    """`node` with every `$ref` that is not a resolvable fragment of `root` removed."""
    if isinstance(node, list):
        return [_without_bad_refs(v, root) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _without_bad_refs(v, root) for k, v in node.items() if k != "$ref"}
    ref = node.get("$ref")
    if ref is None:
        return out
    try:
        if not isinstance(ref, str):
            raise KeyError(ref)
        _resolve(ref, root)
        out["$ref"] = ref
    except KeyError:
        note = UNRESOLVED.format(ref=str(ref)[:200])
        out["description"] = f"{out['description']} {note}" if isinstance(out.get("description"), str) else note
    return out


# keywords whose value is a schema (or a list of them) / a map from names to schemas; the others
# (enum, const, default, examples, required, ...) hold data, which is never touched
SUBSCHEMA = {"items", "prefixItems", "additionalProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
             "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
SCHEMA_MAPS = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}


def _untitled(node: Any) -> Any:
    """A schema without its `title` annotations (a property named "title" stays)."""
    if isinstance(node, list):
        return [_untitled(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _untitled(sub) for name, sub in value.items()}
        elif key in SUBSCHEMA:
            out[key] = _untitled(value)
        else:
            out[key] = value
    return out


class _TooBig(Exception):
    pass


def _inline(node: Any, root: dict, seen: tuple[str, ...], depth: int, left: list[int]) -> Any:
    left[0] -= 1
    if depth > MAX_DEPTH or left[0] < 0:
        raise _TooBig
    if isinstance(node, list):
        return [_inline(v, root, seen, depth + 1, left) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs" and node is root:
            out[key] = value  # kept as written: what a ref left in a cycle points to
        elif key != "$ref":
            out[key] = _inline(value, root, seen, depth + 1, left)
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return out
    if ref in seen:  # a cycle: this ref stays, and resolves against the kept $defs
        return {"$ref": ref, **out}
    target = _inline(_resolve(ref, root), root, (*seen, ref), depth + 1, left)
    if not isinstance(target, dict):
        return {"$ref": ref, **out}
    return {**target, **out}
