"""A server's message is read up to a cap, never whole (client/engine/mcp/oversize.py,
bounded_stdio.py, bounded_http.py): the attacker is an MCP server answering with 50 MB.

In-process, against real servers (tests/stubs/big_result_server.py) over stdio, streamable HTTP
(a JSON body, an SSE event) and the 2024 SSE transport: the call gets the stand-in tool error, the
next call on the same session works, the server was started once. Below that, the reader and the
hook on their own: what they hold never passes the cap, a gzip bomb counts as what it inflates to,
and the id of a message not read is found whether it is written first or last.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any

import httpx2
import pytest
from langchain_core.tools import ToolException
from mcp import types

from client.engine.mcp.hub import ToolHub
from client.engine.mcp.bounded_http import TooLarge, bounded
from client.engine.mcp.bounded_stdio import _Reader
from client.engine.mcp.oversize import KEPT_BYTES, message_id, oversize, tail_id
from client.engine.mcp.results import result_text
from client.engine.mcp.specs import ServerSpec
from tests.conftest import ROOT
from tests.stubs.big_result_server import HttpServer, _big

BIG = ROOT / "tests" / "stubs" / "big_result_server.py"
NOTE = "was not read"


async def run(hub: ToolHub, name: str, **args: Any) -> str:
    """A call as the agent makes it, through the tool's coroutine (ToolException when it failed)."""
    return await next(t for t in hub.tools if t.name == name).coroutine(**args)  # type: ignore[misc]


async def calls(spec: ServerSpec, mb: float = 50) -> tuple[str, str]:
    """(what the model reads of big(mb), of small() after it) on one session."""
    hub = ToolHub([spec])
    await hub.fleet.connect()
    assert hub.fleet.error is None, hub.fleet.error
    try:
        with pytest.raises(ToolException) as big:
            await run(hub, "big", mb=mb)
        return str(big.value), await run(hub, "small")
    finally:
        await hub.fleet.aclose()


@pytest.mark.parametrize("id_last", [False, True], ids=["id-first", "id-last"])
async def test_a_50_mb_stdio_result_is_refused_and_the_session_goes_on(tmp_path: Path, id_last: bool) -> None:
    log = tmp_path / "starts.log"
    args = [str(BIG), "--log", str(log), *(["--id-last"] if id_last else [])]
    big, small = await calls(ServerSpec("big", "stdio", command=sys.executable, args=args))
    assert big.startswith("The result of this tool call was over 4 MB") and NOTE in big
    assert ("(50 MB)" in big) is id_last  # the size is known once the whole line went by
    assert small == "small ok" and len(log.read_text().splitlines()) == 1  # never restarted


@pytest.mark.parametrize("mode", ["json", "sse", "legacy"])
async def test_a_50_mb_http_result_is_refused_and_the_session_goes_on(mode: str) -> None:
    with HttpServer(sse=mode == "sse", legacy=mode == "legacy") as server:
        big, small = await calls(ServerSpec("big", "sse" if mode == "legacy" else "http", url=server.url))
        assert NOTE in big and small == "small ok"
        assert server.calls.count("initialize") == 1  # the same session


async def test_a_result_under_the_cap_is_read_as_before_over_sse() -> None:
    with HttpServer(sse=True) as server:  # the SDK's own limit would have failed the stream at 1 MiB
        hub = ToolHub([ServerSpec("big", "http", url=server.url)])
        await hub.fleet.connect()
        try:
            text = await run(hub, "big", mb=3)
        finally:
            await hub.fleet.aclose()
        assert text.startswith("lorem ipsum") and "[... truncated:" in text


def test_the_stdio_reader_never_holds_more_than_the_cap() -> None:
    cap = 1024 * 1024
    pending: OrderedDict = OrderedDict({7: "tools/call", 8: "resources/read"})
    reader = _Reader(cap, pending)
    data = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + b"x" * (3 * cap) + b'"}}\n'
    data += b"".join(_big(8, 5, True)) + b"\n" + b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n'
    got: list = []
    for i in range(0, len(data), 65536):
        got += reader.feed(data[i:i + 65536])
        assert len(reader.buf) <= cap and (reader.over is None or len(reader.over.tail) <= KEPT_BYTES)
    first, second = (m.message for m in got)  # the notification was dropped
    assert first.id == 8 and first.error.message.startswith("the server's answer was over 1 MB (5 MB)")
    assert first.id not in pending and second.id == 7 and not pending


def test_an_unreadable_id_goes_to_the_one_request_waiting() -> None:
    reader = _Reader(1024, OrderedDict({"a": "tools/call"}))
    got = reader.feed(b'{"result":{"content":[{"type":"text","text":"' + b"y" * 5000 + b'"}]}}\n')
    result = types.CallToolResult.model_validate(got[0].message.result)
    assert got[0].message.id == "a" and result.is_error and oversize(result.meta) == {"cap": "0", "size": "0"}


def test_the_id_is_found_first_or_last_and_never_inside() -> None:
    assert message_id(b'{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"', b"") == 5
    assert message_id(b'{"result":{"content":[{"text":"', b'..."}]},"jsonrpc":"2.0","id":"r-9"}') == "r-9"
    assert message_id(b'{"result":{"x":"', b'..."}],"id":4},"jsonrpc":"2.0"}') is None  # a nested id
    assert tail_id(b'"text":"he said \\"id\\":3}"}]}}') is None
    assert message_id(b'{"id":true,', b"") is None


async def _through_hook(body: bytes, headers: dict[str, str], cap: int, posted: dict | None) -> bytes:
    class Body(httpx2.AsyncByteStream):  # streamed as a socket would (content= would be read at once)
        async def __aiter__(self):
            for i in range(0, len(body), 65536):
                yield body[i:i + 65536]

    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, headers=headers, stream=Body()))
    async with httpx2.AsyncClient(transport=transport, event_hooks={"response": [bounded(cap)]}) as client:
        async with client.stream("POST" if posted else "GET", "http://mcp.test/mcp", json=posted) as response:
            return await response.aread()


async def test_a_gzip_bomb_counts_as_what_it_inflates_to() -> None:
    bomb = gzip.compress(b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"' + b"0" * (40 << 20) + b'"}]}}')
    assert len(bomb) < 100_000
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    got = json.loads(await _through_hook(bomb, headers, 1 << 20, {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}))
    assert got["id"] == 3 and got["result"]["isError"] and NOTE in got["result"]["content"][0]["text"]
    small = gzip.compress(b'{"jsonrpc":"2.0","id":3,"result":{}}')
    assert json.loads(await _through_hook(small, headers, 1 << 20, {"jsonrpc": "2.0", "id": 3, "method": "ping"}))["result"] == {}
    with pytest.raises(TooLarge):  # not the answer to a request of ours: it fails, it is not read
        await _through_hook(bomb, headers, 1 << 20, None)
    with pytest.raises(TooLarge):  # an encoding we cannot inflate in bounded pieces
        await _through_hook(b"x", {"content-type": "application/json", "content-encoding": "br"}, 1 << 20, None)


def test_blocks_are_cut_while_they_are_joined() -> None:
    blocks = [types.TextContent(type="text", text=c * 15_000) for c in "abc"]
    text = result_text(types.CallToolResult(content=blocks), limit=20_000)
    assert text == "a" * 15_000 + "\n" + "b" * 4_999 + "\n[... truncated: 25002 more characters]"
