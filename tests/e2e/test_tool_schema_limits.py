"""Issue 50 item 5: a server's tool schemas cannot stop the session.

A hostile server (tests/stubs/raw_tools_server.py, real stdio, its tools byte for byte) offers a
tool whose schema alone is 3.7 MB, under the 4 MiB message cap: it is not offered, one line names
it, the other tools work and every message is answered. With deferred schemas, a search whose
matches are each under that share but many together cannot make this or any later request too
big. Assertions are on the request bodies the recording model received.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from client.core.config import Settings
from client.core.context.deferred_tools import MAX_TOOL_SHARE
from client.core.context.policy import ContextSettings
from client.engine.build import build_session
from client.engine.events import Refused
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.gate import PermissionGate
from client.engine.mcp.permissions import Permissions
from client.engine.mcp.specs import ServerSpec
from client.engine.store import open_store
from tests.conftest import ROOT, TEST_KEY, user_texts
from tests.e2e.test_mcp_everything import call_line, tool_results, write_config

pytestmark = pytest.mark.sqlite_only
SERVER = ROOT / "tests" / "stubs" / "raw_tools_server.py"


def _serve(tmp: Path, tools: list[dict]) -> tuple[list[str], Path]:
    (tmp / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    log = tmp / "ran.log"
    return [str(SERVER), str(tmp / "tools.json"), str(log)], log


def tool_names(req: dict) -> list[str]:
    return [t["function"]["name"] for t in req.get("tools") or []]


def test_a_tool_whose_schema_is_too_big_is_named_once_and_the_session_goes_on(cli, llm, tmp_path):
    huge = {"type": "object", "properties": {"mode": {"type": "string", "enum": [f"m{i:07d}" for i in range(308_000)]}}}
    args, log = _serve(tmp_path, [
        {"name": "huge", "description": "Takes every mode", "inputSchema": huge},
        {"name": "small", "description": "Small", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}])
    assert 3_500_000 < len(json.dumps(huge)) < 4 * 2**20
    config = write_config(tmp_path, {"raw": {"command": sys.executable, "args": args, "alwaysAllow": ["*"]}})
    r = cli("--new", "--mcp-config", config, "--no-memory", "--context", "none",
            input=call_line("small", {"x": "1"}) + "\n두 번째 질문\n" + call_line("huge", {"mode": "m0000001"}) + "\n",
            timeout=120)
    assert r.code == 0, r.err
    told = [ln for ln in r.err.splitlines() if "'huge'" in ln]
    assert len(told) == 1 and "제공하지 않습니다" in told[0] and "(raw)" in told[0]
    assert all(len(json.dumps(q)) < 100_000 for q in llm.requests)  # the schema never went out
    assert all(tool_names(q) == ["small"] for q in llm.chat_requests())
    assert tool_results(llm.requests)["small"] == ["ran small"]
    assert "두 번째 질문" in user_texts(llm.requests[-1])  # every message reached the model
    assert log.read_text().splitlines() == ['small {"x": "1"}']  # the refused tool never ran


async def test_a_search_that_finds_many_big_tools_leaves_later_messages_working(tmp_path, llm):
    budget = 8_000
    blob = "report field " * 430  # each tool about 1,400 tokens: under MAX_TOOL_SHARE alone, 12 of them far over
    tools = [{"name": f"report_{i}", "description": f"Report number {i}",
              "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": blob}}}}
             for i in range(12)]
    args, _ = _serve(tmp_path, tools)
    spec = ServerSpec("reports", "stdio", command=sys.executable, args=args)
    hub = ToolHub([spec], permissions=Permissions(yes=True))
    await hub.fleet.connect()
    store = await open_store(str(tmp_path / "chat.db"))
    try:
        settings = Settings(db=str(tmp_path / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                            max_input_tokens=budget, memory=False, tool_search="on",
                            context=ContextSettings("trim", 4, 5))  # type: ignore[arg-type]
        session = build_session(settings, store, hub.tools, gate=PermissionGate(hub.authorize, hub.tool_of))
        sizes = [session.models.current.provider.tools_tokens([t]) for t in hub.tools]
        assert all(s <= MAX_TOOL_SHARE * budget for s in sizes) and sum(sizes[:10]) > budget
        await session.open("t1")
        llm.push({"tool_calls": [("tool_search", {"query": "report", "max_results": 10})]})
        first = [ev async for ev in session.turn("보고서 도구 찾아 줘")]
        after_search = llm.chat_requests()[-1]
        carried = session.models.current.provider.tools_tokens(
            [t for t in hub.tools if t.name in tool_names(after_search)])
        assert 1 <= len(tool_names(after_search)) - 1 and carried <= MAX_TOOL_SHARE * budget
        later = [[ev async for ev in session.turn(f"다음 질문 {i}")] for i in range(2)]
        assert not any(isinstance(ev, Refused) for evs in [first, *later] for ev in evs)
        assert user_texts(llm.requests[-1])[-1] == "다음 질문 1"
    finally:
        await store.close()
        await hub.fleet.aclose()
