"""client.core.context.budget: token heuristic, fitting a request into a budget, calibration."""

from __future__ import annotations

import copy

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from client.core.context import Calibration, estimate_messages_tokens, estimate_text_tokens, fit_to_budget
from client.core.context.budget import (
    PER_MESSAGE,
    PER_REQUEST,
    estimate_message_tokens,
    estimate_tools_tokens,
)

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

# --------------------------------------------------------------------------- estimate_text_tokens


@pytest.mark.parametrize("text", ["", " ", "\n\t  \n"])
def test_empty_and_whitespace_cost_nothing(text):
    assert estimate_text_tokens(text) == 0


@pytest.mark.parametrize(
    "text,expected",
    [
        ("가", 1),  # 0.75 rounds up
        ("안녕하세요", 4),  # 5 * 0.75 = 3.75
        ("가나다라", 3),  # 4 * 0.75
        ("ㄱㄴㄷㄹ", 3),  # compatibility jamo count as Hangul
        ("abcd", 2),  # 4 * 0.27 = 1.08
        ("hello world", 3),  # 10 * 0.27 = 2.7, space free
        ("!!!!!", 3),  # 5 * 0.6
        ("漢字", 2),
        ("ひらがな", 4),
        ("é", 1),
    ],
)
def test_character_classes(text, expected):
    assert estimate_text_tokens(text) == expected


def test_korean_is_cheaper_than_one_token_per_syllable():
    text = "가" * 100
    assert estimate_text_tokens(text) == 75
    assert estimate_text_tokens(text) < len(text)


def test_latin_about_four_chars_per_token():
    assert estimate_text_tokens("a" * 400) == 108


def test_estimate_is_additive_up_to_rounding():
    a, b = "서울 날씨 알려줘", "weather in Seoul, please!"
    whole = estimate_text_tokens(a + b)
    assert estimate_text_tokens(a) + estimate_text_tokens(b) - 1 <= whole <= estimate_text_tokens(a) + estimate_text_tokens(b)


def test_message_tokens():
    assert estimate_message_tokens(user("")) == PER_MESSAGE
    assert estimate_message_tokens(user("가나다라")) == PER_MESSAGE + 3
    a = ai_calls(call("search", {"q": "x"}, id="1"))
    assert estimate_message_tokens(a) > PER_MESSAGE + 8  # tool calls are counted
    bigger = ai_calls(call("search", {"q": "x" * 200}, id="1"))
    assert estimate_message_tokens(bigger) > estimate_message_tokens(a)


def test_messages_tokens_adds_per_request():
    msgs = [sys_msg("a"), user("b")]
    assert estimate_messages_tokens(msgs) == PER_REQUEST + sum(estimate_message_tokens(m) for m in msgs)
    assert estimate_messages_tokens([]) == PER_REQUEST


def test_tools_tokens():
    assert estimate_tools_tokens([]) == 0
    assert estimate_tools_tokens([{"name": "search", "parameters": {"type": "object"}}]) > 0


# --------------------------------------------------------------------------- fit_to_budget


def _cost(msgs):
    return estimate_messages_tokens(msgs)


def test_fits_unchanged():
    msgs = [sys_msg(), *turns(3), user("new")]
    out, dropped = fit_to_budget(msgs, _cost(msgs))
    assert (out, dropped) == (msgs, 0)


def test_drops_oldest_turns_first():
    s0 = sys_msg()
    msgs = [s0, *turns(5), user("u6")]
    budget = _cost([s0, *turns(2, 4), user("u6")])
    out, dropped = fit_to_budget(msgs, budget)
    assert dropped == 3
    assert user_texts(out) == ["u4", "u5", "u6"]
    assert out[0] is s0
    assert _cost(out) <= budget


def test_drops_minimum_number_of_turns():
    s0 = sys_msg()
    msgs = [s0, *turns(5), user("u6")]
    budget = _cost([s0, *turns(2, 4), user("u6")]) + 1  # one short of also keeping u3
    out, dropped = fit_to_budget(msgs, budget)
    assert dropped == 3


def test_never_drops_last_turn_even_if_over_budget():
    s0 = sys_msg()
    last = [user("지금 질문 " * 50)]
    msgs = [s0, *turns(3), *last]
    out, dropped = fit_to_budget(msgs, 1)
    assert dropped == 3
    assert out == [s0, *last]


