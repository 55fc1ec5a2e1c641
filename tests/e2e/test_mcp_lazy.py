"""MCP servers never hold a message up (issue 41): real stdio servers (tests/stubs/many_tools_server.py,
one of them slow: it reads its input only once a gate file exists), the session and the per-turn
hook the terminal uses (client/ui/startup.py wire_session), /mcp through the slash table. Assertions are
on the request bodies the recording model stub received; every wait is for a sign (a server's
start ended), never a sleep."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from client.core.config import Settings, Tuning
from client.engine.mcp.hub import ToolHub
from client.engine.models import Models
from client.engine.mcp.permissions import Permissions
from client.engine.mcp.specs import ServerSpec
from client.engine.store import open_store
from client.ui import i18n
from client.ui.render import Renderer
from client.ui.slash import table as slash
from client.ui.slash.base import SlashContext
from client.ui.startup import wire_session
from tests.conftest import ROOT, TEST_KEY
from tests.sessions import run_turn

pytestmark = pytest.mark.sqlite_only
SERVER = ROOT / "tests" / "stubs" / "many_tools_server.py"


def spec(name: str, domain: str, *, gate: Path | None = None, startup: float | None = None) -> ServerSpec:
    args = [str(SERVER), domain, "--count", "2", *(["--gate", str(gate)] if gate else [])]
    return ServerSpec(name, "stdio", command=sys.executable, args=args, startup_timeout=startup)


def names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


QUICK = ["github_list_issue", "github_list_pull_request"]
SLOW = ["slack_list_message", "slack_list_channel"]


class Lazy:
    """A chat as the terminal builds it: servers started in the background, the agent given the
    tools that are ready before each turn, nothing waited for."""

    def __init__(self, tmp: Path, llm, specs: list[ServerSpec], grace: float = Tuning().startup_grace) -> None:
        self.tmp, self.llm, self.specs = tmp, llm, specs
        self.settings = Settings(db=str(tmp / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                                 memory=False, tool_search="off", max_input_tokens=20_000,
                                 tuning=Tuning(startup_grace=grace))  # MCP_CHAT_STARTUP_GRACE
        self.out = io.StringIO()
        self.r = Renderer(self.out, self.out)

    def make_hub(self) -> ToolHub:
        return ToolHub(self.specs, permissions=Permissions(yes=True))

    async def __aenter__(self) -> "Lazy":
        self.hub = self.make_hub()
        self.hub.fleet.start()
        self.store = await open_store(self.settings.db)
        self.session, self.tools = wire_session(self.settings, self.store, self.hub, Models(self.settings), self.r)
        await self.session.open("t1")
        return self

    async def __aexit__(self, *exc) -> None:
        await self.session.close()
        await self.store.close()
        await self.hub.fleet.aclose()

    async def turn(self, text: str) -> dict:
        """One message as the REPL sends it; the request body the model received."""
        before = len(self.llm.chat_requests())
        await self.tools.refresh()
        await run_turn(self.session, text)
        return self.llm.chat_requests()[before]

    async def slash(self, line: str) -> str:
        async def nothing(*_a, **_k) -> None:
            return None

        start = self.out.tell()
        ctx = SlashContext(self.session, self.r, self.hub, read_line=nothing, switch=nothing, compact=nothing, turn=nothing)
        cmd = slash.parse(line)
        assert cmd is not None
        await slash.run(ctx, cmd)
        return self.out.getvalue()[start:]


@pytest.fixture(autouse=True)
def korean():
    i18n.set_lang("ko")


async def test_a_slow_servers_tools_join_a_later_request_at_the_end(tmp_path, llm):
    gate = tmp_path / "gate"  # grace 0: a message does not wait for a server seen for the first time
    async with Lazy(tmp_path, llm, [spec("slow", "slack", gate=gate), spec("quick", "github")], grace=0) as chat:
        await chat.hub.fleet.wait(["quick"])  # the sign: the quick server's start ended
        first = await chat.turn("안녕")
        assert names(first) == QUICK  # sent with what is ready: the slow server is still starting
        assert [n for n, _ in chat.hub.fleet.starting()] == ["slow"]  # the message did not wait for it
        gate.touch()
        await chat.hub.fleet.wait(["slow"])
        second = await chat.turn("또 안녕")
        assert names(second) == QUICK + SLOW  # appended at the end: the cached prefix holds
        assert chat.hub.fleet.starting() == []


SENT_WITHOUT = "이 메시지는 아직 시작 중인 MCP 서버의 도구 없이 보냅니다: slow"


async def test_a_message_goes_without_a_new_server_past_the_grace_and_says_so_once(tmp_path, llm):
    gate = tmp_path / "gate"  # never opened: the server stays in its start
    async with Lazy(tmp_path, llm, [spec("slow", "slack", gate=gate), spec("quick", "github")], grace=0.3) as chat:
        await chat.hub.fleet.wait(["quick"])
        assert names(await chat.turn("안녕")) == QUICK
        assert chat.out.getvalue().count(SENT_WITHOUT) == 1
        assert names(await chat.turn("또 안녕")) == QUICK  # waited for once, not at every message
        assert chat.out.getvalue().count(SENT_WITHOUT) == 1


async def test_a_message_waits_for_a_new_server_within_the_grace(tmp_path, llm):
    """What a first launch with many servers needs: a message typed at once carries every server up
    within the grace. The grace is made long here, so the sign (the server's start ended) decides."""
    gate = tmp_path / "gate"
    async with Lazy(tmp_path, llm, [spec("slow", "slack", gate=gate), spec("quick", "github")], grace=600) as chat:
        gate.touch()
        assert sorted(names(await chat.turn("안녕"))) == sorted(QUICK + SLOW)
        assert SENT_WITHOUT[:20] not in chat.out.getvalue()


async def test_a_call_to_a_tool_a_starting_server_brings_waits_for_it_and_runs(tmp_path, llm):
    """The model names a tool the early turn's agent lacks (a resumed thread called it before): the
    call waits for the server still starting and runs there, instead of failing as unknown."""
    import asyncio

    gate = tmp_path / "gate"
    async with Lazy(tmp_path, llm, [spec("slow", "slack", gate=gate)], grace=0) as chat:
        llm.push({"tool_calls": [("slack_list_message", {"workspace": "w", "query": "q"})]}, {"text": "끝"})
        await chat.tools.refresh()
        turn = asyncio.ensure_future(run_turn(chat.session, "메시지 찾아 줘"))
        for _ in range(1000):  # the sign: the model asked for the call
            if llm.requests or turn.done():
                break
            await asyncio.sleep(0.01)
        assert "tools" not in llm.requests[0]  # the agent was built without the slow server's tools
        assert [n for n, _ in chat.hub.fleet.starting()] == ["slow"]
        gate.touch()
        await turn
        tool_msgs = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
        assert len(tool_msgs) == 1 and tool_msgs[0]["content"].startswith("slack_list_message ran: ")
        assert '"query": "q"' in tool_msgs[0]["content"] and '"workspace": "w"' in tool_msgs[0]["content"]


async def test_a_call_to_a_tool_no_server_brings_still_fails_as_unknown(tmp_path, llm):
    async with Lazy(tmp_path, llm, []) as chat:  # nothing starting: nothing to wait for
        llm.push({"tool_calls": [("nope_tool", {})]}, {"text": "끝"})
        await chat.tools.refresh()
        await run_turn(chat.session, "아무거나")
        tool_msgs = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
        assert len(tool_msgs) == 1 and "nope_tool is not a valid tool" in tool_msgs[0]["content"]


async def test_mcp_lists_disable_drops_and_enable_brings_back(tmp_path, llm):
    async with Lazy(tmp_path, llm, [spec("quick", "github"), spec("other", "slack")]) as chat:
        await chat.hub.fleet.wait()
        listing = await chat.slash("/mcp")
        assert "quick: 연결됨 · stdio" in listing and "도구 2개" in listing and "other: 연결됨" in listing
        said = await chat.slash("/mcp disable quick")
        assert "'quick'을(를) 껐습니다" in said and "2개" in said
        assert "quick: 꺼 둠 (이 세션) · stdio" in await chat.slash("/mcp")
        assert await chat.slash("/servers") == await chat.slash("/mcp")  # /servers keeps working
        assert names(await chat.turn("하나")) == SLOW
        said = await chat.slash("/mcp enable quick")  # not a terminal: waited for, like a script needs
        assert "'quick' 연결됨 · 도구 2개" in said
        assert names(await chat.turn("둘")) == SLOW + QUICK
        assert "이미 연결되어 있습니다" in await chat.slash("/mcp enable quick")
        assert "설정에 없는 MCP 서버입니다: nope" in await chat.slash("/mcp disable nope")
        assert "사용법" in await chat.slash("/mcp start quick")


async def test_a_server_past_its_start_up_timeout_is_reported_once_and_retried_by_enable(tmp_path, llm):
    gate = tmp_path / "gate"
    async with Lazy(tmp_path, llm, [spec("slow", "slack", gate=gate, startup=2.0), spec("quick", "github")]) as chat:
        await chat.hub.fleet.wait()
        assert chat.hub.fleet.find("slow").state == "failed"  # type: ignore[union-attr]
        assert names(await chat.turn("하나")) == QUICK
        report = chat.out.getvalue()
        assert report.count("MCP 서버 'slow'에 연결하지 못했습니다") == 1 and "no answer within 2s" in report
        await chat.turn("둘")
        assert chat.out.getvalue().count("'slow'에 연결하지 못했습니다") == 1  # one line, not one per turn
        gate.touch()
        chat.hub.fleet.find("slow").spec.startup_timeout = 60  # type: ignore[union-attr]  # the retry may be slow to start under load
        assert "'slow' 연결됨 · 도구 2개" in await chat.slash("/mcp enable slow")
        assert names(await chat.turn("셋")) == QUICK + SLOW


async def test_an_entry_switched_off_in_the_file_starts_on_enable(tmp_path, llm):
    off = spec("later", "slack")
    off.enabled = False
    async with Lazy(tmp_path, llm, [spec("quick", "github"), off]) as chat:
        await chat.hub.fleet.wait()
        assert "later: 꺼 둠 (설정에서 끔)" in await chat.slash("/mcp")
        assert names(await chat.turn("하나")) == QUICK
        await chat.slash("/mcp enable later")
        assert names(await chat.turn("둘")) == QUICK + SLOW
