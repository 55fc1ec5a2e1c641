"""A stdio MCP server that dies mid-session is started again on a later call."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from tests.faults.conftest import wait_for

pytestmark = pytest.mark.sqlite_only  # MCP behaviour, not storage

SERVER = textwrap.dedent('''
    import os
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    mcp = MCPServer("mortal")
    SAFE = ToolAnnotations(readOnlyHint=True)

    @mcp.tool(annotations=SAFE)
    def whoami() -> str:
        """The server's process id."""
        return f"pid={os.getpid()}"

    @mcp.tool(annotations=SAFE)
    def die() -> str:
        """Ends the server process at once."""
        os._exit(3)

    mcp.run("stdio")
''')


def call(name: str) -> str:
    return f"[tool:{name} {{}}]"


def tool_texts(llm) -> list[str]:
    return [q["messages"][-1]["content"] for q in llm.chat_requests() if q["messages"][-1]["role"] == "tool"]


def test_a_dead_stdio_server_is_respawned_on_a_later_call(chat, llm, live, tmp_path):
    script = tmp_path / "mortal.py"
    script.write_text(SERVER)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"mortal": {"command": sys.executable, "args": [str(script)]}}}))
    lv = live("--new", "--mcp-config", str(config), "--context", "none", "--no-memory")

    def turn(line: str) -> str:
        n = len(tool_texts(llm))
        lv.send(line)
        wait_for(lambda: len(tool_texts(llm)) > n or lv.p.poll() is not None, 60)
        assert lv.p.poll() is None, lv.text()
        return tool_texts(llm)[-1]

    first = turn(call("whoami"))
    assert first.startswith("pid=")
    turn(call("die"))  # the process exits under the call: a tool error, the turn ends
    for _ in range(50):  # within the reconnect back-off the call fails again; then it respawns
        again = turn(call("whoami"))
        if again.startswith("pid="):
            break
        assert "is unreachable" in again, again  # the model reads English whatever --lang says
    assert again.startswith("pid=") and again != first  # a new process answered
    lv.send("/servers")
    lv.wait_text("재연결")
    code, out, err = lv.finish()
    assert code == 0, err
    assert "Traceback" not in err
    results = tool_texts(llm)
    assert "pid=" not in results[1]  # the call the server died under reached the model as an error
