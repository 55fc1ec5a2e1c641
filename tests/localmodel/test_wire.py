"""The client against the real model: llama-server + Qwen2.5-Coder-1.5B, the bundled MCP search
server, the Naver stub. Temperature 0. Assertions are on structure (what went over the wire and
which events the client showed), never on the quality of an answer."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from client.engine.local.template import render_tools
from tests.localmodel.conftest import FIGURES

pytestmark = [pytest.mark.localmodel, pytest.mark.timeout(900)]
SUMMARY_REQ = "지금까지의 대화를 요약해 주세요."


def roles(req: dict) -> list[str]:
    return [m["role"] for m in req["messages"]]


def real_users(req: dict) -> list[str]:
    return [m["content"] for m in req["messages"] if m["role"] == "user" and m["content"] != SUMMARY_REQ]


def text_of_stream(chunks: list[dict]) -> str:
    return "".join((c.get("choices") or [{}])[0].get("delta", {}).get("content") or "" for c in chunks)


def finish_of(chunks: list[dict]) -> str | None:
    return next((c["choices"][0].get("finish_reason") for c in reversed(chunks)
                 if c.get("choices") and c["choices"][0].get("finish_reason")), None)


def note_speed(proxy) -> None:
    for i in range(len(proxy.responses)):
        for c in proxy.stream_of(i):
            if "timings" in c:
                FIGURES["gen_tokens_per_s"] = c["timings"].get("predicted_per_second", 0.0)
                FIGURES["prompt_tokens_per_s"] = c["timings"].get("prompt_per_second", 0.0)


def test_plain_turn_streams_text(lchat, proxy, local_url):
    r = lchat("--new", "--no-memory", "--context", "none", input="Say hello in one short sentence.\n")
    assert r.code == 0, r.err
    assert "현재 세션 ID:" in r.err
    assert len(proxy.requests) >= 1
    req = proxy.requests[0]
    assert req["stream"] is True and req["temperature"] == 0
    assert roles(req)[0] == "system" and roles(req).count("system") == 1
    assert req["max_tokens"] == 512  # answers are capped below the 1,024 reserved of the 4,096 window
    last = proxy.stream_of(len(proxy.responses) - 1)
    text = text_of_stream(last)
    assert sum(1 for c in last if (c.get("choices") or [{}])[0].get("delta", {}).get("content")) > 1  # streamed
    assert text.strip() and finish_of(last) in ("stop", "length")
    assert text.strip()[:20] in r.out  # what streamed is what the user saw
    assert "[상태] 로컬 Qwen2.5-Coder-1.5B-Instruct" in r.err and "소형 모델" in r.err
    note_speed(proxy)
    # the served template lists the tools exactly as the client counts them (render_tools)
    prompt = httpx.post(local_url.removesuffix("/v1") + "/apply-template",
                        json={"messages": req["messages"], "tools": req["tools"]}, timeout=30).json()["prompt"]
    assert render_tools(req["tools"]) in prompt
    assert prompt.startswith("<|im_start|>system\n" + req["messages"][0]["content"])


def test_search_turn_calls_web_search_and_ends_in_text(lchat, proxy, naver):
    started = time.monotonic()
    r = lchat("--new", "--no-memory", "--context", "none",
             input="네이버에서 '서울 맛집'을 웹 검색해서 결과를 알려줘.\n")
    assert r.code == 0, r.err
    assert "[도구 선택]: web_search" in r.err and "[도구 응답]:" in r.err
    queries = [q["params"].get("query", "") for q in naver.requests if q["path"] == "/v1/search/webkr.json"]
    assert queries and all(q.strip() for q in queries)
    # the call, then the request carrying the result back, then text
    follow = next(q for q in proxy.requests if "tool" in roles(q))
    call_msg = next(m for m in follow["messages"] if m.get("tool_calls"))
    call = call_msg["tool_calls"][0]
    assert call["function"]["name"] == "web_search"
    assert json.loads(call["function"]["arguments"])["query"].strip()
    i = follow["messages"].index(call_msg)
    tool_msg = follow["messages"][i + 1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == call["id"]
    assert "관련 웹 문서" in tool_msg["content"]  # the stub's result reached the model
    last = proxy.stream_of(len(proxy.responses) - 1)
    assert text_of_stream(last).strip() and finish_of(last) in ("stop", "length")
    assert "tools" in proxy.requests[0] and any(t["function"]["name"] == "web_search" for t in proxy.requests[0]["tools"])
    FIGURES["tool_turn_s"] = proxy.times[-1][1] - proxy.times[0][0]
    FIGURES["tool_turn_client_s"] = time.monotonic() - started
    note_speed(proxy)


def test_trim_keeps_the_last_turn_on_the_wire(lchat, proxy):
    lines = "".join(f"Reply with the single word OK. ({i})\n" for i in (1, 2, 3))
    r = lchat("--new", "--no-memory", "--context", "trim", "--max-turns", "1", input=lines)
    assert r.code == 0, r.err
    assert "1턴을 초과하여서 트리밍을 수행합니다." in r.err  # a notice: stderr in a pipe
    firsts = [q for q in proxy.chat_requests() if roles(q)[-1] == "user"]  # first call of each turn
    assert len(firsts) == 3
    assert [u[-3:] for u in real_users(firsts[2])] == ["(2)", "(3)"]
    assert roles(firsts[2])[0] == "system" and roles(firsts[2]).count("system") == 1
    for q in proxy.requests:  # tool pairs stay whole even when the model over-calls
        msgs = q["messages"]
        for j, m in enumerate(msgs):
            if m.get("tool_calls"):
                ids = {c["id"] for c in m["tool_calls"]}
                assert {x["tool_call_id"] for x in msgs[j + 1:j + 1 + len(ids)]} == ids


def test_summarize_sends_a_plain_summary_request_and_the_pair(lchat, proxy):
    lines = "".join(f"Reply with the single word OK. ({i})\n" for i in (1, 2, 3, 4))
    r = lchat("--thread", "sum", "--no-memory", "--context", "summarize", "--summary-after", "2",
             "--max-turns", "1", input=lines)
    assert r.code == 0, r.err
    plain = proxy.plain_requests()
    assert len(plain) == 1 and "tools" not in plain[0]  # its own completion, without tools
    asked = plain[0]["messages"][-1]["content"]
    assert "(1)" in asked and "(2)" in asked and "(4)" not in asked
    firsts = [q for q in proxy.chat_requests() if roles(q)[-1] == "user"]
    r4 = firsts[3]
    assert roles(r4)[:3] == ["system", "user", "assistant"] and r4["messages"][1]["content"] == SUMMARY_REQ
    assert r4["messages"][2]["content"].strip()  # the summary text from the model
    assert [u[-3:] for u in real_users(r4)] == ["(3)", "(4)"]
    assert "요약" in r.err  # the status line names the summary: stderr in a pipe


def test_budget_on_local_is_window_minus_reserved_output(lchat, proxy):
    big = "가" * 5000
    r = lchat("--new", "--no-memory", input=f"{big}\n/context\n")
    assert r.code == 0, r.err
    assert "메시지가 너무 깁니다" in r.out + r.err and "3072" in r.out + r.err
    assert "max_input_tokens=3072" in r.out
    assert proxy.requests == []  # refused: never sent
