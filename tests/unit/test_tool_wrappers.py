"""A real tool's call through a made-up dispatcher (client/core/tool_wrappers.py, pure), and the
strict-arguments step that applies it (client/engine/toolcalls.py)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from client.core.tool_wrappers import unwrapped
from client.engine.toolcalls import REFUSED, UNWRAPPED, checked

TOOLS = {"read_text_file", "web_search", "tool_search"}
known = TOOLS.__contains__


@pytest.mark.parametrize("name, args, out", [
    ("call_tool", {"function_name": "read_text_file", "arguments": {"path": "notes.txt"}},
     ("read_text_file", {"path": "notes.txt"})),  # what Qwen2.5-Coder 1.5B wrote in a first session
    ("use_tool", {"name": "web_search", "query": "부산 맛집"}, ("web_search", {"query": "부산 맛집"})),
    ("invoke", {"tool": "web_search", "args": "{\"query\": \"x\"}"}, ("web_search", {"query": "x"})),
    ("run", {"tool_name": "tool_search", "parameters": {}}, ("tool_search", {})),
])
def test_a_dispatcher_naming_one_real_tool_is_that_tools_call(name, args, out):
    assert unwrapped(name, args, known) == out


@pytest.mark.parametrize("name, args", [
    ("web_search", {"name": "read_text_file", "arguments": {}}),  # a real tool's own call is never rewritten
    ("call_tool", {"function_name": "rm_rf", "arguments": {}}),  # names no tool
    ("call_tool", {"function_name": "web_search", "name": "read_text_file", "arguments": {}}),  # two names
    ("call_tool", {"function_name": "web_search", "arguments": {"query": "x"}, "force": True}),  # a key too many
    ("call_tool", {"function_name": "web_search", "arguments": {}, "args": {}}),  # two argument sets
    ("call_tool", {"function_name": "web_search", "arguments": "{\"query\": 1, \"query\": 2}"}),  # strict JSON
    ("call_tool", {"function_name": "web_search", "arguments": ["x"]}),
    ("call_tool", {"function_name": ["web_search"], "arguments": {}}),
    ("call_tool", {}),
])
def test_anything_less_clear_stays_as_the_model_wrote_it(name, args):
    assert unwrapped(name, args, known) is None


def test_the_message_carries_the_real_call_and_remembers_the_dispatcher():
    raw = '{"function_name": "read_text_file", "arguments": {"path": "notes.txt"}}'
    bad = '{"function_name": "read_text_file", "arguments": {"path": "a"}} trailing'
    msg = AIMessage(content="", tool_calls=[{"name": "call_tool", "args": {}, "id": "c1", "type": "tool_call"},
                                            {"name": "call_tool", "args": {}, "id": "c2", "type": "tool_call"}])
    out = checked(msg, {"c1": raw, "c2": bad}, known)
    assert [(c["name"], c["args"]) for c in out.tool_calls] == [("read_text_file", {"path": "notes.txt"}), ("call_tool", {})]
    assert out.additional_kwargs[UNWRAPPED] == {"c1": "call_tool"}
    assert set(out.additional_kwargs[REFUSED]) == {"c2"}  # unreadable arguments are refused, not unwrapped
    assert checked(msg, {"c1": raw}).tool_calls[0]["name"] == "call_tool"  # without `known`: as written
