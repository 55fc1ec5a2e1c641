"""client.core.context.turns: what a turn is, hydration prune, tool-call/result repair."""

from __future__ import annotations

import copy

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context import (
    SUMMARY_REQUEST,
    count_turns,
    is_synthetic,
    is_turn_start,
    repair_tool_pairs,
    split,
    summary_pair,
    text_of,
    tool_pairs_intact,
)
from client.core.context.turns import INTERRUPTED_TOOL_TEXT, Split, last_summary_index

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


# --------------------------------------------------------------------------- text_of


def test_text_of_string_content():
    assert text_of(user("안녕")) == "안녕"


def test_text_of_content_parts():
    m = HumanMessage(
        content=["a", {"type": "text", "text": "b"}, {"type": "image_url", "image_url": {"url": "x"}}, "c"]
    )
    assert text_of(m) == "abc"


def test_text_of_empty():
    assert text_of(ai("")) == ""
    assert text_of(HumanMessage(content=[])) == ""


# --------------------------------------------------------------------------- synthetic / turn start


def test_summary_pair_shape():
    req, summ = summary_pair("요약문")
    assert isinstance(req, HumanMessage) and req.content == SUMMARY_REQUEST
    assert req.additional_kwargs == {"synthetic": True}
    assert isinstance(summ, AIMessage) and summ.content == "요약문" and not summ.tool_calls
    assert summ.additional_kwargs == {"synthetic": True}


def test_summary_request_text_is_exact():
    assert SUMMARY_REQUEST == "지금까지의 대화를 요약해 주세요."


def test_flagged_pair_is_synthetic():
    req, summ = summary_pair("s")
    assert is_synthetic(req) and is_synthetic(summ)
    assert not is_turn_start(req)


def test_unflagged_request_text_from_old_client_is_synthetic():
    old = HumanMessage(content=SUMMARY_REQUEST)
    assert is_synthetic(old)
    assert not is_turn_start(old)


def test_unflagged_request_text_in_content_parts_is_synthetic():
    old = HumanMessage(content=[{"type": "text", "text": SUMMARY_REQUEST}])
    assert is_synthetic(old) and not is_turn_start(old)


@pytest.mark.parametrize(
    "text",
    ["안녕하세요", "지금까지의 대화를 요약해 주세요. 그리고 날씨도 알려줘", "요약해 주세요.", ""],
)
def test_real_user_messages_are_turn_starts(text):
    m = user(text)
    assert not is_synthetic(m)
    assert is_turn_start(m)


def test_assistant_with_request_text_is_not_synthetic():
    assert not is_synthetic(ai(SUMMARY_REQUEST))


@pytest.mark.parametrize(
    "m",
    [ai("a"), ai_calls(call(id="c1")), tool("c1"), sys_msg()],
    ids=["ai", "ai-calls", "tool", "system"],
)
def test_non_user_messages_are_not_turn_starts(m):
    assert not is_turn_start(m)


def test_count_turns_skips_synthetic_and_non_user():
    msgs = [sys_msg(), *pair("s"), *tool_turn(1, 2), *plain_turn(2), *pair("old", flagged=False), *plain_turn(3)]
    assert count_turns(msgs) == 3


def test_count_turns_empty():
    assert count_turns([]) == 0


# --------------------------------------------------------------------------- split


def test_split_parts():
    s0 = sys_msg()
    p = pair("요약")
    t1, t2 = tool_turn(1, 2), plain_turn(2)
    s = split([s0, *p, *t1, *t2])
    assert s.system is s0
    assert s.pair == p
    assert s.preamble == []
    assert s.turns == [t1, t2]
    assert s.join() == [s0, *p, *t1, *t2]


def test_split_without_system_message():
    t1 = plain_turn(1)
    s = split(t1)
    assert s.system is None
    assert s.turns == [t1]
    assert s.join() == t1


def test_split_empty():
    s = split([])
    assert s == Split()
    assert s.join() == []


def test_split_system_only():
    s0 = sys_msg()
    assert split([s0]).join() == [s0]


def test_split_drops_extra_system_messages():
    s0 = sys_msg("first")
    t1, t2 = plain_turn(1), plain_turn(2)
    out = split([s0, *t1, SystemMessage(content="late"), *t2]).join()
    assert out == [s0, *t1, *t2]
    assert [m for m in out if isinstance(m, SystemMessage)] == [s0]


def test_split_preamble_tool_turn_before_first_user_message():
    c = call("lookup", {"q": "x"}, id="p1")
    pre = [ai_calls(c), tool("p1", "r"), ai("준비 완료")]
    t1 = plain_turn(1)
    s = split([sys_msg(), *pre, *t1])
    assert s.preamble == pre
    assert s.turns == [t1]


def test_split_keeps_only_last_pair():
    p1, p2 = pair("first"), pair("second")
    msgs = [sys_msg(), *plain_turn(1), *p1, *plain_turn(2), *p2, *plain_turn(3)]
    s = split(msgs)
    assert s.pair == p2
    assert user_texts(s.join()) == ["u3"]


