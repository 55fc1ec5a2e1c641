"""Deferred tool schemas: the hook that gives each model request the tools it needs (issue 41).

Built only when the tools' schemas would take too much of the request budget
(client/core/context/deferred_tools.py decides, and which schemas go in each request). The agent
still knows every tool, so a call the model names without searching runs as usual, through the
permission gate; this middleware only changes `request.tools`:
- the search tool (`tool_search`, registered here), the tools the thread called so far and those
  this turn's searches found. "Called so far" is read once per thread from the transcript
  (`history`), then kept as the requests go by, so a resumed thread sends what it would have sent;
- a call of a name that is no tool (small models write `create_issue`, or `search` for the search
  tool) gets a short error with what a search for its name and text arguments finds, not a list
  of every tool's name; those tools are attached to the next request like a search's.
What the model reads here is fixed English, like every tool error (client/engine/mcp/hub.py).
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Sequence

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from client.core.context.deferred_tools import (DEFER_SHARE, MAX_TOOL_SHARE, ToolUse, request_tools, search_args,
                                                search_tool_name, stand_in_query, tool_calls, turn_searches)
from client.core.tool_search import SEARCH_SCHEMA, Index, ToolCard, result_text, search_description

History = Callable[[str], Awaitable[Sequence[BaseMessage]]]  # a thread's transcript, oldest first
NO_SUCH_TOOL = "There is no tool named '{name}'. Use {search} to find the tool you need."
BAD_QUERY = "tool_search needs a 'query': keywords, or select:name1,name2."


def card_of(tool: BaseTool) -> ToolCard:
    schema = tool.args_schema if isinstance(tool.args_schema, dict) else tool.tool_call_schema.model_json_schema()
    params = tuple(str(p) for p in (schema.get("properties") or {}))
    server = str((tool.metadata or {}).get("mcp_server") or "")
    return ToolCard(tool.name, tool.description or "", server, params)


class ToolSearch(AgentMiddleware):
    def __init__(self, tools: Sequence[BaseTool], budget: int, count: Callable[[list[BaseTool]], int],
                 history: History | None = None) -> None:
        """`count`: the provider's tokens of a tool list (one tool's, here); `history`: the
        transcript of a thread (None: only the working context counts)."""
        super().__init__()
        self.catalog = list(tools)
        self.by_name = {t.name: t for t in self.catalog}
        self.index = Index([card_of(t) for t in self.catalog])
        self.cap = int(DEFER_SHARE * budget)
        self.found_cap = int(MAX_TOOL_SHARE * budget)  # the newest search's matches (the first always)
        self.history = history
        self.uses: dict[str, ToolUse] = {}  # thread id -> tools called (a cache of its transcript)
        self.search_name = search_tool_name(self.by_name)
        self.search_tool = StructuredTool(name=self.search_name, description=search_description(self.index.cards),
                                          args_schema=SEARCH_SCHEMA, coroutine=self._search,
                                          metadata={"tool_search": True})
        self.tools = [self.search_tool]
        alone = count([self.search_tool])  # what one more tool adds (a list's frame, the local rules: once)
        self.sizes = {t.name: max(0, count([self.search_tool, t]) - alone) for t in self.catalog}

    @property
    def name(self) -> str:  # type: ignore[override]
        return "ToolSearch"

    async def _search(self, **args: Any) -> str:
        parsed = search_args(args)
        if parsed is None:
            return BAD_QUERY.replace("tool_search", self.search_name)
        return result_text(self.index.search(*parsed), self.index)

    async def selected(self, messages: Sequence[BaseMessage], thread_id: str | None) -> list[BaseTool]:
        """The tools a request over `messages` carries: the search tool first."""
        key, keep = thread_id or "", True
        use = self.uses.get(key)
        if use is None:
            try:
                past = await self.history(key) if self.history and thread_id else []
            except Exception:  # noqa: BLE001 - the store's fault is the turn's to report, not this hint's
                past, keep = [], False  # the working context only, this once; read again next request
            use = ToolUse().add(self._known(past))
        use = use.add(self._known(messages))
        if keep:
            self.uses[key] = use
        return self._request(use, messages)

    def _known(self, messages: Sequence[BaseMessage]) -> list[str]:
        return [n for n in tool_calls(messages) if n in self.by_name]

    def _request(self, use: ToolUse, messages: Sequence[BaseMessage]) -> list[BaseTool]:
        found = turn_searches(messages, self.search_name, self.index)
        names = request_tools([t.name for t in self.catalog], self.sizes, use, found, self.cap,
                              found_cap=self.found_cap)
        return [self.search_tool, *(self.by_name[n] for n in names)]

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        if not request.tools:  # the turn's last call goes without tools (client/engine/limits.py)
            return await handler(request)
        info = getattr(request.runtime, "execution_info", None)
        tools = await self.selected(request.messages, getattr(info, "thread_id", None))
        return await handler(request.override(tools=tools))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        call = request.tool_call
        if request.tool is None:
            name = str(call.get("name") or "")
            found = self.index.search(stand_in_query(name, call.get("args")))
            text = NO_SUCH_TOOL.format(name=name[:64], search=self.search_name)
            if found.names:
                text += "\n" + result_text(found, self.index)
            return ToolMessage(content=text, tool_call_id=call["id"], name=name, status="error")
        return await handler(request)
