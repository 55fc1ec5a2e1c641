"""client.core.context.trim: keep the last M completed turns."""

from __future__ import annotations

import copy

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context import repair_tool_pairs, trim_turns

from ._context_helpers import (
    ai,
    ai_calls,
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


def test_m5_with_5_completed_turns_drops_nothing():
    # the 6th request holds all 5 earlier turns
    s0 = sys_msg()
    msgs = [s0, *turns(5)]
    kept, dropped = trim_turns(msgs, 5)
    assert dropped == 0
    assert kept == msgs
    request = kept + [user("u6")]
    assert user_texts(request) == ["u1", "u2", "u3", "u4", "u5", "u6"]


def test_m5_with_6_completed_turns_drops_turn_1():
    # the 7th request holds turns 2-6 + the 7th message
    s0 = sys_msg()
    msgs = [s0, *turns(6)]
    kept, dropped = trim_turns(msgs, 5)
    assert dropped == 1
    assert kept[0] is s0
    assert kept[1:] == msgs[3:]
    request = kept + [user("u7")]
    assert user_texts(request) == ["u2", "u3", "u4", "u5", "u6", "u7"]


@pytest.mark.parametrize("n,m", [(0, 5), (1, 1), (3, 5), (10, 3), (10, 1), (7, 7)])
def test_keeps_min_m_turns(n, m):
    msgs = [sys_msg(), *turns(n)]
    kept, dropped = trim_turns(msgs, m)
    assert dropped == max(0, n - m)
    assert user_texts(kept) == [f"u{i}" for i in range(max(1, n - m + 1), n + 1)]


def test_tool_turns_kept_whole():
    s0 = sys_msg()
    t = [tool_turn(i, n_calls=i % 3 + 1) for i in range(1, 5)]
    msgs = [s0] + [m for x in t for m in x]
    kept, dropped = trim_turns(msgs, 2)
    assert dropped == 2
    assert kept == [s0, *t[2], *t[3]]
    assert_tool_pairs(kept)


def test_summary_pair_is_kept():
    s0 = sys_msg()
    p = pair("요약")
    after = turns(4, 5)
    kept, dropped = trim_turns([s0, *p, *after], 2)
    assert dropped == 2
    assert kept == [s0, *p, *after[-4:]]
    assert user_texts(kept) == ["u7", "u8"]


def test_old_client_pair_is_kept_and_not_counted_as_turn():
    old = pair("old", flagged=False)
    kept, dropped = trim_turns([sys_msg(), *old, *turns(3)], 3)
    assert dropped == 0
    assert kept[1:3] == old


def test_turns_before_pair_are_pruned_not_counted():
    s0 = sys_msg()
    p = pair("s")
    kept, dropped = trim_turns([s0, *turns(4), *p, *turns(2, 5)], 5)
    assert dropped == 0
    assert kept == [s0, *p, *turns(2, 5)]


def test_no_system_message():
    kept, dropped = trim_turns(turns(4), 2)
    assert dropped == 2
    assert not any(isinstance(m, SystemMessage) for m in kept)
    assert user_texts(kept) == ["u3", "u4"]


def test_preamble_kept_when_nothing_dropped_and_dropped_with_turns():
    pre = [ai_calls(call(id="pre")), tool("pre"), ai("ready")]
    s0 = sys_msg()
    msgs = [s0, *pre, *turns(2)]
    kept, dropped = trim_turns(msgs, 2)
    assert (kept, dropped) == (msgs, 0)
    kept, dropped = trim_turns(msgs, 1)
    assert dropped == 1
    assert kept == [s0, *turns(1, 2)]
    assert not any(isinstance(m, ToolMessage) for m in kept)


def test_zero_and_negative_m_keep_no_turns():
    s0 = sys_msg()
    p = pair("s")
    for m in (0, -3):
        kept, dropped = trim_turns([s0, *p, *turns(3)], m)
        assert kept == [s0, *p]
        assert dropped == 3


def test_extra_system_messages_dropped():
    s0 = sys_msg()
    kept, _ = trim_turns([s0, *plain_turn(1), SystemMessage(content="x"), *plain_turn(2)], 5)
    assert [m for m in kept if isinstance(m, SystemMessage)] == [s0]


def test_empty_input():
    assert trim_turns([], 5) == ([], 0)


def test_input_not_mutated():
    msgs = [sys_msg(), *turns(6, with_tools=True)]
    before = copy.deepcopy(msgs)
    trim_turns(msgs, 2)
    assert msgs == before


def test_trim_of_repaired_thread_keeps_pairs_intact():
    msgs = [sys_msg(), user("u1"), ai_calls(call(id="x")), user("u2"), ai_calls(call(id="y"), call(id="z")), tool("z")]
    kept, dropped = trim_turns(repair_tool_pairs(msgs), 1)
    assert dropped == 1
    assert_tool_pairs(kept)
    assert isinstance(kept[1], HumanMessage) and kept[1].content == "u2"
    assert isinstance(kept[2], AIMessage)
