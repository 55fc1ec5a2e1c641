"""client/engine/limits.py: the per-turn caps, in-process.

The pure counting (turn_tail, failures, tally, stop_reason) on built message lists, then the
middleware in a real LangChain agent (build_agent) against the recording model stub, with
in-process tools: the 12-call cap, the last call without tools, and an identical failing call
that is never made a third time. tests/e2e/test_turn_limits.py proves the same through the CLI.
"""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool, ToolException

from client.core.config import Settings
from client.core.context.turns import summary_pair
from client.engine.agent import build_agent
from client.engine.limits import (
    BLOCKED_TEXT,
    DEFAULT_MAX_MODEL_CALLS,
    FINAL_NOTE,
    MAX_SAME_FAILURES,
    Tally,
    call_key,
    failures,
    stop_reason,
    tally,
    turn_tail,
)
from client.engine.model_calls import ModelCalls
from client.engine.providers import build_model
from tests.conftest import TEST_KEY


def call(name: str, args: dict, cid: str) -> dict:
    return {"name": name, "args": args, "id": cid}


def test_the_turn_tail_starts_after_the_last_real_user_message():
    old = [HumanMessage("예전 질문"), AIMessage("예전 답")]
    now = [AIMessage("", tool_calls=[call("web_search", {"q": 1}, "c1")]), ToolMessage("결과", tool_call_id="c1")]
    msgs = [SystemMessage("s"), *old, *summary_pair("요약본"), HumanMessage("지금 질문"), *now]
    assert turn_tail(msgs) == now
    # the synthetic summary request is not a turn start
    assert turn_tail([SystemMessage("s"), HumanMessage("질문"), *summary_pair("요약본")]) == summary_pair("요약본")
    assert turn_tail([SystemMessage("s")]) == []


def test_failures_count_identical_calls_only():
    same = {"query": "서울", "n": 1}
    tail = [
        AIMessage("", tool_calls=[call("web_search", same, "a"), call("web_search", {"query": "부산"}, "b")]),
        ToolMessage("err", tool_call_id="a", status="error"),
        ToolMessage("ok", tool_call_id="b"),
        AIMessage("", tool_calls=[call("web_search", {"n": 1, "query": "서울"}, "c")]),  # same, keys reordered
        ToolMessage("err", tool_call_id="c", status="error"),
        AIMessage("", tool_calls=[call("web_search", {"query": "부산"}, "d")]),
        ToolMessage("err", tool_call_id="d", status="error"),
    ]
    assert failures(tail) == {call_key("web_search", same): 2, call_key("web_search", {"query": "부산"}): 1}
    assert tally(tail) == Tally(model_calls=3, tool_calls=4, worst_repeat=2)


@pytest.mark.parametrize(("done", "expected"), [
    (Tally(model_calls=10), None),
    (Tally(model_calls=11), "model_calls"),  # the 12th call is the last one
    (Tally(model_calls=3, tool_calls=19), None),
    (Tally(model_calls=3, tool_calls=20), "tool_calls"),
    (Tally(model_calls=3, worst_repeat=MAX_SAME_FAILURES - 1), None),
    (Tally(model_calls=3, worst_repeat=MAX_SAME_FAILURES), "repeated_failure"),
])
def test_stop_reason_boundaries(done, expected):
    assert stop_reason(done, DEFAULT_MAX_MODEL_CALLS, 20) == expected


# -- the middleware in a real agent --------------------------------------------------------
async def _search(query: str) -> str:
    return f"{query}: 맑음"


async def _broken(query: str) -> str:
    raise ToolException(f"{query}: 서버 오류")


def tool(fn, name: str) -> StructuredTool:
    return StructuredTool.from_function(coroutine=fn, name=name, description="웹 검색", handle_tool_error=True)


async def run(llm, tools: list, text: str, **caps: int) -> list:
    settings = Settings(api_key=TEST_KEY, base_url=llm.base_url, model="stub", max_input_tokens=8_000)
    agent, _ = build_agent(build_model(settings, with_tools=True), tools, None, 8_000, **caps)
    out = await agent.ainvoke({"messages": [SystemMessage("시스템"), HumanMessage(text)]})
    return out["messages"]


