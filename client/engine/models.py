"""The model of a session, owned in one place.

A `ModelStack` is one model and everything built for it: the settings resolved for its window
(name, output reserve, request budget), the provider, the chat model the agent calls, the
tool-less summarizer (rolling summaries, /compact, memory, MCP sampling), the agent and its
context middleware. `Models` builds it and swaps it whole (/model); everything that talks to
a model reads `models.current` when it does, so no copy can go stale.

Also: the provider's model list (`GET {base_url}/models`, for /model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from client.core.config import Settings
from client.engine.model_calls import ModelCalls
from client.engine.providers import Provider, Runtime, build_model, for_model, get_provider

if TYPE_CHECKING:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.tools import BaseTool

    from client.engine.agent import ContextMiddleware
    from client.engine.tool_search import History


@dataclass(frozen=True)
class ModelStack:
    """One model and what is built for it; replaced whole by a switch, never patched."""

    settings: Settings  # resolved for this model: its name, output reserve and request budget
    provider: Provider
    chat: BaseChatModel  # the agent's (tools bound by the agent)
    summarizer: BaseChatModel  # no tools: summaries, /compact, memory, sampling
    agent: Any  # None until Models.attach() (the tools are known)
    mw: ContextMiddleware

    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def budget(self) -> int:
        """Input tokens one request may use."""
        return self.settings.max_input_tokens

    @property
    def max_output(self) -> int:
        return self.settings.max_output_tokens

    @property
    def summary_output(self) -> int:
        """Output tokens of one summary section (a small model writes until the limit when it loops)."""
        return self.provider.summary_tokens(self.settings)


@dataclass(frozen=True)
class AgentParts:
    """What the agent is built over besides the model: the tools, the checkpointer, the permission
    gate, and a thread's transcript (the tools it called: client/engine/tool_search.py)."""

    tools: tuple[BaseTool, ...] = ()
    checkpointer: Any = None
    gate: AgentMiddleware | None = None
    history: History | None = None
    late: AgentMiddleware | None = None  # client/engine/late_tools.py


class Models:
    """The one owner of the session's model stack: built here, swapped here (/model).

    Built in two steps because MCP sampling needs the model before the servers' tools exist:
    `Models(settings, runtime)` is enough for the summarizer and its limits; `attach(...)` gives
    the tools, checkpointer and gate, and builds the agent. A switch rebuilds all of it."""

    def __init__(self, settings: Settings, runtime: Runtime | None = None) -> None:
        self.runtime = runtime or Runtime.of(settings)
        self.calls = ModelCalls(lambda: self.settings.max_model_calls)  # the turn's, sampling included
        self._parts: AgentParts | None = None
        self._stack = self._build(settings)
        self._background: tuple[tuple[str, str], Any] | None = None  # ((url, model), summarizer)

    @property
    def current(self) -> ModelStack:
        return self._stack

    @property
    def settings(self) -> Settings:
        return self._stack.settings

    def attach(self, tools: list[BaseTool] | tuple[BaseTool, ...], checkpointer: Any,
               gate: AgentMiddleware | None = None, history: History | None = None,
               late: AgentMiddleware | None = None) -> ModelStack:
        """The agent over these tools, checkpointer and gate (once, when the tools are known);
        `history` and `late`: as given before when not given."""
        if self._parts is not None:
            history = history if history is not None else self._parts.history
            late = late if late is not None else self._parts.late
        self._parts = AgentParts(tuple(tools), checkpointer, gate, history, late)
        self._stack = self._build(self._stack.settings, self._stack)
        return self._stack

    def switch(self, name: str) -> ModelStack:
        """Every later request of the session goes to `name`, sized for its window
        (an explicit --max-input-tokens is kept); the thread stays."""
        self._stack = self._build(for_model(self._stack.settings, name))
        return self._stack

    def background_summarizer(self) -> BaseChatModel | None:
        """The summarizer on the niced summary server (local provider, once it answers), so a
        summary made while the user reads does not take the CPU from the next turn; None: use
        `current.summarizer`. Only background summaries go there: one a turn waits for needs
        the CPU now, and the chat's server gives it a slot of its own."""
        helper = self.runtime.summary_server()
        if helper is None:
            return None
        key = (f"{helper.uds}{helper.base_url}", self._stack.name)
        if self._background is None or self._background[0] != key:
            self._background = (key, build_model(self._stack.settings, helper, with_tools=False))
        return self._background[1]

    def _build(self, settings: Settings, same: ModelStack | None = None) -> ModelStack:
        """The stack for `settings`; `same`: a stack for the same settings whose summarizer is reused.
        Before attach() there is no agent yet (None): only the summarizer is asked for."""
        provider = get_provider(settings.provider)
        parts = self._parts
        tools = list(parts.tools) if parts else []
        summarizer = same.summarizer if same else build_model(settings, self.runtime, with_tools=False, role="summary")
        chat = build_model(settings, self.runtime, with_tools=bool(tools))
        if parts is None:
            return ModelStack(settings, provider, chat, summarizer, None, None)  # type: ignore[arg-type]
        from client.engine.agent import build_agent

        agent, mw = build_agent(chat, tools, parts.checkpointer, settings.max_input_tokens, settings.debug,
                                max_model_calls=settings.max_model_calls, max_tool_calls=settings.max_tool_calls,
                                gate=parts.gate, tools_tokens=provider.tools_tokens(tools),
                                calibration_prior=provider.calibration_prior, count_tools=provider.tools_tokens,
                                tool_search=settings.tool_search, history=parts.history, late=parts.late,
                                calls=self.calls, backoff_scale=settings.tuning.backoff_scale)
        return ModelStack(settings, provider, chat, summarizer, agent, mw)


async def list_models(settings: Settings, runtime: Runtime | None = None, timeout: float = 10.0) -> list[str] | None:
    """Model ids the endpoint lists; None when it has no /models route. Raises on other faults."""
    from client.engine.http import async_client

    runtime = runtime or Runtime.of(settings)
    key = runtime.key(settings)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with async_client(runtime.uds, timeout=timeout) as client:
        r = await client.get(runtime.base_url.rstrip("/") + "/models", headers=headers)
    if r.status_code in (404, 405):
        return None
    r.raise_for_status()
    doc = r.json()
    items = doc.get("data", doc.get("models")) if isinstance(doc, dict) else doc
    ids = [str(m.get("id") or m.get("name")) for m in items or [] if isinstance(m, dict) and (m.get("id") or m.get("name"))]
    return sorted(set(ids))
