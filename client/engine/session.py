"""One chat thread: load its working context, run a turn, record what happened.

The checkpointer's state is the working context (what the model may still
see); it is replaced, not merged, at every turn start, so trimming and
summarizing change what reaches the endpoint. The store's transcript keeps
every message. Output is a stream of events; rendering is someone else's job.
"""

from __future__ import annotations

import dataclasses
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from client.engine.agent import ContextMiddleware, RequestStats
from client.engine.toolcalls import refused_ids
from client.core.config import Settings
from client.core.faults import AuthError, describe
from client.core.context import count_turns, estimate_messages_tokens, fit_to_budget, split, text_of
from client.core.context.policy import STRATEGIES, ContextSettings, prepare
from client.core.context.policy import hydrate
from client.core.context.quality import cut_loop
from client.core.context.summarize import SummaryPlan, apply_summary
from client.engine.summaries import Summaries
from client.engine.warm import PLACEHOLDER, Binding, Warmer
from client.engine.memory.manager import MemoryManager, MemoryUpdate
from client.core.memory.policy import Bullet
from client.engine.store import Store, StoreError, ThreadInfo, TurnUsage



# -- events ------------------------------------------------------------------
@dataclass
class Text:
    delta: str


@dataclass
class ToolCall:
    name: str
    args: dict


@dataclass
class ToolResult:
    name: str
    content: str
    error: bool
    permission: str = ""  # allow:<why> / deny:<why> (client/engine/mcp/permissions.py), "" when not gated


@dataclass
class Notice:
    key: str
    fmt: dict = field(default_factory=dict)
    warning: bool = False


@dataclass
class TurnDone:
    stats: RequestStats
    turns_in_context: int
    trimmed: int
    summarized: bool
    budget: int


@dataclass
class Refused:
    key: str
    fmt: dict


Event = Text | ToolCall | ToolResult | Notice | TurnDone | Refused


# -- plain data for the UI (slash commands) -----------------------------------------
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


@dataclass(frozen=True)
class ThreadExport:
    info: ThreadInfo | None
    rows: list[tuple[int, BaseMessage]]


def _with_id(m: BaseMessage) -> BaseMessage:
    if not m.id:
        m.id = str(uuid.uuid4())
    return m


