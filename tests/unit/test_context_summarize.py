"""client.core.context.summarize: plan, apply, rolling summaries, summarizer input."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context import (
    SUMMARY_REQUEST,
    apply_summary,
    chunk_turns,
    estimate_text_tokens,
    plan_summary,
    split,
    summarizer_request,
)
from client.core.context.summarize import (
    FOCUS_LINE,
    SUMMARY_SYSTEM_PROMPT,
    TOOL_RESULT_PREVIEW,
    render_turns,
)

from ._context_helpers import (
    ai,
    ai_calls,
    assert_pairs_whole,
    assert_tool_pairs,
    call,
    pair,
    plain_turn,
    sys_msg,
    tool,
    tool_turn,
    turns,
    user,
    user_texts,
)


def _user_texts_in(turn_list):
    return [m.content for t in turn_list for m in t if isinstance(m, HumanMessage)]


# --------------------------------------------------------------------------- plan_summary: N=5, M=2


def test_no_plan_while_turns_do_not_exceed_n():
    for n in range(0, 6):
        assert plan_summary([sys_msg(), *turns(n)], 5, 2) is None


def test_after_6_turns_summary_covers_1_to_4_keeps_5_6():
    s0 = sys_msg()
    msgs = [s0, *turns(6)]
    plan = plan_summary(msgs, 5, 2)
    assert plan is not None
    assert plan.system is s0
    assert plan.previous_summary is None
    assert _user_texts_in(plan.to_summarize) == ["u1", "u2", "u3", "u4"]
    assert _user_texts_in(plan.keep) == ["u5", "u6"]
    assert plan.keep == [msgs[9:11], msgs[11:13]]


def test_apply_summary_shape():
    s0 = sys_msg()
    msgs = [s0, *turns(6, with_tools=True)]
    plan = plan_summary(msgs, 5, 2)
    out = apply_summary(plan, "요약 1-4")
    assert out[0] is s0
    req, summ = out[1], out[2]
    assert isinstance(req, HumanMessage) and req.content == SUMMARY_REQUEST
    assert req.additional_kwargs.get("synthetic") is True
    assert isinstance(summ, AIMessage) and summ.content == "요약 1-4" and not summ.tool_calls
    assert summ.additional_kwargs.get("synthetic") is True
    assert out[3:] == [m for t in plan.keep for m in t]
    assert user_texts(out) == ["u5", "u6"]
    assert_tool_pairs(out)
    assert_pairs_whole(out)


def test_rolling_summaries_n5_m2():
    s0 = sys_msg()
    # 7th message arrives after 6 completed turns
    plan1 = plan_summary([s0, *turns(6)], 5, 2)
    ctx = apply_summary(plan1, "SUMMARY-1")
    assert user_texts(ctx) == ["u5", "u6"]

    # turns 7, 8, 9 complete: 5 turns after the pair, not more than N
    for i in range(7, 10):
        ctx = ctx + plain_turn(i)
        assert plan_summary(ctx, 5, 2) is None, f"premature summary after turn {i}"

    # turn 10 completes: turns 5..10 = 6 turns after the pair; the 11th arrives
    ctx = ctx + plain_turn(10)
    plan2 = plan_summary(ctx, 5, 2)
    assert plan2 is not None
    assert plan2.previous_summary == "SUMMARY-1"
    assert _user_texts_in(plan2.to_summarize) == ["u5", "u6", "u7", "u8"]
    assert _user_texts_in(plan2.keep) == ["u9", "u10"]
    # older turns never reappear, the old pair is not a turn and not kept
    rendered = render_turns(plan2.to_summarize)
    for old in ("u1", "u2", "u3", "u4"):
        assert f"사용자: {old}\n" not in rendered + "\n"
    assert all(m.content != "SUMMARY-1" for t in plan2.to_summarize + plan2.keep for m in t)

    ctx2 = apply_summary(plan2, "SUMMARY-2")
    assert [m.content for m in ctx2] == [s0.content, SUMMARY_REQUEST, "SUMMARY-2", "u9", "a9", "u10", "a10"]
    assert sum(1 for m in ctx2 if m.content == SUMMARY_REQUEST) == 1

    # a third round
    for i in range(11, 15):
        ctx2 = ctx2 + plain_turn(i)
    plan3 = plan_summary(ctx2, 5, 2)
    assert plan3.previous_summary == "SUMMARY-2"
    assert _user_texts_in(plan3.to_summarize) == ["u9", "u10", "u11", "u12"]
    req = summarizer_request(plan3.previous_summary, plan3.to_summarize)
    assert "SUMMARY-2" in req[1].content and "SUMMARY-1" not in req[1].content


def test_rolling_with_full_history_stored_hydrates_from_last_pair():
    # the store keeps everything; the pair is written where the summary was made
    s0 = sys_msg()
    stored = [s0, *turns(4), *pair("SUMMARY-1"), *turns(6, 5)]
    plan = plan_summary(stored, 5, 2)
    assert plan.previous_summary == "SUMMARY-1"
    assert _user_texts_in(plan.to_summarize) == ["u5", "u6", "u7", "u8"]
    assert _user_texts_in(plan.keep) == ["u9", "u10"]


def test_old_client_pair_supplies_previous_summary():
    old = pair("cookbook 요약", flagged=False)
    plan = plan_summary([sys_msg(), *turns(3), *old, *turns(6, 4)], 5, 2)
    assert plan.previous_summary == "cookbook 요약"
    assert _user_texts_in(plan.to_summarize) == ["u4", "u5", "u6", "u7"]


def test_plan_keeps_tool_turns_whole():
    t = [tool_turn(i, n_calls=2) for i in range(1, 8)]
    plan = plan_summary([m for x in t for m in x], 5, 2)
    assert plan.to_summarize == t[:5]
    assert plan.keep == t[5:]


def test_preamble_is_folded_first():
    pre = [ai_calls(call("init", {"x": 1}, id="p")), tool("p", "init-result", name="init")]
    msgs = [sys_msg(), *pre, *turns(6)]
    plan = plan_summary(msgs, 5, 2)
    assert plan.to_summarize[0] == pre
    assert _user_texts_in(plan.to_summarize[1:]) == ["u1", "u2", "u3", "u4"]
    out = apply_summary(plan, "s")
    assert pre[0] not in out and pre[1] not in out


def test_no_system_message():
    plan = plan_summary(turns(6), 5, 2)
    assert plan.system is None
    out = apply_summary(plan, "s")
    assert not any(isinstance(m, SystemMessage) for m in out)
    assert out[0].content == SUMMARY_REQUEST


def test_keep_zero_summarizes_everything():
    plan = plan_summary(turns(3), 2, 0)
    assert _user_texts_in(plan.to_summarize) == ["u1", "u2", "u3"]
    assert plan.keep == []


# --------------------------------------------------------------------------- force (/compact)


def test_force_summarizes_below_threshold():
    plan = plan_summary([sys_msg(), *turns(3)], 5, 2, force=True)
    assert plan is not None
    assert _user_texts_in(plan.to_summarize) == ["u1"]
    assert _user_texts_in(plan.keep) == ["u2", "u3"]


def test_force_with_nothing_older_than_kept_turns():
    assert plan_summary([sys_msg(), *turns(2)], 5, 2, force=True) is None
    assert plan_summary([sys_msg()], 5, 2, force=True) is None
    assert plan_summary([sys_msg(), *pair("s"), *turns(1)], 5, 2, force=True) is None


def test_force_with_only_preamble_older():
    pre = [ai_calls(call(id="p")), tool("p")]
    plan = plan_summary([sys_msg(), *pre, *turns(2)], 5, 2, force=True)
    assert plan is not None
    assert plan.to_summarize == [pre]
    assert _user_texts_in(plan.keep) == ["u1", "u2"]


def test_force_after_summary_rolls_previous():
    plan = plan_summary([sys_msg(), *pair("S1"), *turns(3, 5)], 5, 2, force=True)
    assert plan.previous_summary == "S1"
    assert _user_texts_in(plan.to_summarize) == ["u5"]


# --------------------------------------------------------------------------- apply_summary then hydrate


def test_apply_then_hydrate_is_stable():
    plan = plan_summary([sys_msg(), *turns(7, with_tools=True)], 5, 2)
    out = apply_summary(plan, "S")
    assert split(out).join() == out
    s = split(out)
    assert len(s.turns) == 2 and s.pair == out[1:3]


# --------------------------------------------------------------------------- summarizer_request / rendering


def test_summarizer_request_shape_without_previous_or_focus():
    t = plain_turn(1)
    req = summarizer_request(None, [t])
    assert len(req) == 2
    assert isinstance(req[0], SystemMessage) and req[0].content == SUMMARY_SYSTEM_PROMPT
    assert isinstance(req[1], HumanMessage)
    assert "[이전 요약]" not in req[1].content
    assert "특히 다음 내용을 중심으로" not in req[0].content
    assert "사용자: u1" in req[1].content
    assert "어시스턴트: a1" in req[1].content
    assert not any(getattr(m, "tool_calls", None) for m in req)


def test_summarizer_request_with_previous_and_focus():
    req = summarizer_request("이전 요약 내용", [plain_turn(1)], focus="여행 일정")
    assert req[0].content.startswith(SUMMARY_SYSTEM_PROMPT)
    assert FOCUS_LINE.format(focus="여행 일정") in req[0].content
    body = req[1].content
    assert "이전 요약 내용" in body
    assert body.index("이전 요약 내용") < body.index("사용자: u1")


def test_rendered_text_has_tool_calls_with_arguments_and_results():
    c = call("naver_search", {"query": "서울 날씨", "display": 3}, id="n1")
    t = [user("서울 날씨 알려줘"), ai_calls(c, text="찾아볼게요"), tool("n1", "맑음 25도", name="naver_search"), ai("맑고 25도입니다")]
    body = summarizer_request(None, [t])[1].content
    assert "사용자: 서울 날씨 알려줘" in body
    assert "어시스턴트: 찾아볼게요" in body
    assert "naver_search" in body
    assert json.dumps({"query": "서울 날씨", "display": 3}, ensure_ascii=False) in body
    assert "맑음 25도" in body
    assert "어시스턴트: 맑고 25도입니다" in body
    # order follows the conversation
    assert body.index("서울 날씨 알려줘") < body.index("naver_search") < body.index("맑음 25도") < body.index("맑고 25도입니다")


def test_parallel_tool_calls_all_rendered():
    t = tool_turn(1, n_calls=3)
    body = summarizer_request(None, [t])[1].content
    for k in range(3):
        assert f"tool1_{k}" in body and f"q1_{k}" in body and f"r1_{k}" in body


def test_long_tool_result_cut_to_preview():
    long = "가" * (TOOL_RESULT_PREVIEW + 500)
    t = [user("u"), ai_calls(call(id="L")), tool("L", long), ai("a")]
    body = summarizer_request(None, [t])[1].content
    assert "가" * TOOL_RESULT_PREVIEW in body
    assert "가" * (TOOL_RESULT_PREVIEW + 1) not in body


def test_short_tool_result_not_cut():
    t = [user("u"), ai_calls(call(id="S")), tool("S", "x" * TOOL_RESULT_PREVIEW), ai("a")]
    body = summarizer_request(None, [t])[1].content
    assert "x" * TOOL_RESULT_PREVIEW in body
    assert "생략" not in body


def test_tool_result_without_name_rendered():
    t = [user("u"), ai_calls(call(id="q")), ToolMessage(content="nameless", tool_call_id="q"), ai("a")]
    body = summarizer_request(None, [t])[1].content
    assert "nameless" in body


def test_preamble_rendered_in_request():
    pre = [ai_calls(call("boot", {"k": "v"}, id="b")), tool("b", "booted", name="boot")]
    plan = plan_summary([*pre, *turns(3)], 1, 1)
    body = summarizer_request(plan.previous_summary, plan.to_summarize)[1].content
    assert "boot" in body and "booted" in body and "u1" in body and "u2" in body and "u3" not in body


# --------------------------------------------------------------------------- chunk_turns


def _cost(t):
    return estimate_text_tokens(render_turns([t]))


def test_chunk_empty():
    assert chunk_turns([], 100) == []


def test_chunk_all_fit_in_one():
    t = [plain_turn(i) for i in range(1, 5)]
    assert chunk_turns(t, 10_000) == [t]


def test_chunks_are_whole_turns_in_order_and_under_limit():
    t = [tool_turn(i, n_calls=i % 3 + 1) for i in range(1, 12)]
    limit = max(_cost(x) for x in t) * 2
    chunks = chunk_turns(t, limit)
    assert len(chunks) > 1
    assert [x for c in chunks for x in c] == t
    for c in chunks:
        assert sum(_cost(x) for x in c) <= limit


def test_oversized_turn_is_its_own_chunk():
    big = [user("u"), ai_calls(call(id="B")), tool("B", "나" * 5000), ai("a")]
    small1, small2 = plain_turn(1), plain_turn(2)
    chunks = chunk_turns([small1, big, small2], 50)
    assert [big] in chunks
    assert [x for c in chunks for x in c] == [small1, big, small2]


@pytest.mark.parametrize("limit", [0, 1])
def test_tiny_limit_gives_one_turn_per_chunk(limit):
    t = [plain_turn(i) for i in range(1, 4)]
    assert chunk_turns(t, limit) == [[x] for x in t]
