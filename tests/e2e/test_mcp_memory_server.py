"""The client against the reference knowledge-graph server `@modelcontextprotocol/server-memory`
(pinned in scripts/everything, a 2025-era server over stdio): the real agent in-process, the
recording model stub calls its tools, and the graph it keeps in its own file is what the model
was told."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.engine.build import build_session
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.gate import PermissionGate
from client.engine.mcp.permissions import Permissions
from client.engine.mcp.specs import ServerSpec
from client.engine.store import open_store
from tests.conftest import TEST_KEY
from tests.e2e.test_mcp_everything import everything_js  # noqa: F401 - the installed npm servers
from tests.sessions import run_turn

pytestmark = pytest.mark.sqlite_only


async def test_the_memory_server_keeps_what_the_model_wrote(tmp_path, llm, everything_js):  # noqa: F811
    entry = Path(everything_js).parents[2] / "server-memory" / "dist" / "index.js"
    graph = tmp_path / "graph.jsonl"
    spec = ServerSpec("memory", "stdio", command="node", args=[str(entry)], env={"MEMORY_FILE_PATH": str(graph)})
    settings = Settings(db=str(tmp_path / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                        max_input_tokens=30_000, memory=False,
                        context=ContextSettings("none", 5, 5))  # type: ignore[arg-type]
    hub = ToolHub([spec], permissions=Permissions(yes=True))
    await hub.fleet.connect()
    store = await open_store(settings.db)
    try:
        assert hub.fleet.error is None and hub.fleet.servers[0].revision, (hub.fleet.error, hub.fleet.servers[0].error)
        names = {t.name for t in hub.tools}
        assert {"create_entities", "read_graph", "search_nodes"} <= names
        session = build_session(settings, store, hub.tools, gate=PermissionGate(hub.authorize, hub.tool_of))
        await session.open("t1")
        person = {"name": "김서준", "entityType": "person", "observations": ["부산에 산다", "고수를 못 먹는다"]}
        llm.push({"tool_calls": [("create_entities", {"entities": [person]})]})
        await run_turn(session, "서준에 대해 기억해 줘")
        llm.push({"tool_calls": [("search_nodes", {"query": "부산"})]})
        await run_turn(session, "부산 사는 사람?")
        stored = [json.loads(line) for line in graph.read_text(encoding="utf-8").splitlines()]
        assert [(e["name"], e["observations"]) for e in stored] == [("김서준", person["observations"])]
        told = next(m["content"] for m in reversed(llm.chat_requests()[-1]["messages"]) if m["role"] == "tool")
        assert "김서준" in told and "고수를 못 먹는다" in told
    finally:
        await store.close()
        await hub.fleet.aclose()