def test_last_turn_with_tools_kept_whole():
    s0 = sys_msg()
    cur = tool_turn(9, n_calls=3)
    out, dropped = fit_to_budget([s0, *turns(4), *cur], 1)
    assert out == [s0, *cur]
    assert dropped == 4
    assert_tool_pairs(out)


def test_turns_dropped_before_pair_and_pair_before_system():
    s0 = sys_msg()
    p = pair("요약 " * 10)
    msgs = [s0, *p, *turns(3), user("u4")]
    # room for the pair and the current turn only
    out, dropped = fit_to_budget(msgs, _cost([s0, *p, user("u4")]))
    assert dropped == 3
    assert out == [s0, *p, msgs[-1]]
    # no room for the pair either
    out, dropped = fit_to_budget(msgs, _cost([s0, user("u4")]))
    assert dropped == 3
    assert out == [s0, msgs[-1]]


def test_preamble_dropped_with_first_turn_drop():
    s0 = sys_msg()
    pre = [ai_calls(call(id="p")), tool("p"), ai("x")]
    msgs = [s0, *pre, *turns(2), user("u3")]
    out, dropped = fit_to_budget(msgs, _cost([s0, *turns(1, 2), user("u3")]))
    assert dropped == 1
    assert not any(m in out for m in pre)


def test_preamble_dropped_before_pair_when_only_current_turn():
    s0 = sys_msg()
    p = pair("s")
    pre_ai = ai_calls(call(id="p"))
    pre = [pre_ai, tool("p", "결과 " * 100)]
    msgs = [s0, *p, *pre, user("now")]
    out, dropped = fit_to_budget(msgs, _cost([s0, *p, user("now")]))
    assert dropped == 0
    assert out == [s0, *p, msgs[-1]]


def test_fixed_tokens_and_ratio():
    s0 = sys_msg()
    msgs = [s0, *turns(4), user("u5")]
    full = _cost(msgs)
    assert fit_to_budget(msgs, full)[1] == 0
    assert fit_to_budget(msgs, full, fixed_tokens=1)[1] > 0
    assert fit_to_budget(msgs, full, ratio=1.5)[1] > 0
    assert fit_to_budget(msgs, int(full * 2), ratio=1.5)[1] == 0


def test_no_system_message():
    msgs = [*turns(4), user("u5")]
    out, dropped = fit_to_budget(msgs, _cost([*turns(1, 4), user("u5")]))
    assert dropped == 3
    assert user_texts(out) == ["u4", "u5"]


def test_input_not_mutated():
    msgs = [sys_msg(), *turns(4, with_tools=True), user("u")]
    before = copy.deepcopy(msgs)
    fit_to_budget(msgs, 10)
    assert msgs == before


# --------------------------------------------------------------------------- Calibration


def test_calibration_defaults():
    c = Calibration()
    assert c.ratio == 1.0 and c.samples == 0
    assert c.scale(100) == 100


def test_first_observation_sets_ratio():
    c = Calibration()
    c.observe(100, 150)
    assert c.ratio == pytest.approx(1.5)
    assert c.samples == 1
    assert c.scale(100) == 150


def test_moving_average():
    c = Calibration()
    c.observe(100, 150)
    c.observe(100, 100)
    assert c.ratio == pytest.approx(0.7 * 1.5 + 0.3 * 1.0)
    assert c.samples == 2


@pytest.mark.parametrize("reported,ratio", [(10_000, 3.0), (1, 0.33)])
def test_clamped(reported, ratio):
    c = Calibration()
    c.observe(100, reported)
    assert c.ratio == pytest.approx(ratio)
    for _ in range(50):
        c.observe(100, reported)
    assert c.ratio == pytest.approx(ratio)


@pytest.mark.parametrize("estimated,reported", [(100, None), (100, 0), (0, 50), (-5, 50)])
def test_ignored_observations(estimated, reported):
    c = Calibration()
    c.observe(estimated, reported)
    assert (c.ratio, c.samples) == (1.0, 0)


def test_scale_rounds():
    c = Calibration(ratio=1.25)
    assert c.scale(10) == 13  # 12.5 rounds up
    assert c.scale(0) == 0
