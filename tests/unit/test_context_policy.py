"""client.core.context.policy: hydrate and the per-turn decision."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

from client.core.context import SUMMARY_REQUEST, apply_summary
from client.core.context.policy import DEFAULT_MAX_TURNS, STRATEGIES, ContextSettings, hydrate, prepare
from client.core.context.turns import INTERRUPTED_TOOL_TEXT

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


# --------------------------------------------------------------------------- settings


def test_strategies():
    assert set(STRATEGIES) == {"none", "trim", "summarize"}


@pytest.mark.parametrize("strategy,keep", [("none", 0), ("trim", 5), ("summarize", 2)])
def test_default_keep_turns(strategy, keep):
    assert ContextSettings(strategy=strategy).keep_turns == keep == DEFAULT_MAX_TURNS[strategy]


def test_keep_turns_override_and_defaults():
    assert ContextSettings(strategy="trim", max_turns=3).keep_turns == 3
    assert ContextSettings(strategy="trim", max_turns=0).keep_turns == 0
    s = ContextSettings()
    assert s.strategy == "summarize" and s.summary_after == 5 and s.keep_turns == 2


# --------------------------------------------------------------------------- hydrate


def test_hydrate_prunes_to_last_pair_and_repairs():
    s0 = sys_msg()
    p = pair("S")
    dangling = ai_calls(call("slow", id="k"))
    after = [user("u5"), dangling, user("u6"), ai("a6")]
    out = hydrate([s0, *turns(4), *p, *after])
    assert out[:3] == [s0, *p]
    assert out[3] is after[0] and out[4] is dangling
    assert isinstance(out[5], ToolMessage) and out[5].tool_call_id == "k" and out[5].status == "error"
    assert out[5].content == INTERRUPTED_TOOL_TEXT
    assert out[6:] == after[2:]
    assert_tool_pairs(out)


def test_hydrate_drops_orphan_results():
    out = hydrate([sys_msg(), user("u"), tool("ghost"), ai("a")])
    assert not any(isinstance(m, ToolMessage) for m in out)


def test_hydrate_old_client_thread():
    s0 = sys_msg()
    old = pair("옛 요약", flagged=False)
    out = hydrate([s0, *turns(4), *old, *turns(2, 5)])
    assert out[1].content == SUMMARY_REQUEST and out[2].content == "옛 요약"
    assert user_texts(out) == ["u5", "u6"]


def test_hydrate_preamble_thread_without_system():
    pre = [ai_calls(call(id="p1"), call(id="p2")), tool("p2")]
    out = hydrate([*pre, *plain_turn(1)])
    assert not any(isinstance(m, SystemMessage) for m in out)
    assert out[0] is pre[0] and out[1] is pre[1]
    assert out[2].tool_call_id == "p1" and out[2].status == "error"
    assert_tool_pairs(out)


def test_hydrate_exactly_one_system_first():
    s0 = sys_msg()
    out = hydrate([s0, *plain_turn(1), SystemMessage(content="again"), *plain_turn(2)])
    assert out[0] is s0
    assert sum(isinstance(m, SystemMessage) for m in out) == 1


def test_hydrate_pair_not_duplicated():
    out = hydrate([sys_msg(), *pair("a"), *turns(2), *pair("b"), *turns(2, 3)])
    assert [m.content for m in out].count(SUMMARY_REQUEST) == 1
    assert out[2].content == "b"


# --------------------------------------------------------------------------- prepare


def test_prepare_none_returns_hydrated():
    msgs = [sys_msg(), *turns(8)]
    p = prepare(msgs, ContextSettings(strategy="none"))
    assert p.messages == hydrate(msgs)
    assert p.trimmed == 0 and p.plan is None


def test_prepare_trim_m5_examples():
    s0 = sys_msg()
    p5 = prepare([s0, *turns(5)], ContextSettings(strategy="trim"))
    assert p5.trimmed == 0 and user_texts(p5.messages) == ["u1", "u2", "u3", "u4", "u5"]
    p6 = prepare([s0, *turns(6)], ContextSettings(strategy="trim"))
    assert p6.trimmed == 1 and user_texts(p6.messages) == ["u2", "u3", "u4", "u5", "u6"]
    assert p6.plan is None


def test_prepare_trim_repairs_before_trimming():
    msgs = [sys_msg(), *turns(5), user("u6"), ai_calls(call(id="z"))]
    p = prepare(msgs, ContextSettings(strategy="trim", max_turns=1))
    assert p.trimmed == 5
    assert_tool_pairs(p.messages)
    assert user_texts(p.messages) == ["u6"]


def test_prepare_summarize_n5_m2():
    s0 = sys_msg()
    st = ContextSettings(strategy="summarize")
    assert prepare([s0, *turns(5)], st).plan is None
    p = prepare([s0, *turns(6, with_tools=True)], st)
    assert p.plan is not None
    assert [t[0].content for t in p.plan.to_summarize] == ["u1", "u2", "u3", "u4"]
    assert [t[0].content for t in p.plan.keep] == ["u5", "u6"]
    out = apply_summary(p.plan, "S1") + [user("u7")]
    assert user_texts(out) == ["u5", "u6", "u7"]
    assert_tool_pairs(out)
    assert_pairs_whole(out)


def test_prepare_summarize_rolls_over_stored_history():
    s0 = sys_msg()
    stored = [s0, *turns(4), *pair("S1"), *turns(6, 5)]
    p = prepare(stored, ContextSettings())
    assert p.plan.previous_summary == "S1"
    assert [t[0].content for t in p.plan.to_summarize] == ["u5", "u6", "u7", "u8"]
    assert p.messages[:3] == [s0, *stored[9:11]]


def test_prepare_force_summary_compact():
    s0 = sys_msg()
    p = prepare([s0, *turns(3)], ContextSettings(), force_summary=True)
    assert p.plan is not None
    assert [t[0].content for t in p.plan.keep] == ["u2", "u3"]


def test_prepare_force_summary_with_strategy_none_gives_a_plan():
    p = prepare([sys_msg(), *turns(3)], ContextSettings(strategy="none"), force_summary=True)
    assert p.plan is not None


def test_prepare_does_not_mutate_input():
    msgs = [sys_msg(), *turns(7, with_tools=True), *tool_turn(8, 2)[:2]]
    snapshot = list(msgs)
    for strategy in STRATEGIES:
        prepare(msgs, ContextSettings(strategy=strategy))
    assert msgs == snapshot and all(a is b for a, b in zip(msgs, snapshot))


def test_prepare_first_request_of_a_thread():
    for strategy in STRATEGIES:
        p = prepare([], ContextSettings(strategy=strategy))
        assert p.messages == [] and p.plan is None and p.trimmed == 0
        p = prepare([sys_msg()], ContextSettings(strategy=strategy))
        assert len(p.messages) == 1 and p.plan is None
