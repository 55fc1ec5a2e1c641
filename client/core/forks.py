"""Fork and rewind decisions, pure: what a thread cut at turn N holds, and whose memory is whose.

A thread's transcript (the store's `messages` rows, in order) keeps every message with the turn it
was recorded in. A summary pair is recorded in the turn count current when it was made: one made
at the start of turn N+1 is recorded with turn N, so a cut at N holds it, as the context turn N+1
was sent with did. The summary answer carries `covers`: the last real turn folded into it
(`mark_covers`, when it is first recorded), so the turns that follow it in the context are known.

Memory items (client/core/memory/policy.py `Bullet`) belong to the thread that folded them, with
their source turns. A fork holds its source's first turns without folding them again (its memory
watermark starts at the fork point); a thread that is deleted passes what a fork still holds to
that fork (`heirs`), and a rewind passes what only the rewound turns said to the thread keeping
them (`rewound_items`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from client.core.context.turns import is_synthetic, is_turn_start, repair_tool_pairs

COVERS = "covers"  # on a stored summary answer: the last real turn the summary folds in
LEGACY_KEEP = 2  # a pair stored before `covers` existed: the summarize policy's default kept turns

Rows = Sequence[tuple[int, BaseMessage]]


def _is_pair(a: BaseMessage, b: BaseMessage) -> bool:
    return isinstance(a, HumanMessage) and is_synthetic(a) and isinstance(b, AIMessage) and is_synthetic(b)


def context_at(rows: Rows, n: int) -> list[BaseMessage]:
    """The working context the thread had after turn `n` (what turn n+1 was sent with, before its
    own message): the first system message, the last summary pair recorded by then, and the real
    messages of the turns after those it covers, tool pairs intact. A policy that trims does so
    again at the next turn; the result is the same request."""
    held = [(t, m) for t, m in rows if t <= n]
    system = next((m for _, m in held if isinstance(m, SystemMessage)), None)
    pair: list[BaseMessage] = []
    covers = 0
    for (t, a), (_, b) in zip(held, held[1:]):
        if _is_pair(a, b):
            kw = {k: v for k, v in b.additional_kwargs.items() if k != COVERS}
            pair = [a, b.model_copy(update={"additional_kwargs": kw})]
            stored = b.additional_kwargs.get(COVERS)  # a stored row: clamped to what it could cover
            covers = min(max(0, stored), t) if isinstance(stored, int) else max(0, t - LEGACY_KEEP)
    turns = [m for t, m in held
             if t > covers and not isinstance(m, SystemMessage) and not is_synthetic(m)]
    return ([system] if system else []) + pair + repair_tool_pairs(turns)


def mark_covers(messages: Sequence[BaseMessage], known: set[str], turns_done: int) -> dict[str, int]:
    """For each summary answer in `messages` not yet recorded (id not in `known`): the last real
    turn it covers. The context is [system, pair, kept turns..., new turn]; the kept turns are
    recorded already, so the pair covers the `turns_done` recorded turns minus those kept."""
    out: dict[str, int] = {}
    for i, m in enumerate(messages):
        if i and _is_pair(messages[i - 1], m) and m.id and m.id not in known:
            kept = sum(1 for x in messages[i + 1:] if is_turn_start(x) and x.id in known)
            out[m.id] = max(0, turns_done - kept)
    return out


def tools_run(rows: Rows, after: int) -> list[str]:
    """The tools called in the turns after `after`, each name once, in order (a rewind says their
    effects stay)."""
    names: list[str] = []
    for t, m in rows:
        if t > after and isinstance(m, AIMessage):
            for tc in m.tool_calls:
                if tc["name"] not in names:
                    names.append(tc["name"])
    return names


@dataclass(frozen=True)
class Child:
    """A thread holding the first `turn` turns of another (its fork, or rewound turns)."""

    thread_id: str
    turn: int


@dataclass(frozen=True)
class Item:
    """A memory item as these decisions see it: its row id and the source turns it came from."""

    id: int
    sources: tuple[int, ...]


def heir(children: Sequence[Child], sources: Sequence[int], memory_turn: int) -> str | None:
    """The child that takes over an item of a deleted thread: one holding every turn it came from
    (an item without sources may come from any turn folded so far), the one holding most, the
    first listed on a tie; None when no child holds them all (the item goes with the thread)."""
    last = max(sources, default=memory_turn)
    fit = [c for c in children if c.turn >= last > 0]
    return max(fit, key=lambda c: c.turn).thread_id if fit else None


def heirs(children: Sequence[Child], items: Sequence[Item], memory_turn: int) -> dict[str, list[int]]:
    """Deleting a thread: child id -> the items it takes over (each item once)."""
    out: dict[str, list[int]] = {}
    for it in items:
        who = heir(children, it.sources, memory_turn)
        if who is not None:
            out.setdefault(who, []).append(it.id)
    return out


def unfolded_heir(children: Sequence[Child], memory_turn: int, turns: int) -> str | None:
    """Deleting a thread whose memory pass had not folded all its turns: the one child (holding
    most) that folds the turns it holds of those, since nobody else will."""
    fit = [c for c in children if c.turn > memory_turn]
    return max(fit, key=lambda c: c.turn).thread_id if fit and memory_turn < turns else None


def rewound_items(items: Sequence[Item], keep: int) -> list[int]:
    """A rewind to turn `keep`: the items that came only from the rewound turns (they move with them)."""
    return [it.id for it in items if it.sources and min(it.sources) > keep]


def rewind_watermark(memory_turn: int, keep: int, turns: int) -> int:
    """The memory watermark of the thread keeping the rewound turns keep+1..turns: what the source
    folded of them is folded (its items move along), the rest is the new thread's to fold."""
    return max(keep, min(memory_turn, turns))
