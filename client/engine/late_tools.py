"""A tool call the agent has no tool for, while an MCP server is still starting.

At a terminal the prompt comes before the servers are up (client/engine/mcp/starting.py), so the
agent of an early turn may lack a tool the model names anyway (a resumed thread called it before,
or the user named it). `LateTools`, just inside the turn limits, asks the hub for it: the starts
under way are waited for and the call runs on the tool they brought, through the same gate as
any other. A name no server brings goes on to ToolNode's usual error.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Collection

from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import BaseTool

Resolve = Callable[[str], Awaitable[BaseTool | None]]


class LateTools(AgentMiddleware):
    def __init__(self, resolve: Resolve) -> None:
        super().__init__()
        self.resolve = resolve

    @property
    def name(self) -> str:  # type: ignore[override]
        return "LateTools"

    def without(self, names: Collection[str]) -> LateTools:
        """This lookup, except for `names`: tools the agent leaves out (client/engine/agent.py)."""
        async def resolve(name: str) -> BaseTool | None:
            return None if name in names else await self.resolve(name)

        return LateTools(resolve)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if request.tool is None:
            tool = await self.resolve(str(request.tool_call.get("name") or ""))
            if tool is not None:
                return await handler(request.override(tool=tool))
        return await handler(request)