def tool_names(req: dict) -> list[str]:
    return [t["function"]["name"] for t in req.get("tools") or []]


async def test_a_looping_model_gets_12_calls_the_last_one_without_tools(llm):
    msgs = await run(llm, [tool(_search, "web_search")], "[loop] 서울 날씨")
    assert len(llm.requests) == DEFAULT_MAX_MODEL_CALLS == 12
    assert all(tool_names(q) == ["web_search"] for q in llm.requests[:-1])
    last = llm.requests[-1]
    assert not last.get("tools")
    assert last["messages"][0]["role"] == "system" and last["messages"][0]["content"].endswith(FINAL_NOTE)
    assert [m["role"] for m in last["messages"]].count("system") == 1
    assert all(FINAL_NOTE not in m["content"] for q in llm.requests[:-1] for m in q["messages"] if m["content"])
    final = msgs[-1]
    assert isinstance(final, AIMessage) and not final.tool_calls and final.content  # an answer ends the turn
    assert sum(isinstance(m, ToolMessage) for m in msgs) == 11


async def test_a_lower_cap_and_the_tool_call_cap(llm):
    await run(llm, [tool(_search, "web_search")], "[loop] 하나", max_model_calls=3)
    assert len(llm.requests) == 3 and not llm.requests[-1].get("tools")
    llm.clear()
    msgs = await run(llm, [tool(_search, "web_search")], "[parallel] 둘", max_tool_calls=1)
    results = [m for m in msgs if isinstance(m, ToolMessage)]
    assert [r.content for r in results][1:] == [BLOCKED_TEXT]  # the second parallel call is not run
    assert "맑음" in results[0].content
    assert len(llm.requests) == 2 and not llm.requests[-1].get("tools")


async def test_an_identical_failing_call_is_not_made_a_third_time(llm):
    ran: list[str] = []

    async def broken(query: str) -> str:
        ran.append(query)
        raise ToolException(f"{query}: 서버 오류")

    msgs = await run(llm, [tool(broken, "web_search")], "[loop:same] 검색")
    assert ran == ["loop", "loop"]  # the third identical call never reached the tool
    assert len(llm.requests) == 3 and not llm.requests[-1].get("tools")
    sent = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
            for m in llm.requests[-1]["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert sent == [("web_search", {"query": "loop"})] * 2
    assert all(m.status == "error" for m in msgs if isinstance(m, ToolMessage))


async def test_different_arguments_that_fail_keep_their_tools(llm):
    msgs = await run(llm, [tool(_broken, "web_search")], "[loop] 검색", max_model_calls=5)
    assert len(llm.requests) == 5  # new arguments each time: only the call cap ends the turn
    assert all(q.get("tools") for q in llm.requests[:-1]) and not llm.requests[-1].get("tools")
    assert sum(isinstance(m, ToolMessage) and m.status == "error" for m in msgs) == 4


async def test_model_calls_a_tool_made_count_against_the_turn(llm):
    """Sampling during a tool call (issue 50): the calls the tool made are the turn's too, and a
    sample is granted only while the turn keeps a call for its last answer."""
    calls = ModelCalls(lambda: 6)
    granted: list[bool] = []

    async def sampling_tool(query: str) -> str:
        granted.extend(calls.take() for _ in range(3))  # a server asking the model 3 times per call
        return "sampled"

    settings = Settings(api_key=TEST_KEY, base_url=llm.base_url, model="stub", max_input_tokens=8_000)
    agent, _ = build_agent(build_model(settings, with_tools=True), [tool(sampling_tool, "web_search")], None,
                           8_000, max_model_calls=6, calls=calls)
    await agent.ainvoke({"messages": [SystemMessage("시스템"), HumanMessage("[loop] 검색")]})
    assert granted == [True] * 3 + [False] * 3  # 1 answer + 3 samples, then 2 + 3 leave only the last call
    assert len(llm.requests) == 3 and llm.requests[1].get("tools") and not llm.requests[-1].get("tools")
    await agent.ainvoke({"messages": [SystemMessage("시스템"), HumanMessage("[loop] 다시")]})
    assert calls.sampled == 3  # a new turn counts from its first call
