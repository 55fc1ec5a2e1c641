"""Rolling summaries off the critical path.

After a turn's answer is shown, the summary the next turn would need is made in the
background while the user reads and types; the next turn takes it if it is ready (or
waits, in a pipe or when the request budget is exceeded). The task only computes text:
exit or Ctrl-C at any moment loses nothing, the turns are still held verbatim and the
next turn plans the summary again. A result is applied only to the context it was made
for (same previous summary, same messages), never to one that changed meanwhile.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Sequence

from langchain_core.messages import BaseMessage

from client.core.context import split, summary_pair, text_of
from client.core.context.rolling import Rolled, roll_summary
from client.core.context.summarize import SummaryPlan
from client.core.faults import with_retries

SUMMARY_CHUNK_TOKENS = 6_000  # one summarizer request reads at most this much conversation


def summary_budget(max_input_tokens: int) -> int:
    """Tokens the running summary may hold before it is compressed."""
    return max(300, max_input_tokens // 6)


def covered_ids(plan: SummaryPlan) -> list[str]:
    return [m.id or "" for t in plan.to_summarize for m in t]


def apply_rolled(messages: Sequence[BaseMessage], plan_ids: list[str], previous: str | None,
                 summary: str) -> list[BaseMessage] | None:
    """`messages` with the planned span replaced by the new pair, or None when the context
    is no longer the one the summary was made for."""
    s = split(messages)
    prev = text_of(s.pair[1]) if s.pair else None
    if (prev or None) != (previous or None):
        return None
    flat = s.preamble + [m for t in s.turns for m in t]
    n = len(plan_ids)
    if n == 0 or [m.id for m in flat[:n]] != plan_ids:
        return None
    return ([s.system] if s.system else []) + summary_pair(summary) + flat[n:]


@dataclass
class Pending:
    thread_id: str
    plan: SummaryPlan
    ids: list[str]
    task: asyncio.Task[Rolled]
    background: bool = False  # on the niced summary server (it only gets idle CPU)


@dataclass
class Taken:
    messages: list[BaseMessage]
    rolled: Rolled
    turns: int


class Summaries:
    def __init__(self, summarizer: Any, max_input_tokens: int, output_tokens: int | None = None) -> None:
        self.summarizer = summarizer  # chat model without tools
        self.max_input_tokens = max_input_tokens
        self.output_tokens = output_tokens
        self.pending: Pending | None = None

    def _model(self, summarizer: Any = None) -> Any:
        summarizer = summarizer or self.summarizer
        if self.output_tokens is None:
            return summarizer
        from client.engine.providers import limit_output

        return limit_output(summarizer, self.output_tokens)

    async def roll(self, plan: SummaryPlan, focus: str | None = None, summarizer: Any = None) -> Rolled:
        """`summarizer`: another model for this roll (the background one), else the session's."""
        model = self._model(summarizer)

        async def ask(request: list[BaseMessage]) -> str:
            reply = await with_retries(lambda: model.ainvoke(request))
            return text_of(reply)

        chunk = min(SUMMARY_CHUNK_TOKENS, self.max_input_tokens // 2)  # small local windows
        return await roll_summary(plan, ask, chunk_tokens=chunk,
                                  summary_budget=summary_budget(self.max_input_tokens), focus=focus)

    # -- the background task -------------------------------------------------------
    def start(self, thread_id: str, plan: SummaryPlan, summarizer: Any = None) -> None:
        self.cancel()
        task = asyncio.get_running_loop().create_task(self.roll(plan, summarizer=summarizer))
        task.add_done_callback(_quiet)
        self.pending = Pending(thread_id, plan, covered_ids(plan), task, summarizer is not None)

    def running(self, thread_id: str) -> bool:
        return self.pending is not None and self.pending.thread_id == thread_id

    def ready(self) -> bool:
        return self.pending is not None and self.pending.task.done()

    def result_for(self, thread_id: str, messages: Sequence[BaseMessage]) -> list[BaseMessage] | None:
        """`messages` with the finished background summary applied, without taking it; None when
        none has finished well or it no longer fits them."""
        p = self.pending
        if p is None or p.thread_id != thread_id or not p.task.done() or p.task.cancelled() or p.task.exception():
            return None
        return apply_rolled(messages, p.ids, p.plan.previous_summary, p.task.result().text)

    def cancel(self) -> None:
        if self.pending is not None:
            self.pending.task.cancel()
            self.pending = None

    async def take(self, thread_id: str, messages: Sequence[BaseMessage], *, wait: bool) -> Taken | None:
        """The context with the background summary applied; None when there is none yet
        (and `wait` is false) or it no longer fits the context. Raises what the summarizer
        raised; the pending task is cleared either way once finished."""
        p = self.pending
        if p is None:
            return None
        if p.thread_id != thread_id:
            self.cancel()
            return None
        if not p.task.done():
            if not wait:
                return None
            if p.background:
                # the turn waits now: a niced server would make it wait for whatever idle CPU a
                # busy machine has; the session's summarizer makes it at full priority instead
                p.task.cancel()
                task = asyncio.get_running_loop().create_task(self.roll(p.plan))
                task.add_done_callback(_quiet)
                p = self.pending = Pending(p.thread_id, p.plan, p.ids, task)
            await asyncio.wait([p.task])  # shielded: Ctrl-C cancels the turn, not the summary
        self.pending = None
        rolled = p.task.result()  # raises what the summarizer raised
        applied = apply_rolled(messages, p.ids, p.plan.previous_summary, rolled.text)
        if applied is None:
            return None
        n = sum(1 for t in p.plan.to_summarize if t and t[0].type == "human")
        return Taken(applied, rolled, n)


def _quiet(task: asyncio.Task) -> None:
    """A failed background summary is reported by the turn that takes it, never by asyncio."""
    if not task.cancelled():
        task.exception()
