"""Progress of long-running MCP tools: hub -> renderer, TTY vs piped; dead-server calls."""

from __future__ import annotations

import asyncio
import io

from mcp import types

from client.engine.mcp import ServerGone, ServerSpec
from client.engine.mcp.hub import ToolHub
from client.engine.frontend import Frontend
from client.engine.mcp.hub import ToolProgress
from client.ui import i18n
from client.ui.mcp_view import progress_line
from client.ui.render import Renderer


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_tty_rewrites_one_line_and_ends_it():
    out = Stream(tty=True)
    r = Renderer(out=out, err=Stream(tty=False))
    r.progress(ToolProgress("t", 1, 3))
    r.progress(ToolProgress("t", 2, 3))
    r.progress(ToolProgress("t", 3, 3, state="done"))
    r.line("next")
    text = out.getvalue()
    assert text == "[진행] t: 1/3\r\x1b[K[진행] t: 2/3\r\x1b[K[진행] t: 완료 (3/3)\nnext\n"


def test_piped_prints_only_the_final_line():
    out, err = Stream(tty=False), Stream(tty=False)
    r = Renderer(out=out, err=err)
    r.progress(ToolProgress("t", 1, 3))
    r.progress(ToolProgress("t", 3, 3, state="done"))
    assert err.getvalue() == "[진행] t: 완료 (3/3)\n"  # progress is not an answer: stderr
    assert out.getvalue() == ""


class FakeServer:
    """Stands in for ServerConn: reports progress, then answers or dies."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.spec = ServerSpec(name="fake", transport="stdio", shown="fake", secrets=["s3cr3t-value"])
        self.tools = [types.Tool(name="work", inputSchema={"type": "object"})]
        self.state, self.error, self.restarts = "connected", None, 0
        self.fail = fail
        self.live, self.generation = True, 0  # listed by this process (hub.py checks calls against it)

    async def call(self, tool, args, progress):
        await progress(1, 2, "half way")
        if self.fail:
            raise self.fail
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"done s3cr3t-value {args}")])


class Seen(Frontend):
    """The frontend the hub is built with: every progress event, and its line as the ui words it."""

    def __init__(self) -> None:
        self.events: list[ToolProgress] = []
        self.lines: list[tuple[str, bool]] = []

    def progress(self, event: ToolProgress) -> None:
        self.events.append(event)
        self.lines.append((progress_line(event), event.final))


def _hub(server: FakeServer, front: Seen | None = None) -> tuple[ToolHub, list[tuple[str, bool]]]:
    front = front or Seen()
    hub = ToolHub([], frontend=front)
    hub.fleet.servers = hub.fleet.order = [server]  # type: ignore[assignment]
    hub._build_tools()
    return hub, front.lines


def _call(hub: ToolHub) -> types.CallToolResult:
    tool = hub.tools[0]
    return asyncio.run(tool.ainvoke({"type": "tool_call", "id": "c1", "name": tool.name, "args": {"n": 1}}))


def test_progress_then_final_line_and_secret_masked():
    hub, seen = _hub(FakeServer())
    msg = _call(hub)
    assert msg.status == "success" and msg.content == "done *** {'n': 1}"
    assert seen == [("[진행] work: 1/2 - half way", False), ("[진행] work: 완료 (1/2)", True)]


def test_dead_server_is_an_error_tool_result_not_an_exception():
    hub, seen = _hub(FakeServer(ServerGone("connection closed")))
    msg = _call(hub)
    assert msg.status == "error" and "'fake'" in msg.content and "connection closed" in msg.content
    assert msg.content.startswith("MCP server 'fake' is unreachable")  # English for the model under any --lang
    assert seen[-1] == ("[진행] work: 중단 (1/2)", True)


def test_any_other_failure_is_an_error_tool_result():
    hub, _ = _hub(FakeServer(ValueError("Unknown MCP content type: s3cr3t-value")))
    msg = _call(hub)
    assert msg.status == "error" and "ValueError" in msg.content and "s3cr3t-value" not in msg.content


def test_progress_words_follow_the_language_the_events_do_not(monkeypatch):
    front = Seen()
    hub, _ = _hub(FakeServer(), front)
    events = front.events
    _call(hub)
    assert events == [ToolProgress("work", 1, 2, "half way"), ToolProgress("work", 1, 2, state="done")]
    monkeypatch.setattr(i18n, "_lang", "en")
    assert [progress_line(p) for p in events] == ["[progress] work: 1/2 - half way", "[progress] work: done (1/2)"]
