"""A background summary should cost the turn that applies it nothing: warm the prompt cache.

llama-server keeps each slot's last prompt and reads again only what differs from it. The
turn that applies a new summary changes the context right after the system prompt, so
without help it reads the whole context again before its first word (measured: ~8 s for
600 tokens on 2 cores, several times an ordinary turn). Once the background summary is
ready and no turn runs, one request holding the context the next turn will send (plus a
one-character placeholder message, answered with one token) has the server read it while
the user still reads and types; the next turn then reads only its own message.

Only for a provider whose server keeps a prompt cache and costs nothing per request (local).
A wrong guess costs only what the turn would have spent anyway; a failure is silent.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from langchain_core.messages import BaseMessage, HumanMessage

from client.engine.tasks import background

PLACEHOLDER = "."
SETTLE_TIMEOUT_S = 30.0  # a turn never waits longer for a warm in flight (a stuck server)


@dataclass
class Binding:
    """How the agent called the model on a turn's first call (model, tools, settings)."""

    model: Any
    tools: list[Any]
    tool_choice: Any
    settings: dict[str, Any]

    @classmethod
    def of(cls, request: Any) -> Binding:
        from client.engine.wire_tools import wire_tools  # the tools as they went out (WireTools)

        return cls(request.model, wire_tools(request.tools), request.tool_choice, dict(request.model_settings or {}))

    def one_token(self) -> Any:
        """The model bound as create_agent binds it, answering one token at most."""
        extra = getattr(self.model, "extra_body", None)
        limit = {"extra_body": {**extra, "max_tokens": 1}} if isinstance(extra, dict) else {"max_tokens": 1}
        kw = {**self.settings, **limit}
        if self.tools:
            return self.model.bind_tools(self.tools, tool_choice=self.tool_choice, **kw)
        return self.model.bind(**kw)


class Warmer:
    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.sending = False
        self.sent = 0  # requests made (tests and the bench read it)

    def start(self, binding: Binding, ready: asyncio.Future[Any] | asyncio.Task[Any],
              context: Callable[[], Awaitable[list[BaseMessage] | None]]) -> None:
        """Once `ready` is done, send `await context()` (None: nothing to warm)."""
        self.cancel()
        self.task = background(self._run(binding, ready, context))  # an optimisation: its failure is nobody's error

    async def _run(self, binding: Binding, ready: asyncio.Future[Any] | asyncio.Task[Any],
                   context: Callable[[], Awaitable[list[BaseMessage] | None]]) -> None:
        await asyncio.wait([ready])  # its outcome is the context callback's to judge
        messages = await context()
        if not messages:
            return
        self.sending = True
        try:
            await binding.one_token().ainvoke([*messages, HumanMessage(content=PLACEHOLDER)])
            self.sent += 1
        finally:
            self.sending = False

    async def settle(self) -> None:
        """Before a turn: a request in flight is let finish (the turn then reads what it cached
        instead of competing with it for the CPU); one still waiting for its summary is dropped."""
        task, self.task = self.task, None
        if task is None or task.done():
            return
        if self.sending:
            await asyncio.wait([task], timeout=SETTLE_TIMEOUT_S)
        task.cancel()  # done by now, or waiting for its summary, or stuck: the turn goes on

    def cancel(self) -> None:
        task, self.task = self.task, None
        if task is not None:
            task.cancel()