def test_split_old_client_unflagged_pair():
    old = pair("옛 요약", flagged=False)
    t3 = plain_turn(3)
    s = split([sys_msg(), *plain_turn(1), *plain_turn(2), *old, *t3])
    assert s.pair == old
    assert s.turns == [t3]


def test_split_request_followed_by_tool_calling_ai_is_not_a_pair():
    req = HumanMessage(content=SUMMARY_REQUEST, additional_kwargs={"synthetic": True})
    assert last_summary_index([req, ai_calls(call(id="x")), tool("x")]) is None
    assert last_summary_index([req]) is None
    assert last_summary_index([req, user("u")]) is None


def test_split_stray_synthetic_before_first_turn_is_dropped():
    req, summ = summary_pair("s")
    t1 = plain_turn(1)
    # a request with no summary after it, and a summary with no request before it
    assert split([req, *t1]).join() == t1
    assert split([summ, *t1]).join() == t1


def test_dangling_summary_request_inside_thread_is_not_sent():
    # e.g. an old client stored the request text, then crashed before the summary came back
    t1, t2 = plain_turn(1), plain_turn(2)
    out = split([sys_msg(), *t1, HumanMessage(content=SUMMARY_REQUEST), *t2]).join()
    assert_pairs_whole(out)
    assert out[1:] == [*t1, *t2]


def test_trailing_flagged_request_without_summary_is_not_sent():
    req = HumanMessage(content=SUMMARY_REQUEST, additional_kwargs={"synthetic": True})
    t1 = plain_turn(1)
    out = split([*pair("old"), *t1, req]).join()
    assert_pairs_whole(out + [user("new")])


# --------------------------------------------------------------------------- split().join(): hydration


def test_hydrate_without_pair_keeps_everything():
    msgs = [sys_msg(), *turns(3, with_tools=True)]
    assert split(msgs).join() == msgs


def test_hydrate_starts_at_last_pair_nothing_older():
    s0 = sys_msg()
    p = pair("요약 1-4")
    after = turns(2, start=5)
    msgs = [s0, *turns(4), *p, *after]
    out = split(msgs).join()
    assert out == [s0, *p, *after]
    assert out[0] is s0 and out[1] is p[0] and out[2] is p[1]


def test_hydrate_pair_never_duplicated_after_several_summaries():
    s0 = sys_msg()
    p1, p2, p3 = pair("a"), pair("b"), pair("c")
    msgs = [s0, *turns(4), *p1, *turns(4, 5), *p2, *turns(4, 9), *p3, *turns(2, 13)]
    out = split(msgs).join()
    reqs = [m for m in out if isinstance(m, HumanMessage) and is_synthetic(m)]
    assert reqs == [p3[0]]
    assert user_texts(out) == ["u13", "u14"]
    assert out[:3] == [s0, *p3]


def test_hydrate_identical_pairs_in_a_row_kept_once():
    p1, p2 = pair("same"), pair("same")
    out = split([sys_msg(), *p1, *p2, *plain_turn(1)]).join()
    assert sum(1 for m in out if m.content == SUMMARY_REQUEST) == 1


def test_hydrate_pair_at_the_end():
    s0 = sys_msg()
    p = pair("all")
    assert split([s0, *turns(3), *p]).join() == [s0, *p]


def test_hydrate_without_system():
    p = pair("s")
    t = plain_turn(9)
    assert split([*plain_turn(1), *p, *t]).join() == [*p, *t]


def test_hydrate_old_client_thread():
    s0 = sys_msg()
    old = pair("cookbook summary", flagged=False)
    t = turns(2, 5)
    assert split([s0, *turns(4), *old, *t]).join() == [s0, *old, *t]


def test_hydrate_drops_preamble_older_than_pair():
    pre = [ai_calls(call(id="p")), tool("p")]
    p = pair("s")
    out = split([sys_msg(), *pre, *plain_turn(1), *p, *plain_turn(2)]).join()
    assert pre[0] not in out and pre[1] not in out


def test_hydrate_does_not_mutate_input():
    msgs = [sys_msg(), *turns(2), *pair("s"), *turns(1, 3)]
    before = copy.deepcopy(msgs)
    split(msgs).join()
    assert msgs == before


# --------------------------------------------------------------------------- repair_tool_pairs


def _interrupted(m, call_id, name=None):
    assert isinstance(m, ToolMessage)
    assert m.tool_call_id == call_id
    assert m.status == "error"
    assert m.content == INTERRUPTED_TOOL_TEXT
    assert "interrupted" in m.content
    assert m.additional_kwargs.get("repaired") is True
    if name is not None:
        assert m.name == name


def test_repair_intact_list_unchanged():
    msgs = [sys_msg(), *tool_turn(1, 3), *plain_turn(2), *tool_turn(3)]
    out = repair_tool_pairs(msgs)
    assert out == msgs
    assert all(a is b for a, b in zip(out, msgs))
    assert tool_pairs_intact(msgs)