class ChatSession:
    def __init__(self, settings: Settings, store: Store, agent: Any, mw: ContextMiddleware, summarizer: Any,
                 memory: MemoryManager | None = None) -> None:
        self.settings = settings
        self.context: ContextSettings = settings.context
        self.store = store
        self.agent = agent
        self.mw = mw
        self.summarizer = summarizer  # chat model without tools
        from client.engine.providers import summary_output_tokens

        self.summaries = Summaries(summarizer, settings.max_input_tokens, summary_output_tokens(settings))
        # in a pipe the next message waits for a summary made in the background; at a terminal
        # it is used from the turn after it is ready (unless the budget is exceeded)
        self.wait_for_summary = not sys.stdin.isatty()
        self.last_rejected: list[str] = []
        self._bg_summarizer: tuple[str, Any] | None = None  # (url, model) on the summary server
        from client.engine.providers import PROVIDERS

        provider = PROVIDERS.get(settings.provider)
        self.warmer = Warmer() if provider is not None and provider.prompt_cache else None
        self.memory = memory
        self.thread_id = ""
        self.system_prompt = settings.system_prompt

    # -- threads -------------------------------------------------------------
    @property
    def config(self) -> dict:
        return {"configurable": {"thread_id": self.thread_id}}

    async def open(self, thread_id: str | None) -> bool:
        """Select a thread; returns True when it already existed. The thread stays
        claimed (store.lock_thread) until another is opened or the store closes;
        one open in another client raises StoreError("thread_busy")."""
        new_id = thread_id or uuid.uuid4().hex
        state = await self._state_messages(new_id)  # a tampered checkpoint is refused now, nothing switched
        if new_id != self.thread_id:
            if not await self.store.lock_thread(new_id):
                raise StoreError("thread_busy", id=new_id)
            if self.thread_id:
                await self.store.unlock_thread(self.thread_id)
        self.thread_id = new_id
        existed = await self.store.get_thread(self.thread_id) is not None
        return existed or bool(state)  # state only: a thread from an older client

    async def _state_messages(self, thread_id: str | None = None) -> list[BaseMessage]:
        config = {"configurable": {"thread_id": thread_id}} if thread_id else self.config
        snap = await self.agent.aget_state(config)
        return list((snap.values or {}).get("messages", [])) if snap else []

    async def load(self, msgs: list[BaseMessage] | None = None) -> list[BaseMessage]:
        """The stored working context, with the transcript brought up to date."""
        if msgs is None:
            msgs = await self._state_messages()
        if not msgs:  # a new thread: its system message is written once, now
            await self.store.create_thread(self.thread_id, self.settings.user)
            msgs = [SystemMessage(content=await self.new_system_prompt(), id=str(uuid.uuid4()))]
        elif not isinstance(msgs[0], SystemMessage):
            msgs = [SystemMessage(content=self.system_prompt, id=str(uuid.uuid4())), *msgs]
        await self._record(msgs)
        return msgs

    async def new_system_prompt(self) -> str:
        """The base prompt, plus the user's long-term memory when there is any."""
        section = await self.memory.section() if self.memory else ""
        return f"{self.system_prompt}\n\n{section}" if section else self.system_prompt

    async def end(self) -> MemoryUpdate | None:
        """The thread ends (exit, /new, /resume elsewhere, /end): update memory."""
        if not self.memory or not self.thread_id:
            return None
        return await self.memory.update(self.thread_id)

    async def _record(self, msgs: list[BaseMessage]) -> None:
        """Append to the transcript every message it does not hold yet, in order."""
        for m in msgs:
            _with_id(m)
        known = await self.store.known_ids(self.thread_id, [m.id for m in msgs if m.id])
        new = [m for m in msgs if m.id not in known]
        if new:
            await self.store.append(self.thread_id, new)

    # -- summaries -----------------------------------------------------------
    async def summarize(self, plan: SummaryPlan, focus: str | None = None) -> str:
        """The previous summary extended by the planned turns (client/core/context/rolling.py)."""
        rolled = await self.summaries.roll(plan, focus)
        self.last_rejected = rolled.rejected
        return rolled.text

    def _over_budget(self, working: list[BaseMessage], new: BaseMessage) -> bool:
        est = self.mw.calibration.scale(estimate_messages_tokens([*hydrate(working), new]))
        return self.mw.tools_tokens + est > self.settings.max_input_tokens

    # -- a turn --------------------------------------------------------------
    async def turn(self, text: str, *, force_summary: bool = False, focus: str | None = None) -> AsyncIterator[Event]:
        budget = self.settings.max_input_tokens
        new = HumanMessage(content=text, id=str(uuid.uuid4()))
        if self.warmer is not None:
            await self.warmer.settle()
        msgs = await self._state_messages()
        system = msgs[0] if msgs and isinstance(msgs[0], SystemMessage) else SystemMessage(content=self.system_prompt)
        alone = self.mw.tools_tokens + self.mw.calibration.scale(estimate_messages_tokens([system, new]))
        if alone > budget:
            yield Refused("too_long", {"tokens": alone, "budget": budget})
            return

        working = await self.load(msgs)
        summarized = False
        summary_seconds = 0.0
        bg_failed = False
        if self.summaries.running(self.thread_id) or self.summaries.pending is not None:
            wait = force_summary or self.wait_for_summary or self._over_budget(working, new)
            if wait and not self.summaries.ready() and self.summaries.running(self.thread_id):
                yield Notice("summary_wait" if self._over_budget(working, new) else "summarizing",
                             {"n": _turn_count(self.summaries.pending.plan)})
            try:
                started = time.perf_counter()
                taken = await self.summaries.take(self.thread_id, working, wait=wait)
                summary_seconds = time.perf_counter() - started
            except AuthError:
                raise
            except Exception as e:  # noqa: BLE001 - the turn goes on unsummarized
                taken, bg_failed = None, True
                yield Notice("summary_failed", {"err": describe(e)}, warning=True)
            if taken is not None:
                working = [_with_id(m) for m in taken.messages]
                summarized = True
                if taken.rolled.rejected:
                    yield Notice("summary_rejected", {"why": ", ".join(taken.rolled.rejected)}, warning=True)
                yield Notice("summarized", {"n": taken.turns})
        prepared = prepare(working, self.context, force_summary=force_summary)
        if prepared.trimmed:
            yield Notice("trimmed", {"keep": self.context.keep_turns})
        context = prepared.messages
        plan = prepared.plan
        if plan is not None and not force_summary and (bg_failed or self.summaries.running(self.thread_id)):
            plan = None  # failed this turn (retried after it) or still being made in the background
        if plan is not None and not (force_summary or self.wait_for_summary or self._over_budget(working, new)):
            self.summaries.start(self.thread_id, plan)  # used from the next turn
            plan = None
        if plan is not None:
            n = _turn_count(plan)
            over = not force_summary and self._over_budget(working, new)
            yield Notice("summary_wait" if over else "summarizing", {"n": n})
            try:
                started = time.perf_counter()
                context = await self._summarized_context(plan, focus)
                summary_seconds = time.perf_counter() - started
                summarized = True
                if self.last_rejected:
                    yield Notice("summary_rejected", {"why": ", ".join(self.last_rejected)}, warning=True)
                yield Notice("summarized", {"n": n})
            except AuthError:
                raise
            except Exception as e:  # noqa: BLE001 - the turn goes on unsummarized
                yield Notice("summary_failed", {"err": describe(e)}, warning=True)

        request, dropped = fit_to_budget(
            [*context, new], budget, self.mw.tools_tokens, self.mw.calibration.ratio
        )
        if dropped:
            yield Notice("budget_dropped", {"n": dropped})
        self.mw.stats = RequestStats(dropped_turns=dropped, model_seconds=summary_seconds)
        payload = {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *request]}
        try:
            async for mode, data in self.agent.astream(
                payload, self._run_config(), stream_mode=["messages", "updates", "custom"], durability="exit"
            ):
                for ev in _events(mode, data):
                    yield ev
        except Exception:  # a provider error or a runaway graph: the turn failed, the user's words stay
            try:
                await self._replace_state([*context, new])
            except Exception:  # noqa: BLE001 - never hide the original error
                pass
            raise
        except BaseException:  # Ctrl-C (cancel), shutdown: the turn never happened
            try:
                await self._replace_state(context)  # a summary made this turn is kept
            except Exception:  # noqa: BLE001 - never hide the original error
                pass
            raise

        final = await self._state_messages()
        final, looped = await self._cut_loop(final)
        if looped:
            yield Notice("answer_loop_cut", warning=True)
        await self._record(final)
        stats = self.mw.stats
        info = await self.store.get_thread(self.thread_id)
        await self.store.record_usage(
            self.thread_id, TurnUsage(info.turns if info else 0, stats.input_total or None, stats.output_total or None, stats.estimated)
        )
        await self.store.prune_checkpoints(self.thread_id)
        self._schedule_summary(final)
        self._warm_next()
        yield TurnDone(stats, count_turns(split(final).join()), prepared.trimmed + dropped, summarized, budget)

    def _schedule_summary(self, final: list[BaseMessage]) -> None:
        """Start, now that the answer is shown, the summary the next turn would make first."""
        if self.context.strategy != "summarize" or self.summaries.running(self.thread_id):
            return
        plan = prepare(final, self.context).plan
        if plan is not None:
            self.summaries.start(self.thread_id, plan, self._background_summarizer())

    def _warm_next(self) -> None:
        """Once the background summary is ready, have a local server read the context the next
        turn will send, while the user reads and types (client/engine/warm.py)."""
        p = self.summaries.pending
        if self.warmer is None or p is None or self.mw.first_request is None:
            return
        self.warmer.start(Binding.of(self.mw.first_request), p.task, self._next_context)

    async def _next_context(self) -> list[BaseMessage] | None:
        """What the next turn sends before its own message, the ready summary applied."""
        msgs = await self._state_messages()
        applied = self.summaries.result_for(self.thread_id, msgs) if msgs else None
        if applied is None or not isinstance(applied[0], SystemMessage):
            return None
        context = prepare(applied, self.context).messages
        request, _ = fit_to_budget([*context, HumanMessage(content=PLACEHOLDER)], self.settings.max_input_tokens,
                                   self.mw.tools_tokens, self.mw.calibration.ratio)
        return request[:-1]

    def _background_summarizer(self) -> Any:
        """The model on the niced summary server (local provider, once it is ready), so the
        summary made while the user reads does not take the CPU from the next turn; None: the
        session's summarizer. Only background summaries go there: one the turn waits for
        needs the CPU now, and the chat's server gives it a slot of its own."""
        url = getattr(self.settings, "summary_base_url", "")
        if not url:
            return None
        if self._bg_summarizer is None or self._bg_summarizer[0] != url:
            from client.engine.providers import build_model

            model = build_model(dataclasses.replace(self.settings, base_url=url), with_tools=False)
            self._bg_summarizer = (url, model)
        return self._bg_summarizer[1]

    async def _cut_loop(self, final: list[BaseMessage]) -> tuple[list[BaseMessage], bool]:
        """An answer that is a repetition loop is cut to its first round before it is stored."""
        last = final[-1] if final else None
        if not isinstance(last, AIMessage) or last.tool_calls:
            return final, False
        cut = cut_loop(text_of(last))
        if cut is None:
            return final, False
        fixed = last.model_copy(update={"content": cut})
        await self.agent.aupdate_state(self.config, {"messages": [fixed]}, as_node="model")
        return [*final[:-1], fixed], True

    def _run_config(self) -> dict:
        """A hard backstop under the per-turn caps (client/engine/limits.py): a few graph steps per
        model call, far below create_agent's default recursion limit of 9,999."""
        calls = getattr(self.settings, "max_model_calls", 12)
        return {**self.config, "recursion_limit": 4 * calls + 10}

    async def _replace_state(self, context: list[BaseMessage]) -> None:
        """Make `context` the thread's working context (not merged: replaced)."""
        await self.agent.aupdate_state(
            self.config, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *context]}, as_node="model"
        )
        await self._record(context)
        await self.store.prune_checkpoints(self.thread_id)

    async def _summarized_context(self, plan: SummaryPlan, focus: str | None) -> list[BaseMessage]:
        summary = await self.summarize(plan, focus)
        return [_with_id(m) for m in apply_summary(plan, summary)]

    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """Summarize now (/compact): older turns fold into the pair, state replaced."""
        self.summaries.cancel()  # the context changes now: a background summary would not fit it
        prepared = prepare(await self.load(), self.context, force_summary=True)
        if prepared.plan is None:
            yield Notice("nothing_to_compact")
            return
        n = _turn_count(prepared.plan)
        yield Notice("summarizing", {"n": n})
        await self._replace_state(await self._summarized_context(prepared.plan, focus))
        yield Notice("summarized", {"n": n})

    async def current_summary(self) -> str | None:
        s = split(await self._state_messages())
        return text_of(s.pair[1]) if s.pair else None

    # -- the narrow API of the UI (slash commands, the REPL): plain data, no UI text ----------
    @property
    def has_memory(self) -> bool:
        return self.memory is not None

    async def thread_info(self, thread_id: str | None = None) -> ThreadInfo | None:
        """The stored thread (this one by default); None before its first turn."""
        return await self.store.get_thread(thread_id or self.thread_id)

    async def threads(self) -> list[ThreadInfo]:
        """Every stored thread, most recently active first."""
        return await self.store.list_threads()

    async def match_threads(self, ref: str) -> list[str]:
        """Thread ids `ref` names: itself when it exists, else every id it is a prefix of."""
        if await self.store.get_thread(ref) is not None:
            return [ref]
        return [th.thread_id for th in await self.store.list_threads() if th.thread_id.startswith(ref)]

    async def delete_thread(self, thread_id: str) -> None:
        """Raises StoreError("thread_busy") when another client has it open."""
        await self.store.delete_thread(thread_id)

    async def rename(self, title: str) -> None:
        await self.store.set_title(self.thread_id, title[:100])

    async def export_data(self) -> ThreadExport:
        return ThreadExport(await self.store.get_thread(self.thread_id), await self.store.transcript(self.thread_id))

    async def usage(self) -> list[TurnUsage]:
        """Per turn, the tokens the API reported for this thread."""
        return await self.store.usage(self.thread_id)

    def set_strategy(self, strategy: str) -> bool:
        """Switch the context policy for this session; False for an unknown name."""
        if strategy not in STRATEGIES:
            return False
        self.context = ContextSettings(strategy, self.settings.context.max_turns,  # type: ignore[arg-type]
                                       self.context.summary_after)
        return True

    async def context_report(self) -> ContextReport:
        c = self.context
        msgs = await self._state_messages()
        parts = split(msgs) if msgs else None
        return ContextReport(
            c.strategy, c.keep_turns, c.summary_after, self.settings.max_input_tokens,
            turns=count_turns(parts.join()) if parts else 0,
            tokens=self.mw.tools_tokens + estimate_messages_tokens(msgs) if msgs else 0,
            has_summary=bool(parts and parts.pair),
        )

    async def memories(self) -> list[Bullet] | None:
        """Long-term memory, best first; None when memory is off."""
        return await self.memory.list() if self.memory else None

    async def forget(self, index: int) -> Bullet | None:
        """Delete the index-th (1-based) item of memories(); None when there is none (or memory is off)."""
        return await self.memory.forget(index) if self.memory else None


