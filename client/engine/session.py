"""One chat: a coordinator over the thread, the model, summaries and memory.

A turn is a few named steps: refuse a message that cannot fit, load the thread's working
context, let the summaries module decide what it becomes (client/engine/summaries.py), fit it
into the budget, run the agent, record what happened, and start what the next turn will need.
Output is a stream of typed events (client/engine/events.py); rendering is someone else's job.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import AsyncIterator

from langchain_core.messages import HumanMessage, SystemMessage

from client.core.config import Settings
from client.core.context import count_turns, split
from client.core.context.rolling import SummaryUnusable
from client.core.memory.parse import OWN
from client.core.context.policy import ContextReport, ContextSettings, hydrate, prepare, report, summary_of, with_strategy
from client.engine.agent_run import run_agent
from client.engine.events import Event, Notice, Refused, TurnDone
from client.engine.forks import Forked, Rewound
from client.engine.memory.background import MemoryStatus
from client.engine.memory.manager import MemoryManager
from client.engine.memory.session import MEMORY_LIST_WAIT, MemoryMode, SessionMemory
from client.engine.models import Models
from client.engine.next_turn import NextTurn
from client.engine.store import Store
from client.engine.summaries import Context, Summaries
from client.engine.threads import Threads

__all__ = ["ChatSession", "ContextReport"]


class ChatSession:
    def __init__(self, models: Models, store: Store, memory: MemoryManager | None = None, *,
                 memory_mode: MemoryMode = "background") -> None:
        """`memory_mode`: when memory passes run (client/engine/memory/session.py)."""
        s = models.settings
        self.models = models  # the one owner of the model stack: read, never copied
        self.store = store
        self.memory = memory  # the user's long-term memory (/memory lists and forgets); None: off
        self.context: ContextSettings = s.context  # /context switches it for the session
        self.summaries = Summaries(models)
        self.threads = Threads(store, models, s.user, self.new_system_prompt, s.system_prompt, folding=self._folding)
        self.next_turn = NextTurn(self.summaries, self.threads, warm=models.current.provider.prompt_cache)
        self.warmer = self.next_turn.warmer
        self.memory_passes = SessionMemory(memory, models, lambda: self.thread_id,
                                           mode=memory_mode) if memory else None

    @property
    def settings(self) -> Settings:
        """The settings of the model in use (its name, window and budget follow /model)."""
        return self.models.settings

    @property
    def thread_id(self) -> str:
        return self.threads.id

    async def open(self, thread_id: str | None) -> bool:
        """Select a thread (True when it existed); StoreError("thread_busy") when another client has it."""
        return await self.threads.open(thread_id)

    async def new_system_prompt(self) -> str:
        """The base prompt, plus the user's long-term memory when there is any."""
        base = self.settings.system_prompt
        section = await self.memory_passes.section() if self.memory_passes else ""
        return f"{base}\n\n{section}" if section else base

    # -- memory (client/engine/memory/session.py); None / nothing when memory is off ----------
    def _folding(self, thread_id: str) -> bool:
        """A memory pass of the thread is under way (it keeps the thread claimed till it ends)."""
        return self.memory_passes is not None and self.memory_passes.worker.folding(thread_id)

    async def end(self) -> MemoryStatus | None:
        """The thread ends (exit, /new, /resume elsewhere, /end): its memory pass starts. A thread
        left without a turn is not kept (Threads.drop_if_empty)."""
        dropped = await self.threads.drop_if_empty()
        if self.memory_passes is None:
            return None
        return await self.memory_passes.end("" if dropped else self.thread_id)

    async def resume_memory(self) -> list[str]:
        return await self.memory_passes.resume() if self.memory_passes else []

    def memory_status(self) -> MemoryStatus | None:
        return self.memory_passes.status() if self.memory_passes else None

    async def memory_settled(self, wait: float = MEMORY_LIST_WAIT) -> bool:
        return await self.memory_passes.settled(wait) if self.memory_passes else True

    async def recheck_memory(self) -> int:
        """At start: stored items an older version kept that the current rules drop; how many."""
        return await self.memory_passes.recheck() if self.memory_passes else 0

    async def memory_note(self, key: str) -> bool:
        """A one-time memory notice: True the first time for this user."""
        return await self.memory.note(key) if self.memory else False

    @property
    def memory_left(self) -> str:
        """-p: the thread whose memory pass needs a model request, left to a detached job ("" for none)."""
        return self.memory_passes.left if self.memory_passes else ""

    async def close(self) -> int:
        """Exit: memory work stops at once; how many threads are left pending for the next start."""
        return await self.memory_passes.close() if self.memory_passes else 0

    # -- fork and rewind (client/engine/forks.py) -------------------------------------
    async def fork(self, at: int | None = None, *, new_id: str | None = None, source: str | None = None) -> Forked:
        """/fork, and -r ID --fork (`source`): a new thread holding the first `at` turns (default: all)
        of this one or of `source`. The session stays where it is until it opens the new one. A
        summary of this thread being made in the background goes along when the fork holds the same
        context; it is applied only if it fits."""
        source = source or self.thread_id
        assert source is not None, "no thread to fork"
        info = await self.threads.info(source)
        new = await self.threads.fork(source, at=at, new_id=new_id)
        held = info.turns if info else 0
        turns = held if at is None else min(at, held)
        if source == self.thread_id and info is not None and turns == held:
            self.summaries.follow(source, new)
        return Forked(new, source, turns, info.user_name if info else "")

    async def rewind(self, n: int = 1) -> Rewound:
        """/rewind: the last `n` turns leave what the model sees next, kept in a thread of their own.
        A memory pass of this thread under way (started by the last answer) ends first: what it
        folds of the rewound turns then moves with them, and its watermark is not written over the
        cut-back thread's."""
        mp = self.memory_passes
        async with mp.worker.paused(self.thread_id) if mp else contextlib.nullcontext():
            self.summaries.cancel()  # made for the context being cut back
            return await self.threads.rewind(n)

    # -- a turn --------------------------------------------------------------
    async def turn(self, text: str, *, force_summary: bool = False, focus: str | None = None,
                   own: str | None = None) -> AsyncIterator[Event]:
        """`own`: the user's own words when `text` also carries piped stdin (memory reads only them)."""
        extra = {OWN: own} if own is not None else {}
        stack, new = self.models.current, HumanMessage(content=text, id=str(uuid.uuid4()), additional_kwargs=extra)
        if not await self.threads.still_held():  # the claim was lost (Postgres connection): nothing is sent
            yield Refused("thread_lost", {"id": self.thread_id})
            return
        await self.next_turn.settle()
        msgs = await self.threads.state()
        system = msgs[0] if msgs and isinstance(msgs[0], SystemMessage) else SystemMessage(content=stack.settings.system_prompt)
        alone = stack.mw.request_tokens([system, new])
        if alone > stack.budget:
            yield Refused("too_long", {"tokens": alone, "budget": stack.budget})
            return
        working, context = await self.threads.load(msgs), Context([])
        async for item in self.summaries.before_turn(
                self.thread_id, working, self.context, wait=not stack.settings.interactive, force=force_summary,
                focus=focus, over_budget=lambda w: stack.mw.request_tokens([*hydrate(w), new]) > stack.budget):
            if isinstance(item, Context):
                context = item
            else:
                yield item
        request, dropped = stack.mw.fit([*context.messages, new])
        if dropped:
            yield Notice("budget_dropped", {"n": dropped})
        stack.mw.start_turn(dropped, context.seconds)
        async for ev in run_agent(stack, self.threads, request, context.messages, new):
            yield ev
        final, looped = await self.threads.cut_loop(await self.threads.state())
        if looped:
            yield Notice("answer_loop_cut", warning=True)
        await self.threads.finish_turn(final, stack.mw.stats)
        self.next_turn.prepare(final, stack, self.context)
        if self.memory_passes is not None:
            self.memory_passes.after_turn(self.thread_id, text if own is None else own)
        yield TurnDone(stack.mw.stats, count_turns(split(final).join()), context.trimmed + dropped, context.summarized,
                       stack.budget)

    # -- context commands --------------------------------------------------------
    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """Summarize now (/compact): older turns fold into the pair, state replaced."""
        self.summaries.cancel()  # the context changes now: a background summary would not fit it
        plan = prepare(await self.threads.load(), self.context, force_summary=True).plan
        if plan is None:
            yield Notice("nothing_to_compact")
            return
        yield Notice("summarizing", {"n": plan.turns})
        try:
            taken = await self.summaries.roll_now(plan, focus)
        except SummaryUnusable as e:  # every answer refused: the turns stay as they are, no pair
            yield Notice("summary_unusable", {"why": ", ".join(e.reasons)}, warning=True)
            return
        await self.threads.replace(taken.messages)
        yield Notice("summarized", {"n": plan.turns})

    async def current_summary(self) -> str | None:
        return summary_of(await self.threads.state())

    def set_strategy(self, strategy: str) -> bool:
        """Switch the context policy for this session; False for an unknown name."""
        switched = with_strategy(self.context, strategy, self.settings.context.max_turns)
        if switched is not None:
            self.context = switched
        return switched is not None

    async def context_report(self) -> ContextReport:
        stack = self.models.current
        return report(self.context, stack.budget, stack.mw.tools_tokens, await self.threads.state())
