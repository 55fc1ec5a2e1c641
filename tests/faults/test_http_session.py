"""A streamable HTTP server that forgets our session (restarted, or the session expired) is
connected again at once, and the call that found the session gone runs on the new one.

The SDK answers such a call with "Session terminated" (HTTP 404 for our session id): the server
never ran it, so running it once more on a fresh session is safe. Before, every later call of
the chat failed with that error until the client was restarted.
"""

from __future__ import annotations

import pytest

from tests.faults.conftest import wait_for
from tests.server.helpers import server_env, start_http_server, stop_process

pytestmark = pytest.mark.sqlite_only  # MCP behaviour, not storage


def tool_texts(llm) -> list[str]:
    return [q["messages"][-1]["content"] for q in llm.chat_requests() if q["messages"][-1]["role"] == "tool"]


def test_a_restarted_server_gets_a_new_session_and_the_call_runs(chat, llm, naver, live, tmp_path):
    log = open(tmp_path / "server.log", "w")
    proc, port = start_http_server(server_env(naver), tmp_path, log)
    try:
        lv = live("--new", "--server-url", f"http://127.0.0.1:{port}/mcp", "--context", "none", "--no-memory")

        def turn(line: str) -> str:
            n = len(tool_texts(llm))
            lv.send(line)
            wait_for(lambda: len(tool_texts(llm)) > n or lv.p.poll() is not None, 120)
            assert lv.p.poll() is None, lv.text()
            return tool_texts(llm)[-1]

        assert '"items"' in turn("서울 검색")
        stop_process(proc)  # a redeploy: the new process knows no session of ours
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
