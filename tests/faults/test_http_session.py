"""A streamable HTTP server that forgets our session (restarted, or the session expired) is
connected again at once, and the call that found the session gone runs on the new one.

The server answers such a call with HTTP 404 for our session id ("Session not found" in its
JSON-RPC body, or the SDK's stand-in "Session terminated"): it never ran the call, so running it
once more on a fresh session is safe. Before, every later call of the chat failed with that error
until the client was restarted; with SDK 2.3 the server's own wording reached us and the retry
stopped (only a 2025-handshake server has sessions, and the test ran on 2026-07-28).
"""

from __future__ import annotations

import pytest

from tests.faults.conftest import wait_for
from tests.server.helpers import server_env, start_http_server, stop_process

pytestmark = pytest.mark.sqlite_only  # MCP behaviour, not storage


def tool_texts(llm) -> list[str]:
    return [q["messages"][-1]["content"] for q in llm.chat_requests() if q["messages"][-1]["role"] == "tool"]


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_a_restarted_server_gets_a_new_session_and_the_call_runs(chat, llm, naver, live, tmp_path, protocol):
    """legacy: the 2025 handshake, whose session the restart forgets (the SDK's "Session
    terminated"); auto: 2026-07-28, stateless, where a restart must go unnoticed too, and where the
    client holds a subscriptions/listen stream open that the server's stop waited for until killed."""
    import json
    import signal

    log = open(tmp_path / "server.log", "w")
    proc, port = start_http_server(server_env(naver), tmp_path, log)
    try:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"search": {"url": f"http://127.0.0.1:{port}/mcp",
                                                                "protocol": protocol}}}))
        lv = live("--new", "--mcp-config", str(config), "--context", "none", "--no-memory")

        def turn(line: str) -> str:
            n = len(tool_texts(llm))
            lv.send(line)
            wait_for(lambda: len(tool_texts(llm)) > n or lv.p.poll() is not None, 120)
            assert lv.p.poll() is None, lv.text()
            return tool_texts(llm)[-1]

        assert '"items"' in turn("서울 검색")
        proc.send_signal(signal.SIGTERM)  # a redeploy: the new process knows no session of ours
        assert proc.wait(30) == 0  # it stopped by itself (auto: despite the client's listen stream), not killed
        log2 = open(tmp_path / "server2.log", "w")
        proc, _ = start_http_server(server_env(naver), tmp_path, log2, "--port", str(port))
        second = turn("부산 검색")
        assert '"items"' in second and "terminated" not in second.lower(), second
        assert '"items"' in turn("대구 검색")
        code, out, err = lv.finish()
        assert code == 0, err
        assert "terminated" not in (out + err).lower()
    finally:
        stop_process(proc)


def test_what_counts_as_a_forgotten_session():
    from mcp.shared.exceptions import MCPError

    from client.engine.mcp.server import _session_lost

    assert _session_lost(MCPError(-32600, "Session terminated"))  # the SDK's stand-in for a bare 404
    assert _session_lost(MCPError(-32600, "Session not found"))  # the Python SDK server's body
    assert _session_lost(MCPError(-32001, "Session not found."))  # the TypeScript SDK's
    assert not _session_lost(MCPError(-32600, "Session terminated before the request completed"))  # may have run
    assert not _session_lost(MCPError(-32602, "Session not found"))  # another code: a tool's own error
    assert not _session_lost(RuntimeError("Session not found"))
