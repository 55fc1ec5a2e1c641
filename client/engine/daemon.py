"""The client's pre-imported process (plumbing/forkserver, docs/startup.md): what it imports
before it serves, and what its freshness is keyed on. Light at import: the launcher reads it
before anything else."""

from __future__ import annotations

from pathlib import Path

from client.core.paths import APP, RUNTIME_ENV
from plumbing.forkserver import Program

ROOT = Path(__file__).resolve().parents[2]  # the installation: client/, server/, plumbing/
# imported by the SDKs only while they run (first client, first stream, first subprocess);
# measured with a one-shot run with a tool call after preloading (tests/e2e/test_daemon.py)
AT_RUNTIME = (
    "anyio._backends._asyncio", "anyio.streams.stapled", "anyio.streams.tls", "httpcore", "h11", "jiter",
    "openai.resources.chat", "openai.lib.streaming.chat", "openai.pagination", "truststore",
    "langchain_core.tracers.context", "langchain_core.tracers.run_collector", "langchain_core.tracers.stdout",
    "langchain_core.messages.block_translators.langchain_v0",
)
# credentials whose names do not say so (client/core/secrets.py SECRET_VARS; the rest have KEY/SECRET in them)
SECRET_NAMES = ("NAVER_CLIENT_ID",)

PROGRAM = Program(kind="client", module="client.__main__", root=ROOT, packages=("client", "plumbing"),
                  app=APP, runtime_env=RUNTIME_ENV, switch="MCP_CHAT_DAEMON",
                  secret_names=SECRET_NAMES)


def preload() -> None:
    from plumbing.forkserver.preload import preload as load

    load(ROOT, PROGRAM.packages, AT_RUNTIME)
