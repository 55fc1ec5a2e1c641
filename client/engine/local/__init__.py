"""The local provider: llama-server + a small GGUF model, prepared once into the user cache.

    prepare(cache, report=...)  build/reuse llama-server, fetch/verify the weights (notes, progress: report)
    prepare(cache, start=True)  ... and start the server as a child process (call `wait_ready()` next)
    keeper.acquire(...)  a warm server kept between sessions (MCP_CHAT_LOCAL_KEEP_ALIVE: Tuning.keep_alive)

Cache: `cache`, the user's (Settings.dirs.cache: `$MCP_CHAT_CACHE`, else `$XDG_CACHE_HOME/mcp-chat`, else
`~/.cache/mcp-chat`).
"""

from __future__ import annotations

from pathlib import Path

from client.engine.local.build import build_server, server_ready
from client.engine.frontend import SetupSink, ignore
from client.engine.local.server import LocalServer
from client.engine.local.spec import CONTEXT_WINDOW, QWEN_CODER_15B, server_dir
from client.engine.local.template import write_template
from client.engine.local.weights import SetupError, fetch_weights, weights_ready

__all__ = ["LocalServer", "SetupError", "prepare", "runtime_ready"]


def runtime_ready(cache: Path) -> bool:
    """Both the server binary and the verified weights are in the cache (no work needed)."""
    return server_ready(cache) and weights_ready(cache)


def prepare(cache: Path, *, start: bool = False, threads: int | None = None, report: SetupSink = ignore) -> LocalServer:
    """Make sure everything is in `cache` (`report`: its notes and progress); optionally start the server."""
    binary = build_server(cache, report=report)
    weights = fetch_weights(cache, report=report)
    template = write_template(server_dir(cache))
    server = LocalServer(binary, weights, template, alias=QWEN_CODER_15B.name, ctx=CONTEXT_WINDOW, threads=threads,
                         cache=cache)
    return server.start() if start else server
