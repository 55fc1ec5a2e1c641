"""Prompts and resources of the connected servers, for /prompts, /prompt, /resources and @mentions.

The session is ours (ServerConn: per-server isolation, reconnects); a 2026-07-28 server may ask
for input first (era.py drives those rounds); a 2026 listing is kept for its `ttlMs`.
Message and resource contents become text the way tool results do (results.py).
Parsing is pure and tested on its own. Nothing here prints.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from mcp import types
from mcp.client.session import ClientSession

from client.core.faults import one_line
from client.core.context.budget import estimate_text_tokens
from client.engine.mcp import era
from client.engine.mcp.results import b64_len, block_text
from client.engine.mcp.server import ServerConn

MENTION = re.compile(r"(?<![\w.])@([A-Za-z0-9_.\-]+):(\S+)")


class CatalogError(Exception):
    """A prompt or resource could not be fetched: one line for the user."""


@dataclass(frozen=True)
class PromptCall:
    server: str
    name: str
    args: dict[str, str]


def parse_prompt_call(arg: str) -> PromptCall | None:
    """`server:name key=value "key=two words"` -> PromptCall; None when malformed."""
    try:
        words = shlex.split(arg)
    except ValueError:
        return None
    if not words or ":" not in words[0]:
        return None
    server, _, name = words[0].partition(":")
    args: dict[str, str] = {}
    for w in words[1:]:
        key, eq, value = w.partition("=")
        if not eq or not key:
            return None
        args[key] = value
    return PromptCall(server, name, args) if server and name else None


def mentions(text: str, servers: set[str]) -> list[tuple[str, str]]:
    """(server, uri) for every `@server:uri` naming a known server, in order, without repeats."""
    out: list[tuple[str, str]] = []
    for m in MENTION.finditer(text):
        pair = (m.group(1), m.group(2).rstrip(".,;:!?)"))
        if pair[0] in servers and pair not in out:
            out.append(pair)
    return out


def cut_to_tokens(text: str, limit: int) -> tuple[str, bool]:
    """The longest prefix within `limit` estimated tokens (binary search on characters)."""
    if estimate_text_tokens(text) <= limit:
        return text, False
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if estimate_text_tokens(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo], True


async def _ask(server: ServerConn, request: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """`request` of `server` (reconnected first when it died); CatalogError with one line on failure."""
    try:
        await server.ensure()
    except Exception as e:  # noqa: BLE001 - ServerGone and friends: one line
        raise CatalogError(str(e) or type(e).__name__) from None
    if server.session is None:
        raise CatalogError(server.error or "not connected")
    try:
        return await request(server.session)
    except Exception as e:  # noqa: BLE001
        raise CatalogError(server.spec.redact(one_line(e))) from None


async def list_prompts(servers: list[ServerConn]) -> list[tuple[str, types.Prompt]]:
    return [(s.spec.name, p) for s in servers for p in await _listing(s, "prompts")]


async def list_resources(servers: list[ServerConn]) -> list[tuple[str, types.Resource]]:
    return [(s.spec.name, r) for s in servers for r in await _listing(s, "resources")]


async def _listing(server: ServerConn, kind: str) -> list:
    """One page of a server's prompts or resources (nothing when it has none or is down), reused
    while a 2026 server's ttlMs says it is fresh."""
    session, revision = server.session, server.revision
    if server.state != "connected" or session is None or revision is None:
        return []
    cached = server.listing.cached(kind)
    if cached is not None:
        return cached
    try:
        page = await (session.list_prompts() if kind == "prompts" else session.list_resources())
    except Exception:  # noqa: BLE001 - a server without prompts / resources
        return []
    items = list(page.prompts if kind == "prompts" else page.resources)
    server.listing.keep(kind, items, page.ttl_ms if revision.modern else 0)
    return items


async def run_prompt(server: ServerConn, name: str, args: dict[str, str]) -> list[tuple[str, str]]:
    """(role, text) of the prompt's messages; CatalogError with one line on failure."""
    result = await _ask(server, lambda session: era.get_prompt(session, name, args or None))
    return [("assistant" if m.role == "assistant" else "user", block_text(m.content)) for m in result.messages]


async def read_resource(server: ServerConn, uri: str, max_tokens: int) -> tuple[str, bool]:
    """The resource as text (binary parts as a short description), cut to `max_tokens`."""
    result = await _ask(server, lambda session: era.read_resource(session, uri))
    parts = []
    for c in result.contents:
        if isinstance(c, types.TextResourceContents):
            parts.append(c.text)
        else:
            size = b64_len(c.blob)
            parts.append(f"[binary resource: {c.mime_type or 'application/octet-stream'}, {size} bytes]")
    return cut_to_tokens(server.spec.redact("\n".join(parts)), max_tokens)
