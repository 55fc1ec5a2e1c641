"""MCP tools over one long-lived session (stdio child or streamable HTTP).

`MultiServerMCPClient.get_tools()` opens a session per tool call (a new
process per call over stdio); here one session stays open for the chat.
"""

from __future__ import annotations

import os
import sys
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import IO

from langchain_core.tools import BaseTool
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

BUNDLED = "bundled search server (stdio)"


@dataclass
class ToolHub:
    server_url: str | None = None
    debug: bool = False
    tools: list[BaseTool] = field(default_factory=list)
    error: str | None = None
    _stack: AsyncExitStack | None = None
    _errlog: IO[str] | None = None

    @property
    def target(self) -> str:
        return self.server_url or BUNDLED

    async def connect(self) -> None:
        """Open the session and load tools; on failure keep `error` and no tools."""
        stack = AsyncExitStack()
        try:
            if self.server_url:
                read, write, _ = await stack.enter_async_context(streamablehttp_client(self.server_url))
            else:
                # The SDK passes a child only PATH/HOME/... unless given env:
                # hand over ours so the server sees the Naver credentials.
                params = StdioServerParameters(
                    command=sys.executable,
                    args=["-m", "server", "--transport", "stdio"],
                    env=dict(os.environ),
                )
                self._errlog = sys.stderr if self.debug else open(os.devnull, "w")
                read, write = await stack.enter_async_context(stdio_client(params, errlog=self._errlog))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            self.tools = await load_mcp_tools(session)
            self._stack = stack
            self.error = None
        except BaseException as e:  # noqa: BLE001 - reported as one line, chat goes on
            self.tools = []
            self.error = _one_line(e)
            try:
                await stack.aclose()
            except BaseException:  # noqa: BLE001
                pass
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise

    async def aclose(self) -> None:
        if self._stack is not None:
            try:
                await self._stack.aclose()
            except BaseException:  # noqa: BLE001 - shutting down anyway
                pass
            self._stack = None
        if self._errlog is not None and self._errlog is not sys.stderr:
            self._errlog.close()
            self._errlog = None


def _one_line(e: BaseException) -> str:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text[:200]
