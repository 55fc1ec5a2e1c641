"""What a session starts once an answer is shown, so that the next turn waits less: the summary
that turn would make first (client/engine/summaries.py) and, for a server that keeps a prompt
cache, once that summary is ready, a request that has it read the context the turn will send
(client/engine/warm.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from client.core.context.policy import ContextSettings, prepare
from client.engine.warm import PLACEHOLDER, Binding, Warmer

if TYPE_CHECKING:
    from client.engine.models import ModelStack
    from client.engine.summaries import Summaries
    from client.engine.threads import Threads


class NextTurn:
    def __init__(self, summaries: Summaries, threads: Threads, *, warm: bool) -> None:
        self.summaries = summaries
        self.threads = threads
        self.warmer = Warmer() if warm else None  # only for a provider with a prompt cache (local)

    async def settle(self) -> None:
        """Before a turn: a warming request in flight ends first (bounded, client/engine/warm.py)."""
        if self.warmer is not None:
            await self.warmer.settle()

    def prepare(self, final: list[BaseMessage], stack: ModelStack, context: ContextSettings) -> None:
        """The answer is shown: start the summary the next turn would make first; warm once it is ready."""
        tid = self.threads.id
        if context.strategy == "summarize" and not self.summaries.running(tid):
            plan = prepare(final, context).plan
            if plan is not None:
                self.summaries.start(tid, plan)
        p = self.summaries.pending
        if self.warmer is not None and p is not None and stack.mw.first_request is not None:
            self.warmer.start(Binding.of(stack.mw.first_request), p.task, lambda: self._context(stack, context))

    async def _context(self, stack: ModelStack, context: ContextSettings) -> list[BaseMessage] | None:
        """What the next turn sends before its own message, the ready summary applied."""
        msgs = await self.threads.state()
        applied = self.summaries.result_for(self.threads.id, msgs) if msgs else None
        if applied is None or not isinstance(applied[0], SystemMessage):
            return None
        request, _ = stack.mw.fit([*prepare(applied, context).messages, HumanMessage(content=PLACEHOLDER)])
        return request[:-1]
