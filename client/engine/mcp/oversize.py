"""One message from an MCP server is read up to a cap, never whole (issue 37).

The transports (bounded_stdio.py, bounded_http.py) stop keeping a message once it passes
MAX_MESSAGE_BYTES: they keep its first and last few KiB, throw the rest away as it arrives, and
answer the request that waits for it with a stand-in (`stand_in`): for `tools/call` a tool error
result that tells the model what happened, carrying OVERSIZE_META so the hub can tell the user in
one line (hub.py); for any other request a JSON-RPC error. The session goes on. Which request it
was comes from the kept bytes: the top-level "id" near the start (as the Python SDK writes it),
or as the last member before the closing brace (as the TypeScript SDK does).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # one JSON-RPC message; a tool result reaches the model as 20,000 characters
KEPT_BYTES = 4096  # of the head and of the tail of a message that is not read
OVERSIZE_META = "mcp-chat/oversize"  # _meta of our stand-in tool result: {"cap": bytes, "size": bytes | None}

_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]  # (text, index after the quote)
_SCALAR = r'-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"|true|false|null'
_LAST_MEMBER = re.compile(r'(?P<sep>^|[,{])\s*"(?P<key>(?:[^"\\]|\\.)*)"\s*:\s*(?P<value>' + _SCALAR + r')\s*$')


def head_members(head: bytes) -> dict[str, Any]:
    """The top-level members of a JSON object whose start is `head`, as far as they are complete
    there (a value cut by the end of `head` ends the scan; its key is still listed, as None)."""
    text = head.decode("utf-8", "ignore")
    decoder = json.JSONDecoder()
    out: dict[str, Any] = {}
    i = _skip(text, 0)
    if text[i:i + 1] != "{":
        return out
    i += 1
    while True:
        i = _skip(text, i)
        if text[i:i + 1] != '"':
            return out
        try:
            key, i = _scanstring(text, i + 1)
        except ValueError:
            return out
        i = _skip(text, i)
        if text[i:i + 1] != ":":
            return out
        out[key] = None
        try:
            out[key], i = decoder.raw_decode(text, _skip(text, i + 1))
        except ValueError:
            return out
        i = _skip(text, i)
        if text[i:i + 1] != ",":
            return out
        i += 1


def tail_id(tail: bytes) -> Any:
    """The "id" among the top-level scalar members that end the object `tail` is the end of."""
    text = tail.decode("utf-8", "ignore").rstrip()
    if not text.endswith("}"):
        return None
    text = text[:-1]
    while (m := _LAST_MEMBER.search(text)) is not None:
        if json.loads(f'"{m.group("key")}"') == "id":
            return json.loads(m.group("value"))
        if m.group("sep") != ",":  # the object's start: no id among its last members
            return None
        text = text[:m.start()]
    return None


def message_id(head: bytes, tail: bytes) -> Any:
    """The JSON-RPC id of a message known only by its first and last bytes; None if neither says."""
    rid = head_members(head).get("id")
    if rid is None:
        rid = tail_id(tail)
    return rid if isinstance(rid, (int, str)) and not isinstance(rid, bool) else None


def is_request_or_notification(head: bytes) -> bool:
    return "method" in head_members(head)


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f}".rstrip("0").rstrip(".")


def over_text(size: int | None, cap: int = MAX_MESSAGE_BYTES) -> str:
    """What the model reads instead of the result."""
    got = f" ({_mb(size)} MB)" if size else ""
    return (f"The result of this tool call was over {_mb(cap)} MB{got} and was not read. Ask the tool for "
            "less: a narrower query, a page or range, or a filter.")


def stand_in(rid: Any, method: str | None, size: int | None, cap: int = MAX_MESSAGE_BYTES) -> bytes:
    """The reply we give in place of a message that was not read (one JSON-RPC message, no newline)."""
    if method == "tools/call":
        result = {"content": [{"type": "text", "text": over_text(size, cap)}], "isError": True,
                  "_meta": {OVERSIZE_META: {"cap": cap, "size": size}}}
        return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()
    message = f"the server's answer was over {_mb(cap)} MB" + (f" ({_mb(size)} MB)" if size else "") + " and was not read"
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": message}}).encode()


def oversize(meta: dict[str, Any] | None) -> dict[str, str] | None:
    """A tool result's _meta when it is our stand-in: {"cap": "4", "size": "52.4" or ""} in MB."""
    info = (meta or {}).get(OVERSIZE_META)
    if not isinstance(info, dict) or not isinstance(info.get("cap"), int):
        return None
    size = info.get("size")
    return {"cap": _mb(info["cap"]), "size": _mb(size) if isinstance(size, int) and size > 0 else ""}


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i
