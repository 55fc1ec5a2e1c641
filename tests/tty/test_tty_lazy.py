"""At a terminal no MCP server holds the prompt or a message up (issue 41): the prompt comes while
a slow server (tests/stubs/many_tools_server.py behind a gate file) is still starting, the bottom
toolbar names it, a message goes out without its tools after a short grace (saying so in one
line), and once it is up its tools join the next request. What was typed before the chat loaded is kept."""

from __future__ import annotations

import json
import sys

from tests.conftest import ROOT

SERVER = ROOT / "tests" / "stubs" / "many_tools_server.py"


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def test_the_prompt_comes_while_a_slow_server_starts_and_the_status_line_names_it(tty, llm, tmp_path):
    gate = tmp_path / "gate"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"slowpoke": {
        "command": sys.executable, "args": [str(SERVER), "slack", "--count", "2", "--gate", str(gate)],
        "startupTimeout": 600}}}))  # starting until the gate opens, however slow the client is to its prompt
    pane = tty("--new", "--no-memory", "--mcp-config", str(config))
    # "MCP 서버 시작 중: slowpoke", or with its timer when the prompt came 3 s or more after the start began
    pane.wait_for(lambda s: any(ln.startswith("❯") for ln in s.splitlines()) and any(
        ln.strip().startswith("MCP 서버 시작 중") and ln.endswith(": slowpoke") for ln in s.splitlines()), 60)
    pane.wait_for("MCP 서버 시작 중 (", 30)  # the timer, after a few seconds
    pane.line("먼저 보내요")
    screen = pane.wait_for("답변 1: 먼저 보내요", 30)
    assert tool_names(llm.requests[0]) == []  # sent after the grace, without the server still starting
    assert screen.count("이 메시지는 아직 시작 중인 MCP 서버의 도구 없이 보냅니다: slowpoke") == 1  # said in one line
    gate.touch()
    pane.wait_for(lambda s: s.count("❯") >= 2 and "MCP 서버 시작 중" not in s, 60)  # up: the toolbar is gone
    pane.line("/mcp")
    pane.wait_for("slowpoke: 연결됨 · stdio", 30)
    pane.line("이제 도구와 함께")
    pane.wait_for("이제 도구와 함께", 30, count=2)
    pane.wait_for(lambda s: len(llm.requests) >= 2, 30)
    assert tool_names(llm.requests[1]) == ["slack_list_message", "slack_list_channel"]
    pane.keys("C-d")
    assert pane.exit_status() == 0


def test_what_is_typed_before_the_chat_loaded_is_sent(tty, llm):
    pane = tty("--new", "--no-memory")
    pane.wait_for("❯", 60)  # the early prompt (client/ui/early_prompt.py) or the real one
    pane.line("일찍 친 메시지")
    pane.wait_for("답변 1: 일찍 친 메시지", 60)
    assert [m["content"] for m in llm.requests[0]["messages"] if m["role"] == "user"][-1] == "일찍 친 메시지"
    pane.keys("C-d")
    assert pane.exit_status() == 0
