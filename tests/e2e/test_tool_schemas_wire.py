"""A server's tool schemas on the wire: what the model endpoint receives for tools whose schemas use
JSON Schema 2020-12 (`$defs`, `$ref`, `additionalProperties`) and a `$ref` to another host, served
byte for byte by tests/stubs/raw_tools_server.py. Nothing is fetched, nothing crashes, every tool
is offered, and a call with the model's arguments runs."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread

import pytest

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.core.tool_schema import for_model
from client.engine.build import build_session
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.gate import PermissionGate
from client.engine.mcp.permissions import Permissions
from client.engine.mcp.specs import ServerSpec
from client.engine.store import open_store
from tests.conftest import ROOT, TEST_KEY
from tests.sessions import run_turn

pytestmark = pytest.mark.sqlite_only
SERVER = ROOT / "tests" / "stubs" / "raw_tools_server.py"


class Canary:
    """A listener a schema's `$ref` points at: it must never be asked for anything."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                hits.append(self.path)
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b'{"type": "object"}')

            def log_message(self, *a) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/profile.json"


async def test_rich_and_hostile_schemas_reach_the_model_safely_and_the_tool_runs(tmp_path, llm):
    canary = Canary()
    lookup = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
              "additionalProperties": False, "$defs": {"userId": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
              "properties": {"id": {"$ref": "#/$defs/userId"}, "profile": {"$ref": canary.url}}, "required": ["id"]}
    tools = [{"name": "lookup_user", "description": "Look up a user", "inputSchema": lookup},
             {"name": "plain", "description": "No arguments", "inputSchema": {"type": "object"}}]
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    log = tmp_path / "ran.log"
    spec = ServerSpec("raw", "stdio", command=sys.executable, args=[str(SERVER), str(tmp_path / "tools.json"), str(log)])
    settings = Settings(db=str(tmp_path / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                        max_input_tokens=20_000, memory=False,
                        context=ContextSettings("none", 5, 5))  # type: ignore[arg-type]
    hub = ToolHub([spec], permissions=Permissions(yes=True))
    await hub.fleet.connect()
    store = await open_store(settings.db)
    try:
        assert hub.fleet.error is None, hub.fleet.error
        session = build_session(settings, store, hub.tools, gate=PermissionGate(hub.authorize, hub.tool_of))
        await session.open("t1")
        llm.push({"tool_calls": [("lookup_user", {"id": "kim-1"})]})
        await run_turn(session, "김 사용자 찾아 줘")
        first = llm.chat_requests()[0]
        offered = {t["function"]["name"]: t["function"]["parameters"] for t in first["tools"]}
        assert set(offered) == {"lookup_user", "plain"}
        assert offered["lookup_user"] == for_model(lookup)  # as the policy says, not as LangChain rewrites it
        assert offered["lookup_user"]["$defs"] == lookup["$defs"] and offered["lookup_user"]["$schema"]
        assert canary.url not in json.dumps(first) or "not loaded" in json.dumps(offered["lookup_user"])
        assert log.read_text(encoding="utf-8").splitlines() == ['lookup_user {"id": "kim-1"}']
        assert canary.hits == []
    finally:
        await store.close()
        await hub.fleet.aclose()
        canary.httpd.shutdown()
