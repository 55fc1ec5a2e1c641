"""Builds the model, the agent, and the middleware that shapes each request."""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_naver import ChatClovaX
from langgraph.config import get_stream_writer

from client.core.config import Settings
from client.core.faults import MAX_TRIES, AuthError, IncompleteResponse, backoff, classify, describe, is_empty_stream
from client.core.context.budget import Calibration, estimate_messages_tokens, estimate_tools_tokens, fit_to_budget
from client.engine.limits import DEFAULT_MAX_MODEL_CALLS, DEFAULT_MAX_TOOL_CALLS, TurnLimits


def build_model(settings: Settings, *, with_tools: bool = True) -> BaseChatModel:
    if settings.provider != "clova":  # openai-compatible server or the local llama-server
        from client.engine.providers import build_openai_model

        return build_openai_model(settings, with_tools=with_tools)
    kwargs: dict[str, Any] = {}
    if settings.model.upper().startswith("HCX-007") and with_tools:
        kwargs["reasoning_effort"] = "none"  # CLOVA requires it with tools
    return ChatClovaX(
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        max_tokens=settings.max_output_tokens,
        streaming=True,
        stream_usage=True,
        timeout=settings.timeout,
        max_retries=0,  # retries are ours: visible, bounded, honouring Retry-After
        **kwargs,
    )


async def check_key(settings: Settings) -> None:
    """Start-up probe: a rejected key (401/403) ends the program before the
    first prompt. Anything else (no /models route, network) is left to the
    first real request."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=5) as client:
            r = await client.get(settings.base_url.rstrip("/") + "/models",
                                 headers={"Authorization": f"Bearer {settings.api_key}"})
    except httpx.HTTPError:
        return
    if r.status_code in (401, 403):
        raise AuthError(f"HTTP {r.status_code}")


@dataclass
class RequestStats:
    """What the last model request of a turn looked like."""

    estimated: int = 0
    reported: int | None = None
    output: int | None = None
    dropped_turns: int = 0
    calls: int = 0
    input_total: int = 0
    output_total: int = 0
    model_seconds: float = 0.0  # inside model calls (HTTP + SDK), to tell client work apart


@dataclass
class ContextMiddleware(AgentMiddleware):
    """Fits every model request of a turn into the token budget.

    The working context was already decided at turn start (trim/summary);
    this guards the calls after tool results, which can grow a request.
    """

    budget: int
    tools_tokens: int = 0
    debug: bool = False
    calibration: Calibration = field(default_factory=Calibration)
    stats: RequestStats = field(default_factory=RequestStats)

    def __post_init__(self) -> None:
        super().__init__()

    @property
    def name(self) -> str:  # type: ignore[override]
        return "ContextMiddleware"

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        msgs: list[BaseMessage] = list(request.messages)
        budget, context_retried, attempt = self.budget, False, 0
        while True:
            attempt += 1
            fitted, dropped = fit_to_budget(msgs, budget, self.tools_tokens, self.calibration.ratio)
            estimate = self.tools_tokens + estimate_messages_tokens(fitted)
            if self.debug:  # shape only: never content, headers or keys
                roles = ",".join(type(m).__name__.replace("Message", "") for m in fitted)
                print(f"[debug] model request {attempt}: {len(fitted)} messages ({roles}), "
                      f"~{estimate} tokens, budget {budget}", file=sys.stderr, flush=True)
            started = time.perf_counter()
            try:
                response = await handler(request.override(messages=fitted) if fitted != msgs else request)
                _check_complete(response)
                break
            except Exception as e:  # noqa: BLE001 - classified below, re-raised when final
                fault = classify(e)
                if fault.kind == "auth":
                    raise AuthError(describe(e)) from None
                if fault.kind == "context" and not context_retried:
                    context_retried, budget = True, budget // 2  # trim harder, once
                    _notify("context_retry", {})
                    continue
                if fault.kind != "retry" or attempt >= MAX_TRIES:
                    if is_empty_stream(e):  # one plain line for the user, not langchain's wording
                        raise IncompleteResponse("incomplete response (empty stream)") from None
                    raise
                delay = backoff(attempt, fault.retry_after)
                _notify("retrying", {"err": describe(e), "delay": delay, "n": attempt + 1, "total": MAX_TRIES})
                await asyncio.sleep(delay)
            finally:
                self.stats.model_seconds += time.perf_counter() - started
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


def _notify(key: str, fmt: dict[str, Any]) -> None:
    """A notice on the graph's custom stream (shown by the REPL at once)."""
    try:
        get_stream_writer()({"notice": key, "fmt": fmt})
    except Exception:  # noqa: BLE001 - outside a graph run: nobody to tell
        pass


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


def tool_schemas(tools: list[BaseTool]) -> list[dict[str, Any]]:
    return [convert_to_openai_tool(t) for t in tools]


def build_agent(model: BaseChatModel, tools: list[BaseTool], checkpointer: Any, budget: int,
                debug: bool = False, *, max_model_calls: int = DEFAULT_MAX_MODEL_CALLS,
                max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
                gate: AgentMiddleware | None = None) -> tuple[Any, ContextMiddleware]:
    """`gate`: the tool-permission hook (client/engine/mcp/gate.py), innermost around every tool call."""
    mw = ContextMiddleware(budget=budget, tools_tokens=estimate_tools_tokens(tool_schemas(tools)), debug=debug)
    limits = TurnLimits(max_model_calls, max_tool_calls)  # outermost: decides whether a call gets tools
    middleware: list[AgentMiddleware] = [limits, mw, ToolResultText(), *([gate] if gate is not None else [])]
    agent = create_agent(model, tools, checkpointer=checkpointer, middleware=middleware)
    return agent, mw
