"""A model's tool arguments: exactly one JSON object with unique keys, or the call is refused."""

from __future__ import annotations

import pytest

from client.core.toolargs import (DUPLICATE, NOT_FINITE, NOT_JSON, NOT_OBJECT, TOO_DEEP, TOO_LARGE, TRAILING, BadToolArgs,
                                  parse_tool_args)


@pytest.mark.parametrize("raw,args", [
    ('{"target": "a"}', {"target": "a"}),
    ('  {"a": {"b": [1, 2]}}\n', {"a": {"b": [1, 2]}}),
    ("", {}), (None, {}), ("{}", {}),
    ('{"a": {"x": 1}, "b": {"x": 2}}', {"a": {"x": 1}, "b": {"x": 2}}),  # the same key in two objects is fine
    ('{"big": 1.7e308, "tiny": 1e-400}', {"big": 1.7e308, "tiny": 0.0}),  # finite (an underflow is 0)
])
def test_valid_arguments(raw, args):
    assert parse_tool_args(raw) == args


@pytest.mark.parametrize("raw,why", [
    ("{not json", NOT_JSON), ('{"target": "a"', NOT_JSON), ("{'target': 'a'}", NOT_JSON),
    ('{"target": "a", "target": "b"}', DUPLICATE), ('{"a": {"k": 1, "k": 2}}', DUPLICATE),
    ('{"target": "a"} trailing', TRAILING), ('{"a": 1}{"a": 2}', TRAILING),
    ("[1, 2]", NOT_OBJECT), ('"text"', NOT_OBJECT), ("null", NOT_OBJECT), ("3", NOT_OBJECT),
    ('{"n": NaN}', NOT_FINITE), ('{"n": -Infinity}', NOT_FINITE),
    ('{"value": 1e400}', NOT_FINITE), ('{"v": [-1E999]}', NOT_FINITE), ('{"v": {"w": 1.0e+309}}', NOT_FINITE),  # inf to Python
    ('{"v": ' + "9" * 5000 + "}", TOO_LARGE), ('{"v": ' + "[" * 100_000 + "]" * 100_000 + "}", TOO_DEEP),
])
def test_refused_arguments(raw, why):
    with pytest.raises(BadToolArgs) as e:
        parse_tool_args(raw)
    assert e.value.why == why


# -- the middleware's rewrite of a model answer, and what the UI is told (client/engine/toolcalls.py) --
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage  # noqa: E402
from langgraph.graph.message import REMOVE_ALL_MESSAGES  # noqa: E402

from client.engine.mcp.permissions import is_read_only  # noqa: E402
from client.engine.events import ToolCall, stream_events as _events  # noqa: E402
from client.engine.toolcalls import REFUSED, checked, refused_ids  # noqa: E402


def answer(*calls: tuple[str, str, dict], invalid: list[dict] | None = None) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, i, a in calls],
                     invalid_tool_calls=invalid or [])


def test_the_raw_text_decides_not_the_lenient_parse():
    m = answer(("wipe", "c1", {}), ("wipe", "c2", {"target": "b"}), ("wipe", "c3", {"target": "x"}))
    out = checked(m, {"c1": "{not json", "c2": '{"target": "a", "target": "b"}', "c3": '{"target": "x"}'})
    assert [tc["args"] for tc in out.tool_calls] == [{}, {}, {"target": "x"}]
    assert out.additional_kwargs[REFUSED] == {"c1": NOT_JSON, "c2": DUPLICATE}
    assert refused_ids(out) == {"c1", "c2"}


def test_a_call_langchain_gave_up_on_is_refused_not_dropped():
    m = answer(invalid=[{"name": "wipe", "args": "[1, 2]", "id": "c9", "error": None, "type": "invalid_tool_call"}])
    out = checked(m, {})
    assert out.invalid_tool_calls == [] and [tc["id"] for tc in out.tool_calls] == ["c9"]
    assert out.additional_kwargs[REFUSED] == {"c9": NOT_OBJECT}


def test_without_raw_text_the_strictly_parsed_args_stand():
    out = checked(answer(("look", "c1", {"a": 1})), {})
    assert out.tool_calls[0]["args"] == {"a": 1} and REFUSED not in out.additional_kwargs


def test_a_repaired_history_is_not_shown_again():
    """create_agent re-sends the whole history (RemoveMessage first) when it repairs a call."""
    old = answer(("wipe", "old", {"target": "a"}))
    new = checked(answer(("wipe", "new", {})), {"new": "{bad"})
    update = {"model": {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("hi"), old,
                                     ToolMessage("wiped a", tool_call_id="old"), HumanMessage("again"), new]}}
    assert _events("updates", update) == []  # the old call is history; the new one is shown as its refusal
    assert _events("updates", {"model": {"messages": [old]}}) == [ToolCall("wipe", {"target": "a"})]


@pytest.mark.parametrize("ro,destructive,expected", [
    (True, None, True), (True, False, True), (True, True, False), (None, True, False), (None, None, False),
    (False, False, False),
])
def test_read_only_needs_no_contradiction(ro, destructive, expected):
    assert is_read_only(ro, destructive) is expected
