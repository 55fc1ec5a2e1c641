"""The search server on both MCP revisions (issue 38): a client that speaks only 2026-07-28 uses it
over streamable HTTP and stdio, statelessly, with the list cache fields and the request headers
checked; 2025 clients (the Inspector's way, the SDK 1.x-style handshake, our own client pinned to
it) are still served; an auto-mode client's `server/discover` probe costs one log line."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from server.app import LISTING_TTL_MS
from tests.server.helpers import server_env, start_http_server, stop_process
from tests.stubs.naver_stub import NaverStub

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
ONE_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ [\w.]+: ")


class Http:
    def __init__(self, tmp: Path, stub: NaverStub, *args: str) -> None:
        self.log_path = tmp / "server.log"
        self._log = self.log_path.open("w", encoding="utf-8")
        self.proc, self.port = start_http_server(server_env(stub), tmp, self._log, *args)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8")

    def access(self, at_least: int = 0) -> list[str]:
        """The access lines, once there are `at_least` (each is written when its answer has ended)."""
        deadline = time.monotonic() + 30
        while True:
            lines = [line for line in self.log().splitlines() if " server.access: " in line]
            if len(lines) >= at_least or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)

    def modern(self, method: str, params: dict | None = None, **headers: str) -> httpx.Response:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**(params or {}), "_meta": META}}
        sent = {**ACCEPT, "MCP-Protocol-Version": MODERN, "Mcp-Method": method, **headers}
        return httpx.post(self.url, json=body, headers={k: v for k, v in sent.items() if v}, timeout=30)

    def close(self) -> None:
        stop_process(self.proc)
        self._log.close()


@pytest.fixture(params=[(), ("--stateless",)], ids=["stateful", "stateless"])
def http(request: pytest.FixtureRequest, naver_stub: NaverStub, tmp_path: Path) -> Iterator[Http]:
    server = Http(tmp_path, naver_stub, *request.param)
    yield server
    server.close()


def _stdio(stub: NaverStub, cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "server", "--transport", "stdio"],
                                 env=server_env(stub), cwd=str(cwd))


async def _search_with(client: Client) -> None:
    listing = await client.list_tools()
    assert {t.name for t in listing.tools} == {"web_search", "news_search", "blog_search"}
    assert (listing.ttl_ms, listing.cache_scope) == (LISTING_TTL_MS, "public")  # fixed tools, same for everyone
    result = await client.call_tool("web_search", {"query": "판교 맛집"})
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text)["items"]


async def test_a_client_that_speaks_only_2026_uses_it_over_http_and_stdio(http: Http, naver_stub: NaverStub,
                                                                          tmp_path: Path):
    async with Client(http.url, mode=MODERN) as client:  # pinned: no probe, no handshake
        assert client.protocol_version == MODERN
        await _search_with(client)
    async with Client(_stdio(naver_stub, tmp_path), mode=MODERN) as client:
        await _search_with(client)
    async with Client(http.url) as client:  # auto: server/discover answered
        assert client.protocol_version == MODERN and client.server_info.name == "naver-search"
        assert client.server_info.version  # our version (the SDK 2.x sends none of its own)
    with (tmp_path / "stdio.err").open("w+") as err:
        async with Client(stdio_client(_stdio(naver_stub, tmp_path), errlog=err)) as client:  # auto, over stdio
            assert client.protocol_version == MODERN
            await client.list_tools()
        err.seek(0)
        assert err.read() == ""  # the probe is an ordinary request: nothing on the server's stderr
    assert len(naver_stub.requests) == 2


def test_modern_requests_are_stateless_and_their_headers_checked(http: Http):
    discover = http.modern("server/discover")
    assert discover.status_code == 200 and "mcp-session-id" not in discover.headers
    result = discover.json()["result"]
    assert MODERN in result["supportedVersions"] and result["ttlMs"] == LISTING_TTL_MS
    listed = http.modern("tools/list")
    assert listed.status_code == 200 and "mcp-session-id" not in listed.headers
    assert listed.json()["result"]["cacheScope"] == "public"
    # Mcp-Method / Mcp-Name must say what the body says (SEP-2243): a proxy may route on them
    for bad in (http.modern("tools/list", **{"Mcp-Method": "tools/call"}),
                http.modern("tools/call", {"name": "web_search", "arguments": {"query": "x"}}, **{"Mcp-Name": "news_search"}),
                http.modern("tools/call", {"name": "web_search", "arguments": {"query": "x"}})):
        assert bad.status_code == 400 and bad.json()["error"]["code"] == -32020, bad.text
    # DNS-rebinding protection holds on the 2026 path too
    assert http.modern("tools/list", Host="evil.example:80").status_code == 421
    assert http.modern("tools/list", Origin="http://evil.example").status_code == 403
    assert http.modern("initialize").status_code == 404  # no handshake in 2026-07-28
    access = http.access(8)
    assert len(access) == 8, access  # one line per request, the refused ones included
    assert "(Host not allowed: evil.example:80)" in access[5] and "(Origin not allowed: http://evil.example)" in access[6]


async def test_an_auto_clients_probe_costs_one_line_per_request(http: Http):
    sent: list[str] = []

    async def count(request: httpx2.Request) -> None:
        sent.append(request.method)

    async with httpx2.AsyncClient(event_hooks={"request": [count]}, timeout=30) as h:
        async with Client(streamable_http_client(http.url, http_client=h)) as client:
            await client.list_tools()
            await client.call_tool("web_search", {"query": "q"})
    access = await asyncio.to_thread(http.access, len(sent))
    log = http.log()
    assert len(access) == len(sent) == 3, (sent, log)  # discover, tools/list, tools/call
    assert all(ONE_LINE.match(ln) for ln in log.splitlines()), log  # no dump, no traceback: one record, one line
    assert "validation" not in log.lower() and "Traceback" not in log


def test_the_inspectors_way_of_connecting_still_works(http: Http):
    """A 2025 client (the Inspector, TypeScript SDK 1.x): initialize, initialized, list over the session
    (or with no session on --stateless), the GET stream, DELETE."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {"sampling": {}, "roots": {"listChanged": True}},
                       "clientInfo": {"name": "mcp-inspector", "version": "0.17.0"}}}
    with httpx.Client(timeout=30) as h:
        r = h.post(http.url, json=init, headers=ACCEPT)
        assert r.status_code == 200, r.text
        body = r.json() if r.headers["content-type"].startswith("application/json") else \
            json.loads(next(ln[5:] for ln in r.text.splitlines() if ln.startswith("data:")))
        assert body["result"]["protocolVersion"] == "2025-06-18"
        assert body["result"]["serverInfo"]["name"] == "naver-search"
        session = {"Mcp-Session-Id": r.headers["mcp-session-id"]} if "mcp-session-id" in r.headers else {}
        headers = {**ACCEPT, **session, "MCP-Protocol-Version": "2025-06-18"}
        assert h.post(http.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                      headers=headers).status_code == 202
        listed = h.post(http.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers)
        assert listed.status_code == 200 and "web_search" in listed.text
        if session:  # stateful: the server-to-client stream and the end of the session
            with h.stream("GET", http.url, headers={**headers, "Accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            assert h.delete(http.url, headers=headers).status_code == 200


async def test_our_client_pinned_to_the_2025_handshake(http: Http, naver_stub: NaverStub):
    from client.engine.mcp.server import ServerConn
    from client.engine.mcp.specs import ServerSpec

    for protocol, expected in (("legacy", "2025-11-25"), ("auto", MODERN)):
        conn = ServerConn(ServerSpec(name="search", transport="http", url=http.url, protocol=protocol))
        try:
            assert await conn.start(), conn.error
            assert conn.revision.version == expected and len(conn.tools) == 3
            result = await conn.call(conn.tools[0], {"query": "광안리"})
            assert not result.is_error, result.content
        finally:
            await conn.aclose()
