"""The shipped deploy/nginx.conf with Debian's nginx in front of two `--stateless` replicas:
MCP sessions through it with a bearer token, a named Host, 401s, replicas killed between
calls and during a call."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import httpx
import httpx2
import pytest
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import INTERNAL_ERROR

from tests.deploy.stack import NGINX_PORT, OLD_TOKEN, REPLICA_PORTS, TOKEN, Stack

pytestmark = pytest.mark.timeout(180)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "curl-like", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@contextlib.asynccontextmanager
async def session(url: str, headers: dict[str, str], modern: bool = False) -> AsyncIterator[ClientSession]:
    """A 2025 session (the initialize handshake), or with `modern` a 2026-07-28 one (server/discover)."""
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as s:
                await (s.discover() if modern else s.initialize())
                yield s


async def search(s: ClientSession, query: str) -> dict:
    result = await asyncio.wait_for(s.call_tool("web_search", {"query": query}), 30)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def served(stack: Stack) -> dict[int, int]:
    return {port: len(stub.requests) for port, stub in stack.stubs.items()}


async def test_session_through_nginx_with_token_uses_both_replicas(stack: Stack):
    async with session(stack.url, AUTH) as s:
        names = {t.name for t in (await s.list_tools()).tools}
        assert names == {"web_search", "news_search", "blog_search"}
        for i in range(6):
            body = await search(s, f"서울 맛집 {i}")
            assert body["items"] and f"서울 맛집 {i}" in json.dumps(body, ensure_ascii=False)
    assert all(n > 0 for n in served(stack).values()), served(stack)  # round robin over both
    async with session(stack.url, {"Authorization": f"Bearer {OLD_TOKEN}"}) as s:  # rotation: both accepted
        await search(s, "부산")
    health = httpx.get(f"http://127.0.0.1:{NGINX_PORT}/healthz")  # no token, no Naver call
    assert health.status_code == 200
    assert sum(served(stack).values()) == 7
    logs = "".join(stack.log(p) for p in REPLICA_PORTS)
    assert "INFO server.access: POST /mcp 200" in logs and "GET /healthz 200" in logs
    assert TOKEN not in logs and OLD_TOKEN not in logs and "맛집" not in logs  # no secret, no query text


async def test_a_2026_client_is_served_by_either_replica_without_affinity(stack: Stack):
    """2026-07-28: no session, every request stands alone, so round robin needs no stickiness."""
    async with session(stack.url, AUTH, modern=True) as s:
        assert s.protocol_version == "2026-07-28"
        listing = await s.list_tools()
        assert {t.name for t in listing.tools} == {"web_search", "news_search", "blog_search"}
        for i in range(6):
            assert (await search(s, f"인천 {i}"))["items"]
    assert all(n > 0 for n in served(stack).values()), served(stack)
    logs = "".join(stack.log(p) for p in REPLICA_PORTS)
    assert "Traceback" not in logs and "validation error" not in logs.lower()


async def test_no_or_wrong_token_is_401_with_a_challenge(stack: Stack):
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{NGINX_PORT}") as http:
        missing = await http.post("/mcp", json=INIT, headers=MCP_HEADERS)
        wrong = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, "Authorization": "Bearer tok-guessed-0000"})
        basic = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, "Authorization": "Basic dXNlcjpwdw=="})
        good = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, **AUTH})
    for r in (missing, wrong, basic):
        assert r.status_code == 401, r.text
        assert r.headers["www-authenticate"].startswith('Bearer realm="mcp-search"')
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    assert good.status_code == 200 and good.json()["result"]["serverInfo"]["name"] == "naver-search"
    logs = "".join(stack.log(p) for p in REPLICA_PORTS)
    rejected = [line for line in logs.splitlines() if " 401 " in line]
    assert len(rejected) == 3, rejected  # one line per refused request
    assert any("(missing token)" in line for line in rejected) and any("(wrong token)" in line for line in rejected)
    assert "tok-guessed-0000" not in logs and "dXNlcjpwdw" not in logs and TOKEN not in logs
    with pytest.raises(BaseException):  # an MCP client without the token cannot even initialize
        async with session(stack.url, {}):
            pass
    assert served(stack) == {p: 0 for p in REPLICA_PORTS}


async def test_named_host_through_nginx_is_allowed_others_are_refused(stack: Stack):
    async with session(stack.url, {**AUTH, "Host": f"mcp.internal:{NGINX_PORT}"}) as s:
        assert (await search(s, "대전"))["items"]
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{NGINX_PORT}") as http:
        evil = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, **AUTH, "Host": "evil.example:8080"})
        loopback = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, **AUTH})
    assert evil.status_code == 421  # DNS-rebinding protection stays on for other names
    assert loopback.status_code == 200  # Host 127.0.0.1:8080 reaches the replica with its port


async def test_replica_killed_between_calls(stack: Stack):
    async with session(stack.url, AUTH) as s:
        for i in range(4):
            await search(s, f"광주 {i}")
        assert all(n > 0 for n in served(stack).values())
        victim, survivor = REPLICA_PORTS
        await asyncio.to_thread(stack.kill, victim)
        before = served(stack)
        for i in range(6):  # every later call is answered, by the survivor
            body = await search(s, f"울산 {i}")
            assert f"울산 {i}" in json.dumps(body, ensure_ascii=False)
        after = served(stack)
    assert after[victim] == before[victim] and after[survivor] == before[survivor] + 6


async def test_replica_killed_during_a_call_later_calls_succeed(stack: Stack):
    for stub in stack.stubs.values():
        stub.set_mode("slow", delay=20)
    victim = 0
    async with session(stack.url, AUTH) as s:
        call = asyncio.create_task(s.call_tool("web_search", {"query": "제주"}))
        while not any(stub.requests for stub in stack.stubs.values()):  # the call reached a replica
            assert not call.done(), call
            await asyncio.sleep(0.05)
        victim = next(p for p, stub in stack.stubs.items() if stub.requests)
        await asyncio.to_thread(stack.kill, victim)
        with pytest.raises(MCPError) as failure:  # that call fails: nginx answers 502, a POST is not resent
            await asyncio.wait_for(call, 15)
    # SDK 2.x: a non-2xx answer fails that one request as a JSON-RPC error, not the whole session
    assert failure.value.code == INTERNAL_ERROR, repr(failure.value)
    for stub in stack.stubs.values():
        stub.reset()
    async with session(stack.url, AUTH) as s:  # a new session through the same balancer
        for i in range(6):
            assert (await search(s, f"강릉 {i}"))["items"]
    assert len(stack.stubs[victim].requests) == 0
    access = (stack.dir / "nginx" / "access.log").read_text()
    assert " 502 " in access  # what the client saw for the call in flight
