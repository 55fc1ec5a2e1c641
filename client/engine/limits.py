"""Every turn ends: per-turn caps on model and tool calls, no identical failing tool call a
third time, then one last model call without tools so the user still gets an answer.

LangChain's ModelCallLimitMiddleware / ToolCallLimitMiddleware end a run with a canned English
AIMessage (or an exception) instead of an answer, and count calls by tool name, not by
arguments; this middleware keeps their idea (count per run) but ends with a real answer.
The counts are read from the turn's own messages (after the last real user message), so
retries inside one model call and state replays never skew them. Model calls a turn makes for
MCP servers (sampling, a 2025 server's request or a 2026 input round) leave no message: the
session's `ModelCalls` (model_calls.py) counts them, and both sides read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from client.core.context.turns import is_turn_start, text_of
from client.engine.events import notify
from client.engine.model_calls import ModelCalls

DEFAULT_MAX_MODEL_CALLS = 12
DEFAULT_MAX_TOOL_CALLS = 20
MAX_SAME_FAILURES = 2  # an identical call (tool + arguments) that failed this often is not run again
FINAL_NOTE = (
    "[도구 사용 한도] 이번 턴에는 더 이상 도구를 쓸 수 없습니다. 지금까지 얻은 정보만으로 사용자의 마지막 "
    "메시지에 바로 답하세요. 도구가 실패했다면 그 사실을 짧게 알리세요. "
    "(No more tools this turn: answer the user's last message now, in the user's language.)"
)
# Stored as the turn's answer (model context and transcript alike), so one fixed text in both
# languages, like BLOCKED_TEXT, rather than whatever --lang was in force that day.
NO_ANSWER_TEXT = "(도구 호출 한도에 도달해 이번 턴은 답을 만들지 못했습니다. / The tool call limit was reached; no answer this turn.)"
BLOCKED_TEXT = "이 도구 호출은 실행하지 않았습니다: 이번 턴의 도구 호출 한도에 도달했습니다. (not run: tool call limit of this turn)"


@dataclass
class Tally:
    model_calls: int = 0  # answers already given by the model in this turn
    tool_calls: int = 0  # tool calls the model asked for in this turn
    worst_repeat: int = 0  # most failures of one identical (tool, arguments) call


def call_key(name: str, args: Any) -> str:
    return f"{name}:{json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)}"


def turn_tail(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages of the running turn: everything after its real user message."""
    for i in range(len(messages) - 1, -1, -1):
        if is_turn_start(messages[i]):
            return list(messages[i + 1 :])
    return []


def failures(tail: Sequence[BaseMessage]) -> dict[str, int]:
    """Failed results per identical call (tool + arguments) in this turn."""
    keys = {tc["id"]: call_key(tc["name"], tc.get("args", {}))
            for m in tail if isinstance(m, AIMessage) for tc in m.tool_calls if tc.get("id")}
    out: dict[str, int] = {}
    for m in tail:
        if isinstance(m, ToolMessage) and m.status == "error" and m.tool_call_id in keys:
            k = keys[m.tool_call_id]
            out[k] = out.get(k, 0) + 1
    return out


def tally(tail: Sequence[BaseMessage]) -> Tally:
    ais = [m for m in tail if isinstance(m, AIMessage)]
    fails = failures(tail)
    return Tally(len(ais), sum(len(m.tool_calls) for m in ais), max(fails.values(), default=0))


def stop_reason(t: Tally, max_model_calls: int, max_tool_calls: int) -> str | None:
    """Why the next model call must be the last one (no tools), or None."""
    if t.model_calls + 1 >= max_model_calls:
        return "model_calls"
    if t.tool_calls >= max_tool_calls:
        return "tool_calls"
    if t.worst_repeat >= MAX_SAME_FAILURES:
        return "repeated_failure"
    return None


def with_final_note(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The note goes into the one system message (templates allow no second one)."""
    msgs = list(messages)
    if msgs and isinstance(msgs[0], SystemMessage):
        msgs[0] = SystemMessage(content=f"{text_of(msgs[0])}\n\n{FINAL_NOTE}", id=msgs[0].id)
    else:
        msgs.insert(0, SystemMessage(content=FINAL_NOTE))
    return msgs


class TurnLimits(AgentMiddleware):
    """Outermost middleware: decides whether this model call still gets tools."""

    def __init__(self, max_model_calls: int = DEFAULT_MAX_MODEL_CALLS,
                 max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS, calls: ModelCalls | None = None) -> None:
        super().__init__()
        self.max_model_calls = max(1, max_model_calls)
        self.max_tool_calls = max(0, max_tool_calls)
        self.calls = calls or ModelCalls(lambda: self.max_model_calls)  # shared with the sampler

    @property
    def name(self) -> str:  # type: ignore[override]
        return "TurnLimits"

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        done = tally(turn_tail(request.messages))
        if done.model_calls == 0:  # the turn's first call: its sampling count starts
            self.calls.sampled = 0
        self.calls.answers = done.model_calls + 1
        done.model_calls += self.calls.sampled
        why = stop_reason(done, self.max_model_calls, self.max_tool_calls)
        if why is None or not request.tools:
            return await handler(request)
        notify("turn_capped_" + why, {"calls": done.model_calls + 1, "tools": done.tool_calls,
                                       "max": self.max_model_calls, "repeat": done.worst_repeat})
        response = await handler(request.override(tools=[], messages=with_final_note(request.messages)))
        for m in response.result:  # whatever the model does, this call ends the turn
            if isinstance(m, AIMessage) and m.tool_calls:
                m.tool_calls = []
                m.additional_kwargs.pop("tool_calls", None)
                if not text_of(m).strip():  # never store an empty answer
                    m.content = NO_ANSWER_TEXT
        return response

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """Never run a call past the tool cap, or an identical call that already failed twice
        (parallel calls of one answer are counted in their order)."""
        call = request.tool_call
        messages = list((request.state or {}).get("messages", [])) if isinstance(request.state, dict) else []
        tail = turn_tail(messages)
        ais = [m for m in tail if isinstance(m, AIMessage)]
        done = sum(1 for m in tail if isinstance(m, ToolMessage))
        position = next((i for i, tc in enumerate(ais[-1].tool_calls) if tc.get("id") == call.get("id")), 0) if ais else 0
        repeated = failures(tail).get(call_key(call["name"], call.get("args", {})), 0) >= MAX_SAME_FAILURES
        if done + position >= self.max_tool_calls or repeated:
            return ToolMessage(content=BLOCKED_TEXT, tool_call_id=call["id"], name=call["name"], status="error")
        return await handler(request)
