"""Rolling summaries, and what the working context becomes before a turn.

`Summaries.before_turn` is the one call a turn makes: given the working context as data, it
takes a background summary that is ready (or waits for one), rolls one now when the policy
asks and the turn cannot go on without it, or does neither, and yields the turn's notices and
finally the context (`Context`).

After a turn's answer is shown, the summary the next turn would need is made in the background
while the user reads and types (`start`); the next turn takes it if it is ready (or waits, in
a pipe or when the request budget is exceeded). The task only computes text: exit or Ctrl-C at
any moment loses nothing, the turns are still held verbatim and the next turn plans the
summary again. A result is applied only to the context it was made for (same previous summary,
same messages), never to one that changed meanwhile.

The model is the session's current one (client/engine/models.py), read at each summary.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Sequence

from langchain_core.messages import BaseMessage

from client.core.context import split, summary_pair, text_of
from client.core.context.policy import ContextSettings, prepare
from client.core.context.rolling import Rolled, SummaryUnusable, roll_summary
from client.core.context.summarize import SummaryPlan, apply_summary
from client.core.context.turns import with_ids
from client.core.faults import AuthError, describe, with_retries
from client.engine.events import Notice
from client.engine.providers import limit_output
from client.engine.tasks import background

if TYPE_CHECKING:
    from client.engine.models import Models

SUMMARY_CHUNK_TOKENS = 6_000  # one summarizer request reads at most this much conversation


def summary_budget(max_input_tokens: int) -> int:
    """Tokens the running summary may hold before it is compressed."""
    return max(300, max_input_tokens // 3)


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


@dataclass
class Context:
    """What the working context became before a turn (the new message not included)."""

    messages: list[BaseMessage]
    summarized: bool = False
    trimmed: int = 0
    seconds: float = 0.0  # waiting for or making a summary


class Summaries:
    def __init__(self, models: Models) -> None:
        self.models = models  # the summarizer, budget and summary size of the model in use
        self.pending: Pending | None = None

    async def roll(self, plan: SummaryPlan, focus: str | None = None, summarizer: Any = None) -> Rolled:
        """The previous summary extended by the planned turns (client/core/context/rolling.py);
        `summarizer`: another model for this roll (the background one), else the session's."""
        stack = self.models.current
        model = limit_output(summarizer or stack.summarizer, stack.summary_output)

        async def ask(request: list[BaseMessage]) -> str:
            reply = await with_retries(lambda: model.ainvoke(request), scale=stack.settings.tuning.backoff_scale)
            return text_of(reply)

        chunk = min(SUMMARY_CHUNK_TOKENS, stack.budget // 2)  # small local windows
        return await roll_summary(plan, ask, chunk_tokens=chunk, summary_budget=summary_budget(stack.budget), focus=focus)

    async def roll_now(self, plan: SummaryPlan, focus: str | None = None) -> Taken:
        """The context `plan` describes, its span summarized now (a turn waits, or /compact)."""
        rolled = await self.roll(plan, focus)
        done = rolled.plan(plan)
        return Taken(with_ids(apply_summary(done, rolled.text)), rolled, done.turns)

    # -- before a turn --------------------------------------------------------------
    async def before_turn(self, thread_id: str, working: list[BaseMessage], policy: ContextSettings, *,
                          over_budget: Callable[[list[BaseMessage]], bool], wait: bool, force: bool = False,
                          focus: str | None = None) -> AsyncIterator[Notice | Context]:
        """What `working` becomes before the turn: the notices, then the Context (last item).

        `over_budget(messages)`: whether that context and the new message exceed the request
        budget (then a summary is waited for); `wait`: a pipe, where the next message always
        waits for a summary; `force`: /compact-like, summarize now whatever the policy says."""
        summarized, failed, seconds = False, False, 0.0
        if self.running(thread_id) or self.pending is not None:  # made in the background
            waits = force or wait or over_budget(working)
            announce = waits and not self.ready() and self.running(thread_id)
            n = self.pending.plan.turns if self.pending else 0
            started = time.perf_counter()
            async for item in self._summarizing(self.take(thread_id, working, wait=waits),
                                                n if announce else None, over_budget(working)):
                if isinstance(item, Notice):
                    yield item
                elif item is None:
                    failed = True
                else:
                    working, summarized = item.messages, True
            seconds = time.perf_counter() - started
        prepared = prepare(working, policy, force_summary=force)
        if prepared.trimmed:
            yield Notice("trimmed", {"keep": policy.keep_turns})
        context, plan = prepared.messages, prepared.plan
        if plan is not None and not force and (failed or self.running(thread_id)):
            plan = None  # failed this turn (retried after it) or still being made in the background
        if plan is not None and not (force or wait or over_budget(working)):
            self.start(thread_id, plan, niced=False)  # used from the next turn (this turn runs now: full priority)
            plan = None
        if plan is not None:  # the turn cannot go on without it: made now
            started = time.perf_counter()
            async for item in self._summarizing(self.roll_now(plan, focus), plan.turns,
                                                not force and over_budget(working)):
                if isinstance(item, Notice):
                    yield item
                elif item is not None:
                    context, summarized = item.messages, True
            seconds = time.perf_counter() - started
        yield Context(context, summarized, prepared.trimmed, seconds)

    async def _summarizing(self, job: Awaitable[Taken | None], announce: int | None,
                           over: bool) -> AsyncIterator[Notice | Taken | None]:
        """Run one summary job: its notices, then the Taken (or nothing: not ready / not fitting),
        or None when it failed or every answer was refused (the turn goes on unsummarized, its
        turns verbatim; never an empty or fallback pair). `announce`: the turns it folds,
        said before waiting."""
        if announce is not None:
            yield Notice("summary_wait" if over else "summarizing", {"n": announce})
        try:
            taken = await job
        except AuthError:
            raise
        except SummaryUnusable as e:  # every answer refused: nothing committed, the turns stay verbatim
            yield Notice("summary_unusable", {"why": ", ".join(e.reasons)}, warning=True)
            yield None
            return
        except Exception as e:  # noqa: BLE001 - the turn goes on unsummarized
            yield Notice("summary_failed", {"err": describe(e)}, warning=True)
            yield None
            return
        if taken is None:
            return
        if taken.rolled.rejected:
            yield Notice("summary_rejected", {"why": ", ".join(taken.rolled.rejected)}, warning=True)
        yield Notice("summarized", {"n": taken.turns})
        yield taken

    # -- the background task -------------------------------------------------------
    def start(self, thread_id: str, plan: SummaryPlan, *, niced: bool = True) -> None:
        """Make the summary `plan` asks for in the background; `niced`: on the summary server
        when there is one (after an answer, while the user reads)."""
        self.cancel()
        summarizer = self.models.background_summarizer() if niced else None
        task = background(self.roll(plan, summarizer=summarizer))
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
        rolled = p.task.result()
        return apply_rolled(messages, covered_ids(rolled.plan(p.plan)), p.plan.previous_summary, rolled.text)

    def follow(self, thread_id: str, to: str) -> None:
        """A fork of `thread_id` holding its context continues the session (/fork): the summary
        being made goes with it, still applied only to the context it was made for."""
        if self.pending is not None and self.pending.thread_id == thread_id:
            self.pending.thread_id = to

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
                p = self.pending = Pending(p.thread_id, p.plan, p.ids, background(self.roll(p.plan)))
            await asyncio.wait([p.task])  # shielded: Ctrl-C cancels the turn, not the summary
        self.pending = None
        rolled = p.task.result()  # raises what the summarizer raised
        done = rolled.plan(p.plan)
        applied = apply_rolled(messages, covered_ids(done), p.plan.previous_summary, rolled.text)
        if applied is None:
            return None
        return Taken(with_ids(applied), rolled, done.turns)