def _events(mode: str, data: Any) -> list[Event]:
    out: list[Event] = []
    if mode == "messages":
        chunk, meta = data
        if isinstance(chunk, AIMessageChunk) and meta.get("langgraph_node") == "model":
            t = text_of(chunk)
            if t:
                out.append(Text(t))
    elif mode == "custom" and isinstance(data, dict) and data.get("notice"):
        out.append(Notice(data["notice"], data.get("fmt", {}), warning=True))
    elif mode == "updates" and isinstance(data, dict):
        for node, update in data.items():
            msgs = (update or {}).get("messages", []) if isinstance(update, dict) else []
            if msgs and isinstance(msgs[0], RemoveMessage):  # a repaired history, then the new answer
                msgs = msgs[-1:]
            for m in msgs:
                if node == "model" and isinstance(m, AIMessage):
                    hidden = refused_ids(m)  # shown once, as their refusal (client/engine/toolcalls.py)
                    out.extend(ToolCall(tc["name"], tc.get("args", {})) for tc in m.tool_calls if tc.get("id") not in hidden)
                elif node == "tools" and isinstance(m, ToolMessage):
                    out.append(ToolResult(m.name or "", text_of(m), m.status == "error",
                                          str(m.additional_kwargs.get("permission", ""))))
    return out


def _turn_count(plan: SummaryPlan) -> int:
    return sum(1 for t in plan.to_summarize if t and isinstance(t[0], HumanMessage))
