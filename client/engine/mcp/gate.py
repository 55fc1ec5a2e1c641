"""The engine hook: every tool call the agent makes passes `authorize` first.

A denied call never reaches its server; the model gets an error tool result saying the user
did not allow it (or, for a tool whose live definition is not the one offered, why:
client/engine/mcp/live_check.py), and the turn goes on. The decision rides on the ToolMessage
(`additional_kwargs["permission"]`, e.g. `allow:once`, `deny:user`): it is stored in the
transcript and shown by exports, never sent to the model endpoint. Sampling requests the server
made while the tool ran ride along the same way (`additional_kwargs["sampling"]`).
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

from client.engine.events import notify
from client.engine.mcp.permissions import Verdict, denial_text

Authorize = Callable[[str, dict, Any], Awaitable[Verdict | None]]  # (name, args, the agent's tool or None)


class PermissionGate(AgentMiddleware):
    def __init__(self, authorize: Authorize, servers: Callable[[str], tuple[str, str]] | None = None,
                 journal: Callable[[], list[dict]] | None = None) -> None:
        super().__init__()
        self.authorize = authorize
        self.names = servers  # function name -> (server, MCP tool name), for the denial text
        self.journal = journal  # takes the sampling records made during a call (ClientFeatures.drain_journal)

    @property
    def name(self) -> str:  # type: ignore[override]
        return "PermissionGate"

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        call = request.tool_call
        verdict = await self.authorize(call["name"], dict(call.get("args") or {}), request.tool)
        if verdict is None:  # not an MCP tool: nothing to gate
            return await handler(request)
        if verdict.save_error:  # "always" holds for this session only: the turn says why
            notify("perm_save_failed", {"err": verdict.save_error}, error=True)
        if not verdict.allowed:
            server, tool = self.names(call["name"]) if self.names else ("?", call["name"])
            if verdict.reason != "user" and not verdict.text:  # a refusal with its own text shows as the tool's error
                notify("perm_denied_" + verdict.reason, {"server": server, "tool": tool, "what": ", ".join(verdict.changed)})
            return ToolMessage(content=denial_text(verdict, server, tool), tool_call_id=call["id"],
                               name=call["name"], status="error", additional_kwargs={"permission": verdict.label})
        result = await handler(request)
        if isinstance(result, ToolMessage):
            result.additional_kwargs["permission"] = verdict.label
            sampled = self.journal() if self.journal else []
            if sampled:
                result.additional_kwargs["sampling"] = sampled
        return result