def test_repair_dangling_call_in_middle_gets_result_right_after_its_assistant():
    c = call("weather", {"city": "서울"}, id="w1")
    a = ai_calls(c)
    msgs = [sys_msg(), user("u1"), a, user("u2"), ai("a2")]
    out = repair_tool_pairs(msgs)
    assert len(out) == 6
    assert out[2] is a
    _interrupted(out[3], "w1", "weather")
    assert out[4] is msgs[3]  # not at the end of the list
    assert_tool_pairs(out)
    assert not tool_pairs_intact(msgs)
    assert tool_pairs_intact(out)


def test_repair_parallel_calls_partial_results_synthetic_after_existing():
    c1, c2, c3 = call("a", id="p1"), call("b", id="p2"), call("c", id="p3")
    a = ai_calls(c1, c2, c3)
    r2 = tool("p2", "two", name="b")
    final = ai("done")
    msgs = [user("u"), a, r2, final, *plain_turn(2)]
    out = repair_tool_pairs(msgs)
    assert out[:3] == [msgs[0], a, r2]
    _interrupted(out[3], "p1", "a")
    _interrupted(out[4], "p3", "c")
    assert out[5] is final
    assert [m.content for m in out[6:]] == ["u2", "a2"]
    assert_tool_pairs(out)


def test_repair_parallel_calls_all_results_shuffled_kept_in_given_order():
    c1, c2 = call(id="s1"), call(id="s2")
    a = ai_calls(c1, c2)
    r2, r1 = tool("s2"), tool("s1")
    msgs = [user("u"), a, r2, r1, ai("x")]
    assert repair_tool_pairs(msgs) == msgs


def test_repair_dangling_call_at_end_of_list():
    a = ai_calls(call(id="e1"), call(id="e2"))
    out = repair_tool_pairs([user("u"), a])
    assert out[1] is a
    _interrupted(out[2], "e1")
    _interrupted(out[3], "e2")
    assert len(out) == 4


def test_repair_orphan_tool_message_dropped():
    orphan = tool("nobody")
    msgs = [user("u"), orphan, ai("a")]
    assert repair_tool_pairs(msgs) == [msgs[0], msgs[2]]


def test_repair_orphan_at_start_dropped():
    assert repair_tool_pairs([tool("x"), user("u")]) == [user("u")]


def test_repair_result_after_plain_ai_dropped():
    msgs = [user("u"), ai("no calls"), tool("x")]
    assert repair_tool_pairs(msgs) == msgs[:2]


def test_repair_result_separated_from_its_call_is_dropped_and_call_repaired():
    a = ai_calls(call(id="k"))
    late = tool("k", "late")
    msgs = [user("u"), a, ai("thinking"), late]
    out = repair_tool_pairs(msgs)
    assert late not in out
    assert out[1] is a
    _interrupted(out[2], "k")
    assert out[3] is msgs[2]
    assert len(out) == 4


def test_repair_result_for_other_call_in_block_dropped():
    a = ai_calls(call(id="mine"))
    foreign, mine = tool("theirs"), tool("mine")
    out = repair_tool_pairs([user("u"), a, foreign, mine])
    assert out == [user("u"), a, mine]


def test_repair_duplicate_result_dropped():
    a = ai_calls(call(id="d"))
    r = tool("d", "first")
    dup = tool("d", "second")
    out = repair_tool_pairs([user("u"), a, r, dup, ai("x")])
    assert [m.content for m in out] == ["u", "", "first", "x"]


def test_repair_results_of_earlier_call_after_next_call_dropped():
    a1 = ai_calls(call(id="one"))
    a2 = ai_calls(call(id="two"))
    r1, r2 = tool("one"), tool("two")
    out = repair_tool_pairs([user("u"), a1, a2, r2, r1])
    assert out[1] is a1
    _interrupted(out[2], "one")
    assert out[3:] == [a2, r2]


def test_repair_preamble_tool_turn():
    a = ai_calls(call(id="pre"))
    r = tool("pre")
    msgs = [sys_msg(), a, r, *plain_turn(1)]
    assert repair_tool_pairs(msgs) == msgs


def test_repair_is_idempotent_and_does_not_mutate():
    msgs = [user("u"), ai_calls(call(id="a"), call(id="b")), tool("b"), tool("zzz"), user("v")]
    before = copy.deepcopy(msgs)
    once = repair_tool_pairs(msgs)
    assert msgs == before
    assert repair_tool_pairs(once) == once
    assert tool_pairs_intact(once)


def test_tool_pairs_intact_cases():
    assert tool_pairs_intact([])
    assert tool_pairs_intact(plain_turn(1))
    assert tool_pairs_intact(tool_turn(1, 3))
    assert not tool_pairs_intact([user("u"), tool("x")])
    assert not tool_pairs_intact([user("u"), ai_calls(call(id="y"))])
