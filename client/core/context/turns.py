"""What a turn is, where turns start, and tool-call/result integrity.

Pure functions over LangChain message lists: no I/O, no LangGraph, no store.

A turn is one real user message plus everything after it until the next real
user message. Synthetic messages (the summary pair) are never turns.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Sequence

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

SUMMARY_REQUEST = "지금까지의 대화를 요약해 주세요."
INTERRUPTED_TOOL_TEXT = "도구 호출이 중단되어 결과가 없습니다. (tool call was interrupted; no result)"
SYNTHETIC_KEY = "synthetic"


def with_ids(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages, each given an id if it had none (the transcript keys rows by id)."""
    for m in messages:
        if not m.id:
            m.id = str(uuid.uuid4())
    return list(messages)


def text_of(message: BaseMessage) -> str:
    """The plain text of a message, whatever its content shape."""
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "".join(parts)


def is_synthetic(message: BaseMessage) -> bool:
    if message.additional_kwargs.get(SYNTHETIC_KEY):
        return True
    # Threads written by the cookbook's clients carry the request text only.
    return isinstance(message, HumanMessage) and text_of(message).strip() == SUMMARY_REQUEST


def is_turn_start(message: BaseMessage) -> bool:
    """A real user message: role user, not synthetic."""
    return isinstance(message, HumanMessage) and not is_synthetic(message)


def summary_pair(summary_text: str) -> list[BaseMessage]:
    """The synthetic request/summary pair that stands for older turns."""
    return [
        HumanMessage(content=SUMMARY_REQUEST, additional_kwargs={SYNTHETIC_KEY: True}),
        AIMessage(content=summary_text, additional_kwargs={SYNTHETIC_KEY: True}),
    ]


def last_summary_index(messages: Sequence[BaseMessage]) -> int | None:
    """Index of the request message of the last summary pair, if any."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if isinstance(m, HumanMessage) and is_synthetic(m):
            nxt = messages[i + 1] if i + 1 < len(messages) else None
            if isinstance(nxt, AIMessage) and not nxt.tool_calls:
                return i
    return None


@dataclass
class Split:
    """A message list cut into its parts, in order."""

    system: SystemMessage | None = None
    pair: list[BaseMessage] = field(default_factory=list)  # last summary pair or []
    preamble: list[BaseMessage] = field(default_factory=list)  # non-turn messages before turn 1
    turns: list[list[BaseMessage]] = field(default_factory=list)

    def join(self) -> list[BaseMessage]:
        out: list[BaseMessage] = [self.system] if self.system else []
        out += self.pair + self.preamble
        for t in self.turns:
            out += t
        return out


def split(messages: Sequence[BaseMessage]) -> Split:
    """Cut messages into system, last summary pair, preamble and turns.

    Anything before the last summary pair (other than the system message) is
    history the summary already covers, so it is left out: this is the
    hydration prune.
    """
    msgs = list(messages)
    s = Split()
    if msgs and isinstance(msgs[0], SystemMessage):
        s.system = msgs[0]
        msgs = msgs[1:]
    msgs = [m for m in msgs if not isinstance(m, SystemMessage)]  # exactly one system message
    idx = last_summary_index(msgs)
    if idx is not None:
        s.pair = msgs[idx : idx + 2]
        msgs = msgs[idx + 2 :]
    for m in msgs:
        if is_turn_start(m):
            s.turns.append([m])
        elif isinstance(m, HumanMessage) or (isinstance(m, AIMessage) and is_synthetic(m)):
            continue  # a summary request without its summary (crash, failed summarizer)
        elif s.turns:
            s.turns[-1].append(m)
        else:
            s.preamble.append(m)
    return s


def count_turns(messages: Sequence[BaseMessage]) -> int:
    return sum(1 for m in messages if is_turn_start(m))


def repair_tool_pairs(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Make every tool call answered and every tool result preceded by its call.

    A call without a result (a process killed mid-tool) gets a synthetic error
    result placed right after its assistant message's existing results; a
    result whose call is not right before it is dropped.
    """
    out: list[BaseMessage] = []
    msgs = list(messages)
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if isinstance(m, ToolMessage):
            i += 1  # orphan result: its call is not directly before it
            continue
        out.append(m)
        i += 1
        if isinstance(m, AIMessage) and m.tool_calls:
            wanted = [tc["id"] for tc in m.tool_calls if tc.get("id")]
            seen: set[str] = set()
            while i < len(msgs) and isinstance(msgs[i], ToolMessage):
                tm = msgs[i]
                if tm.tool_call_id in wanted and tm.tool_call_id not in seen:
                    out.append(tm)
                    seen.add(tm.tool_call_id)
                i += 1
            for tc in m.tool_calls:
                if tc.get("id") and tc["id"] not in seen:
                    out.append(
                        ToolMessage(
                            content=INTERRUPTED_TOOL_TEXT,
                            tool_call_id=tc["id"],
                            name=tc.get("name"),
                            status="error",
                            additional_kwargs={"repaired": True},
                        )
                    )
                    seen.add(tc["id"])
    return out


def tool_pairs_intact(messages: Sequence[BaseMessage]) -> bool:
    """True when every call is answered right after it and every result has its call."""
    return list(repair_tool_pairs(messages)) == list(messages)
