"""An MCP tool as a LangChain tool: the one module where the two meet (tests/unit/test_architecture.py).

`as_langchain_tool(tool, client)` takes the parameters of langchain.mcp's (after langchain-mcp-adapters'
`convert_mcp_tool_to_langchain_tool`), so a move to the maintained adapter is a change of this file.
Ours calls through a `ToolClient`, not a fastmcp `Client` (docs/mcp.md), whose session callbacks answer
elicitation (features.py: no `elicitation=` here); `name` may differ from the MCP name (collisions, reserved
names: hub.py); a failure is an error tool message.
"""

from __future__ import annotations

from typing import Any, Protocol

from langchain_core.tools import BaseTool, StructuredTool
from mcp import types

from client.core.tool_schema import for_model


class ToolClient(Protocol):
    """One server's side of a call (hub.py): the result as text, ToolException with the text on failure."""

    server: str  # the server's name

    async def call_tool(self, tool: types.Tool, arguments: dict[str, Any]) -> str: ...


def as_langchain_tool(tool: types.Tool, client: ToolClient, *, name: str | None = None) -> BaseTool:
    """`tool` of `client`'s server, offered to the model as `name` (default: its own name)."""

    async def call_tool(**arguments: Any) -> str:
        return await client.call_tool(tool, arguments)

    return StructuredTool(
        name=name or tool.name,
        description=(tool.description or tool.title or tool.name).strip(),
        args_schema=for_model(tool.input_schema),
        coroutine=call_tool,
        handle_tool_error=True,  # ToolException -> error tool message, the turn goes on
        # mcp_offered: the definition the model was given, checked against the live one (ToolHub.authorize)
        metadata={"mcp_server": client.server, "mcp_tool": tool.name, "mcp_offered": tool},
    )
