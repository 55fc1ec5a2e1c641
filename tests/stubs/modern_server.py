"""An MCP server that speaks only 2026-07-28 (the SDK 2.x `MCPServer`; `initialize` is refused):

    python tests/stubs/modern_server.py LOG                 # stdio
    python tests/stubs/modern_server.py LOG --http          # streamable HTTP on a free port, printed by uvicorn
    ... [--ttl MS] [--no-listen]   # its lists' ttlMs (default an hour); no subscriptions/listen

Its questions reach the client as `InputRequiredResult`s (the resolvers `Elicit`, `Sample`,
`ListRoots`), never as requests of its own:
- pick_color(): asks the user for a color (form with a default).
- summarize(text): asks the client's model for a one-line summary.
- my_roots(): the client's roots.
- grow(): adds the tool `grown` and publishes the change (subscriptions/listen, unless --no-listen).
- echo(text): no question.
A prompt `greet(name)` and a resource `notes://today`. Each tool run appends a line to LOG.
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp import MCPError
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp.types import (UNSUPPORTED_PROTOCOL_VERSION, CreateMessageResult, ListRootsResult, SamplingMessage,
                       TextContent, ToolAnnotations)
from pydantic import BaseModel, Field

LOG = sys.argv[1]
SAFE = ToolAnnotations(readOnlyHint=True)


def _ran(line: str) -> str:
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(line + "\n")
    return line


async def only_2026(ctx, call_next):  # noqa: ANN001 - the SDK's middleware signature
    if ctx.method == "initialize":
        raise MCPError(UNSUPPORTED_PROTOCOL_VERSION, "this server speaks only 2026-07-28",
                       data={"supported": ["2026-07-28"], "requested": "initialize"})
    return await call_next(ctx)


TTL_MS = int(sys.argv[sys.argv.index("--ttl") + 1]) if "--ttl" in sys.argv else 3_600_000
app = MCPServer("modern", version="1.0", middleware=[only_2026],
                cache_hints={m: CacheHint(ttl_ms=TTL_MS) for m in ("tools/list", "prompts/list", "resources/list")},
                subscriptions=False if "--no-listen" in sys.argv else None)


class Color(BaseModel):
    color: str = Field(default="blue", description="Your favourite color")


async def ask_color() -> Elicit[Color]:
    return Elicit("Which color?", Color)


async def ask_model(text: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
                  max_tokens=64)


async def ask_roots() -> ListRoots:
    return ListRoots()


@app.tool(annotations=SAFE, structured_output=False)
async def pick_color(answer: Annotated[Color, Resolve(ask_color)]) -> str:
    """Asks the user for a color."""
    return _ran(f"picked {answer.color}")


@app.tool(annotations=SAFE, structured_output=False)
async def summarize(text: str, sampled: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Summarizes TEXT with the client's model."""
    content = sampled.content
    return _ran(f"summary: {content.text if isinstance(content, TextContent) else content}")


@app.tool(annotations=SAFE, structured_output=False)
async def my_roots(roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """The client's roots."""
    return _ran("roots: " + " ".join(sorted(str(r.uri) for r in roots.roots)) if roots.roots else "roots: none")


@app.tool(annotations=SAFE, structured_output=False)
async def echo(text: str) -> str:
    """Says TEXT back."""
    return _ran(f"echo {text}")


@app.tool(annotations=SAFE, structured_output=False)
async def grow(ctx: Context) -> str:
    """Adds the tool `grown`."""

    def grown() -> str:
        """A tool that appeared later."""
        return _ran("grown ran")

    if "grown" not in {t.name for t in await app.list_tools()}:
        app.add_tool(grown, annotations=SAFE, structured_output=False)
    await ctx.notify_tools_changed()
    return _ran("grew")


@app.prompt()
def greet(name: str) -> str:
    """Greets NAME."""
    return f"Say hello to {name}."


@app.resource("notes://today", mime_type="text/plain")
def today() -> str:
    return "today: write the tests"


if __name__ == "__main__":
    if "--http" in sys.argv:
        app.run("streamable-http", host="127.0.0.1", port=0)
    else:
        app.run("stdio")
