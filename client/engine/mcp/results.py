"""MCP `CallToolResult` -> one plain text the model can use.

Every content kind becomes text, none raises: text as is; structured content
as JSON, unless the text blocks already carry it (the same JSON, or every value
in it: the reference filesystem server sends a file's text and `{"content":
<the same text>}`, which doubled every file the model read); images and audio as a short
note (type and size: the endpoint takes text-only tool messages); embedded
resources as their text, or a note for binary; resource links as name, URI and
type. Annotations are ignored. Unknown future kinds get a note.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp import types

MAX_RESULT_CHARS = 20_000
EMPTY = "(no content)"
_TEXT_TYPES = {"application/json", "application/xml", "application/yaml", "application/javascript"}


def result_text(result: types.CallToolResult, limit: int = MAX_RESULT_CHARS) -> str:
    """The whole result as text, never empty, capped at `limit` characters. Each block is cut to
    what still fits as it is joined: no copy of the whole result is ever made (only counted)."""
    blocks = list(result.content or [])
    structured = result.structured_content
    extra = [] if structured is None or _carried(blocks, structured) else [structured]
    kept: list[str] = []
    room, cut = limit, 0
    for part in [*(block_text(b) for b in blocks), *(json.dumps(x, ensure_ascii=False) for x in extra)]:
        if not part or part.isspace():
            continue
        if kept:
            part = "\n" + part
        kept.append(part[:room])
        cut += max(0, len(part) - room)
        room = max(0, room - len(part))
    text = "".join(kept).strip() or EMPTY
    if cut:
        text += f"\n[... truncated: {cut} more characters]"
    return text


def error_result(text: str) -> types.CallToolResult:
    """A tool result that carries our own failure text to the model."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def block_text(block: Any) -> str:
    """One content block as text (annotations ignored)."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image: {block.mime_type}, {_size(b64_len(block.data))}]"
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {_size(b64_len(block.data))}]"
    if isinstance(block, types.ResourceLink):
        head = f"[resource link: {block.name} <{block.uri}>"
        if block.mime_type:
            head += f" {block.mime_type}"
        if block.description:
            head += f" - {block.description}"
        return head + "]"
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        mime = res.mime_type or "unknown type"
        if isinstance(res, types.TextResourceContents):
            return f"[resource <{res.uri}> {mime}]\n{res.text}"
        if isinstance(res, types.BlobResourceContents):
            text = _as_text(res.blob, mime)
            if text is not None:
                return f"[resource <{res.uri}> {mime}]\n{text}"
            return f"[resource <{res.uri}>: {mime}, {_size(b64_len(res.blob))} binary, not shown]"
        return f"[resource <{getattr(res, 'uri', '?')}>]"
    kind = getattr(block, "type", None) or (block.get("type") if isinstance(block, dict) else None)
    text = getattr(block, "text", None) or (block.get("text") if isinstance(block, dict) else None)
    return str(text) if isinstance(text, str) else f"[{kind or type(block).__name__} content]"


def _carried(blocks: list[Any], value: Any) -> bool:
    """The text blocks say all the structured content says: the same JSON, or every value in it."""
    texts = [b.text for b in blocks if isinstance(b, types.TextContent)]
    if not texts:
        return False
    if any(_same_json(b, value) for b in blocks):
        return True
    return all(any(leaf in t for t in texts) for leaf in _leaves(value))  # no joined copy of a large result


def _leaves(value: Any) -> list[str]:
    """The values of a JSON document as the text would show them (keys and nulls say nothing)."""
    out: list[str] = []
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, str):
            if v.strip():
                out.append(v.strip())
        elif v is not None:
            out.append(json.dumps(v))
    return out


def _same_json(block: Any, value: Any) -> bool:
    if not isinstance(block, types.TextContent):
        return False
    try:
        return json.loads(block.text) == value
    except ValueError:
        return False


def _as_text(blob: str, mime: str) -> str | None:
    """A blob that declares a textual type and decodes as UTF-8, else None."""
    if not (mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+json", "+xml"))):
        return None
    try:
        return base64.b64decode(blob, validate=False).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def b64_len(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"
