"""Tool calls run with the arguments the model sent, parsed strictly, or not at all.

The chat models stream; LangChain joins the streamed argument text and parses it leniently
(client/core/toolargs.py says why that is not good enough), keeping only the result. This
middleware reads the raw argument text of each call as it streams (a callback handler on the
model run, attached through a context variable for the duration of the model call), parses it
with the one strict parser, and:
- a valid call runs with exactly the parsed arguments;
- a refused call (invalid JSON, duplicate keys, trailing text, not an object; also one LangChain
  already gave up on, `invalid_tool_calls`) stays in the AIMessage as a call with `{}` arguments,
  its id listed in `additional_kwargs[REFUSED]`, and never reaches its tool: the model gets an
  error tool result it can correct (`permission` `deny:bad_args` in the transcript).
Without raw text (a provider that does not stream) LangChain's own strict `json.loads` result stands.
A call of a made-up dispatcher that names a real tool (`call_tool(function_name=..., arguments=...)`,
client/core/tool_wrappers.py) becomes that tool's call here, before anything shows or runs it; the
dispatcher's name is kept in `additional_kwargs[UNWRAPPED]`.
"""

from __future__ import annotations

import uuid
from contextvars import ContextVar
from typing import Any, Awaitable, Callable

from langchain.agents.middleware import AgentMiddleware, ModelResponse
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tracers.context import register_configure_hook

from client.core.tool_wrappers import unwrapped
from client.core.toolargs import NOT_JSON, BadToolArgs, parse_tool_args, refusal_text

REFUSED = "refused_tool_calls"  # AIMessage.additional_kwargs: {call id: why}
REFUSED_LABEL = "deny:bad_args"  # ToolMessage.additional_kwargs["permission"]
UNWRAPPED = "unwrapped_tool_calls"  # AIMessage.additional_kwargs: {call id: the dispatcher's name}


class RawArguments(BaseCallbackHandler):
    """Collects the streamed argument text of each tool call of one model call."""

    run_inline = True  # in order, on the event loop

    def __init__(self) -> None:
        self.calls: dict[tuple[Any, Any], dict[str, Any]] = {}

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: Any = None, **kw: Any) -> None:
        for part in getattr(getattr(chunk, "message", None), "tool_call_chunks", None) or []:
            entry = self.calls.setdefault((run_id, part.get("index")), {"id": None, "args": ""})
            if part.get("id"):
                entry["id"] = part["id"]
            entry["args"] += part.get("args") or ""

    def by_id(self) -> dict[str, str]:
        return {e["id"]: e["args"] for e in self.calls.values() if e["id"]}


_collector: ContextVar[RawArguments | None] = ContextVar("mcp_chat_raw_tool_args", default=None)
register_configure_hook(_collector, inheritable=True)


def checked(message: AIMessage, raw: dict[str, str], known: Callable[[str], bool] | None = None) -> AIMessage:
    """The message with every tool call's arguments parsed strictly; refusals marked; a known
    tool's call through a made-up dispatcher unwrapped (`known`: is this a tool's name)."""
    if not message.tool_calls and not message.invalid_tool_calls:
        return message
    calls, refused = [], dict(message.additional_kwargs.get(REFUSED) or {})
    wrapped = dict(message.additional_kwargs.get(UNWRAPPED) or {})
    for tc in message.tool_calls:
        text = raw.get(tc.get("id") or "")
        try:
            args = parse_tool_args(text) if text is not None else tc.get("args") or {}
        except BadToolArgs as e:
            refused[tc["id"]] = e.why
            args = {}
        inner = unwrapped(tc.get("name") or "", args, known) if known and tc["id"] not in refused else None
        if inner is not None:
            wrapped[tc["id"]] = tc.get("name") or ""
            tc = {**tc, "name": inner[0]}
            args = inner[1]
        calls.append({**tc, "args": args})
    for bad in message.invalid_tool_calls:
        call_id = bad.get("id") or f"call_{uuid.uuid4().hex[:16]}"
        try:
            parse_tool_args(bad.get("args"))
            why = NOT_JSON  # LangChain could not read it either
        except BadToolArgs as e:
            why = e.why
        refused[call_id] = why
        calls.append({"name": bad.get("name") or "", "args": {}, "id": call_id, "type": "tool_call"})
    kwargs = {**message.additional_kwargs, **({REFUSED: refused} if refused else {}),
              **({UNWRAPPED: wrapped} if wrapped else {})}
    return message.model_copy(update={"tool_calls": calls, "invalid_tool_calls": [], "additional_kwargs": kwargs})


def refused_ids(message: AIMessage) -> set[str]:
    return set(message.additional_kwargs.get(REFUSED) or {})


class StrictToolArgs(AgentMiddleware):
    def __init__(self, known: Callable[[str], bool] | None = None) -> None:
        """`known`: whether a name is one of the agent's tools (None: no call is unwrapped)."""
        super().__init__()
        self.refused: dict[str, str] = {}  # call id -> why, until its tool step
        self.known = known

    @property
    def name(self) -> str:  # type: ignore[override]
        return "StrictToolArgs"

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        collector = RawArguments()
        token = _collector.set(collector)
        try:
            response = await handler(request)
        finally:
            _collector.reset(token)
        if not isinstance(response, ModelResponse):
            return response
        raw = collector.by_id()
        result = [checked(m, raw, self.known) if isinstance(m, AIMessage) else m for m in response.result]
        for m in result:
            if isinstance(m, AIMessage):
                self.refused.update(m.additional_kwargs.get(REFUSED) or {})
        return ModelResponse(result=result, structured_response=response.structured_response)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        call = request.tool_call
        why = self.refused.pop(call.get("id") or "", None)
        if why is None:
            return await handler(request)
        return ToolMessage(content=refusal_text(call.get("name") or "?", why), tool_call_id=call["id"],
                           name=call.get("name") or "", status="error",
                           additional_kwargs={"permission": REFUSED_LABEL})
