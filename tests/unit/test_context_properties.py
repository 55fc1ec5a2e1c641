"""Property-based tests over generated conversations (hypothesis).

The generator (``conversations`` in _context_helpers) builds valid-ish threads:
optional system message, optional preamble tool turn, turns of a user message,
0-2 rounds of parallel tool calls with results (sometimes missing, shuffled,
duplicated or foreign), a final answer, optional summary pairs (flagged or
written by old clients) and stray extra system messages. It also records what
hydration must give, so hydrate is checked against an independent model.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage, SystemMessage

from client.core.context import (
    Calibration,
    apply_summary,
    chunk_turns,
    count_turns,
    estimate_messages_tokens,
    estimate_text_tokens,
    fit_to_budget,
    plan_summary,
    repair_tool_pairs,
    split,
    tool_pairs_intact,
    trim_turns,
)
from client.core.context.policy import STRATEGIES, ContextSettings, hydrate, prepare
from client.core.context.summarize import render_turns

from ._context_helpers import (
    Conversation,
    assert_context,
    assert_matches_expected,
    assert_subsequence,
    assert_tool_pairs,
    conversations,
    is_real_user,
    is_repaired,
    turn_strategy,
)

SETTINGS = settings(deadline=None)  # examples: the profile's (tests/conftest.py)
NEW = "새 질문입니다"


def _new() -> HumanMessage:
    return HumanMessage(content=NEW)


def _users(msgs):
    return [m for m in msgs if is_real_user(m)]


def _expected_users(conv: Conversation):
    return [t[0] for t in conv.turns]


# --------------------------------------------------------------------------- hydrate


@SETTINGS
@given(conversations())
def test_hydrate_matches_model_and_invariants(conv):
    out = hydrate(conv.messages)
    assert_matches_expected(out, conv.expected_hydrated())
    new = _new()
    assert_context(out + [new], conv.messages, conv.system, new)
    assert hydrate(out) == out  # idempotent


@SETTINGS
@given(conversations(dangling=True))
def test_hydrate_drops_dangling_summary_requests(conv):
    out = hydrate(conv.messages)
    new = _new()
    assert_context(out + [new], conv.messages, conv.system, new)
    assert_matches_expected(out, conv.expected_hydrated())


@SETTINGS
@given(conversations())
def test_repair_tool_pairs_properties(conv):
    out = repair_tool_pairs(conv.messages)
    assert_tool_pairs(out)
    assert tool_pairs_intact(out)
    assert repair_tool_pairs(out) == out
    assert_subsequence([m for m in out if not is_repaired(m)], conv.messages)
    # nothing but tool results is ever dropped or added
    assert [m for m in out if not m.type == "tool"] == [m for m in conv.messages if not m.type == "tool"]


# --------------------------------------------------------------------------- trim


@SETTINGS
@given(conversations(), st.integers(-1, 8))
def test_trim_turns_properties(conv, m):
    hydrated = hydrate(conv.messages)
    n = len(conv.turns)
    kept, dropped = trim_turns(hydrated, m)
    assert dropped == max(0, n - max(0, m))
    new = _new()
    out = kept + [new]
    assert_context(out, conv.messages, conv.system, new)
    users = _users(kept)
    assert len(users) == min(max(0, m), n)
    assert all(a is b for a, b in zip(users, _expected_users(conv)[dropped:]))
    # the summary pair, if any, is kept right after the system message
    if conv.pair:
        start = 1 if conv.system else 0
        assert kept[start] is conv.pair[0] and kept[start + 1] is conv.pair[1]


@SETTINGS
@given(conversations(), st.integers(0, 8))
def test_trim_turns_on_raw_thread_counts_real_turns(conv, m):
    kept, dropped = trim_turns(conv.messages, m)
    n = len(conv.turns)
    assert count_turns(kept) == min(m, n)
    assert dropped == n - min(m, n)
    assert_subsequence(kept, conv.messages)


# --------------------------------------------------------------------------- fit_to_budget


@SETTINGS
@given(conversations(), st.data())
def test_fit_to_budget_properties(conv, data):
    new = _new()
    msgs = hydrate(conv.messages) + [new]
    full = estimate_messages_tokens(msgs)
    budget = data.draw(st.integers(0, full + 20), label="budget")
    out, dropped = fit_to_budget(msgs, budget)
    assert_context(out, conv.messages + [new], conv.system, new)
    s_in, s_out = split(msgs), split(out)
    n_in = len(s_in.turns)
    assert dropped == n_in - len(s_out.turns)
    assert s_out.turns == s_in.turns[dropped:]  # oldest dropped first, current turn always kept
    assert s_out.turns[-1] == [new]
    cost = estimate_messages_tokens(out)
    if full <= budget:
        assert (out, dropped) == (msgs, 0)
    elif cost > budget:
        # only the current turn (and the system message) is left
        assert len(s_out.turns) == 1 and not s_out.pair and not s_out.preamble
    if dropped:
        # dropping one turn fewer would not have fitted (the preamble goes with the first turn)
        one_more = s_in.turns[dropped - 1 :]
        preamble = s_in.preamble if dropped == 1 else []
        bigger = ([s_in.system] if s_in.system else []) + s_in.pair + preamble
        bigger += [m for t in one_more for m in t]
        assert estimate_messages_tokens(bigger) > budget
        assert not s_out.preamble
    if s_in.pair and not s_out.pair:
        assert len(s_out.turns) == 1


# --------------------------------------------------------------------------- summarize


@SETTINGS
@given(conversations(), st.integers(0, 7), st.integers(0, 4), st.booleans())
def test_plan_and_apply_summary_properties(conv, n_after, keep, force):
    hydrated = hydrate(conv.messages)
    n = len(conv.turns)
    plan = plan_summary(hydrated, n_after, keep, force=force)
    cut = max(0, n - keep)
    has_older = bool(conv.preamble) or cut > 0
    should = (force or n > n_after) and has_older
    assert (plan is not None) == should
    if plan is None:
        return
    assert plan.previous_summary == (conv.pair[1].content if conv.pair else None)
    assert plan.system is conv.system
    # the plan partitions what comes after the last pair: nothing lost, nothing twice
    flat = [m for t in plan.to_summarize + plan.keep for m in t]
    after_pair = hydrated[(1 if conv.system else 0) + len(conv.pair) :]
    assert len(flat) == len(after_pair) and all(a is b for a, b in zip(flat, after_pair))
    assert len(plan.keep) == min(keep, n)
    # turns older than the last pair never reappear
    assert not any(m is p for m in flat for p in conv.pair)

    out = apply_summary(plan, "요약")
    new = _new()
    request = out + [new]
    start = 1 if conv.system else 0
    inserted = out[start : start + 2]
    assert inserted[0].additional_kwargs.get("synthetic") and inserted[1].additional_kwargs.get("synthetic")
    assert_context(request, conv.messages, conv.system, new, inserted=inserted)
    assert len(_users(out)) == min(keep, n)
    assert hydrate(out) == out


# --------------------------------------------------------------------------- policy.prepare


@SETTINGS
@given(
    conversations(),
    st.sampled_from(STRATEGIES),
    st.one_of(st.none(), st.integers(0, 6)),
    st.integers(0, 7),
    st.booleans(),
)
def test_prepare_properties(conv, strategy, max_turns, summary_after, force):
    cfg = ContextSettings(strategy=strategy, max_turns=max_turns, summary_after=summary_after)
    p = prepare(conv.messages, cfg, force_summary=force)
    n = len(conv.turns)
    ctx = p.messages
    inserted = []
    if p.plan is not None:
        ctx = apply_summary(p.plan, "요약")
        start = 1 if conv.system else 0
        inserted = ctx[start : start + 2]
    new = _new()
    assert_context(ctx + [new], conv.messages, conv.system, new, inserted=inserted)
    if force:  # /compact: a summary under any strategy, keeping max_turns (default 2)
        keep = 2 if max_turns is None else max_turns
        assert p.trimmed == 0
        assert p.messages == hydrate(conv.messages)
        if p.plan is not None:
            assert len(_users(ctx)) == min(keep, n)
    elif strategy == "trim":
        assert p.plan is None
        assert len(_users(ctx)) == min(cfg.keep_turns, n)
        assert p.trimmed == n - min(cfg.keep_turns, n)
    else:
        assert p.trimmed == 0
        assert p.messages == hydrate(conv.messages)
        if p.plan is not None:
            assert len(_users(ctx)) == min(cfg.keep_turns, n)
        if strategy == "none":
            assert p.plan is None


@st.composite
def _turn_lists(draw):
    ids = itertools.count()
    return draw(st.lists(turn_strategy(ids), min_size=0, max_size=16))


@SETTINGS
@given(
    _turn_lists(),
    st.sampled_from(STRATEGIES),
    st.integers(0, 6),
    st.integers(0, 4),
    st.booleans(),
)
def test_agent_loop_simulation(turn_list, strategy, summary_after, keep, with_system):
    """Feed turns one by one through prepare, as the agent does, and check each request."""
    cfg = ContextSettings(strategy=strategy, max_turns=keep, summary_after=summary_after)
    system = SystemMessage(content="sys") if with_system else None
    ctx = [system] if system else []
    source = list(ctx)
    summaries: list[str] = []
    summarized = []
    trimmed = 0
    for raw, _expected in turn_list:
        p = prepare(ctx, cfg)
        ctx = p.messages
        trimmed += p.trimmed
        inserted = []
        if p.plan is not None:
            assert p.plan.previous_summary == (summaries[-1] if summaries else None)
            summarized += [m for t in p.plan.to_summarize for m in t if is_real_user(m)]
            summaries.append(f"S{len(summaries)}")
            ctx = apply_summary(p.plan, summaries[-1])
        s = split(ctx)
        if s.pair:
            inserted = s.pair
            assert s.pair[1].content == summaries[-1]
        new = raw[0]
        source += raw
        request = ctx + [new]
        assert_context(request, source, system, new, inserted=inserted)
        completed = len(s.turns)
        if strategy == "trim":
            assert completed <= keep
        elif strategy == "summarize":
            assert completed <= max(summary_after, keep)
        ctx = request + raw[1:]  # the turn completes
    all_users = [t[0][0] for t in turn_list]
    remaining = _users(hydrate(ctx))
    if strategy == "summarize":
        # every real turn is either summarized exactly once or still verbatim
        got = summarized + remaining
        assert len(got) == len(all_users) and all(a is b for a, b in zip(got, all_users))
    elif strategy == "trim":
        assert trimmed + len(remaining) == len(all_users)
    else:
        assert len(remaining) == len(all_users)


# --------------------------------------------------------------------------- chunk_turns, estimates, calibration


@SETTINGS
@given(conversations(pairs=False), st.integers(0, 200))
def test_chunk_turns_properties(conv, limit):
    turns = split(hydrate(conv.messages)).turns
    chunks = chunk_turns(turns, limit)
    assert [t for c in chunks for t in c] == turns
    assert all(c for c in chunks)
    for c in chunks:
        cost = sum(estimate_text_tokens(render_turns([t])) for t in c)
        assert len(c) == 1 or cost <= limit


TEXTS = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)


@SETTINGS
@given(TEXTS, TEXTS)
def test_estimate_text_tokens_properties(a, b):
    ea, eb, eab = estimate_text_tokens(a), estimate_text_tokens(b), estimate_text_tokens(a + b)
    assert ea >= 0 and eb >= 0
    assert eab >= max(ea, eb)
    assert eab <= ea + eb
    assert estimate_text_tokens(a + " \n\t") == ea


@SETTINGS
@given(st.lists(st.tuples(st.integers(-10, 10_000), st.one_of(st.none(), st.integers(-10, 100_000)))))
def test_calibration_ratio_stays_clamped(observations):
    c = Calibration()
    valid = 0
    for est, rep in observations:
        c.observe(est, rep)
        if rep and est > 0:
            valid += 1
        assert 0.33 - 1e-9 <= c.ratio <= 3.0 + 1e-9
    assert c.samples == valid
