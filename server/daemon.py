"""The search server's pre-imported process (plumbing/forkserver, docs/startup.md): what it
imports before it serves, and what its freshness is keyed on. The client's bundled stdio server
is served by it (server/__main__.py `boot`). Light at import."""

from __future__ import annotations

from pathlib import Path

from plumbing.forkserver import Program

ROOT = Path(__file__).resolve().parents[1]  # the installation: server/ and plumbing/
AT_RUNTIME = ("anyio._backends._asyncio", "anyio.streams.stapled", "mcp.server.stdio", "httpcore", "h11")

PROGRAM = Program(kind="server", module="server.__main__", root=ROOT, packages=("server", "plumbing"),
                  app="mcp-chat", runtime_env="MCP_CHAT_RUNTIME_DIR", switch="MCP_CHAT_DAEMON",
                  secret_names=("NAVER_CLIENT_ID",))


def preload() -> None:
    from plumbing.forkserver.preload import preload as load

    load(ROOT, PROGRAM.packages, AT_RUNTIME)
