"""Deferred tool schemas on the wire (issue 41): real stdio MCP sessions to a server with many
generated tools (tests/stubs/many_tools_server.py), the real agent in-process, and the recording
model stub scripted to search and call. Assertions are on the request bodies the stub received
and on the log the tools write when they run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from client.core.config import Settings
from client.core.context.budget import estimate_tools_tokens
from client.core.context.policy import ContextSettings
from client.engine.build import build_session
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.gate import PermissionGate
from client.engine.mcp.permissions import Permissions
from client.engine.mcp.specs import ServerSpec
from client.engine.store import open_store
from client.engine.tool_search import NO_SUCH_TOOL
from tests.conftest import ROOT, TEST_KEY
from tests.sessions import run_turn

pytestmark = pytest.mark.sqlite_only
SERVER = ROOT / "tests" / "stubs" / "many_tools_server.py"
DOMAINS = "github,slack,jira,gmail,drive,calendar"  # 6 x 8 = 48 tools, ~11K tokens of schemas
DENIED = "The user did not allow this tool call"


def names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def last_tool_text(request: dict) -> str:
    return next(m["content"] for m in reversed(request["messages"]) if m["role"] == "tool")


class Chat:
    """A session over the many-tools server, the way the client builds one."""

    def __init__(self, tmp: Path, llm, *, domains: str = DOMAINS, yes: bool = True, budget: int = 20_000,
                 mode: str = "auto", strategy: str = "trim", keep: int = 1) -> None:
        self.tmp, self.llm, self.log = tmp, llm, tmp / "ran.log"
        self.spec = ServerSpec("many", "stdio", command=sys.executable,
                               args=[str(SERVER), domains, "--log", str(self.log)])
        self.permissions = Permissions(yes=yes)
        self.settings = Settings(db=str(tmp / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                                 max_input_tokens=budget, memory=False, tool_search=mode,
                                 context=ContextSettings(strategy, keep, 5))  # type: ignore[arg-type]

    async def __aenter__(self) -> "Chat":
        self.hub = ToolHub([self.spec], permissions=self.permissions)
        await self.hub.fleet.connect()
        assert self.hub.fleet.error is None, self.hub.fleet.error
        self.store = await open_store(self.settings.db)
        gate = PermissionGate(self.hub.authorize, self.hub.tool_of)
        self.session = build_session(self.settings, self.store, self.hub.tools, gate=gate)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.store.close()
        await self.hub.fleet.aclose()

    def ran(self) -> list[str]:
        return self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []


async def test_many_tools_go_out_as_the_search_tool_and_a_found_tool_runs(tmp_path, llm):
    llm.push({"tool_calls": [("tool_search", {"query": "github create issue", "max_results": 3})]},
             {"tool_calls": [("github_create_issue", {"workspace": "acme", "title": "Broken build"})]})
    async with Chat(tmp_path, llm) as chat:
        await chat.session.open("t1")
        await run_turn(chat.session, "깃허브에 이슈 하나 만들어 줘")
        first, after_search, after_call, *rest = llm.chat_requests()
        assert not rest
        assert names(first) == ["tool_search"]  # not 48 schemas: nothing used yet in this thread
        assert "48 tools" in first["tools"][0]["function"]["description"]
        # the search's matches are attached to the next request of the turn, the search tool first
        assert names(after_search)[0] == "tool_search" and "github_create_issue" in names(after_search)
        assert len(names(after_search)) == 4
        assert "github_create_issue [many]:" in last_tool_text(after_search)
        # the found tool ran through its MCP server, and its result reached the model
        assert chat.ran() == ['github_create_issue ran: {"body": null, "labels": null, "notify": null, '
                              '"title": "Broken build", "workspace": "acme"}']
        assert last_tool_text(after_call).startswith("github_create_issue ran:")
        # the budget counts what was sent, not the 48 schemas
        mw = chat.session.models.current.mw
        assert mw.tools_tokens == estimate_tools_tokens(after_call["tools"])
        assert mw.tools_tokens < chat.session.models.current.provider.tools_tokens(chat.hub.tools) / 5


async def test_a_used_tool_stays_first_in_later_turns_and_after_a_resume(tmp_path, llm):
    llm.push({"tool_calls": [("tool_search", {"query": "select:slack_create_message"})]},
             {"tool_calls": [("slack_create_message", {"workspace": "acme", "title": "hi"})]})
    async with Chat(tmp_path, llm) as chat:
        await chat.session.open("t2")
        await run_turn(chat.session, "슬랙에 인사 남겨 줘")
        for i in range(3):  # trim keeps one turn: the tool call leaves the working context
            await run_turn(chat.session, f"평범한 질문 {i}")
    tools = [r["tools"] for r in llm.chat_requests()[-3:]]
    assert [t["function"]["name"] for t in tools[0]] == ["tool_search", "slack_create_message"]
    assert tools[0] == tools[1] == tools[2]  # the same bytes every turn: a prompt cache holds
    llm.clear()
    async with Chat(tmp_path, llm) as chat:  # a new process: the thread is resumed from its database
        assert await chat.session.open("t2")
        await run_turn(chat.session, "다시 왔어")
        assert all("slack_create_message" not in json.dumps(m) for m in llm.chat_requests()[0]["messages"])
    assert llm.chat_requests()[0]["tools"] == tools[0]


@pytest.mark.parametrize("yes", [True, False], ids=["approved", "no-terminal"])
async def test_a_deferred_tool_named_without_a_search_runs_through_the_gate(tmp_path, llm, yes):
    llm.push({"tool_calls": [("gmail_create_draft", {"workspace": "me", "title": "draft"})]})
    async with Chat(tmp_path, llm, yes=yes) as chat:
        await chat.session.open("t3")
        await run_turn(chat.session, "메일 초안 써 줘")
        first, after = llm.chat_requests()[:2]
        assert "gmail_create_draft" not in names(first)
        if yes:
            assert chat.ran() and chat.ran()[0].startswith("gmail_create_draft ran:")
            assert last_tool_text(after).startswith("gmail_create_draft ran:")
            assert "gmail_create_draft" in names(after)  # called: its schema is there from now on
        else:  # not read-only and nobody to ask: denied, never reached the server
            assert chat.ran() == []
            assert last_tool_text(after).startswith(DENIED)


async def test_a_name_that_is_no_tool_points_to_the_search(tmp_path, llm):
    llm.push({"tool_calls": [("rm_rf_everything", {"path": "/"})]})
    async with Chat(tmp_path, llm) as chat:
        await chat.session.open("t4")
        await run_turn(chat.session, "아무거나")
        text = last_tool_text(llm.chat_requests()[1])
    assert text == NO_SUCH_TOOL.format(name="rm_rf_everything", search="tool_search")
    assert "github_list_issue" not in text  # not a list of every tool's name


async def test_a_made_up_name_works_as_a_search_for_what_it_meant(tmp_path, llm):
    """As the local 1.5B model does: `search(query=...)` for tool_search, then a name of its own."""
    llm.push({"tool_calls": [("search", {"query": "github create issue"})]},
             {"tool_calls": [("github_create_issue", {"workspace": "acme", "title": "from a small model"})]})
    async with Chat(tmp_path, llm) as chat:
        await chat.session.open("t6")
        await run_turn(chat.session, "이슈 만들어 줘")
        _, after_guess, after_call = llm.chat_requests()[:3]
        text = last_tool_text(after_guess)
        assert text.startswith(NO_SUCH_TOOL.format(name="search", search="tool_search") + "\nFound ")
        assert "- github_create_issue [many]:" in text and "github_create_issue" in names(after_guess)
        assert last_tool_text(after_call).startswith("github_create_issue ran:") and chat.ran()


@pytest.mark.parametrize("case", ["few-tools", "off"])
async def test_under_the_threshold_or_off_every_schema_goes_out_and_no_search_tool(tmp_path, llm, case):
    chat = Chat(tmp_path, llm, domains="github", budget=123_904) if case == "few-tools" else \
        Chat(tmp_path, llm, mode="off")
    async with chat:
        await chat.session.open("t5")
        llm.push({"tool_calls": [("github_list_issue", {"workspace": "acme", "query": "bug"})]})
        await run_turn(chat.session, "이슈 목록")
        every = [t.name for t in chat.hub.tools]
        assert len(every) == (8 if case == "few-tools" else 48)
        for request in llm.chat_requests():
            assert names(request) == every and "tool_search" not in names(request)
        assert chat.session.models.current.mw.tools_tokens == estimate_tools_tokens(llm.chat_requests()[0]["tools"])
        assert chat.ran()[0].startswith("github_list_issue ran:")


async def test_a_fork_carries_the_tools_its_source_called(tmp_path, llm):
    llm.push({"tool_calls": [("drive_list_file", {"workspace": "me", "query": "q3 report"})]})
    async with Chat(tmp_path, llm) as chat:
        await chat.session.open("src")
        await run_turn(chat.session, "드라이브에서 보고서 찾아 줘")
        await run_turn(chat.session, "고마워")
        before = llm.chat_requests()[-1]["tools"]
        fork = (await chat.session.fork()).thread_id
        await chat.session.open(fork)
        await run_turn(chat.session, "이어서")
    assert [t["function"]["name"] for t in before] == ["tool_search", "drive_list_file"]
    assert llm.chat_requests()[-1]["tools"] == before


@pytest.mark.parametrize("yes", [True, False], ids=["approved", "no-terminal"])
async def test_a_call_through_a_made_up_dispatcher_is_the_named_tools_and_passes_the_gate(tmp_path, llm, yes):
    """As the local 1.5B model wrote in a first session: call_tool(function_name=..., arguments=...)."""
    llm.push({"tool_calls": [("call_tool", {"function_name": "github_create_issue",
                                            "arguments": {"workspace": "acme", "title": "wrapped"}})]})
    async with Chat(tmp_path, llm, yes=yes) as chat:
        await chat.session.open("t8")
        await run_turn(chat.session, "이슈 만들어 줘")
        after = llm.chat_requests()[1]
        sent = next(m for m in after["messages"] if m["role"] == "assistant" and m.get("tool_calls"))
        call = sent["tool_calls"][0]["function"]
        assert call["name"] == "github_create_issue"  # the history the model sees is the real call
        assert json.loads(call["arguments"]) == {"workspace": "acme", "title": "wrapped"}
        if yes:
            assert chat.ran() == ['github_create_issue ran: {"body": null, "labels": null, "notify": null, '
                                  '"title": "wrapped", "workspace": "acme"}']
            assert last_tool_text(after).startswith("github_create_issue ran:")
        else:  # the gate decides as for a direct call: not read-only and nobody to ask
            assert chat.ran() == []
            assert last_tool_text(after).startswith(DENIED)
