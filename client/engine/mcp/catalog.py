"""Prompts and resources of the connected servers, for /prompts, /prompt, /resources and @mentions.

Loading goes through langchain-mcp-adapters (`load_mcp_prompt` -> LangChain messages,
`get_mcp_resource` -> Blobs); the session is ours (ServerConn: per-server isolation, reconnects).
Parsing is pure and tested on its own. Nothing here prints.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from langchain_mcp_adapters.prompts import load_mcp_prompt
from langchain_mcp_adapters.resources import get_mcp_resource
from mcp import types

from client.core.faults import one_line
from client.core.context.budget import estimate_text_tokens
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


async def _session(server: ServerConn):  # -> ClientSession
    try:
        await server.ensure()
    except Exception as e:  # noqa: BLE001 - ServerGone and friends: one line
        raise CatalogError(str(e) or type(e).__name__) from None
    if server.session is None:
        raise CatalogError(server.error or "not connected")
    return server.session


async def list_prompts(servers: list[ServerConn]) -> list[tuple[str, types.Prompt]]:
    out: list[tuple[str, types.Prompt]] = []
    for s in servers:
        if s.state != "connected" or s.session is None:
            continue
        try:
            out += [(s.spec.name, p) for p in (await s.session.list_prompts()).prompts]
        except Exception:  # noqa: BLE001 - a server without prompts
            continue
    return out


async def list_resources(servers: list[ServerConn]) -> list[tuple[str, types.Resource]]:
    out: list[tuple[str, types.Resource]] = []
    for s in servers:
        if s.state != "connected" or s.session is None:
            continue
        try:
            out += [(s.spec.name, r) for r in (await s.session.list_resources()).resources]
        except Exception:  # noqa: BLE001 - a server without resources
            continue
    return out


async def run_prompt(server: ServerConn, name: str, args: dict[str, str]) -> list[tuple[str, str]]:
    """(role, text) of the prompt's messages; CatalogError with one line on failure."""
    session = await _session(server)
    try:
        messages = await load_mcp_prompt(session, name, arguments=args or None)
    except Exception as e:  # noqa: BLE001
        raise CatalogError(server.spec.redact(one_line(e))) from None
    return [("assistant" if m.type == "ai" else "user", m.text if isinstance(m.text, str) else str(m.content))
            for m in messages]


async def read_resource(server: ServerConn, uri: str, max_tokens: int) -> tuple[str, bool]:
    """The resource as text (binary parts as a short description), cut to `max_tokens`."""
    session = await _session(server)
    try:
        blobs = await get_mcp_resource(session, uri)
    except Exception as e:  # noqa: BLE001
        raise CatalogError(server.spec.redact(one_line(e))) from None
    parts = []
    for b in blobs:
        if isinstance(b.data, str):
            parts.append(b.data)
        else:
            size = len(b.data or b"")
            parts.append(f"[binary resource: {b.mimetype or 'application/octet-stream'}, {size} bytes]")
    return cut_to_tokens(server.spec.redact("\n".join(parts)), max_tokens)
