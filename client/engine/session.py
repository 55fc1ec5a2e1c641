"""One chat: a coordinator over the thread, the model, summaries and memory.

A turn is a few named steps: refuse a message that cannot fit, load the thread's working
context, let the summaries module decide what it becomes (client/engine/summaries.py), fit it
into the budget, run the agent, record what happened, and start what the next turn will need.
Output is a stream of typed events (client/engine/events.py); rendering is someone else's job.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import AsyncIterator

from langchain_core.messages import BaseMessage, HumanMessage, RemoveMessage, SystemMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from client.core.config import Settings
from client.core.context import count_turns, estimate_messages_tokens, split, text_of
from client.core.context.policy import STRATEGIES, ContextSettings, hydrate, prepare
from client.engine.events import Event, Notice, Refused, TurnDone, stream_events
from client.core.memory.statements import statements_of
from client.engine.memory.background import MemoryStatus, MemoryWorker
from client.engine.memory.manager import MemoryManager
from client.engine.models import Models, ModelStack
from client.engine.store import Store
from client.engine.summaries import Context, Summaries
from client.engine.threads import Threads
from client.engine.warm import PLACEHOLDER, Binding, Warmer


MEMORY_LIST_WAIT = 30.0  # /memory waits this long at most for the memory passes under way


@dataclass(frozen=True)
class ContextReport:
    """What /context shows: the policy in force and the working context now."""
    strategy: str
    keep_turns: int
    summary_after: int
    max_input_tokens: int
    turns: int
    tokens: int  # tool schemas + working context, estimated
    has_summary: bool


class ChatSession:
    def __init__(self, models: Models, store: Store, memory: MemoryManager | None = None) -> None:
        s = models.settings
        self.models = models  # the one owner of the model stack: read, never copied
        self.store = store
        self.memory = memory
        self.context: ContextSettings = s.context  # /context switches it for the session
        self.summaries = Summaries(models)
        self.threads = Threads(store, models, s.user, self.new_system_prompt, s.system_prompt)
        self.warmer = Warmer() if models.current.provider.prompt_cache else None
        # memory passes run in the background (client/engine/memory/background.py), on the niced
        # summary server when there is one; a frontend that leaves right after one answer (-p) sets
        # background_memory False: a pass needing a request is then left to the next session
        self.memory_worker = MemoryWorker(memory, model=models.background_summarizer,
                                          current=lambda: self.thread_id) if memory else None
        self.background_memory = True

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
        section = await self.memory.section() if self.memory else ""
        return f"{base}\n\n{section}" if section else base

    # -- memory, off the critical path ------------------------------------------------
    async def end(self) -> MemoryStatus | None:
        """The thread ends (exit, /new, /resume elsewhere, /end): its memory pass starts in the
        background (returns at once, with the passes finished so far); None: memory is off.
        A thread left without a turn is not kept (Threads.drop_if_empty)."""
        dropped = await self.threads.drop_if_empty()
        if self.memory_worker is None or self.memory is None:
            return None
        if self.thread_id and not dropped and (self.background_memory or not self.memory.asks_model):
            self.memory_worker.schedule(self.thread_id)  # -p: only a pass with no request (it ends within the exit's grace)
        return self.memory_worker.status()

    async def resume_memory(self) -> list[str]:
        """At start: queue what earlier sessions left pending, folded in the background from the
        first answer on (the user reading, not waiting for the first one); returns those threads."""
        if self.memory_worker is None or not self.background_memory:
            return []
        return await self.memory_worker.resume(start=False)

    def memory_status(self) -> MemoryStatus | None:
        """Passes running or queued, and those finished since the last call (to report)."""
        return self.memory_worker.status() if self.memory_worker else None

    async def memory_settled(self, wait: float = MEMORY_LIST_WAIT) -> bool:
        """/memory: the user asked to see it, so the passes under way may finish first (at most
        `wait` seconds); True when none is left."""
        return await self.memory_worker.drain(wait) if self.memory_worker else True

    async def close(self) -> int:
        """The session ends (exit): memory work stops at once; returns how many threads are
        left pending for the next start (the UI says so in one line when > 0)."""
        return await self.memory_worker.close() if self.memory_worker else 0

    # -- a turn --------------------------------------------------------------
    async def turn(self, text: str, *, force_summary: bool = False, focus: str | None = None) -> AsyncIterator[Event]:
        stack, new = self.models.current, HumanMessage(content=text, id=str(uuid.uuid4()))
        if self.warmer is not None:
            await self.warmer.settle()
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
        async for ev in self._run(stack, request, context.messages, new):
            yield ev
        final, looped = await self.threads.cut_loop(await self.threads.state())
        if looped:
            yield Notice("answer_loop_cut", warning=True)
        await self.threads.finish_turn(final, stack.mw.stats)
        self._prepare_next(final, stack)
        if self.memory_worker is not None and self.background_memory:
            if statements_of(text):  # the user said something: fold it in while they read
                self.memory_worker.schedule(self.thread_id)
            self.memory_worker.kick()  # and what was queued (left pending by an earlier exit)
        yield TurnDone(stack.mw.stats, count_turns(split(final).join()), context.trimmed + dropped, context.summarized,
                       stack.budget)

    async def _run(self, stack: ModelStack, request: list[BaseMessage], context: list[BaseMessage],
                   new: HumanMessage) -> AsyncIterator[Event]:
        """The agent on `request`; the working context it leaves when the turn fails or is cancelled."""
        payload = {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *request]}
        # a hard backstop under the per-turn caps (client/engine/limits.py): a few graph steps per model call
        config = {**self.threads.config, "recursion_limit": 4 * stack.settings.max_model_calls + 10}
        try:
            async for mode, data in stack.agent.astream(payload, config, stream_mode=["messages", "updates", "custom"],
                                                        durability="exit"):
                for ev in stream_events(mode, data):
                    yield ev
        except Exception:  # a provider error or a runaway graph: the turn failed, the user's words stay
            await self._restore([*context, new])
            raise
        except BaseException:  # Ctrl-C (cancel), shutdown: the turn never happened
            await self._restore(context)  # a summary made this turn is kept
            raise

    async def _restore(self, context: list[BaseMessage]) -> None:
        try:
            await self.threads.replace(context)
        except Exception:  # noqa: BLE001 - never hide the original error
            pass

    def _prepare_next(self, final: list[BaseMessage], stack: ModelStack) -> None:
        """Now that the answer is shown: start the summary the next turn would make first, and once it
        is ready have a local server read the context that turn will send (client/engine/warm.py)."""
        if self.context.strategy == "summarize" and not self.summaries.running(self.thread_id):
            plan = prepare(final, self.context).plan
            if plan is not None:
                self.summaries.start(self.thread_id, plan)
        p = self.summaries.pending
        if self.warmer is not None and p is not None and stack.mw.first_request is not None:
            self.warmer.start(Binding.of(stack.mw.first_request), p.task, lambda: self._next_context(stack))

    async def _next_context(self, stack: ModelStack) -> list[BaseMessage] | None:
        """What the next turn sends before its own message, the ready summary applied."""
        msgs = await self.threads.state()
        applied = self.summaries.result_for(self.thread_id, msgs) if msgs else None
        if applied is None or not isinstance(applied[0], SystemMessage):
            return None
        request, _ = stack.mw.fit([*prepare(applied, self.context).messages, HumanMessage(content=PLACEHOLDER)])
        return request[:-1]

    # -- context commands --------------------------------------------------------
    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """Summarize now (/compact): older turns fold into the pair, state replaced."""
        self.summaries.cancel()  # the context changes now: a background summary would not fit it
        plan = prepare(await self.threads.load(), self.context, force_summary=True).plan
        if plan is None:
            yield Notice("nothing_to_compact")
            return
        yield Notice("summarizing", {"n": plan.turns})
        await self.threads.replace((await self.summaries.roll_now(plan, focus)).messages)
        yield Notice("summarized", {"n": plan.turns})

    async def current_summary(self) -> str | None:
        s = split(await self.threads.state())
        return text_of(s.pair[1]) if s.pair else None

    def set_strategy(self, strategy: str) -> bool:
        """Switch the context policy for this session; False for an unknown name."""
        if strategy not in STRATEGIES:
            return False
        self.context = ContextSettings(strategy, self.settings.context.max_turns,  # type: ignore[arg-type]
                                       self.context.summary_after)
        return True

    async def context_report(self) -> ContextReport:
        c, stack = self.context, self.models.current
        msgs = await self.threads.state()
        parts = split(msgs) if msgs else None
        return ContextReport(
            c.strategy, c.keep_turns, c.summary_after, stack.budget,
            turns=count_turns(parts.join()) if parts else 0,
            tokens=stack.mw.tools_tokens + estimate_messages_tokens(msgs) if msgs else 0,
            has_summary=bool(parts and parts.pair),
        )
