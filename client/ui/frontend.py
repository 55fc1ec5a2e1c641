"""The terminal's side of the engine's Frontend (client/engine/frontend.py).

One object, built with the renderer before the MCP servers connect and given to everything in
the engine that shows or asks: notices and tools' progress through the renderer, the question
before a tool call runs (approve.py), a server's form and its sampling / URL questions
(forms.py), the browser for an OAuth login. Questions are asked with the terminal's reader
(the REPL's, given when the frontend is built: client/ui/startup.py); in a pipe or with -p
there is none, nobody is asked and the engine declines by itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from client.engine.frontend import ApprovalRequest, Field, FormAnswer, Frontend, ToolProgress
from client.ui.forms import ReadFn, TerminalForms
from client.ui.i18n import t
from client.ui.render import Renderer

if TYPE_CHECKING:
    from client.ui.approve import TerminalApprover


class TerminalFrontend(Frontend):
    def __init__(self, renderer: Renderer, read: ReadFn | None = None) -> None:
        """`read`: the terminal's line reader, when there is a person to ask (the tool approval,
        one key, also needs the rich renderer a terminal has)."""
        self.r = renderer
        self._forms: TerminalForms | None = None
        self._approver: TerminalApprover | None = None
        if read is not None:  # rich and the approval question load only at a terminal
            from client.ui.approve import TerminalApprover
            from client.ui.render_rich import RichRenderer

            self._forms = TerminalForms(read, renderer)
            if isinstance(renderer, RichRenderer):
                self._approver = TerminalApprover(renderer)

    def notice(self, key: str, fmt: dict[str, Any] | None = None, *, warning: bool = False) -> None:
        self.r.notice(t(key, **(fmt or {})), warning)

    def progress(self, event: ToolProgress) -> None:
        self.r.progress(event)

    async def approve(self, request: ApprovalRequest) -> str | None:
        return await self._approver(request) if self._approver is not None else None

    async def ask_form(self, server: str, message: str, fields: list[Field]) -> FormAnswer | None:
        return await self._forms.ask_form(server, message, fields) if self._forms is not None else None

    async def confirm(self, kind: str, server: str, summary: str) -> bool | None:
        return await self._forms.confirm(kind, server, summary) if self._forms is not None else None

    def open_url(self, url: str) -> None:
        if self.r.interactive:  # a person at this terminal may have a browser
            import webbrowser

            webbrowser.open(url, new=2)
