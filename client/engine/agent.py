"""Builds the agent and the middleware that shapes each request (the model: client/engine/providers.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool

from client.core.config import Settings
from client.core.faults import MAX_TRIES, AuthError, IncompleteResponse, with_retries
from client.core.context.budget import Calibration, estimate_messages_tokens, fit_to_budget
from client.engine.providers import Runtime, tool_schemas
from client.engine.wire_tools import WireTools
from client.engine.events import RequestStats, notify
from client.engine.late_tools import LateTools
from client.engine.limits import DEFAULT_MAX_MODEL_CALLS, DEFAULT_MAX_TOOL_CALLS, TurnLimits
from client.engine.model_calls import ModelCalls
from client.engine.toolcalls import StrictToolArgs

if TYPE_CHECKING:
    from client.engine.tool_search import History


async def check_key(settings: Settings, runtime: Runtime | None = None) -> None:
    """Start-up probe: a rejected key (401/403) ends the program before the
    first prompt. Anything else (no /models route, network) is left to the
    first real request."""
    import httpx

    from client.engine.http import async_client

    runtime = runtime or Runtime.of(settings)
    try:
        async with async_client(runtime.uds, timeout=5) as client:
            r = await client.get(runtime.base_url.rstrip("/") + "/models",
                                 headers={"Authorization": f"Bearer {runtime.key(settings)}"})
    except httpx.HTTPError:
        return
    if r.status_code in (401, 403):
        raise AuthError(f"HTTP {r.status_code}")


@dataclass
class ContextMiddleware(AgentMiddleware):
    """Fits every model request of a turn into the token budget.

    The working context was already decided at turn start (trim/summary);
    this guards the calls after tool results, which can grow a request.
    """

    budget: int
    tools_tokens: int = 0  # of the tools the last request carried (all of them until the first)
    count_tools: Callable[[list[Any]], int] | None = None  # the provider's count of a tool list
    debug: bool = False
    calibration: Calibration = field(default_factory=Calibration)
    stats: RequestStats = field(default_factory=RequestStats)
    first_request: Any = None  # the last turn's first model request (client/engine/warm.py binds as it)
    refused_tools: tuple[tuple[str, int], ...] = ()  # (name, tokens): a schema too big to offer (build_agent)
    backoff_scale: float = 1.0  # Tuning.backoff_scale: the waits between tries (test suites: shorter)

    def __post_init__(self) -> None:
        super().__init__()
        self._tool_counts: dict[tuple[str, ...], int] = {}

    def tools_cost(self, tools: list[Any]) -> int:
        """Tokens of the tool list a request carries (deferred schemas: a few of them, client/engine/tool_search.py)."""
        if not tools:
            return 0
        if self.count_tools is None:
            return self.tools_tokens
        key = tuple(getattr(t, "name", None) or str(t) for t in tools)
        if key not in self._tool_counts:
            if len(self._tool_counts) > 256:
                self._tool_counts.clear()
            self._tool_counts[key] = self.count_tools(list(tools))
        return self._tool_counts[key]

    def counted(self, tools: list[Any], tokens: int) -> None:
        """The count of a tool list known already (the agent's, counted when it was built)."""
        self._tool_counts[tuple(getattr(t, "name", None) or str(t) for t in tools)] = tokens

    @property
    def name(self) -> str:  # type: ignore[override]
        return "ContextMiddleware"

    def request_tokens(self, messages: list[BaseMessage]) -> int:
        """Estimated tokens of a request of `messages` with the tool list, calibrated."""
        return self.tools_tokens + self.calibration.scale(estimate_messages_tokens(messages))

    def fit(self, messages: list[BaseMessage]) -> tuple[list[BaseMessage], int]:
        """`messages` fitted into the budget: (request, turns dropped)."""
        return fit_to_budget(messages, self.budget, self.tools_tokens, self.calibration.ratio)

    def start_turn(self, dropped: int = 0, model_seconds: float = 0.0) -> None:
        """A turn begins: its stats start from the turns the fit dropped and the summary's time."""
        self.stats = RequestStats(dropped_turns=dropped, model_seconds=model_seconds)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        msgs: list[BaseMessage] = list(request.messages)
        if self.stats.calls == 0:
            self.first_request = request
        budget, attempt = self.budget, 0
        estimate, dropped = 0, 0
        tools_tokens = self.tools_cost(list(request.tools or []))  # what this request carries
        if request.tools:
            self.tools_tokens = tools_tokens  # the next turn's checks count the same list

        async def call() -> ModelResponse:
            nonlocal attempt, estimate, dropped
            attempt += 1
            fitted, dropped = fit_to_budget(msgs, budget, tools_tokens, self.calibration.ratio)
            estimate = tools_tokens + estimate_messages_tokens(fitted)
            if self.debug:  # shape only: never content, headers or keys
                roles = ",".join(type(m).__name__.replace("Message", "") for m in fitted)
                notify("debug_request", {"n": attempt, "count": len(fitted), "roles": roles,
                                          "tokens": estimate, "budget": budget})
            started = time.perf_counter()
            try:
                response = await handler(request.override(messages=fitted) if fitted != msgs else request)
                _check_complete(response)
                return response
            finally:
                self.stats.model_seconds += time.perf_counter() - started

        def trim_harder() -> None:  # the model said the input is too long: once, with half the budget
            nonlocal budget
            budget //= 2
            notify("context_retry", {})

        def retrying(err: str, delay: float, n: int) -> None:
            notify("retrying", {"err": err, "delay": delay, "n": n, "total": MAX_TRIES})

        response = await with_retries(call, on_retry=retrying, on_context=trim_harder, scale=self.backoff_scale)
        usage = next(
            (m.usage_metadata for m in response.result if isinstance(m, AIMessage) and m.usage_metadata), None
        )
        reported = usage.get("input_tokens") if usage else None
        self.calibration.observe(estimate, reported)
        s = self.stats
        s.estimated, s.reported = estimate, reported
        s.output = usage.get("output_tokens") if usage else None
        s.dropped_turns = max(s.dropped_turns, dropped)
        s.calls += 1
        s.input_total += reported or 0
        s.output_total += s.output or 0
        return response


def _check_complete(response: ModelResponse) -> None:
    """A streamed answer without a finish reason was cut off: never keep it."""
    for m in response.result:
        if isinstance(m, AIMessage) and not (m.response_metadata or {}).get("finish_reason"):
            raise IncompleteResponse("stream ended early")


def flatten_content(content: Any) -> str:
    """Tool results as plain text: what every OpenAI-compatible endpoint accepts."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict):
            kind = block.get("type", "data")
            mime = block.get("mime_type") or block.get("mimeType") or ""
            parts.append(f"[{kind} {mime}]".replace(" ]", "]"))
        else:
            parts.append(str(block))
    return "\n".join(p for p in parts if p)


class ToolResultText(AgentMiddleware):
    """Every tool result reaches the model as one text string."""

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        result = await handler(request)
        if isinstance(result, ToolMessage) and not isinstance(result.content, str):
            result.content = flatten_content(result.content)
        return result


def build_agent(model: BaseChatModel, tools: list[BaseTool], checkpointer: Any, budget: int,
                debug: bool = False, *, max_model_calls: int = DEFAULT_MAX_MODEL_CALLS,
                max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
                gate: AgentMiddleware | None = None, tools_tokens: int | None = None,
                calibration_prior: float = 1.0, count_tools: Callable[[list[Any]], int] | None = None,
                tool_search: str = "auto", history: History | None = None,
                late: AgentMiddleware | None = None, calls: ModelCalls | None = None,
                backoff_scale: float = 1.0) -> tuple[Any, ContextMiddleware]:
    """`gate`: the tool-permission hook (client/engine/mcp/gate.py), innermost around every tool call.
    `count_tools` and `calibration_prior`: the provider's count of a tool list and tokenizer prior
    (client/engine/providers.py); without them, full schemas and 1.0 (`tools_tokens`: the count of
    `tools`, when known). `tool_search` (auto|on|off) and `history` (a thread's transcript): deferred
    tool schemas (client/engine/tool_search.py); a tool whose schema alone would take more than
    MAX_TOOL_SHARE of the budget is left out (`mw.refused_tools` names it). `late`: finds a tool
    a starting server brings (client/engine/late_tools.py), just inside the limits. `calls`: the
    session's count of the turn's model calls, which MCP sampling shares (model_calls.py)."""
    from client.core.context.budget import estimate_tools_tokens
    from client.core.context.deferred_tools import MAX_TOOL_SHARE, oversized, should_defer

    count = count_tools or (lambda ts: estimate_tools_tokens(tool_schemas(ts)))
    if tools_tokens is None:
        tools_tokens = count(tools)
    refused: list[tuple[str, int]] = []
    if budget > 0 and tools_tokens > MAX_TOOL_SHARE * budget:  # only then can one schema alone be too big
        sizes = {t.name: count([t]) for t in tools}
        refused = [(n, sizes[n]) for n in oversized(sizes, budget)]
        if refused:  # never offered, in any mode, nor found late: the agent does not know them
            tools = [t for t in tools if t.name not in dict(refused)]
            tools_tokens = count(tools)
            late = late.without(dict(refused)) if isinstance(late, LateTools) else late
    search = None
    if should_defer(tool_search, len(tools), tools_tokens, budget):
        from client.engine.tool_search import ToolSearch

        search = ToolSearch(tools, budget, count, history)
        tools_tokens = count([search.search_tool])  # until the first request says what it carries
    names = {t.name for t in tools} | ({search.search_name} if search else set())  # what a dispatcher may name
    mw = ContextMiddleware(budget=budget, tools_tokens=tools_tokens, count_tools=count, debug=debug,
                           calibration=Calibration(ratio=calibration_prior), refused_tools=tuple(refused),
                           backoff_scale=backoff_scale)
    if search is None and tools:  # counted once: the first request carries them all (200: 0.1-0.3 s when loaded)
        mw.counted(tools, tools_tokens)
    limits = TurnLimits(max_model_calls, max_tool_calls, calls)  # outermost: decides whether a call gets tools
    # ToolSearch: inside the limits (a call they strip of tools stays without), outside the budget
    # (which counts the tools it chose). StrictToolArgs: innermost around the model (it reads the
    # streamed argument text), and outside the gate around tools (a call with unreadable arguments
    # is refused before anyone is asked). WireTools: the very last around the model (the schemas as given)
    middleware: list[AgentMiddleware] = [limits, *([late] if late else []), *([search] if search else []), mw, ToolResultText(),
                                         StrictToolArgs(known=names.__contains__), WireTools(),
                                         *([gate] if gate is not None else [])]
    agent = create_agent(model, tools, checkpointer=checkpointer, middleware=middleware)
    return agent, mw
