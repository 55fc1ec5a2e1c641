"""The local provider: llama-server + a small GGUF model, prepared once into the user cache.

    prepare(report=...)  build/reuse llama-server, fetch/verify the weights (notes, progress: report)
    prepare(start=True)  ... and start the server as a child process (call `wait_ready()` next)
    keeper.acquire(...)  a warm server kept between sessions (MCP_CHAT_LOCAL_KEEP_ALIVE)

Cache: `$MCP_CHAT_CACHE`, else `$XDG_CACHE_HOME/mcp-chat`, else `~/.cache/mcp-chat`.
"""

from __future__ import annotations

from client.engine.local.build import build_server, server_ready
from client.engine.frontend import SetupSink, ignore
from client.engine.local.server import LocalServer
from client.engine.local.spec import CONTEXT_WINDOW, QWEN_CODER_15B, server_dir
from client.engine.local.template import write_template
from client.engine.local.weights import SetupError, fetch_weights, weights_ready

__all__ = ["LocalServer", "SetupError", "prepare", "runtime_ready"]


def runtime_ready() -> bool:
    """Both the server binary and the verified weights are in the cache (no work needed)."""
    return server_ready() and weights_ready()


def prepare(*, start: bool = False, threads: int | None = None, report: SetupSink = ignore) -> LocalServer:
    """Make sure everything is in the cache (`report`: its notes and progress); optionally start the server."""
    binary = build_server(report=report)
    weights = fetch_weights(report=report)
    template = write_template(server_dir())
    server = LocalServer(binary, weights, template, alias=QWEN_CODER_15B.name, ctx=CONTEXT_WINDOW, threads=threads)
    return server.start() if start else server
