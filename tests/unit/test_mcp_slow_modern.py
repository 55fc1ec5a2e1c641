"""A 2026-07-28-only server slower to answer than the SDK's `server/discover` limit (10 s) is
probed again within its start-up time, never taken for a 2025 server (whose `initialize` it
would refuse). The SDK's limit is shortened here so the proof costs a second, not ten."""

from __future__ import annotations

import sys

import mcp.client.session as sdk_session

from client.engine.mcp.server import ServerConn
from client.engine.mcp.specs import ServerSpec
from tests.conftest import ROOT

STUB = ROOT / "tests" / "stubs" / "modern_server.py"


def slow_modern(tmp_path, delay: float) -> ServerSpec:
    """The modern-only stub, which reads its input only after `delay` seconds (a slow start)."""
    return ServerSpec("slow-modern", "stdio", command="sh",
                      args=["-c", f'sleep {delay}; exec "$@"', "sh", sys.executable, str(STUB), str(tmp_path / "ran.log")])


async def test_a_modern_server_slower_than_the_discover_limit_still_connects(tmp_path, monkeypatch):
    monkeypatch.setattr(sdk_session, "DISCOVER_TIMEOUT_SECONDS", 0.2)  # stands for the SDK's 10 s
    server = ServerConn(slow_modern(tmp_path, 1.0))
    try:
        assert await server.start(60), server.error
        assert server.revision.version == "2026-07-28"
        assert "echo" in {t.name for t in server.tools}
    finally:
        await server.aclose()


async def test_the_start_up_timeout_still_ends_the_probing(tmp_path, monkeypatch):
    monkeypatch.setattr(sdk_session, "DISCOVER_TIMEOUT_SECONDS", 0.2)
    server = ServerConn(slow_modern(tmp_path, 30.0))
    try:
        assert not await server.start(1.0)
        assert server.state == "failed" and server.error == "no answer within 1s"
    finally:
        await server.aclose()
