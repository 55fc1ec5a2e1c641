"""Builders, a conversation generator and invariant checks for client.core.context tests.

Not collected by pytest (no ``test_`` prefix).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Sequence

from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from client.core.context import SUMMARY_REQUEST

_ids = itertools.count()


# --------------------------------------------------------------------------- builders


def sys_msg(text: str = "당신은 도움이 되는 비서입니다.") -> SystemMessage:
    return SystemMessage(content=text)


def user(text: str) -> HumanMessage:
    return HumanMessage(content=text)


def ai(text: str) -> AIMessage:
    return AIMessage(content=text)


def call(name: str = "search", args: dict | None = None, id: str | None = None) -> dict:
    return {"name": name, "args": args if args is not None else {"q": name}, "id": id or f"call_{next(_ids)}"}


def ai_calls(*calls: dict, text: str = "") -> AIMessage:
    return AIMessage(content=text, tool_calls=list(calls))


def tool(call_id: str, text: str = "result", name: str | None = "search") -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call_id, name=name)


def pair(summary: str, *, flagged: bool = True) -> list[BaseMessage]:
    """A summary pair; flagged=False is what older clients wrote."""
    kw = {"synthetic": True} if flagged else {}
    return [
        HumanMessage(content=SUMMARY_REQUEST, additional_kwargs=dict(kw)),
        AIMessage(content=summary, additional_kwargs=dict(kw)),
    ]


def plain_turn(i: int) -> list[BaseMessage]:
    return [user(f"u{i}"), ai(f"a{i}")]


def tool_turn(i: int, n_calls: int = 1) -> list[BaseMessage]:
    calls = [call(f"tool{i}_{k}", {"q": f"q{i}_{k}"}, id=f"t{i}_{k}") for k in range(n_calls)]
    out: list[BaseMessage] = [user(f"u{i}"), ai_calls(*calls)]
    out += [tool(c["id"], f"r{i}_{k}", name=c["name"]) for k, c in enumerate(calls)]
    out.append(ai(f"a{i}"))
    return out


def turns(n: int, start: int = 1, *, with_tools: bool = False) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i in range(start, start + n):
        out += tool_turn(i) if with_tools else plain_turn(i)
    return out


def texts(messages: Sequence[BaseMessage]) -> list[str]:
    return [m.content if isinstance(m.content, str) else str(m.content) for m in messages]


def user_texts(messages: Sequence[BaseMessage]) -> list[str]:
    return [m.content for m in messages if is_real_user(m)]


# --------------------------------------------------------------------------- classification


def is_request(m: BaseMessage) -> bool:
    """A synthetic summary request (flagged, or the old clients' exact text)."""
    return isinstance(m, HumanMessage) and (
        bool(m.additional_kwargs.get("synthetic")) or m.content == SUMMARY_REQUEST
    )


def is_real_user(m: BaseMessage) -> bool:
    return isinstance(m, HumanMessage) and not is_request(m)


def is_repaired(m: BaseMessage) -> bool:
    return isinstance(m, ToolMessage) and bool(m.additional_kwargs.get("repaired"))


# --------------------------------------------------------------------------- invariant checks


def assert_tool_pairs(messages: Sequence[BaseMessage]) -> None:
    """Each AIMessage's calls are answered by the ToolMessages right after it; no orphans."""
    msgs = list(messages)
    i = 0
    while i < len(msgs):
        m = msgs[i]
        assert not isinstance(m, ToolMessage), f"orphan ToolMessage at {i}: {m!r}"
        i += 1
        if isinstance(m, AIMessage) and m.tool_calls:
            wanted = [tc["id"] for tc in m.tool_calls]
            got = []
            while i < len(msgs) and isinstance(msgs[i], ToolMessage):
                got.append(msgs[i].tool_call_id)
                i += 1
            assert sorted(got) == sorted(wanted), f"calls {wanted} answered by {got}"


def assert_subsequence(kept: Sequence[BaseMessage], source: Sequence[BaseMessage]) -> None:
    """`kept` (by identity) appears in `source` in the same relative order."""
    it = iter(source)
    for k in kept:
        assert any(k is s for s in it), f"{k!r} missing or out of order"


def assert_pairs_whole(messages: Sequence[BaseMessage]) -> None:
    """Every synthetic summary request is followed by its summary (an AIMessage with no calls)."""
    for i, m in enumerate(messages):
        if is_request(m):
            assert i + 1 < len(messages), "summary request at the end"
            nxt = messages[i + 1]
            assert isinstance(nxt, AIMessage) and not nxt.tool_calls, f"request followed by {nxt!r}"


def assert_system(out: Sequence[BaseMessage], system: SystemMessage | None) -> None:
    systems = [m for m in out if isinstance(m, SystemMessage)]
    if system is None:
        assert systems == []
    else:
        assert len(systems) == 1 and out[0] is system


def assert_context(
    out: Sequence[BaseMessage],
    source: Sequence[BaseMessage],
    system: SystemMessage | None,
    new: HumanMessage,
    *,
    max_pairs: int = 1,
    inserted: Sequence[BaseMessage] = (),
) -> None:
    """The invariants every outgoing request must meet (`out` already ends with `new`).

    `inserted` are messages the function under test created (a new summary pair).
    """
    assert out[-1] is new
    assert sum(1 for m in out if m is new) == 1
    assert_system(out, system)
    originals = [
        m for m in out if m is not new and not is_repaired(m) and not any(m is x for x in inserted)
    ]
    assert_subsequence(originals, source)
    assert_tool_pairs(out)
    assert_pairs_whole(out)
    assert sum(1 for m in out if is_request(m)) <= max_pairs


# --------------------------------------------------------------------------- generator


@dataclass
class Conversation:
    """A generated thread plus the model of what hydration must produce."""

    messages: list[BaseMessage]
    system: SystemMessage | None
    # Everything after the last pair (or the whole thread when there is none),
    # as hydration must give it: repaired, extra system messages left out.
    pair: list[BaseMessage] = field(default_factory=list)
    preamble: list[BaseMessage] = field(default_factory=list)
    turns: list[list[BaseMessage]] = field(default_factory=list)
    # For repaired results we only know (tool_call_id) in advance.
    n_pairs: int = 0

    def expected_hydrated(self) -> list:
        out: list = [self.system] if self.system else []
        out += self.pair + self.preamble
        for t in self.turns:
            out += t
        return out


TEXT = st.text(alphabet="가나다라마바사 abcxyz012.,!", min_size=0, max_size=30)
NONEMPTY = st.text(alphabet="가나다라마바사 abcxyz012.,!", min_size=1, max_size=30).filter(
    lambda s: s.strip() != SUMMARY_REQUEST
)


class _Synth:
    """Placeholder for a ToolMessage that repair must create."""

    def __init__(self, call_id: str, name: str):
        self.call_id, self.name = call_id, name

    def matches(self, m: BaseMessage) -> bool:
        return (
            isinstance(m, ToolMessage)
            and is_repaired(m)
            and m.tool_call_id == self.call_id
            and m.status == "error"
        )


@st.composite
def tool_round(draw, ids, *, faults: bool = True):
    """An AIMessage with 1-3 calls and its results, maybe broken; returns (raw, expected)."""
    n = draw(st.integers(1, 3))
    calls = []
    for _ in range(n):
        k = next(ids)
        calls.append({"name": f"tool{k % 3}", "args": {"q": draw(TEXT), "n": k}, "id": f"call_{k}"})
    msg = AIMessage(content=draw(st.sampled_from(["", "도구를 호출합니다."])), tool_calls=calls)
    results = [ToolMessage(content=draw(TEXT), tool_call_id=c["id"], name=c["name"]) for c in calls]
    if faults:
        if draw(st.integers(0, 3)) == 0:  # some results missing (process killed mid-tool)
            keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            results = [r for r, k in zip(results, keep) if k]
        if len(results) > 1 and draw(st.booleans()):  # results out of order
            results = draw(st.permutations(results))
        if results and draw(st.integers(0, 5)) == 0:  # a duplicated result
            results = results + [ToolMessage(content="dup", tool_call_id=results[0].tool_call_id)]
        if draw(st.integers(0, 5)) == 0:  # a stray result for an unknown call
            pos = draw(st.integers(0, len(results)))
            results = results[:pos] + [ToolMessage(content="?", tool_call_id=f"ghost_{next(ids)}")] + results[pos:]
    raw = [msg] + list(results)
    wanted = {c["id"] for c in calls}
    seen: set[str] = set()
    expected: list = [msg]
    for r in results:
        if r.tool_call_id in wanted and r.tool_call_id not in seen:
            expected.append(r)
            seen.add(r.tool_call_id)
    expected += [_Synth(c["id"], c["name"]) for c in calls if c["id"] not in seen]
    return raw, expected


@st.composite
def turn_strategy(draw, ids, *, faults: bool = True):
    raw: list[BaseMessage] = [HumanMessage(content=draw(NONEMPTY))]
    expected: list = [raw[0]]
    if faults and draw(st.integers(0, 7)) == 0:  # orphan result right after the user message
        raw.append(ToolMessage(content="orphan", tool_call_id=f"ghost_{next(ids)}"))
    for _ in range(draw(st.integers(0, 2))):
        r, e = draw(tool_round(ids, faults=faults))
        raw += r
        expected += e
    if not faults or draw(st.integers(0, 7)) != 0:  # usually a final answer
        final = AIMessage(content=draw(NONEMPTY))
        raw.append(final)
        expected.append(final)
    return raw, expected


@st.composite
def conversations(
    draw, *, faults: bool = True, max_turns: int = 12, pairs: bool = True, dangling: bool = False
) -> Conversation:
    """Valid-ish threads: optional system, optional preamble, turns, optional summary pairs.

    dangling=True also leaves summary requests without their summary after some
    turns (a summarizer that failed, an old client that crashed); hydration
    must leave those out, so the model expects them dropped.
    """
    ids = itertools.count()
    system = SystemMessage(content=draw(NONEMPTY)) if draw(st.booleans()) else None
    raw: list[BaseMessage] = [system] if system else []
    preamble_exp: list = []
    if draw(st.integers(0, 3)) == 0:  # thread opens with a tool turn, no user message yet
        r, e = draw(tool_round(ids, faults=faults))
        raw += r
        preamble_exp = e
        if draw(st.booleans()):
            final = AIMessage(content=draw(NONEMPTY))
            raw.append(final)
            preamble_exp.append(final)
    conv = Conversation(messages=raw, system=system, preamble=preamble_exp)
    n_turns = draw(st.integers(0, max_turns))
    for _ in range(n_turns):
        if pairs and draw(st.integers(0, 5)) == 0:
            p = pair(draw(NONEMPTY), flagged=draw(st.booleans()))
            raw += p
            conv.pair, conv.preamble, conv.turns = p, [], []
            conv.n_pairs += 1
        if faults and raw and draw(st.integers(0, 11)) == 0:  # a stray extra system message
            raw.append(SystemMessage(content="extra"))
        r, e = draw(turn_strategy(ids, faults=faults))
        raw += r
        conv.turns.append(e)
        if dangling and draw(st.integers(0, 3)) == 0:
            raw.append(pair("unused", flagged=draw(st.booleans()))[0])
    if pairs and draw(st.integers(0, 7)) == 0:  # summary made just before the new message
        p = pair(draw(NONEMPTY), flagged=draw(st.booleans()))
        raw += p
        conv.pair, conv.preamble, conv.turns = p, [], []
        conv.n_pairs += 1
    return conv


def assert_matches_expected(out: Sequence[BaseMessage], expected: Sequence) -> None:
    assert len(out) == len(expected), (len(out), len(expected))
    for i, (o, e) in enumerate(zip(out, expected)):
        if isinstance(e, _Synth):
            assert e.matches(o), f"{i}: expected a repaired result for {e.call_id}, got {o!r}"
        else:
            assert o is e, f"{i}: expected {e!r}, got {o!r}"
