"""Tools as the model endpoint receives them: a tool's JSON schema as given, not as LangChain
rewrites it (it inlines `$ref`s, drops `$defs` and crashes on a ref that is not a fragment).

An MCP tool's schema is made safe for a model once, when the tool is built
(client/core/tool_schema.py `for_model`); `WireTools`, innermost around the model call, sends it
as an OpenAI-format function, and the token counts (client/engine/providers.py `tool_schemas`) and
the prompt-cache warm-up (client/engine/warm.py) read the same dicts, so what is counted and warmed
is what is sent.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from langchain.agents.middleware import AgentMiddleware


def wire_tool(tool: Any) -> Any:
    """`tool` as the request carries it: a dict for a tool with a JSON-schema dict, else unchanged."""
    schema = getattr(tool, "args_schema", None)
    if not isinstance(schema, dict) or not getattr(tool, "name", None):
        return tool
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description or "", "parameters": schema}}


def wire_tools(tools: list[Any] | None) -> list[Any]:
    return [wire_tool(t) for t in tools or []]


class WireTools(AgentMiddleware):
    """Innermost around the model: the request's tools go out with their schemas as given."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return "WireTools"

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if not request.tools:
            return await handler(request)
        return await handler(request.override(tools=wire_tools(request.tools)))
